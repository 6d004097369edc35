// The linters users would otherwise run, for `npm run bench` to time side by side with kube-windows
// on the same inputs: kube-score and kubeconform, each built once from its published Go module
// (`go install MODULE@VERSION` through the Go module proxy) into the same cache as the API server
// and KWOK (scripts/apiserver.mjs's buildOnce: a lock, so parallel runs build once). Bench-only:
// nothing here ships. A tool that cannot be had (no Go, no proxy) is skipped with a line saying why.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOnce, cacheRoot } from '../apiserver.mjs';

/**
 * Each tool: its module's command package, the pinned version, and how to check one file with it
 * as a CI job would (every finding printed, the exit code saying pass or fail).
 */
export const LINTERS = [
  {
    name: 'kube-score',
    pkg: 'github.com/zegl/kube-score/cmd/kube-score',
    version: 'v1.20.0',
    args: (file) => ['score', '--output-format', 'ci', file],
    note: 'all default checks, one process',
  },
  {
    name: 'kubeconform',
    pkg: 'github.com/yannh/kubeconform/cmd/kubeconform',
    version: 'v0.8.0',
    // The schemas come from the network on first use; -cache keeps them so that timed runs read disk.
    args: (file, cache) => ['-summary', '-cache', cache, '-ignore-missing-schemas', file],
    note: 'schema validation only, its default parallelism',
  },
];

const binaryName = (tool) => (process.platform === 'win32' ? `${tool.name}.exe` : tool.name);

export function linterBinaryPath(tool) {
  return join(cacheRoot(), `${tool.name}-${tool.version}`, binaryName(tool));
}

/** Where kubeconform keeps the schemas it downloaded (next to its binary). */
export function schemaCache(tool) {
  const dir = join(dirname(linterBinaryPath(tool)), 'schemas');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Builds the tool unless the cache has it. Resolves to { binary, built, seconds }, or to
 * { skipped: reason } when it cannot be had here; never throws for a missing toolchain or proxy.
 */
export async function ensureLinter(tool, { log = (line) => console.error(line) } = {}) {
  const binary = linterBinaryPath(tool);
  try {
    const r = await buildOnce(binary, `${tool.name} ${tool.version}`, log, () => goInstall(tool, binary, log));
    return { binary, ...r };
  } catch (err) {
    return { skipped: err instanceof Error ? err.message : String(err) };
  }
}

async function goInstall(tool, binary, log) {
  const go = process.env.GO || 'go';
  if (spawnSync(go, ['version'], { stdio: 'ignore' }).error)
    throw new Error(
      `no Go toolchain ("${go}" not found); install Go to build ${tool.name} from ${tool.pkg}@${tool.version}`,
    );
  const gobin = `${dirname(binary)}/.gobin-${process.pid}`;
  mkdirSync(gobin, { recursive: true });
  log(`${tool.name} ${tool.version}: building from ${tool.pkg} (first time only; cached in ${dirname(binary)}) ...`);
  const started = Date.now();
  const code = await new Promise((res) => {
    const child = spawn(
      'nice',
      ['-n', '19', go, 'install', '-trimpath', '-ldflags', '-s -w', `${tool.pkg}@${tool.version}`],
      {
        cwd: dirname(binary),
        env: { ...process.env, GOBIN: gobin, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    child.on('error', () => res(1));
    child.on('exit', (c, sig) => res(sig ? 128 : c));
  });
  const seconds = (Date.now() - started) / 1000;
  const built = join(gobin, binaryName(tool));
  if (code !== 0 || !existsSync(built)) {
    rmSync(gobin, { recursive: true, force: true });
    throw new Error(
      `go install ${tool.pkg}@${tool.version} failed after ${seconds.toFixed(0)}s (exit ${code}); is the Go module proxy reachable?`,
    );
  }
  renameSync(built, binary);
  rmSync(gobin, { recursive: true, force: true });
  log(`${tool.name} ${tool.version}: built in ${seconds.toFixed(1)}s: ${binary}`);
  return seconds;
}

// `node scripts/bench/linters.mjs`: builds (or finds) both tools and says where they are.
async function main() {
  for (const tool of LINTERS) {
    const r = await ensureLinter(tool);
    console.log(r.skipped ? `${tool.name}: skipped: ${r.skipped}` : `${tool.name} ${tool.version}: ${r.binary}`);
  }
}

if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(resolve(process.argv[1])).href &&
  /linters\.mjs$/.test(process.argv[1])
)
  void main();
