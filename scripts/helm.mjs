// Real Helm (helm.sh/helm/v3), the oracle of the chart path: built once from its Go module (`go install` of
// the pinned version into the cache, like the API server and KWOK) and run as `helm template`, which needs
// no cluster. test/cli/helm-parity.test.ts renders every chart fixture with it and compares `check` on the
// rendered output with `check` on the templates in place. Test-only: nothing here ships.
//
//   node scripts/helm.mjs --check    builds (or finds) helm and prints its version
//   node scripts/helm.mjs --path     the same, printing only the binary's path (for tests)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOnce, cacheRoot } from './apiserver.mjs';

export const HELM_MODULE = 'helm.sh/helm/v3';
export const HELM_VERSION = 'v3.22.0';

export function helmBinaryPath() {
  return join(cacheRoot(), `helm-${HELM_VERSION}`, 'helm');
}

/** Builds the helm binary unless the cache has it. Resolves to { binary, built, seconds }. */
export async function ensureHelm({ log = (line) => console.error(line) } = {}) {
  const binary = helmBinaryPath();
  const r = await buildOnce(binary, `helm ${HELM_VERSION}`, log, async () => {
    const go = process.env.GO || 'go';
    const gobin = `${dirname(binary)}/.gobin-${process.pid}`;
    mkdirSync(gobin, { recursive: true });
    log(`helm ${HELM_VERSION}: building from ${HELM_MODULE} (first time only; cached in ${dirname(binary)}) ...`);
    const started = Date.now();
    const code = await new Promise((res, rej) => {
      const child = spawn(
        'nice',
        ['-n', '19', go, 'install', '-trimpath', '-ldflags', '-s -w', `${HELM_MODULE}/cmd/helm@${HELM_VERSION}`],
        {
          cwd: dirname(binary),
          env: { ...process.env, GOBIN: gobin, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
      child.on('error', rej);
      child.on('exit', (c, sig) => res(sig ? 128 : c));
    });
    const seconds = (Date.now() - started) / 1000;
    if (code !== 0 || !existsSync(join(gobin, 'helm'))) {
      rmSync(gobin, { recursive: true, force: true });
      throw new Error(
        `Building helm ${HELM_VERSION} failed after ${seconds.toFixed(0)}s (exit ${code}); the go errors are above. Is the Go module proxy reachable?`,
      );
    }
    renameSync(join(gobin, 'helm'), binary);
    rmSync(gobin, { recursive: true, force: true });
    log(`helm ${HELM_VERSION}: built in ${seconds.toFixed(1)}s: ${binary}`);
    return seconds;
  });
  return { binary, ...r };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  if (process.argv.includes('--path')) {
    const { binary } = await ensureHelm();
    process.stdout.write(`${binary}\n`);
  } else if (process.argv.includes('--check')) {
    const { binary } = await ensureHelm();
    console.log(spawnSync(binary, ['version', '--short'], { encoding: 'utf8' }).stdout.trim());
  } else {
    console.error('usage: node scripts/helm.mjs --check | --path');
    process.exit(2);
  }
}
