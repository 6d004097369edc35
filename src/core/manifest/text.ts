/** Positions follow the LSP convention: 0-based lines, characters in UTF-16 code units. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** Half-open offset span [start, end) into a text. */
export interface Span {
  start: number;
  end: number;
}

/** Maps offsets to positions with a binary search over line starts; built once per text. */
export class LineIndex {
  private readonly starts: number[];

  constructor(private readonly text: string) {
    const starts = [0];
    let i = text.indexOf('\n');
    while (i !== -1) {
      starts.push(i + 1);
      i = text.indexOf('\n', i + 1);
    }
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  lineStart(line: number): number {
    return this.starts[Math.max(0, Math.min(line, this.starts.length - 1))];
  }

  /** End of the line's content, before `\r\n` or `\n`. */
  lineEnd(line: number): number {
    const next = line + 1 < this.starts.length ? this.starts[line + 1] - 1 : this.text.length;
    return next > 0 && this.text.charCodeAt(next - 1) === 13 && next - 1 >= this.lineStart(line) ? next - 1 : next;
  }

  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.starts[lo] };
  }

  offsetAt(pos: Position): number {
    if (pos.line >= this.starts.length) return this.text.length;
    return Math.min(this.lineStart(pos.line) + pos.character, this.lineEnd(pos.line));
  }

  rangeOf(span: Span): Range {
    return { start: this.positionAt(span.start), end: this.positionAt(span.end) };
  }
}

export function detectNewline(text: string): '\n' | '\r\n' {
  const i = text.indexOf('\n');
  return i > 0 && text.charCodeAt(i - 1) === 13 ? '\r\n' : '\n';
}

/** Shortens a value for a message so that a 50 MB scalar never ends up in output. */
export function preview(value: unknown, max = 120): string {
  let s: string;
  if (typeof value === 'string') s = JSON.stringify(value.length > max * 2 ? value.slice(0, max * 2) : value);
  else {
    try {
      s = JSON.stringify(value) ?? String(value);
    } catch {
      s = String(value);
    }
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * The line of an offset, for callers that ask in increasing order (a check walking a file's documents):
 * counts newlines from the last offset asked instead of building a table of every line of the file.
 * An offset before the last one asked counts from the start again.
 */
export function forwardLineCounter(text: string): (offset: number) => number {
  let at = 0;
  let line = 0;
  return (offset) => {
    if (offset < at) {
      at = 0;
      line = 0;
    }
    let i = text.indexOf('\n', at);
    while (i !== -1 && i < offset) {
      line++;
      i = text.indexOf('\n', i + 1);
    }
    at = offset;
    return line;
  };
}
