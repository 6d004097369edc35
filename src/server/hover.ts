import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { docsUrl } from '../core/rules/registry';
import { hoverAt } from '../core/editor/hover';
import type { Finding } from '../core/rules/types';
import type { Analysis } from './analysis';
import type { ChartAnalysis } from './helm';

const contains = (r: { start: Position; end: Position }, p: Position) =>
  (p.line > r.start.line || (p.line === r.start.line && p.character >= r.start.character)) &&
  (p.line < r.end.line || (p.line === r.end.line && p.character <= r.end.character));

/**
 * What a rule adds to its findings under the cursor: its one-line reason and its documentation, once
 * per rule. Editors show the diagnostic itself (message, severity, code) at the same place, so its
 * message is never repeated here, nor a reason that only says the message again.
 */
function ruleNotes(findings: Finding[], title: (id: string) => string): string[] {
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const f of findings) {
    if (seen.has(f.ruleId)) continue;
    seen.add(f.ruleId);
    const reason = title(f.ruleId);
    const says = (message: string) => normalise(message).includes(normalise(reason));
    const why = reason && reason !== f.ruleId && !findings.some((g) => g.ruleId === f.ruleId && says(g.message));
    notes.push(`**${f.ruleId}**${why ? `: ${reason}` : ''} [Rule documentation](${docsUrl(f.ruleId)})`);
  }
  return notes;
}

const normalise = (s: string) =>
  s
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.\s]+$/, '');

/** What the rules under the cursor mean (never their findings' messages again), then the field's Windows meaning. */
export function hover(
  doc: TextDocument,
  analysis: Analysis,
  position: Position,
  title: (id: string) => string,
): Hover | null {
  const parts: string[] = [];
  let range: Hover['range'];
  const here = analysis.findings.filter((f) => contains(f.range, position));
  if (here.length > 0) {
    range = here[0].range;
    parts.push(ruleNotes(here, title).join('\n\n'));
  }
  for (const u of (analysis as Partial<ChartAnalysis>).unchecked ?? []) {
    if (!contains(u.range, position)) continue;
    range ??= u.range;
    parts.push(`value comes from \`${u.action}\`: not checked (${u.ruleId})`);
  }
  const field = hoverAt(doc.getText(), doc.offsetAt(position));
  if (field) {
    parts.push(field.markdown);
    range ??= { start: doc.positionAt(field.range.start), end: doc.positionAt(field.range.end) };
  }
  if (parts.length === 0) return null;
  return { contents: { kind: MarkupKind.Markdown, value: parts.join('\n\n---\n\n') }, ...(range ? { range } : {}) };
}
