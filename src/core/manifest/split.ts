import type { Span } from './text';

/**
 * Splits a YAML stream into document spans by its markers, without parsing.
 *
 * A line starting with `---` (followed by space, tab or end of line) opens a document and a line
 * starting with `...` closes one. The YAML spec makes both markers at column 0 end any scalar,
 * block or quoted, so a plain line scan finds exactly the boundaries a parser would. Splitting
 * first lets every document be parsed (and fail) on its own: one broken document never hides
 * findings in the others, and an editor can re-check only the documents that changed.
 */
export function splitDocuments(text: string): Span[] {
  const spans: Span[] = [];
  let docStart = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let pos = docStart;
  const len = text.length;
  while (pos < len) {
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = len;
    const c = text.charCodeAt(pos);
    if ((c === 45 /* - */ || c === 46) /* . */ && isMarker(text, pos, eol, c)) {
      if (c === 45) {
        // `---` starts a new document here (its content may follow on the same line).
        if (pos > docStart) spans.push({ start: docStart, end: pos });
        docStart = pos;
      } else {
        // `...` ends the current document; the next one starts on the following line.
        const end = eol < len ? eol + 1 : len;
        spans.push({ start: docStart, end });
        docStart = end;
      }
    }
    pos = eol + 1;
  }
  if (docStart < len) spans.push({ start: docStart, end: len });
  return spans;
}

function isMarker(text: string, pos: number, eol: number, c: number): boolean {
  if (eol - pos < 3) return false;
  if (text.charCodeAt(pos + 1) !== c || text.charCodeAt(pos + 2) !== c) return false;
  if (pos + 3 === eol) return true;
  const next = text.charCodeAt(pos + 3);
  return next === 32 || next === 9 || next === 13;
}
