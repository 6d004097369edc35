// Small builders for CEL text: string literals, RE2 patterns, field presence. The generated policies
// are text the API server compiles, so every literal goes through here.

/** A CEL string literal (single-quoted; backslashes, quotes and control characters escaped). */
export function str(value: string): string {
  return `'${value.replace(/[\\'\n\r\t]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\${c}`))}'`;
}

/** A CEL list literal of strings. */
export function strList(values: readonly string[]): string {
  return `[${values.map(str).join(', ')}]`;
}

/** `text` matched literally inside an RE2 pattern. */
export function reLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * `has()` for a field path below `base`, each step guarded: `has(a.b) && has(a.b.c)`. CEL's has() fails
 * on an absent parent, and the API server omits unset fields.
 */
export function present(base: string, path: readonly string[]): string {
  const out: string[] = [];
  let at = base;
  for (const key of path) {
    at = `${at}.${key}`;
    out.push(`has(${at})`);
  }
  return out.join(' && ');
}

/** The field at `path` below `base` (for use after `present`). */
export function at(base: string, path: readonly string[]): string {
  return [base, ...path].join('.');
}

/**
 * A CEL string expression that builds the text `template` returns, with each placeholder it was given
 * replaced by a CEL expression: the rules' sentences are written once, in TypeScript, and turned into
 * CEL concatenations here.
 */
export function sentence(template: (...holes: string[]) => string, holes: readonly string[]): string {
  const marks = holes.map((_, i) => `\u0000${i}\u0000`);
  const text = template(...marks);
  const parts: string[] = [];
  for (const piece of text.split(/\u0000(\d+)\u0000/).entries()) {
    const [i, value] = piece;
    if (i % 2 === 1) parts.push(`(${holes[Number(value)]})`);
    else if (value) parts.push(str(value));
  }
  return parts.length > 0 ? parts.join(' + ') : "''";
}

/** An RE2 character class of `chars` (code points), ranges merged. */
function re2Class(points: number[], negate = false): string {
  const parts: string[] = [];
  for (let i = 0; i < points.length; i++) {
    let j = i;
    while (j + 1 < points.length && points[j + 1] === points[j] + 1) j++;
    const hex = (n: number) => `\\x{${n.toString(16)}}`;
    parts.push(j > i ? `${hex(points[i])}-${hex(points[j])}` : hex(points[i]));
    i = j;
  }
  return `[${negate ? '^' : ''}${parts.join('')}]`;
}

const BMP = Array.from({ length: 0x10000 }, (_, i) => i).filter((i) => i < 0xd800 || i > 0xdfff);

/** JavaScript's whitespace (what `trim()` and `\s` strip), which RE2's `\s` does not match in full. */
const JS_SPACE = BMP.filter((i) => /\s/.test(String.fromCharCode(i)));

/** RE2: one character JavaScript calls whitespace, and one it does not. */
export const JS_WS = re2Class(JS_SPACE);
export const JS_NOT_WS = re2Class(JS_SPACE, true);

const lowerClasses = new Map<string, string>();

/**
 * RE2 for `text` (a literal, or with `pattern` an RE2 pattern in lower case) as JavaScript's
 * `toLowerCase()` finds it: each letter stands for every character that lowercases to it (`k` for K and
 * the Kelvin sign too); RE2's own case folding is wider (it folds ſ to s).
 */
export function reJsLower(text: string, { pattern = false } = {}): string {
  return [...text]
    .map((ch) => {
      // In a pattern only the letters change (it has no escapes with letters: a test holds the callers to it).
      if (!/[a-z]/.test(ch)) return pattern ? ch : reLiteral(ch);
      let cls = lowerClasses.get(ch);
      if (!cls) {
        cls = re2Class(BMP.filter((i) => String.fromCharCode(i).toLowerCase() === ch));
        lowerClasses.set(ch, cls);
      }
      return cls;
    })
    .join('');
}
