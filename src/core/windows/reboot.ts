// The pure parts of "reboot a Windows node gracefully" (src/bootstrap/reboot.ts runs them as steps):
// what Windows records as the reason, how the plan knows the restart happened and the kubelet went
// down with it, and the words for every way the drain stops. Unit-tested without SSH or a cluster.

import { normalizeRelease, releaseAtLeast, WINDOWS_RELEASES } from '../kubernetes-release';

/** What Windows records as the reason for the restart (System event log, shutdown /c). */
export const REBOOT_REASON = 'kube-windows: graceful reboot requested by a cluster administrator';

/** A duration as a person reads it in a step title or message: minutes from one minute on, else seconds. */
export const durationText = (ms: number): string =>
  ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;

/** The AWS steps apply to nodes whose providerID says AWS. */
export const isAwsProvider = (providerID: string | undefined): boolean => (providerID ?? '').startsWith('aws://');

/** What runs the cordon and drain steps: a reboot, or a drain on its own (`nodes drain`). */
export type NodeOperation = 'reboot' | 'drain';

/** Said after every failure once the node is cordoned. */
export const cordonedNote = (node: string, operation: NodeOperation = 'reboot'): string =>
  `The node ${node} stays cordoned (unschedulable): run the ${operation} again to resume where it stopped, or uncordon it yourself (kube-windows nodes uncordon ${node}) once it is healthy.`;

/**
 * Whether the restart already happened: `before` is the boot time kept on the Node before asking for
 * the restart (absent: not asked yet), `now` the host's boot time.
 */
export function restartProgress(
  before: string | undefined,
  now: string | undefined,
): 'done' | 'todo' | { todo: string } {
  if (!before) return 'todo';
  if (now === before) return { todo: 'the restart was requested but has not happened yet' };
  return 'done';
}

/**
 * The kubelet went down with the host: Ready is not True now, or it turned True after the new boot
 * (so it was NotReady in between). Both times are the host's clock; a second of slack for rounding.
 */
export function notReadyObserved(
  ready: { status?: string; lastTransitionTime?: string } | undefined,
  bootAfter: string | undefined,
): boolean {
  if (ready?.status !== 'True') return true;
  return Boolean(
    bootAfter && ready.lastTransitionTime && Date.parse(ready.lastTransitionTime) >= Date.parse(bootAfter) - 1000,
  );
}

export interface BlockedEviction {
  /** namespace/name of the pod. */
  pod: string;
  /** namespace/name of the PodDisruptionBudget, when known. */
  pdb?: string;
  /** What the API server said. */
  message: string;
}

export const emptyDirRefusal = (node: string, pods: readonly string[], operation: NodeOperation = 'reboot'): string =>
  `Cannot drain ${node}: ${pods.join(', ')} use emptyDir volumes, whose data is deleted with the pod. ` +
  `Run the ${operation} again allowing it (deleteEmptyDirData; CLI --delete-emptydir-data) if that data may be lost.`;

export const severalBudgets = (pod: string, budgets: readonly string[]): string =>
  `Cannot evict ${pod}: it is selected by several PodDisruptionBudgets (${budgets.join(', ') || 'see kubectl get pdb'}), which the Eviction API refuses. Fix the budgets so that one selects it, then run the reboot again.`;

/** While evictions are refused: who protects which pod. */
export const blockedWaiting = (blocked: readonly BlockedEviction[]): string =>
  `waiting: ${blocked.map((b) => `${b.pod} is protected by ${b.pdb ?? 'a PodDisruptionBudget'}`).join('; ')}`;

/** The drain gave up on budgets: which ones, what to do, and the documented way around them. */
export function drainBlocked(
  node: string,
  blocked: readonly BlockedEviction[],
  operation: NodeOperation = 'reboot',
): string {
  const pdbs = [...new Set(blocked.map((b) => b.pdb ?? 'a PodDisruptionBudget'))];
  return (
    `The drain of ${node} is blocked by the PodDisruptionBudget${pdbs.length > 1 ? 's' : ''} ${pdbs.join(', ')}: ${blocked.map((b) => `${b.pod} (${b.message})`).join('; ')}. ` +
    `Wait until the budget allows a disruption (more replicas Ready elsewhere), scale the workload up or relax the budget, then run the ${operation} again; ` +
    'or, if downtime is acceptable, confirm the documented disable-eviction path, which deletes the pods directly and bypasses the budget.'
  );
}

/**
 * What happens to the pods the drain leaves (DaemonSet and static pods) when Windows restarts, by the
 * node's kubelet version: from 1.34 Windows graceful node shutdown (beta, on by default) has the
 * kubelet stop them with their terminationGracePeriodSeconds first, within its shutdownGracePeriod;
 * before, they are killed with the host.
 */
export function shutdownNote(kubeletVersion: string | undefined): string {
  const since = WINDOWS_RELEASES.windowsGracefulShutdown;
  const release = normalizeRelease(kubeletVersion);
  if (release !== undefined && !releaseAtLeast(release, since))
    return `The kubelet (${release}) does not stop pods before Windows shuts down (Windows graceful node shutdown is off by default before ${since}): the pods the drain leaves (DaemonSet and static pods) are killed with the host, whatever their terminationGracePeriodSeconds.`;
  return `The kubelet${release ? ` (${release})` : ''} stops the pods the drain leaves (DaemonSet and static pods) with their terminationGracePeriodSeconds before Windows shuts down (Windows graceful node shutdown, on by default from ${since}), within its shutdownGracePeriod; with shutdownGracePeriod 0 (the kubelet's default) they are killed with the host.`;
}
