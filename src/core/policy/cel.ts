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
