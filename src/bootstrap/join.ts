// One entry point for "join a Windows host" and "remove a node", shared by the CLI and the VS Code
// commands: picks BYOH or kubeadm from what the cluster is, builds the plan, and runs several hosts
// at once with a bound, one host's failure never stopping the others.

import type { KubeClient } from '../cluster/kube-client';
import type { WindowsHost } from '../remote/windows-host';
import { buildByohJoinPlan, buildByohRemovePlan, type ByohContext, type ByohOptions, type Resolver } from './byoh';
import { findNode } from '../cluster/nodes';
import { isOpenShift } from '../cluster/openshift';
import { wmcoLocation } from '../cluster/wmco';
import { buildKubeadmJoinPlan, buildKubeadmRemovePlan, kubeadmChoicesOf, kubeadmClusterPreflight, type KubeadmChoices, type KubeadmContext, type KubeadmOptions } from './kubeadm';
import type { Finding } from '../core/windows/findings';
import type { Payload } from './payload';
import type { Plan, Secret } from './plan';
import { runPlan, type RunEvent, type RunResult } from './runner';

export { runBounded } from './runner';
import { withCatalog, type WmcoInstallOptions, type WmcoSettings } from './wmco-install';

export type { WmcoSettings };
import { addressProblem, JoinInputError, reservationProblem, userProblem } from '../core/windows/join-input';

export { addressProblem, JoinInputError, userProblem };

export type JoinVia = 'byoh' | 'kubeadm';

export interface JoinRequest extends KubeadmChoices {
  kube: KubeClient;
  host: WindowsHost;
  address: string;
  user: string;
  via: JoinVia;
  /** BYOH: install WMCO first / create cloud-private-key from this key. */
  installWmco?: WmcoInstallOptions;
  /** BYOH: where WMCO lives and which OLM catalog and channel install it (defaults: the documented ones). */
  wmco?: WmcoSettings;
  privateKey?: { pem: Secret; source: string };
  /** BYOH: the SSH port kube-windows uses (a preflight warning when it is not 22, WMCO's). */
  sshPort?: number;
  /** kubeadm: the files to install and the CA from the kubeconfig; the choices (taint, CNI, version …) are KubeadmChoices. */
  payload?: Payload;
  caPem?: string;
  resolver?: Resolver;
  pollMs?: number;
  timeouts?: ByohOptions['timeouts'] & { restart?: number; join?: number };
}

export type AnyPlan = { kind: 'byoh'; plan: Plan<ByohContext>; ctx: ByohContext } | { kind: 'kubeadm'; plan: Plan<KubeadmContext>; ctx: KubeadmContext };

/** BYOH on OpenShift/OKD (config.openshift.io is served), kubeadm elsewhere. */
export async function detectVia(kube: KubeClient, signal?: AbortSignal): Promise<JoinVia> {
  return (await isOpenShift(kube, signal)) ? 'byoh' : 'kubeadm';
}

export function joinPlan(r: JoinRequest): AnyPlan {
  const problem = addressProblem(r.address, r.via) ?? userProblem(r.user);
  if (problem) throw new JoinInputError(problem);
  for (const [name, value] of [
    ['kube-reserved', r.kubeReserved],
    ['system-reserved', r.systemReserved],
  ] as const) {
    const bad = value === undefined ? undefined : reservationProblem(value);
    if (bad) throw new JoinInputError(`${name} ${bad}`);
  }
  if (r.via === 'byoh') {
    const opts: ByohOptions = {
      kube: r.kube,
      host: r.host,
      address: r.address,
      user: r.user,
      namespace: wmcoLocation(r.wmco).namespace,
      ...(r.installWmco ? { installWmco: withCatalog(r.installWmco, r.wmco) } : {}),
      ...(r.privateKey ? { privateKey: r.privateKey } : {}),
      ...(r.sshPort !== undefined ? { sshPort: r.sshPort } : {}),
      ...(r.resolver ? { resolver: r.resolver } : {}),
      ...(r.pollMs ? { pollMs: r.pollMs } : {}),
      ...(r.timeouts ? { timeouts: r.timeouts } : {}),
    };
    return { kind: 'byoh', plan: buildByohJoinPlan(opts), ctx: { opts, state: {} } };
  }
  if (!r.payload) throw new Error('A kubeadm join needs the payload (containerd, kubelet, kubeadm).');
  const opts: KubeadmOptions = {
    kube: r.kube,
    host: r.host,
    address: r.address,
    user: r.user,
    payload: r.payload,
    ...kubeadmChoicesOf(r),
    ...(r.caPem ? { caPem: r.caPem } : {}),
    ...(r.pollMs ? { pollMs: r.pollMs } : {}),
    ...(r.timeouts ? { timeouts: r.timeouts } : {}),
  };
  return { kind: 'kubeadm', plan: buildKubeadmJoinPlan(opts), ctx: { opts, state: {} } };
}

/**
 * What a dry run reads before showing the plan: for kubeadm, the cluster part of the preflight (it
 * only reads; its decisions, such as the CNI, shape the plan's later steps); BYOH reads nothing.
 */
export async function dryRunFindings(p: AnyPlan, signal?: AbortSignal): Promise<{ findings: Finding[]; planned?: JoinRequest['planned'] }> {
  if (p.kind !== 'kubeadm') return { findings: [] };
  const findings = await kubeadmClusterPreflight(p.ctx.opts, p.ctx.state, signal);
  const { cluster, endpoint } = p.ctx.state;
  return { findings, ...(cluster ? { planned: { cluster, ...(endpoint ? { endpoint } : {}) } } : {}) };
}

export function runAnyPlan(p: AnyPlan, options: { signal?: AbortSignal; onEvent?: (e: RunEvent) => void; startAt?: string }): Promise<RunResult> {
  return p.kind === 'byoh' ? runPlan(p.plan, p.ctx, options) : runPlan(p.plan, p.ctx, options);
}

export interface RemoveRequest {
  kube: KubeClient;
  via: JoinVia;
  wmco?: WmcoSettings;
  address: string;
  nodeName?: string;
  host?: WindowsHost;
  pollMs?: number;
  timeoutMs?: number;
}

export async function removePlanFor(
  r: RemoveRequest,
  signal?: AbortSignal,
): Promise<{ plan: Plan<never>; run: (options: { signal?: AbortSignal; onEvent?: (e: RunEvent) => void }) => Promise<RunResult> }> {
  if (r.via === 'byoh') {
    const opts = {
      kube: r.kube,
      address: r.address,
      namespace: wmcoLocation(r.wmco).namespace,
      ...(r.nodeName ? { nodeName: r.nodeName } : {}),
      ...(r.pollMs ? { pollMs: r.pollMs } : {}),
      ...(r.timeoutMs ? { timeoutMs: r.timeoutMs } : {}),
    };
    const plan = buildByohRemovePlan(opts);
    return { plan: plan as unknown as Plan<never>, run: (o) => runPlan(plan, opts, o) };
  }
  const nodeName = r.nodeName ?? (await findNode(r.kube, r.address, undefined, signal))?.metadata.name;
  if (!nodeName) throw new Error(`No Windows node has the address ${r.address}.`);
  const opts = { kube: r.kube, nodeName, address: r.address, ...(r.host ? { host: r.host } : {}) };
  const plan = buildKubeadmRemovePlan(opts);
  return { plan: plan as unknown as Plan<never>, run: (o) => runPlan(plan, opts, o) };
}
