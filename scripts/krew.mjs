// The krew plugin `windows` (kubectl krew install windows): its platform archives and its manifest,
// krew/windows.yaml. krew installs an archive per platform and links its `bin`, an executable (an .exe
// on Windows); kube-windows is a Node.js program, so each archive holds a small Go launcher built from
// krew/launcher (our own source, no dependencies) for that platform, which finds Node and runs the
// bundle beside it:
//
//   kubectl-windows[.exe]                  the launcher (KUBE_WINDOWS_NODE, else node on the PATH)
//   lib/kubectl-windows.js                 the plugin's entry, as in the npm package's dist/
//   lib/kubectl_complete-windows.js        the same, run when the launcher is started as kubectl_complete-windows
//   lib/cli.js, lib/cli-main.js[, .cache]  the kube-windows bundle (it holds every dependency)
//   LICENSE
//
// Archives are reproducible: entries sorted, owner 0, mtime 0, gzip without a name or time.
//
//   node scripts/krew.mjs --release   builds every platform's archive into out/krew/ from dist/ (build it
//                                     first: node scripts/build.mjs --production) and rewrites
//                                     krew/windows.yaml with their sha256 and release URLs
//   node scripts/krew.mjs --archive   the archive of this machine's platform only; prints its path
//
// The tests (test/cli/kubectl-plugin-krew.test.ts) check the manifest with krew's own validator and
// install the archive with krew itself; both are built from sigs.k8s.io/krew (ensureKrewTools).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildOnce, cacheRoot } from './apiserver.mjs';
import { goInstall } from './go-install.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MANIFEST = join(root, 'krew', 'windows.yaml');
const LAUNCHER_DIR = join(root, 'krew', 'launcher');
const RELEASES = 'https://github.com/kube-windows/kube-windows/releases/download';

/** The platforms krew installs kube-windows on: those Node.js 20 ships for. */
export const PLATFORMS = [
  { os: 'linux', arch: 'amd64' },
  { os: 'linux', arch: 'arm64' },
  { os: 'darwin', arch: 'amd64' },
  { os: 'darwin', arch: 'arm64' },
  { os: 'windows', arch: 'amd64' },
  { os: 'windows', arch: 'arm64' },
];

/** The bundle files an archive carries under lib/ (the code cache only when the build made one). */
const BUNDLE = ['kubectl-windows.js', 'cli.js', 'cli-main.js', 'cli-main.cache'];

export const binName = ({ os }) => (os === 'windows' ? 'kubectl-windows.exe' : 'kubectl-windows');
export const archiveName = (version, { os, arch }) => `kubectl-windows-v${version}-${os}-${arch}.tar.gz`;

/** This machine's platform, in Go's names. */
export function hostPlatform() {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch];
  const os = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[process.platform];
  if (!arch || !os) throw new Error(`krew archives are not made for ${process.platform}/${process.arch}`);
  return { os, arch };
}

export function packageVersion() {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
}

/** Builds the launcher for a platform into `out` (Go cross-compiles; no C toolchain). */
async function buildLauncher(platform, out) {
  const go = process.env.GO || 'go';
  const code = await new Promise((res) => {
    const child = spawn(go, ['build', '-trimpath', '-buildvcs=false', '-ldflags', '-s -w', '-o', out, '.'], {
      cwd: LAUNCHER_DIR,
      env: { ...process.env, GOOS: platform.os, GOARCH: platform.arch, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', () => res(1));
    child.on('exit', (c, sig) => res(sig ? 128 : c));
  });
  if (code !== 0)
    throw new Error(`building the krew launcher for ${platform.os}/${platform.arch} failed (go build exit ${code})`);
}

/**
 * Builds one platform's archive from dist/ into `outDir`. Resolves to { file, sha256, entries }: entries are the
 * archive's file names, as `tar -tzf` lists them.
 */
export async function buildArchive({ platform, outDir, version = packageVersion(), dist = join(root, 'dist') }) {
  if (!existsSync(join(dist, 'kubectl-windows.js')))
    throw new Error(`${dist}/kubectl-windows.js is missing: build first (node scripts/build.mjs --production)`);
  const stage = mkdtempSync(join(tmpdir(), 'kw-krew-'));
  try {
    mkdirSync(join(stage, 'lib'));
    const bin = binName(platform);
    await buildLauncher(platform, join(stage, bin));
    chmodSync(join(stage, bin), 0o755);
    const lib = BUNDLE.filter((f) => existsSync(join(dist, f)));
    // The completion entry is the plugin's under the name kubectl runs for completion (the bundle reads its name).
    const copies = [...lib.map((f) => [f, f]), ['kubectl-windows.js', 'kubectl_complete-windows.js']];
    for (const [from, to] of copies) {
      copyFileSync(join(dist, from), join(stage, 'lib', to));
      chmodSync(join(stage, 'lib', to), 0o644); // the same modes whatever dist/ has
    }
    copyFileSync(join(root, 'LICENSE'), join(stage, 'LICENSE'));
    const entries = ['LICENSE', bin, 'lib/', ...copies.map(([, to]) => `lib/${to}`)].sort();
    const tar = spawnSync(
      'tar',
      ['--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '-cf', '-', 'LICENSE', bin, 'lib'],
      { cwd: stage, maxBuffer: 1 << 30 },
    );
    if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, archiveName(version, platform));
    const bytes = gzipSync(tar.stdout, { level: 9 });
    writeFileSync(file, bytes);
    return { file, sha256: createHash('sha256').update(bytes).digest('hex'), entries };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The krew manifest of a release: one platform entry per archive ({ platform, sha256, uri }). */
export function manifestText({ version, archives }) {
  const platforms = archives
    .map(
      ({ platform, sha256, uri }) => `    - selector:
        matchLabels:
          os: ${platform.os}
          arch: ${platform.arch}
      uri: ${uri}
      sha256: ${sha256}
      bin: ${binName(platform)}`,
    )
    .join('\n');
  return `# The krew plugin manifest of kube-windows (kubectl krew install windows), for the krew-index.
# Written by \`node scripts/krew.mjs --release\` from the archives it builds (sha256 and URLs of the
# release); checked by krew's own validate-krew-manifest and installed with krew in
# test/cli/kubectl-plugin-krew.test.ts. Each archive holds a launcher that runs the bundled kube-windows
# with Node.js: docs/kubectl-plugin.md says what it holds and how it finds Node.
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: windows
spec:
  version: v${version}
  homepage: https://github.com/kube-windows/kube-windows
  shortDescription: Check Windows workloads and operate Windows nodes
  description: |
    Windows containers on Kubernetes and OpenShift from kubectl. kubectl windows check
    finds what Windows nodes cannot run in manifests or in what is deployed (the API
    server's rejections, settings the Windows kubelet ignores, images of the wrong
    Windows build) and explains failing Windows pods; kubectl windows nodes lists the
    Windows nodes with their Windows release; join, reboot, drain, logs and registry
    mirrors act on Windows nodes. It takes kubectl's conventions: the current context,
    KUBECONFIG, -n, -A and -o json|yaml.
  caveats: |
    This plugin runs on Node.js 20.19 or newer: it uses the node on your PATH, or the
    one KUBE_WINDOWS_NODE names. Start with:
      kubectl windows --help
      kubectl windows nodes
  platforms:
${platforms}
`;
}

/** Builds every platform's archive and rewrites krew/windows.yaml for them. */
async function release(outDir) {
  const version = packageVersion();
  const archives = [];
  for (const platform of PLATFORMS) {
    const { file, sha256 } = await buildArchive({ platform, outDir, version });
    archives.push({ platform, sha256, uri: `${RELEASES}/v${version}/${archiveName(version, platform)}` });
    console.error(`${file}  ${sha256}`);
  }
  writeFileSync(MANIFEST, manifestText({ version, archives }));
  console.error(`wrote ${MANIFEST}`);
}

/** krew's version whose validator and installer the tests run (the newest the module proxy serves). */
export const KREW_VERSION = 'v0.4.3';

/**
 * krew's `validate-krew-manifest` and `krew` itself (as kubectl-krew, the name kubectl runs it by), built from
 * sigs.k8s.io/krew once and cached. Resolves to { validator, krew }.
 */
export async function ensureKrewTools({ log = (line) => console.error(line) } = {}) {
  const dir = join(cacheRoot(), `krew-${KREW_VERSION}`);
  const tools = { validator: join(dir, 'validate-krew-manifest'), krew: join(dir, 'kubectl-krew') };
  for (const [binary, pkg] of [
    [tools.validator, 'sigs.k8s.io/krew/cmd/validate-krew-manifest'],
    [tools.krew, 'sigs.k8s.io/krew/cmd/krew'],
  ])
    await buildOnce(binary, `${pkg} ${KREW_VERSION}`, log, () =>
      goInstall({ name: pkg.split('/').pop(), pkg, version: KREW_VERSION, binary, log }),
    );
  return tools;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const at = process.argv.indexOf('--out');
  const outDir = at > 0 ? resolve(process.argv[at + 1]) : join(root, 'out', 'krew');
  if (process.argv.includes('--release')) await release(outDir);
  else if (process.argv.includes('--archive')) {
    const { file } = await buildArchive({ platform: hostPlatform(), outDir });
    process.stdout.write(`${file}\n`);
  } else if (process.argv.includes('--tools')) {
    const tools = await ensureKrewTools();
    process.stdout.write(`${JSON.stringify(tools)}\n`);
  } else {
    console.error('usage: node scripts/krew.mjs --release | --archive [--out DIR] | --tools');
    process.exit(2);
  }
}
