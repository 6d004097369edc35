// The house rules that are neither lint nor types: the size of a source file, and the code map
// (docs/ARCHITECTURE.md) naming every folder of src/ and every module it points to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const SRC = join(ROOT, 'src');
const MAX_LINES = 700;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

test(`no source file is over ${MAX_LINES} lines`, () => {
  const files = sourceFiles(SRC);
  assert.ok(files.length > 100, `found only ${files.length} source files under src/`);
  const long = files
    .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  assert.deepEqual(long, [], 'split these files by job');
});

test('docs/ARCHITECTURE.md names every folder of src/ and only files that exist', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  for (const folder of folders)
    assert.match(doc, new RegExp(`\\b${folder}/`), `the code map does not describe src/${folder}/`);
  // Every `src/...ts` path the map spells out in full must exist (a rename must update the map).
  const paths = [...doc.matchAll(/`(src\/[\w/.-]+\.ts)`/g)].map((m) => m[1]);
  assert.ok(paths.length > 20, `the code map names only ${paths.length} files`);
  const missing = paths.filter((p) => !existsSync(join(ROOT, p)));
  assert.deepEqual(missing, [], 'the code map names files that do not exist');
});
