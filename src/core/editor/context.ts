/**
 * Where the cursor is in a YAML manifest, for the language server's completion and hover.
 *
 * `positionContext` never parses YAML: it reads lines (indentation, `- ` markers and `key:` forms), so
 * it answers while the user is typing and the document does not parse, and costs only the lines of the
 * current object on every keystroke. Hover, where the text usually parses, uses `nodeAt` (./node-at.ts)
 * instead; this module imports no YAML loader, so completion never parses.
 */
import { detectNewline, type Span } from '../manifest/text';

export type Segment = string | number;

/** Scalar entries of a mapping as the line reader saw them: the raw scalar (unquoted), or null for anything else. */
export type Entries = Record<string, string | null>;

export interface PositionContext {
  /** `key`: the cursor is on a key, or where a new key goes; `value`: after `key:` on its line. */
  kind: 'key' | 'value';
  /**
   * Best-effort path. For `key`, the path of the mapping the key belongs to (a sequence item's index when
   * the line starts with `- `); for `value`, the path of the value (that mapping's path plus `key`).
   */
  path: Segment[];
  /** For `value`, the key whose value is at the cursor; for `key`, the key text on the line (possibly partial). */
  key?: string;
  /** Text from the start of `replaceRange` to the cursor (quotes included). */
  partial: string;
  /** Offsets of the token a completion replaces (the key, or the whole value with its quotes); contains the cursor. */
  replaceRange: Span;
  /** Column of the key (or where the new key goes). */
  indent: number;
  /** Indentation step of the document, best effort (2 when nothing tells). */
  indentUnit: number;
  /** Whether sequences in this document put `- ` under their key (`indented`) or at its column (`indentless`). */
  sequenceStyle: 'indented' | 'indentless';
  /** The key is the first node after `- ` on its line (so it may also be a scalar item being typed). */
  seqItem: boolean;
  /** For `key`: a `:` already follows the key on the line. */
  hasColon: boolean;
  /** For `value`: nothing separates the colon from the cursor, so an insertion must start with a space. */
  needsSpace: boolean;
  /**
   * Entries of the mapping the cursor's key belongs to, from the lines before and after the cursor line
   * (the cursor's own key excluded).
   */
  siblings: Entries;
  /**
   * `scopes[i]` holds the entries (lines before the cursor only) of the mapping at `path.slice(0, i)`,
   * where that prefix is a mapping; e.g. the `key:` next to a `values:` list of a match expression.
   */
  scopes: (Entries | undefined)[];
  /** The Kubernetes object around the cursor: its kind and its path (a List item's path, or []). */
  object?: { kind: string; path: Segment[] };
  newline: '\n' | '\r\n';
}

/**
 * The cursor context, or undefined where there is nothing to say (comments, block scalars, flow collections, markers).
 */
export function positionContext(text: string, offset: number): PositionContext | undefined {
  try {
    return computeContext(text, offset);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Lines

interface Line {
  start: number;
  /** End of the content, before `\r\n` or `\n`. */
  end: number;
  /** Column of the first character that is not a space or tab; the line length when blank. */
  indent: number;
  /** Whitespace or a comment only. */
  blank: boolean;
  /** Columns of the `- ` markers that open the line. */
  dashes: number[];
  /** Column of the content after the markers. */
  contentCol: number;
  /** Set when the content is `key:` (the key unquoted). */
  key?: string;
  /** Column just past the key text (before the spaces and colon). */
  keyEnd?: number;
  colon?: number;
  /** Value after the colon (or of the item, for a `- value` line without key): columns and raw text. */
  valueCol?: number;
  valueEnd?: number;
  /** Column of a `#` that starts a comment. */
  commentCol?: number;
}

const SPACE = 32;
const TAB = 9;

function isWs(c: number): boolean {
  return c === SPACE || c === TAB;
}

function lineEndOf(text: string, start: number): number {
  let end = text.indexOf('\n', start);
  if (end === -1) end = text.length;
  if (end > start && text.charCodeAt(end - 1) === 13) end--;
  return end;
}

function lineAt(text: string, start: number): Line {
  return parseLine(text, start, lineEndOf(text, start));
}

/** Reads one line's structure; columns are relative to `start`. */
function parseLine(text: string, start: number, end: number): Line {
  const s = text.slice(start, end);
  const n = s.length;
  let i = 0;
  while (i < n && (isWs(s.charCodeAt(i)) || (i === 0 && start === 0 && s.charCodeAt(0) === 0xfeff))) i++;
  const line: Line = { start, end, indent: i, blank: false, dashes: [], contentCol: i };
  if (i >= n || s[i] === '#') {
    line.blank = true;
    if (i < n) line.commentCol = i;
    return line;
  }
  // `- ` markers (a `-` followed by a space, a tab or the end of the line).
  while (i < n && s[i] === '-' && (i + 1 >= n || isWs(s.charCodeAt(i + 1)))) {
    line.dashes.push(i);
    i++;
    while (i < n && isWs(s.charCodeAt(i))) i++;
  }
  line.contentCol = i;
  if (i >= n) return line;
  if (s[i] === '#') {
    line.commentCol = i;
    return line;
  }
  // A key: quoted or plain, followed by `:` and a space, a tab or the end of the line.
  let j = i;
  let keyText: string | undefined;
  let keyEnd = -1;
  const c = s[i];
  if (c === '"' || c === "'") {
    const close = closingQuote(s, i);
    if (close !== -1) {
      keyText = unquote(s.slice(i, close + 1));
      keyEnd = close + 1;
      j = close + 1;
      while (j < n && isWs(s.charCodeAt(j))) j++;
      if (!(s[j] === ':' && (j + 1 >= n || isWs(s.charCodeAt(j + 1))))) keyText = undefined;
    }
  } else if (!'[{|>!&*%@`,?'.includes(c)) {
    for (; j < n; j++) {
      const ch = s[j];
      if (ch === '#' && isWs(s.charCodeAt(j - 1))) break;
      if (ch === ':' && (j + 1 >= n || isWs(s.charCodeAt(j + 1)))) {
        keyText = s.slice(i, j).trimEnd();
        keyEnd = i + keyText.length;
        break;
      }
    }
  }
  let v = i;
  if (keyText !== undefined) {
    line.key = keyText;
    line.keyEnd = keyEnd;
    line.colon = j;
    v = j + 1;
    while (v < n && isWs(s.charCodeAt(v))) v++;
  }
  if (v >= n) return line;
  if (s[v] === '#') {
    line.commentCol = v;
    return line;
  }
  // The value (or the whole content, for a line without key): quoted, or plain up to a comment.
  let e = v;
  if (s[v] === '"' || s[v] === "'") {
    const close = closingQuote(s, v);
    e = close === -1 ? n : close + 1;
  }
  for (let k = e; k < n; k++) {
    if (s[k] === '#' && k > 0 && isWs(s.charCodeAt(k - 1))) {
      line.commentCol = k;
      break;
    }
  }
  let valueEnd = line.commentCol ?? n;
  while (valueEnd > e && isWs(s.charCodeAt(valueEnd - 1))) valueEnd--;
  line.valueCol = v;
  line.valueEnd = Math.max(valueEnd, e);
  return line;
}

/** Index of the quote that closes the quoted scalar starting at `from`, or -1. */
function closingQuote(s: string, from: number): number {
  const q = s[from];
  for (let k = from + 1; k < s.length; k++) {
    const ch = s[k];
    if (q === '"' && ch === '\\') {
      k++;
      continue;
    }
    if (ch === q) {
      if (q === "'" && s[k + 1] === "'") {
        k++;
        continue;
      }
      return k;
    }
  }
  return -1;
}

/** The string a scalar's raw text stands for, as far as the context needs it (quotes removed, escapes read). */
function unquote(raw: string): string {
  const t = raw.trim();
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    return t
      .slice(1, -1)
      .replace(
        /\\(.)/g,
        (_m, ch: string) =>
          ({ n: '\n', t: '\t', '"': '"', '\\': '\\', '/': '/', ' ': ' ', '0': '\0' })[ch] ?? `\\${ch}`,
      );
  }
  return t;
}

/** A `---` or `...` line at column 0 (a document marker), starting at `start`. */
function isMarkerLine(text: string, start: number): boolean {
  const c = text.charCodeAt(start);
  if ((c !== 45 && c !== 46) || text.charCodeAt(start + 1) !== c || text.charCodeAt(start + 2) !== c) return false;
  const next = text.charCodeAt(start + 3);
  return Number.isNaN(next) || next === SPACE || next === TAB || next === 10 || next === 13;
}

/** A line at column 0 that holds a key: the stack of open nodes is empty before it. */
function isTopKeyLine(text: string, start: number): boolean {
  const c = text.charCodeAt(start);
  if (
    Number.isNaN(c) ||
    isWs(c) ||
    c === 10 ||
    c === 13 ||
    c === 35 /* # */ ||
    c === 37 /* % */ ||
    c === 45 /* - */ ||
    c === 46 /* . */
  )
    return false;
  if (c === 0xfeff) return false;
  const line = lineAt(text, start);
  return line.key !== undefined && line.dashes.length === 0 && line.indent === 0;
}

/** A `- ` item at column 0. */
function isTopItemLine(text: string, start: number): boolean {
  if (text.charCodeAt(start) !== 45 /* - */) return false;
  const next = text.charCodeAt(start + 1);
  return Number.isNaN(next) || next === SPACE || next === TAB || next === 10 || next === 13;
}

function prevLineStart(text: string, lineStart: number): number {
  if (lineStart <= 0) return -1;
  return lineStart >= 2 ? text.lastIndexOf('\n', lineStart - 2) + 1 : 0;
}

function nextLineStart(text: string, lineStart: number): number {
  const nl = text.indexOf('\n', lineStart);
  return nl === -1 ? -1 : nl + 1;
}

// ---------------------------------------------------------------------------------------------
// The stack of open nodes

interface Frame {
  col: number;
  seg: Segment;
  item: boolean;
  /** Entries of the mapping this node's value is (when it is one). */
  entries: Entries;
}

class Reader {
  readonly stack: Frame[] = [{ col: -1, seg: '', item: false, entries: {} }];
  unit: number | undefined;
  style: 'indented' | 'indentless' | undefined;
  /** While set, lines indented deeper than this column belong to a block scalar. */
  blockCol: number | undefined;
  /** Open flow brackets of a multi-line flow collection, or an open multi-line quoted scalar. */
  flowDepth = 0;
  openQuote: string | undefined;

  get top(): Frame {
    return this.stack[this.stack.length - 1];
  }

  /** Opens a sequence item whose `-` is at column `col`. */
  item(col: number): void {
    while (this.stack.length > 1 && this.top.col > col) this.stack.pop();
    let index = 0;
    if (this.stack.length > 1 && this.top.item && this.top.col === col) {
      index = (this.top.seg as number) + 1;
      this.stack.pop();
    } else if (this.style === undefined && this.stack.length > 1 && !this.top.item) {
      this.style = this.top.col === col ? 'indentless' : 'indented';
    }
    this.stack.push({ col, seg: index, item: true, entries: {} });
  }

  /** Starts reading inside a sequence whose items are at `col`, as if item `index` had just been read. */
  seedItem(col: number, index: number): void {
    while (this.stack.length > 1 && this.top.col > col) this.stack.pop();
    if (this.style === undefined && this.stack.length > 1 && !this.top.item)
      this.style = this.top.col === col ? 'indentless' : 'indented';
    this.stack.push({ col, seg: index, item: true, entries: {} });
    this.blockCol = undefined;
    this.flowDepth = 0;
    this.openQuote = undefined;
  }

  /** Pops what a key at `col` closes; returns the frame whose mapping holds the key. */
  parentFor(col: number): Frame {
    while (this.stack.length > 1 && this.top.col >= col) this.stack.pop();
    return this.top;
  }

  key(col: number, key: string, value: string | null): void {
    const parent = this.parentFor(col);
    if (this.unit === undefined && this.stack.length > 1 && !parent.item && col > parent.col)
      this.unit = col - parent.col;
    parent.entries[key] = value;
    this.stack.push({ col, seg: key, item: false, entries: {} });
  }

  /**
   * Reads one line before the cursor line. Lines inside block scalars, multi-line flow collections
   * and multi-line quoted scalars are skipped.
   */
  read(text: string, line: Line): void {
    if (this.skip(text, line)) return;
    if (line.blank) return;
    for (const d of line.dashes) this.item(d);
    let value: string | null = null;
    let raw = '';
    if (line.valueCol !== undefined) {
      raw = text.slice(line.start + line.valueCol, line.start + line.valueEnd!);
      value = unquote(raw);
    }
    if (line.key !== undefined) {
      const first = raw[0];
      this.key(
        line.contentCol,
        line.key,
        raw === '' ||
          first === '[' ||
          first === '{' ||
          first === '|' ||
          first === '>' ||
          first === '&' ||
          first === '*' ||
          first === '!'
          ? null
          : value,
      );
    }
    this.afterValue(
      raw,
      line.key !== undefined ? line.contentCol : line.dashes.length ? line.dashes[line.dashes.length - 1] : undefined,
    );
  }

  /** Sets up skipping for what a value opens on later lines. */
  private afterValue(raw: string, ownerCol: number | undefined): void {
    if (raw === '') return;
    const first = raw[0];
    if ((first === '|' || first === '>') && /^[|>][-+0-9]*$/.test(raw.trim()) && ownerCol !== undefined) {
      this.blockCol = ownerCol;
      return;
    }
    if (first === '[' || first === '{') {
      const depth = bracketDepth(raw, 0);
      if (depth > 0) this.flowDepth = depth;
      return;
    }
    if ((first === '"' || first === "'") && closingQuote(raw, 0) === -1) this.openQuote = first;
  }

  /** True when the line belongs to something opened on an earlier line. */
  skip(text: string, line: Line): boolean {
    if (this.blockCol !== undefined) {
      if (line.blank && line.commentCol === undefined) return true;
      if (line.indent > this.blockCol) return true;
      this.blockCol = undefined;
    }
    const s = text.slice(line.start, line.end);
    if (this.openQuote !== undefined) {
      const q = this.openQuote;
      const close = q === '"' ? /(^|[^\\])(\\\\)*"/.exec(s) : /'(?!')/.exec(s.replace(/''/g, '  '));
      if (close) this.openQuote = undefined;
      return true;
    }
    if (this.flowDepth > 0) {
      this.flowDepth = bracketDepth(s, this.flowDepth);
      return true;
    }
    return false;
  }

  path(): Segment[] {
    return this.stack.slice(1).map((f) => f.seg);
  }
}

/** Bracket depth after reading `s` from `depth`, ignoring brackets in quoted scalars and comments. */
function bracketDepth(s: string, depth: number): number {
  let d = depth;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '"' || ch === "'") {
      const close = closingQuote(s, i);
      if (close === -1) return d;
      i = close;
    } else if (ch === '#' && (i === 0 || isWs(s.charCodeAt(i - 1)))) break;
    else if (ch === '[' || ch === '{') d++;
    else if (ch === ']' || ch === '}') d = Math.max(0, d - 1);
  }
  return d;
}

// ---------------------------------------------------------------------------------------------
// The context

/** At most this many lines are read after the cursor line to find sibling keys. */
const MAX_LINES_AFTER = 20_000;

function computeContext(text: string, offset: number): PositionContext | undefined {
  const o = Math.max(0, Math.min(Number.isFinite(offset) ? Math.floor(offset) : 0, text.length));
  if (o === 0 && text.charCodeAt(0) === 0xfeff) return undefined; // before a byte order mark
  const lineStart = o === 0 ? 0 : text.lastIndexOf('\n', o - 1) + 1;
  const line = lineAt(text, lineStart);
  if (o > line.end) return undefined; // between \r and \n: no position an editor gives
  if (isMarkerLine(text, line.start) || text.charCodeAt(line.start) === 37 /* % */) return undefined;
  const k = o - lineStart;

  // Back to the nearest line that starts a top-level key (the stack is empty there), or the document
  // start. Column-0 `- ` items on the way are only counted: reading resumes at the nearest one.
  let from = lineStart;
  let docStart = 0;
  let topItem = -1;
  let itemsAbove = 0;
  for (let p = prevLineStart(text, lineStart); p !== -1; p = prevLineStart(text, p)) {
    if (isMarkerLine(text, p)) {
      docStart = nextLineStart(text, p);
      from = docStart;
      break;
    }
    from = p;
    if (isTopItemLine(text, p)) {
      if (topItem === -1) topItem = p;
      itemsAbove++;
    } else if (isTopKeyLine(text, p)) break;
  }
  if (from > lineStart) from = lineStart;

  const reader = new Reader();
  if (topItem !== -1 && topItem > from) {
    // The key that holds the column-0 sequence, then the item before the nearest one.
    if (isTopKeyLine(text, from)) reader.read(text, lineAt(text, from));
    reader.seedItem(0, itemsAbove - 2);
    from = topItem;
  }
  for (let p = from; p !== -1 && p < lineStart; p = nextLineStart(text, p)) reader.read(text, lineAt(text, p));

  // The cursor line.
  if (reader.openQuote !== undefined || reader.flowDepth > 0) return undefined;
  if (reader.blockCol !== undefined) {
    const col = line.blank ? k : line.indent;
    if (col > reader.blockCol) return undefined;
    reader.blockCol = undefined;
  }
  if (line.commentCol !== undefined && k > line.commentCol) return undefined;

  const s = text.slice(line.start, line.end);
  const base = {
    indentUnit: 2,
    sequenceStyle: 'indented' as 'indented' | 'indentless',
    seqItem: false,
    hasColon: false,
    needsSpace: false,
    newline: detectNewline(text),
  };

  let kind: 'key' | 'value';
  let col: number;
  let key: string | undefined;
  let range: Span;
  let partial: string;
  let ctxPath: Segment[];
  let holder: Frame;

  if (line.blank) {
    if (line.commentCol !== undefined) return undefined;
    // An empty line: a new key at the cursor column.
    col = k;
    kind = 'key';
    holder = reader.parentFor(col);
    ctxPath = reader.path();
    range = { start: o, end: line.end };
    partial = '';
  } else {
    if (k < line.contentCol) return undefined; // in the indentation or on a `-`
    if (line.dashes.length > 0 && line.contentCol > 0 && s[line.contentCol - 1] === '-') return undefined; // `-|`
    for (const d of line.dashes) reader.item(d);
    col = line.contentCol;
    const first = s[col];
    if (first !== undefined && '[{|>!&*%@`,?'.includes(first)) return undefined;
    base.seqItem = line.dashes.length > 0;
    holder = reader.parentFor(col);
    ctxPath = reader.path();
    if (line.key !== undefined && line.colon !== undefined && k > line.colon) {
      // After `key:`.
      kind = 'value';
      key = line.key;
      ctxPath.push(key);
      const vc = line.valueCol;
      if (vc !== undefined && k >= vc) {
        const vf = s[vc];
        if ('[{|>!&*'.includes(vf)) return undefined;
        range = { start: lineStart + vc, end: lineStart + Math.max(line.valueEnd!, k) };
      } else {
        range = { start: o, end: vc !== undefined ? lineStart + line.valueEnd! : o };
        base.needsSpace = k === line.colon + 1;
      }
      partial = text.slice(range.start, o);
    } else {
      // On a key (or where one is being typed).
      kind = 'key';
      let tokenEnd: number;
      if (line.key !== undefined && line.keyEnd !== undefined) {
        tokenEnd = line.keyEnd;
        base.hasColon = true;
      } else {
        tokenEnd = line.commentCol ?? s.length;
        while (tokenEnd > col && isWs(s.charCodeAt(tokenEnd - 1))) tokenEnd--;
      }
      range = { start: lineStart + col, end: lineStart + Math.max(tokenEnd, k) };
      partial = text.slice(range.start, o);
      const token = s.slice(col, Math.max(tokenEnd, col));
      key = line.key ?? unquote(token);
    }
  }

  base.indentUnit =
    !holder.item && reader.stack.length > 1 && holder.col >= 0 && col > holder.col
      ? col - holder.col
      : (reader.unit ?? 2);
  if (base.indentUnit <= 0 || base.indentUnit > 8) base.indentUnit = 2;
  base.sequenceStyle = reader.style ?? 'indented';

  // Siblings: the entries read so far, then keys at the same column below the cursor line.
  const siblings: Entries = { ...holder.entries };
  let count = 0;
  let afterKey = false;
  let styleBelow = false;
  for (
    let p = nextLineStart(text, lineStart);
    p !== -1 && count < MAX_LINES_AFTER;
    p = nextLineStart(text, p), count++
  ) {
    const next = lineAt(text, p);
    if (isMarkerLine(text, next.start)) break;
    if (next.blank) continue;
    const first = next.dashes.length > 0 ? next.dashes[0] : next.contentCol;
    if (first < col) break;
    // A sequence right under a sibling key tells the document's sequence style, when nothing above did.
    if (afterKey && !styleBelow && reader.style === undefined && next.dashes.length > 0) {
      base.sequenceStyle = first === col ? 'indentless' : 'indented';
      styleBelow = true;
    }
    afterKey = first === col && next.dashes.length === 0 && next.key !== undefined && next.valueCol === undefined;
    if (first > col || next.dashes.length > 0 || next.key === undefined) continue;
    if (next.key in siblings) continue;
    siblings[next.key] =
      next.valueCol === undefined ? null : unquote(text.slice(p + next.valueCol, p + next.valueEnd!));
  }

  // Entries of each mapping along the path (lines before the cursor), and the object around the cursor.
  const scopes: (Entries | undefined)[] = reader.stack.map((f) => f.entries);
  const holderDepth = reader.stack.indexOf(holder);
  scopes[holderDepth] = siblings;
  let object: PositionContext['object'];
  for (let i = holderDepth; i >= 0; i--) {
    const kindValue = i === holderDepth ? siblings.kind : reader.stack[i].entries.kind;
    if (typeof kindValue === 'string' && kindValue !== '') {
      object = { kind: kindValue, path: reader.stack.slice(1, i + 1).map((f) => f.seg) };
      break;
    }
    if (i === 0) {
      const rootKind = findRootKind(text, docStart, lineStart);
      if (rootKind) object = { kind: rootKind, path: [] };
    }
  }

  return {
    kind,
    path: ctxPath,
    ...(key !== undefined ? { key } : {}),
    partial,
    replaceRange: range,
    indent: col,
    ...base,
    siblings,
    scopes,
    ...(object ? { object } : {}),
  };
}

/** The `kind:` of the document's top-level mapping, read from column-0 lines of the document. */
function findRootKind(text: string, docStart: number, lineStart: number): string | undefined {
  const read = (at: number): string | undefined => {
    const p = at === 0 && text.charCodeAt(0) === 0xfeff ? 1 : at;
    if (!text.startsWith('kind:', p)) return undefined;
    const line = lineAt(text, p);
    if (line.key !== 'kind' || line.valueCol === undefined) return undefined;
    return unquote(text.slice(p + line.valueCol, p + line.valueEnd!)) || undefined;
  };
  for (let p = lineStart; p !== -1 && p >= docStart; p = prevLineStart(text, p)) {
    const found = read(p);
    if (found) return found;
    if (p === 0) break;
  }
  for (let p = nextLineStart(text, lineStart); p !== -1; p = nextLineStart(text, p)) {
    if (isMarkerLine(text, p)) break;
    const found = read(p);
    if (found) return found;
  }
  return undefined;
}
