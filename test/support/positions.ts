// Checks that a document's positional tree agrees with its loaded value: every key and value of the
// value has a span, and the text of that span, read again on its own, gives the same key or value.
import { isDeepStrictEqual } from 'node:util';
import type { ManifestDocument } from '../../src/core/manifest/document';
import { locate, spanFor, type Path } from '../../src/core/manifest/path';
import { keyString, type PNode } from '../../src/core/manifest/positional-tree';
import { load11 } from './yaml-gen';

/** The column of `pos` in `text`: re-reading a span at its own column keeps block scalars and plain continuations valid. */
function column(text: string, pos: number): number {
  return pos - (text.lastIndexOf('\n', pos - 1) + 1);
}

/** Reads a span of a document on its own, at its column. */
export function reread(text: string, start: number, end: number): unknown {
  const col = column(text, start);
  const source = ' '.repeat(col) + text.slice(start, end);
  try {
    return load11(source);
  } catch (e) {
    // Read at the top level, `--- text` and `... text` would be document markers: nest it instead.
    if (col === 0) throw e;
    return (load11(`k:\n${source}`) as { k: unknown }).k;
  }
}

/** The property name a key's text gives, read at its column (nested, so `--- x` is no document marker). */
function readKey(keyText: string, col: number): string {
  try {
    const v = load11(`k:\n${' '.repeat(col + 1)}${keyText}: 1`) as { k: object };
    return Object.keys(v.k)[0];
  } catch {
    return Object.keys(load11(`${' '.repeat(col)}${keyText}: 1`) as object)[0];
  }
}

function hasAlias(n: PNode): boolean {
  if (n.kind === 'alias') return true;
  if (n.kind === 'map') return n.pairs.some((p) => hasAlias(p.key) || hasAlias(p.value));
  if (n.kind === 'seq') return n.items.some(hasAlias);
  return false;
}

/** Strings equal, or equal but for line breaks that a `|+` scalar keeps past its underlined end. */
function sameScalar(read: unknown, value: unknown): boolean {
  if (isDeepStrictEqual(read, value)) return true;
  if (typeof read === 'number' && typeof value === 'number' && Number.isNaN(read) && Number.isNaN(value)) return true;
  if (
    typeof read === 'string' &&
    typeof value === 'string' &&
    value.startsWith(read) &&
    /^\n*$/.test(value.slice(read.length))
  )
    return true;
  if (value instanceof Uint8Array || value instanceof Date) return true;
  return false;
}

/**
 * Problems with a document's positions, as readable strings (empty when all is well):
 * - every node's span lies inside the document, children inside block parents, siblings in order;
 * - every key span holds exactly the key (re-read, it is the same property name);
 * - every path of the value has a value span; scalar ones re-read to the same value, flow
 *   collections to the same collection, block collections start at their first entry.
 */
export function positionProblems(doc: ManifestDocument, limit = 20): string[] {
  const problems: string[] = [];
  const text = doc.text;
  const root = doc.tree();
  const say = (s: string) => {
    if (problems.length < limit) problems.push(s);
  };
  if (!root) {
    if (doc.value !== null && doc.value !== undefined) say('no tree for a document with a value');
    return problems;
  }

  // Structure of the tree itself.
  const walk = (n: PNode, lo: number, hi: number, where: string) => {
    if (!(n.start >= 0 && n.start <= n.end && n.end <= text.length))
      say(`${where}: span ${n.start}-${n.end} outside the document (${text.length})`);
    if (n.start < lo || n.end > hi) say(`${where}: span ${n.start}-${n.end} outside its parent ${lo}-${hi}`);
    if (n.kind === 'alias' && text.slice(n.start, n.end) !== `*${n.name}`)
      say(`${where}: alias span holds ${JSON.stringify(text.slice(n.start, n.end))}`);
    if (n.kind === 'map' || n.kind === 'seq') {
      const children = n.kind === 'map' ? n.pairs.flatMap((p) => [p.key, p.value]) : n.items;
      let prev = n.start;
      for (const c of children) {
        if (c.start < prev) say(`${where}: child at ${c.start} starts before the previous one ends (${prev})`);
        prev = Math.max(prev, c.end);
      }
      children.forEach((c, i) => walk(c, n.start, n.end, `${where}/${i}`));
    }
  };
  walk(root, 0, text.length, '');

  const check = (v: unknown, path: Path) => {
    if (path.length > 0) {
      const where = JSON.stringify(path);
      const last = path[path.length - 1];
      let vs = spanFor(root, path, 'value');
      const ks = spanFor(root, path, 'key');
      if (!vs || !ks) return say(`${where}: no span`);
      if (text[vs.start] === '*') {
        // An alias is underlined where it is used; its value is read at the anchor.
        const target = locate(root, path).node;
        if (!target || text.slice(vs.start, vs.end) !== `*${/^\*([^\s,\]}]+)/.exec(text.slice(vs.start))?.[1]}`)
          return say(`${where}: alias span ${JSON.stringify(text.slice(vs.start, vs.end))}`);
        vs =
          target.kind === 'map' || target.kind === 'seq'
            ? { start: target.start, end: target.start }
            : { start: target.start, end: target.end };
        if (vs.start === vs.end) return;
      }
      if (typeof last === 'string') {
        // The key span holds the key and nothing else.
        let k: unknown;
        try {
          const keyNode = locate(root, path).pair?.key;
          // A multi-line flow key cannot be read on its own line: its decoded text must match instead.
          k =
            text.slice(ks.start, ks.end).includes('\n') && keyNode
              ? keyString(keyNode)
              : readKey(text.slice(ks.start, ks.end), column(text, ks.start));
        } catch (e) {
          return say(
            `${where}: key span ${JSON.stringify(text.slice(ks.start, ks.end))} is not a key: ${(e as Error).message.split('\n')[0]}`,
          );
        }
        if (k !== last)
          say(`${where}: key span ${JSON.stringify(text.slice(ks.start, ks.end))} reads as ${JSON.stringify(k)}`);
        const ps = spanFor(root, path, 'pair');
        if (!ps || ps.start !== ks.start || ps.end < vs.end)
          say(
            `${where}: pair span ${JSON.stringify(ps)} does not cover key ${JSON.stringify(ks)} and value ${JSON.stringify(vs)}`,
          );
      }
      const valueIsKey = typeof last === 'string' && vs.start === ks.start && vs.end === ks.end;
      if (v === null || typeof v !== 'object' || v instanceof Uint8Array || v instanceof Date) {
        if (valueIsKey || vs.start === vs.end) {
          // An empty value (`key:`, `-`) is underlined at its key, or is empty itself.
          if (!(v === null || v === '')) say(`${where}: value ${JSON.stringify(v)} has no span of its own`);
        } else {
          const slice = text.slice(vs.start, vs.end);
          if (/^(?:[&!][^\s]*\s+)*[|>][-+]?[1-9]/.test(slice)) {
            // An indentation indicator counts from the parent's indentation: the span does not read
            // the same on its own. Its decoded text must still be the value.
            const node = locate(root, path).node;
            if (!(node?.kind === 'scalar' && node.text === v))
              say(`${where}: block scalar ${JSON.stringify(slice)} decodes as ${JSON.stringify(node)}`);
            return;
          }
          let read: unknown;
          try {
            read = reread(text, vs.start, vs.end);
          } catch (e) {
            return say(
              `${where}: value span ${JSON.stringify(text.slice(vs.start, vs.end))} does not read: ${(e as Error).message.split('\n')[0]}`,
            );
          }
          if (!sameScalar(read, v) && column(text, vs.start) > 0) {
            // js-yaml reads an indented `---` at the top level as a marker: read it nested instead.
            try {
              read = (load11(`k:\n${' '.repeat(column(text, vs.start))}${slice}`) as { k: unknown }).k;
            } catch {
              // keep the first reading
            }
          }
          if (!sameScalar(read, v))
            say(
              `${where}: value span ${JSON.stringify(text.slice(vs.start, vs.end))} reads as ${JSON.stringify(read)}, value is ${JSON.stringify(v)}`,
            );
        }
      } else {
        const slice = text.slice(vs.start, vs.end);
        if (slice.startsWith('{') || slice.startsWith('[') || /^[&!][^\s]*\s+[[{]/.test(slice)) {
          // A flow collection is underlined whole: it reads back as the value (if no alias is inside).
          let read: unknown;
          try {
            read = load11(slice);
          } catch (e) {
            if (!/alias/.test((e as Error).message))
              say(`${where}: flow span ${JSON.stringify(slice)} does not read: ${(e as Error).message.split('\n')[0]}`);
            read = v;
          }
          if (!isDeepStrictEqual(read, v) && !slice.includes('*'))
            say(`${where}: flow span ${JSON.stringify(slice)} reads as ${JSON.stringify(read)}`);
        } else if (slice.includes('\n') && !/[|>]/.test(slice)) {
          // Only the first line is underlined, unless the first entry is itself a multi-line scalar.
          const n = locate(root, path).node;
          const first = n?.kind === 'map' ? n.pairs[0]?.key : n?.kind === 'seq' ? n.items[0] : undefined;
          const multiLineFirst = first?.kind === 'scalar' && text.slice(first.start, first.end).includes('\n');
          const firstOnNextLine = first !== undefined && text.slice(vs.start, first.start).includes('\n'); // `-` alone, entry below
          if (!multiLineFirst && !firstOnNextLine)
            say(`${where}: block collection underlined over several lines: ${JSON.stringify(slice)}`);
        }
      }
    }
    if (Array.isArray(v)) v.forEach((x, i) => check(x, [...path, i]));
    else if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof Date)) {
      for (const k of Object.keys(v)) check((v as Record<string, unknown>)[k], [...path, k]);
    }
  };
  check(doc.value, []);

  // Block collections without aliases read back whole from their span.
  const whole = (n: PNode, where: string) => {
    if (
      (n.kind === 'map' || n.kind === 'seq') &&
      !n.flow &&
      !hasAlias(n) &&
      n.anchor === undefined &&
      n.tag === undefined
    ) {
      try {
        reread(text, n.start, n.end);
      } catch (e) {
        say(
          `${where}: block ${n.kind} span ${JSON.stringify(text.slice(n.start, n.end).slice(0, 80))} does not read: ${(e as Error).message.split('\n')[0]}`,
        );
      }
    }
    if (n.kind === 'map') n.pairs.forEach((p, i) => whole(p.value, `${where}/${i}`));
    else if (n.kind === 'seq') n.items.forEach((c, i) => whole(c, `${where}/${i}`));
  };
  whole(root, '');
  return problems;
}
