// `npm run bench:mirrors`: bundles scripts/bench/mirrors-bench.ts (the mirror push, the API emulator and
// 50 simulated Windows hosts in one process) into bench/tmp/mirrors-bench.js and runs it. The last
// line printed is the `mirrors:` summary.
import { build } from 'esbuild';
import { NODE_BUNDLE } from './esbuild-node.mjs';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const outfile = join(root, 'bench', 'tmp', 'mirrors-bench.js');
mkdirSync(join(root, 'bench', 'tmp'), { recursive: true });

await build({
  absWorkingDir: root,
  entryPoints: ['scripts/bench/mirrors-bench.ts'],
  outfile,
  ...NODE_BUNDLE,
  // As in scripts/build.mjs: ssh2's optional native add-ons stay out (it falls back to pure JS).
  external: ['cpu-features', '*.node'],
});

const r = spawnSync(process.execPath, ['--enable-source-maps', outfile], { cwd: root, stdio: 'inherit' });
process.exitCode = r.status ?? 1;
