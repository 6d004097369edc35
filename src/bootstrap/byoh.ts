// Joining a Windows host through WMCO's Bring-Your-Own-Host path (WMCO README "Configuring BYOH",
// controllers/configmap_controller.go): preflight over
// the API and SSH, optional setup (install WMCO, create cloud-private-key), the windows-instances
// entry, then following WMCO to the end: Node registered, CSRs approved, version == desired-version,
// Ready. And removal: the entry deleted, deconfiguration followed until the Node is gone.

import { lookup, reverse } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import type { KubeClient } from '../cluster/kube-client';
import { authorizedKeys, hostFacts, resolveName, type HostFacts } from '../core/windows/host-ops';
import type { WindowsHost } from '../remote/windows-host';
import { CSR_LIST_CALL, csrState, csrsForNode } from '../cluster/csr';
import { findNode, nodeCall, onWindowsNodeChange, WINDOWS_NODES_CALL, type NodeObject } from '../cluster/nodes';
import {
  CLUSTER_CONFIG_CALLS,
  clusterProxy,
  configNetwork,
  infrastructure,
  installKeyHashes,
  operatorNetwork,
} from '../cluster/openshift';
import {
  addInstance,
  csvVersion,
  keySecret,
  removeInstance,
  windowsInstances,
  wmcoCalls,
  wmcoCsv,
} from '../cluster/wmco';
import { WMCO_NAMESPACE } from '../core/well-known';
import { waitFor } from './follow';
import { readyStep } from './node-steps';
import type { LeavesBehind, Plan, Secret, Step } from './plan';
import { blocking, evaluateByoh, findingLine, nodeNameOf, PreflightError, type Finding } from './preflight';
import { proxyPreflightStep } from './proxy-preflight';
import { authorizedKeyHashes, keyInfo, pubKeyHash } from './ssh-key-info';
import { keySecretStep, wmcoInstallSteps, type WmcoInstallOptions } from './wmco-install';
import { counted } from '../core/plural';

export interface Resolver {
  lookup4(name: string): Promise<string[]>;
  /** [] when there is no PTR record. */
  reverse(ip: string): Promise<string[]>;
}

const systemResolver: Resolver = {
  async lookup4(name) {
    if (isIPv4(name)) return [name];
    try {
      return (await lookup(name, { family: 4, all: true })).map((a) => a.address);
    } catch {
      return [];
    }
  },
  async reverse(ip) {
    try {
      return await reverse(ip);
    } catch {
      return [];
    }
  },
};

export interface ByohOptions {
  kube: KubeClient;
  host: WindowsHost;
  address: string;
  user: string;
  namespace?: string;
  /** Install WMCO first when missing, with this approval strategy. */
  installWmco?: WmcoInstallOptions;
  /** Create cloud-private-key from this key when missing. */
  privateKey?: { pem: Secret; source: string };
  /** The SSH port kube-windows uses (WMCO always uses 22: another one is a preflight warning). */
  sshPort?: number;
  resolver?: Resolver;
  /** How often to poll the API while following WMCO (default 5 s). */
  pollMs?: number;
  /**
   * Limits of the follow steps (defaults: 20 min for the node, 10 min for the rest; WMCO itself waits 10 min per
   * phase).
   */
  timeouts?: Partial<Record<'node' | 'csr' | 'version' | 'ready' | 'remove', number>>;
}

/** What the run learns on the way (filled by preflight, used by later steps). */
export interface ByohState {
  facts?: HostFacts;
  nodeName?: string;
  findings?: Finding[];
  node?: NodeObject;
}

export interface ByohContext {
  opts: ByohOptions;
  state: ByohState;
}

const DEFAULT_TIMEOUTS = {
  node: 20 * 60_000,
  csr: 10 * 60_000,
  version: 15 * 60_000,
  ready: 10 * 60_000,
  remove: 15 * 60_000,
};

/** Reads everything the BYOH preflight needs and evaluates it. Never throws for a failed check. */
async function byohPreflight(ctx: ByohContext, signal?: AbortSignal): Promise<Finding[]> {
  const { kube, host, address } = ctx.opts;
  const ns = ctx.opts.namespace ?? WMCO_NAMESPACE;
  const resolver = ctx.opts.resolver ?? systemResolver;
  const facts = await host.run(hostFacts(), signal);
  ctx.state.facts = facts;
  ctx.state.nodeName = nodeNameOf(facts.hostname);

  const [csv, secret, opNet, cfgNet, proxy, infra, instances, hostKeys, installKeys] = await Promise.all([
    wmcoCsv(kube, signal, ns),
    keySecret(kube, signal, ns),
    operatorNetwork(kube, signal),
    configNetwork(kube, signal),
    clusterProxy(kube, signal),
    infrastructure(kube, signal),
    windowsInstances(kube, signal, ns),
    host.run(authorizedKeys(), signal),
    installKeyHashes(kube, pubKeyHash, signal),
  ]);

  const secretFacts: Parameters<typeof evaluateByoh>[0]['keySecret'] = {
    present: secret.present,
    hasKey: secret.pem !== undefined,
  };
  const pem = secret.pem ?? ctx.opts.privateKey?.pem.reveal();
  if (pem) Object.assign(secretFacts, keyInfo(pem));

  let apiInt: Parameters<typeof evaluateByoh>[0]['apiInt'];
  const apiUrl = infra?.status?.apiServerInternalURI;
  if (apiUrl) {
    const apiHost = new URL(apiUrl).hostname;
    const resolved = await host.run(resolveName(apiHost), signal);
    apiInt = {
      host: apiHost,
      resolvedFromHost: resolved.addresses,
      ...(resolved.error ? { error: resolved.error } : {}),
    };
  }

  const hybrid = opNet?.spec?.defaultNetwork?.ovnKubernetesConfig?.hybridOverlayConfig;
  const findings = evaluateByoh({
    address,
    addressIsIPv6: isIPv6(address),
    addressIPv4: isIPv6(address) ? [] : await resolver.lookup4(address),
    ...(isIPv4(address) ? { reverseNames: await resolver.reverse(address) } : {}),
    facts,
    ...(csv
      ? {
          csv: {
            name: csv.metadata.name,
            ...(csv.status?.phase ? { phase: csv.status.phase } : {}),
            ...(csv.status?.message ? { message: csv.status.message } : {}),
            ...(csvVersion(csv) ? { version: csvVersion(csv) as string } : {}),
          },
        }
      : {}),
    installsWmco: Boolean(ctx.opts.installWmco),
    ...(ctx.opts.sshPort !== undefined ? { sshPort: ctx.opts.sshPort } : {}),
    keySecret: secretFacts,
    createsKeySecret: Boolean(ctx.opts.privateKey),
    hostKeyHashes: authorizedKeyHashes(hostKeys.keys),
    installKeyHashes: installKeys,
    operatorNetwork: opNet
      ? {
          ...(opNet.spec?.defaultNetwork?.type ? { type: opNet.spec.defaultNetwork.type } : {}),
          hybrid: Boolean(hybrid?.hybridClusterNetwork?.length),
          ...(hybrid?.hybridOverlayVXLANPort !== undefined ? { vxlanPort: hybrid.hybridOverlayVXLANPort } : {}),
        }
      : undefined,
    clusterNetworks: (cfgNet?.spec?.clusterNetwork ?? []).map((n) => n.cidr),
    proxy: proxy?.spec,
    apiInt,
    ...(instances?.[address] !== undefined ? { existingEntry: instances[address] } : {}),
  } as Parameters<typeof evaluateByoh>[0]);
  ctx.state.findings = findings;
  return findings;
}

/**
 * Once the entry is written WMCO acts on its own: a stop of kube-windows stops only the following. Removing the node
 * (its entry deleted, WMCO deconfigures the host) undoes it.
 */
function byohLeaves(ctx: ByohContext, what: string, observed = false): LeavesBehind {
  const node = ctx.state.node?.metadata.name;
  return {
    ...(observed ? { observed } : {}),
    state: `${what} WMCO keeps configuring ${ctx.opts.address} on its own and the node joins without kube-windows following it.`,
    undo: {
      command: 'kubeWindows.removeNode',
      label: 'Remove node…',
      node: node ?? ctx.opts.address,
      cli: `\`kube-windows remove --address ${ctx.opts.address}\` undoes it.`,
    },
  };
}

/** The Windows nodes' watch wakes the follow steps: their progress moves when the tree does, not a poll later. */
const nodeWake =
  (ctx: ByohContext) =>
  (poke: () => void): (() => void) =>
    onWindowsNodeChange(ctx.opts.kube, poke);

const nodeFor = async (ctx: ByohContext, signal: AbortSignal): Promise<NodeObject | undefined> =>
  findNode(ctx.opts.kube, ctx.opts.address, ctx.state.nodeName, signal);

export function buildByohJoinPlan(opts: ByohOptions): Plan<ByohContext> {
  const ns = opts.namespace ?? WMCO_NAMESPACE;
  const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const poll = opts.pollMs ?? 5000;
  const steps: Step<ByohContext>[] = [];
  if (opts.installWmco) steps.push(...wmcoInstallSteps<ByohContext>(ns, opts.installWmco, (c) => c.opts.kube, poll));
  if (opts.privateKey) steps.push(keySecretStep<ByohContext>(ns, opts.privateKey, (c) => c.opts.kube));

  steps.push({
    id: 'preflight',
    title: 'Check the cluster and the host',
    description:
      'Reads WMCO, cloud-private-key, the cluster network and proxy over the API, and the host facts, its authorized keys and the resolution of api-int over SSH.',
    preview: {
      check: 'always runs',
      powershell: [hostFacts().script, authorizedKeys().script, resolveName('api-int.<cluster domain>').script],
      api: [wmcoCalls.csv(ns), wmcoCalls.keySecret(ns), ...CLUSTER_CONFIG_CALLS],
    },
    check: async () => 'todo',
    apply: async (ctx, signal, report) => {
      const findings = await byohPreflight(ctx, signal);
      for (const f of findings) report(findingLine(f));
      if (blocking(findings).length > 0) throw new PreflightError(findings);
    },
    verify: async () => true,
    timeoutMs: 180_000,
  });

  steps.push(
    proxyPreflightStep<ByohContext>({
      kube: (ctx) => ctx.opts.kube,
      host: (ctx) => ctx.opts.host,
      record: (ctx, findings) => void (ctx.state.findings = [...(ctx.state.findings ?? []), ...findings]),
    }),
  );

  steps.push({
    id: 'add-instance',
    title: `Add ${opts.address} to the windows-instances ConfigMap`,
    description: `Adds "${opts.address}: username=${opts.user}" by a merge patch of that one key (other entries are left alone); creates the ConfigMap if it is missing.`,
    preview: {
      check: `windows-instances already maps ${opts.address} to username=${opts.user}`,
      api: [wmcoCalls.instances(ns), wmcoCalls.setInstance(ns, opts.address, `username=${opts.user}`)],
    },
    check: async (ctx, signal) =>
      (await windowsInstances(ctx.opts.kube, signal, ns))?.[ctx.opts.address] === `username=${ctx.opts.user}`
        ? 'done'
        : 'todo',
    apply: async (ctx, signal) => addInstance(ctx.opts.kube, ctx.opts.address, ctx.opts.user, signal, ns),
    verify: async (ctx, signal) =>
      (await windowsInstances(ctx.opts.kube, signal, ns))?.[ctx.opts.address] === `username=${ctx.opts.user}`
        ? true
        : 'the entry is not in the ConfigMap',
    leavesBehind: (ctx) => byohLeaves(ctx, `The windows-instances ConfigMap lists ${ctx.opts.address}:`),
    retries: 2,
    timeoutMs: 60_000,
  });

  steps.push({
    id: 'node-registered',
    title: 'Wait for WMCO to configure the host and the Node to register',
    description:
      'WMCO connects over SSH, transfers its payload, starts containerd and kubelet; kubelet requests a client certificate and registers the Node.',
    preview: { check: `a Windows Node with address ${opts.address} exists`, api: [WINDOWS_NODES_CALL] },
    check: async (ctx, signal) => ((ctx.state.node = await nodeFor(ctx, signal)) ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      ctx.state.node = await waitFor(
        async () => {
          const node = await nodeFor(ctx, signal);
          if (node) return node;
          const pending = ctx.state.nodeName
            ? (await csrsForNode(ctx.opts.kube, ctx.state.nodeName, signal)).filter((c) => csrState(c) === 'Pending')
            : [];
          return {
            waiting:
              pending.length > 0
                ? `${counted(pending.length, 'certificate request')} of ${ctx.state.nodeName} pending approval`
                : 'no Node yet',
          };
        },
        {
          signal,
          intervalMs: poll,
          timeoutMs: t.node,
          report,
          wake: nodeWake(ctx),
          timeoutMessage: (last) =>
            `No Node registered for ${opts.address} after ${Math.round(t.node / 60_000)} min (${last}). Look at WMCO's events and log: oc get events -n ${ns}; oc logs -n ${ns} deployment/windows-machine-config-operator. If certificate requests are pending, the node name does not match the reverse DNS of ${opts.address}.`,
        },
      );
    },
    verify: async (ctx, signal) => ((await nodeFor(ctx, signal)) ? true : 'the Node is not there'),
    leavesBehind: (ctx) =>
      byohLeaves(ctx, `The Node ${ctx.state.node?.metadata.name ?? ctx.state.nodeName ?? ''} is registered;`, true),
    timeoutMs: t.node + 60_000,
  });

  steps.push({
    id: 'csrs-approved',
    title: "Check that the node's certificate requests are approved",
    preview: { check: 'no certificate request of the node is pending or denied', api: [CSR_LIST_CALL] },
    check: async (ctx, signal) => {
      const name = ctx.state.node?.metadata.name ?? ctx.state.nodeName;
      if (!name) return { todo: 'node name unknown' };
      const csrs = await csrsForNode(ctx.opts.kube, name, signal);
      return csrs.every((c) => csrState(c) === 'Approved') ? 'done' : 'todo';
    },
    apply: async (ctx, signal, report) => {
      const name = ctx.state.node?.metadata.name ?? (ctx.state.nodeName as string);
      await waitFor(
        async () => {
          const csrs = await csrsForNode(ctx.opts.kube, name, signal);
          const denied = csrs.find((c) => csrState(c) === 'Denied' || csrState(c) === 'Failed');
          if (denied)
            throw new Error(
              `Certificate request ${denied.metadata.name} of ${name} was ${csrState(denied).toLowerCase()}.`,
            );
          const pending = csrs.filter((c) => csrState(c) === 'Pending');
          return pending.length === 0
            ? true
            : { waiting: `${pending.length} pending: ${pending.map((c) => c.metadata.name).join(', ')}` };
        },
        {
          signal,
          intervalMs: poll,
          timeoutMs: t.csr,
          report,
          timeoutMessage: (last) =>
            `Certificate requests of ${name} still not approved (${last}): WMCO approves them only when the node name matches reverse DNS or the host name.`,
        },
      );
    },
    verify: async () => true,
    timeoutMs: t.csr + 60_000,
  });

  steps.push({
    id: 'node-version',
    title: 'Wait for WMCO to finish (version annotation equal to desired-version)',
    preview: {
      check: 'windowsmachineconfig.openshift.io/version equals desired-version',
      api: [nodeCall('GET', '<node>')],
    },
    check: async (ctx, signal) => (versionDone(await nodeFor(ctx, signal)) ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      await waitFor(
        async () => {
          const node = await nodeFor(ctx, signal);
          if (!node) throw new Error(`The Node of ${opts.address} disappeared: WMCO deconfigured it (see its events).`);
          const a = node.metadata.annotations ?? {};
          return versionDone(node)
            ? true
            : { waiting: `version=${a[VERSION] ?? '(none)'} desired-version=${a[DESIRED] ?? '(none)'}` };
        },
        {
          signal,
          intervalMs: poll,
          timeoutMs: t.version,
          report,
          wake: nodeWake(ctx),
          timeoutMessage: (last) =>
            `WMCO did not finish configuring the node (${last}). Look at the windows-instance-config-daemon log on the host (C:\\var\\log\\wicd).`,
        },
      );
    },
    verify: async () => true,
    timeoutMs: t.version + 60_000,
  });

  steps.push(readyStep<ByohContext>((ctx, signal) => nodeFor(ctx, signal), t.ready, poll, nodeWake));

  return {
    id: 'byoh-join',
    title: `Join ${opts.address} through WMCO (Bring-Your-Own-Host)`,
    target: opts.address,
    steps,
  };
}

const VERSION = 'windowsmachineconfig.openshift.io/version';
const DESIRED = 'windowsmachineconfig.openshift.io/desired-version';

function versionDone(node: NodeObject | undefined): boolean {
  const a = node?.metadata.annotations ?? {};
  return Boolean(a[VERSION]) && a[VERSION] === a[DESIRED];
}

export interface ByohRemoveOptions {
  kube: KubeClient;
  address: string;
  nodeName?: string;
  namespace?: string;
  pollMs?: number;
  timeoutMs?: number;
}

/** Removes the windows-instances entry and follows WMCO's deconfiguration until the Node is gone. */
export function buildByohRemovePlan(opts: ByohRemoveOptions): Plan<ByohRemoveOptions> {
  const ns = opts.namespace ?? WMCO_NAMESPACE;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUTS.remove;
  return {
    id: 'byoh-remove',
    title: `Remove ${opts.address} (WMCO deconfigures the node)`,
    target: opts.address,
    steps: [
      {
        id: 'remove-instance',
        title: `Delete ${opts.address} from the windows-instances ConfigMap`,
        preview: {
          check: `windows-instances has no entry ${opts.address}`,
          api: [wmcoCalls.setInstance(ns, opts.address, null)],
        },
        check: async (o, signal) =>
          (await windowsInstances(o.kube, signal, ns))?.[o.address] === undefined ? 'done' : 'todo',
        apply: async (o, signal) => removeInstance(o.kube, o.address, signal, ns),
        verify: async (o, signal) =>
          (await windowsInstances(o.kube, signal, ns))?.[o.address] === undefined ? true : 'the entry is still there',
        leavesBehind: {
          state: `The windows-instances entry of ${opts.address} is deleted: WMCO keeps draining and deconfiguring the host and deletes the Node on its own; kube-windows only stopped following. Joining the host again undoes it.`,
        },
        retries: 2,
        timeoutMs: 60_000,
      },
      {
        id: 'node-deconfigured',
        title: 'Wait for WMCO to drain, deconfigure and delete the Node',
        preview: { check: `no Node with address ${opts.address}`, api: [WINDOWS_NODES_CALL] },
        check: async (o, signal) => ((await findNode(o.kube, o.address, o.nodeName, signal)) ? 'todo' : 'done'),
        apply: async (o, signal, report) => {
          await waitFor(
            async () => {
              const node = await findNode(o.kube, o.address, o.nodeName, signal);
              return node
                ? { waiting: `${node.metadata.name} still present${node.spec?.unschedulable ? ' (cordoned)' : ''}` }
                : true;
            },
            {
              signal,
              intervalMs: opts.pollMs ?? 5000,
              timeoutMs,
              report,
              timeoutMessage: (last) =>
                `WMCO did not remove the node (${last}); the host must still be reachable with the current cloud-private-key.`,
            },
          );
        },
        verify: async () => true,
        timeoutMs: timeoutMs + 60_000,
      },
    ],
  };
}
