// The test reporter that CI reads: a CI log is cut to its last lines, so the list of failures printed just
// above the summary must say, for each kind of failure node reports, what failed and why — including a test
// file that fails as a whole with every test in it passing (an error after its tests ended, a non-zero exit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

const FILES: Record<string, string> = {
  'after-hook.test.mjs': `import { describe, test, after } from 'node:test';
describe('suite with a failing after hook', () => {
  after(() => { throw new Error('after hook broke'); });
  test('passes', () => {});
});`,
  'late-error.test.mjs': `import { test } from 'node:test';
test('ends before its timer', () => { setTimeout(() => { throw new Error('thrown after the end'); }, 50); });`,
  'exits.test.mjs': `import { test } from 'node:test';
test('passes, then the process exits 3', () => { console.error('the reason, on stderr'); });
setTimeout(() => process.exit(3), 200);`,
  'plain.test.mjs': `import { test } from 'node:test';
import assert from 'node:assert/strict';
test('a plain failure', () => { assert.equal(1, 2); });
test('a pass', () => {});`,
};

test('the failure list names each failing file, suite and test, with the exit code and the last lines printed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-reporter-'));
  try {
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
    const run = spawnSync(
      process.execPath,
      [
        '--test',
        `--test-reporter=${join(ROOT, 'scripts', 'tap-with-failures.mjs')}`,
        '--test-reporter-destination=stdout',
        ...Object.keys(FILES).sort(),
      ],
      // Without the runner's own marker, or the inner run would report to this one instead of printing.
      { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    assert.notEqual(run.status, 0, 'node --test fails when a file fails');
    const out = run.stdout;
    const listAt = out.indexOf('# failing tests (');
    const summaryAt = out.search(/^# tests \d+/m);
    assert.ok(listAt > 0 && summaryAt > listAt, `the list comes just before the summary:\n${out.slice(-2000)}`);
    const list = out
      .slice(listAt, summaryAt)
      .split('\n')
      .filter((l) => l.startsWith('#   ✖ '));
    const line = (file: string) => list.find((l) => l.includes(`${file} ::`)) ?? '';

    assert.match(line('after-hook.test.mjs'), /suite with a failing after hook :: hookFailed: after hook broke/);
    assert.match(line('late-error.test.mjs'), /test failed \(exit code 1\)/);
    assert.match(line('late-error.test.mjs'), /asynchronous activity after the test ended.*thrown after the end/);
    assert.match(line('exits.test.mjs'), /test failed \(exit code 3\) \| last lines printed: the reason, on stderr/);
    assert.match(line('plain.test.mjs'), /a plain failure :: Expected values to be strictly equal/);
    assert.equal(list.length, 4, list.join('\n'));
    assert.match(out.slice(listAt), /^# failing tests \(4\):/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
