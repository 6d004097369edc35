import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BUNDLE, CODE_CACHE, compileBundle } from '../../src/cli/bundle-loader';

// Compiled to out/test/cli/: the repository root is three levels up.
const ROOT = resolve(__dirname, '..', '..', '..');
const EXAMPLES = join(ROOT, 'examples');
const BUNDLE_FILE = join(ROOT, 'dist', BUNDLE);

// V8 answers a second compile of the same source in one process from memory, whatever the cache
// says: whether it accepts a cache is asked in a fresh process (this file, run as a probe).
if (process.env.KW_PROBE_CACHE) {
  process.stdout.write(
    String(compileBundle(BUNDLE_FILE, readFileSync(process.env.KW_PROBE_CACHE)).script.cachedDataRejected),
  );
  process.exit(0);
}

function rejected(cacheFile: string): string {
  return spawnSync(process.execPath, [__filename], {
    encoding: 'utf8',
    env: { ...process.env, KW_PROBE_CACHE: cacheFile },
  }).stdout;
}

/** The launcher and the bundle copied to a directory of their own, with the given code cache. */
function install(cache: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'kw-launcher-'));
  copyFileSync(join(ROOT, 'dist', 'cli.js'), join(dir, 'cli.js'));
  copyFileSync(join(ROOT, 'dist', BUNDLE), join(dir, BUNDLE));
  writeFileSync(join(dir, CODE_CACHE), cache);
  return dir;
}

function check(cli: string) {
  return spawnSync(process.execPath, [cli, 'check', '--format', 'json', EXAMPLES], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

test('the launcher runs the bundle with a code cache V8 accepts, with the same output as without one', () => {
  const dir = install(compileBundle(BUNDLE_FILE).script.createCachedData());
  assert.equal(rejected(join(dir, CODE_CACHE)), 'false');
  const plain = check(join(ROOT, 'dist', 'cli.js'));
  const cached = check(join(dir, 'cli.js'));
  assert.equal(plain.status, 1, plain.stderr);
  assert.equal(cached.status, 1, cached.stderr);
  assert.ok(JSON.parse(cached.stdout).summary.findings > 0);
  assert.equal(cached.stdout, plain.stdout);
});

test('a code cache V8 rejects (another Node version, a damaged file) costs only the compile', () => {
  const garbage = Buffer.from('not a V8 code cache, but bytes of the wrong kind entirely');
  const dir = install(garbage);
  assert.equal(rejected(join(dir, CODE_CACHE)), 'true');
  const plain = check(join(ROOT, 'dist', 'cli.js'));
  const damaged = check(join(dir, 'cli.js'));
  assert.equal(damaged.status, 1, damaged.stderr);
  assert.equal(damaged.stderr, '');
  assert.equal(damaged.stdout, plain.stdout);
});
