import { loadDocument, openManifest, type ManifestDocument, type ManifestFile } from '../core/manifest/document';
import { splitDocuments } from '../core/manifest/split';
import type { Position, Range } from '../core/manifest/text';
import { documentChecker, finishFindings, gatherFacts } from '../core/rules/engine';
import type { ClusterSnapshot, Facts } from '../core/rules/facts';
import type { Finding } from '../core/rules/types';
import type { Settings } from './settings';

/** One YAML document's results, stored relative to the document's first line and offset. */
interface CachedDocument {
  doc: ManifestDocument;
  findings: Finding[];
  workloads: number;
  windowsWorkloads: number;
}

export interface Analysis {
  version: number;
  text: string;
  file: ManifestFile;
  findings: Finding[];
  /** The documents in file order, with their current spans (for hover and code actions). */
  documents: ManifestDocument[];
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

  analyze(uri: string, text: string, version: number): Analysis {
    const file = openManifest(text);
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
    const lines = file.lines();
    const findings: Finding[] = [];
    let index = 0;
    for (const span of splitDocuments(text)) {
      const docText = text.slice(span.start, span.end);
      const startLine = lines.positionAt(span.start).line;
      let cached = old.get(docText) ?? next.get(docText);
      if (!cached) {
        const doc = loadDocument(text, span, index, {});
        if (!doc) continue;
        const checked = check(doc);
        base.ruleErrors.push(...checked.ruleErrors);
        base.rechecked++;
        cached = {
          doc,
          findings: checked.findings.map((f) => rebase(f, -startLine, -span.start, 0)),
          workloads: checked.workloads,
          windowsWorkloads: checked.windowsWorkloads,
        };
      } else if (!cached.doc) {
        continue;
      }
      next.set(docText, cached);
      // The same text may stand at a new place: give the document its current span and index.
      const doc: ManifestDocument = cached.doc.span.start === span.start && cached.doc.index === index ? cached.doc : relocate(cached.doc, span, index);
      base.documents.push(doc);
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
  return JSON.stringify([
    [...facts.runtimeClasses.entries()],
    [...facts.namespaces.entries()],
    [...facts.autoscaled.entries()],
    facts.openshiftSeen,
    cluster ? 1 : 0,
  ]);
}

function relocate(doc: ManifestDocument, span: { start: number; end: number }, index: number): ManifestDocument {
  // Same text, so the value and the tree (offsets relative to the document) stay valid.
  return { ...doc, span, index, tree: () => doc.tree() };
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
