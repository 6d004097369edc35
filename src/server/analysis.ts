import { loadSpans, openManifest, type ManifestDocument, type ManifestFile } from '../core/manifest/document';
import { splitDocuments } from '../core/manifest/split';
import type { Position, Range } from '../core/manifest/text';
import { documentChecker, finishFindings, gatherFacts } from '../core/rules/engine';
import type { ClusterSnapshot, Facts } from '../core/rules/facts';
import type { Finding } from '../core/rules/types';
import type { Settings } from './settings';

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
 * Checks open documents incrementally. A document's results are cached by its exact text, so an
 * edit re-checks only the YAML documents it touched; the others are moved to their new place.
 * Anything that changes every document's outcome (settings, facts, the cluster) clears the cache.
 */
export class Analyzer {
  private caches = new Map<string, { key: string; docs: Map<string, CachedDocument> }>();
  private clusterSnapshot: ClusterSnapshot | undefined;
  private settings: Settings;

  constructor(settings: Settings) {
    this.settings = settings;
  }

  configure(settings: Settings): void {
    this.settings = settings;
    this.caches.clear();
  }

  get cluster(): ClusterSnapshot | undefined {
    return this.clusterSnapshot;
  }

  setCluster(cluster: ClusterSnapshot | undefined): void {
    this.clusterSnapshot = cluster;
    this.caches.clear();
  }

  forget(uri: string): void {
    this.caches.delete(uri);
  }

  /** `lineAt` lets the analysis use the editor's line table instead of building another per edit. */
  analyze(uri: string, text: string, version: number, lineAt?: (offset: number) => number): Analysis {
    const file = openManifest(text);
    if (lineAt) file.lineAt = lineAt;
    const base: Analysis = { version, text, file, findings: [], documents: [], workloads: 0, windowsWorkloads: 0, rechecked: 0, ruleErrors: [] };
    if (file.skipped) {
      this.caches.delete(uri);
      return { ...base, skipped: file.skipped };
    }
    const facts = gatherFacts([text], this.settings.flavour, this.clusterSnapshot);
    const key = factsKey(facts, this.clusterSnapshot);
    const previous = this.caches.get(uri);
    const old = previous && previous.key === key ? previous.docs : new Map<string, CachedDocument>();
    const next = new Map<string, CachedDocument>();
    const check = documentChecker(file, { facts, severity: this.settings.rules, flavour: this.settings.flavour });
    const lineOf = file.lineAt ?? ((offset: number) => file.lines().positionAt(offset).line);
    const findings: Finding[] = [];
    // First find what the cache already knows, then load the rest in one go (adjacent documents
    // are parsed in batches: that is what makes opening a 5000-document file fast).
    const entries = splitDocuments(text).map((span) => {
      const docText = text.slice(span.start, span.end);
      return { span, docText, cached: old.get(docText) as CachedDocument | null | undefined };
    });
    const missing = entries.filter((e) => !e.cached);
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
        base.ruleErrors.push(...checked.ruleErrors);
        base.rechecked++;
        entry.cached = {
          findings: checked.findings.map((f) => rebase(f, -startLine, -doc.span.start, 0)),
          workloads: checked.workloads,
          windowsWorkloads: checked.windowsWorkloads,
        };
      },
    );
    let index = 0;
    for (const { span, docText, cached } of entries) {
      if (!cached) continue; // comments and blanks only: not a document
      next.set(docText, cached);
      const startLine = lineOf(span.start);
      base.documents.push({ index, span });
      for (const f of cached.findings) findings.push(rebase(f, startLine, span.start, index));
      base.workloads += cached.workloads;
      base.windowsWorkloads += cached.windowsWorkloads;
      index++;
    }
    this.caches.set(uri, { key, docs: next });
    base.findings = finishFindings(file, base.documents, findings);
    return base;
  }
}

/** The parts of the facts that change findings; when this key changes, cached results are stale. */
function factsKey(facts: Facts, cluster: ClusterSnapshot | undefined): string {
  return JSON.stringify([[...facts.runtimeClasses.entries()], [...facts.namespaces.entries()], [...facts.autoscaled.entries()], facts.podMonitors, facts.openshiftSeen, cluster ? 1 : 0]);
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
    fixes: f.fixes.map((fix) => ({ title: fix.title, edits: fix.edits.map((e) => ({ range: shiftRange(e.range, lines), newText: e.newText })) })),
    ...(f.related ? { related: f.related.map((r) => ({ range: shiftRange(r.range, lines), message: r.message })) } : {}),
  };
}
