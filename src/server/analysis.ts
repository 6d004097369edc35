import { loadSpans, openManifest, type ManifestDocument, type ManifestFile } from '../core/manifest/document';
import { splitDocuments, splitDocumentsFrom } from '../core/manifest/split';
import type { Position, Range, Span } from '../core/manifest/text';
import { documentChecker, finishFindings, gatherFacts, SUPPRESS_MARK } from '../core/rules/checker';
import { mayHoldFacts, withFileFlavour, type ClusterSnapshot, type Facts } from '../core/rules/facts';
import type { Finding } from '../core/rules/types';
import type { KubeWindowsSettings } from '../shared/protocol';
import type { Validator } from '../shared/validator-runner';
import { withExactApi } from '../core/exact-api/findings';
import { validatedKind } from '../core/exact-api/kinds';

/** What analysis reads of the settings. */
type AnalysisSettings = Pick<KubeWindowsSettings, 'flavour' | 'rules'> &
  Partial<Pick<KubeWindowsSettings, 'kubernetesVersion'>>;

/**
 * One YAML document's results, stored relative to the document's first line and offset. Only
 * results are kept, not the parsed value: hover parses the one document it needs, and memory
 * stays small on files of thousands of documents.
 */
interface CachedDocument {
  findings: Finding[];
  workloads: number;
  windowsWorkloads: number;
}

export interface Analysis {
  version: number;
  text: string;
  file: ManifestFile;
  findings: Finding[];
  /** The documents in file order, with their current spans and indexes (values are not kept). */
  documents: Pick<ManifestDocument, 'index' | 'span'>[];
  workloads: number;
  windowsWorkloads: number;
  skipped?: string;
  /** How many YAML documents were checked anew (the rest came from the cache). */
  rechecked: number;
  ruleErrors: { ruleId: string; message: string }[];
}

/**
 * What changed since the text last analysed: its first `prefix` and last `suffix` characters are
 * the same in both texts. The server keeps it from the editor's incremental changes.
 */
export interface ChangeWindow {
  prefix: number;
  suffix: number;
}

/** Adds one change (offsets in the text before it, its new text) to a window; `length` is that text's length. */
export function widenWindow(
  window: ChangeWindow | undefined,
  length: number,
  start: number,
  end: number,
): ChangeWindow {
  const w = window ?? { prefix: Infinity, suffix: Infinity };
  return { prefix: Math.min(w.prefix, start), suffix: Math.min(w.suffix, length - end) };
}

/** One span of the file: its text, and its results once checked (null: comments only, not a document). */
interface Entry {
  span: Span;
  text: string;
  cached: CachedDocument | null | undefined;
  /** Whether the span may hold facts (RuntimeClasses …) that change other documents' results. */
  facts: boolean;
  /** Whether the span holds a suppression comment. */
  suppress: boolean;
}

function entry(span: Span, text: string, cached: CachedDocument | null | undefined): Entry {
  return { span, text, cached, facts: mayHoldFacts(text), suppress: text.includes(SUPPRESS_MARK) };
}

interface FileState {
  text: string;
  key: string;
  facts: Facts;
  entries: Entry[];
}

/**
 * Checks open documents incrementally. Given what an edit changed, only the spans around it are
 * split and parsed again, and only the documents whose text changed are checked; the others keep
 * their results and are moved to their new place. Without it (first open, settings changed),
 * results are still reused for every document whose text is unchanged.
 * Anything that changes every document's outcome (settings, facts, the cluster) clears the cache.
 */
export class Analyzer {
  private states = new Map<string, FileState>();
  private clusterSnapshot: ClusterSnapshot | undefined;
  private settings: AnalysisSettings;
  private exactApi: Validator | undefined;

  constructor(settings: AnalysisSettings) {
    this.settings = settings;
  }

  configure(settings: AnalysisSettings): void {
    this.settings = settings;
    this.states.clear();
  }

  /** The API server's own verdict, added to each workload's findings (kubeWindows.exactApi); undefined: the rules alone. */
  setExactApi(validator: Validator | undefined): boolean {
    if (validator === this.exactApi) return false;
    this.exactApi = validator;
    this.states.clear();
    return true;
  }

  get cluster(): ClusterSnapshot | undefined {
    return this.clusterSnapshot;
  }

  setCluster(cluster: ClusterSnapshot | undefined): void {
    this.clusterSnapshot = cluster;
    this.states.clear();
  }

  forget(uri: string): void {
    this.states.delete(uri);
  }

  /**
   * `lineAt` lets the analysis use the editor's line table instead of building another per edit;
   * `change` says what changed since this uri's last analysis (unknown: every span is compared).
   */
  analyze(
    uri: string,
    text: string,
    version: number,
    lineAt?: (offset: number) => number,
    change?: ChangeWindow,
  ): Analysis {
    const file = openManifest(text);
    if (lineAt) file.lineAt = lineAt;
    const base: Analysis = {
      version,
      text,
      file,
      findings: [],
      documents: [],
      workloads: 0,
      windowsWorkloads: 0,
      rechecked: 0,
      ruleErrors: [],
    };
    if (file.skipped) {
      this.states.delete(uri);
      return { ...base, skipped: file.skipped };
    }
    const previous = this.states.get(uri);
    const spliced = previous && change ? splice(previous, text, change) : undefined;
    let entries: Entry[];
    let facts: Facts;
    let key: string;
    if (spliced && previous && !spliced.factsTouched) {
      ({ entries } = spliced);
      ({ facts, key } = previous);
    } else {
      facts = withFileFlavour(
        gatherFacts([text], this.settings.flavour, this.clusterSnapshot, this.settings.kubernetesVersion || undefined),
        text,
      );
      key = factsKey(facts, this.clusterSnapshot);
      const reusable = previous && previous.key === key;
      if (spliced && reusable) entries = spliced.entries;
      else {
        // Unknown change: reuse the results of every document whose text is unchanged.
        const old = new Map<string, CachedDocument | null | undefined>(
          reusable ? previous.entries.map((e) => [e.text, e.cached]) : [],
        );
        entries = splitDocuments(text).map((span) => {
          const docText = text.slice(span.start, span.end);
          return entry(span, docText, old.get(docText));
        });
      }
      if (spliced && !reusable) for (const e of entries) e.cached = undefined;
    }

    const check = documentChecker(file, {
      facts,
      flavoured: true,
      severity: this.settings.rules,
      flavour: this.settings.flavour,
    });
    const lineOf = file.lineAt ?? ((offset: number) => file.lines().positionAt(offset).line);
    // Load what the cache does not know in one go (adjacent documents are parsed in batches: that
    // is what makes opening a 5000-document file fast).
    const missing = entries.filter((e) => e.cached === undefined);
    const byStart = new Map(missing.map((e) => [e.span.start, e]));
    loadSpans(
      text,
      missing.map((e) => e.span),
      {},
      (doc) => {
        const entry = byStart.get(doc.span.start);
        if (!entry) return;
        const startLine = lineOf(doc.span.start);
        const checked = check(doc);
        if (this.exactApi && doc.status === 'ok' && validatedKind(doc.value))
          checked.findings = withExactApi(checked.findings, doc, this.exactApi.validate(doc.text), {
            lines: file.lines(),
            severityOf: (id, fallback) => this.settings.rules[id] ?? fallback,
            kubernetes: this.exactApi.kubernetes,
          });
        base.ruleErrors.push(...checked.ruleErrors);
        base.rechecked++;
        entry.cached = {
          findings: checked.findings.map((f) => rebase(f, -startLine, -doc.span.start, 0)),
          workloads: checked.workloads,
          windowsWorkloads: checked.windowsWorkloads,
        };
      },
    );
    for (const e of missing) e.cached ??= null; // comments and blanks only: not a document
    const findings: Finding[] = [];
    let index = 0;
    for (const { span, cached } of entries) {
      if (!cached) continue;
      base.documents.push({ index, span });
      if (cached.findings.length > 0) {
        const startLine = lineOf(span.start);
        for (const f of cached.findings) findings.push(rebase(f, startLine, span.start, index));
      }
      base.workloads += cached.workloads;
      base.windowsWorkloads += cached.windowsWorkloads;
      index++;
    }
    this.states.set(uri, { text, key, facts, entries });
    base.findings = finishFindings(
      file,
      base.documents,
      findings,
      entries.some((e) => e.suppress),
    );
    return base;
  }
}

/**
 * The entries of the new text from those of the old one and what changed: the spans before the
 * change are kept, the stretch around it is split again (new entries, to be checked), and the
 * spans after it are kept, shifted. Undefined when the window does not fit the texts.
 */
function splice(
  previous: FileState,
  text: string,
  change: ChangeWindow,
): { entries: Entry[]; factsTouched: boolean } | undefined {
  const oldEntries = previous.entries;
  const oldLength = previous.text.length;
  const { prefix, suffix } = change;
  if (!Number.isFinite(prefix) || !Number.isFinite(suffix))
    return prefix === Infinity && text === previous.text ? { entries: oldEntries, factsTouched: false } : undefined;
  if (prefix < 0 || suffix < 0 || prefix + suffix > Math.min(oldLength, text.length) || oldEntries.length === 0)
    return undefined;
  const delta = text.length - oldLength;
  const oldEnd = oldLength - suffix; // the change is [prefix, oldEnd) in the old text, [prefix, newEnd) in the new
  const newEnd = text.length - suffix;
  // The first span to split again: the one holding the change, or the one before when the change
  // reaches into the `---` that starts it (that boundary may be gone).
  let first = 0;
  while (first + 1 < oldEntries.length && oldEntries[first + 1].span.start + 4 <= prefix) first++;
  const from = first === 0 ? 0 : oldEntries[first].span.start; // 0: a byte order mark may have changed
  const oldStarts = new Map<number, number>();
  for (let i = first + 1; i < oldEntries.length; i++)
    if (oldEntries[i].span.start >= oldEnd) oldStarts.set(oldEntries[i].span.start, i);
  // Stop at the first boundary past the change, made by a marker line the change did not touch,
  // that was a boundary before: from there on, the old spans hold.
  const { spans, stoppedAt } = splitDocumentsFrom(
    text,
    from,
    (boundary, markerLine) => markerLine >= newEnd && oldStarts.has(boundary - delta),
  );
  const resumeAt = stoppedAt === undefined ? oldEntries.length : (oldStarts.get(stoppedAt - delta) as number);
  let factsTouched = false;
  for (let i = first; i < resumeAt; i++) factsTouched ||= oldEntries[i].facts;
  const entries = oldEntries.slice(0, first);
  for (const span of spans) {
    const e = entry(span, text.slice(span.start, span.end), undefined);
    factsTouched ||= e.facts;
    entries.push(e);
  }
  for (let i = resumeAt; i < oldEntries.length; i++) {
    const e = oldEntries[i];
    entries.push(delta === 0 ? e : { ...e, span: { start: e.span.start + delta, end: e.span.end + delta } });
  }
  return { entries, factsTouched };
}

/** The parts of the facts that change findings; when this key changes, cached results are stale. */
function factsKey(facts: Facts, cluster: ClusterSnapshot | undefined): string {
  return JSON.stringify([
    [...facts.runtimeClasses.entries()],
    [...facts.namespaces.entries()],
    [...facts.autoscaled.entries()],
    [...facts.claims.entries()],
    [...facts.volumes.entries()],
    facts.podMonitors,
    facts.openshiftSeen,
    cluster ? 1 : 0,
  ]);
}

function shiftPos(p: Position, lines: number): Position {
  return { line: p.line + lines, character: p.character };
}

function shiftRange(r: Range, lines: number): Range {
  return { start: shiftPos(r.start, lines), end: shiftPos(r.end, lines) };
}

/** Moves a finding by whole lines and offsets (documents always start at a line start). */
function rebase(f: Finding, lines: number, offset: number, document: number): Finding {
  if (lines === 0 && offset === 0 && f.document === document) return f;
  return {
    ...f,
    document,
    range: shiftRange(f.range, lines),
    span: { start: f.span.start + offset, end: f.span.end + offset },
    fixes: f.fixes.map((fix) => ({
      title: fix.title,
      kind: fix.kind,
      edits: fix.edits.map((e) => ({ range: shiftRange(e.range, lines), newText: e.newText })),
    })),
    ...(f.related
      ? { related: f.related.map((r) => ({ range: shiftRange(r.range, lines), message: r.message })) }
      : {}),
  };
}
