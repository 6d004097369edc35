// Installing WMCO as the OKD/OpenShift documentation describes: the namespace with the
// cluster-monitoring label, an OperatorGroup targeting it, a Subscription on the channel (default
// "stable") with the approval strategy the user picked, then following the ClusterServiceVersion to
// Succeeded; and creating secret cloud-private-key from a key file. The same steps start a BYOH join
// plan (byoh.ts) and make the WMCO setup plan of their own (wmcoSetupPlan). The API calls are in
// cluster/wmco.ts.

import type { KubeClient } from '../cluster/kube-client';
import {
  approveWmcoInstallPlan,
  createKeySecret,
  createOperatorGroup,
  createSubscription,
  ensureOperatorNamespace,
  hasOperatorGroup,
  hasSubscription,
  keySecret,
  operatorNamespaceState,
  wmcoCalls,
  wmcoCsv,
  wmcoLocation,
} from '../cluster/wmco';
import { installKeyHashes } from '../cluster/openshift';
import {
  CLUSTER_MONITORING_LABEL,
  KEY_SECRET_KEY,
  WMCO_CATALOG_SOURCE,
  WMCO_NAMESPACE,
  WMCO_OKD_CATALOG_SOURCE,
  WMCO_PACKAGE,
} from '../core/well-known';
import { waitFor } from './follow';
import type { Secret, Step } from './plan';
import { prepare, type PreparedPlan } from './prepared';
import { keyInfo, pubKeyHash } from './ssh-key-info';

/** The kubeWindows.wmco.* settings and the CLI's --wmco-namespace, --olm-source, --olm-channel. */
export interface WmcoSettings {
  namespace?: string;
  source?: string;
  channel?: string;
}

/** An explicit install choice keeps its catalog and channel; otherwise the settings' apply. */
export function withCatalog(install: WmcoInstallOptions, s: WmcoSettings | undefined): WmcoInstallOptions {
  const where = wmcoLocation(s);
  return {
    ...install,
    ...((install.source ?? where.source) ? { source: install.source ?? where.source } : {}),
    channel: install.channel ?? where.channel,
  };
}

export interface WmcoInstallOptions {
  approval: 'Automatic' | 'Manual';
  channel?: string;
  /** Catalog: redhat-operators on OpenShift, community-operators on OKD. */
  source?: string;
  /** Limit for the CSV to reach Succeeded (default 15 min). */
  timeoutMs?: number;
}

export function wmcoInstallSteps<Ctx>(
  ns: string,
  o: WmcoInstallOptions,
  kube: (ctx: Ctx) => KubeClient,
  pollMs: number,
): Step<Ctx>[] {
  const where = wmcoLocation({
    namespace: ns,
    ...(o.source ? { source: o.source } : {}),
    ...(o.channel ? { channel: o.channel } : {}),
  });
  const sourceText = o.source ?? `${WMCO_CATALOG_SOURCE} (${WMCO_OKD_CATALOG_SOURCE} on OKD)`;
  const timeoutMs = o.timeoutMs ?? 15 * 60_000;
  return [
    {
      id: 'wmco-namespace',
      title: `Create the namespace ${ns} (cluster monitoring enabled)`,
      preview: {
        check: `namespace ${ns} exists with label ${CLUSTER_MONITORING_LABEL}=true`,
        api: [wmcoCalls.namespace(ns)],
      },
      check: async (ctx, signal) =>
        (await operatorNamespaceState(kube(ctx), ns, signal)) === 'ready' ? 'done' : 'todo',
      apply: async (ctx, signal) => ensureOperatorNamespace(kube(ctx), ns, signal),
      verify: async (ctx, signal) =>
        (await operatorNamespaceState(kube(ctx), ns, signal)) !== 'missing' ? true : 'the namespace is missing',
      leavesBehind: { state: `The namespace ${ns} exists (WMCO is not installed in it yet).` },
      retries: 2,
      timeoutMs: 60_000,
    },
    {
      id: 'wmco-operatorgroup',
      title: 'Create the OperatorGroup',
      preview: { check: `an OperatorGroup exists in ${ns}`, api: [wmcoCalls.operatorGroup(ns)] },
      check: async (ctx, signal) => ((await hasOperatorGroup(kube(ctx), ns, signal)) ? 'done' : 'todo'),
      apply: async (ctx, signal) => createOperatorGroup(kube(ctx), ns, signal),
      verify: async () => true,
      leavesBehind: { state: `The namespace ${ns} and its OperatorGroup exist (WMCO is not subscribed to yet).` },
      retries: 2,
      timeoutMs: 60_000,
    },
    {
      id: 'wmco-subscription',
      title: `Subscribe to ${WMCO_PACKAGE} (channel ${where.channel}, ${o.approval} approval, catalog ${sourceText})`,
      preview: {
        check: `Subscription ${WMCO_PACKAGE} exists in ${ns}`,
        api: [wmcoCalls.clusterVersion(), wmcoCalls.subscription(ns, { ...where, source: sourceText }, o.approval)],
      },
      check: async (ctx, signal) => ((await hasSubscription(kube(ctx), ns, signal)) ? 'done' : 'todo'),
      apply: async (ctx, signal, report) => {
        const source = await createSubscription(kube(ctx), where, o.approval, signal);
        report(`catalog ${source}`);
      },
      verify: async () => true,
      leavesBehind: {
        state:
          o.approval === 'Manual'
            ? `The Subscription to ${WMCO_PACKAGE} exists in ${ns}: its InstallPlan waits for an approval (oc get installplan -n ${ns}).`
            : `The Subscription to ${WMCO_PACKAGE} exists in ${ns}: OLM keeps installing the operator on its own.`,
      },
      retries: 2,
      timeoutMs: 60_000,
    },
    {
      id: 'wmco-csv',
      title: 'Wait for the operator to install (ClusterServiceVersion Succeeded)',
      description:
        o.approval === 'Manual'
          ? 'With Manual approval the first InstallPlan is approved by this step (you asked for the install); later upgrades wait for your approval.'
          : undefined,
      preview: {
        check: 'the WMCO ClusterServiceVersion is Succeeded',
        api: [wmcoCalls.csv(ns), ...(o.approval === 'Manual' ? [wmcoCalls.approveInstallPlan(ns)] : [])],
      },
      check: async (ctx, signal) =>
        (await wmcoCsv(kube(ctx), signal, ns))?.status?.phase === 'Succeeded' ? 'done' : 'todo',
      apply: async (ctx, signal, report) => {
        let approved = false;
        await waitFor(
          async () => {
            if (o.approval === 'Manual' && !approved) {
              const plan = await approveWmcoInstallPlan(kube(ctx), ns, signal);
              if (plan) {
                report(`approved InstallPlan ${plan}`);
                approved = true;
              }
            }
            const csv = await wmcoCsv(kube(ctx), signal, ns);
            if (csv?.status?.phase === 'Failed')
              throw new Error(
                `WMCO failed to install: ${csv.status.message ?? csv.status.reason ?? 'no message'} (ClusterServiceVersion ${csv.metadata.name}).`,
              );
            if (csv?.status?.phase === 'Succeeded') return true;
            return {
              waiting: csv ? `${csv.metadata.name} ${csv.status?.phase ?? 'Pending'}` : 'no ClusterServiceVersion yet',
            };
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
      verify: async (ctx, signal) =>
        (await wmcoCsv(kube(ctx), signal, ns))?.status?.phase === 'Succeeded' ? true : 'the CSV is not Succeeded',
      leavesBehind: {
        observed: true,
        state: `WMCO is installed in ${ns} (its Subscription keeps it up to date${o.approval === 'Manual' ? ' once you approve an upgrade' : ''}).`,
      },
      timeoutMs: timeoutMs + 60_000,
    },
  ];
}

/** Creates secret cloud-private-key from a private key file's PEM (never overwriting one). */
export function keySecretStep<Ctx>(
  ns: string,
  key: { pem: Secret; source: string },
  kube: (ctx: Ctx) => KubeClient,
): Step<Ctx> {
  return {
    id: 'cloud-private-key',
    title: `Create the cloud-private-key secret from ${key.source}`,
    description: 'WMCO uses this key to reach every BYOH host over SSH; it must not have a passphrase.',
    preview: {
      check: `the secret exists with a ${KEY_SECRET_KEY} entry (an existing secret is never overwritten)`,
      api: [wmcoCalls.createKeySecret(ns, key.pem)],
    },
    check: async (ctx, signal) => ((await keySecret(kube(ctx), signal, ns)).pem !== undefined ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      const info = keyInfo(key.pem.reveal());
      if (info.encrypted) throw new Error(`${key.source} has a passphrase; WMCO needs a key without one.`);
      if (info.invalid) throw new Error(`${key.source}: ${info.invalid}.`);
      if (info.hash && (await installKeyHashes(kube(ctx), pubKeyHash, signal)).includes(info.hash)) {
        report(
          `warning: ${key.source} is the key the cluster was installed with (MachineConfig 99-worker-ssh); WMCO recommends a different key for Windows hosts`,
        );
      }
      await createKeySecret(kube(ctx), key.pem.reveal(), signal, ns);
    },
    verify: async (ctx, signal) =>
      (await keySecret(kube(ctx), signal, ns)).pem !== undefined ? true : 'the secret is missing',
    leavesBehind: {
      state: `The secret cloud-private-key exists in ${ns}, from ${key.source}: WMCO uses it for every Windows host it configures.`,
    },
    retries: 2,
    timeoutMs: 60_000,
  };
}

/** What the WMCO setup does on its own (outside a join): install WMCO, create cloud-private-key, or both. */
export interface WmcoSetupOptions {
  kube: KubeClient;
  /** Where WMCO lives and which catalog and channel install it (the kubeWindows.wmco.* settings). */
  wmco?: WmcoSettings;
  installWmco?: WmcoInstallOptions;
  privateKey?: { pem: Secret; source: string };
  pollMs?: number;
}

/**
 * The join command's WMCO setup as a plan of its own, for what needs WMCO without joining a host
 * (creating a Windows MachineSet): the same steps the BYOH join plan starts with.
 */
export function wmcoSetupPlan(o: WmcoSetupOptions): PreparedPlan<undefined> {
  const ns = o.wmco?.namespace ?? WMCO_NAMESPACE;
  const steps: Step<WmcoSetupOptions>[] = [];
  if (o.installWmco)
    steps.push(
      ...wmcoInstallSteps<WmcoSetupOptions>(ns, withCatalog(o.installWmco, o.wmco), (c) => c.kube, o.pollMs ?? 5000),
    );
  if (o.privateKey) steps.push(keySecretStep<WmcoSetupOptions>(ns, o.privateKey, (c) => c.kube));
  return prepare({ id: 'wmco-setup', title: `Set up WMCO in ${ns}`, target: ns, steps }, o);
}
