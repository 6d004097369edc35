import { CodeActionKind, type CodeAction, type Diagnostic, type Range, type TextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { fixText } from '../core/rules/fix';
import type { CheckOptions } from '../core/rules/checker';
import type { Finding } from '../core/rules/types';
import type { Analysis } from './analysis';
import { SOURCE } from './convert';

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.kube-windows`;

const sameRange = (a: Range, b: Range) =>
  a.start.line === b.start.line &&
  a.start.character === b.start.character &&
  a.end.line === b.end.line &&
  a.end.character === b.end.character;

const overlaps = (a: Range, b: Range) =>
  !(
    a.end.line < b.start.line ||
    (a.end.line === b.start.line && a.end.character < b.start.character) ||
    b.end.line < a.start.line ||
    (b.end.line === a.start.line && b.end.character < a.start.character)
  );

/** The finding a client diagnostic stands for (same rule, same range). */
function findingFor(analysis: Analysis, d: Diagnostic): Finding | undefined {
  return analysis.findings.find((f) => f.ruleId === d.code && sameRange(f.range, d.range));
}

export function quickFixes(
  doc: TextDocument,
  analysis: Analysis,
  range: Range,
  diagnostics: Diagnostic[],
): CodeAction[] {
  const actions: CodeAction[] = [];
  const ours = diagnostics.filter((d) => d.source === SOURCE);
  // Diagnostics the client sent, or (when it sent none) our findings at the range.
  const pairs: { d: Diagnostic | undefined; f: Finding }[] =
    ours.length > 0
      ? ours.flatMap((d) => {
          const f = findingFor(analysis, d);
          return f ? [{ d, f }] : [];
        })
      : analysis.findings.filter((f) => overlaps(f.range, range)).map((f) => ({ d: undefined, f }));
  for (const { d, f } of pairs) {
    f.fixes.forEach((fix, i) => {
      actions.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        ...(d ? { diagnostics: [d] } : {}),
        isPreferred: i === 0,
        edit: { changes: { [doc.uri]: fix.edits.map((e) => ({ range: e.range, newText: e.newText })) } },
      });
    });
    if (f.ruleId.startsWith('YAML')) continue;
    actions.push({
      title: `Disable ${f.ruleId} for this line`,
      kind: CodeActionKind.QuickFix,
      ...(d ? { diagnostics: [d] } : {}),
      edit: { changes: { [doc.uri]: [disableNextLine(doc, f)] } },
    });
  }
  return actions;
}

/** Inserts `# kube-windows-disable-next-line RULE` above the finding's line, at its indentation. */
function disableNextLine(doc: TextDocument, f: Finding): TextEdit {
  const line = f.range.start.line;
  const text = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
  const indent = /^[ \t]*/.exec(text)?.[0] ?? '';
  const eol = text.endsWith('\r\n') ? '\r\n' : '\n';
  return {
    range: { start: { line, character: 0 }, end: { line, character: 0 } },
    newText: `${indent}# kube-windows-disable-next-line ${f.ruleId}${eol}`,
  };
}

/** "Fix all Windows issues in this file": every safe fix, applied in passes, as one minimal edit. */
export function fixAll(doc: TextDocument, options: CheckOptions): CodeAction | undefined {
  const text = doc.getText();
  const fixed = fixText(text, options);
  if (fixed.applied === 0 || fixed.text === text) return undefined;
  // Replace only the changed middle, so the editor keeps cursor and folding elsewhere.
  let start = 0;
  while (start < text.length && start < fixed.text.length && text[start] === fixed.text[start]) start++;
  let endOld = text.length;
  let endNew = fixed.text.length;
  while (endOld > start && endNew > start && text[endOld - 1] === fixed.text[endNew - 1]) {
    endOld--;
    endNew--;
  }
  return {
    title: 'Fix all Windows issues in this file',
    kind: FIX_ALL_KIND,
    edit: {
      changes: {
        [doc.uri]: [
          {
            range: { start: doc.positionAt(start), end: doc.positionAt(endOld) },
            newText: fixed.text.slice(start, endNew),
          },
        ],
      },
    },
  };
}
