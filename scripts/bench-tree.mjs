// `npm run bench:tree`: bundles scripts/bench/tree-bench.ts (the cluster model and the API emulator in
// one process) into bench/tmp/tree-bench.js and runs it with --expose-gc, so that it can tell the
// model's heap apart from the emulator's. The last line printed is the `tree:` summary.
// `node scripts/bench-tree.mjs live` (the end of `npm run bench`) does the same for
// scripts/bench/live-bench.ts: `check --context -A` on an emulated large cluster (`live:` summary), and
// `node scripts/bench-tree.mjs pods` for scripts/bench/pods-bench.ts: a pod created on an expanded
// node until the tree shows it (`pods:` summary).
import { build } from 'esbuild';
import { NODE_BUNDLE } from './esbuild-node.mjs';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const name = { live: 'live-bench', pods: 'pods-bench' }[process.argv[2]] ?? 'tree-bench';
const outfile = join(root, 'bench', 'tmp', `${name}.js`);
mkdirSync(join(root, 'bench', 'tmp'), { recursive: true });

await build({
  absWorkingDir: root,
  entryPoints: [`scripts/bench/${name}.ts`],
  outfile,
  ...NODE_BUNDLE,
});

const r = spawnSync(process.execPath, ['--expose-gc', '--enable-source-maps', outfile], {
  cwd: root,
  stdio: 'inherit',
});
process.exitCode = r.status ?? 1;
