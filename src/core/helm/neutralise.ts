// Helm chart templates read as YAML: every template action is set aside so that the literal text
// keeps its lines and columns, and values are put in only where the chart's idiom is unambiguous.
import { getAt, isObj, type Path } from '../manifest/path';
import { inlineValue, isCollection, yamlLines } from './yaml-lines';
import { isKubeMinor, isKubeVersion, kubeMinorIs, kubeVersionSatisfies } from './kube-version';
import { valuesPath, type ChartValues, type ValuesOrigin } from './values';

/** An inline action replaced by a same-width plain scalar (output coordinates, 0-based). */
export interface Placeholder {
  line: number;
  start: number;
  end: number;
  /** The action as written, `{{ .Values.image.tag }}`. */
  action: string;
}

/**
 * A value put in the middle of a literal line: output columns [outStart, outEnd) stand for template columns [tplStart,
 * tplEnd).
 */
interface Shift {
  outStart: number;
  outEnd: number;
  tplStart: number;
  tplEnd: number;
  origin?: ValuesOrigin;
}

export interface OutLine {
  /** 0-based template line this output line comes from. */
  tplLine: number;
  /** Set on lines of a value block (toYaml): the template columns of the action that produced it. */
  block?: { start: number; end: number; origin?: ValuesOrigin; action: string };
  shifts?: Shift[];
  /** On a `key:` or `- ` line whose value block (toYaml) follows: where that value was set. */
  valueOrigin?: ValuesOrigin;
  /** Inside a branch whose condition the values cannot decide (the action): Helm may not render it. */
  undecided?: string;
  /** Inside a `range` (the action): Helm renders the line once per item. */
  repeated?: string;
}

export interface Neutralised {
  text: string;
  lines: OutLine[];
  placeholders: Placeholder[];
  /** True when no value was put in: output and template positions are the same. */
  identity: boolean;
  /** Rendered actions that print a block (alone on their line, or `| nindent`) not read here: output line, action. */
  unreadBlocks: { line: number; action: string }[];
}

interface Action {
  start: number;
  end: number;
  inner: string;
  kind: 'comment' | 'control' | 'output';
  /**
   * `.Values` path `.` stands for after this action (with), null for an unknown dot (range), undefined if the action
   * opens nothing.
   */
  opens?: Path | null;
  closes?: boolean;
  /**
   * A `define` whose body is a whole manifest (`apiVersion:` and `kind:` at column 0), included with the chart's
   * context.
   */
  document?: boolean;
}

export const CONTROL = /^(if|else|end|with|range|define|block)\b/;

/** Every `{{ … }}` of a text, strings and comments inside actions skipped over. */
export function findActions(text: string): Action[] {
  const out: Action[] = [];
  let i = text.indexOf('{{');
  while (i !== -1) {
    let j = i + 2;
    let end = -1;
    while (j < text.length) {
      const c = text[j];
      if (c === '"' || c === '`') {
        const close = c === '"' ? /(?:\\.|[^"\\\n])*"/y : /[^`]*`/y;
        close.lastIndex = j + 1;
        j = close.test(text) ? close.lastIndex : j + 1;
        continue;
      }
      if (text.startsWith('/*', j)) {
        const close = text.indexOf('*/', j + 2);
        j = close === -1 ? text.length : close + 2;
        continue;
      }
      if (text.startsWith('}}', j)) {
        end = j + 2;
        break;
      }
      j++;
    }
    if (end === -1) break; // an unclosed action: the YAML parser reports what is left
    const inner = text
      .slice(i + 2, end - 2)
      .replace(/^-\s/, '')
      .replace(/\s-$/, '')
      .trim();
    const word = CONTROL.exec(inner)?.[1];
    const action: Action = {
      start: i,
      end,
      inner,
      kind: inner.startsWith('/*') ? 'comment' : word || /^\$[\w]*\s*:?=/.test(inner) ? 'control' : 'output',
    };
    if (word === 'with') action.opens = valuesPath(inner.slice(4)) ?? null;
    else if (word === 'range' || word === 'define' || word === 'block') action.opens = null;
    else if (word === 'if') action.opens = undefined;
    else if (word === 'end') action.closes = true;
    out.push(action);
    i = text.indexOf('{{', end);
  }
  return out;
}

/** Marks each `define` whose body holds `apiVersion:` and `kind:` lines at column 0. */
function markDocumentDefines(text: string, actions: Action[]) {
  const open: number[] = [];
  actions.forEach((act, k) => {
    const word = CONTROL.exec(act.inner)?.[1];
    if (word === 'if' || word === 'with' || word === 'range' || word === 'define' || word === 'block') open.push(k);
    else if (act.closes) {
      const from = open.pop();
      if (from === undefined || !/^define\b/.test(actions[from].inner)) return;
      const body = text.slice(actions[from].end, act.start);
      actions[from].document = /^apiVersion:/m.test(body) && /^kind:/m.test(body);
    }
  });
}

interface Frame {
  dot?: Path | null;
  active: boolean;
  /** A branch of this if/with was already chosen (or, undecided, the first one is kept). */
  taken: boolean;
  /** The action of a condition the values cannot decide, opened inside a document: its branch may not render. */
  undecided?: string;
  /** The `range` action whose body this is. */
  repeats?: string;
}

/**
 * Opens, switches or closes a block. A condition read from values decides the branch; an undecided
 * one keeps its first branch only, so that both branches never stand side by side as duplicate keys.
 */
function branch(
  stack: Frame[],
  act: Action,
  dot: Path | null | undefined,
  values: ChartValues | undefined,
  inDocument: boolean,
  derive?: (value: unknown, from: Path) => Path,
) {
  const undecided = (cond: boolean | undefined) =>
    cond === undefined && inDocument ? `{{ ${act.inner} }}` : undefined;
  const word = CONTROL.exec(act.inner)?.[1];
  if (act.closes) {
    stack.pop();
    return;
  }
  if (word === 'else') {
    const top = stack[stack.length - 1];
    if (!top) return;
    const rest = act.inner.replace(/^else\s*/, '');
    const cond = rest.startsWith('if ')
      ? condition(rest.slice(3), dot, values)
      : rest.startsWith('with ')
        ? condition(rest.slice(5), dot, values)
        : true;
    top.active = !top.taken && cond !== false;
    top.undecided = top.active ? undecided(cond) : undefined;
    if (top.active) top.taken = true;
    return;
  }
  if (word === 'with' && act.opens === null && values && derive) {
    // `with unset .Values.x "k"` (or omit): the dot is that map without those keys, which the values decide.
    const derived = derivedValue(act.inner.slice(5), dot, values);
    if (derived) {
      const cond = truthy(derived.value);
      stack.push({ dot: derive(derived.value, derived.from), active: cond, taken: cond });
      return;
    }
  }
  if (word === 'if' || word === 'with') {
    const cond = condition(act.inner.slice(word.length + 1), dot, values);
    stack.push({
      ...(word === 'with' ? { dot: act.opens } : {}),
      active: cond !== false,
      taken: cond !== false,
      undecided: undecided(cond),
    });
    return;
  }
  if (word === 'range') {
    // A range over a list or map the values leave empty renders nothing.
    const over = act.inner.slice(6).replace(/^.*:=/, '');
    // A range over a values list of one item renders its body once, as read here; any other, once per item.
    const path = dotPath(unwrap(over.trim()), dot);
    const items = path && values ? getAt(values.value, path) : undefined;
    const once = (Array.isArray(items) && items.length === 1) || (isObj(items) && Object.keys(items).length === 1);
    stack.push({
      dot: null,
      active: condition(over, dot, values) !== false,
      taken: true,
      ...(once ? {} : { repeats: `{{ ${act.inner} }}` }),
    });
    return;
  }
  // A define is text for other templates, unless it is a whole document: then it is read as one,
  // `.Values` being the chart's values (its include passes the root context, `$` or `.`).
  if (act.opens !== undefined)
    stack.push(
      act.document ? { active: true, taken: true } : { dot: act.opens, active: word !== 'define', taken: true },
    );
}

/** `unset X "k"` or `omit X "k" …` of a values map (sprig): the map without those keys, and where X is. */
function derivedValue(
  expr: string,
  dot: Path | null | undefined,
  values: ChartValues,
): { value: unknown; from: Path } | undefined {
  const [fn, ...args] = splitArgs(unpipe(unwrap(expr.trim())));
  if (!((fn === 'unset' && args.length === 2) || (fn === 'omit' && args.length >= 2))) return undefined;
  const from = dotPath(unwrap(args[0]), dot);
  const keys = args.slice(1).map(literalOf);
  if (!from || !keys.every((k): k is string => typeof k === 'string')) return undefined;
  const v = getAt(values.value, from);
  if (v === undefined || v === null) return { value: undefined, from };
  if (!isObj(v)) return undefined;
  return { value: Object.fromEntries(Object.entries(v).filter(([k]) => !keys.includes(k))), from };
}

/** true / false when values decide it, undefined when they cannot. */
function condition(expr: string, dot: Path | null | undefined, values: ChartValues | undefined): boolean | undefined {
  if (!values) return undefined;
  const e = unpipe(unwrap(expr.trim()));
  const [fn, ...args] = splitArgs(e);
  if (fn === 'empty' && args.length === 1) {
    // sprig's empty: the opposite of Go's truth.
    const v = condition(args[0], dot, values);
    return v === undefined ? undefined : !v;
  }
  if (fn === 'not' && args.length === 1) {
    const v = condition(args[0], dot, values);
    return v === undefined ? undefined : !v;
  }
  // `and`/`or` decide as soon as one operand does (false for and, true for or), as Go's do.
  if ((fn === 'and' || fn === 'or') && args.length >= 2) {
    const decisive = fn === 'or';
    const vs = args.map((a) => condition(a, dot, values));
    if (vs.includes(decisive)) return decisive;
    return vs.every((v) => v === !decisive) ? !decisive : undefined;
  }
  if (fn === 'semverCompare' && args.length === 2 && isKubeVersion(args[1])) {
    const constraint = literalOf(args[0]);
    return typeof constraint === 'string' ? kubeVersionSatisfies(constraint, values.kubeVersion) : undefined;
  }
  const printed = values.defines ? namedScalar(e, values) : undefined;
  if (printed !== undefined) return truthy(printed);
  if ((fn === 'eq' || fn === 'ne') && args.length === 2) {
    const [ref, literal] =
      literalOf(args[0]) !== undefined ? [args[1], literalOf(args[0])] : [args[0], literalOf(args[1])];
    const named = values.defines ? namedScalar(unwrap(ref), values) : undefined;
    if (named !== undefined && literal !== undefined) return (named === String(literal)) === (fn === 'eq');
    if (isKubeMinor(ref) && typeof literal === 'string') {
      const is = kubeMinorIs(literal, values.kubeVersion);
      return is === undefined ? undefined : is === (fn === 'eq');
    }
    const path = dotPath(ref, dot);
    const v = path ? getAt(values.value, path) : undefined;
    if (literal === undefined || v === undefined || v === null || typeof v === 'object') return undefined;
    return (typeof literal === 'string' ? String(v) === literal : v === literal) === (fn === 'eq');
  }
  if (fn === 'contains' && args.length === 2) {
    const [part, whole] = [literalOf(args[0]), text(args[1], dot, values)];
    return typeof part === 'string' && whole !== undefined ? whole.includes(part) : undefined;
  }
  const path = dotPath(e, dot);
  if (!path) return undefined;
  return truthy(getAt(values.value, path));
}

/**
 * What an inline action prints, when values decide it: a values reference, or a `ternary` on one (and the path it comes
 * from).
 */
function scalarOf(
  inner: string,
  dot: Path | null | undefined,
  values: ChartValues,
): { value: unknown; path: Path } | undefined {
  const direct = dotPath(inner, dot);
  if (direct) return { value: getAt(values.value, direct), path: direct };
  const [fn, ...args] = splitArgs(unpipe(inner));
  if (fn === 'default' && args.length === 2) {
    // sprig's default: the value when it is set and not empty, else the literal.
    const fallback = literalOf(args[0]);
    const path = dotPath(unwrap(args[1]), dot);
    if (fallback === undefined || !path) return undefined;
    const v = getAt(values.value, path);
    return { value: truthy(v) ? v : fallback, path };
  }
  if (fn !== 'ternary' || args.length !== 3) return undefined;
  const [yes, no] = [literalOf(args[0]), literalOf(args[1])];
  const cond = condition(args[2], dot, values);
  const path = dotPath(unwrap(args[2]), dot);
  return cond === undefined || yes === undefined || no === undefined || !path
    ? undefined
    : { value: cond ? yes : no, path };
}

/** The string a values reference (or `lower` of one) gives, when values set it. */
function text(expr: string, dot: Path | null | undefined, values: ChartValues): string | undefined {
  const [fn, ...args] = splitArgs(unpipe(unwrap(expr.trim())));
  if (fn === 'lower' && args.length === 1) return text(args[0], dot, values)?.toLowerCase();
  const path = args.length === 0 ? dotPath(fn, dot) : undefined;
  const v = path ? getAt(values.value, path) : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** `x | f a` → `f a (x)`: a pipeline as the call it stands for. */
function unpipe(e: string): string {
  const stages = splitArgs(e, '|');
  return stages.length < 2 ? e : stages.slice(1).reduce((acc, stage) => `${stage.trim()} (${acc})`, stages[0].trim());
}

/** A `"string"`, `true`/`false` or number written in a template, or undefined. */
function literalOf(word: string): string | boolean | number | undefined {
  if (/^"[^"\\]*"$/.test(word)) return word.slice(1, -1);
  if (word === 'true' || word === 'false') return word === 'true';
  return /^-?\d+(\.\d+)?$/.test(word) ? Number(word) : undefined;
}

/** `(x)` → `x`, when the parentheses enclose the whole expression. */
function unwrap(e: string): string {
  if (!e.startsWith('(') || !e.endsWith(')')) return e;
  const parts = splitArgs(e);
  return parts.length === 1 ? unwrap(e.slice(1, -1).trim()) : e;
}

/**
 * The words of a pipeline-free call (or, with `|`, the stages of a pipeline), a parenthesised group or a string
 * counting as one.
 */
function splitArgs(e: string, sep: ' ' | '|' = ' '): string[] {
  const out: string[] = [];
  let depth = 0;
  let word = '';
  for (let i = 0; i < e.length; i++) {
    const c = e[i];
    if (c === '"') {
      const close = /"(?:\\.|[^"\\])*"/y;
      close.lastIndex = i;
      if (close.test(e)) {
        word += e.slice(i, close.lastIndex);
        i = close.lastIndex - 1;
        continue;
      }
    }
    if (c === '(') depth++;
    if (c === ')') depth--;
    if ((sep === ' ' ? /\s/.test(c) : c === sep) && depth === 0) {
      if (word) out.push(word);
      word = '';
    } else word += c;
  }
  if (word) out.push(word);
  return out;
}

/** Go template truth: empty and zero values are false; a value no file sets is absent, so false too. */
function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObj(v)) return Object.keys(v).length > 0;
  return true;
}

/** `toYaml X | nindent N` (or `indent`), X being `.` or a `.Values` chain: the path and the indentation. */
function toYamlBlock(inner: string, dot: Path | null | undefined): { path: Path; indent: number } | undefined {
  const m = /^(?:toYaml\s+(\S+)|(\S+)\s*\|\s*toYaml)\s*\|\s*n?indent\s+(\d+)$/.exec(inner);
  if (!m) return undefined;
  const path = dotPath(m[1] ?? m[2], dot);
  return path ? { path, indent: Number(m[3]) } : undefined;
}

/** The values path an expression names: `.Values.a.b`, or `.` / `.a` inside `with .Values.x`. */
function dotPath(expr: string, dot: Path | null | undefined): Path | undefined {
  const direct = valuesPath(expr);
  if (direct) return direct;
  if (!dot) return undefined;
  if (expr === '.') return dot;
  const m = /^((?:\.[A-Za-z_]\w*)+)$/.exec(expr);
  return m ? [...dot, ...m[1].slice(1).split('.')] : undefined;
}

/** A scalar that reads back as itself when put in a plain or double-quoted YAML position. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  if (typeof value === 'string' && /^[A-Za-z0-9_./@=+-][A-Za-z0-9_./@=+ -]*$/.test(value) && !value.endsWith(' '))
    return value;
  return undefined;
}

/**
 * What `{{ template "name" . }}` or `{{ include "name" . }}` prints when the chart's define of that name, read with
 * the same values, is one plain scalar whose every action is decided (`label.os`: `kubernetes.io/os`).
 */
function namedScalar(inner: string, values: ChartValues): string | undefined {
  const m = /^(?:template|include)\s+"([^"]+)"\s+(?:\.|\$)$/.exec(inner.trim());
  const body = m ? values.defines?.get(m[1]) : undefined;
  if (body === undefined) return undefined;
  // Named templates call others (a helper's condition on helpers): three levels are read, deeper is unknown.
  const nesting = (values.nesting ?? 0) + 1;
  const read = neutralise(body, { ...values, nesting, defines: nesting < 3 ? values.defines : undefined }, true);
  if (read.placeholders.length > 0 || read.lines.some((l) => l.undecided || l.block)) return undefined;
  const printed = read.text.trim();
  return /\n/.test(printed) ? undefined : scalarText(printed);
}

/** A line a block action prints: its text, origin, and what inside it is unknown (a define's actions). */
interface BlockLine {
  text: string;
  origin?: ValuesOrigin;
  holes?: { start: number; end: number; action: string }[];
  undecided?: string;
}

/**
 * What `{{ include "name" . | nindent N }}` prints when the chart's define of that name reads as YAML with these
 * values (Datadog's `containers-init-windows`): its lines, indented, each keeping what it cannot decide.
 */
function namedBlock(inner: string, values: ChartValues): BlockLine[] | undefined {
  const m = /^(?:template|include)\s+"([^"]+)"\s+(?:\.|\$)\s*\|\s*nindent\s+(\d+)$/.exec(inner.trim());
  const body = m ? values.defines?.get(m[1]) : undefined;
  if (!m || body === undefined) return undefined;
  const nesting = (values.nesting ?? 0) + 1;
  const read = neutralise(body, { ...values, nesting, defines: nesting < 3 ? values.defines : undefined }, true);
  const pad = ' '.repeat(Number(m[2]));
  const out = read.text.split('\n').map((t, i): BlockLine => {
    const holes = read.placeholders.filter((p) => p.line === i);
    return {
      text: t.trim() === '' ? '' : pad + t,
      origin: read.lines[i]?.block?.origin ?? read.lines[i]?.valueOrigin,
      ...(holes.length
        ? { holes: holes.map((p) => ({ start: p.start + pad.length, end: p.end + pad.length, action: p.action })) }
        : {}),
      ...(read.lines[i]?.undecided ? { undecided: read.lines[i].undecided } : {}),
    };
  });
  while (out.length && out[0].text === '') out.shift();
  while (out.length && out[out.length - 1].text === '') out.pop();
  return out.length ? out : undefined;
}

/** `everywhere`: mark a branch undecided wherever it is, not only inside a document (a define's body). */
export function neutralise(text: string, chartValues?: ChartValues, everywhere = false): Neutralised {
  const helpers = chartValues?.defines;
  // Values a template computes (`with unset …`) are kept under keys of their own, whose origin is where they
  // were computed from.
  const computed = new Map<string, Path>();
  const values: ChartValues | undefined = chartValues && {
    ...chartValues,
    value: { ...chartValues.value },
    problems: chartValues.problems,
    originOf: (path) => {
      const from = typeof path[0] === 'string' ? computed.get(path[0]) : undefined;
      return chartValues.originOf(from ? [...from, ...path.slice(1)] : path);
    },
  };
  const derive = (value: unknown, from: Path): Path => {
    const key = `\0computed${computed.size}`;
    computed.set(key, from);
    values!.value[key] = value;
    return [key];
  };
  const actions = findActions(text);
  markDocumentDefines(text, actions);
  const stack: Frame[] = [];
  const dot = (): Path | null | undefined => {
    for (let k = stack.length - 1; k >= 0; k--) if (stack[k].dot !== undefined) return stack[k].dot;
    return undefined;
  };
  const active = () => stack.every((f) => f.active);
  const outText: string[] = [];
  const lines: OutLine[] = [];
  const placeholders: Placeholder[] = [];
  const unreadBlocks: Neutralised['unreadBlocks'] = [];
  let identity = true;
  let inDocument = false;
  const undecided = () => [...stack].reverse().find((f) => f.undecided)?.undecided;
  const repeated = () => [...stack].reverse().find((f) => f.repeats)?.repeats;
  const push = (out: string, line: OutLine) => {
    const content = out.trim();
    if (/^---(\s|$)/.test(content)) inDocument = false;
    else if (content !== '' && !content.startsWith('#')) inDocument = true;
    const maybe = content === '' ? undefined : undecided();
    const each = content === '' ? undefined : repeated();
    outText.push(out);
    lines.push({ ...line, ...(maybe ? { undecided: maybe } : {}), ...(each ? { repeated: each } : {}) });
  };
  let a = 0;
  let lineStart = 0;
  const srcLines = text.split('\n');
  for (let tplLine = 0; tplLine < srcLines.length; tplLine++) {
    const src = srcLines[tplLine];
    const lineEnd = lineStart + src.length;
    // Actions touching this line (a multi-line action touches several).
    while (a < actions.length && actions[a].end <= lineStart) a++;
    const here: Action[] = [];
    for (let k = a; k < actions.length && actions[k].start < lineEnd; k++) here.push(actions[k]);
    if (here.length === 0) {
      if (!active() && blankLine(src) !== src) identity = false;
      push(active() ? src : blankLine(src), { tplLine });
      lineStart = lineEnd + 1;
      continue;
    }
    let literal = '';
    let pos = lineStart;
    for (const act of here) {
      literal += text.slice(pos, Math.max(pos, act.start));
      pos = Math.max(pos, act.end);
    }
    literal += text.slice(Math.min(pos, lineEnd), lineEnd);
    const actionOnly = literal.replace(/\r$/, '').trim() === '';
    const wasActive = active();

    let out = '';
    let outLine: OutLine = { tplLine };
    const blockLines: BlockLine[] = [];
    let block: { start: number; end: number; origin?: ValuesOrigin; action: string } | undefined;
    pos = lineStart;
    for (const act of here) {
      const from = Math.max(act.start, lineStart);
      const to = Math.min(act.end, lineEnd);
      if (from > pos) out += activeText(text.slice(pos, from), active());
      const width = to - from;
      const whole = act.start >= lineStart && act.end <= lineEnd;
      const startsHere = act.start >= lineStart;
      const current = dot();
      if (startsHere) branch(stack, act, current, values, inDocument || everywhere, derive);
      if (startsHere && act.document) inDocument = false;
      if (act.kind !== 'output' || !whole) {
        out += ' '.repeat(width);
      } else if (actionOnly || endsLine(text, act.end, lineEnd, /\|\s*nindent\s+\d+$/.test(act.inner))) {
        // Alone on its line, or a `nindent` one after `key:` / `- `: what it renders goes on lines
        // of its own, so the line keeps only its literal text (a `- ` or `key:` whose value follows).
        const yaml = values ? toYamlBlock(act.inner, current) : undefined;
        const value = yaml && values ? getAt(values.value, yaml.path) : undefined;
        if (
          yaml &&
          values &&
          value !== undefined &&
          value !== null &&
          here.filter((h) => h.kind === 'output').length === 1
        ) {
          block = { start: from - lineStart, end: to - lineStart, action: text.slice(act.start, act.end) };
          // An empty map or list prints `{}` or `[]`: the value of a `key:` waiting for one, else nothing to read.
          const before = out.trim() !== '' ? out : ([...outText].reverse().find((l) => l.trim() !== '') ?? '');
          const empty = !isCollection(value);
          const printed = empty
            ? /:\s*$/.test(before) && typeof value === 'object'
              ? [{ text: inlineValue(value), path: yaml.path }]
              : []
            : yamlLines(value, yaml.path);
          for (const l of printed)
            blockLines.push({ text: ' '.repeat(yaml.indent) + l.text, origin: values.originOf(l.path) });
          block.origin = values.originOf(yaml.path);
        }
        const named = !block && values && helpers && current === undefined ? namedBlock(act.inner, values) : undefined;
        if (named && here.filter((h) => h.kind === 'output').length === 1) {
          block = { start: from - lineStart, end: to - lineStart, action: text.slice(act.start, act.end) };
          blockLines.push(...named);
        }
        if (!block && active()) unreadBlocks.push({ line: lines.length, action: text.slice(act.start, act.end) });
        const unknown = !block && !actionOnly;
        if (unknown)
          placeholders.push({
            line: lines.length,
            start: out.length,
            end: out.length + width,
            action: text.slice(act.start, act.end),
          });
        // Unknown content: when literal lines below continue it (`- {{ … }}` then `  key:`), the
        // line ends with its key or dash; otherwise it stands as one unknown value.
        out += (unknown && !continuesBelow(srcLines, tplLine) ? 'x' : ' ').repeat(width);
      } else {
        const scalar = values ? scalarOf(act.inner, current, values) : undefined;
        const path = scalar?.path;
        // A value no file sets prints nothing: Helm removes Go's `<no value>` from what it renders.
        const value = scalar
          ? scalar.value === undefined || scalar.value === null
            ? ''
            : scalarText(scalar.value)
          : undefined;
        const named = value === undefined && values && helpers ? namedScalar(act.inner, values) : undefined;
        if ((path && values && value !== undefined) || named !== undefined) {
          const put = value ?? named ?? '';
          identity = false;
          (outLine.shifts ??= []).push({
            outStart: out.length,
            outEnd: out.length + put.length,
            tplStart: from - lineStart,
            tplEnd: to - lineStart,
            origin: path && values ? values.originOf(path) : undefined,
          });
          out += put;
        } else {
          placeholders.push({
            line: lines.length,
            start: out.length,
            end: out.length + width,
            action: text.slice(act.start, act.end),
          });
          out += 'x'.repeat(width);
        }
      }
      pos = Math.max(pos, to);
    }
    if (pos < lineEnd) out += activeText(text.slice(pos, lineEnd), active());
    if (!wasActive && !active()) {
      // A branch Helm would not render (or, undecided, the `else` of one that is kept).
      out = '';
      placeholders.splice(placeholders.findIndex((p) => p.line === lines.length) >>> 0);
      block = undefined;
      outLine = { tplLine };
    }
    if (out.trim() === '' && !(block && blockLines.length > 0)) {
      // Left blank: emptied, because a line of spaces longer than the next line's indentation
      // breaks a block scalar (`data: |` whose first lines are actions).
      if (out.replace(/\r$/, '').length > 0) identity = false;
      out = blankLine(out);
    }
    if (!(block && blockLines.length > 0) || !actionOnly) {
      if (block?.origin && blockLines.length > 0) outLine.valueOrigin = block.origin;
      push(out, outLine);
    }
    if (block && blockLines.length > 0) {
      identity = false;
      for (const b of blockLines) {
        for (const h of b.holes ?? []) placeholders.push({ line: lines.length, ...h });
        push(b.text, {
          tplLine,
          block: { ...block, origin: b.origin ?? block.origin },
          ...(b.undecided ? { undecided: b.undecided } : {}),
        });
      }
    }
    outLine = { tplLine };
    lineStart = lineEnd + 1;
  }
  return { text: outText.join('\n'), lines, placeholders, identity, unreadBlocks };
}

/** A line of a branch Helm does not render: nothing (its carriage return kept). */
function blankLine(src: string): string {
  return src.endsWith('\r') ? '\r' : '';
}

/** Literal text as rendered: itself in an active branch, spaces in one Helm leaves out. */
function activeText(literal: string, active: boolean): string {
  return active ? literal : literal.replace(/[^\r]/g, ' ');
}

/** True when the next line with literal text is indented deeper than this one: it belongs to this line's node. */
function continuesBelow(srcLines: string[], tplLine: number): boolean {
  const indent = (l: string) => l.length - l.trimStart().length;
  for (let k = tplLine + 1; k < srcLines.length; k++) {
    const literal = srcLines[k].replace(/\{\{.*?\}\}/g, '');
    if (literal.trim() === '' || literal.trimStart().startsWith('#')) continue;
    return indent(literal) > indent(srcLines[tplLine]);
  }
  return false;
}

/** True for an action, when asked for, that only blanks follow on its line. */
function endsLine(text: string, end: number, lineEnd: number, asked: boolean): boolean {
  return asked && text.slice(end, lineEnd).trim() === '';
}
