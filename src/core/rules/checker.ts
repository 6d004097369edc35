// The rule checker: runs the rule registry over manifest text (checkText, documentChecker) and over
// objects read from a cluster (checkObject), with the facts the rules need, and places findings.
import {
  forEachDocument,
  openManifest,
  type DocumentPart,
  type LoadOptions,
  type ManifestDocument,
  type ManifestFile,
} from '../manifest/document';
import { splitDocuments } from '../manifest/split';
import { classifyDocument } from '../manifest/kubernetes-document';
import { loadDocument } from '../manifest/document';
import { opToEdits, EditError, type TextEdit } from '../manifest/edits';
import { pathString, spanFor } from '../manifest/path';
import { objectsOf, podSpecOf, type ObjectView } from '../manifest/workloads';
import { forwardLineCounter, LineIndex, type Position, type Range, type Span } from '../manifest/text';
import {
  clusterNote,
  collectFacts,
  emptyFacts,
  factsWithoutCluster,
  lineOf,
  mayHoldFacts,
  withFileFlavour,
  type ClusterSnapshot,
  type FactText,
  type Facts,
  type Flavour,
} from './facts';
import { RULES, RULES_BY_ID } from './registry';
import { normalizeRelease } from '../kubernetes-release';
import { targetingOf } from './targeting';
import type { SeveritySetting } from './severity';
import type { Finding, FixOut, ObjectRule, PodRule, Report, Rule, Severity } from './types';

export interface CheckOptions {
  /** Only these rules run (ids); default all. */
  only?: string[];
  /** These rules do not run. */
  disable?: string[];
  /** Per-rule severity, or `off`. */
  severity?: Record<string, SeveritySetting>;
  flavour?: Flavour;
  cluster?: ClusterSnapshot;
  /**
   * The Kubernetes release ("1.35") the rules decide by; wins over the cluster's and over the one in
   * `facts`. Default: the cluster's, else DEFAULT_KUBERNETES_RELEASE.
   */
  kubernetesVersion?: string;
  /** Facts gathered beforehand across several files; gathered from this text when absent. */
  facts?: Facts;
  /** Compute fix edits (default true). */
  fixes?: boolean;
  load?: LoadOptions;
}

export interface CheckResult {
  findings: Finding[];
  /** Set when the whole file was not analysed. */
  skipped?: string;
  /** Kubernetes documents checked. */
  documents: number;
  /** Documents of other tools' YAML (a workflow, docker-compose …), skipped without a finding. */
  notKubernetes: number;
  workloads: number;
  windowsWorkloads: number;
  /** Exceptions thrown by rules (bugs); the rest of the check went on. Never shown to users as a stack. */
  ruleErrors: { ruleId: string; message: string }[];
}

export function checkText(text: string, options: CheckOptions = {}): CheckResult {
  const { file, places, result } = checkDocuments(text, options);
  return file.skipped ? result : finish(file, places, result);
}

/** What one part of a file's check (checkTextPart) hands to joinTextParts: its findings not yet ordered. */
export interface PartCheck extends CheckResult {
  places: DocumentPlace[];
}

/**
 * Prepares the check of a file's parts (whole documents: see documentParts), for a file checked on
 * several threads: what every part shares (the file's lines, its facts, the active rules) is worked
 * out once per thread. `joinTextParts` joins the parts' results into exactly what checkText returns.
 */
export function textPartChecker(text: string, options: CheckOptions): (part: DocumentPart) => PartCheck {
  const prepared = prepareDocuments(text, options);
  return (part) => {
    const { places, result } = prepared(part);
    return { ...result, places };
  };
}

/** The check of a whole file from the checks of all its parts, given in the file's order. */
export function joinTextParts(text: string, options: CheckOptions, parts: PartCheck[]): CheckResult {
  const file = openManifest(text, options.load);
  const result = newResult(file);
  const places: DocumentPlace[] = [];
  for (const p of parts) {
    for (const f of p.findings) result.findings.push(f);
    for (const d of p.places) places.push(d);
    result.documents += p.documents;
    result.notKubernetes += p.notKubernetes;
    result.workloads += p.workloads;
    result.windowsWorkloads += p.windowsWorkloads;
    result.ruleErrors.push(...p.ruleErrors);
  }
  return file.skipped ? result : finish(file, places, result);
}

/** The documents of a file checked, their findings in the order found. */
function checkDocuments(
  text: string,
  options: CheckOptions,
): { file: ManifestFile; places: DocumentPlace[]; result: CheckResult } {
  return prepareDocuments(text, options)();
}

/** What checking a file's documents needs, prepared once; then checks them all, or one part of them. */
function prepareDocuments(
  text: string,
  options: CheckOptions,
): (part?: DocumentPart) => { file: ManifestFile; places: DocumentPlace[]; result: CheckResult } {
  const file = openManifest(text, options.load);
  if (file.skipped) return () => ({ file, places: [], result: newResult(file) });
  // Documents are checked in order: their lines are counted as they come, with no table of every line.
  file.lineAt ??= forwardLineCounter(text);
  const facts = withFileFlavour(
    withRelease(options.facts, options.kubernetesVersion) ??
      gatherFacts([text], options.flavour, options.cluster, options.kubernetesVersion),
    text,
  );
  const rules = activeRules(options);
  const bare = withoutCluster(facts, text);
  const load = options.load ?? {};
  return (part) => {
    const result = newResult(file);
    // Stream: each document is loaded, checked and let go, so memory stays flat on huge files.
    const places: DocumentPlace[] = [];
    forEachDocument(
      file,
      load,
      (doc) => {
        places.push({ index: doc.index, span: doc.span });
        const kind = classifyDocument(doc, load);
        if (kind === 'not-kubernetes') {
          result.notKubernetes++;
          return;
        }
        if (kind === 'kubernetes') result.documents++;
        checkDocument(file, doc, { facts, bare }, rules, options, result);
      },
      part,
    );
    return { file, places, result };
  };
}

/**
 * Gathers cross-document facts (RuntimeClasses, Namespaces, autoscalers, OpenShift objects)
 * from raw texts. Only documents whose text mentions a fact kind are parsed here. A text given
 * with its path makes the RuntimeClasses read from it carry their file and line.
 */
export function gatherFacts(
  texts: (string | FactText)[],
  flavour: Flavour = 'auto',
  cluster?: ClusterSnapshot,
  kubernetesVersion?: string,
): Facts {
  const facts = emptyFacts(flavour, cluster, kubernetesVersion);
  for (const entry of texts) {
    const { text, path } = typeof entry === 'string' ? { text: entry, path: undefined } : entry;
    if (!mayHoldFacts(text)) continue;
    for (const span of splitDocuments(text)) {
      const slice = text.slice(span.start, span.end);
      if (!mayHoldFacts(slice)) continue;
      const doc = loadDocument(text, span, 0);
      if (!doc || doc.status !== 'ok') continue;
      const kindAt = path === undefined ? -1 : slice.search(/^kind:\s*["']?RuntimeClass/m);
      const origin =
        kindAt === -1 || path === undefined ? undefined : { file: path, line: lineOf(text, span.start + kindAt) };
      for (const object of objectsOf(doc.value)) collectFacts(facts, object, origin);
    }
  }
  return facts;
}

interface ActiveRules {
  pod: PodRule[];
  objectByKind: Map<string, ObjectRule[]>;
  enabled: (id: string) => boolean;
  severityOf: (id: string, proposed: Severity) => SeveritySetting;
}

/**
 * The rules a set of options enables, worked out once while the options name the same rules: `check`
 * prepares every file with the same ones, and doing it per file was 1% of checking 2 000 files.
 */
export function activeRules(options: CheckOptions): ActiveRules {
  const key = `${options.only?.join(',') ?? ''}|${options.disable?.join(',') ?? ''}|${options.severity ? JSON.stringify(options.severity) : ''}`;
  if (lastActive?.key !== key) lastActive = { key, rules: selectRules(options) };
  return lastActive.rules;
}

let lastActive: { key: string; rules: ActiveRules } | undefined;

function selectRules(options: CheckOptions): ActiveRules {
  const only = options.only && options.only.length > 0 ? new Set(options.only) : undefined;
  const disabled = new Set(options.disable ?? []);
  // A copy: the selection is kept for later calls with the same content (see activeRules).
  const overrides = { ...options.severity };
  const enabled = (id: string) => (!only || only.has(id)) && !disabled.has(id) && overrides[id] !== 'off';
  const pod: PodRule[] = [];
  const objectByKind = new Map<string, ObjectRule[]>();
  for (const rule of RULES) {
    if (!enabled(rule.id)) continue;
    if (rule.scope === 'pod') pod.push(rule);
    else if (rule.scope === 'object') {
      for (const kind of rule.kinds) {
        const list = objectByKind.get(kind) ?? [];
        list.push(rule);
        objectByKind.set(kind, list);
      }
    }
  }
  return {
    pod,
    objectByKind,
    enabled,
    severityOf: (id, proposed) => {
      const o = overrides[id];
      return o ?? proposed;
    },
  };
}

/**
 * Incremental checking, for the language server: checks one document of a file (already loaded)
 * with facts gathered beforehand. Positions are those of the document's place in `file`; the
 * caller caches results per document text and calls `finishFindings` over the whole file.
 */
/** Where a document sits in its file: all the file-level steps need to know of it. */
export type DocumentPlace = Pick<ManifestDocument, 'index' | 'span'>;

export interface DocumentCheck {
  findings: Finding[];
  workloads: number;
  windowsWorkloads: number;
  ruleErrors: { ruleId: string; message: string }[];
}

/**
 * Prepares once per file what every document's check shares (active rules, the file's flavour).
 * Unlike checkText it checks every document: the editor analyses only files that hold Kubernetes
 * objects, and a document being typed there keeps its syntax errors before its `kind` is written.
 * `flavoured`: the facts already went through `withFileFlavour` for this text (an editor keeps
 * them across edits that cannot change it, and saves a scan of the whole text per keystroke).
 */
export function documentChecker(
  file: ManifestFile,
  options: CheckOptions & { facts: Facts; flavoured?: boolean },
): (doc: ManifestDocument) => DocumentCheck {
  const given = withRelease(options.facts, options.kubernetesVersion) ?? options.facts;
  const facts = options.flavoured ? given : withFileFlavour(given, file.text);
  const rules = activeRules(options);
  const bare = withoutCluster(facts, file.text);
  return (doc) => {
    const result = newResult(file);
    checkDocument(file, doc, { facts, bare }, rules, options, result);
    return {
      findings: result.findings,
      workloads: result.workloads,
      windowsWorkloads: result.windowsWorkloads,
      ruleErrors: result.ruleErrors,
    };
  };
}

/**
 * The file-level steps after every document was checked: one template notice, suppressions, order.
 * `maySuppress: false` says the text holds no suppression comment (the caller knows it per document).
 */
export function finishFindings(
  file: ManifestFile,
  documents: DocumentPlace[],
  findings: Finding[],
  maySuppress?: boolean,
): Finding[] {
  const result = newResult(file);
  result.findings = findings;
  return finish(file, documents, result, maySuppress).findings;
}

function newResult(file: ManifestFile): CheckResult {
  return {
    findings: [],
    documents: 0,
    notKubernetes: 0,
    workloads: 0,
    windowsWorkloads: 0,
    ruleErrors: [],
    ...(file.skipped ? { skipped: file.skipped } : {}),
  };
}

function finish(file: ManifestFile, documents: DocumentPlace[], result: CheckResult, maySuppress = true): CheckResult {
  collapseTemplateNotices(result);
  // Document order, whatever order the rules ran in: stable output, and "first finding" means the first in the file.
  result.findings.sort(
    (a, b) => a.span.start - b.span.start || a.span.end - b.span.end || a.ruleId.localeCompare(b.ruleId),
  );
  if (result.findings.length > 0 && maySuppress && file.text.includes(SUPPRESS_MARK)) {
    result.findings = applySuppressions(file, documents, result.findings);
  }
  return result;
}

/** The checker's facts, and the same without the cluster (worked out on first need), to mark what the cluster adds. */
interface CheckFacts {
  facts: Facts;
  bare?: () => Facts;
}

function withoutCluster(facts: Facts, text: string): (() => Facts) | undefined {
  if (!facts.cluster || facts.cluster.stated) return undefined;
  let bare: Facts | undefined;
  return () => (bare ??= factsWithoutCluster(facts, text));
}

const ENGINE_RULE: Record<string, string> = {
  'syntax-error': 'YAML001',
  template: 'YAML002',
  'too-complex': 'YAML003',
};

function checkDocument(
  file: ManifestFile,
  doc: ManifestDocument,
  { facts, bare }: CheckFacts,
  rules: ActiveRules,
  options: CheckOptions,
  result: CheckResult,
) {
  if (doc.status !== 'ok' && doc.status !== 'empty') {
    const id = ENGINE_RULE[doc.status];
    const rule = RULES_BY_ID.get(id);
    if (!rule || !rules.enabled(id)) return;
    const sev = rules.severityOf(id, rule.severity);
    if (sev === 'off') return;
    const span = doc.reasonSpan ?? { start: doc.span.start, end: doc.span.start };
    result.findings.push({
      ruleId: id,
      severity: sev,
      message: doc.reason ?? 'not analysed',
      range: documentRanges(file, doc)(span),
      span,
      fixes: [],
      document: doc.index,
      ...rejection(sev, rule.apiRejects),
    });
    return;
  }
  const pending = runRules(doc.value, facts, rules, result, bare);
  if (pending.length === 0) return;

  // Positions are needed only now: build this document's tree once.
  const tree = doc.tree();
  const base = doc.span.start;
  const rangeOf = documentRanges(file, doc);
  const toFile = (s: Span): Span => ({ start: s.start + base, end: s.end + base });
  for (const { ruleId, report, severity: proposed, cluster } of pending) {
    const severity = rules.severityOf(ruleId, proposed);
    if (severity === 'off') continue;
    const local = spanFor(tree, report.path, report.target ?? 'key') ?? { start: 0, end: 0 };
    const span = toFile(local);
    const fixes: FixOut[] = [];
    if (options.fixes !== false) {
      for (const fix of report.fixes ?? []) {
        const edits = fixEdits({ text: doc.text, root: tree, newline: file.newline }, fix.ops);
        if (edits)
          fixes.push({
            title: fix.title,
            kind: fix.kind,
            edits: edits.map((e) => ({ range: rangeOf(toFile(e.span)), newText: e.newText })),
          });
      }
    }
    const related = report.related?.map((r) => {
      const s = toFile(spanFor(tree, r.path, r.target ?? 'key') ?? { start: 0, end: 0 });
      return { range: rangeOf(s), message: r.message };
    });
    result.findings.push({
      ruleId,
      severity,
      message: cluster ? `${report.message} ${clusterNote(cluster)}` : report.message,
      range: rangeOf(span),
      span,
      fixes,
      ...(related ? { related } : {}),
      document: doc.index,
      ...(cluster ? { cluster } : {}),
      ...rejection(severity, report.apiRejects ?? RULES_BY_ID.get(ruleId)?.apiRejects),
    });
  }
}

/** `apiRejects` on error findings (false unless the rule or report says the API server refuses the object). */
function rejection(severity: Severity, apiRejects: boolean | undefined): { apiRejects?: boolean } {
  return severity === 'error' ? { apiRejects: apiRejects === true } : {};
}

/** A rule's report, with the cluster whose facts alone make it (see markClusterReports). */
type Pending = { ruleId: string; report: Report; severity: Severity; cluster?: string };

type Counts = { workloads: number; windowsWorkloads: number; ruleErrors: CheckResult['ruleErrors'] };

/**
 * Runs the active rules over the objects of one document value; reports carry paths, no positions.
 * With `bare` (the facts without the cluster), the reports of an object that has any are compared
 * with what the rules say without the cluster, and those only the cluster's facts make are marked.
 */
function runRules(value: unknown, facts: Facts, rules: ActiveRules, result: Counts, bare?: () => Facts): Pending[] {
  const pending: Pending[] = [];
  for (const object of objectsOf(value)) {
    const found = runObject(object, facts, rules, result);
    if (bare && facts.cluster && found.length > 0) {
      const without = runObject(object, bare(), rules, { workloads: 0, windowsWorkloads: 0, ruleErrors: [] });
      markClusterReports(found, without, facts.cluster.name);
    }
    pending.push(...found);
  }
  return pending;
}

function runObject(object: ObjectView, facts: Facts, rules: ActiveRules, result: Counts): Pending[] {
  const pending: Pending[] = [];
  // One reporter and one context per object, not per rule: this runs 70 rules × every pod.
  let current: Rule = RULES[0];
  const reporter = (r: Report) =>
    pending.push({ ruleId: current.id, report: r, severity: r.severity ?? current.severity });
  const objectRules = rules.objectByKind.get(object.kind);
  // Worked out once per object: object rules about workloads read them too.
  const pod = podSpecOf(object);
  const target = pod ? targetingOf(pod, facts) : undefined;
  if (objectRules) {
    const ctx = { object, facts, ...(pod && target ? { pod: { view: pod, target } } : {}) };
    for (const rule of objectRules) {
      current = rule;
      try {
        rule.check(ctx, reporter);
      } catch (err) {
        ruleFailed(rule.id, err, result);
      }
    }
  }
  if (!pod || !target) return pending;
  result.workloads++;
  if (target.os === 'windows') result.windowsWorkloads++;
  const ctx = { pod, target, facts };
  for (const rule of rules.pod) {
    current = rule;
    try {
      rule.check(ctx, reporter);
    } catch (err) {
      ruleFailed(rule.id, err, result);
    }
  }
  return pending;
}

/**
 * Marks the reports the files alone do not make: absent without the cluster's facts, or said there
 * in other words or with another severity (the cluster made them sharper). The rest stay unmarked,
 * so a check with a cluster reads like one without it plus what the cluster adds.
 */
function markClusterReports(found: Pending[], without: Pending[], cluster: string): void {
  const key = (p: Pending) =>
    `${p.ruleId}\u0000${pathString(p.report.path)}\u0000${p.report.target ?? ''}\u0000${p.severity}\u0000${p.report.message}`;
  const plain = new Set(without.map(key));
  for (const p of found) if (!plain.has(key(p))) p.cluster = cluster;
}

/** A finding on an object that has no text (a live object read from the cluster): located by field path. */
export interface ObjectFinding {
  ruleId: string;
  severity: Severity;
  message: string;
  /**
   * Field path in the object, as the API server writes it:
   * `spec.template.spec.containers[0].securityContext.privileged`.
   */
  path: string;
  /** Errors only: the API server rejects the object (a workload's template: it cannot create its pods). */
  apiRejects?: boolean;
}

export interface ObjectCheck {
  findings: ObjectFinding[];
  workloads: number;
  windowsWorkloads: number;
  ruleErrors: { ruleId: string; message: string }[];
}

/**
 * The same rules on a plain object (a live object from the cluster, or any value without source text):
 * the reports' paths become field paths; no positions, no fixes. `options.facts` should be gathered
 * beforehand (gatherObjectFacts) over every object checked with it.
 */
export function checkObject(value: unknown, options: CheckOptions = {}): ObjectCheck {
  const facts =
    withRelease(options.facts, options.kubernetesVersion) ??
    emptyFacts(options.flavour, options.cluster, options.kubernetesVersion);
  const result: ObjectCheck = { findings: [], workloads: 0, windowsWorkloads: 0, ruleErrors: [] };
  for (const { ruleId, report, severity: proposed } of runRules(value, facts, activeRules(options), result)) {
    const severity = options.severity?.[ruleId] ?? proposed;
    if (severity === 'off') continue;
    result.findings.push({
      ruleId,
      severity,
      message: report.message,
      path: pathString(report.path),
      ...rejection(severity, report.apiRejects ?? RULES_BY_ID.get(ruleId)?.apiRejects),
    });
  }
  return result;
}

/** Facts (RuntimeClasses, Namespaces, autoscalers) gathered from plain objects, as gatherFacts does from texts. */
export function gatherObjectFacts(
  values: Iterable<unknown>,
  flavour: Flavour = 'auto',
  cluster?: ClusterSnapshot,
  kubernetesVersion?: string,
): Facts {
  const facts = emptyFacts(flavour, cluster, kubernetesVersion);
  for (const value of values) for (const object of objectsOf(value)) collectFacts(facts, object);
  return facts;
}

/** The facts given, with the release asked for in place of theirs (when one is asked for and differs). */
function withRelease(facts: Facts | undefined, kubernetesVersion: string | undefined): Facts | undefined {
  const asked = normalizeRelease(kubernetesVersion);
  if (!facts || asked === undefined || (facts.kubernetesVersion === asked && facts.kubernetesVersionFrom === 'asked'))
    return facts;
  return { ...facts, kubernetesVersion: asked, kubernetesVersionFrom: 'asked' };
}

/** One "not analysed: template" notice per file is enough; it says how many documents it covers. */
function collapseTemplateNotices(result: CheckResult) {
  const notices = result.findings.filter((f) => f.ruleId === 'YAML002');
  if (notices.length < 2) return;
  // A new object: findings may be cached by the language server and must not change under it.
  const first = {
    ...notices[0],
    message: `${notices[0].message} (${notices.length} template documents in this file; none of them was analysed)`,
  };
  result.findings = result.findings.flatMap((f) => (f.ruleId !== 'YAML002' ? [f] : f === notices[0] ? [first] : []));
}

/**
 * File positions of spans inside one document, from a line table of that document alone plus the
 * line the document starts on. A whole-file table would be rebuilt on every keystroke in the editor.
 */
function documentRanges(file: ManifestFile, doc: DocumentPlace & { text: string }): (span: Span) => Range {
  const local = new LineIndex(doc.text);
  const start = doc.span.start;
  const startLine = file.lineAt ? file.lineAt(start) : file.lines().positionAt(start).line;
  const startChar = start - (file.text.lastIndexOf('\n', start - 1) + 1);
  const pos = (offset: number): Position => {
    const p = local.positionAt(offset - start);
    return { line: p.line + startLine, character: p.line === 0 ? p.character + startChar : p.character };
  };
  return (span) => ({ start: pos(span.start), end: pos(span.end) });
}

/** A rule threw (a bug): the check goes on; the failure is recorded, never shown as a stack. */
function ruleFailed(ruleId: string, err: unknown, result: Pick<CheckResult, 'ruleErrors'>) {
  result.ruleErrors.push({ ruleId, message: err instanceof Error ? err.message : String(err) });
}

/** All ops of one fix as text edits, or undefined when any op cannot be done safely. */
function fixEdits(
  ctx: Parameters<typeof opToEdits>[0],
  ops: Parameters<typeof opToEdits>[1][],
): TextEdit[] | undefined {
  const edits: TextEdit[] = [];
  try {
    for (const op of ops) edits.push(...opToEdits(ctx, op));
  } catch (err) {
    if (err instanceof EditError) return undefined;
    throw err;
  }
  // Edits of one fix must not overlap, or the result would be garbage.
  const sorted = [...edits].sort((a, b) => a.span.start - b.span.start);
  for (let i = 1; i < sorted.length; i++) if (sorted[i].span.start < sorted[i - 1].span.end) return undefined;
  return edits;
}

/** What every suppression comment contains. */
export const SUPPRESS_MARK = 'kube-windows-disable';
const SUPPRESS = /#\s*kube-windows-disable(-next-line)?(?:\s+([A-Za-z0-9_, ]+))?\s*$/;

/** `# kube-windows-disable-next-line [IDS]` and `# kube-windows-disable [IDS]` (rest of the document). */
function applySuppressions(file: ManifestFile, documents: DocumentPlace[], findings: Finding[]): Finding[] {
  const lines = file.lines();
  const nextLine = new Map<number, Set<string> | '*'>();
  const fromLine: { line: number; doc: number; ids: Set<string> | '*' }[] = [];
  const text = file.text;
  let idx = text.indexOf('kube-windows-disable');
  while (idx !== -1) {
    const pos = lines.positionAt(idx);
    const lineText = text.slice(lines.lineStart(pos.line), lines.lineEnd(pos.line));
    const m = SUPPRESS.exec(lineText);
    if (m) {
      const ids = m[2] && m[2].trim() ? new Set(m[2].split(/[\s,]+/).filter(Boolean)) : ('*' as const);
      if (m[1]) {
        // The next line that is not blank or a comment.
        let l = pos.line + 1;
        while (l < lines.lineCount && /^\s*(#.*)?$/.test(text.slice(lines.lineStart(l), lines.lineEnd(l)))) l++;
        nextLine.set(l, ids);
      } else {
        const doc = documents.find((d) => d.span.start <= idx && idx < d.span.end);
        fromLine.push({ line: pos.line, doc: doc?.index ?? -1, ids });
      }
    }
    idx = text.indexOf('kube-windows-disable', idx + 20);
  }
  const covers = (ids: Set<string> | '*' | undefined, id: string) => ids === '*' || (ids instanceof Set && ids.has(id));
  return findings.filter((f) => {
    if (covers(nextLine.get(f.range.start.line), f.ruleId)) return false;
    return !fromLine.some(
      (s) => (s.doc === f.document || s.doc === -1) && f.range.start.line > s.line && covers(s.ids, f.ruleId),
    );
  });
}
