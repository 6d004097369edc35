// Steps on a Node that several plans share: the wait for Ready (BYOH and kubeadm joins), and the
// cordon, drain and uncordon of the reboot, which `nodes cordon|uncordon|drain` run on their own.
// Each checks before it acts, so a plan that stops can be run again.

import { ApiError } from '../cluster/errors';
import type { KubeClient } from '../cluster/kube-client';
import {
  cordonCall,
  getNode,
  isReady,
  nodeCall,
  nodePath,
  readyMessage,
  setCordoned,
  uncordonAndAnnotate,
  type NodeObject,
} from '../cluster/nodes';
import { budgetsFor, deletePod, drainCalls, drainTargets, evictPod } from '../cluster/pods';
import { emptyDirLosses, evictionRefusal, podName, type DrainPod } from '../core/drain';
import {
  blockedWaiting,
  cordonedNote,
  drainBlocked,
  durationText,
  emptyDirRefusal,
  severalBudgets,
  type BlockedEviction,
  type NodeOperation,
} from '../core/windows/reboot';
import { delay, waitFor, type WaitOptions } from './follow';
import type { Step, Undo } from './plan';
import { counted, plural } from '../core/plural';

/** Waits for the Node `nodeOf` finds to report Ready. */
export function readyStep<Ctx>(
  nodeOf: (ctx: Ctx, signal: AbortSignal) => Promise<NodeObject | undefined>,
  timeoutMs: number,
  poll: number,
  wake?: (ctx: Ctx) => WaitOptions['wake'],
): Step<Ctx> {
  return {
    id: 'node-ready',
    title: 'Wait for the node to be Ready',
    preview: { check: 'the Node has condition Ready=True', api: [nodeCall('GET', '<node>')] },
    check: async (ctx, signal) => {
      const node = await nodeOf(ctx, signal);
      return node && isReady(node) ? 'done' : 'todo';
    },
    apply: async (ctx, signal, report) => {
      await waitFor(
        async () => {
          const node = await nodeOf(ctx, signal);
          if (!node) return { waiting: 'no Node' };
          return isReady(node) ? true : { waiting: readyMessage(node) };
        },
        {
          signal,
          intervalMs: poll,
          timeoutMs,
          report,
          ...(wake ? { wake: wake(ctx) } : {}),
          timeoutMessage: (last) => `The node is not Ready (${last}).`,
        },
      );
    },
    verify: async (ctx, signal) => {
      const node = await nodeOf(ctx, signal);
      return node && isReady(node) ? true : 'not Ready';
    },
    timeoutMs: timeoutMs + 60_000,
  };
}

/** What the cordon, drain and uncordon steps read: the reboot's options are these and more. */
export interface NodeDrainOptions {
  kube: KubeClient;
  /** The Node as read when the plan is built. */
  node: NodeObject;
  /** Evict pods that use emptyDir volumes (their data is lost). Ask the user first. */
  deleteEmptyDirData?: boolean;
  /**
   * Delete pods directly instead of evicting them, bypassing PodDisruptionBudgets (the documented
   * `--disable-eviction` path). Set only after the user explicitly confirmed it.
   */
  disableEviction?: boolean;
  /** Waiting for the evicted pods to be gone (default 10 min). */
  drainTimeoutMs?: number;
  /** How long an eviction refused by a PodDisruptionBudget is retried before the step fails (default 60 s). */
  evictionRetryMs?: number;
  /** API polling interval (default 5 s). */
  pollMs?: number;
}

/** What the drain step leaves for the caller. */
export interface DrainState {
  /** Set when the drain was stopped by PodDisruptionBudgets: the caller may offer disableEviction. */
  blockedBy?: BlockedEviction[];
  /** Pods skipped by the drain (DaemonSet and mirror pods), namespace/name. */
  skipped?: string[];
}

/** The context of the steps a drain shares with the reboot. */
export interface DrainContext {
  opts: NodeDrainOptions;
  state: DrainState;
}

/** Adds "the node stays cordoned" to every failure of a step that runs after the cordon. */
export function cordoned<C extends DrainContext>(
  node: string,
  step: Step<C>,
  operation: NodeOperation = 'reboot',
): Step<C> {
  const note = (err: unknown, signal: AbortSignal): unknown =>
    signal.aborted || !(err instanceof Error)
      ? err
      : Object.assign(new Error(`${err.message} ${cordonedNote(node, operation)}`), { cause: err });
  return {
    ...step,
    // The check reads the host too (boot time, routes): a connection lost there leaves the node cordoned as well.
    check: async (ctx, signal) => {
      try {
        return await step.check(ctx, signal);
      } catch (err) {
        throw note(err, signal);
      }
    },
    apply: async (ctx, signal, report) => {
      try {
        await step.apply(ctx, signal, report);
      } catch (err) {
        throw note(err, signal);
      }
    },
    verify: async (ctx, signal) => {
      const v = await step.verify(ctx, signal);
      return v === true ? true : `${v} ${cordonedNote(node, operation)}`;
    },
  };
}

export type DrainStep = Step<DrainContext>;

/** The timings every step reads, from the options with their defaults. */
export interface Timing {
  poll: number;
  timeout: number;
  drainTimeout: number;
  evictionRetry: number;
}

/** The Node, which must still exist. */
export async function mustNode(ctx: DrainContext, signal: AbortSignal): Promise<NodeObject> {
  const n = await getNode(ctx.opts.kube, ctx.opts.node.metadata.name, signal);
  if (!n) throw new Error(`The Node ${ctx.opts.node.metadata.name} no longer exists.`);
  return n;
}

/** Uncordon, offered after a stop that leaves the node cordoned. */
export const uncordonUndo = (nodeName: string): Undo => ({
  command: 'kubeWindows.uncordonNode',
  label: 'Uncordon',
  node: nodeName,
  cli: `\`kube-windows nodes uncordon ${nodeName}\` makes it schedulable again.`,
});

export function cordonStep(nodeName: string, operation: NodeOperation = 'reboot'): DrainStep {
  return {
    id: 'cordon',
    title: `Cordon ${nodeName} (mark it unschedulable)`,
    preview: { check: 'spec.unschedulable is true', api: [cordonCall(nodeName, true)] },
    check: async (ctx, signal) => ((await mustNode(ctx, signal)).spec?.unschedulable ? 'done' : 'todo'),
    apply: async (ctx, signal) => setCordoned(ctx.opts.kube, nodeName, true, signal),
    verify: async (ctx, signal) =>
      (await mustNode(ctx, signal)).spec?.unschedulable ? true : 'the node is still schedulable',
    leavesBehind: { state: cordonedNote(nodeName, operation), undo: uncordonUndo(nodeName), whole: true },
    retries: 2,
    timeoutMs: 60_000,
  };
}

/** Evicts (or deletes) one round of pods; returns those a PodDisruptionBudget protects, and who protects them. */
async function evictRound(
  ctx: DrainContext,
  pods: DrainPod[],
  signal: AbortSignal,
  report: (m: string) => void,
): Promise<{ still: DrainPod[]; blocked: BlockedEviction[] }> {
  const { kube } = ctx.opts;
  const still: DrainPod[] = [];
  const blocked: BlockedEviction[] = [];
  for (const p of pods) {
    signal.throwIfAborted();
    try {
      if (ctx.opts.disableEviction) {
        await deletePod(kube, p, signal);
        report(`deleted ${podName(p)}`);
      } else {
        await evictPod(kube, p, signal);
        report(`evicted ${podName(p)}`);
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) continue; // already gone
      if (err instanceof ApiError && err.status === 429) {
        const c = evictionRefusal(err.body as Parameters<typeof evictionRefusal>[0], err.message);
        const pdb = c.pdb ? `${p.metadata.namespace ?? ''}/${c.pdb}` : (await budgetsFor(kube, p, signal))[0];
        blocked.push({ pod: podName(p), ...(pdb ? { pdb } : {}), message: c.message });
        still.push(p);
        continue;
      }
      if (err instanceof ApiError && err.status === 500 && /more than one PodDisruptionBudget/.test(err.message))
        throw new Error(severalBudgets(podName(p), await budgetsFor(kube, p, signal)));
      throw err;
    }
  }
  return { still, blocked };
}

export function drainStep(
  nodeName: string,
  opts: NodeDrainOptions,
  t: Timing,
  operation: NodeOperation = 'reboot',
): DrainStep {
  return {
    id: 'drain',
    title: opts.disableEviction
      ? 'Drain: delete the pods directly (eviction disabled, PodDisruptionBudgets bypassed)'
      : 'Drain: evict the pods through the Eviction API (PodDisruptionBudgets honoured)',
    description: 'DaemonSet and static (mirror) pods stay, as with kubectl drain --ignore-daemonsets.',
    // The drain runs after the cordon: what it leaves includes the cordon (a stop says the last step's state).
    leavesBehind: {
      state: `The pods ${opts.disableEviction ? 'deleted' : 'evicted'} so far are gone from ${nodeName} and their controllers start them on other nodes. ${cordonedNote(nodeName, operation)}`,
      undo: uncordonUndo(nodeName),
    },
    preview: {
      check: 'no pod other than DaemonSet and mirror pods runs on the node',
      api: drainCalls(nodeName, Boolean(opts.disableEviction)),
      notes: [
        opts.deleteEmptyDirData
          ? 'pods with emptyDir volumes are evicted and their emptyDir data is deleted (consented)'
          : 'pods with emptyDir volumes stop the drain unless their data may be deleted',
        `an eviction refused by a PodDisruptionBudget is retried for ${durationText(t.evictionRetry)}, then the step fails naming the budget`,
      ],
    },
    check: async (ctx, signal) => {
      const left = await drainTargets(ctx.opts.kube, nodeName, signal);
      ctx.state.skipped = left.skipped;
      return left.evict.length === 0
        ? 'done'
        : { todo: `${counted(left.evict.length, 'pod')} to ${ctx.opts.disableEviction ? 'delete' : 'evict'}` };
    },
    apply: async (ctx, signal, report) => {
      const { kube } = ctx.opts;
      const targets = await drainTargets(kube, nodeName, signal);
      ctx.state.skipped = targets.skipped;
      for (const s of targets.skipped) report(`leaving ${s}`);
      const withData = emptyDirLosses(targets.evict);
      if (withData.length > 0 && !ctx.opts.deleteEmptyDirData)
        throw new Error(emptyDirRefusal(nodeName, withData, operation));
      let pending = targets.evict.filter((p) => !p.metadata.deletionTimestamp);
      const deadline = Date.now() + t.evictionRetry;
      let blocked: BlockedEviction[] = [];
      for (;;) {
        ({ still: pending, blocked } = await evictRound(ctx, pending, signal, report));
        if (pending.length === 0 || Date.now() + t.poll > deadline) break;
        report(blockedWaiting(blocked));
        await delay(Math.min(t.poll, 5000), signal);
      }
      if (blocked.length > 0) {
        ctx.state.blockedBy = blocked;
        throw new Error(drainBlocked(nodeName, blocked, operation));
      }
      ctx.state.blockedBy = undefined;
      // Evicted pods terminate with their grace period: the drain is over when they are gone.
      await waitFor(
        async () => {
          const left = (await drainTargets(kube, nodeName, signal)).evict;
          return left.length === 0
            ? true
            : {
                waiting: `${counted(left.length, 'pod')} still terminating: ${left.slice(0, 5).map(podName).join(', ')}`,
              };
        },
        {
          signal,
          intervalMs: Math.min(t.poll, 2000),
          timeoutMs: t.drainTimeout,
          report,
          timeoutMessage: (last) =>
            `The evicted pods did not terminate within ${durationText(t.drainTimeout)} (${last.replace(/^waiting: /, '')}).`,
        },
      );
    },
    verify: async (ctx, signal) => {
      const left = (await drainTargets(ctx.opts.kube, nodeName, signal)).evict;
      return left.length === 0
        ? true
        : `${counted(left.length, 'pod')} ${plural(left.length, 'is', 'are')} still on the node: ${left.slice(0, 5).map(podName).join(', ')}.`;
    },
    timeoutMs: t.evictionRetry + t.drainTimeout + 120_000,
  };
}

/** Uncordons the node; `clearAnnotations` (the reboot's boot-time annotation) go in the same patch. */
export function uncordonStep(nodeName: string, clearAnnotations: readonly string[] = []): DrainStep {
  const cleared = Object.fromEntries(clearAnnotations.map((a) => [a, null]));
  return {
    id: 'uncordon',
    title: `Uncordon ${nodeName}`,
    preview: {
      check: 'spec.unschedulable is not set',
      api: [
        clearAnnotations.length > 0
          ? {
              verb: 'PATCH',
              path: nodePath(nodeName),
              body: { spec: { unschedulable: null }, metadata: { annotations: cleared } },
            }
          : cordonCall(nodeName, false),
      ],
    },
    check: async (ctx, signal) => {
      const n = await mustNode(ctx, signal);
      return !n.spec?.unschedulable && clearAnnotations.every((a) => n.metadata.annotations?.[a] === undefined)
        ? 'done'
        : 'todo';
    },
    apply: async (ctx, signal) =>
      clearAnnotations.length > 0
        ? uncordonAndAnnotate(ctx.opts.kube, nodeName, cleared, signal)
        : setCordoned(ctx.opts.kube, nodeName, false, signal),
    verify: async (ctx, signal) =>
      (await mustNode(ctx, signal)).spec?.unschedulable ? 'the node is still unschedulable' : true,
    leavesBehind: { state: `The node ${nodeName} is uncordoned (schedulable again).`, whole: true },
    retries: 2,
    timeoutMs: 60_000,
  };
}

/** The timings with their defaults (`timeout`: the reboot's waits; a drain has none of its own). */
export function timing(opts: NodeDrainOptions, timeout: number): Timing {
  return {
    poll: opts.pollMs ?? 5000,
    timeout,
    drainTimeout: opts.drainTimeoutMs ?? 10 * 60_000,
    evictionRetry: opts.evictionRetryMs ?? 60_000,
  };
}
