// Where a YAML syntax error really is. js-yaml reports an unclosed `{`, `[` or quote where it gave
// up ("deficient indentation" on the next key, lines below): the user needs the place it was opened.

export interface Unclosed {
  /** Offset of the opening character in the text. */
  offset: number;
  /** What was left open, in words: `the flow mapping "{"`. */
  what: string;
  /** What closes it. */
  closer: string;
}

const OPENERS: Record<string, { what: string; closer: string }> = {
  '{': { what: 'the flow mapping "{"', closer: '}' },
  '[': { what: 'the flow sequence "["', closer: ']' },
  '"': { what: 'the double-quoted string', closer: '"' },
  "'": { what: 'the single-quoted string', closer: "'" },
};

/**
 * The innermost flow collection or quoted scalar opened before `end` and still not closed at the end
 * of the text, if any. One closed further down is not reported: then the error is elsewhere (a
 * continuation line indented no deeper than its key, say). A plain scalar's braces (`a: x{y`) and
 * comments are not openers; the scan is a heuristic for the error message only, never for values.
 */
export function unclosedBefore(text: string, end: number): Unclosed | undefined {
  const open = openAt(text, end).at(-1);
  if (!open || !openAt(text, text.length).some((o) => o.offset === open.offset)) return undefined;
  return { offset: open.offset, ...OPENERS[open.char] };
}

/** What is open at `end`, outermost first (a quoted scalar last). */
function openAt(text: string, end: number): { offset: number; char: string }[] {
  const stack: { offset: number; char: string }[] = [];
  let quote: { offset: number; char: string } | undefined;
  // Whether the next non-blank character starts a value (line start, after `:`/`-`/`,`/an opener).
  let valueStart = true;
  for (let i = 0; i < Math.min(end, text.length); i++) {
    const c = text[i];
    if (quote) {
      if (quote.char === '"' && c === '\\') i++;
      else if (c === quote.char) {
        if (c === "'" && text[i + 1] === "'") i++;
        else quote = undefined;
      }
      continue;
    }
    if (c === '\n') {
      valueStart = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') continue;
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const nl = text.indexOf('\n', i);
      if (nl === -1) break;
      i = nl - 1;
      continue;
    }
    if (valueStart && (c === '{' || c === '[')) {
      stack.push({ offset: i, char: c });
      continue;
    }
    if (valueStart && (c === '"' || c === "'")) {
      quote = { offset: i, char: c };
      valueStart = false;
      continue;
    }
    if ((c === '}' || c === ']') && stack.length > 0) {
      stack.pop();
      valueStart = false;
      continue;
    }
    valueStart = c === ':' || c === ',' || (c === '-' && /\s/.test(text[i + 1] ?? ' '));
  }
  return quote ? [...stack, quote] : stack;
}
