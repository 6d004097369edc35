import { readFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The `kube-windows` launcher (dist/cli.js) and the bundle it loads. */
export const LAUNCHER = 'cli.js';
export const BUNDLE = 'cli-main.js';
export const CODE_CACHE = 'cli-main.cache';

/**
 * Compiles a CommonJS file as Node's loader would (same wrapper, its own require), with a V8 code
 * cache when given one. `script.cachedDataRejected` says whether V8 used the cache.
 */
export function compileBundle(file: string, cachedData?: Buffer): { script: Script; run: () => void } {
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
  const run = () => {
    const mod = { exports: {} };
    const wrapper = script.runInThisContext() as (
      exports: object,
      require: NodeJS.Require,
      module: object,
      filename: string,
      dirname: string,
    ) => void;
    wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file));
  };
  return { script, run };
}

/** The cache file's bytes, or undefined when there is none (a development build has none). */
export function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
