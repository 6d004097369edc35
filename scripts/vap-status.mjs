// The upstream ValidatingAdmissionPolicy status controller (k8s.io/kubernetes/pkg/controller/
// validatingadmissionpolicystatus, with the type checker kube-controller-manager gives it), run against
// the test API server, which has no controller manager: it writes each policy's status.typeChecking as a
// real cluster does. Built once from test/apiserver/vap-status (the same go.mod as the API server, so
// the same Kubernetes release) into the cache, keyed by a hash of its inputs. Test-only: nothing here ships.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOnce, cacheRoot } from './apiserver.mjs';

const moduleDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'apiserver');

export function vapStatusBinaryPath() {
  const hash = createHash('sha256');
  for (const name of ['go.mod', 'go.sum', 'vap-status/main.go']) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(moduleDir, name)));
  }
  return join(cacheRoot(), `vap-status-${hash.digest('hex').slice(0, 16)}`, 'vap-status');
}

/** Builds the controller unless the cache has it. Resolves to { binary, built, seconds }. */
export async function ensureVapStatus({ log = (line) => console.error(line) } = {}) {
  const binary = vapStatusBinaryPath();
  const r = await buildOnce(binary, 'vap-status', log, async () => {
    const go = process.env.GO || 'go';
    if (spawnSync(go, ['version'], { stdio: 'ignore' }).error)
      throw new Error(`no Go toolchain ("${go}" not found) to build the admission policy status controller`);
    log(
      `vap-status: building the policy status controller from test/apiserver (first time only; cached in ${dirname(binary)}) ...`,
    );
    const started = Date.now();
    const tmp = `${binary}.tmp-${process.pid}`;
    const code = await new Promise((res) => {
      const child = spawn(
        'nice',
        ['-n', '19', go, 'build', '-trimpath', '-ldflags', '-s -w', '-o', tmp, './vap-status'],
        {
          cwd: moduleDir,
          env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
      child.on('error', () => res(1));
      child.on('exit', (c, sig) => res(sig ? 128 : c));
    });
    const seconds = (Date.now() - started) / 1000;
    if (code !== 0) {
      rmSync(tmp, { force: true });
      throw new Error(
        `Building vap-status failed after ${seconds.toFixed(0)}s (exit ${code}); the go errors are above.`,
      );
    }
    renameSync(tmp, binary);
    log(`vap-status: built in ${seconds.toFixed(1)}s: ${binary}`);
    return seconds;
  });
  return { binary, ...r };
}

/** Starts the controller against a kubeconfig; stop() ends it (so does our exit: its stdin closes). */
export async function startVapStatus({ kubeconfigPath, log = () => {} }) {
  const { binary } = await ensureVapStatus({ log });
  const child = spawn(binary, ['--kubeconfig', kubeconfigPath], { stdio: ['pipe', 'ignore', 'ignore'] });
  const exited = new Promise((res) => child.on('exit', res));
  return {
    stop: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
