// "Reboot a Windows node gracefully" as a plan, in the order of the OKD procedure "Rebooting a node
// gracefully": cordon; drain through the Eviction API (PodDisruptionBudgets honoured, DaemonSet and
// mirror pods left alone, emptyDir data deleted only with consent, the disable-eviction path only
// when the caller says the user confirmed it); Restart-Computer over SSH; wait for NotReady; on AWS
// re-add the route to the instance metadata endpoint (169.254.169.254) through the default gateway,
// without which the node does not return to Ready; wait for Ready; uncordon; verify.
//
// Resumable: the host's boot time before the restart is kept in a node annotation, so a re-run (in
// this process or another) knows whether the restart already happened. Every failure after the
// cordon says that the node stays cordoned.

import { ApiError } from '../cluster/errors';
import type { KubeClient } from '../cluster/client';
import { annotateNode, cordonCall, getNode, isReady, nodePath, readyCondition, readyMessage, setCordoned, uncordonAndAnnotate, type NodeObject } from '../cluster/nodes';
import { budgetsFor, deletePod, drainCalls, drainTargets, evictPod } from '../cluster/pods';
import { emptyDirLosses, evictionRefusal, podName, type DrainPod } from '../core/drain';
import { BOOT_ANNOTATION } from '../core/well-known';
import { restartComputer } from '../core/windows/host-ops';
import { addMetadataRoute, lastBootTime, METADATA_ADDRESS, metadataRouteState } from '../core/windows/node-ops';
import type { WindowsHost } from '../remote/windows-host';

/** What Windows records as the reason for the restart (System event log, shutdown /c). */
const REBOOT_REASON = 'kube-windows: graceful reboot requested by a cluster administrator';
import { delay, waitFor } from './follow';
import type { Plan, Step } from './plan';
import type { RunResult } from './runner';

/** The setting kubeWindows.reboot.timeoutMinutes defaults to this. */
export const DEFAULT_REBOOT_TIMEOUT_MINUTES = 15;
/** On the Node while a reboot is under way: the host's LastBootUpTime before the restart. */
export { BOOT_ANNOTATION };
export { drainTargets, podsWithEmptyDir } from '../cluster/pods';

export type RebootNode = NodeObject;

export interface RebootOptions {
  kube: KubeClient;
  host: WindowsHost;
  /** The Node as read when the plan is built: its providerID decides the AWS route step. */
  node: RebootNode;
  /** Evict pods that use emptyDir volumes (their data is lost). Ask the user first. */
  deleteEmptyDirData?: boolean;
  /**
   * Delete pods directly instead of evicting them, bypassing PodDisruptionBudgets (the documented
   * `--disable-eviction` path). Set only after the user explicitly confirmed it.
   */
  disableEviction?: boolean;
  /** Waiting for NotReady, for the host to come back and for Ready (default 15 min each). */
  timeoutMs?: number;
  /** Waiting for the evicted pods to be gone (default 10 min). */
  drainTimeoutMs?: number;
  /** How long an eviction refused by a PodDisruptionBudget is retried before the step fails (default 60 s). */
  evictionRetryMs?: number;
  /** API polling interval (default 5 s). */
  pollMs?: number;
}

export interface BlockedEviction {
  /** namespace/name of the pod. */
  pod: string;
  /** namespace/name of the PodDisruptionBudget, when known. */
  pdb?: string;
  /** What the API server said. */
  message: string;
}

export interface RebootState {
  /** Set when the drain was stopped by PodDisruptionBudgets: the caller may offer disableEviction. */
  blockedBy?: BlockedEviction[];
  /** Pods skipped by the drain (DaemonSet and mirror pods), namespace/name. */
  skipped?: string[];
  /** The host's LastBootUpTime after the restart. */
  bootAfter?: string;
  notReadySeen?: boolean;
}

export interface RebootContext {
  opts: RebootOptions;
  state: RebootState;
}

const CORDONED = (node: string): string =>
  `The node ${node} stays cordoned (unschedulable): run the reboot again to resume where it stopped, or uncordon it yourself (kubectl uncordon ${node}) once it is healthy.`;

/** Adds "the node stays cordoned" to every failure of a step that runs after the cordon. */
function cordoned<C extends RebootContext>(node: string, step: Step<C>): Step<C> {
  const note = (err: unknown, signal: AbortSignal): unknown => (signal.aborted || !(err instanceof Error) ? err : Object.assign(new Error(`${err.message} ${CORDONED(node)}`), { cause: err }));
  return {
    ...step,
    apply: async (ctx, signal, report) => {
      try {
        await step.apply(ctx, signal, report);
      } catch (err) {
        throw note(err, signal);
      }
    },
    verify: async (ctx, signal) => {
      const v = await step.verify(ctx, signal);
      return v === true ? true : `${v} ${CORDONED(node)}`;
    },
  };
}

export function isAwsNode(node: RebootNode): boolean {
  return (node.spec?.providerID ?? '').startsWith('aws://');
}

/** Builds the plan for one node; read the Node first (getNode) and pass it in. */
export function buildRebootPlan(opts: RebootOptions): Plan<RebootContext> {
  const nodeName = opts.node.metadata.name;
  const poll = opts.pollMs ?? 5000;
  const timeout = opts.timeoutMs ?? DEFAULT_REBOOT_TIMEOUT_MINUTES * 60_000;
  const drainTimeout = opts.drainTimeoutMs ?? 10 * 60_000;
  const evictionRetry = opts.evictionRetryMs ?? 60_000;
  const minutes = (ms: number): string => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);
  const node = (ctx: RebootContext, signal: AbortSignal): Promise<NodeObject | undefined> => getNode(ctx.opts.kube, nodeName, signal);
  const mustNode = async (ctx: RebootContext, signal: AbortSignal): Promise<NodeObject> => {
    const n = await node(ctx, signal);
    if (!n) throw new Error(`The Node ${nodeName} no longer exists.`);
    return n;
  };
  const bootAnnotation = (n: NodeObject | undefined): string | undefined => n?.metadata.annotations?.[BOOT_ANNOTATION];

  const drainStep: Step<RebootContext> = {
    id: 'drain',
    title: opts.disableEviction
      ? 'Drain: delete the pods directly (eviction disabled, PodDisruptionBudgets bypassed)'
      : 'Drain: evict the pods through the Eviction API (PodDisruptionBudgets honoured)',
    description: 'DaemonSet and static (mirror) pods stay, as with kubectl drain --ignore-daemonsets.',
    preview: {
      check: 'no pod other than DaemonSet and mirror pods runs on the node',
      api: drainCalls(nodeName, Boolean(opts.disableEviction)),
      notes: [
        opts.deleteEmptyDirData
          ? 'pods with emptyDir volumes are evicted and their emptyDir data is deleted (consented)'
          : 'pods with emptyDir volumes stop the drain unless their data may be deleted',
        `an eviction refused by a PodDisruptionBudget is retried for ${minutes(evictionRetry)}, then the step fails naming the budget`,
      ],
    },
    check: async (ctx, signal) => {
      const t = await drainTargets(ctx.opts.kube, nodeName, signal);
      ctx.state.skipped = t.skipped;
      return t.evict.length === 0 ? 'done' : { todo: `${t.evict.length} pod(s) to ${ctx.opts.disableEviction ? 'delete' : 'evict'}` };
    },
    apply: async (ctx, signal, report) => {
      const { kube } = ctx.opts;
      const t = await drainTargets(kube, nodeName, signal);
      ctx.state.skipped = t.skipped;
      for (const s of t.skipped) report(`leaving ${s}`);
      const withData = emptyDirLosses(t.evict);
      if (withData.length > 0 && !ctx.opts.deleteEmptyDirData) {
        throw new Error(
          `Cannot drain ${nodeName}: ${withData.join(', ')} use emptyDir volumes, whose data is deleted with the pod. ` +
            'Run the reboot again allowing it (deleteEmptyDirData; CLI --delete-emptydir-data) if that data may be lost.',
        );
      }
      let pending = t.evict.filter((p) => !p.metadata.deletionTimestamp);
      const deadline = Date.now() + evictionRetry;
      let blocked: BlockedEviction[] = [];
      for (;;) {
        blocked = [];
        const still: DrainPod[] = [];
        for (const p of pending) {
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
            if (err instanceof ApiError && err.status === 500 && /more than one PodDisruptionBudget/.test(err.message)) {
              const names = await budgetsFor(kube, p, signal);
              throw new Error(
                `Cannot evict ${podName(p)}: it is selected by several PodDisruptionBudgets (${names.join(', ') || 'see kubectl get pdb'}), which the Eviction API refuses. Fix the budgets so that one selects it, then run the reboot again.`,
              );
            }
            throw err;
          }
        }
        pending = still;
        if (pending.length === 0 || Date.now() + poll > deadline) break;
        report(`waiting: ${blocked.map((b) => `${b.pod} is protected by ${b.pdb ?? 'a PodDisruptionBudget'}`).join('; ')}`);
        await delay(Math.min(poll, 5000), signal);
      }
      if (blocked.length > 0) {
        ctx.state.blockedBy = blocked;
        const pdbs = [...new Set(blocked.map((b) => b.pdb ?? 'a PodDisruptionBudget'))];
        throw new Error(
          `The drain of ${nodeName} is blocked by the PodDisruptionBudget${pdbs.length > 1 ? 's' : ''} ${pdbs.join(', ')}: ${blocked.map((b) => `${b.pod} (${b.message})`).join('; ')}. ` +
            `Wait until the budget allows a disruption (more replicas Ready elsewhere), scale the workload up or relax the budget, then run the reboot again; ` +
            'or, if downtime is acceptable, confirm the documented disable-eviction path, which deletes the pods directly and bypasses the budget.',
        );
      }
      ctx.state.blockedBy = undefined;
      // Evicted pods terminate with their grace period: the drain is over when they are gone.
      await waitFor(
        async () => {
          const left = (await drainTargets(kube, nodeName, signal)).evict;
          return left.length === 0 ? true : { waiting: `${left.length} pod(s) still terminating: ${left.slice(0, 5).map(podName).join(', ')}` };
        },
        {
          signal,
          intervalMs: Math.min(poll, 2000),
          timeoutMs: drainTimeout,
          report,
          timeoutMessage: (last) => `The evicted pods did not terminate within ${minutes(drainTimeout)} (${last.replace(/^waiting: /, '')}).`,
        },
      );
    },
    verify: async (ctx, signal) => {
      const left = (await drainTargets(ctx.opts.kube, nodeName, signal)).evict;
      return left.length === 0 ? true : `${left.length} pod(s) are still on the node: ${left.slice(0, 5).map(podName).join(', ')}.`;
    },
    timeoutMs: evictionRetry + drainTimeout + 120_000,
  };

  const steps: Step<RebootContext>[] = [
    {
      id: 'cordon',
      title: `Cordon ${nodeName} (mark it unschedulable)`,
      preview: { check: 'spec.unschedulable is true', api: [cordonCall(nodeName, true)] },
      check: async (ctx, signal) => ((await mustNode(ctx, signal)).spec?.unschedulable ? 'done' : 'todo'),
      apply: async (ctx, signal) => setCordoned(ctx.opts.kube, nodeName, true, signal),
      verify: async (ctx, signal) => ((await mustNode(ctx, signal)).spec?.unschedulable ? true : 'the node is still schedulable'),
      retries: 2,
      timeoutMs: 60_000,
    },
    cordoned(nodeName, drainStep),
    cordoned(nodeName, {
      id: 'restart',
      title: 'Restart Windows (Restart-Computer -Force over SSH) and wait for SSH to come back',
      description: `The host's boot time before the restart is kept in the annotation ${BOOT_ANNOTATION}, so that a re-run does not restart twice.`,
      preview: {
        check: `the host's LastBootUpTime differs from the annotation ${BOOT_ANNOTATION}`,
        powershell: [lastBootTime().script, restartComputer(REBOOT_REASON).script],
        api: [{ verb: 'PATCH', path: nodePath(nodeName), body: { metadata: { annotations: { [BOOT_ANNOTATION]: '<LastBootUpTime>' } } } }],
        notes: [`waits up to ${minutes(timeout)} for the host to go down and accept SSH again`],
      },
      check: async (ctx, signal) => {
        const before = bootAnnotation(await mustNode(ctx, signal));
        if (!before) return 'todo';
        const now = (await ctx.opts.host.run(lastBootTime(), signal)).lastBoot;
        if (now === before) return { todo: 'the restart was requested but has not happened yet' };
        ctx.state.bootAfter = now;
        return 'done';
      },
      apply: async (ctx, signal, report) => {
        const { kube, host } = ctx.opts;
        const before = (await host.run(lastBootTime(), signal)).lastBoot;
        await annotateNode(kube, nodeName, { [BOOT_ANNOTATION]: before }, signal);
        await host.run(restartComputer(REBOOT_REASON), signal);
        report('restart scheduled; waiting for the host to go down and come back');
        await host.waitForRestart(signal, timeout, Math.min(2000, poll));
        ctx.state.bootAfter = (await host.run(lastBootTime(), signal)).lastBoot;
        report('the host is back (SSH answers)');
      },
      verify: async (ctx, signal) => {
        const before = bootAnnotation(await mustNode(ctx, signal));
        const now = (await ctx.opts.host.run(lastBootTime(), signal)).lastBoot;
        ctx.state.bootAfter = now;
        return now !== before ? true : 'the host answers but its boot time did not change: it did not restart.';
      },
      timeoutMs: timeout + 180_000,
    }),
    cordoned(nodeName, {
      id: 'wait-not-ready',
      title: 'Wait for the node to report NotReady',
      description: 'Proof that the kubelet went down with the host; if the node already went NotReady and came back Ready, this is done.',
      preview: { check: 'Ready is not True, or it turned True after the restart', api: [{ verb: 'GET', path: nodePath(nodeName) }] },
      check: async (ctx, signal) => {
        if (ctx.state.notReadySeen) return 'done';
        const c = readyCondition(await mustNode(ctx, signal));
        if (c?.status !== 'True') {
          ctx.state.notReadySeen = true;
          return 'done';
        }
        // Ready turned True after the new boot: it was NotReady in between (both times are the host's clock).
        const boot = ctx.state.bootAfter;
        return boot && c.lastTransitionTime && Date.parse(c.lastTransitionTime) >= Date.parse(boot) - 1000 ? 'done' : 'todo';
      },
      apply: async (ctx, signal, report) => {
        await waitFor(
          async () => {
            const n = await mustNode(ctx, signal);
            if (!isReady(n)) return true;
            return { waiting: `the node still reports ${readyMessage(n)}` };
          },
          {
            signal,
            intervalMs: Math.min(poll, 2000),
            timeoutMs: timeout,
            report,
            timeoutMessage: () => `The node ${nodeName} still reports Ready ${minutes(timeout)} after the restart: the restart may not have happened (look at the host).`,
          },
        );
        ctx.state.notReadySeen = true;
        report('the node is NotReady, as expected during the restart');
      },
      verify: async () => true,
      timeoutMs: timeout + 60_000,
    }),
  ];

  if (isAwsNode(opts.node)) {
    steps.push(
      cordoned(nodeName, {
        id: 'aws-metadata-route',
        title: `Add the route to the instance metadata endpoint ${METADATA_ADDRESS} through the default gateway (AWS)`,
        description: 'On AWS the route is lost with the restart and the node does not return to Ready without it (route add 169.254.169.254 MASK 255.255.255.255 <gateway>).',
        preview: { check: `a ${METADATA_ADDRESS}/32 route through the default gateway exists`, powershell: [metadataRouteState().script, addMetadataRoute('<gateway>', 0).script] },
        check: async (ctx, signal) => {
          const s = await ctx.opts.host.run(metadataRouteState(), signal);
          return s.gateway && s.routes.includes(s.gateway) ? 'done' : 'todo';
        },
        apply: async (ctx, signal, report) => {
          const s = await ctx.opts.host.run(metadataRouteState(), signal);
          if (!s.gateway) throw new Error(`The host has no default route, so the gateway for ${METADATA_ADDRESS} is unknown: check its network configuration.`);
          const r = await ctx.opts.host.run(addMetadataRoute(s.gateway, s.ifIndex), signal);
          report(r.changed ? `route ${METADATA_ADDRESS}/32 via ${s.gateway} added` : `route ${METADATA_ADDRESS}/32 via ${s.gateway} already present`);
        },
        verify: async (ctx, signal) => {
          const s = await ctx.opts.host.run(metadataRouteState(), signal);
          return s.routes.includes(s.gateway) ? true : `no ${METADATA_ADDRESS} route through ${s.gateway} after adding it`;
        },
        retries: 1,
        timeoutMs: 120_000,
      }),
    );
  }

  steps.push(
    cordoned(nodeName, {
      id: 'wait-ready',
      title: 'Wait for the node to report Ready',
      preview: { check: 'the Ready condition is True', api: [{ verb: 'GET', path: nodePath(nodeName) }], notes: [`waits up to ${minutes(timeout)} (setting kubeWindows.reboot.timeoutMinutes)`] },
      check: async (ctx, signal) => (isReady(await mustNode(ctx, signal)) ? 'done' : 'todo'),
      apply: async (ctx, signal, report) => {
        await waitFor(
          async () => {
            const n = await mustNode(ctx, signal);
            return isReady(n) ? true : { waiting: `the node reports ${readyMessage(n)}` };
          },
          {
            signal,
            intervalMs: Math.min(poll, 2000),
            timeoutMs: timeout,
            report,
            timeoutMessage: (last) =>
              `The node ${nodeName} did not return to Ready within ${minutes(timeout)} after the restart (${last.replace(/^waiting: /, '') || 'no answer'}). Look at the kubelet on the host (kube-windows nodes services/logs).`,
          },
        );
      },
      verify: async (ctx, signal) => (isReady(await mustNode(ctx, signal)) ? true : 'the node is not Ready'),
      timeoutMs: timeout + 60_000,
    }),
    {
      id: 'uncordon',
      title: `Uncordon ${nodeName}`,
      preview: {
        check: 'spec.unschedulable is not set',
        api: [{ verb: 'PATCH', path: nodePath(nodeName), body: { spec: { unschedulable: null }, metadata: { annotations: { [BOOT_ANNOTATION]: null } } } }],
      },
      check: async (ctx, signal) => {
        const n = await mustNode(ctx, signal);
        return !n.spec?.unschedulable && bootAnnotation(n) === undefined ? 'done' : 'todo';
      },
      apply: async (ctx, signal) => uncordonAndAnnotate(ctx.opts.kube, nodeName, { [BOOT_ANNOTATION]: null }, signal),
      verify: async (ctx, signal) => ((await mustNode(ctx, signal)).spec?.unschedulable ? 'the node is still unschedulable' : true),
      retries: 2,
      timeoutMs: 60_000,
    },
    {
      id: 'verify',
      title: 'Verify the node is Ready and schedulable',
      preview: { check: 'always runs', api: [{ verb: 'GET', path: nodePath(nodeName) }] },
      check: async () => 'todo',
      apply: async (ctx, signal) => {
        const n = await mustNode(ctx, signal);
        const problems = [...(isReady(n) ? [] : [readyMessage(n)]), ...(n.spec?.unschedulable ? ['still unschedulable'] : [])];
        if (problems.length > 0) throw new Error(`After the reboot the node ${nodeName} is not healthy: ${problems.join(', ')}.`);
      },
      verify: async () => true,
      timeoutMs: 60_000,
    },
  );

  return { id: 'node-reboot', title: `Reboot ${nodeName} gracefully`, target: nodeName, steps };
}

/** Reads the Node and builds its reboot plan and context (what the CLI and VS Code call). */
export async function rebootPlanFor(opts: Omit<RebootOptions, 'node'> & { nodeName: string }, signal?: AbortSignal): Promise<{ plan: Plan<RebootContext>; ctx: RebootContext }> {
  const { nodeName, ...rest } = opts;
  const node = (await getNode(opts.kube, nodeName, signal)) as RebootNode | undefined;
  if (!node) throw new Error(`There is no Node named ${nodeName} in this cluster.`);
  const full: RebootOptions = { ...rest, node };
  return { plan: buildRebootPlan(full), ctx: { opts: full, state: {} } };
}

/**
 * One or two sentences for the end of a reboot run: done, or what stopped it and (when the cordon
 * happened) that the node stays cordoned.
 */
export function rebootSummary(result: RunResult, nodeName: string): string {
  if (result.outcome === 'done') return `${nodeName} was rebooted and is Ready and schedulable again.`;
  const cordon = result.steps.find((s) => s.id === 'cordon');
  const cordonedNow = (cordon?.outcome === 'applied' || cordon?.outcome === 'skipped') && result.error?.stepId !== 'cordon' && result.steps.find((s) => s.id === 'uncordon')?.outcome !== 'applied';
  const what =
    result.outcome === 'cancelled'
      ? `The reboot of ${nodeName} was cancelled at step ${result.error?.stepId ?? '?'}.`
      : `The reboot of ${nodeName} failed at step ${result.error?.stepId ?? '?'}: ${result.error?.message ?? ''}`;
  return cordonedNow && !what.includes('stays cordoned') ? `${what} ${CORDONED(nodeName)}` : what;
}
