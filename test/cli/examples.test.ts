import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

test('the bundled examples report exactly what each promises (the README main job)', () => {
  const r = spawnSync(process.execPath, ['scripts/examples.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /good\/ is clean and every bad\/ file reports exactly the rules it expects/);
});
