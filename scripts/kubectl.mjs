// Real kubectl (k8s.io/kubernetes/cmd/kubectl), the host of the kubectl-windows plugin in the tests: built once
// from the module and version the test API server comes from, version-stamped as a release build is, and cached
// outside the work tree like the API server. k8s.io/kubernetes replaces its staging modules with local folders,
// which `go install pkg@version` refuses; so it is built in a copy of test/apiserver's go.mod and go.sum (whose
// replace directives pin the staging modules to the release), made in the cache, where Go adds the few modules
// kubectl needs beyond the API server (cli-runtime, kustomize ...) at the versions k8s.io/kubectl requires,
// checked against the checksum database. The work tree's go.mod and go.sum are never changed, so the API
// server's cached build stays valid. Test-only: nothing here ships.
//
//   node scripts/kubectl.mjs --check    builds (or finds) kubectl and prints its client version
//   node scripts/kubectl.mjs --path     the same, printing only the binary's path (for tests)
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOnce, cacheRoot, kubernetesVersion } from './apiserver.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const moduleDir = join(root, 'test', 'apiserver');
const PKG = 'k8s.io/kubernetes/cmd/kubectl';

/** Where the kubectl of test/apiserver's go.mod + go.sum lives (it may not be built yet). */
export function kubectlBinaryPath() {
  const hash = createHash('sha256');
  for (const name of ['go.mod', 'go.sum']) hash.update(`${name}\0`).update(readFileSync(join(moduleDir, name)));
  return join(cacheRoot(), `kubectl-${kubernetesVersion()}-${hash.digest('hex').slice(0, 16)}`, 'kubectl');
}

/** Builds kubectl unless the cache has it; safe from several processes at once. Resolves to { binary, built, seconds }. */
export async function ensureKubectl({ log = (line) => console.error(line) } = {}) {
  const binary = kubectlBinaryPath();
  const version = kubernetesVersion();
  const r = await buildOnce(binary, `kubectl ${version}`, log, () => build(binary, version, log));
  return { binary, kubernetesVersion: version, ...r };
}

async function build(binary, version, log) {
  const go = process.env.GO || 'go';
  if (spawnSync(go, ['version'], { stdio: 'ignore' }).error)
    throw new Error(`no Go toolchain ("${go}" not found); install Go to build kubectl ${version} from ${PKG}`);
  const [, major, minor] = /^v(\d+)\.(\d+)/.exec(version);
  // What `kubectl version --client` prints, as a release build stamps it.
  const stamp = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${version}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ]);
  const tmp = `${binary}.tmp-${process.pid}`;
  const scratch = join(dirname(binary), `module-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
  for (const name of ['go.mod', 'go.sum']) copyFileSync(join(moduleDir, name), join(scratch, name));
  const args = ['-n', '19', go, 'build', '-trimpath', '-ldflags', ['-s', '-w', ...stamp].join(' '), '-o', tmp, PKG];
  log(`kubectl ${version}: building from ${PKG} (first time only; cached in ${dirname(binary)}) ...`);
  const started = Date.now();
  const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim() };
  const code = await new Promise((res) => {
    const child = spawn('nice', args, { cwd: scratch, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', () => res(1));
    child.on('exit', (c, sig) => res(sig ? 128 : c));
  });
  const seconds = (Date.now() - started) / 1000;
  rmSync(scratch, { recursive: true, force: true });
  if (code !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(
      `Building kubectl ${version} (${PKG} in a copy of test/apiserver's module) failed after ${seconds.toFixed(0)}s (exit ${code}); the go errors are above. Is the Go module proxy reachable?`,
    );
  }
  renameSync(tmp, binary);
  log(
    `kubectl ${version}: built in ${seconds.toFixed(1)}s (${(statSync(binary).size / 1048576).toFixed(0)} MiB): ${binary}`,
  );
  return seconds;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  if (process.argv.includes('--path')) {
    const { binary } = await ensureKubectl();
    process.stdout.write(`${binary}\n`);
  } else if (process.argv.includes('--check')) {
    const { binary } = await ensureKubectl();
    console.log(spawnSync(binary, ['version', '--client'], { encoding: 'utf8' }).stdout.trim());
  } else {
    console.error('usage: node scripts/kubectl.mjs --check | --path');
    process.exit(2);
  }
}
