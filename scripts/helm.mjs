// Real Helm (helm.sh/helm/v3), the oracle of the chart path: built once from its Go module (`go install` of
// the pinned version into the cache, like the API server and KWOK) and run as `helm template`, which needs
// no cluster. test/cli/helm-parity.test.ts renders every chart fixture with it and compares `check` on the
// rendered output with `check` on the templates in place. Test-only: nothing here ships.
//
//   node scripts/helm.mjs --check    builds (or finds) helm and prints its version
//   node scripts/helm.mjs --path     the same, printing only the binary's path (for tests)
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOnce, cacheRoot } from './apiserver.mjs';
import { goInstall } from './go-install.mjs';

export const HELM_MODULE = 'helm.sh/helm/v3';
export const HELM_VERSION = 'v3.22.0';

export function helmBinaryPath() {
  return join(cacheRoot(), `helm-${HELM_VERSION}`, 'helm');
}

/** Builds the helm binary unless the cache has it. Resolves to { binary, built, seconds }. */
export async function ensureHelm({ log = (line) => console.error(line) } = {}) {
  const binary = helmBinaryPath();
  const r = await buildOnce(binary, `helm ${HELM_VERSION}`, log, () =>
    goInstall({ name: 'helm', pkg: `${HELM_MODULE}/cmd/helm`, version: HELM_VERSION, binary, log }),
  );
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
