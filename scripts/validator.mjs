// Builds the exact-API validator (validator/main.go: kube-apiserver's own create-time validation)
// to WebAssembly (GOOS=wasip1 GOARCH=wasm, a reactor) for a Kubernetes release, from the published
// k8s.io/kubernetes module, once: the module and its compressed copy are cached outside the work
// tree under a hash of every input, like the test API server (scripts/apiserver.mjs's buildOnce).
//
// Each release builds from the same go.mod and go.sum as that release's API server harness
// (test/apiserver for the pinned one, test/apiserver-1.N for the others), so the validator and the
// server the differential test compares it with run the same code. Two files of the API server's
// dependency tree do not compile for WASI; the build puts a stand-in in their place with
// `go build -overlay` over a vendored copy of the modules (the module cache itself cannot be
// overlaid): go-systemd's journald writer takes the module's own no-journald file
// (journal_windows.go), etcd's file lock takes validator/wasip1/etcd-fileutil-lock.go. Neither is
// reached by validation.
//
//   import { ensureValidator } from './validator.mjs';
//   const { path, compressed, kubernetesVersion } = await ensureValidator({ release: '1.37' });
//
// Run directly: `node scripts/validator.mjs [--release 1.N | --all] [--copy-to DIR] [--measure]` builds
// (or finds) them, prints each module's path, with --copy-to puts the compressed files a user
// installs (kube-windows-validator-v1.N.P.wasm.br) in DIR, and with --measure prints the figures
// docs/exact-api.md gives: sizes (raw, gzip, brotli), compile, initialisation and first-call time,
// time per document over the workloads of test/fixtures/corpus and examples/, and the memory held.
//
// Environment: KW_VALIDATOR_CACHE overrides the cache directory (default
// ${XDG_CACHE_HOME:-~/.cache}/kube-windows/validator); GO names the go command (default `go`).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { buildOnce, defaultRelease, kubernetesVersion, releases } from './apiserver.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(root, 'validator');

/** The files of the dependency tree that WASI cannot compile, and what stands in for each (see above). */
const STAND_INS = [
  {
    file: 'github.com/coreos/go-systemd/v22/journal/journal_unix.go',
    vendored: 'github.com/coreos/go-systemd/v22/journal/journal_windows.go',
  },
  { file: 'go.etcd.io/etcd/client/pkg/v3/fileutil/lock_flock.go', ours: 'wasip1/etcd-fileutil-lock.go' },
];

/** The harness directory whose go.mod and go.sum build `release`. */
function harnessDir(release) {
  const own = join(root, 'test', `apiserver-${release}`);
  if (existsSync(join(own, 'go.mod'))) return own;
  if (release === defaultRelease()) return join(root, 'test', 'apiserver');
  throw new Error(`No validator can be built for Kubernetes ${release}: the releases are ${releases().join(', ')}.`);
}

export function cacheRoot() {
  if (process.env.KW_VALIDATOR_CACHE) return resolve(process.env.KW_VALIDATOR_CACHE);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'kube-windows', 'validator');
}

/** The file name a validator for `version` ("v1.35.4") is installed under; the CLI finds releases by it. */
export const moduleName = (version) => `kube-windows-validator-${version}.wasm`;

/** Where the module for a release lives in the cache (it may not be built yet). */
export function validatorPath(release = defaultRelease()) {
  const dir = harnessDir(release);
  const version = kubernetesVersion(release);
  const hash = createHash('sha256');
  const inputs = [
    ['go.mod', join(dir, 'go.mod')],
    ['go.sum', join(dir, 'go.sum')],
    ['main.go', join(sourceDir, 'main.go')],
    ...STAND_INS.filter((s) => s.ours).map((s) => [s.ours, join(sourceDir, s.ours)]),
  ];
  for (const [name, path] of inputs) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(path));
    hash.update('\0');
  }
  hash.update(JSON.stringify(STAND_INS));
  return join(cacheRoot(), `${version}-${hash.digest('hex').slice(0, 16)}`, moduleName(version));
}

/**
 * Builds the validator of a release (the default one unless given) unless the cache has it; safe to
 * call from several processes at once. Resolves to { path, compressed, kubernetesVersion, release, built, seconds }.
 */
export async function ensureValidator({ release = defaultRelease(), log = (line) => console.error(line) } = {}) {
  const path = validatorPath(release);
  const version = basename(dirname(path)).replace(/-[0-9a-f]{16}$/, '');
  const compressed = `${path}.br`;
  const r = await buildOnce(compressed, `validator ${version}`, log, () =>
    build(path, compressed, version, harnessDir(release), log),
  );
  return { path, compressed, kubernetesVersion: version, release, ...r };
}

function run(cmd, args, options) {
  return new Promise((res) => {
    const child = spawn('nice', ['-n', '19', cmd, ...args], { stdio: ['ignore', 'inherit', 'inherit'], ...options });
    child.on('error', () => res(127));
    child.on('exit', (c, sig) => res(sig ? 128 : c));
  });
}

async function build(path, compressed, version, harness, log) {
  const go = process.env.GO || 'go';
  const probe = spawnSync(go, ['env', 'GOVERSION'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    throw new Error(
      `The exact-API validator is built with the Go toolchain (go 1.24 or newer, for go:wasmexport), and \`${go}\` could not be run; install Go, or set GO to its path.`,
    );
  const work = `${dirname(path)}.src-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const name of ['go.mod', 'go.sum']) copyFileSync(join(harness, name), join(work, name));
  copyFileSync(join(sourceDir, 'main.go'), join(work, 'main.go'));
  log(
    `validator ${version}: building the WebAssembly module with ${probe.stdout.trim()} from ${relative(root, harness)}/go.mod (first time only; cached in ${dirname(path)}) ...`,
  );
  const started = Date.now();
  const env = { ...process.env, GOOS: 'wasip1', GOARCH: 'wasm', CGO_ENABLED: '0', GOFLAGS: '' };
  try {
    if ((await run(go, ['mod', 'vendor'], { cwd: work, env })) !== 0)
      throw new Error(
        `\`go mod vendor\` for validator ${version} failed (the go errors are above); is the Go module proxy reachable?`,
      );
    const replace = {};
    for (const s of STAND_INS) {
      const target = join(work, 'vendor', s.file);
      if (!existsSync(target)) continue; // a release whose tree no longer has it
      replace[target] = s.ours ? join(sourceDir, s.ours) : join(work, 'vendor', s.vendored);
    }
    writeFileSync(join(work, 'overlay.json'), JSON.stringify({ Replace: replace }));
    const tmp = `${path}.tmp-${process.pid}`;
    const args = ['build', '-mod=vendor', '-overlay', 'overlay.json', '-buildmode=c-shared', '-trimpath'];
    args.push('-ldflags', `-s -w -X main.kubernetesVersion=${version}`, '-o', tmp, '.');
    const code = await run(go, args, { cwd: work, env });
    if (code !== 0) {
      rmSync(tmp, { force: true });
      throw new Error(
        `Building validator ${version} failed after ${((Date.now() - started) / 1000).toFixed(0)}s (exit ${code}); the go errors are above.`,
      );
    }
    renameSync(tmp, path);
    const bytes = readFileSync(path);
    // Brotli: the smallest file Node unpacks without a dependency (gzip is ~1.5 times larger); quality 9
    // takes about a minute for 100 MB, 11 several and saves little.
    const packed = brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 9,
        [constants.BROTLI_PARAM_LGWIN]: 24,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    });
    writeFileSync(`${compressed}.tmp-${process.pid}`, packed);
    renameSync(`${compressed}.tmp-${process.pid}`, compressed);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const seconds = (Date.now() - started) / 1000;
  const mb = (p) => (statSync(p).size / 1048576).toFixed(1);
  log(
    `validator ${version}: built in ${seconds.toFixed(1)}s (${mb(path)} MiB, ${mb(compressed)} MiB compressed): ${path}`,
  );
  return seconds;
}

/** The figures of one module (see --measure); a reactor instance like the CLI's (src/shared/validator-runner.ts). */
async function measure(v) {
  const { gzipSync } = await import('node:zlib');
  const { performance } = await import('node:perf_hooks');
  // The same WASI implementation as the CLI's, for the reason given there.
  const { WASI } = await import('@bjorn3/browser_wasi_shim');
  const bytes = readFileSync(v.path);
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const module = await WebAssembly.compile(bytes);
  const t1 = performance.now();
  const wasi = new WASI(['validator'], [], [], { debug: false });
  const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
  wasi.initialize(instance);
  const t2 = performance.now();
  const x = instance.exports;
  const validate = (text) => {
    const req = Buffer.from(JSON.stringify({ text }));
    const at = x.kw_alloc(req.length);
    new Uint8Array(x.memory.buffer, at, req.length).set(req);
    const n = x.kw_validate(req.length);
    return JSON.parse(Buffer.from(x.memory.buffer, x.kw_result_ptr(), n).toString('utf8'));
  };
  const docs = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(name))
        for (const d of readFileSync(p, 'utf8').split(/^---\s*$/m))
          if (
            /^kind:\s*(Pod|Deployment|StatefulSet|DaemonSet|ReplicaSet|Job|CronJob|ReplicationController|PodTemplate)\s*$/m.test(
              d,
            )
          )
            docs.push(d);
    }
  };
  walk(join(root, 'test', 'fixtures', 'corpus'));
  walk(join(root, 'examples'));
  const first = performance.now();
  validate(docs[0]);
  const t3 = performance.now();
  const times = [];
  const verdicts = {};
  for (let round = 0; round < 3; round++)
    for (const d of docs) {
      const s = performance.now();
      const a = validate(d);
      times.push(performance.now() - s);
      if (round === 0) verdicts[a.verdict] = (verdicts[a.verdict] ?? 0) + 1;
    }
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(times.length * p))].toFixed(1);
  const mb = (n) => `${(n / 1048576).toFixed(1)} MiB`;
  console.log(
    JSON.stringify(
      {
        kubernetes: v.kubernetesVersion,
        raw: mb(bytes.length),
        gzip: mb(gzipSync(bytes, { level: 9 }).length),
        brotli: mb(statSync(v.compressed).size),
        compileMs: Math.round(t1 - t0),
        initialiseMs: Math.round(t2 - t1),
        firstCallMs: Math.round(t3 - first),
        documents: docs.length,
        verdicts,
        perDocumentMs: {
          mean: (times.reduce((a, b) => a + b, 0) / times.length).toFixed(1),
          p50: q(0.5),
          p95: q(0.95),
        },
        wasmMemory: mb(x.memory.buffer.byteLength),
        processMemoryAdded: mb(process.memoryUsage().rss - rss0),
      },
      null,
      2,
    ),
  );
}

async function main() {
  const option = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const wanted = process.argv.includes('--all') ? releases() : [option('--release') ?? defaultRelease()];
  const copyTo = option('--copy-to');
  for (const release of wanted) {
    const v = await ensureValidator({ release });
    if (copyTo) {
      mkdirSync(copyTo, { recursive: true });
      const to = join(copyTo, basename(v.compressed));
      copyFileSync(v.compressed, to);
      console.log(to);
    } else console.log(v.path);
    if (process.argv.includes('--measure')) await measure(v);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((e) => {
    console.error(e.message);
    process.exit(1);
  });
}
