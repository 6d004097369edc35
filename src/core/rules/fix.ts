import { LineIndex } from '../manifest/text';
import { applyTextEdits, type TextEdit } from '../manifest/edits';
import { checkText, type CheckOptions, type CheckResult } from './engine';
import type { Finding } from './types';

export interface FixResult {
  text: string;
  /** Number of fixes applied over all passes. */
  applied: number;
  /** The check of the final text. */
  result: CheckResult;
  passes: number;
}

/**
 * Applies the first fix of every finding, as many as do not overlap, then checks again;
 * repeats until nothing more can be fixed (at most `maxPasses`). Each pass re-reads the text,
 * so later fixes always see the effect of earlier ones, as ESLint's --fix does.
 */
export function fixText(text: string, options: CheckOptions = {}, maxPasses = 10): FixResult {
  let current = text;
  let applied = 0;
  let result = checkText(current, options);
  let passes = 0;
  while (passes < maxPasses) {
    const edits = chooseEdits(current, result.findings);
    if (edits.count === 0) break;
    const next = applyTextEdits(current, edits.edits);
    if (next === current) break;
    current = next;
    applied += edits.count;
    passes++;
    result = checkText(current, options);
  }
  return { text: current, applied, result, passes };
}

function chooseEdits(text: string, findings: Finding[]): { edits: TextEdit[]; count: number } {
  const lines = new LineIndex(text);
  const taken: { start: number; end: number }[] = [];
  const edits: TextEdit[] = [];
  let count = 0;
  const overlaps = (s: { start: number; end: number }) =>
    taken.some((t) => (s.start < t.end && t.start < s.end) || (s.start === s.end && s.start > t.start && s.start < t.end) || (s.start === t.start && (s.start === s.end || t.start === t.end)));
  for (const f of findings) {
    const fix = f.fixes[0];
    if (!fix) continue;
    const spans = fix.edits.map((e) => ({ start: lines.offsetAt(e.range.start), end: lines.offsetAt(e.range.end), newText: e.newText }));
    if (spans.some(overlaps)) continue;
    for (const s of spans) {
      taken.push({ start: s.start, end: s.end });
      edits.push({ span: { start: s.start, end: s.end }, newText: s.newText });
    }
    count++;
  }
  return { edits, count };
}
