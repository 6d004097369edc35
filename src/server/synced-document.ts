// The server's open documents: a text and its line table, with the positions of
// vscode-languageserver-textdocument's documents (the same lines, the same handling of CRLF and of
// offsets past a line's end). Why not that library's document: on a whole-text change (clients that
// sync full documents) it can only rebuild the text from the old one (a copy of the whole file, 1 MB
// at 1,000 documents, on every keystroke) or recompute the whole line table. This one keeps the text
// the client sent, which is already the new text, and updates the line table only where the two
// texts differ (whole-text.ts finds where), so a whole-text change costs what a range change costs.
import type { Position, Range, TextDocument, TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { minimalEdit } from './whole-text';

const CR = 13;
const LF = 10;

/** The offsets where lines start in `text` (after each \n, \r or \r\n), shifted by `base`. */
function lineStarts(text: string, base: number, first: boolean): number[] {
  const starts = first ? [0] : [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === CR || c === LF) {
      if (c === CR && i + 1 < text.length && text.charCodeAt(i + 1) === LF) i++;
      starts.push(base + i + 1);
    }
  }
  return starts;
}

export class SyncedDocument implements TextDocument {
  private lines: number[] | undefined;

  constructor(
    readonly uri: string,
    readonly languageId: string,
    public version: number,
    private text: string,
  ) {}

  getText(range?: Range): string {
    return range ? this.text.substring(this.offsetAt(range.start), this.offsetAt(range.end)) : this.text;
  }

  get lineCount(): number {
    return this.lineTable().length;
  }

  positionAt(offset: number): Position {
    const at = Math.max(Math.min(offset, this.text.length), 0);
    const lines = this.lineTable();
    const line = this.lineOf(at);
    return { line, character: this.beforeLineBreak(at, lines[line]) - lines[line] };
  }

  offsetAt(position: Position): number {
    const lines = this.lineTable();
    if (position.line >= lines.length) return this.text.length;
    if (position.line < 0) return 0;
    const start = lines[position.line];
    if (position.character <= 0) return start;
    const next = position.line + 1 < lines.length ? lines[position.line + 1] : this.text.length;
    return this.beforeLineBreak(Math.min(start + position.character, next), start);
  }

  getLineRange(line: number): Range {
    const lines = this.lineTable();
    if (line >= lines.length) {
      const last = lines.length - 1;
      return { start: { line: last, character: 0 }, end: { line: last, character: this.text.length - lines[last] } };
    }
    if (line < 0) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const next = line + 1 < lines.length ? lines[line + 1] : this.text.length;
    return {
      start: { line, character: 0 },
      end: { line, character: this.beforeLineBreak(next, lines[line]) - lines[line] },
    };
  }

  getEOLCharacters(line: number): string {
    const lines = this.lineTable();
    if (line < 0 || line >= lines.length) return '';
    const next = line + 1 < lines.length ? lines[line + 1] : this.text.length;
    return this.text.substring(this.beforeLineBreak(next, lines[line]), next);
  }

  /**
   * Applies one change from the client; returns what it replaced: `[start, end)` in the text before
   * it, and that text's length (what the analysis needs to re-check only the documents it touched).
   */
  apply(change: TextDocumentContentChangeEvent): { start: number; end: number; length: number } {
    const length = this.text.length;
    if ('range' in change) {
      let { start, end } = change.range;
      if (start.line > end.line || (start.line === end.line && start.character > end.character))
        [start, end] = [end, start];
      const from = this.offsetAt(start);
      const to = this.offsetAt(end);
      const [startLine, endLine] = [this.lineOf(from), this.lineOf(to)];
      this.text = this.text.substring(0, from) + change.text + this.text.substring(to);
      this.replaceLines(from, to, startLine, endLine, change.text);
      return { start: from, end: to, length };
    }
    // A whole-text change: the client's text is kept as it is; the line table changes only where
    // the two texts differ.
    const edit = minimalEdit(this.text, change.text);
    const startLine = this.lines && this.lineOf(edit.start);
    const endLine = this.lines && this.lineOf(edit.end);
    this.text = change.text;
    if (startLine !== undefined && endLine !== undefined)
      this.replaceLines(edit.start, edit.end, startLine, endLine, edit.text);
    return { start: edit.start, end: edit.end, length };
  }

  /** The line table after `[from, to)` of the old text, lines `startLine..endLine`, became `inserted` (this.text is the new text). */
  private replaceLines(from: number, to: number, startLine: number, endLine: number, inserted: string): void {
    const lines = this.lines;
    if (!lines) return;
    const end = from + inserted.length;
    const joinsCrLf = (at: number) => this.text.charCodeAt(at - 1) === CR && this.text.charCodeAt(at) === LF;
    if (joinsCrLf(from) || joinsCrLf(end)) {
      // A CR and an LF that the edit brought together are one line break: read the table afresh.
      this.lines = undefined;
      return;
    }
    const added = lineStarts(inserted, from, false);
    const first = startLine + 1;
    const removed = endLine - startLine;
    if (removed === added.length) for (let i = 0; i < added.length; i++) lines[first + i] = added[i];
    else this.lines = lines.slice(0, first).concat(added, lines.slice(first + removed));
    const shift = inserted.length - (to - from);
    if (shift !== 0) {
      const table = this.lines ?? lines;
      for (let i = first + added.length; i < table.length; i++) table[i] += shift;
    }
  }

  private lineTable(): number[] {
    return (this.lines ??= lineStarts(this.text, 0, true));
  }

  /** The line that holds `offset`: the last line starting at or before it. */
  private lineOf(offset: number): number {
    const lines = this.lineTable();
    let low = 0;
    let high = lines.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (lines[mid] > offset) high = mid;
      else low = mid + 1;
    }
    return low - 1;
  }

  /** `offset`, moved back before the line break it may sit inside or after (never before `lineStart`). */
  private beforeLineBreak(offset: number, lineStart: number): number {
    let at = offset;
    while (at > lineStart && (this.text.charCodeAt(at - 1) === CR || this.text.charCodeAt(at - 1) === LF)) at--;
    return at;
  }
}
