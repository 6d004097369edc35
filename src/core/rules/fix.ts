import { LineIndex } from '../manifest/text';
import { applyTextEdits, EditError, opToEdits, type TextEdit } from '../manifest/edits';
import { loadManifest } from '../manifest/document';
import type { Path } from '../manifest/path';
import type { PNode } from '../manifest/positional-tree';
import { checkText, type CheckOptions, type CheckResult } from './checker';
import type { Finding, FixKind } from './types';

/** Which fixes `fixText` applies: those that keep the object's meaning, or every one (see FixKind). */
export type FixScope = 'safe' | 'all';

export function fixAllowed(kind: FixKind, scope: FixScope): boolean {
  return scope === 'all' || kind === 'safe';
}

export interface FixResult {
  text: string;
  /** Number of fixes applied over all passes. */
  applied: number;
  /** The check of the final text. */
  result: CheckResult;
  passes: number;
}

/**
 * Applies the first fix `scope` allows of every finding, as many as do not overlap, then checks
 * again; repeats until nothing more can be fixed (at most `maxPasses`). Each pass re-reads the text,
 * so later fixes always see the effect of earlier ones, as ESLint's --fix does.
 */
export function fixText(
  text: string,
  options: CheckOptions = {},
  { scope = 'safe', maxPasses = 10 }: { scope?: FixScope; maxPasses?: number } = {},
): FixResult {
  let current = text;
  let applied = 0;
  let result = checkText(current, options);
  let passes = 0;
  while (passes < maxPasses) {
    const edits = chooseEdits(current, result.findings, scope);
    if (edits.count === 0) break;
    const next = pruneEmptied(current, applyTextEdits(current, edits.edits));
    if (next === current) break;
    current = next;
    applied += edits.count;
    passes++;
    result = checkText(current, options);
  }
  return { text: current, applied, result, passes };
}

function chooseEdits(text: string, findings: Finding[], scope: FixScope): { edits: TextEdit[]; count: number } {
  const lines = new LineIndex(text);
  const taken: { start: number; end: number }[] = [];
  const edits: TextEdit[] = [];
  let count = 0;
  const overlaps = (s: { start: number; end: number }) =>
    taken.some(
      (t) =>
        (s.start < t.end && t.start < s.end) ||
        (s.start === s.end && s.start > t.start && s.start < t.end) ||
        (s.start === t.start && (s.start === s.end || t.start === t.end)),
    );
  for (const f of findings) {
    const fix = f.fixes.find((x) => fixAllowed(x.kind, scope));
    if (!fix) continue;
    const spans = fix.edits.map((e) => ({
      start: lines.offsetAt(e.range.start),
      end: lines.offsetAt(e.range.end),
      newText: e.newText,
    }));
    if (spans.some(overlaps)) continue;
    for (const s of spans) {
      taken.push({ start: s.start, end: s.end });
      edits.push({ span: { start: s.start, end: s.end }, newText: s.newText });
    }
    count++;
  }
  return { edits, count };
}

/**
 * Two fixes of one pass may each delete a key of the same map (`privileged` and
 * `allowPrivilegeEscalation` of one securityContext): each alone leaves the map non-empty, together
 * they leave `securityContext:` with a null value. Maps that had entries before the pass and have
 * none after it are removed, with their own emptied parents (the delete op climbs).
 */
function pruneEmptied(before: string, after: string): string {
  const old = loadManifest(before);
  const now = loadManifest(after);
  if (old.documents.length !== now.documents.length) return after;
  const edits: TextEdit[] = [];
  now.documents.forEach((doc, i) => {
    const root = doc.tree();
    const emptied: Path[] = [];
    collectEmptied(old.documents[i]?.tree(), root, [], emptied);
    for (const path of emptied) {
      try {
        for (const e of opToEdits({ text: doc.text, root, newline: now.newline }, { op: 'delete', path }))
          edits.push({
            span: { start: e.span.start + doc.span.start, end: e.span.end + doc.span.start },
            newText: e.newText,
          });
      } catch (err) {
        if (!(err instanceof EditError)) throw err;
      }
    }
  });
  if (edits.length === 0) return after;
  try {
    return applyTextEdits(after, edits);
  } catch (err) {
    if (err instanceof EditError) return after; // overlapping (nested emptied maps): the next pass finishes it
    throw err;
  }
}

const isEmpty = (n: PNode | undefined): boolean =>
  n === undefined || (n.kind === 'scalar' && n.empty === true) || (n.kind === 'map' && n.pairs.length === 0);

function collectEmptied(old: PNode | undefined, now: PNode | undefined, path: Path, out: Path[]): void {
  if (old?.kind === 'map' && now?.kind === 'map') {
    for (const pair of now.pairs) {
      if (pair.key.kind !== 'scalar') continue;
      const key = pair.key.text;
      const was = old.pairs.find((p) => p.key.kind === 'scalar' && p.key.text === key)?.value;
      if (was?.kind === 'map' && was.pairs.length > 0 && isEmpty(pair.value)) out.push([...path, key]);
      else collectEmptied(was, pair.value, [...path, key], out);
    }
  } else if (old?.kind === 'seq' && now?.kind === 'seq' && old.items.length === now.items.length) {
    now.items.forEach((item, i) => collectEmptied(old.items[i], item, [...path, i], out));
  }
}
