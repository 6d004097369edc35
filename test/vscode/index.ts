// The extensionTestsPath entry: runs the mocha suites next to this file inside the extension host
// and, when KW_VSCODE_RESULTS is set (the code-server runner), writes the results there as JSON.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function run(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Mocha = require('mocha') as typeof import('mocha');
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false });
  for (const f of readdirSync(__dirname).filter((n) => n.endsWith('.test.js'))) mocha.addFile(join(__dirname, f));
  const results: { title: string; state: string; error?: string }[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.KW_VSCODE_RESULTS;
      if (out) {
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, JSON.stringify({ failures, results }, null, 2));
      }
      if (failures > 0) reject(new Error(`${failures} extension-host test(s) failed`));
      else resolve();
    });
    runner.on('pass', (t) => results.push({ title: t.fullTitle(), state: 'passed' }));
    runner.on('fail', (t, err: Error) => results.push({ title: t.fullTitle(), state: 'failed', error: err.message }));
  });
}
