// Saves the V8 code cache of the CLI bundle (dist/cli-main.cache, read by the launcher dist/cli.js)
// after a check of examples/, so that it holds the functions a check compiles, not only the top
// level. Run by the production build. V8 accepts the cache only under the same Node version and
// flags; otherwise the CLI compiles the bundle as before.
import { readFileSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const file = join(root, 'dist', 'cli-main.js');
const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file });
process.argv = [process.execPath, file, 'check', '--format', 'json', join(root, 'examples')];
process.stdout.write = () => true;
let saved = false;
process.on('beforeExit', () => {
  if (saved) return;
  saved = true;
  writeFileSync(join(root, 'dist', 'cli-main.cache'), script.createCachedData());
  // The warm-up check reports the examples' findings (exit code 1): that is expected here.
  process.exitCode = 0;
});
const mod = { exports: {} };
script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file));
