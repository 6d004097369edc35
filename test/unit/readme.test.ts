import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RULES } from '../../src/core/rules/registry';
import { SIGNATURES } from '../../src/core/live/signatures';

const ROOT = resolve(__dirname, '..', '..', '..');

test('the rule table (docs/rule-table.md) lists exactly the registry, with the same severities, admission and titles', () => {
  const readme = readFileSync(resolve(ROOT, 'docs', 'rule-table.md'), 'utf8');
  const table = readme.slice(readme.indexOf('<!-- rules:start -->'), readme.indexOf('<!-- rules:end -->'));
  const rows = [...table.matchAll(/^\| \[([A-Z]+\d+)\]\([^)]*\) \| (\w+) \| ([\w-]+) \| (.*) \|$/gm)].map((m) => ({
    id: m[1],
    severity: m[2],
    admission: m[3],
    title: m[4].replace(/\\\|/g, '|'),
  }));
  assert.ok(rows.length > 0, 'docs/rule-table.md has a rule table between the rules markers');
  assert.deepEqual(
    rows,
    RULES.map((r) => ({
      id: r.id,
      severity: r.severity,
      admission: r.admission.enforceable ? 'yes' : r.admission.why,
      title: r.title,
    })),
    'run node scripts/rules-doc.mjs',
  );
});

test('docs/rules.md has a section for every rule (the anchor diagnostics link to)', () => {
  const doc = readFileSync(resolve(ROOT, 'docs', 'rules.md'), 'utf8');
  for (const r of RULES) assert.ok(doc.includes(`\n### ${r.id}\n`), `docs/rules.md lacks ${r.id}`);
});

test('every rule id is unique, well-formed, and has a one-line title', () => {
  const seen = new Set<string>();
  for (const r of RULES) {
    assert.match(r.id, /^(WIN|OCP|LNT|RTC|MIR|BYOH|NET|YAML|API)\d{3}$/);
    assert.ok(!seen.has(r.id), `duplicate ${r.id}`);
    seen.add(r.id);
    assert.ok(r.title.length > 15 && !r.title.includes('\n'), `${r.id} title`);
  }
});

test('the failure table (docs/rule-table.md) and docs/rules.md list exactly the failure signatures', () => {
  const readme = readFileSync(resolve(ROOT, 'docs', 'rule-table.md'), 'utf8');
  const table = readme.slice(readme.indexOf('<!-- failures:start -->'), readme.indexOf('<!-- failures:end -->'));
  const rows = [...table.matchAll(/^\| \[(WINF\d{3})\]\([^)]*\) \| (\w+) \| (.*) \|$/gm)].map((m) => ({
    id: m[1],
    severity: m[2],
    title: m[3].replace(/\\\|/g, '|'),
  }));
  assert.deepEqual(
    rows,
    SIGNATURES.map((s) => ({ id: s.id, severity: s.severity, title: s.title })),
    'run node scripts/rules-doc.mjs',
  );
  const doc = readFileSync(resolve(ROOT, 'docs', 'rules.md'), 'utf8');
  for (const s of SIGNATURES) {
    assert.ok(doc.includes(`\n### ${s.id}\n`), `docs/rules.md lacks ${s.id}`);
    assert.ok(doc.includes(`Source: \`${s.source}\``), `docs/rules.md lacks the source of ${s.id}`);
  }
});
