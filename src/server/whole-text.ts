// Some clients (Vim's ALE, Emacs's eglot by default, many small ones) send the whole document on every
// change. Turned into the one range edit between the old text and the new, such a change costs what
// a range edit costs: the line table is updated in place (synced-document.ts) and only the YAML
// documents it touches are checked again.

/** Offsets in the old text and the new text in their place: `before[start, end)` became `text`. */
export interface OffsetEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * The one edit that turns `before` into `after`, keeping their common prefix and suffix. Neither end
 * splits a CRLF, in either text: an offset between `\r` and `\n` has no position of its own in LSP
 * terms, and a line table updated in place would count the pair as two line breaks.
 */
export function minimalEdit(before: string, after: string): OffsetEdit {
  const limit = Math.min(before.length, after.length);
  let prefix = commonPrefix(before, after, limit);
  if (prefix > 0 && before.charCodeAt(prefix - 1) === CR) prefix--;
  let suffix = commonSuffix(before, after, limit - prefix);
  const splitsCrLf = (t: string) =>
    t.charCodeAt(t.length - suffix) === LF && t.charCodeAt(t.length - suffix - 1) === CR;
  if (suffix > 0 && (splitsCrLf(before) || splitsCrLf(after))) suffix--;
  return { start: prefix, end: before.length - suffix, text: after.slice(prefix, after.length - suffix) };
}

const CR = 13;
const LF = 10;
/** Compared a block at a time first: string equality of slices is a memory compare, far quicker than a loop of charCodeAt. */
const BLOCK = 4096;

function commonPrefix(a: string, b: string, limit: number): number {
  let i = 0;
  while (i + BLOCK <= limit && a.slice(i, i + BLOCK) === b.slice(i, i + BLOCK)) i += BLOCK;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string, limit: number): number {
  let n = 0;
  while (
    n + BLOCK <= limit &&
    a.slice(a.length - n - BLOCK, a.length - n) === b.slice(b.length - n - BLOCK, b.length - n)
  )
    n += BLOCK;
  while (n < limit && a.charCodeAt(a.length - n - 1) === b.charCodeAt(b.length - n - 1)) n++;
  return n;
}
