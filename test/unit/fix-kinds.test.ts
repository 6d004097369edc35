// Every fix a rule offers says what it does to the object (FixKind, decided at the rule): `safe`
// fixes are what `check --fix` applies unasked, so each one met on the examples, the documentation
// fixtures and the real-world corpora is applied here and the object compared before and after:
// a safe fix may only remove what the API server or the kubelet ignores or rejects, or write the same
// thing as it should be written (a case, a deprecated name, whitespace). Anything else is a rewrite.
// Every rule test that applies a fix (support/check.ts's applyFix) makes the same comparison, and
// every check there refuses an unclassified fix: together they walk every rule's fixes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkText } from '../../src/core/rules/checker';
import { fixText } from '../../src/core/rules/fix';
import type { Finding, FixOut } from '../../src/core/rules/types';
import { applyFix } from '../support/check';
import { meaningChanges } from '../support/fix-meaning';

const ROOT = resolve(__dirname, '..', '..', '..');

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...yamlFiles(path));
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

const TEXTS = [
  'examples',
  'test/fixtures/docs',
  'test/fixtures/corpus',
  'test/fixtures/precision-corpus',
  'test/fixtures/machinesets',
  'test/fixtures/wmco-machinesets',
].flatMap((d) => yamlFiles(resolve(ROOT, d)).map((path) => ({ path, text: readFileSync(path, 'utf8') })));

/** Every finding with fixes, over every text, as a plain cluster and as OpenShift. */
function findingsWithFixes(): { path: string; text: string; finding: Finding }[] {
  const out: { path: string; text: string; finding: Finding }[] = [];
  for (const { path, text } of TEXTS)
    for (const flavour of ['auto', 'openshift'] as const)
      for (const finding of checkText(text, { flavour }).findings)
        if (finding.fixes.length > 0) out.push({ path, text, finding });
  return out;
}

const FOUND = findingsWithFixes();

test('the walk reaches the fixes of most rules (it is not vacuous)', () => {
  const rules = new Set(FOUND.map((f) => f.finding.ruleId));
  assert.ok(rules.size >= 20, `only ${rules.size} rules with fixes reached: ${[...rules].join(' ')}`);
  const kinds = new Set(FOUND.flatMap((f) => f.finding.fixes.map((x) => x.kind)));
  assert.deepEqual([...kinds].sort(), ['rewrite', 'safe']);
});

test('every fix of every rule is classified safe or rewrite', () => {
  for (const { path, finding } of FOUND)
    for (const fix of finding.fixes)
      assert.ok(
        fix.kind === 'safe' || fix.kind === 'rewrite',
        `${path}: ${finding.ruleId} "${fix.title}": ${fix.kind}`,
      );
});

test('a safe fix only removes what is ignored or rejected, or writes the same thing as it should be written', () => {
  let checked = 0;
  for (const { path, text, finding } of FOUND) {
    finding.fixes.forEach((fix: FixOut, i) => {
      if (fix.kind !== 'safe') return;
      // applyFix refuses a safe fix that changes the meaning; the comparison is repeated here to say where.
      const unexplained = meaningChanges(text, applyFix(text, finding, i), finding.document);
      assert.deepEqual(unexplained, [], `${path}: ${finding.ruleId} "${fix.title}" adds or changes ${unexplained[0]}`);
      checked++;
    });
  }
  assert.ok(checked >= 10, `only ${checked} safe fixes checked`);
});

test('conversions, retags, added selectors and replaced identities are rewrites', () => {
  const titles = new Map<string, Set<string>>();
  for (const { finding } of FOUND)
    for (const fix of finding.fixes) {
      const set = titles.get(fix.kind) ?? new Set<string>();
      set.add(fix.title.replace(/:.*$/, ''));
      titles.set(fix.kind, set);
    }
  const rewrites = [...(titles.get('rewrite') ?? [])].join('\n');
  for (const expected of [
    /^Convert to an apps\/v1 Deployment$/m,
    /^Retag to /m,
    /^Add nodeSelector /m,
    /^Replace runAsUser/m,
  ])
    assert.match(rewrites, expected);
  for (const title of titles.get('safe') ?? [])
    assert.doesNotMatch(title, /^(Add|Convert|Retag|Replace|Set pod-level)/, `"${title}" is offered as safe`);
});

test('fixText applies safe fixes unless asked for all: the DeploymentConfig stays one', () => {
  const dc = readFileSync(resolve(ROOT, 'examples', 'bad', 'deploymentconfig.yaml'), 'utf8');
  assert.match(fixText(dc, { flavour: 'openshift' }).text, /^kind: DeploymentConfig$/m);
  assert.match(fixText(dc, { flavour: 'openshift' }, { scope: 'all' }).text, /^kind: Deployment$/m);
});
