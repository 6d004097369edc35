import { deref, isMergeKey, keyString, type PMap, type PNode, type PPair, type PSeq } from './positional-tree';
import type { Span } from './text';

/** A path into a document value: map keys and sequence indexes, e.g. `['spec', 'containers', 0, 'image']`. */
export type Path = readonly (string | number)[];

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function getAt(value: unknown, path: Path): unknown {
  let v = value;
  for (const seg of path) {
    if (typeof seg === 'number') {
      if (!Array.isArray(v)) return undefined;
      v = v[seg];
    } else {
      if (!isObj(v) || !Object.prototype.hasOwnProperty.call(v, seg)) return undefined;
      v = v[seg];
    }
  }
  return v;
}

export function pathString(path: Path): string {
  let s = '';
  for (const seg of path) s += typeof seg === 'number' ? `[${seg}]` : s ? `.${seg}` : seg;
  return s;
}

/**
 * The path a field path string (pathString's output) names in `value`. Keys may hold dots
 * (`nodeSelector.kubernetes.io/os`), so each key is read as the longest key of the map at hand that
 * the text continues with; past the end of the value, segments split at every dot.
 */
export function parseFieldPath(value: unknown, text: string): Path {
  const out: (string | number)[] = [];
  let v = value;
  let i = 0;
  while (i < text.length) {
    if (text[i] === '[') {
      const close = text.indexOf(']', i);
      const n = Number(text.slice(i + 1, close));
      if (close < 0 || !Number.isInteger(n)) break;
      out.push(n);
      v = Array.isArray(v) ? v[n] : undefined;
      i = close + 1;
      continue;
    }
    if (text[i] === '.') i++;
    const ends = (k: string) =>
      text.startsWith(k, i) &&
      (i + k.length === text.length || text[i + k.length] === '.' || text[i + k.length] === '[');
    let key = isObj(v)
      ? Object.keys(v)
          .filter(ends)
          .sort((a, b) => b.length - a.length)[0]
      : undefined;
    if (key === undefined) {
      const stop = text.slice(i).search(/[.[]/);
      key = stop < 0 ? text.slice(i) : text.slice(i, i + stop);
    }
    out.push(key);
    v = isObj(v) ? v[key] : undefined;
    i += key.length;
  }
  return out;
}

/** What a path points at in the positional tree. */
export interface Located {
  /** The node at the path (aliases followed), if the whole path exists. */
  node?: PNode;
  /** The pair whose value is the node, when the last segment is a key. */
  pair?: PPair;
  /** The collection holding the node. */
  parent?: PMap | PSeq;
  /** Index of the pair or item in its parent. */
  index: number;
  /** How many segments were found; equals `path.length` when the path exists. */
  depth: number;
  /** The deepest pair found on the way, for a fallback range. */
  lastPair?: PPair;
  /** True when the walk went through an alias: edits there would change every use of the anchor. */
  viaAlias: boolean;
  /**
   * Set when only the last segment came from a `<<` merge and nothing before it through an alias:
   * the map that holds the merge key, where a new key overrides the merged one.
   */
  mergeHost?: PMap;
}

export function locate(root: PNode | undefined, path: Path): Located {
  const out: Located = { index: -1, depth: 0, viaAlias: false };
  let node = root;
  if (node?.kind === 'alias') out.viaAlias = true;
  node = deref(node);
  out.node = node;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (!node) return { ...out, node: undefined };
    let next: PNode | undefined;
    if (node.kind === 'map' && typeof seg === 'string') {
      let found = findKey(node, seg);
      if (!found) {
        found = findMerged(node, seg, 0);
        if (!found) return { ...out, node: undefined };
        if (i === path.length - 1 && !out.viaAlias) out.mergeHost = node;
        if (found.viaAlias) out.viaAlias = true;
      }
      out.pair = found.map.pairs[found.index];
      out.lastPair = out.pair;
      out.parent = found.map;
      out.index = found.index;
      next = out.pair.value;
    } else if (node.kind === 'seq' && typeof seg === 'number' && seg >= 0 && seg < node.items.length) {
      out.pair = undefined;
      out.parent = node;
      out.index = seg;
      next = node.items[seg];
    } else {
      return { ...out, node: undefined };
    }
    if (next.kind === 'alias') out.viaAlias = true;
    node = deref(next);
    out.node = node;
    out.depth = i + 1;
  }
  return out;
}

interface Found {
  map: PMap;
  index: number;
  viaAlias: boolean;
}

function findKey(map: PMap, key: string): Found | undefined {
  // Last wins, as in the loader; duplicate keys are a parse error anyway.
  for (let i = map.pairs.length - 1; i >= 0; i--) {
    if (keyString(map.pairs[i].key) === key) return { map, index: i, viaAlias: false };
  }
  return undefined;
}

/**
 * A key that `map` only has through its `<<` merge keys. As in the loader, keys of the map itself
 * win (the caller looked there first), and in `<<: [*a, *b]` the earlier source wins.
 */
function findMerged(map: PMap, key: string, depth: number): Found | undefined {
  if (depth > 16) return undefined;
  for (const pair of map.pairs) {
    if (!isMergeKey(pair.key)) continue;
    const value = deref(pair.value);
    const sources = value?.kind === 'seq' ? value.items : [pair.value];
    for (const source of sources) {
      const target = deref(source);
      if (target?.kind !== 'map' || target === map) continue;
      const viaAlias = source.kind === 'alias' || pair.value.kind === 'alias';
      const found = findKey(target, key) ?? findMerged(target, key, depth + 1);
      if (found) return { ...found, viaAlias: found.viaAlias || viaAlias };
    }
  }
  return undefined;
}

export type Target = 'key' | 'value' | 'pair';

/**
 * The span to underline for a path: the key (default), the value, or the whole pair.
 * When the path does not fully exist, falls back to the key of the deepest pair that does.
 */
export function spanFor(root: PNode | undefined, path: Path, target: Target = 'key'): Span | undefined {
  const loc = locate(root, path);
  if (loc.depth === path.length && (loc.node || loc.pair)) {
    const pair = loc.pair;
    const valueNode = pair ? pair.value : loc.node;
    if (target === 'key' && pair) return { start: pair.key.start, end: pair.key.end };
    if (target === 'pair' && pair) return { start: pair.key.start, end: Math.max(pair.key.end, pair.value.end) };
    if (valueNode) {
      // An empty value (`key:`) has no text of its own: underline its key.
      const v =
        valueNode.kind === 'scalar' && valueNode.empty && valueNode.start === valueNode.end && pair
          ? pair.key
          : valueNode;
      if ((v.kind === 'map' || v.kind === 'seq') && !v.flow) return { start: v.contentStart, end: firstLineEnd(v) };
      return { start: v.start, end: v.end };
    }
  }
  if (loc.lastPair) return { start: loc.lastPair.key.start, end: loc.lastPair.key.end };
  if (root) return { start: root.start, end: root.start };
  return undefined;
}

/** A block collection spans many lines; underline only its first line (its first key, or first item). */
function firstLineEnd(node: PMap | PSeq): number {
  if (node.flow) return node.end;
  const first = node.kind === 'map' ? node.pairs[0]?.key : node.items[0];
  if (!first) return node.end;
  if ((first.kind === 'map' || first.kind === 'seq') && !first.flow) return Math.max(firstLineEnd(first), node.start);
  return Math.max(first.end, node.start);
}
