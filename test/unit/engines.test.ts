// `npm ci` on the documented Node version warns about nothing of ours (EBADENGINE): every package the
// lock installs accepts it, and the bench-only peer that wants a newer Node is installed by the bench.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const json = (path: string) => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8')) as Record<string, unknown>;

type Version = [number, number, number];

/** "20", "20.19", "6.*", "4.x" -> the version and how many parts were given (x and * count as not given). */
function partial(text: string): { v: Version; parts: number } {
  const parts = text
    .replace(/^v/, '')
    .split('.')
    .filter((p) => p !== '' && p !== 'x' && p !== 'X' && p !== '*');
  const n = parts.map(Number);
  return { v: [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0], parts: parts.length };
}

const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The upper bound (exclusive) of a partial version: 20 -> 21.0.0, 20.9 -> 20.10.0. */
function next(v: Version, parts: number): Version {
  if (parts <= 1) return [v[0] + 1, 0, 0];
  if (parts === 2) return [v[0], v[1] + 1, 0];
  return [v[0], v[1], v[2] + 1];
}

/** npm's range grammar, as far as engines fields use it: ||, comparators, ^, ~, x-ranges, bare versions. */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((set) => {
    const tokens = set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    return tokens.every((token) => {
      if (token === '*' || token === 'x') return true;
      const m = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(token);
      const op = m?.[1] ?? '';
      const { v, parts } = partial(m?.[2] ?? '');
      const c = cmp(version, v);
      switch (op) {
        case '>=':
          return c >= 0;
        case '>':
          return parts === 3 ? c > 0 : cmp(version, next(v, parts)) >= 0;
        case '<=':
          return parts === 3 ? c <= 0 : cmp(version, next(v, parts)) < 0;
        case '<':
          return c < 0;
        case '^':
          return c >= 0 && cmp(version, v[0] > 0 ? [v[0] + 1, 0, 0] : next(v, Math.max(parts, 2))) < 0;
        case '~':
          return c >= 0 && cmp(version, next(v, Math.min(Math.max(parts, 2), 2))) < 0;
        default:
          return c >= 0 && cmp(version, next(v, parts)) < 0;
      }
    });
  });
}

test('the range reader agrees with npm on the forms engines fields use', () => {
  const v = (s: string) => partial(s).v;
  assert.equal(satisfies(v('20.19.0'), '^20.19.0 || ^22.13.0 || >=23.5.0'), true);
  assert.equal(satisfies(v('20.18.0'), '^20.19.0 || ^22.13.0 || >=24'), false);
  assert.equal(satisfies(v('20.19.0'), '^18.18.0 || ^20.9.0 || >=21.1.0'), true);
  assert.equal(satisfies(v('20.19.0'), '>=22.13'), false);
  assert.equal(satisfies(v('20.19.0'), '>= 20.16.0'), true);
  assert.equal(satisfies(v('20.19.0'), '18 || 20 || >=22'), true);
  assert.equal(satisfies(v('21.0.0'), '18 || 20 || >=22'), false);
  assert.equal(satisfies(v('20.19.0'), '6.* || 8.* || >= 10.*'), true);
  assert.equal(satisfies(v('20.19.0'), '>=0.6.11 <=0.7.0 || >=0.7.3'), true);
  assert.equal(satisfies(v('20.19.0'), '*'), true);
  assert.equal(satisfies(v('20.19.0'), '~20.18.0'), false);
});

test('every package `npm ci` installs accepts the documented Node version (no EBADENGINE warning)', () => {
  const pkg = json('package.json') as { engines: { node: string }; devDependencies: Record<string, string> };
  const floor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(pkg.engines.node);
  assert.ok(floor, `package.json engines.node is a lower bound: ${pkg.engines.node}`);
  const documented = partial(floor[1]).v;
  // The README says the same version where it says how to install.
  const [major, minor] = documented;
  assert.match(readFileSync(resolve(ROOT, 'README.md'), 'utf8'), new RegExp(`Node\\.js ${major}\\.${minor} or newer`));
  const lock = json('package-lock.json') as { packages: Record<string, { engines?: { node?: string } }> };
  const refused = Object.entries(lock.packages)
    .filter(([path, meta]) => path !== '' && meta.engines?.node && !satisfies(documented, meta.engines.node))
    .map(([path, meta]) => `${path.replace(/^.*node_modules\//, '')} wants node ${meta.engines?.node}`);
  assert.deepEqual(refused, [], `these would warn (EBADENGINE) on Node ${documented.join('.')}`);
  assert.equal(pkg.devDependencies['yaml-language-server'], undefined, 'the bench peer is installed by the bench');
});

test('the LSP bench installs its pinned peer itself, outside node_modules', () => {
  const bench = readFileSync(resolve(ROOT, 'scripts', 'bench-lsp.mjs'), 'utf8');
  assert.match(bench, /const PEER = 'yaml-language-server@\d+\.\d+\.\d+';/);
  assert.match(bench, /'\.cache', 'bench-peer'/);
  assert.match(bench, /'install', '--prefix', peerDir/);
  assert.doesNotMatch(bench, /join\(root, 'node_modules', 'yaml-language-server'/);
});
