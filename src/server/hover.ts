import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { docsUrl } from '../core/rules/registry';
import { hoverAt } from '../core/editor/hover';
import type { Analysis } from './analysis';
import type { ChartAnalysis } from './helm';

const contains = (r: { start: Position; end: Position }, p: Position) =>
  (p.line > r.start.line || (p.line === r.start.line && p.character >= r.start.character)) &&
  (p.line < r.end.line || (p.line === r.end.line && p.character <= r.end.character));

/** Findings under the cursor (with their rule's reason and link), then what the field means on Windows. */
export function hover(
  doc: TextDocument,
  analysis: Analysis,
  position: Position,
  title: (id: string) => string,
): Hover | null {
  const parts: string[] = [];
  let range: Hover['range'];
  for (const f of analysis.findings) {
    if (!contains(f.range, position)) continue;
    range ??= f.range;
    parts.push(
      `**${f.ruleId}** (${f.severity}): ${f.message}\n\n${title(f.ruleId)} [Rule documentation](${docsUrl(f.ruleId)})`,
    );
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
