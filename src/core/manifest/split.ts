import type { Span } from './text';

/**
 * Splits a YAML stream into document spans by its markers, without parsing.
 *
 * A line starting with `---` (followed by space, tab or end of line) opens a document and a line
 * starting with `...` closes one. The YAML spec makes both markers at column 0 end any scalar,
 * block or quoted, so a plain line scan finds exactly the boundaries a parser would. Splitting
 * first lets every document be parsed (and fail) on its own: one broken document never hides
 * findings in the others, and an editor can re-check only the documents that changed.
 *
 * Directives (`%YAML`, `%TAG`) belong to the document their `---` opens: a stretch holding only
 * directives, comments and blank lines stays attached to the next document instead of being cut off.
 */
export function splitDocuments(text: string): Span[] {
  return splitDocumentsFrom(text, 0).spans;
}

/**
 * Splits from `from`, which must be a document boundary (0, or where a span of `splitDocuments`
 * starts), to the end; or up to the first boundary `stop` accepts. `stop` is told where the
 * boundary is and where the marker line that made it starts (the `---` line itself, or the `...`
 * line before). An editor re-splits only the stretch an edit touched this way: once a boundary
 * is past the edit and was a boundary before, everything after it splits as it did before.
 */
export function splitDocumentsFrom(
  text: string,
  from: number,
  stop?: (boundary: number, markerLine: number) => boolean,
): { spans: Span[]; stoppedAt?: number } {
  const spans: Span[] = [];
  let docStart = from === 0 && text.charCodeAt(0) === 0xfeff ? 1 : from;
  let pos = docStart;
  const len = text.length;
  // What the current stretch holds so far; checked line by line only until content shows up.
  let content = false;
  let directive = false;
  while (pos < len) {
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = len;
    const c = text.charCodeAt(pos);
    if ((c === 45 /* - */ || c === 46) /* . */ && isMarker(text, pos, eol, c)) {
      if (c === 45) {
        // `---` starts a new document here (its content may follow on the same line), unless
        // everything since the last boundary is its directive prologue.
        if (pos > docStart && (content || !directive)) {
          spans.push({ start: docStart, end: pos });
          if (stop?.(pos, pos)) return { spans, stoppedAt: pos };
          docStart = pos;
        }
        // The marker line itself counts as content: a later `---` opens the next document.
        content = true;
        directive = false;
      } else {
        // `...` ends the current document; the next one starts on the following line.
        const end = eol < len ? eol + 1 : len;
        spans.push({ start: docStart, end });
        if (end < len && stop?.(end, pos)) return { spans, stoppedAt: end };
        docStart = end;
        content = false;
        directive = false;
      }
    } else if (!content) {
      const kind = lineKind(text, pos, eol);
      if (kind === LINE_DIRECTIVE) directive = true;
      else if (kind === LINE_CONTENT) content = true;
    }
    pos = eol + 1;
  }
  if (docStart < len) spans.push({ start: docStart, end: len });
  return { spans };
}

const LINE_BLANK = 0;
const LINE_DIRECTIVE = 1;
const LINE_CONTENT = 2;

/** Blank or comment line, directive line (`%` at column 0), or anything else. */
function lineKind(text: string, pos: number, eol: number): number {
  if (text.charCodeAt(pos) === 37 /* % */) return LINE_DIRECTIVE;
  for (let i = pos; i < eol; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 13 || c === 0xfeff) continue;
    return c === 35 /* # */ ? LINE_BLANK : LINE_CONTENT;
  }
  return LINE_BLANK;
}

function isMarker(text: string, pos: number, eol: number, c: number): boolean {
  if (eol - pos < 3) return false;
  if (text.charCodeAt(pos + 1) !== c || text.charCodeAt(pos + 2) !== c) return false;
  if (pos + 3 === eol) return true;
  const next = text.charCodeAt(pos + 3);
  return next === 32 || next === 9 || next === 13;
}
