// `npm run bench:clusters`: many clusters, some broken. Run under scripts/with-apiserver.mjs
// (the real kube-apiserver, cached binaries). First the tree model in Node: scripts/bench-clusters/
// clusters-bench.ts, bundled here, over the 30-context kubeconfig; then, unless BENCH_SKIP_VSCODE=1, the
// same kubeconfig in a real VS Code (code-server): test/e2e/many-clusters.test.ts, whose figures
// (activate(), each cluster's rows as the view shows them) it writes to test-results/many-clusters.json.
import { build } from 'esbuild';
import { NODE_BUNDLE } from './esbuild-node.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const outfile = join(root, 'bench', 'tmp', 'clusters-bench.js');
mkdirSync(join(root, 'bench', 'tmp'), { recursive: true });
await build({
  absWorkingDir: root,
  entryPoints: ['scripts/bench-clusters/clusters-bench.ts'],
  outfile,
  ...NODE_BUNDLE,
});
const model = spawnSync(process.execPath, ['--enable-source-maps', outfile], { cwd: root, stdio: 'inherit' });
if (model.status !== 0) process.exit(model.status ?? 1);
if (process.env.BENCH_SKIP_VSCODE) process.exit(0);

console.log('\nIn a real VS Code (code-server, test/e2e/many-clusters.test.ts):');
const r = spawnSync(process.execPath, [join(root, 'scripts', 'e2e.mjs'), '--test-name-pattern=many clusters'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
});
const file = join(root, 'test-results', 'many-clusters.json');
if (r.status !== 0 || !existsSync(file) || statSync(file).mtimeMs < Date.now() - 900_000) {
  console.log(r.stdout);
  console.error('bench:clusters: the code-server run failed');
  process.exit(1);
}
const f = JSON.parse(readFileSync(file, 'utf8'));
console.log(`  activate took ${f.activateMs} ms (target < 100 ms)${f.activateMs < 100 ? '' : '  OVER TARGET'}`);
console.log(`  roots shown ${f.rootsShownMs} ms after the view was opened; no cluster contacted by activation`);
console.log(
  `  a healthy cluster's rows shown ${f.healthyFirstMs} ms after its click, while the current one (never answering) still said Connecting…`,
);
console.log(`  every healthy cluster rendered, one after the other: ${f.healthyMaxMs} ms at most from click to rows`);
for (const [name, ms] of Object.entries(f.brokenMs))
  console.log(`  ${name.padEnd(24)} error row ${ms} ms after its click`);
console.log(`  Retry once the address answers: rows shown ${f.retryMs} ms after the click`);
