import { EVENT_ID, getScalarValue, load, YAML11_SCHEMA, type Event, type ScalarEvent } from 'js-yaml';

// Read once: through the bundler's interop every `EVENT_ID.X` is a getter call, and these run per event.
const EV_SCALAR = EVENT_ID.SCALAR;
const EV_MAPPING = EVENT_ID.MAPPING;
const EV_SEQUENCE = EVENT_ID.SEQUENCE;
const EV_ALIAS = EVENT_ID.ALIAS;
const EV_POP = EVENT_ID.POP;

/**
 * A positional tree of one YAML document, built from js-yaml's event stream.
 * Offsets are relative to the document text. Every node knows its span; collections know
 * whether they are flow (`{}`/`[]`) or block style, which is what edits need to keep formatting.
 */
export type PNode = PScalar | PMap | PSeq | PAlias;

interface PBase {
  /** First character of the node, including its anchor or tag. */
  start: number;
  /** One past the last character of the node (closing quote or bracket included). */
  end: number;
  /** Anchor name (`&name`), when the node has one. */
  anchor?: string;
  /** Explicit tag as written (`!!str`), when the node has one. */
  tag?: string;
  /** Aliases that refer to this node (set on anchored nodes only). */
  aliases?: PAlias[];
  /**
   * Where the node's text really ends when that is past its last line: a `|+` block scalar keeps
   * its trailing blank lines, so this is the offset just past its last line break. Block collections
   * ending with such a scalar inherit it. Absent for every other node.
   */
  tailEnd?: number;
}

export interface PScalar extends PBase {
  kind: 'scalar';
  /** Decoded string form of the scalar (before schema resolution: `true` is "true"). */
  readonly text: string;
  /** Span of the content only: inside quotes; for block scalars the body lines. */
  valueStart: number;
  valueEnd: number;
  style: number;
  /** True for an empty value (`key:` with nothing after it). */
  empty: boolean;
  /** Cache of `keyString`. */
  keyString?: string;
}

export interface PPair {
  key: PNode;
  value: PNode;
}

export interface PMap extends PBase {
  kind: 'map';
  flow: boolean;
  /** Where the entries start, past the anchor and tag: the `{`, or the first key of a block map. */
  contentStart: number;
  pairs: PPair[];
  /** A single `key: value` written as an item of a flow sequence (`[a, b: c]`): flow, but without braces. */
  implicit?: boolean;
}

export interface PSeq extends PBase {
  kind: 'seq';
  flow: boolean;
  /** Where the entries start, past the anchor and tag: the `[`, or the first `-` of a block sequence. */
  contentStart: number;
  items: PNode[];
}

export interface PAlias extends PBase {
  kind: 'alias';
  name: string;
  target?: PNode;
}

const STYLE_PLAIN = 1;
const STYLE_SINGLE = 2;
const STYLE_DOUBLE = 3;
const STYLE_LITERAL = 4;
const STYLE_FOLDED = 5;
const CHOMPING_KEEP = 3;
const COLLECTION_FLOW = 2;

/**
 * Builds the tree; `events` must be those of a single document of `source`. When the document
 * starts at `base` in `source` (events of a batch parse, see loadBatch), offsets are made relative
 * to the document; `source` must then end where the document ends, and `from`/`to` say which
 * events are the document's.
 */
export function buildTree(source: string, events: Event[], base = 0, from = 0, to = events.length): PNode | undefined {
  const anchors = new Map<string, PNode>();
  type Frame = { node: PMap | PSeq; pendingKey?: PNode };
  const stack: Frame[] = [];
  let root: PNode | undefined;
  // End of the last thing read (source offsets): every search for a position starts here.
  let lastEnd = base;

  const attach = (node: PNode) => {
    const top = stack[stack.length - 1];
    if (!top) {
      root ??= node;
      return;
    }
    if (top.node.kind === 'seq') top.node.items.push(node);
    else if (top.pendingKey === undefined) top.pendingKey = node;
    else {
      top.node.pairs.push({ key: top.pendingKey, value: node });
      top.pendingKey = undefined;
    }
  };
  const setAnchor = (node: PNode, ev: { anchorStart: number; anchorEnd: number; tagStart: number; tagEnd: number }) => {
    if (ev.tagStart >= 0) node.tag = source.slice(ev.tagStart, ev.tagEnd);
    if (ev.anchorStart >= 0) {
      node.anchor = source.slice(ev.anchorStart, ev.anchorEnd);
      anchors.set(node.anchor, node);
    }
  };

  for (let k = from; k < to; k++) {
    const ev = events[k];
    switch (ev.type) {
      case EV_SCALAR: {
        const top = stack[stack.length - 1];
        const role = !top
          ? 'root'
          : top.node.kind === 'seq'
            ? top.node.flow
              ? 'flow-item'
              : 'item'
            : top.pendingKey === undefined
              ? 'key'
              : 'value';
        const node = scalarNode(source, ev, lastEnd, role, base);
        lastEnd = Math.max(lastEnd, node.end + base);
        setAnchor(node, ev);
        attach(node);
        break;
      }
      case EV_MAPPING:
      case EV_SEQUENCE: {
        const start = minPos(ev.start, ev.anchorStart - 1, ev.tagStart) - base;
        const flow = ev.style === COLLECTION_FLOW;
        const at = ev.start - base;
        const node: PMap | PSeq =
          ev.type === EV_MAPPING
            ? { kind: 'map', start, end: at, flow, contentStart: at, pairs: [] }
            : { kind: 'seq', start, end: at, flow, contentStart: at, items: [] };
        const implicit = flow && node.kind === 'map' && source.charCodeAt(ev.start) !== 123; /* { */
        if (implicit) (node as PMap).implicit = true;
        setAnchor(node, ev);
        attach(node);
        stack.push({ node });
        lastEnd = Math.max(lastEnd, ev.start + (flow && !implicit ? 1 : 0));
        break;
      }
      case EV_ALIAS: {
        const name = source.slice(ev.anchorStart, ev.anchorEnd);
        const target = anchors.get(name);
        const node: PAlias = {
          kind: 'alias',
          start: ev.anchorStart - 1 - base,
          end: ev.anchorEnd - base,
          name,
          target,
        };
        if (target) (target.aliases ??= []).push(node);
        lastEnd = Math.max(lastEnd, ev.anchorEnd);
        attach(node);
        break;
      }
      case EV_POP: {
        const frame = stack.pop();
        if (!frame) break;
        const node = frame.node;
        if (node.kind === 'map' && node.implicit) {
          node.end = Math.max(node.start, lastEnd - base);
        } else if (node.flow) {
          // The closing bracket is the first `]` / `}` after the last child, past commas and comments.
          const close = findFlowClose(source, lastEnd, node.kind === 'map' ? '}' : ']');
          node.end = close - base;
          lastEnd = close;
        } else {
          node.end = Math.max(node.start, lastEnd - base);
          const last =
            node.kind === 'map' ? node.pairs[node.pairs.length - 1]?.value : node.items[node.items.length - 1];
          if (last?.tailEnd !== undefined) node.tailEnd = last.tailEnd;
        }
        break;
      }
      default:
        break;
    }
  }
  return root;
}

type Role = 'root' | 'key' | 'value' | 'item' | 'flow-item';

/** `text` is the parsed source, `lastEnd` an offset in it; the node's offsets are made relative to `base`. */
function scalarNode(text: string, ev: ScalarEvent, lastEnd: number, role: Role, base: number): PScalar {
  const empty = ev.valueStart < 0;
  let start: number;
  let end: number;
  let tailEnd: number | undefined;
  if (empty) {
    if (ev.tagStart >= 0 || ev.anchorStart >= 0) {
      // `key: !!null` or `key: &a`: the node is its properties.
      start = minPos(ev.tagStart, ev.anchorStart - 1);
      end = Math.max(ev.tagEnd, ev.anchorEnd);
    } else {
      start = end = emptyPosition(text, lastEnd, role);
    }
  } else {
    let vs = ev.valueStart;
    let ve = ev.valueEnd;
    if (ev.style === STYLE_SINGLE || ev.style === STYLE_DOUBLE) {
      vs -= 1;
      ve += 1;
    } else if (ev.style === STYLE_LITERAL || ev.style === STYLE_FOLDED) {
      // Start at the `|` / `>` indicator, which sits on the header line before the body.
      const indicator = findBlockIndicator(text, Math.max(lastEnd, ev.tagEnd, ev.anchorEnd), ev.valueStart);
      if (indicator !== -1) vs = indicator;
      // The body's final line break (and, when kept, trailing blank lines) is not underlined.
      while (ve > vs && (text.charCodeAt(ve - 1) === 10 || text.charCodeAt(ve - 1) === 13)) ve--;
      if (ev.chomping === CHOMPING_KEEP && ev.valueEnd > ve) tailEnd = ev.valueEnd;
    }
    start = minPos(vs, ev.anchorStart - 1, ev.tagStart);
    end = ve;
  }
  const node: PScalar = new Scalar(
    start - base,
    end - base,
    (empty ? end : ev.valueStart) - base,
    (empty ? end : ev.valueEnd) - base,
    ev.style,
    empty,
    empty ? undefined : text,
    ev,
  );
  if (tailEnd !== undefined) node.tailEnd = tailEnd - base;
  return node;
}

/**
 * A scalar node whose decoded text is worked out on first use: a finding needs the keys along its
 * path, not the thousands of values of its document (decoding them was a third of a tree's cost).
 */
class Scalar implements PScalar {
  readonly kind = 'scalar';
  declare tailEnd?: number;
  declare anchor?: string;
  declare tag?: string;
  declare aliases?: PAlias[];
  declare keyString?: string;
  #source: string | undefined;
  #event: ScalarEvent | undefined;
  #text: string | undefined;

  constructor(
    public start: number,
    public end: number,
    public valueStart: number,
    public valueEnd: number,
    public style: number,
    public empty: boolean,
    source: string | undefined,
    event: ScalarEvent,
  ) {
    this.#source = source;
    this.#event = source === undefined ? undefined : event;
  }

  get text(): string {
    if (this.#text === undefined) {
      this.#text = this.#source !== undefined && this.#event ? getScalarValue(this.#source, this.#event) : '';
      this.#source = undefined;
      this.#event = undefined;
    }
    return this.#text;
  }
}

/**
 * Where an empty scalar sits: right after the `:` of its key (`key:`), right after the `-` of its
 * sequence entry (`-` alone on a line), else where the previous node ended.
 */
function emptyPosition(text: string, lastEnd: number, role: Role): number {
  if (role === 'value') {
    // Only whitespace may separate a key from its `:` (an explicit `? key` may put it on the next line).
    let i = lastEnd;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    return text.charCodeAt(i) === 58 /* : */ ? i + 1 : lastEnd;
  }
  if (role === 'item') {
    const i = skipBlanksAndComments(text, lastEnd);
    return text.charCodeAt(i) === 45 /* - */ ? i + 1 : lastEnd;
  }
  if (role === 'key') {
    // `: value` with no key: the empty key sits at its `:`.
    const i = skipBlanksAndComments(text, lastEnd);
    return text.charCodeAt(i) === 58 /* : */ ? i : lastEnd;
  }
  return lastEnd;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function skipBlanksAndComments(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) i++;
    else if (c === 35 /* # */) {
      const nl = text.indexOf('\n', i);
      i = nl === -1 ? text.length : nl + 1;
    } else break;
  }
  return i;
}

/** The `|` / `>` header of a block scalar: the first one after `from`, comments skipped. */
function findBlockIndicator(text: string, from: number, bodyStart: number): number {
  const stop = Math.min(Math.max(bodyStart, from), text.length);
  let i = Math.max(from, 0);
  // With an empty body at the end of the text, the header may reach past `bodyStart`.
  const limit = stop > i ? stop : text.length;
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (c === 124 /* | */ || c === 62 /* > */) return i;
    if (c === 35 /* # */ && (i === 0 || isSpace(text.charCodeAt(i - 1)))) {
      const nl = text.indexOf('\n', i);
      if (nl === -1) break;
      i = nl + 1;
      continue;
    }
    i++;
  }
  return -1;
}

function findFlowClose(text: string, from: number, close: string): number {
  let i = from;
  while (i < text.length) {
    const ch = text[i];
    if (ch === close) return i + 1;
    if (ch === '#') {
      const nl = text.indexOf('\n', i);
      i = nl === -1 ? text.length : nl;
      continue;
    }
    i++;
  }
  return text.length;
}

/** The smallest of the offsets that are set (≥ 0); fixed arity, as it runs for every node. */
function minPos(a: number, b: number, c = -1): number {
  let m = Infinity;
  if (a >= 0 && a < m) m = a;
  if (b >= 0 && b < m) m = b;
  if (c >= 0 && c < m) m = c;
  return m === Infinity ? 0 : m;
}

/** Follows aliases to the anchored node. */
export function deref(node: PNode | undefined): PNode | undefined {
  let n = node;
  for (let i = 0; i < 64 && n?.kind === 'alias'; i++) n = n.target;
  return n;
}

// Plain words that stay strings under YAML 1.1 (the quick answer for almost every Kubernetes key).
const PLAIN_STRING = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const YAML11_WORDS = /^(?:y|n|yes|no|on|off|true|false|null)$/i;

/**
 * The property name the loader gives a key node: YAML 1.1 resolves plain `y`, `on`, `~`, `0x10`
 * … to booleans, null and numbers, which become the strings "true", "null", "16" as object keys.
 */
export function keyString(node: PNode): string | undefined {
  const n = deref(node);
  if (n?.kind !== 'scalar') return undefined;
  if (n.keyString !== undefined) return n.keyString;
  let key = n.text;
  const plain = n.style === STYLE_PLAIN;
  if (n.empty) key = n.tag === undefined ? 'null' : '';
  else if (n.tag !== undefined || (plain && (!PLAIN_STRING.test(key) || YAML11_WORDS.test(key)))) {
    try {
      // As a value in a map, so that text such as `--- x` is not read as a document marker.
      const source = `k: ${n.tag ?? ''} ${plain ? key : JSON.stringify(key)}`;
      const v = (load(source, { schema: YAML11_SCHEMA }) as { k: unknown }).k;
      if (v === null || typeof v !== 'object') key = String(v);
    } catch {
      // Not resolvable on its own: the loader would have rejected the document anyway.
    }
  }
  n.keyString = key;
  return key;
}

/** True for a `<<` merge key. */
export function isMergeKey(node: PNode): boolean {
  return (
    node.kind === 'scalar' &&
    node.style === STYLE_PLAIN &&
    node.text === '<<' &&
    (node.tag === undefined || node.tag === '!!merge' || node.tag === 'tag:yaml.org,2002:merge')
  );
}
