// `check --context C --write-reports [--report-api wgpolicyk8s|openreports]` and `--format policyreport`:
// the live findings written to the cluster as policy reports, or printed as YAML. The reports are
// built in core/reports/policy-report.ts; the API calls are cluster/policy-reports.ts; this decides
// what to write, what to delete, and what to say.
import type { KubeClient } from '../cluster/kube-client';
import { ApiError } from '../cluster/errors';
import {
  applyReport,
  deleteReport,
  listOurReports,
  REPORT_FIELD_MANAGER,
  servesReportApi,
} from '../cluster/policy-reports';
import type { LiveReport, UnreadList } from '../core/live/check';
import { writeYaml } from '../core/manifest/yaml-writer';
import { counted } from '../core/plural';
import {
  policyReports,
  REPORT_API_NAMES,
  REPORT_APIS,
  REPORT_MAX_BYTES,
  LEFT_OUT_ANNOTATION,
  type PolicyReportObject,
  type ReportApi,
} from '../core/reports/policy-report';
import { oneOf, refuse, UsageError, userMessage, warn } from './kit';

/** What the options ask of the reports: written to the cluster, or printed. */
export interface ReportRequest {
  api: ReportApi;
  write: boolean;
}

/**
 * `--write-reports`, `--report-api` and `--format policyreport`, checked against each other and the
 * rest of the command line; undefined when none is given.
 */
export function reportRequest(values: {
  'write-reports'?: boolean;
  'report-api'?: string;
  format?: string;
  context?: string;
  live: boolean;
}): ReportRequest | undefined {
  const write = values['write-reports'] === true;
  const print = values.format === 'policyreport';
  const name = oneOf('report-api', values['report-api'], REPORT_API_NAMES);
  if (!write && !print) {
    refuse(name, '--report-api goes with --write-reports or --format policyreport (it names the report API)');
    return undefined;
  }
  const flag = write ? '--write-reports' : '--format policyreport';
  if (values.context === undefined)
    throw new UsageError(`${flag} needs --context: the reports are of the live objects of a cluster`);
  if (!values.live) throw new UsageError(`${flag} is for the live check (no paths); with paths the files are checked`);
  if (write && print)
    throw new UsageError('--format policyreport prints the reports that --write-reports would write; give one of them');
  return { api: REPORT_APIS[name ?? 'wgpolicyk8s'], write };
}

/** Refuses before anything is read when the cluster does not serve the report API (its CRDs are not installed). */
export async function requireReportApi(kube: KubeClient, context: string, api: ReportApi): Promise<void> {
  let served;
  try {
    served = await servesReportApi(kube, api);
  } catch (err) {
    throw new UsageError(userMessage(err, context));
  }
  if (!served) {
    const other = api.name === 'wgpolicyk8s' ? 'openreports' : 'wgpolicyk8s';
    throw new UsageError(
      `cluster "${context}" does not serve ${api.group}/${api.version} ${api.kind} and ${api.clusterKind} (their CRDs are not installed): install them with \`${api.install}\`, or write the other API with --report-api ${other}`,
    );
  }
}

/** Prints the reports as a YAML stream (for `kubectl apply -f -`, GitOps, or a look before writing). */
export function printReports(live: LiveReport, api: ReportApi, version: string, now = new Date()): void {
  const reports = policyReports(live, { api: api.name, now, version });
  warnLeftOut(reports);
  if (reports.length === 0) warn(`no Windows objects found: no ${api.kind} to print`);
  process.stdout.write(reports.map((r) => writeYaml(r)).join('---\n'));
}

/**
 * Writes one report per namespace with Windows objects (the objects without a namespace in the
 * cluster-scoped one) and deletes our reports that are no longer needed in the namespaces read: a
 * re-run replaces each report whole, so the results of fixed or deleted objects are gone with it.
 */
export async function writeReports(
  kube: KubeClient,
  context: string,
  request: { api: ReportApi; namespace: string | undefined; version: string; unread?: UnreadList[] },
  live: LiveReport,
  now = new Date(),
): Promise<void> {
  const { api, namespace } = request;
  // A report replaces the last one whole: written from a partial read, it would drop what was not read.
  if (request.unread && request.unread.length > 0)
    throw new UsageError(
      `reports not written: ${request.unread.map((u) => u.what).join(', ')} could not be read, and a report without them would drop their results; grant list on them (docs/policy-reports.md has the RBAC)`,
    );
  const reports = policyReports(live, { api: api.name, now, version: request.version });
  warnLeftOut(reports);
  const key = (m: { name: string; namespace?: string }) => `${m.namespace ?? ''}/${m.name}`;
  const wanted = new Set(reports.map((r) => key(r.metadata)));
  try {
    const existing = await listOurReports(kube, api, namespace);
    const written: PolicyReportObject[] = [];
    for (const r of reports) if (await apply(kube, api, r, context)) written.push(r);
    const stale = existing.filter((r) => !wanted.has(key(r.metadata)));
    for (const r of stale) await deleteReport(kube, api, r);
    warn(summaryLine(api, written, stale.length));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(userMessage(err, context));
  }
}

/** Writes one report; false when its namespace is being deleted or is gone (nothing to report there any more). */
async function apply(kube: KubeClient, api: ReportApi, report: PolicyReportObject, context: string): Promise<boolean> {
  try {
    await applyReport(kube, api, report);
    return true;
  } catch (err) {
    if (namespaceGone(err)) {
      warn(`${report.kind} ${where(report)} not written: its namespace is being deleted`);
      return false;
    }
    if (err instanceof ApiError && err.status === 409)
      throw new UsageError(
        `the ${report.kind} ${where(report)} on cluster "${context}" has fields another field manager owns (${err.body?.message ?? 'conflict'}); kube-windows writes as "${REPORT_FIELD_MANAGER}" and never forces: delete that report or let its owner stop writing it`,
      );
    throw err;
  }
}

/** The API server's refusal to write into a namespace that is terminating (403), or that no longer exists (404). */
const namespaceGone = (err: unknown): boolean =>
  err instanceof ApiError &&
  ((err.status === 403 && /because it is being terminated/.test(err.body?.message ?? '')) ||
    (err.status === 404 && err.body?.details?.kind === 'namespaces'));

const where = (r: PolicyReportObject) =>
  r.metadata.namespace === undefined
    ? `${r.metadata.name} (cluster-scoped)`
    : `${r.metadata.namespace}/${r.metadata.name}`;

function summaryLine(api: ReportApi, reports: PolicyReportObject[], deleted: number): string {
  const namespaced = reports.filter((r) => r.metadata.namespace !== undefined);
  const cluster = reports.length - namespaced.length;
  const parts: string[] = [];
  if (namespaced.length > 0)
    parts.push(
      `${counted(namespaced.length, api.kind)} (${shortList(namespaced.map((r) => String(r.metadata.namespace)))})`,
    );
  if (cluster > 0) parts.push(`1 ${api.clusterKind}`);
  const wrote = parts.length > 0 ? `wrote ${parts.join(' and ')}` : `no Windows objects found: no ${api.kind} written`;
  return deleted > 0 ? `${wrote}; deleted ${counted(deleted, 'report')} no longer needed` : wrote;
}

/** Up to SHOWN names, then how many more: a cluster's hundreds of namespaces stay one readable line. */
function shortList(names: string[]): string {
  return names.length <= SHOWN
    ? names.join(', ')
    : `${names.slice(0, SHOWN).join(', ')} and ${names.length - SHOWN} more`;
}
const SHOWN = 10;

function warnLeftOut(reports: PolicyReportObject[]): void {
  for (const r of reports) {
    const n = Number(r.metadata.annotations?.[LEFT_OUT_ANNOTATION] ?? 0);
    if (n > 0)
      warn(
        `${r.kind} ${where(r)}: ${counted(n, 'result')} left out to keep the report under ${REPORT_MAX_BYTES / 1048576} MiB (passes and the least severe first); the summary counts them`,
      );
  }
}
