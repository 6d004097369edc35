import { constructFromEvents, parseEvents, EVENT_ID, YAML11_SCHEMA, type Event } from 'js-yaml';
import { parseWithQuotedTabs } from './quoted-tabs';
import { splitDocuments } from './split';
import { LineIndex, detectNewline, type Span } from './text';
import { buildTree, type PNode } from './positional-tree';
import { templateReason } from './template-text';
import { unclosedBefore } from './unclosed';

// Read once: through the bundler's interop every `EVENT_ID.X` is a getter call, and these run per event.
const EV_DOCUMENT = EVENT_ID.DOCUMENT;
const EV_ALIAS = EVENT_ID.ALIAS;

/** Why a document was not analysed. `ok` and `empty` documents are analysed (empty ones trivially). */
export type DocumentStatus = 'ok' | 'empty' | 'syntax-error' | 'template' | 'too-complex';

export interface ManifestDocument {
  index: number;
  /** Span of the document in the file text. */
  span: Span;
  text: string;
  status: DocumentStatus;
  /** Plain JavaScript value (YAML 1.1 schema, as the Kubernetes API server's YAML decoder reads it). */
  value: unknown;
  /** For non-ok documents: what happened and what to do. */
  reason?: string;
  /** Where the reason points (file offsets); defaults to the document start. */
  reasonSpan?: Span;
  /** The positional tree, built on first use from the same parser's events. */
  tree(): PNode | undefined;
}

export interface ManifestFile {
  text: string;
  newline: '\n' | '\r\n';
  documents: ManifestDocument[];
  /** Set when the whole file was not analysed (binary, too large). */
  skipped?: string;
  lines(): LineIndex;
  /** The line an offset is on, when the host already keeps a line table (an editor does). */
  lineAt?: (offset: number) => number;
}

export interface LoadOptions {
  /** Files larger than this are not analysed (bytes of text). */
  maxBytes?: number;
  /** Cap on the nodes that aliases add to one document when expanded (an alias bomb guard). */
  maxAliasExpansion?: number;
  /** Maximum collection nesting depth. */
  maxDepth?: number;
  /**
   * False when `{{ … }}` and `${VAR}` are literal text, not signs of a template to render first: a
   * chart template once its actions are set aside (what is left only Helm renders, and `${VAR}` there
   * is shell or env text), or a chart's values files (data, rendered by `tpl` if at all).
   */
  templateSyntax?: boolean;
  /**
   * The file lives in a `templates/` folder: `{{ … }}` there is a template whatever the document's
   * keys. Elsewhere only a document whose top-level keys name a Kubernetes object is taken for one
   * (`${{ … }}` in a GitHub workflow, `${VAR}` in docker-compose are those tools' own syntax).
   */
  underTemplates?: boolean;
}

export const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_ALIAS_EXPANSION = 100_000;
const DEFAULT_MAX_DEPTH = 256;

export function loadManifest(text: string, options: LoadOptions = {}): ManifestFile {
  const file = openManifest(text, options);
  if (file.skipped) return file;
  forEachDocument(file, options, (doc) => file.documents.push(doc));
  return file;
}

/** A file with its documents not loaded yet (`documents` is empty): for streaming over large files. */
export function openManifest(text: string, options: LoadOptions = {}): ManifestFile {
  let lineIndex: LineIndex | undefined;
  const file: ManifestFile = {
    text,
    newline: detectNewline(text),
    documents: [],
    lines: () => (lineIndex ??= new LineIndex(text)),
  };
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (text.length > maxBytes) {
    file.skipped = `file is ${mib(text.length)} MiB, over the ${mib(maxBytes)} MiB limit for one manifest; split it or raise the limit`;
    return file;
  }
  file.skipped = binaryReason(text);
  return file;
}

/**
 * Loads the documents of an opened file one at a time and hands each to `visit`. Callers that do
 * not keep the documents let them go right away, which keeps memory flat on 10 000-document files.
 * Indexes are dense over the documents that carry content.
 */
export function forEachDocument(
  file: ManifestFile,
  options: LoadOptions,
  visit: (doc: ManifestDocument) => void,
  part?: DocumentPart,
): void {
  if (file.skipped) return;
  let index = part?.firstIndex ?? 0;
  loadSpans(file.text, part?.spans ?? splitDocuments(file.text), options, (doc) => {
    doc.index = index++;
    visit(doc);
  });
}

/** A stretch of whole documents of a file, and the index its first document has in the whole file. */
export interface DocumentPart {
  spans: Span[];
  firstIndex: number;
}

/**
 * A file's documents cut into parts of about `chars` characters each (never inside a document), to be
 * loaded apart (on other threads) with the same indexes and positions as when the file is read whole.
 */
export function documentParts(text: string, chars: number): DocumentPart[] {
  const parts: DocumentPart[] = [];
  let current: DocumentPart = { spans: [], firstIndex: 0 };
  let size = 0;
  let index = 0;
  for (const span of splitDocuments(text)) {
    if (size >= chars) {
      parts.push(current);
      current = { spans: [], firstIndex: index };
      size = 0;
    }
    current.spans.push(span);
    size += span.end - span.start;
    // Indexes are dense over the documents that carry content (see loadSpans).
    if (hasContent(text.slice(span.start, span.end))) index++;
  }
  if (current.spans.length > 0) parts.push(current);
  return parts;
}

/**
 * Loads the given document spans of a text (in order; they need not be adjacent) and hands each
 * loaded document to `visit`; spans holding only comments are skipped. Adjacent spans are parsed
 * in batches. Index numbering is the caller's.
 */
export function loadSpans(
  fileText: string,
  spans: Span[],
  options: LoadOptions,
  visit: (doc: ManifestDocument) => void,
): void {
  const one = (span: Span) => {
    const doc = readDocument(fileText, span, 0, options, true);
    if (!doc) return;
    visit(doc);
    // The visitor had its chance to build the tree from the events of the first parse; past this
    // point a tree is built from a fresh parse, so that kept documents do not hold their events.
    keptEvents.delete(doc);
  };
  let i = 0;
  while (i < spans.length) {
    // A run of adjacent documents that are not templates is parsed in one call (see loadBatch).
    const run: Span[] = [];
    while (i < spans.length && run.length < BATCH_DOCUMENTS) {
      const span = spans[i];
      if (run.length > 0 && run[run.length - 1].end !== span.start) break;
      if (templateReason(fileText.slice(span.start, span.end), options)) break;
      run.push(span);
      i++;
    }
    if (run.length === 0) {
      one(spans[i++]);
      continue;
    }
    const batch = run.length > 1 ? loadBatch(fileText, run, options) : undefined;
    if (!batch) {
      run.forEach(one);
      continue;
    }
    for (const loaded of batch) {
      visit(loaded.doc);
      keptEvents.delete(loaded.doc);
    }
  }
}

/**
 * js-yaml spends ~10 µs setting up every parseEvents / constructFromEvents call (measured): on a
 * file of 10 000 small documents that is a fifth of the whole check. So consecutive documents are
 * parsed and constructed together, then handed out one by one. Not too many at once: a batch's
 * events and values live until its last document is checked, and every young-generation collection
 * copies them; 16 documents instead of 64 halved the collector's time on 10 000 varied workloads. Any error, or any doubt about which
 * parser document belongs to which span, returns undefined: the caller then loads the run document
 * by document, so a broken document still never hides its neighbours and its error points at it.
 */
const BATCH_DOCUMENTS = 16;

function loadBatch(fileText: string, run: Span[], options: LoadOptions): { doc: ManifestDocument }[] | undefined {
  const start = run[0].start;
  const text = fileText.slice(start, run[run.length - 1].end);
  let events: Event[];
  let values: unknown[];
  try {
    events = parseEvents(text, { maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH });
    values = constructFromEvents(events, { source: text, schema: YAML11_SCHEMA, maxTotalMergeKeys: MAX_MERGE_KEYS });
  } catch {
    return undefined;
  }
  // Where each parser document starts in the event stream, and which documents hold an alias: one pass.
  const docStarts: number[] = [];
  const aliased: boolean[] = [];
  for (let k = 0; k < events.length; k++) {
    const type = events[k].type;
    if (type === EV_DOCUMENT) {
      docStarts.push(k);
      aliased.push(false);
    } else if (type === EV_ALIAS && aliased.length > 0) aliased[aliased.length - 1] = true;
  }
  const spanTexts = run.map((sp) => fileText.slice(sp.start, sp.end));
  const emits = spanTexts.map((t) => hasContent(t) || opensDocument(t));
  if (docStarts.length !== values.length || emits.filter(Boolean).length !== values.length) return undefined;
  const out: { doc: ManifestDocument }[] = [];
  let parserDoc = 0;
  for (let k = 0; k < run.length; k++) {
    if (!emits[k]) continue;
    const d = parserDoc++;
    if (!hasContent(spanTexts[k])) continue;
    const from = docStarts[d];
    const to = d + 1 < docStarts.length ? docStarts[d + 1] : events.length;
    const value = values[d];
    if (aliased[d] || value === undefined) return undefined; // aliases get the careful, per-document path
    const doc = shell(spanTexts[k], run[k], 0, options);
    doc.value = value;
    // A finding needs this document's tree: build it from the batch's events rather than parse the
    // document a second time (that parse was most of what a finding cost). `slice` is cheap in V8.
    const base = run[k].start - start;
    keptEvents.set(doc, { source: text.slice(0, base + spanTexts[k].length), events, from, to, base });
    if (value === null) doc.status = 'empty';
    out.push({ doc });
  }
  return out;
}

/** A span the parser reads as a document even without content: it opens with `---` (after directives). */
function opensDocument(text: string): boolean {
  return /^(?:\uFEFF)?(?:[ \t]*(?:#[^\n]*)?\r?\n|%[^\n]*\n)*---(?:[ \t\r\n]|$)/.test(text);
}

/** Loads one document of a file; returns undefined for a span holding only comments and blanks. */
export function loadDocument(
  fileText: string,
  span: Span,
  index: number,
  options: LoadOptions = {},
): ManifestDocument | undefined {
  return readDocument(fileText, span, index, options, false);
}

function readDocument(
  fileText: string,
  span: Span,
  index: number,
  options: LoadOptions,
  keepEvents: boolean,
): ManifestDocument | undefined {
  const text = fileText.slice(span.start, span.end);
  if (!hasContent(text)) return undefined;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const doc = shell(text, span, index, options);

  const template = templateReason(text, options);
  if (template) {
    doc.status = 'template';
    doc.reason = template.reason;
    doc.reasonSpan = { start: span.start + template.offset, end: span.start + template.offset + template.length };
    return doc;
  }

  let events: Event[];
  let source: string;
  try {
    ({ events, source } = parseWithQuotedTabs(text, maxDepth));
    const values = constructFromEvents(events, { source, schema: YAML11_SCHEMA, maxTotalMergeKeys: MAX_MERGE_KEYS });
    doc.value = values.length > 0 ? values[0] : null;
  } catch (err) {
    const { message, offset, tooComplex } = describeYamlError(err, text, maxDepth);
    doc.status = tooComplex ? 'too-complex' : 'syntax-error';
    doc.reason = message;
    doc.reasonSpan = { start: span.start + offset, end: span.start + Math.min(text.length, offset + 1) };
    return doc;
  }

  if (events.some((e) => e.type === EV_ALIAS)) {
    const cap = options.maxAliasExpansion ?? DEFAULT_MAX_ALIAS_EXPANSION;
    // The cap is on what aliases add: a large document that merely uses aliases is not a bomb.
    // Without aliases, a walk of the value visits fewer nodes than there are events.
    if (expandedSizeExceeds(doc.value, events.length + cap)) {
      doc.status = 'too-complex';
      doc.reason = isCyclic(doc.value)
        ? 'an alias in this document refers to a node that contains it (a recursive structure); it was not analysed'
        : `aliases expand this document to more than ${cap.toLocaleString('en-US')} nodes (an alias bomb?); it was not analysed`;
      doc.value = undefined;
      return doc;
    }
  }
  if (doc.value === null || doc.value === undefined) doc.status = 'empty';
  if (source !== text) parsedAs.set(doc, source);
  if (keepEvents) keptEvents.set(doc, { source, events, from: 0, to: events.length, base: 0 });
  return doc;
}

/**
 * Events of a document's load, kept while a streaming caller may build its tree (see loadSpans):
 * the parsed text, where the document starts in it when it was parsed with its neighbours, and
 * which of the events are the document's.
 */
const keptEvents = new WeakMap<
  ManifestDocument,
  { source: string; events: Event[]; from: number; to: number; base: number }
>();

/** The text a document was parsed from when it is not its own (see parseWithQuotedTabs). */
const parsedAs = new WeakMap<ManifestDocument, string>();

/** A document before its value is loaded; its tree is built on first use. */
function shell(text: string, span: Span, index: number, options: LoadOptions): ManifestDocument {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  let tree: PNode | undefined;
  let treeBuilt = false;
  const doc: ManifestDocument = {
    index,
    span,
    text,
    status: 'ok',
    value: undefined,
    tree() {
      if (!treeBuilt) {
        treeBuilt = true;
        // Positions are needed only where there is a finding: build them from the kept events, or
        // parse again, rather than keep every document's events in memory.
        const kept = keptEvents.get(doc);
        keptEvents.delete(doc);
        if (doc.status === 'ok' || doc.status === 'empty') {
          const source = parsedAs.get(doc) ?? text;
          tree = kept
            ? buildTree(kept.source, kept.events, kept.base, kept.from, kept.to)
            : buildTree(source, parseEvents(source, { maxDepth }));
        }
      }
      return tree;
    },
  };
  return doc;
}

function hasContent(text: string): boolean {
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) {
      i++;
      continue;
    }
    if (c === 35 /* # */) {
      const nl = text.indexOf('\n', i);
      if (nl === -1) return false;
      i = nl + 1;
      continue;
    }
    if (c === 45 && text.startsWith('---', i) && (i + 3 >= n || /\s/.test(text[i + 3]))) {
      i += 3;
      continue;
    }
    if (c === 46 && text.startsWith('...', i)) {
      i += 3;
      continue;
    }
    if (c === 37 /* % directive */) {
      const nl = text.indexOf('\n', i);
      if (nl === -1) return false;
      i = nl + 1;
      continue;
    }
    return true;
  }
  return false;
}

/** What binaryReason counts; a text without any of them (nearly every manifest) is decided by one native search. */
const BINARY_SIGN = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFD]/;

function binaryReason(text: string): string | undefined {
  const sample = text.length > 8192 ? text.slice(0, 8192) : text;
  // A loop over every character of every file was 2% of checking a tree of 2 000 files.
  if (!BINARY_SIGN.test(sample)) return undefined;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0) return 'file holds binary data (NUL bytes), not YAML; it was not analysed';
    if (c < 32 && c !== 9 && c !== 10 && c !== 13) control++;
    else if (c === 0xfffd) control++;
  }
  if (sample.length > 0 && control / sample.length > 0.05) {
    return 'file looks binary (many control characters), not YAML; it was not analysed';
  }
  return undefined;
}

const MAX_MERGE_KEYS = 10_000;

/** A user-facing message for a parse failure: what went wrong, where, and whether it is about size. */
function describeYamlError(
  err: unknown,
  text: string,
  maxDepth: number,
): { message: string; offset: number; tooComplex: boolean } {
  if (err instanceof RangeError) {
    return { message: 'YAML nesting is too deep to analyse; it was not analysed', offset: 0, tooComplex: true };
  }
  const e = err as { reason?: string; message?: string; mark?: { position?: number; line?: number; column?: number } };
  const reason = String(e?.reason || e?.message || 'unreadable YAML')
    .split('\n')[0]
    .slice(0, 300);
  const offset = typeof e?.mark?.position === 'number' ? Math.max(0, Math.min(e.mark.position, text.length)) : 0;
  if (/maxDepth/.test(reason)) {
    return { message: `YAML nesting is deeper than ${maxDepth} levels; it was not analysed`, offset, tooComplex: true };
  }
  if (/maxTotalMergeKeys|maxAliases/.test(reason)) {
    return {
      message: `merge keys (<<) in this document copy more than ${MAX_MERGE_KEYS.toLocaleString('en-US')} keys (a merge bomb?); it was not analysed`,
      offset,
      tooComplex: true,
    };
  }
  // js-yaml gives up on an unclosed `{`, `[` or quote lines below it: point at where it was opened.
  const open = /deficient indentation|flow collection|end of the stream|unexpected end/.test(reason)
    ? unclosedBefore(text, offset)
    : undefined;
  if (open)
    return {
      message: `not valid YAML: ${open.what} opened here is not closed (${open.closer} missing); this document was not analysed`,
      offset: open.offset,
      tooComplex: false,
    };
  return { message: `not valid YAML: ${reason}; this document was not analysed`, offset, tooComplex: false };
}

/** True when a loaded value contains itself (`&a [*a]`). */
function isCyclic(value: unknown): boolean {
  // Iterative depth-first search over distinct objects: grey = on the current path.
  const state = new Map<object, 1 | 2>();
  const stack: { v: object; children: unknown[]; i: number }[] = [];
  const enter = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object') return false;
    const s = state.get(v);
    if (s === 1) return true;
    if (s === 2) return false;
    state.set(v, 1);
    stack.push({ v, children: Array.isArray(v) ? v : Object.values(v), i: 0 });
    return false;
  };
  if (enter(value)) return true;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i < top.children.length) {
      if (enter(top.children[top.i++])) return true;
    } else {
      state.set(top.v, 2);
      stack.pop();
    }
  }
  return false;
}

/** Counts nodes reachable from `value`, following shared references as an expander would. */
function expandedSizeExceeds(value: unknown, cap: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++count > cap) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const k in v as Record<string, unknown>) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

function mib(n: number): string {
  return (n / (1024 * 1024)).toFixed(n < 10 * 1024 * 1024 ? 1 : 0);
}
