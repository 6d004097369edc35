// The extension-host suite (test/vscode, @vscode/test-cli style) as part of node's test run: runs
// out/e2e/run-vscode-suite.js (VS Code server of code-server + Chromium, see that file) and reports
// each of the suite's tests as a subtest here, so one summary line counts them all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = process.cwd();
const RUNNER = join(ROOT, 'out', 'e2e', 'run-vscode-suite.js');
const RESULTS = join(ROOT, 'test-results', 'vscode-suite.json');

test('extension-host suite in a real VS Code (code-server)', { timeout: 300_000 }, async (t) => {
  assert.ok(existsSync(RUNNER), `${RUNNER} is missing: run node scripts/e2e.mjs --prepare first`);
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [RUNNER], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => output.push(c.toString()));
    child.stderr.on('data', (c: Buffer) => output.push(c.toString()));
    child.on('close', resolve);
  });
  assert.ok(existsSync(RESULTS), `the suite wrote no results (exit ${code}):\n${output.join('').slice(-4000)}`);
  const r = JSON.parse(readFileSync(RESULTS, 'utf8')) as {
    failures: number;
    results: { title: string; state: string; error?: string }[];
  };
  for (const each of r.results) {
    await t.test(each.title, () => assert.equal(each.state, 'passed', each.error ?? each.state));
  }
  assert.ok(r.results.length >= 5, `the suite ran ${r.results.length} tests`);
  assert.equal(code, 0, output.join('').slice(-4000));
});
