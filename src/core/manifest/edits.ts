import { dump } from 'js-yaml';
import { locate, type Path } from './path';
import { deref, type PMap, type PNode, type PSeq } from './tree';
import type { Span } from './text';

/**
 * Structural edits that rules ask for. They are turned into minimal text edits against the
 * original document text, so the user's formatting, comments and indentation stay as they were.
 */
export type EditOp =
  /** Remove a map entry or sequence item. Ancestors left empty are removed too, down to `keep` path segments. */
  | { op: 'delete'; path: Path; keep?: number }
  /** Set a value, creating missing maps on the way. `first` puts a new key before its siblings. */
  | { op: 'set'; path: Path; value: unknown; first?: boolean }
  /** Rename a key, keeping its value. */
  | { op: 'renameKey'; path: Path; newKey: string }
  /** Replace a map entry by another key and value at the same place. */
  | { op: 'replacePair'; path: Path; key: string; value: unknown }
  /** Append an item to a sequence, creating it when missing. */
  | { op: 'append'; path: Path; value: unknown };

export interface TextEdit {
  span: Span;
  newText: string;
}

export class EditError extends Error {}

export interface EditContext {
  /** The document text the tree was built from. */
  text: string;
  root: PNode | undefined;
  newline: string;
}

/** Turns one op into text edits with spans relative to the document text. Throws EditError when unsafe. */
export function opToEdits(ctx: EditContext, op: EditOp): TextEdit[] {
  switch (op.op) {
    case 'delete':
      return deleteAt(ctx, op.path, op.keep ?? 0);
    case 'set':
      return setAt(ctx, op.path, op.value, op.first ?? false);
    case 'renameKey': {
      const loc = mustLocate(ctx, op.path);
      if (!loc.pair) throw new EditError('not a map entry');
      return [{ span: { start: loc.pair.key.start, end: loc.pair.key.end }, newText: renderKey(op.newKey) }];
    }
    case 'replacePair': {
      const loc = mustLocate(ctx, op.path);
      if (!loc.pair || !loc.parent || loc.parent.kind !== 'map') throw new EditError('not a map entry');
      const pair = loc.pair;
      const text = loc.parent.flow
        ? `${renderKey(op.key)}: ${renderFlow(op.value)}`
        : renderPairBlock(ctx, op.key, op.value, column(ctx.text, pair.key.start), indentUnit(ctx, loc.parent));
      return [{ span: { start: pair.key.start, end: pairEnd(pair.value, pair.key) }, newText: text }];
    }
    case 'append':
      return appendAt(ctx, op.path, op.value);
  }
}

function mustLocate(ctx: EditContext, path: Path) {
  const loc = locate(ctx.root, path);
  if (loc.depth !== path.length) throw new EditError(`path not found`);
  if (loc.viaAlias) throw new EditError('the value comes from an alias; edit the anchor instead');
  return loc;
}

// ---------------------------------------------------------------------------------------------
// delete

function deleteAt(ctx: EditContext, path: Path, keep: number): TextEdit[] {
  // Climb while the parent would be left empty, so `securityContext: {privileged: true}` goes whole.
  let p = path;
  while (p.length - 1 > keep) {
    const parent = locate(ctx.root, p.slice(0, -1));
    const n = parent.node;
    const size = n?.kind === 'map' ? n.pairs.length : n?.kind === 'seq' ? n.items.length : -1;
    if (size !== 1) break;
    p = p.slice(0, -1);
  }
  const loc = mustLocate(ctx, p);
  const parent = loc.parent;
  if (!parent) throw new EditError('cannot delete the document root');
  const { text } = ctx;
  const entries: { start: number; end: number }[] =
    parent.kind === 'map'
      ? parent.pairs.map((pr) => ({ start: pr.key.start, end: pairEnd(pr.value, pr.key) }))
      : parent.items.map((it) => ({ start: it.start, end: it.end }));
  const i = loc.index;
  const cur = entries[i];

  if (parent.flow) {
    if (entries.length === 1) return [{ span: { start: cur.start, end: cur.end }, newText: '' }];
    if (i > 0) return [{ span: { start: entries[i - 1].end, end: cur.end }, newText: '' }];
    return [{ span: { start: cur.start, end: entries[i + 1].start }, newText: '' }];
  }

  // Block style. For a sequence item, the entry starts at its `-` indicator.
  let start = cur.start;
  if (parent.kind === 'seq') start = dashBefore(text, cur.start);
  const ls = lineStart(text, start);
  const prefix = text.slice(ls, start);
  if (/^[ \t]*$/.test(prefix)) {
    // The entry owns its lines: remove them whole, with trailing comment and newline.
    return [{ span: { start: ls, end: lineEndInclusive(text, cur.end) }, newText: '' }];
  }
  // The entry shares its line with a `- ` indicator (first key of a sequence item map).
  if (i + 1 < entries.length) return [{ span: { start: cur.start, end: entries[i + 1].start }, newText: '' }];
  throw new EditError('cannot delete this entry without reformatting');
}

/** End of an entry: the value's end, or the key's end for an empty value. */
function pairEnd(value: PNode, key: PNode): number {
  if (value.kind === 'scalar' && value.empty) return Math.max(key.end, value.end);
  return Math.max(value.end, key.end);
}

function dashBefore(text: string, pos: number): number {
  let i = pos - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  return i >= 0 && text[i] === '-' ? i : pos;
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** Offset just past the newline that ends the line containing `pos - 1`. */
function lineEndInclusive(text: string, pos: number): number {
  const nl = text.indexOf('\n', Math.max(pos - 1, 0));
  return nl === -1 ? text.length : nl + 1;
}

function column(text: string, pos: number): number {
  return pos - lineStart(text, pos);
}

// ---------------------------------------------------------------------------------------------
// set / append

function setAt(ctx: EditContext, path: Path, value: unknown, first: boolean): TextEdit[] {
  const loc = locate(ctx.root, path);
  if (loc.viaAlias) throw new EditError('the value comes from an alias; edit the anchor instead');
  if (loc.depth === path.length && loc.pair) {
    return replaceValue(ctx, loc.pair.key, loc.pair.value, loc.parent as PMap, value);
  }
  if (loc.depth === path.length && loc.parent?.kind === 'seq' && loc.node) {
    if (isScalarValue(value)) return [{ span: { start: loc.node.start, end: loc.node.end }, newText: renderScalar(value) }];
    throw new EditError('cannot replace a sequence item with a collection');
  }
  // Find the deepest existing map and insert the remaining path as nested maps.
  const depth = loc.depth;
  const existing = locate(ctx.root, path.slice(0, depth));
  const host = existing.node;
  const rest = path.slice(depth);
  if (typeof rest[0] !== 'string' || rest.slice(1).some((s) => typeof s !== 'string')) {
    throw new EditError('cannot create sequence items');
  }
  let nested: unknown = value;
  for (let k = rest.length - 1; k >= 1; k--) nested = { [rest[k] as string]: nested };
  const key = rest[0] as string;
  if (host?.kind === 'map') return insertPair(ctx, host, key, nested, first);
  if (host?.kind === 'scalar' && host.empty && existing.pair) {
    return replaceValue(ctx, existing.pair.key, host, existing.parent as PMap, { [key]: nested });
  }
  throw new EditError('no map to insert into');
}

function appendAt(ctx: EditContext, path: Path, value: unknown): TextEdit[] {
  const loc = locate(ctx.root, path);
  if (loc.viaAlias) throw new EditError('the value comes from an alias; edit the anchor instead');
  const node = loc.depth === path.length ? loc.node : undefined;
  if (!node || (node.kind === 'scalar' && node.empty)) return setAt(ctx, path, [value], false);
  if (node.kind !== 'seq') throw new EditError('not a sequence');
  const seq: PSeq = node;
  if (seq.flow) {
    const close = seq.end - 1;
    const sep = seq.items.length > 0 ? ', ' : '';
    const at = seq.items.length > 0 ? seq.items[seq.items.length - 1].end : close;
    return [{ span: { start: at, end: at }, newText: `${sep}${renderFlow(value)}` }];
  }
  const last = seq.items[seq.items.length - 1];
  const dash = dashBefore(ctx.text, seq.items[0].start);
  const col = column(ctx.text, dash);
  const unit = Math.max(2, column(ctx.text, seq.items[0].start) - col);
  const at = lineEndInclusive(ctx.text, last.end);
  const body = renderBlock(value, col + unit, ctx.newline).replace(/^ +/, '');
  const lead = at === ctx.text.length && !ctx.text.endsWith('\n') ? ctx.newline : '';
  return [{ span: { start: at, end: at }, newText: `${lead}${' '.repeat(col)}-${' '.repeat(unit - 1)}${body}${ctx.newline}` }];
}

function insertPair(ctx: EditContext, map: PMap, key: string, value: unknown, first: boolean): TextEdit[] {
  if (map.flow) {
    const close = map.end - 1;
    if (map.pairs.length === 0) return [{ span: { start: close, end: close }, newText: `${renderKey(key)}: ${renderFlow(value)}` }];
    if (first) {
      const at = map.pairs[0].key.start;
      return [{ span: { start: at, end: at }, newText: `${renderKey(key)}: ${renderFlow(value)}, ` }];
    }
    const lastPair = map.pairs[map.pairs.length - 1];
    const at = pairEnd(lastPair.value, lastPair.key);
    return [{ span: { start: at, end: at }, newText: `, ${renderKey(key)}: ${renderFlow(value)}` }];
  }
  if (map.pairs.length === 0) throw new EditError('empty block map');
  const col = column(ctx.text, map.pairs[0].key.start);
  const unit = indentUnit(ctx, map);
  const body = renderPairBlock(ctx, key, value, col, unit);
  if (first) {
    const at = map.pairs[0].key.start;
    return [{ span: { start: at, end: at }, newText: `${body}${ctx.newline}${' '.repeat(col)}` }];
  }
  const lastPair = map.pairs[map.pairs.length - 1];
  const at = lineEndInclusive(ctx.text, pairEnd(lastPair.value, lastPair.key));
  const lead = at === ctx.text.length && !ctx.text.endsWith('\n') ? ctx.newline : '';
  return [{ span: { start: at, end: at }, newText: `${lead}${' '.repeat(col)}${body}${ctx.newline}` }];
}

function replaceValue(ctx: EditContext, key: PNode, old: PNode, parent: PMap, value: unknown): TextEdit[] {
  if (isScalarValue(value) || parent.flow) {
    const text = isScalarValue(value) ? renderScalar(value) : renderFlow(value);
    if (old.kind === 'scalar' && old.empty) {
      return [{ span: { start: old.start, end: old.end }, newText: ` ${text}` }];
    }
    if (old.kind === 'map' || old.kind === 'seq') {
      const colon = ctx.text.indexOf(':', key.end);
      return [{ span: { start: colon + 1, end: old.end }, newText: ` ${text}` }];
    }
    return [{ span: { start: old.start, end: old.end }, newText: text }];
  }
  // A collection in a block map: write it as a nested block under the key.
  const col = column(ctx.text, key.start);
  const unit = indentUnit(ctx, parent);
  const colon = ctx.text.indexOf(':', key.end);
  const block = renderBlock(value, col + unit, ctx.newline);
  const end = old.kind === 'scalar' && old.empty ? old.end : trimTrailing(ctx.text, old.end);
  return [{ span: { start: colon + 1, end }, newText: `${ctx.newline}${block}` }];
}

function trimTrailing(text: string, end: number): number {
  let e = end;
  while (e > 0 && (text[e - 1] === '\n' || text[e - 1] === '\r')) e--;
  return e;
}

function indentUnit(ctx: EditContext, map: PMap): number {
  // Look for a nested block map or sequence to learn the file's indentation step.
  for (const pr of map.pairs) {
    const v = deref(pr.value);
    if (v && (v.kind === 'map' || v.kind === 'seq') && !v.flow) {
      const first = v.kind === 'map' ? v.pairs[0]?.key : v.items[0];
      if (!first) continue;
      const start = v.kind === 'seq' ? dashBefore(ctx.text, first.start) : first.start;
      const d = column(ctx.text, start) - column(ctx.text, pr.key.start);
      if (d > 0) return d;
      if (d === 0 && v.kind === 'seq') continue;
    }
  }
  return 2;
}

// ---------------------------------------------------------------------------------------------
// rendering

function isScalarValue(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

export function renderScalar(v: unknown): string {
  return dump(v, { lineWidth: -1 }).replace(/\n$/, '');
}

function renderKey(k: string): string {
  return renderScalar(k);
}

function renderFlow(v: unknown): string {
  if (isScalarValue(v)) return renderScalar(v);
  return dump(v, { flowLevel: 0, lineWidth: -1 }).replace(/\n$/, '');
}

/** `key: value` at column `col` (the first line carries no indentation; the caller places it). */
function renderPairBlock(ctx: EditContext, key: string, value: unknown, col: number, unit: number): string {
  if (isScalarValue(value) || (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && Object.keys(value).length === 0)) {
    return `${renderKey(key)}: ${renderFlow(value)}`;
  }
  return `${renderKey(key)}:${ctx.newline}${renderBlock(value, col + unit, ctx.newline)}`;
}

/** A collection in block style, every line indented by `indent`, no trailing newline. */
function renderBlock(value: unknown, indent: number, newline: string): string {
  const out = dump(value, { indent: 2, lineWidth: -1, noRefs: true }).replace(/\n$/, '');
  const pad = ' '.repeat(indent);
  return out
    .split('\n')
    .map((l) => pad + l)
    .join(newline);
}

/** Applies non-overlapping edits to a text; edits are sorted here. Throws on overlap. */
export function applyTextEdits(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
  let out = '';
  let pos = 0;
  for (const e of sorted) {
    if (e.span.start < pos) throw new EditError('overlapping edits');
    out += text.slice(pos, e.span.start) + e.newText;
    pos = e.span.end;
  }
  return out + text.slice(pos);
}
