/**
 * The node under the cursor, from the parsed document: for hover, where the text usually parses. It
 * loads the one document holding the offset and walks its positional tree. Completion, which must
 * answer while the text does not parse, reads lines instead (./context.ts).
 */
import { loadDocument, type ManifestDocument } from '../manifest/document';
import { getAt } from '../manifest/path';
import { splitDocuments } from '../manifest/split';
import type { Span } from '../manifest/text';
import { deref, isMergeKey, keyString, type PNode } from '../manifest/positional-tree';
import type { Segment } from './context';

export interface NodeAt {
  /** Path of the node in the document value. */
  path: Segment[];
  /** Whether the offset is on the key of a pair or on a value (a scalar or alias value, or a sequence item). */
  target: 'key' | 'value';
  /** The key's or the value's span, in file offsets. */
  span: Span;
  /** The plain value at `path` (for a key, the value of its pair). */
  value: unknown;
  /** The last key of the path, when it ends with one. */
  key?: string;
  /** The parsed document holding the node. */
  document: ManifestDocument;
}

/**
 * The innermost key or scalar value at `offset`, from the positional tree of the one document that
 * holds the offset. Undefined when that document does not parse, or the offset is on no key or value.
 */
export function nodeAt(text: string, offset: number): NodeAt | undefined {
  try {
    const spans = splitDocuments(text);
    if (spans.length === 0) return undefined;
    let i = spans.findIndex((sp) => offset >= sp.start && offset < sp.end);
    if (i === -1) {
      if (offset !== text.length) return undefined;
      i = spans.length - 1;
    }
    const span = spans[i];
    const doc = loadDocument(text, span, i);
    if (!doc || doc.status !== 'ok') return undefined;
    const root = doc.tree();
    if (!root) return undefined;
    const found = walk(root, offset - span.start, []);
    if (!found) return undefined;
    const last = found.path[found.path.length - 1];
    return {
      path: found.path,
      target: found.target,
      span: { start: found.span.start + span.start, end: found.span.end + span.start },
      value: getAt(doc.value, found.path),
      ...(typeof last === 'string' ? { key: last } : {}),
      document: doc,
    };
  } catch {
    return undefined;
  }
}

interface Hit {
  path: Segment[];
  target: 'key' | 'value';
  span: Span;
}

function contains(node: PNode, rel: number): boolean {
  return node.start <= rel && rel < node.end;
}

function walk(node: PNode, rel: number, path: Segment[]): Hit | undefined {
  for (let depth = 0; depth < 512; depth++) {
    if (node.kind === 'scalar' || node.kind === 'alias') {
      return contains(node, rel) ? { path, target: 'value', span: { start: node.start, end: node.end } } : undefined;
    }
    let next: PNode | undefined;
    let seg: Segment | undefined;
    if (node.kind === 'map') {
      for (const pair of node.pairs) {
        if (isMergeKey(pair.key)) continue;
        const key = keyString(pair.key);
        if (key === undefined) continue;
        if (contains(pair.key, rel))
          return { path: [...path, key], target: 'key', span: { start: pair.key.start, end: pair.key.end } };
        if (contains(pair.value, rel)) {
          next = pair.value;
          seg = key;
          break;
        }
      }
    } else {
      for (let i = 0; i < node.items.length; i++) {
        if (contains(node.items[i], rel)) {
          next = node.items[i];
          seg = i;
          break;
        }
      }
    }
    if (!next || seg === undefined) return undefined;
    path = [...path, seg];
    if (next.kind === 'alias') return { path, target: 'value', span: { start: next.start, end: next.end } };
    node = deref(next) ?? next;
  }
  return undefined;
}
