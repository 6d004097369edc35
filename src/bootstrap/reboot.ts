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

import {
  annotateNode,
  getNode,
  isReady,
  nodePath,
  readyCondition,
  readyMessage,
  type NodeObject,
} from '../cluster/nodes';
import { BOOT_ANNOTATION } from '../core/well-known';
import { restartComputer } from '../core/windows/host-ops';
import { addMetadataRoute, lastBootTime, METADATA_ADDRESS, metadataRouteState } from '../core/windows/node-ops';
import {
  cordonedNote,
  durationText,
  isAwsProvider,
  notReadyObserved,
  REBOOT_REASON,
  restartProgress,
  shutdownNote,
  type BlockedEviction,
} from '../core/windows/reboot';
import { RemoteCommandError } from '../remote/types';
import type { WindowsHost } from '../remote/windows-host';
import { waitFor } from './follow';
import {
  cordoned,
  cordonStep,
  drainStep,
  mustNode,
  timing,
  uncordonStep,
  uncordonUndo,
  type DrainContext,
  type DrainState,
  type NodeDrainOptions,
  type Timing,
} from './node-steps';
import type { Plan, Step } from './plan';
import { prepare, type PreparedPlan } from './prepared';
import type { RunResult } from './runner';

/** The setting kubeWindows.reboot.timeoutMinutes defaults to this. */
export const DEFAULT_REBOOT_TIMEOUT_MINUTES = 15;
export { drainTargets, podsWithEmptyDir } from '../cluster/pods';

export type RebootNode = NodeObject;

export interface RebootOptions extends NodeDrainOptions {
  host: WindowsHost;
  /** Waiting for NotReady, for the host to come back and for Ready (default 15 min each). */
  timeoutMs?: number;
}

export type { BlockedEviction, DrainContext, DrainState, NodeDrainOptions };

export interface RebootState extends DrainState {
  /** The host's LastBootUpTime after the restart. */
  bootAfter?: string;
  notReadySeen?: boolean;
}

export interface RebootContext extends DrainContext {
  opts: RebootOptions;
  state: RebootState;
}

export const isAwsNode = (node: RebootNode): boolean => isAwsProvider(node.spec?.providerID);

type RebootStep = Step<RebootContext>;

const bootAnnotation = (n: NodeObject | undefined): string | undefined => n?.metadata.annotations?.[BOOT_ANNOTATION];

/** Waits until the Node passes `ready` (else says what it reports), failing with `timeoutMessage`. */
async function waitForNode(
  ctx: RebootContext,
  signal: AbortSignal,
  report: (m: string) => void,
  t: Timing,
  ready: (n: NodeObject) => boolean,
  timeoutMessage: (last: string) => string,
): Promise<void> {
  await waitFor(
    async () => {
      const n = await mustNode(ctx, signal);
      return ready(n) ? true : { waiting: `the node reports ${readyMessage(n)}` };
    },
    {
      signal,
      intervalMs: Math.min(t.poll, 2000),
      timeoutMs: t.timeout,
      report,
      timeoutMessage: (last) => timeoutMessage(last.replace(/^waiting: /, '')),
    },
  );
}

/** shutdown.exe's "A system shutdown has already been scheduled.(1190)". */
const restartAlreadyScheduled = (err: unknown): boolean =>
  err instanceof RemoteCommandError && /\b1190\b/.test(err.message);

function restartStep(node: RebootNode, t: Timing): RebootStep {
  const nodeName = node.metadata.name;
  return {
    id: 'restart',
    title: 'Restart Windows (Restart-Computer -Force over SSH) and wait for SSH to come back',
    description: `The host's boot time before the restart is kept in the annotation ${BOOT_ANNOTATION}, so that a re-run does not restart twice. ${shutdownNote(node.status?.nodeInfo?.kubeletVersion)}`,
    preview: {
      check: `the host's LastBootUpTime differs from the annotation ${BOOT_ANNOTATION}`,
      powershell: [lastBootTime().script, restartComputer(REBOOT_REASON).script],
      api: [
        {
          verb: 'PATCH',
          path: nodePath(nodeName),
          body: { metadata: { annotations: { [BOOT_ANNOTATION]: '<LastBootUpTime>' } } },
        },
      ],
      notes: [`waits up to ${durationText(t.timeout)} for the host to go down and accept SSH again`],
    },
    check: async (ctx, signal) => {
      const before = bootAnnotation(await mustNode(ctx, signal));
      if (!before) return 'todo';
      const now = (await ctx.opts.host.run(lastBootTime(), signal)).lastBoot;
      const progress = restartProgress(before, now);
      if (progress === 'done') ctx.state.bootAfter = now;
      return progress;
    },
    apply: async (ctx, signal, report) => {
      const { kube, host } = ctx.opts;
      const before = (await host.run(lastBootTime(), signal)).lastBoot;
      await annotateNode(kube, nodeName, { [BOOT_ANNOTATION]: before }, signal);
      try {
        await host.run(restartComputer(REBOOT_REASON), signal);
        report('restart scheduled; waiting for the host to go down and come back');
      } catch (err) {
        // A run whose answer was lost already scheduled it: wait for that restart rather than fail.
        if (!restartAlreadyScheduled(err)) throw err;
        report('a restart is already scheduled on the host; waiting for it');
      }
      await host.waitForRestart(signal, t.timeout, Math.min(2000, t.poll));
      ctx.state.bootAfter = (await host.run(lastBootTime(), signal)).lastBoot;
      report('the host is back (SSH answers)');
    },
    verify: async (ctx, signal) => {
      const before = bootAnnotation(await mustNode(ctx, signal));
      const now = (await ctx.opts.host.run(lastBootTime(), signal)).lastBoot;
      ctx.state.bootAfter = now;
      return restartProgress(before, now) === 'done'
        ? true
        : 'the host answers but its boot time did not change: it did not restart.';
    },
    // Restart-Computer, once asked, happens whether kube-windows follows or not.
    leavesBehind: {
      state: `The host of ${nodeName} was asked to restart and restarts on its own; the node returns to Ready by itself. ${cordonedNote(nodeName, 'reboot')}`,
      undo: uncordonUndo(nodeName),
    },
    timeoutMs: t.timeout + 180_000,
  };
}

function waitNotReadyStep(nodeName: string, t: Timing): RebootStep {
  return {
    id: 'wait-not-ready',
    title: 'Wait for the node to report NotReady',
    description:
      'Proof that the kubelet went down with the host; if the node already went NotReady and came back Ready, this is done.',
    preview: {
      check: 'Ready is not True, or it turned True after the restart',
      api: [{ verb: 'GET', path: nodePath(nodeName) }],
    },
    check: async (ctx, signal) => {
      if (ctx.state.notReadySeen) return 'done';
      const c = readyCondition(await mustNode(ctx, signal));
      if (c?.status !== 'True') ctx.state.notReadySeen = true;
      return notReadyObserved(c, ctx.state.bootAfter) ? 'done' : 'todo';
    },
    apply: async (ctx, signal, report) => {
      let readyAgain = false;
      await waitForNode(
        ctx,
        signal,
        report,
        t,
        // A host that restarts quickly can go NotReady and back between two polls: Ready having turned True
        // after the restart is that proof too (what `check` accepts), else the wait would last its whole timeout.
        (n) => {
          readyAgain = isReady(n);
          return notReadyObserved(readyCondition(n), ctx.state.bootAfter);
        },
        () =>
          `The node ${nodeName} still reports Ready ${durationText(t.timeout)} after the restart: the restart may not have happened (look at the host).`,
      );
      ctx.state.notReadySeen = true;
      report(
        readyAgain
          ? 'the node went NotReady and is Ready again since the restart'
          : 'the node is NotReady, as expected during the restart',
      );
    },
    verify: async () => true,
    timeoutMs: t.timeout + 60_000,
  };
}

function awsRouteStep(): RebootStep {
  return {
    id: 'aws-metadata-route',
    title: `Add the route to the instance metadata endpoint ${METADATA_ADDRESS} through the default gateway (AWS)`,
    description:
      'On AWS the route is lost with the restart and the node does not return to Ready without it (route add 169.254.169.254 MASK 255.255.255.255 <gateway>).',
    preview: {
      check: `a ${METADATA_ADDRESS}/32 route through the default gateway exists`,
      powershell: [metadataRouteState().script, addMetadataRoute('<gateway>', 0).script],
    },
    check: async (ctx, signal) => {
      const s = await ctx.opts.host.run(metadataRouteState(), signal);
      return s.gateway && s.routes.includes(s.gateway) ? 'done' : 'todo';
    },
    apply: async (ctx, signal, report) => {
      const s = await ctx.opts.host.run(metadataRouteState(), signal);
      if (!s.gateway)
        throw new Error(
          `The host has no default route, so the gateway for ${METADATA_ADDRESS} is unknown: check its network configuration.`,
        );
      const r = await ctx.opts.host.run(addMetadataRoute(s.gateway, s.ifIndex), signal);
      report(
        r.changed
          ? `route ${METADATA_ADDRESS}/32 via ${s.gateway} added`
          : `route ${METADATA_ADDRESS}/32 via ${s.gateway} already present`,
      );
    },
    verify: async (ctx, signal) => {
      const s = await ctx.opts.host.run(metadataRouteState(), signal);
      return s.routes.includes(s.gateway) ? true : `no ${METADATA_ADDRESS} route through ${s.gateway} after adding it`;
    },
    retries: 1,
    timeoutMs: 120_000,
  };
}

function waitReadyStep(nodeName: string, t: Timing): RebootStep {
  return {
    id: 'wait-ready',
    title: 'Wait for the node to report Ready',
    preview: {
      check: 'the Ready condition is True',
      api: [{ verb: 'GET', path: nodePath(nodeName) }],
      notes: [`waits up to ${durationText(t.timeout)} (setting kubeWindows.reboot.timeoutMinutes)`],
    },
    check: async (ctx, signal) => (isReady(await mustNode(ctx, signal)) ? 'done' : 'todo'),
    apply: (ctx, signal, report) =>
      waitForNode(
        ctx,
        signal,
        report,
        t,
        isReady,
        (last) =>
          `The node ${nodeName} did not return to Ready within ${durationText(t.timeout)} after the restart (${last || 'no answer'}). Look at the kubelet on the host (kube-windows nodes services/logs).`,
      ),
    verify: async (ctx, signal) => (isReady(await mustNode(ctx, signal)) ? true : 'the node is not Ready'),
    timeoutMs: t.timeout + 60_000,
  };
}

function verifyStep(nodeName: string): RebootStep {
  return {
    id: 'verify',
    title: 'Verify the node is Ready and schedulable',
    preview: { check: 'always runs', api: [{ verb: 'GET', path: nodePath(nodeName) }] },
    check: async () => 'todo',
    apply: async (ctx, signal) => {
      const n = await mustNode(ctx, signal);
      const problems = [
        ...(isReady(n) ? [] : [readyMessage(n)]),
        ...(n.spec?.unschedulable ? ['still unschedulable'] : []),
      ];
      if (problems.length > 0)
        throw new Error(`After the reboot the node ${nodeName} is not healthy: ${problems.join(', ')}.`);
    },
    verify: async () => true,
    timeoutMs: 60_000,
  };
}

/**
 * Builds the plan for one node as named steps, in the documented order; read the Node first (getNode) and pass it in.
 */
export function buildRebootPlan(opts: RebootOptions): Plan<RebootContext> {
  const nodeName = opts.node.metadata.name;
  const t = timing(opts, opts.timeoutMs ?? DEFAULT_REBOOT_TIMEOUT_MINUTES * 60_000);
  const afterCordon = [
    drainStep(nodeName, opts, t),
    restartStep(opts.node, t),
    waitNotReadyStep(nodeName, t),
    ...(isAwsNode(opts.node) ? [awsRouteStep()] : []),
    waitReadyStep(nodeName, t),
  ];
  const steps: RebootStep[] = [
    cordonStep(nodeName),
    ...afterCordon.map((s) => cordoned(nodeName, s)),
    {
      ...uncordonStep(nodeName, [BOOT_ANNOTATION]),
      // Once uncordoned the reboot is over: a re-run would start another one, so the words must not invite it.
      leavesBehind: {
        state: `The host of ${nodeName} restarted and the node is Ready and uncordoned: the reboot is complete (only its final check did not run; running the reboot again would restart the host again).`,
        whole: true,
      },
    },
    verifyStep(nodeName),
  ];
  return { id: 'node-reboot', title: `Reboot ${nodeName} gracefully`, target: nodeName, steps };
}

/** What the CLI and VS Code ask for: the reboot's options with the Node as read, or its name (then it is read). */
export type RebootRequest = Omit<RebootOptions, 'node'> & ({ node: RebootNode } | { nodeName: string });

/** The reboot plan of one node, ready to show and run: the one builder the CLI and VS Code call. */
export async function rebootPlanFor(request: RebootRequest, signal?: AbortSignal): Promise<PreparedPlan<RebootState>> {
  let opts: RebootOptions;
  if ('node' in request) opts = request;
  else {
    const { nodeName, ...rest } = request;
    const node = await getNode(request.kube, nodeName, signal);
    if (!node) throw new Error(`There is no Node named ${nodeName} in this cluster.`);
    opts = { ...rest, node };
  }
  return prepare(buildRebootPlan(opts), { opts, state: {} });
}

/**
 * One or two sentences for the end of a reboot run: done, or what stopped it and (when the cordon
 * happened) that the node stays cordoned.
 */
export function rebootSummary(result: RunResult, nodeName: string): string {
  if (result.outcome === 'done') return `${nodeName} was rebooted and is Ready and schedulable again.`;
  const cordon = result.steps.find((s) => s.id === 'cordon');
  const cordonedNow =
    (cordon?.outcome === 'applied' || cordon?.outcome === 'skipped') &&
    result.error?.stepId !== 'cordon' &&
    result.steps.find((s) => s.id === 'uncordon')?.outcome !== 'applied';
  const what =
    result.outcome === 'cancelled'
      ? `The reboot of ${nodeName} was cancelled at step ${result.error?.stepId ?? '?'}. ${result.aftermath?.state ?? ''}`.trim()
      : `The reboot of ${nodeName} failed at step ${result.error?.stepId ?? '?'}: ${result.error?.message ?? ''}`;
  return cordonedNow && !what.includes('stays cordoned') ? `${what} ${cordonedNote(nodeName, 'reboot')}` : what;
}
