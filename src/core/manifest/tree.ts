import { EVENT_ID, getScalarValue, type Event, type ScalarEvent } from 'js-yaml';

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
}

export interface PScalar extends PBase {
  kind: 'scalar';
  /** Decoded string form of the scalar (before schema resolution: `true` is "true"). */
  text: string;
  /** Span of the content only: inside quotes; for block scalars the body lines. */
  valueStart: number;
  valueEnd: number;
  style: number;
  /** True for an empty value (`key:` with nothing after it). */
  empty: boolean;
}

export interface PPair {
  key: PNode;
  value: PNode;
}

export interface PMap extends PBase {
  kind: 'map';
  flow: boolean;
  pairs: PPair[];
  anchor?: string;
}

export interface PSeq extends PBase {
  kind: 'seq';
  flow: boolean;
  items: PNode[];
  anchor?: string;
}

export interface PAlias extends PBase {
  kind: 'alias';
  name: string;
  target?: PNode;
}

const STYLE_SINGLE = 2;
const STYLE_DOUBLE = 3;
const STYLE_LITERAL = 4;
const STYLE_FOLDED = 5;
const COLLECTION_FLOW = 2;

/** Builds the tree; `events` must come from `parseEvents(text)` of a single document. */
export function buildTree(text: string, events: Event[]): PNode | undefined {
  const anchors = new Map<string, PNode>();
  type Frame = { node: PMap | PSeq; pendingKey?: PNode };
  const stack: Frame[] = [];
  let root: PNode | undefined;
  let lastEnd = 0;

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

  for (const ev of events) {
    switch (ev.type) {
      case EVENT_ID.SCALAR: {
        const node = scalarNode(text, ev, lastEnd);
        if (!node.empty) lastEnd = node.end;
        if (ev.anchorStart >= 0) anchors.set(text.slice(ev.anchorStart, ev.anchorEnd), node);
        attach(node);
        break;
      }
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE: {
        const start = minPos(ev.start, ev.anchorStart - 1, ev.tagStart);
        const flow = ev.style === COLLECTION_FLOW;
        const node: PMap | PSeq =
          ev.type === EVENT_ID.MAPPING
            ? { kind: 'map', start, end: ev.start, flow, pairs: [] }
            : { kind: 'seq', start, end: ev.start, flow, items: [] };
        if (ev.anchorStart >= 0) {
          node.anchor = text.slice(ev.anchorStart, ev.anchorEnd);
          anchors.set(node.anchor, node);
        }
        attach(node);
        stack.push({ node });
        lastEnd = Math.max(lastEnd, ev.start + (flow ? 1 : 0));
        break;
      }
      case EVENT_ID.ALIAS: {
        const name = text.slice(ev.anchorStart, ev.anchorEnd);
        const node: PAlias = { kind: 'alias', start: ev.anchorStart - 1, end: ev.anchorEnd, name, target: anchors.get(name) };
        lastEnd = node.end;
        attach(node);
        break;
      }
      case EVENT_ID.POP: {
        const frame = stack.pop();
        if (!frame) break;
        const node = frame.node;
        if (node.flow) {
          // The closing bracket is the first `]` / `}` after the last child, past commas and comments.
          const close = findFlowClose(text, lastEnd, node.kind === 'map' ? '}' : ']');
          node.end = close;
          lastEnd = close;
        } else {
          node.end = Math.max(node.start, lastEnd);
        }
        break;
      }
      default:
        break;
    }
  }
  return root;
}

function scalarNode(text: string, ev: ScalarEvent, lastEnd: number): PScalar {
  const empty = ev.valueStart < 0;
  const decoded = empty ? '' : getScalarValue(text, ev);
  let start: number;
  let end: number;
  if (empty) {
    // `key:` with nothing after: place the empty value right after the colon.
    const at = ev.tagStart >= 0 ? ev.tagStart : ev.anchorStart >= 0 ? ev.anchorStart - 1 : lastEnd;
    start = at;
    end = ev.tagEnd >= 0 ? ev.tagEnd : ev.anchorEnd >= 0 ? ev.anchorEnd : at;
    if (ev.tagStart < 0 && ev.anchorStart < 0) {
      const nl = text.indexOf('\n', lastEnd);
      const colon = text.indexOf(':', lastEnd);
      if (colon !== -1 && (nl === -1 || colon < nl)) start = end = colon + 1;
    }
  } else {
    let vs = ev.valueStart;
    let ve = ev.valueEnd;
    if (ev.style === STYLE_SINGLE || ev.style === STYLE_DOUBLE) {
      vs -= 1;
      ve += 1;
    } else if (ev.style === STYLE_LITERAL || ev.style === STYLE_FOLDED) {
      // Start at the `|` / `>` indicator, which sits on the line before the body.
      const header = text.lastIndexOf('\n', ev.valueStart - 1);
      const indicator = findBlockIndicator(text, lastEnd, header);
      if (indicator !== -1) vs = indicator;
      while (ve > vs && (text.charCodeAt(ve - 1) === 10 || text.charCodeAt(ve - 1) === 13)) ve--;
    }
    start = minPos(vs, ev.anchorStart - 1, ev.tagStart);
    end = ve;
  }
  return { kind: 'scalar', start, end, text: decoded, valueStart: empty ? start : ev.valueStart, valueEnd: empty ? end : ev.valueEnd, style: ev.style, empty };
}

function findBlockIndicator(text: string, from: number, before: number): number {
  for (let i = Math.max(from, 0); i < before && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 124 /* | */ || c === 62 /* > */) return i;
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

function minPos(...values: number[]): number {
  let m = Infinity;
  for (const v of values) if (v >= 0 && v < m) m = v;
  return m === Infinity ? 0 : m;
}

/** Follows aliases to the anchored node. */
export function deref(node: PNode | undefined): PNode | undefined {
  let n = node;
  for (let i = 0; i < 64 && n?.kind === 'alias'; i++) n = n.target;
  return n;
}

export function keyText(node: PNode): string | undefined {
  return node.kind === 'scalar' ? node.text : undefined;
}
