// Installing WMCO as the OKD/OpenShift documentation describes: the namespace with the
// cluster-monitoring label, an OperatorGroup targeting it, a Subscription on channel "stable" with
// the approval strategy the user picked, then following the ClusterServiceVersion to Succeeded.

import type { KubeClient } from '../cluster/client';
import { createIfMissing, getOrUndefined, WMCO_PACKAGE, wmcoCsv } from './cluster-api';
import { waitFor } from './follow';
import type { Step } from './plan';

export interface WmcoInstallOptions {
  approval: 'Automatic' | 'Manual';
  channel?: string;
  /** Catalog: redhat-operators on OpenShift, community-operators on OKD. */
  source?: string;
  /** Limit for the CSV to reach Succeeded (default 15 min). */
  timeoutMs?: number;
}

interface InstallPlan {
  metadata: { name: string };
  spec?: { approved?: boolean; approval?: string; clusterServiceVersionNames?: string[] };
  status?: { phase?: string };
}

export function wmcoInstallSteps<Ctx>(ns: string, o: WmcoInstallOptions, kube: (ctx: Ctx) => KubeClient, pollMs: number): Step<Ctx>[] {
  const channel = o.channel ?? 'stable';
  const sourceText = o.source ?? 'redhat-operators (community-operators on OKD)';
  const timeoutMs = o.timeoutMs ?? 15 * 60_000;
  const nsBody = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'openshift.io/cluster-monitoring': 'true' } } };
  const ogPath = `/apis/operators.coreos.com/v1/namespaces/${ns}/operatorgroups`;
  const ogBody = { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: WMCO_PACKAGE, namespace: ns }, spec: { targetNamespaces: [ns] } };
  const subPath = `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/subscriptions`;
  const subBody = (source: string) => ({
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: { name: WMCO_PACKAGE, namespace: ns },
    spec: { channel, installPlanApproval: o.approval, name: WMCO_PACKAGE, source, sourceNamespace: 'openshift-marketplace' },
  });
  return [
    {
      id: 'wmco-namespace',
      title: `Create the namespace ${ns} (cluster monitoring enabled)`,
      preview: { check: `namespace ${ns} exists with label openshift.io/cluster-monitoring=true`, api: [{ verb: 'POST', path: '/api/v1/namespaces', body: nsBody }] },
      check: async (ctx, signal) => {
        const found = await getOrUndefined<{ metadata: { labels?: Record<string, string> } }>(kube(ctx), `/api/v1/namespaces/${ns}`, signal);
        return found?.metadata.labels?.['openshift.io/cluster-monitoring'] === 'true' ? 'done' : 'todo';
      },
      apply: async (ctx, signal) => {
        if ((await createIfMissing(kube(ctx), '/api/v1/namespaces', nsBody, signal)) === 'exists') {
          await kube(ctx).patch(`/api/v1/namespaces/${ns}`, { metadata: { labels: { 'openshift.io/cluster-monitoring': 'true' } } }, 'merge', signal);
        }
      },
      verify: async (ctx, signal) => ((await getOrUndefined(kube(ctx), `/api/v1/namespaces/${ns}`, signal)) ? true : 'the namespace is missing'),
      retries: 2,
      timeoutMs: 60_000,
    },
    {
      id: 'wmco-operatorgroup',
      title: 'Create the OperatorGroup',
      preview: { check: `an OperatorGroup exists in ${ns}`, api: [{ verb: 'POST', path: ogPath, body: ogBody }] },
      check: async (ctx, signal) => (((await getOrUndefined<{ items?: unknown[] }>(kube(ctx), ogPath, signal))?.items?.length ?? 0) > 0 ? 'done' : 'todo'),
      apply: async (ctx, signal) => void (await createIfMissing(kube(ctx), ogPath, ogBody, signal)),
      verify: async () => true,
      retries: 2,
      timeoutMs: 60_000,
    },
    {
      id: 'wmco-subscription',
      title: `Subscribe to ${WMCO_PACKAGE} (channel ${channel}, ${o.approval} approval, catalog ${sourceText})`,
      preview: {
        check: `Subscription ${WMCO_PACKAGE} exists in ${ns}`,
        api: [
          { verb: 'GET', path: '/apis/config.openshift.io/v1/clusterversions/version' },
          { verb: 'POST', path: subPath, body: subBody(sourceText) },
        ],
      },
      check: async (ctx, signal) => ((await getOrUndefined(kube(ctx), `${subPath}/${WMCO_PACKAGE}`, signal)) ? 'done' : 'todo'),
      apply: async (ctx, signal, report) => {
        const source = o.source ?? ((await isOkd(kube(ctx), signal)) ? 'community-operators' : 'redhat-operators');
        report(`catalog ${source}`);
        await createIfMissing(kube(ctx), subPath, subBody(source), signal);
      },
      verify: async () => true,
      retries: 2,
      timeoutMs: 60_000,
    },
    {
      id: 'wmco-csv',
      title: 'Wait for the operator to install (ClusterServiceVersion Succeeded)',
      description: o.approval === 'Manual' ? 'With Manual approval the first InstallPlan is approved by this step (you asked for the install); later upgrades wait for your approval.' : undefined,
      preview: {
        check: 'the WMCO ClusterServiceVersion is Succeeded',
        api: [
          { verb: 'GET', path: `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/clusterserviceversions` },
          ...(o.approval === 'Manual' ? [{ verb: 'PATCH', path: `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/installplans/<first>`, body: { spec: { approved: true } } }] : []),
        ],
      },
      check: async (ctx, signal) => ((await wmcoCsv(kube(ctx), signal, ns))?.status?.phase === 'Succeeded' ? 'done' : 'todo'),
      apply: async (ctx, signal, report) => {
        let approved = false;
        await waitFor(
          async () => {
            if (o.approval === 'Manual' && !approved) {
              const plans = await getOrUndefined<{ items?: InstallPlan[] }>(kube(ctx), `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/installplans`, signal);
              const waiting = (plans?.items ?? []).find((p) => p.spec?.approved === false && (p.spec.clusterServiceVersionNames ?? []).some((n) => n.startsWith(WMCO_PACKAGE)));
              if (waiting) {
                await kube(ctx).patch(`/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/installplans/${waiting.metadata.name}`, { spec: { approved: true } }, 'merge', signal);
                report(`approved InstallPlan ${waiting.metadata.name}`);
                approved = true;
              }
            }
            const csv = await wmcoCsv(kube(ctx), signal, ns);
            if (csv?.status?.phase === 'Failed') throw new Error(`WMCO failed to install: ${csv.status.message ?? csv.status.reason ?? 'no message'} (ClusterServiceVersion ${csv.metadata.name}).`);
            if (csv?.status?.phase === 'Succeeded') return true;
            return { waiting: csv ? `${csv.metadata.name} ${csv.status?.phase ?? 'Pending'}` : 'no ClusterServiceVersion yet' };
          },
          {
            signal,
            intervalMs: pollMs,
            timeoutMs,
            report,
            timeoutMessage: (last) =>
              `WMCO did not install within ${Math.round(timeoutMs / 60_000)} min (${last}). Check the Subscription and InstallPlan in ${ns}, and that its catalog source is available.`,
          },
        );
      },
      verify: async (ctx, signal) => ((await wmcoCsv(kube(ctx), signal, ns))?.status?.phase === 'Succeeded' ? true : 'the CSV is not Succeeded'),
      timeoutMs: timeoutMs + 60_000,
    },
  ];
}

/** OKD announces itself in the ClusterVersion (its release image and version carry "okd"). */
async function isOkd(kube: KubeClient, signal?: AbortSignal): Promise<boolean> {
  const cv = await getOrUndefined<{ status?: { desired?: { image?: string; version?: string } } }>(kube, '/apis/config.openshift.io/v1/clusterversions/version', signal);
  const d = cv?.status?.desired;
  return /okd|origin/i.test(`${d?.image ?? ''} ${d?.version ?? ''}`);
}
