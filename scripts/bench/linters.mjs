// The linters users would otherwise run, for `npm run bench` to time side by side with kube-windows
// on the same inputs: kube-score and kubeconform, each built once from its published Go module
// (`go install MODULE@VERSION` through the Go module proxy) into the same cache as the API server
// and KWOK (scripts/apiserver.mjs's buildOnce: a lock, so parallel runs build once). Bench-only:
// nothing here ships. A tool that cannot be had (no Go, no proxy) is skipped with a line saying why.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOnce, cacheRoot } from '../apiserver.mjs';
import { goInstall } from '../go-install.mjs';

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
    const r = await buildOnce(binary, `${tool.name} ${tool.version}`, log, () =>
      goInstall({ name: tool.name, pkg: tool.pkg, version: tool.version, binary, log }),
    );
    return { binary, ...r };
  } catch (err) {
    return { skipped: err instanceof Error ? err.message : String(err) };
  }
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
