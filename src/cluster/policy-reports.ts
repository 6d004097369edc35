// The API calls of `check --write-reports`: whether the cluster serves a report API, our reports (found
// by their label), a report written whole by server-side apply (one request: never half-written), and
// a report deleted. What the reports hold is decided in core/reports/policy-report.ts.
import { REPORT_SELECTOR, type PolicyReportObject, type ReportApi } from '../core/reports/policy-report';
import { enc, getOrUndefined, listAll, type Meta } from './api';
import type { KubeClient } from './kube-client';

/** The field manager of everything `--write-reports` applies. */
export const REPORT_FIELD_MANAGER = 'kube-windows';

const groupVersion = (api: ReportApi) => `/apis/${api.group}/${api.version}`;

/** The collection of `api`'s reports: in one namespace, in all (namespace undefined), or the cluster-scoped ones. */
function reportCollection(api: ReportApi, scope: { namespace?: string; cluster?: boolean }): string {
  if (scope.cluster) return `${groupVersion(api)}/${api.clusterPlural}`;
  return scope.namespace === undefined
    ? `${groupVersion(api)}/${api.plural}`
    : `${groupVersion(api)}/namespaces/${enc(scope.namespace)}/${api.plural}`;
}

function reportPath(api: ReportApi, report: { metadata: { name: string; namespace?: string } }): string {
  const { name, namespace } = report.metadata;
  return `${reportCollection(api, namespace === undefined ? { cluster: true } : { namespace })}/${enc(name)}`;
}

/** Whether the API server serves both of `api`'s kinds (its CRDs are installed and established). */
export async function servesReportApi(kube: KubeClient, api: ReportApi, signal?: AbortSignal): Promise<boolean> {
  const list = await getOrUndefined<{ resources?: { name: string }[] }>(kube, groupVersion(api), signal);
  const names = new Set((list?.resources ?? []).map((r) => r.name));
  return names.has(api.plural) && names.has(api.clusterPlural);
}

/** Our reports (by label) in one namespace, or in every namespace and the cluster-scoped ones. */
export async function listOurReports(
  kube: KubeClient,
  api: ReportApi,
  namespace: string | undefined,
  signal?: AbortSignal,
): Promise<{ metadata: Meta }[]> {
  const query = { labelSelector: REPORT_SELECTOR };
  const namespaced = listAll<{ metadata: Meta }>(kube, reportCollection(api, { namespace }), query, signal);
  if (namespace !== undefined) return namespaced;
  const cluster = listAll<{ metadata: Meta }>(kube, reportCollection(api, { cluster: true }), query, signal);
  return (await Promise.all([cluster, namespaced])).flat();
}

/**
 * Writes a report whole by server-side apply with our field manager: created or replaced in one
 * request, its results list replaced as a whole (an atomic list in the CRDs). Never forced: a field
 * another manager owns is a conflict (409) for the caller to report. Strict field validation: a
 * field the CRD does not know is refused, never dropped.
 */
export async function applyReport(
  kube: KubeClient,
  api: ReportApi,
  report: PolicyReportObject,
  signal?: AbortSignal,
): Promise<void> {
  await kube.request('PATCH', reportPath(api, report), {
    body: report,
    contentType: 'application/apply-patch+yaml',
    query: { fieldManager: REPORT_FIELD_MANAGER, fieldValidation: 'Strict' },
    signal,
  });
}

export function deleteReport(
  kube: KubeClient,
  api: ReportApi,
  report: { metadata: { name: string; namespace?: string } },
  signal?: AbortSignal,
): Promise<void> {
  return kube.delete(reportPath(api, report), signal);
}
