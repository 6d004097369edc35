// One entry point for "join a Windows host" and "remove a node", shared by the CLI and the VS Code
// commands: picks BYOH or kubeadm from what the cluster is and hands back the plan prepared (shown by
// renderPlan, run by its run()); several hosts run at once with a bound, one host's failure never
// stopping the others.

import type { KubeClient } from '../cluster/kube-client';
import type { WindowsHost } from '../remote/windows-host';
import { buildByohJoinPlan, buildByohRemovePlan, type ByohOptions, type ByohState, type Resolver } from './byoh';
import { findNode } from '../cluster/nodes';
import { isOpenShift } from '../cluster/openshift';
import { wmcoLocation } from '../cluster/wmco';
import {
  buildKubeadmJoinPlan,
  kubeadmChoicesOf,
  kubeadmClusterPreflight,
  type KubeadmChoices,
  type KubeadmOptions,
  type KubeadmState,
} from './kubeadm';
import { buildKubeadmRemovePlan } from './kubeadm-remove';
import type { Finding } from '../core/windows/findings';
import type { Payload } from './payload';
import type { Secret } from './plan';
import { prepare, type PreparedPlan } from './prepared';

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
  /**
   * kubeadm: the files to install and the CA from the kubeconfig; the choices (taint, CNI, version …) are
   * KubeadmChoices.
   */
  payload?: Payload;
  caPem?: string;
  resolver?: Resolver;
  pollMs?: number;
  timeouts?: ByohOptions['timeouts'] & { restart?: number; join?: number };
}

/** What a join learns on the way (the preflight's findings among it), BYOH or kubeadm. */
export type JoinState = ByohState | KubeadmState;
export type JoinPlan = PreparedPlan<JoinState>;

/** BYOH on OpenShift/OKD (config.openshift.io is served), kubeadm elsewhere. */
export async function detectVia(kube: KubeClient, signal?: AbortSignal): Promise<JoinVia> {
  return (await isOpenShift(kube, signal)) ? 'byoh' : 'kubeadm';
}

/** Refuses what no join can take (an address or user that is not one, a malformed reservation). */
function checkJoinInput(r: JoinRequest): void {
  const problem = addressProblem(r.address, r.via) ?? userProblem(r.user);
  if (problem) throw new JoinInputError(problem);
  for (const [name, value] of [
    ['kube-reserved', r.kubeReserved],
    ['system-reserved', r.systemReserved],
  ] as const) {
    const bad = value === undefined ? undefined : reservationProblem(value);
    if (bad) throw new JoinInputError(`${name} ${bad}`);
  }
}

function kubeadmOptionsOf(r: JoinRequest): KubeadmOptions {
  if (!r.payload) throw new Error('A kubeadm join needs the payload (containerd, kubelet, kubeadm).');
  return {
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
}

/** The join of one host, ready to show and run: BYOH or kubeadm as the request says. */
export function joinPlan(r: JoinRequest): JoinPlan {
  checkJoinInput(r);
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
    return prepare(buildByohJoinPlan(opts), { opts, state: {} });
  }
  const opts = kubeadmOptionsOf(r);
  return prepare(buildKubeadmJoinPlan(opts), { opts, state: {} });
}

/**
 * What a dry run reads before showing the plan: for kubeadm, the cluster part of the preflight (it
 * only reads; its decisions, such as the CNI, shape the plan's later steps); BYOH reads nothing.
 * The request is refused as the join would refuse it.
 */
export async function dryRunFindings(
  r: JoinRequest,
  signal?: AbortSignal,
): Promise<{ findings: Finding[]; planned?: JoinRequest['planned'] }> {
  checkJoinInput(r);
  if (r.via !== 'kubeadm') return { findings: [] };
  const state: KubeadmState = {};
  const findings = await kubeadmClusterPreflight(kubeadmOptionsOf(r), state, signal);
  const { cluster, endpoint } = state;
  return { findings, ...(cluster ? { planned: { cluster, ...(endpoint ? { endpoint } : {}) } } : {}) };
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

/** The removal of one node, ready to show and run: WMCO deconfigures it (BYOH), or cordon, kubeadm reset and delete. */
export async function removePlanFor(r: RemoveRequest, signal?: AbortSignal): Promise<PreparedPlan<undefined>> {
  if (r.via === 'byoh') {
    const opts = {
      kube: r.kube,
      address: r.address,
      namespace: wmcoLocation(r.wmco).namespace,
      ...(r.nodeName ? { nodeName: r.nodeName } : {}),
      ...(r.pollMs ? { pollMs: r.pollMs } : {}),
      ...(r.timeoutMs ? { timeoutMs: r.timeoutMs } : {}),
    };
    return prepare(buildByohRemovePlan(opts), opts);
  }
  const nodeName = r.nodeName ?? (await findNode(r.kube, r.address, undefined, signal))?.metadata.name;
  if (!nodeName) throw new Error(`No Windows node has the address ${r.address}.`);
  const opts = { kube: r.kube, nodeName, address: r.address, ...(r.host ? { host: r.host } : {}) };
  return prepare(buildKubeadmRemovePlan(opts), opts);
}
