import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { check } from '../support/check';

// Manifests written from the Kubernetes and OpenShift documentation. Each file says what it must
// report in an `# expect: RULE …` line; a file without one must be clean.
const DIR = resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'docs');

for (const name of readdirSync(DIR)
  .filter((n) => n.endsWith('.yaml'))
  .sort()) {
  test(`documentation example ${name}`, () => {
    const text = readFileSync(join(DIR, name), 'utf8');
    const m = /^# expect: (.+)$/m.exec(text);
    const expected = m ? [...new Set(m[1].trim().split(/\s+/))].sort() : [];
    const found = [...new Set(check(text).findings.map((f) => f.ruleId))].sort();
    assert.deepEqual(found, expected);
  });
}
