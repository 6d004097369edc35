// The live check's findings as policy reports, pure: PolicyReport/ClusterPolicyReport
// (wgpolicyk8s.io/v1alpha2, what Kyverno, Trivy Operator and kube-bench's adapter write and Policy
// Reporter shows) or Report/ClusterReport (openreports.io/v1alpha1, its successor). One report per
// namespace, the objects without a namespace in the cluster-scoped one. The field names and enums are
// the CRDs' own (kyverno v1.19.1 config/crds/policyreport, reports-api v0.2.1 config/crd); the
// real API server checks every object against them in the tests (fieldValidation=Strict).
import type { LiveFinding, LiveObjectRef, LiveReport } from '../live/check';
import { RULES_BY_ID, docsUrl } from '../rules/registry';
import { SIGNATURES_BY_ID } from '../live/signatures';
import type { Severity } from '../rules/severity';

export const REPORT_API_NAMES = ['wgpolicyk8s', 'openreports'] as const;
export type ReportApiName = (typeof REPORT_API_NAMES)[number];

/** Where each report API lives and how a cluster gets its CRDs. */
export interface ReportApi {
  name: ReportApiName;
  group: string;
  version: string;
  kind: string;
  clusterKind: string;
  plural: string;
  clusterPlural: string;
  /** The one command that installs the CRDs (the published manifests at the release the tests use). */
  install: string;
}

export const REPORT_APIS: Readonly<Record<ReportApiName, ReportApi>> = {
  wgpolicyk8s: {
    name: 'wgpolicyk8s',
    group: 'wgpolicyk8s.io',
    version: 'v1alpha2',
    kind: 'PolicyReport',
    clusterKind: 'ClusterPolicyReport',
    plural: 'policyreports',
    clusterPlural: 'clusterpolicyreports',
    install:
      'kubectl apply --server-side -f https://raw.githubusercontent.com/kyverno/kyverno/v1.19.1/config/crds/policyreport/wgpolicyk8s.io_policyreports.yaml -f https://raw.githubusercontent.com/kyverno/kyverno/v1.19.1/config/crds/policyreport/wgpolicyk8s.io_clusterpolicyreports.yaml',
  },
  openreports: {
    name: 'openreports',
    group: 'openreports.io',
    version: 'v1alpha1',
    kind: 'Report',
    clusterKind: 'ClusterReport',
    plural: 'reports',
    clusterPlural: 'clusterreports',
    install:
      'kubectl apply --server-side -f https://raw.githubusercontent.com/openreports/reports-api/v0.2.1/config/crd/openreports.io_reports.yaml -f https://raw.githubusercontent.com/openreports/reports-api/v0.2.1/config/crd/openreports.io_clusterreports.yaml',
  },
};

/** Our reports' name (one per namespace, one cluster-scoped), source, policy and the label that finds them. */
export const REPORT_NAME = 'kube-windows';
export const REPORT_SOURCE = 'kube-windows';
export const REPORT_POLICY = 'kube-windows';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const REPORT_SELECTOR = `${MANAGED_BY_LABEL}=${REPORT_SOURCE}`;
/** The annotation that says how many results a report had to leave out to stay within REPORT_MAX_BYTES. */
export const LEFT_OUT_ANNOTATION = 'kube-windows.io/results-left-out';
/** The rule name of a pass result: the object passed every rule that ran. */
export const PASS_RULE = 'all-rules';

/**
 * What a report may weigh. etcd refuses objects over 1.5 MiB by default; a namespace with thousands of
 * findings would otherwise never be written. Kept well under, for the metadata the server adds.
 */
export const REPORT_MAX_BYTES = 1024 * 1024;

/** The CRDs' severity enum (critical, high, medium, low, info): ours mapped onto it. */
const SEVERITY: Record<Severity, ReportSeverity> = { error: 'high', warning: 'medium', info: 'info' };
type ReportSeverity = 'critical' | 'high' | 'medium' | 'low' | 'info';
/**
 * The CRDs' result enum (pass, fail, warn, error, skip): errors and warnings fail (as `check` fails a
 * build on them by default, --fail-on warning), info findings are hints and warn.
 */
const RESULT: Record<Severity, ReportResultKind> = { error: 'fail', warning: 'fail', info: 'warn' };
type ReportResultKind = 'pass' | 'fail' | 'warn' | 'error' | 'skip';

export interface ResourceReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  fieldPath?: string;
}

export interface ReportResult {
  source: string;
  policy: string;
  rule: string;
  category?: string;
  severity?: ReportSeverity;
  result: ReportResultKind;
  scored: boolean;
  message: string;
  timestamp: { seconds: number; nanos: number };
  resources: ResourceReference[];
  properties?: Record<string, string>;
}

export interface ReportSummary {
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
}

export interface PolicyReportObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
  };
  /** openreports.io only: the engine that writes the whole report. */
  source?: string;
  summary: ReportSummary;
  results: ReportResult[];
}

export interface ReportOptions {
  api: ReportApiName;
  /** When the check ran: every result's timestamp. */
  now: Date;
  /** The CLI's version, in an annotation (which kube-windows wrote the report). */
  version: string;
}

/** The reports for a live check: one per namespace with a Windows object, sorted; the cluster-scoped one first. */
export function policyReports(live: LiveReport, options: ReportOptions): PolicyReportObject[] {
  const api = REPORT_APIS[options.api];
  const timestamp = { seconds: Math.floor(options.now.getTime() / 1000), nanos: 0 };
  const byNamespace = new Map<string, ReportResult[]>();
  const add = (namespace: string | undefined, result: ReportResult) => {
    const key = namespace ?? '';
    const list = byNamespace.get(key);
    if (list) list.push(result);
    else byNamespace.set(key, [result]);
  };
  for (const o of live.objects) for (const f of o.findings) add(o.namespace, findingResult(o, f, timestamp));
  for (const o of live.passed) add(o.namespace, passResult(o, timestamp));
  return [...byNamespace.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([ns, results]) => reportObject(api, ns || undefined, results, options.version));
}

function reportObject(
  api: ReportApi,
  namespace: string | undefined,
  all: ReportResult[],
  version: string,
): PolicyReportObject {
  const { results, leftOut } = withinSize(all);
  const annotations: Record<string, string> = { 'kube-windows.io/version': version };
  if (leftOut > 0) annotations[LEFT_OUT_ANNOTATION] = String(leftOut);
  return {
    apiVersion: `${api.group}/${api.version}`,
    kind: namespace === undefined ? api.clusterKind : api.kind,
    metadata: {
      name: REPORT_NAME,
      ...(namespace !== undefined ? { namespace } : {}),
      labels: { [MANAGED_BY_LABEL]: REPORT_SOURCE },
      annotations,
    },
    ...(api.name === 'openreports' ? { source: REPORT_SOURCE } : {}),
    // The summary counts what was found, also what a too-large report had to leave out (the annotation says how many).
    summary: summaryOf(all),
    results,
  };
}

function summaryOf(results: readonly ReportResult[]): ReportSummary {
  const s: ReportSummary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const r of results) s[r.result]++;
  return s;
}

/**
 * The results that fit in REPORT_MAX_BYTES, most important first to stay: passes go before warnings,
 * warnings before failures, lower severities first. The order of those kept is unchanged.
 */
const utf8 = new TextEncoder();

function withinSize(results: ReportResult[]): { results: ReportResult[]; leftOut: number } {
  const sizes = results.map((r) => utf8.encode(JSON.stringify(r)).length + 1);
  let total = sizes.reduce((a, b) => a + b, 0);
  if (total <= REPORT_MAX_BYTES) return { results, leftOut: 0 };
  const weight = (r: ReportResult) => RESULT_WEIGHT[r.result] * 10 + SEVERITY_WEIGHT[r.severity ?? 'info'];
  const dropOrder = results.map((_, i) => i).sort((a, b) => weight(results[a]) - weight(results[b]) || b - a);
  const dropped = new Set<number>();
  for (const i of dropOrder) {
    if (total <= REPORT_MAX_BYTES) break;
    dropped.add(i);
    total -= sizes[i];
  }
  return { results: results.filter((_, i) => !dropped.has(i)), leftOut: dropped.size };
}
const RESULT_WEIGHT: Record<ReportResultKind, number> = { pass: 0, skip: 0, warn: 1, error: 2, fail: 3 };
const SEVERITY_WEIGHT: Record<ReportSeverity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

function reference(o: LiveObjectRef, fieldPath?: string): ResourceReference {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.name,
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
    ...(o.uid !== undefined ? { uid: o.uid } : {}),
    ...(fieldPath ? { fieldPath } : {}),
  };
}

function findingResult(o: LiveObjectRef, f: LiveFinding, timestamp: ReportResult['timestamp']): ReportResult {
  const rule = RULES_BY_ID.get(f.ruleId);
  const signature = rule ? undefined : SIGNATURES_BY_ID.get(f.ruleId);
  const properties: Record<string, string> = {};
  const title = rule?.title ?? signature?.title;
  if (title) properties.title = title;
  if (rule) properties.docs = docsUrl(f.ruleId);
  if (f.apiRejects !== undefined) properties.apiRejects = String(f.apiRejects);
  return {
    source: REPORT_SOURCE,
    policy: REPORT_POLICY,
    rule: f.ruleId,
    category: rule?.family ?? 'failures',
    severity: SEVERITY[f.severity],
    result: RESULT[f.severity],
    scored: true,
    message: f.message,
    timestamp,
    resources: [reference(o, f.path || undefined)],
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
  };
}

function passResult(o: LiveObjectRef, timestamp: ReportResult['timestamp']): ReportResult {
  return {
    source: REPORT_SOURCE,
    policy: REPORT_POLICY,
    rule: PASS_RULE,
    result: 'pass',
    scored: true,
    message: `${o.kind} ${o.name} passes every kube-windows rule that ran`,
    timestamp,
    resources: [reference(o)],
  };
}
