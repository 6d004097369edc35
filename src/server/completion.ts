import { CompletionItemKind, InsertTextFormat, type CompletionItem, type Position } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { completionsAt } from '../core/editor/completion';

const KIND = {
  value: CompletionItemKind.Value,
  snippet: CompletionItemKind.Snippet,
  key: CompletionItemKind.Property,
} as const;

/** Windows values and snippets at the cursor; the knowledge lives in core/editor. */
export function completions(doc: TextDocument, position: Position): CompletionItem[] {
  return completionsAt(doc.getText(), doc.offsetAt(position)).map((c, i) => ({
    label: c.label,
    kind: KIND[c.kind],
    ...(c.detail ? { detail: c.detail } : {}),
    ...(c.filterText ? { filterText: c.filterText } : {}),
    ...(c.documentation ? { documentation: { kind: 'markdown' as const, value: c.documentation } } : {}),
    sortText: c.sortText ?? String(i).padStart(3, '0'),
    insertTextFormat: c.isSnippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
    textEdit: {
      range: { start: doc.positionAt(c.replaceRange.start), end: doc.positionAt(c.replaceRange.end) },
      newText: c.insertText,
    },
  }));
}
