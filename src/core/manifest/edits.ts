import { locate, type Located, type Path } from './path';
import { deref, type PMap, type PNode, type PPair, type PSeq } from './positional-tree';
import type { Span } from './text';
import { writeYaml } from './yaml-writer';

/**
 * Structural edits that rules ask for. They are turned into minimal text edits against the
 * original document text, so the user's formatting, comments and indentation stay as they were.
 */
export type EditOp =
  /**
   * Remove a map entry or sequence item. Ancestors left empty are removed too, but not the one at
   * `keep` path segments: emptied, it stays as `key:` (`{}` in flow style), for other ops to fill.
   */
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
      const key = loc.pair.key;
      if (key.kind !== 'scalar' || key.anchor !== undefined || key.tag !== undefined || key.start === key.end)
        throw new EditError('the key is not a plain scalar');
      const inFlow = loc.parent?.kind === 'map' && loc.parent.flow;
      return [
        { span: { start: key.start, end: key.end }, newText: inFlow ? renderFlowKey(op.newKey) : renderKey(op.newKey) },
      ];
    }
    case 'replacePair': {
      const loc = mustLocate(ctx, op.path);
      if (!loc.pair || !loc.parent || loc.parent.kind !== 'map') throw new EditError('not a map entry');
      const pair = loc.pair;
      if (pair.key.start === pair.key.end) throw new EditError('the entry has no key');
      const end = pairEnd(pair);
      assertNoAnchorUsedOutside(pair.key.start, end, [pair.key, pair.value]);
      if (loc.parent.flow)
        return [{ span: { start: pair.key.start, end }, newText: `${renderFlowKey(op.key)}: ${renderFlow(op.value)}` }];
      if (!/^[ \t]*(?:-[ \t]+)*$/.test(ctx.text.slice(lineStart(ctx.text, pair.key.start), pair.key.start)))
        throw new EditError('cannot replace a `? ` entry without reformatting');
      const col = column(ctx.text, pair.key.start);
      const unit = indentUnit(ctx, loc.parent);
      return [
        withTrailingComment(
          ctx,
          { start: pair.key.start, end },
          `${renderKey(op.key)}:${renderAfterKey(op.value, col, unit, ctx.newline)}`,
        ),
      ];
    }
    case 'append':
      return appendAt(ctx, op.path, op.value);
  }
}

function mustLocate(ctx: EditContext, path: Path): Located {
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
  const entries: { start: number; end: number; nodes: PNode[] }[] =
    parent.kind === 'map'
      ? parent.pairs.map((pr) => ({ start: pr.key.start, end: pairEnd(pr), nodes: [pr.key, pr.value] }))
      : parent.items.map((it) => ({ start: it.start, end: it.end, nodes: [it] }));
  const i = loc.index;
  const cur = entries[i];
  assertNoAnchorUsedOutside(cur.start, cur.end, cur.nodes);
  if (parent.kind === 'map' && parent.implicit)
    throw new EditError('cannot delete from a `[key: value]` pair without reformatting');

  if (parent.flow) {
    if (entries.length === 1) {
      // `{a: 1, }`: the trailing comma goes too.
      const comma = flowComma(text, cur.end);
      let end = comma === -1 ? cur.end : comma + 1;
      if (comma !== -1) while (text[end] === ' ' || text[end] === '\t') end++;
      return [{ span: { start: cur.start, end }, newText: '' }];
    }
    if (i > 0) {
      const prev = entries[i - 1];
      // Keep comments between the entries: then remove only the separating comma and the entry.
      if (!text.slice(prev.end, cur.start).includes('#'))
        return [{ span: { start: prev.end, end: cur.end }, newText: '' }];
      const comma = flowComma(text, prev.end);
      if (comma === -1) throw new EditError('cannot find the separator');
      return [
        { span: { start: comma, end: comma + 1 }, newText: '' },
        { span: { start: cur.start, end: cur.end }, newText: '' },
      ];
    }
    const next = entries[i + 1];
    if (!text.slice(cur.end, next.start).includes('#'))
      return [{ span: { start: cur.start, end: next.start }, newText: '' }];
    const comma = flowComma(text, cur.end);
    if (comma === -1) throw new EditError('cannot find the separator');
    return [{ span: { start: cur.start, end: comma + 1 }, newText: '' }];
  }

  // Block style. For a sequence item, the entry starts at its `-` indicator.
  let start = cur.start;
  if (parent.kind === 'seq') start = dashBefore(text, cur.start);
  const ls = lineStart(text, start);
  const last = cur.nodes[cur.nodes.length - 1];
  const after = entryLineEnd(text, cur.end, last);
  if (isBlank(text, ls, start)) {
    // The entry owns its lines: remove them whole, with trailing comment and newline. At the end
    // of a text without a final newline, take the newline before instead, so none is added.
    // (Not after a block scalar: its value would lose its final line break.)
    const joinBefore =
      after === text.length &&
      !endsWithNewline(text) &&
      ls > 0 &&
      !(i > 0 && endsWithBlockScalar(entries[i - 1].nodes[entries[i - 1].nodes.length - 1]));
    // When this was the only entry (the cascade stopped at `keep`), its key is left with an empty
    // value (`key:`): other ops of the same fix can add entries under it, and alone it reads as null.
    const whole = joinBefore ? { start: newlineBefore(text, ls), end: after } : { start: ls, end: after };
    return [{ span: whole, newText: '' }];
  }
  // The entry shares its line with `- ` indicators (first key of a sequence item map, `- - item`).
  if (!/^[ \t]*(?:-[ \t]+)+$/.test(text.slice(ls, start)))
    throw new EditError('cannot delete this entry without reformatting');
  if (i + 1 < entries.length) {
    const next = entries[i + 1];
    const between = text.slice(after, next.start);
    // The next entry moves up onto this line: from this key to the next, or from this `-` to the next.
    const span =
      parent.kind === 'seq' ? { start, end: dashBefore(text, next.start) } : { start: cur.start, end: next.start };
    const edits: TextEdit[] = [{ span, newText: '' }];
    if (between.includes('#')) {
      // Comment lines between this entry and the next would be lost: move them above the item.
      edits.push({ span: { start: ls, end: ls }, newText: between.slice(0, lineStart(between, between.length)) });
    }
    return edits;
  }
  // The only entry of a collection on a `- ` line (`- key: value`, `- - item`), and the item stays
  // (`keep`): as for a key above, the item is left empty (`-`), ready for other ops to fill.
  const dash = dashBefore(text, parent.kind === 'seq' ? start : cur.start);
  if (dash === start || dash === cur.start) throw new EditError('cannot delete this entry without reformatting');
  const tail = last.tailEnd;
  return [{ span: { start: dash + 1, end: tail ?? cur.end }, newText: tail !== undefined ? ctx.newline : '' }];
}

function endsWithBlockScalar(node: PNode): boolean {
  let n: PNode | undefined = node;
  while (n && (n.kind === 'map' || n.kind === 'seq') && !n.flow)
    n = n.kind === 'map' ? n.pairs[n.pairs.length - 1]?.value : n.items[n.items.length - 1];
  return n?.kind === 'scalar' && n.style >= 4;
}

/** End of an entry: the value's end, or the key's end for an empty value. */
function pairEnd(pair: PPair): number {
  return Math.max(pair.value.end, pair.key.end);
}

/** Offset just past the line break that ends an entry (a `|+` scalar's blank lines included). */
function entryLineEnd(text: string, end: number, last: PNode): number {
  const tail = last.tailEnd;
  if (tail !== undefined && tail >= end) return tail;
  return lineEndInclusive(text, end);
}

/** The `,` separating flow entries, searched from `from` past blanks and comments. */
function flowComma(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === ',') return i;
    if (c === '#') {
      const nl = text.indexOf('\n', i);
      i = nl === -1 ? text.length : nl;
    } else if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
    else return -1;
  }
  return -1;
}

function colonAfter(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return text[i] === ':' ? i : -1;
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

function newlineBefore(text: string, ls: number): number {
  return ls >= 2 && text[ls - 2] === '\r' ? ls - 2 : ls - 1;
}

function endsWithNewline(text: string): boolean {
  return text.endsWith('\n');
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] !== ' ' && text[i] !== '\t') return false;
  return true;
}

function column(text: string, pos: number): number {
  return pos - lineStart(text, pos);
}

/**
 * Removing or replacing [start, end) must not touch an anchor that an alias elsewhere uses: removing
 * it leaves the document unreadable, and replacing its value would change every alias too (a fix
 * changes its own path and nothing else).
 */
function assertNoAnchorUsedOutside(start: number, end: number, nodes: PNode[]): void {
  const stack = [...nodes];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.aliases?.some((a) => a.start < start || a.start >= end)) {
      throw new EditError(`the anchor &${n.anchor ?? ''} is used elsewhere; edit it by hand`);
    }
    if (n.kind === 'map') for (const p of n.pairs) stack.push(p.key, p.value);
    else if (n.kind === 'seq') stack.push(...n.items);
  }
}

// ---------------------------------------------------------------------------------------------
// set / append

function setAt(ctx: EditContext, path: Path, value: unknown, first: boolean): TextEdit[] {
  const loc = locate(ctx.root, path);
  if (loc.depth === path.length && loc.mergeHost) {
    // The key only comes from a `<<` merge: override it in the map that merges.
    const key = path[path.length - 1];
    if (typeof key === 'string') return insertPair(ctx, loc.mergeHost, key, value, first);
  }
  if (loc.viaAlias) throw new EditError('the value comes from an alias; edit the anchor instead');
  if (loc.depth === path.length && loc.pair) {
    return replaceValue(ctx, loc.pair.key, loc.pair.value, loc.parent as PMap, value);
  }
  if (loc.depth === path.length && loc.parent?.kind === 'seq' && loc.node) {
    return replaceItem(ctx, loc.parent, loc.index, value);
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
  if (host?.kind === 'scalar' && isNullScalar(host) && existing.pair) {
    return replaceValue(ctx, existing.pair.key, host, existing.parent as PMap, { [key]: nested });
  }
  throw new EditError('no map to insert into');
}

/** `key:`, `key: ~`, `key: null`: a value a map can be written over. */
function isNullScalar(node: PNode): boolean {
  if (node.kind !== 'scalar' || node.tag !== undefined) return false;
  if (node.empty) return true;
  return node.style === 1 && /^(?:~|null|Null|NULL)$/.test(node.text);
}

function appendAt(ctx: EditContext, path: Path, value: unknown): TextEdit[] {
  const loc = locate(ctx.root, path);
  if (loc.viaAlias) throw new EditError('the value comes from an alias; edit the anchor instead');
  const node = loc.depth === path.length ? loc.node : undefined;
  if (!node || isNullScalar(node)) return setAt(ctx, path, [value], false);
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
  const at = entryLineEnd(ctx.text, last.end, last);
  const body = renderInline(value, col + unit, ctx.newline);
  const lead = at === ctx.text.length && !endsWithNewline(ctx.text) ? ctx.newline : '';
  return [
    { span: { start: at, end: at }, newText: `${lead}${' '.repeat(col)}-${' '.repeat(unit - 1)}${body}${ctx.newline}` },
  ];
}

function insertPair(ctx: EditContext, map: PMap, key: string, value: unknown, first: boolean): TextEdit[] {
  if (map.implicit) throw new EditError('cannot add a key to a `[key: value]` pair without reformatting');
  if (map.flow) {
    const close = map.end - 1;
    if (map.pairs.length === 0)
      return [{ span: { start: close, end: close }, newText: `${renderFlowKey(key)}: ${renderFlow(value)}` }];
    if (first) {
      const at = map.pairs[0].key.start;
      return [{ span: { start: at, end: at }, newText: `${renderFlowKey(key)}: ${renderFlow(value)}, ` }];
    }
    const at = pairEnd(map.pairs[map.pairs.length - 1]);
    return [{ span: { start: at, end: at }, newText: `, ${renderFlowKey(key)}: ${renderFlow(value)}` }];
  }
  if (map.pairs.length === 0) throw new EditError('empty block map');
  const firstKey = map.pairs[0].key.start;
  if (!/^[ \t]*(?:-[ \t]+)*$/.test(ctx.text.slice(lineStart(ctx.text, firstKey), firstKey)))
    throw new EditError('cannot add a key next to `? ` keys without reformatting');
  const col = column(ctx.text, firstKey);
  const unit = indentUnit(ctx, map);
  const body = `${renderKey(key)}:${renderAfterKey(value, col, unit, ctx.newline)}`;
  if (first) {
    const at = map.pairs[0].key.start;
    return [{ span: { start: at, end: at }, newText: `${body}${ctx.newline}${' '.repeat(col)}` }];
  }
  const lastPair = map.pairs[map.pairs.length - 1];
  const at = entryLineEnd(ctx.text, pairEnd(lastPair), lastPair.value);
  const lead = at === ctx.text.length && !endsWithNewline(ctx.text) ? ctx.newline : '';
  return [{ span: { start: at, end: at }, newText: `${lead}${' '.repeat(col)}${body}${ctx.newline}` }];
}

function replaceValue(ctx: EditContext, key: PNode, old: PNode, parent: PMap, value: unknown): TextEdit[] {
  const { text } = ctx;
  assertNoAnchorUsedOutside(old.start, old.end, [old]);
  // An anchor no alias uses stays where it was.
  const anchor = old.anchor !== undefined ? `&${old.anchor} ` : '';
  const oldIsEmpty = old.kind === 'scalar' && old.empty && old.start === old.end;
  const colon = colonAfter(text, key.end);
  if (colon === -1) {
    // `{a, b}`: a flow key without `:` has a null value; give it one.
    if (parent.flow && oldIsEmpty)
      return [{ span: { start: key.end, end: key.end }, newText: `: ${renderFlow(value)}` }];
    throw new EditError('cannot find the `:` of the entry');
  }
  // Replace from just after the `:` for collections and empty values, else the scalar itself.
  const start = old.kind === 'map' || old.kind === 'seq' || oldIsEmpty ? colon + 1 : old.start;
  const span = { start, end: Math.max(old.end, start) };
  const pad = start === colon + 1 ? ' ' : '';
  if (parent.flow) return [{ span, newText: `${pad}${anchor}${renderFlow(value)}` }];
  const col = column(text, key.start);
  const unit = indentUnit(ctx, parent);
  if (isScalarValue(value) || isEmptyCollection(value))
    return [withTrailingComment(ctx, span, `${pad}${anchor}${renderInline(value, col + unit, ctx.newline)}`)];
  // A collection in a block map: write it as a nested block under the key.
  return [
    withTrailingComment(
      ctx,
      { start: colon + 1, end: span.end },
      `${anchor ? ` ${anchor.trimEnd()}` : ''}${renderAfterKey(value, col, unit, ctx.newline)}`,
    ),
  ];
}

/** Replaces the item at `index` of a sequence by `value`. */
function replaceItem(ctx: EditContext, seq: PSeq, index: number, value: unknown): TextEdit[] {
  const item = seq.items[index];
  assertNoAnchorUsedOutside(item.start, item.end, [item]);
  const anchor = item.anchor !== undefined ? `&${item.anchor} ` : '';
  if (seq.flow) return [{ span: { start: item.start, end: item.end }, newText: `${anchor}${renderFlow(value)}` }];
  // An empty item (`-` alone) sits right after its dash: keep a space between.
  const pad = ctx.text[item.start - 1] === '-' ? ' ' : '';
  const col = column(ctx.text, item.start) + pad.length;
  return [
    withTrailingComment(
      ctx,
      { start: item.start, end: item.end },
      `${pad}${anchor}${renderInline(value, col, ctx.newline)}`,
    ),
  ];
}

/**
 * A replacement that spans several lines would push a comment that ended the replaced line down
 * behind its last line (into a block scalar's text, even): move the comment up to its first line.
 */
function withTrailingComment(ctx: EditContext, span: Span, newText: string): TextEdit {
  const { text } = ctx;
  const firstBreak = newText.indexOf('\n');
  if (firstBreak === -1) return { span, newText };
  let i = span.end;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  if (text[i] !== '#') return { span, newText };
  let e = text.indexOf('\n', i);
  if (e === -1) e = text.length;
  if (e > i && text[e - 1] === '\r') e--;
  const cut = firstBreak > 0 && newText[firstBreak - 1] === '\r' ? firstBreak - 1 : firstBreak;
  return {
    span: { start: span.start, end: e },
    newText: `${newText.slice(0, cut)} ${text.slice(i, e)}${newText.slice(cut)}`,
  };
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

/**
 * Writing a value through a YAML Document costs tens of µs, and a file where every document has
 * the same finding renders the same fix value thousands of times: remember the last few renderings.
 * Only plain JSON data is cached, so that the key says everything about the value.
 */
const rendered = new Map<string, string>();
const RENDER_CACHE_SIZE = 256;

/** The value as YAML on its own (block style, or flow style for `flow`), without the final line break. */
function dump(value: unknown, flow = false): string {
  return memo(value, flow ? 'flow' : 'block', () => writeYaml(value, { flow }).replace(/\n$/, ''));
}

function memo(value: unknown, how: string, render: () => string): string {
  if (!isPlain(value, 0)) return render();
  const key = `${how}|${JSON.stringify(value)}`;
  const hit = rendered.get(key);
  if (hit !== undefined) return hit;
  const out = render();
  if (rendered.size >= RENDER_CACHE_SIZE) rendered.clear();
  rendered.set(key, out);
  return out;
}

/** Strings, finite numbers, booleans, null, arrays and plain objects of them: what JSON says exactly. */
function isPlain(v: unknown, depth: number): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (depth > 16 || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.every((x) => isPlain(x, depth + 1));
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const k in v) if (!isPlain((v as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

function isScalarValue(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

// Strings that YAML 1.1 reads back as the same string when written plain (no dump needed).
const SAFE_PLAIN = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const YAML11_WORDS = /^(?:y|n|yes|no|on|off|true|false|null)$/i;

/** A scalar on one line, in the form the loader reads back as the same value. */
function renderScalar(v: unknown): string {
  if (typeof v === 'string') {
    if (SAFE_PLAIN.test(v) && !YAML11_WORDS.test(v)) return v;
    // A line break would need a block scalar: use a double-quoted string, valid anywhere.
    if (/[\n\r]/.test(v)) return JSON.stringify(v);
  } else if (typeof v === 'boolean') return v ? 'true' : 'false';
  else if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return dump(v);
}

function renderKey(k: string): string {
  return renderScalar(k);
}

function renderFlow(v: unknown): string {
  if (isScalarValue(v)) return flowSafe(renderScalar(v), v);
  return dump(v, true);
}

/** A key inside `{ … }`: the same quoting rules as a flow value. */
function renderFlowKey(k: string): string {
  return flowSafe(renderScalar(k), k);
}

/**
 * A plain scalar that is fine in block context can change meaning inside `{}` / `[]`: a `,` ends
 * it, brackets open collections, ` #` starts a comment. Quote such strings there.
 */
function flowSafe(rendered: string, v: unknown): string {
  if (typeof v !== 'string' || rendered.startsWith("'") || rendered.startsWith('"')) return rendered;
  if (!/[,[\]{}]|\s#|:(\s|$)/.test(rendered)) return rendered;
  return /[\x00-\x1f]/.test(v) ? JSON.stringify(v) : `'${v.replace(/'/g, "''")}'`;
}

/**
 * What follows `key:` for a value in a block map whose key is at column `col`: ` scalar`, an empty
 * collection in flow style, or a line break and the value as a nested block.
 */
function renderAfterKey(value: unknown, col: number, unit: number, newline: string): string {
  if (isScalarValue(value) || isEmptyCollection(value)) return ` ${renderInline(value, col + unit, newline)}`;
  return `${newline}${renderBlock(value, col + unit, newline)}`;
}

function isEmptyCollection(v: unknown): boolean {
  return (
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0)
  );
}

/**
 * A value that starts where the cursor is (after `key: ` or `- `): scalars on one line, multi-line
 * strings as block scalars, collections in block style with their next lines at column `indent`.
 */
function renderInline(value: unknown, indent: number, newline: string): string {
  if (isEmptyCollection(value)) return Array.isArray(value) ? '[]' : '{}';
  if (typeof value === 'string' && /\n/.test(value) && !/\r/.test(value)) {
    const lines = dump(value).split('\n');
    // A block scalar alone has its body at column 0: move it under the value's column. One whose
    // header carries an indentation indicator (the text starts with a space) counts from the
    // parent's column, which is not known here: write that rare one double-quoted, valid anywhere.
    if (/^[|>][-+]?$/.test(lines[0])) {
      const pad = ' '.repeat(indent);
      return lines.map((l, i) => (i === 0 || l === '' ? l : pad + l)).join(newline);
    }
    return JSON.stringify(value);
  }
  if (isScalarValue(value)) return renderScalar(value);
  return renderBlock(value, indent, newline).slice(indent);
}

/** A collection in block style, every line indented by `indent`, no trailing newline. */
function renderBlock(value: unknown, indent: number, newline: string): string {
  return memo(value, `block|${indent}|${newline}`, () => renderBlockNow(value, indent, newline));
}

function renderBlockNow(value: unknown, indent: number, newline: string): string {
  const out = writeYaml(value).replace(/\n$/, '');
  const pad = ' '.repeat(indent);
  return out
    .split('\n')
    .map((l) => (l === '' ? l : pad + l))
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
