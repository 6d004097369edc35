// Test helpers around the engine: run a check on YAML text, pick findings, apply a fix and re-check.
import { checkText, type CheckOptions } from '../../src/core/rules/checker';
import type { Finding } from '../../src/core/rules/types';
import { LineIndex } from '../../src/core/manifest/text';
import { applyTextEdits } from '../../src/core/manifest/edits';
import { meaningChanges } from './fix-meaning';

export function check(text: string, options: CheckOptions = {}) {
  const result = checkText(text, options);
  if (result.ruleErrors.length > 0) throw new Error(`rule errors: ${JSON.stringify(result.ruleErrors)}`);
  // Every fix says what it does to the object (`check --fix` applies only the safe ones).
  for (const f of result.findings)
    for (const fix of f.fixes)
      if (fix.kind !== 'safe' && fix.kind !== 'rewrite')
        throw new Error(`${f.ruleId} "${fix.title}" is not classified safe or rewrite: ${String(fix.kind)}`);
  return result;
}

export function findings(text: string, options: CheckOptions = {}): Finding[] {
  return check(text, options).findings;
}

export function ids(text: string, options: CheckOptions = {}): string[] {
  return findings(text, options).map((f) => f.ruleId);
}

export function only(text: string, ruleId: string, options: CheckOptions = {}): Finding[] {
  return findings(text, options).filter((f) => f.ruleId === ruleId);
}

/** The text a finding's range covers. */
export function covered(text: string, f: Finding): string {
  const lines = new LineIndex(text);
  return text.slice(lines.offsetAt(f.range.start), lines.offsetAt(f.range.end));
}

/**
 * Applies fix number `fixIndex` of finding `f` to `text`. A fix classified `safe` that adds or
 * changes anything a safe fix may not (see fix-meaning.ts) fails the test that applies it.
 */
export function applyFix(text: string, f: Finding, fixIndex = 0): string {
  const fix = f.fixes[fixIndex];
  if (!fix) throw new Error(`finding ${f.ruleId} has no fix #${fixIndex}: ${f.message}`);
  const fixed = editsApplied(text, fix);
  if (fix.kind === 'safe') {
    const changes = meaningChanges(text, fixed, f.document);
    if (changes.length > 0)
      throw new Error(`${f.ruleId} "${fix.title}" is classified safe but adds or changes ${changes.join(', ')}`);
  }
  return fixed;
}

function editsApplied(text: string, fix: Finding['fixes'][number]): string {
  const lines = new LineIndex(text);
  return applyTextEdits(
    text,
    fix.edits.map((e) => ({
      span: { start: lines.offsetAt(e.range.start), end: lines.offsetAt(e.range.end) },
      newText: e.newText,
    })),
  );
}

/**
 * Applies the fix and re-checks: the finding must be gone (no finding of the same rule at the same
 * place), the text must still parse, and no new finding may appear. Returns the fixed text.
 */
export function fixAndRecheck(
  text: string,
  ruleId: string,
  options: CheckOptions = {},
  fixIndex = 0,
): { fixed: string; before: Finding[]; after: Finding[] } {
  const before = findings(text, options);
  // The first finding of the rule that offers this fix (findings come in document order).
  const target = before.find((f) => f.ruleId === ruleId && f.fixes.length > fixIndex);
  if (!target)
    throw new Error(
      `no ${ruleId} finding with fix #${fixIndex} in:\n${text}\nfound: ${before.map((f) => f.ruleId).join(', ')}`,
    );
  const fixed = applyFix(text, target, fixIndex);
  const after = findings(fixed, options);
  const key = (f: Finding) => `${f.ruleId}@${f.message}`;
  const beforeKeys = new Map<string, number>();
  for (const f of before) beforeKeys.set(key(f), (beforeKeys.get(key(f)) ?? 0) + 1);
  const parseErrors = after.filter((f) => f.ruleId.startsWith('YAML'));
  if (parseErrors.length > 0) throw new Error(`fix broke the YAML:\n${fixed}\n${parseErrors[0].message}`);
  const sameCountBefore = before.filter((f) => f.ruleId === ruleId).length;
  const sameCountAfter = after.filter((f) => f.ruleId === ruleId).length;
  if (sameCountAfter >= sameCountBefore) throw new Error(`${ruleId} still reported after the fix:\n${fixed}`);
  for (const f of after) {
    const n = beforeKeys.get(key(f)) ?? 0;
    if (n === 0) throw new Error(`fix introduced ${f.ruleId}: ${f.message}\n${fixed}`);
    beforeKeys.set(key(f), n - 1);
  }
  return { fixed, before, after };
}
