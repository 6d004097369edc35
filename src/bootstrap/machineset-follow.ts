// Following the Machines of a Windows MachineSet to Ready nodes: a plan with one step per stage
// (Machines created, Provisioned, Running, node registered, WMCO configured, node Ready), each
// polling the Machines of the MachineSet until all of them reached it, run by the one plan runner
// (progress, cancel, resume). A Machine that fails, or a stage that takes longer than its limit,
// ends the step with the reasons the cluster gives (core/openshift/machine-state's stallReasons):
// the Machine's error, its events, WMCO's events, the user-data secret.
import {
  MACHINE_STAGES,
  machineFailed,
  machineNodeName,
  nextStage,
  stageReached,
  stallReasons,
  type MachineStage,
  type NodeFacts,
} from '../core/openshift/machine-state';
import type { MachineApiObject } from '../core/openshift/windows-machineset';
import { WMCO_NAMESPACE } from '../core/well-known';
import type { KubeClient } from '../cluster/kube-client';
import {
  getMachineSet,
  listMachines,
  machineEvents,
  machineSetCalls,
  userDataSecretExists,
  wmcoWarningEvents,
} from '../cluster/machinesets';
import { getNode, nodeCall } from '../cluster/nodes';
import { waitFor } from './follow';
import { proxyPreflightStep } from './proxy-preflight';
import { clusterProxy } from '../cluster/openshift';
import { proxyFacts } from '../core/proxy/settings';
import type { Plan, Step } from './plan';
import { prepare } from './prepared';
import type { RunEvent, RunResult } from './runner';

/** How long each stage may take before the follow says why it stalled (ms). */
const DEFAULT_STAGE_TIMEOUTS: Record<'machines' | MachineStage, number> = {
  machines: 5 * 60_000,
  provisioning: 0,
  provisioned: 20 * 60_000,
  // WMCO configures the VM before its node registers: about 10 minutes, more on a first Machine.
  running: 30 * 60_000,
  node: 10 * 60_000,
  configured: 20 * 60_000,
  ready: 10 * 60_000,
};
const DEFAULT_FOLLOW_POLL_MS = 10_000;

export interface FollowContext {
  kube: KubeClient;
  machineSet: string;
  /** Machines to wait for; default: the MachineSet's spec.replicas when the follow starts. */
  expected?: number;
  wmcoNamespace?: string;
  pollMs?: number;
  /** One limit for every stage, or per stage (ms). */
  stageTimeoutMs?: number | Partial<Record<'machines' | MachineStage, number>>;
  /** Filled while following: the Machines and their nodes as last seen. */
  state: { machines: MachineApiObject[]; nodes: Record<string, string> };
}

const timeoutOf = (ctx: FollowContext, stage: 'machines' | MachineStage): number =>
  typeof ctx.stageTimeoutMs === 'number'
    ? ctx.stageTimeoutMs
    : (ctx.stageTimeoutMs?.[stage] ?? DEFAULT_STAGE_TIMEOUTS[stage]);

async function expectedCount(ctx: FollowContext, signal: AbortSignal): Promise<number> {
  if (ctx.expected !== undefined) return ctx.expected;
  const ms = await getMachineSet(ctx.kube, ctx.machineSet, signal);
  if (!ms) throw new Error(`MachineSet ${ctx.machineSet} does not exist (any more).`);
  const replicas = ms.spec?.replicas;
  ctx.expected = typeof replicas === 'number' ? replicas : 1;
  return ctx.expected;
}

/** The Machines (not being deleted) with their nodes, as the cluster has them now. */
async function observe(
  ctx: FollowContext,
  signal: AbortSignal,
): Promise<{ machine: MachineApiObject; node?: NodeFacts }[]> {
  const machines = (await listMachines(ctx.kube, ctx.machineSet, signal)).filter((m) => !m.metadata.deletionTimestamp);
  ctx.state.machines = machines;
  return Promise.all(
    machines.map(async (machine) => {
      const name = machineNodeName(machine);
      const node = name ? await getNode(ctx.kube, name, signal) : undefined;
      if (name && node) ctx.state.nodes[machine.metadata.name] = name;
      return node ? { machine, node: node as NodeFacts } : { machine };
    }),
  );
}

/** Why a Machine stopped or stalls, from the cluster's own words (each read may fail on its own). */
async function explain(
  ctx: FollowContext,
  machine: MachineApiObject,
  node: NodeFacts | undefined,
  signal: AbortSignal,
): Promise<string[]> {
  const quiet = <T>(p: Promise<T>): Promise<T | undefined> => p.catch(() => undefined);
  const ns = ctx.wmcoNamespace ?? WMCO_NAMESPACE;
  const [events, wmcoEvents, secret] = await Promise.all([
    quiet(machineEvents(ctx.kube, machine.metadata.name, signal)),
    quiet(wmcoWarningEvents(ctx.kube, ns, signal)),
    quiet(userDataSecretExists(ctx.kube, signal)),
  ]);
  return stallReasons({
    machine,
    ...(node ? { node } : {}),
    events: events ?? [],
    wmcoEvents: wmcoEvents ?? [],
    ...(secret !== undefined ? { userDataSecret: secret } : {}),
    wmcoNamespace: ns,
  });
}

const minutes = (ms: number): string =>
  ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;

function stageStep(stage: MachineStage, title: string): Step<FollowContext> {
  return {
    id: stage,
    title,
    preview: {
      check: `every Machine of the MachineSet has reached: ${title}`,
      api: [machineSetCalls.machines('<machineset>'), nodeCall('GET', '<node>')],
    },
    async check(ctx, signal) {
      const seen = await observe(ctx, signal);
      const want = await expectedCount(ctx, signal);
      return seen.length >= want && seen.every((s) => stageReached(stage, s.machine, s.node)) ? 'done' : 'todo';
    },
    async apply(ctx, signal, report) {
      const limit = timeoutOf(ctx, stage);
      const reported = new Set<string>();
      let last: { machine: MachineApiObject; node?: NodeFacts }[] = [];
      try {
        await waitFor(
          async () => {
            const seen = (last = await observe(ctx, signal));
            for (const s of seen) {
              const name = s.machine.metadata.name;
              if (stageReached(stage, s.machine, s.node) && !reported.has(name)) {
                reported.add(name);
                report(`${name}: ${title}${s.node ? ` (node ${s.node.metadata.name})` : ''}`);
              }
              if (machineFailed(s.machine)) {
                const reasons = await explain(ctx, s.machine, s.node, signal);
                throw new Error(`Machine ${name} failed.\n${reasons.join('\n')}`);
              }
            }
            const behind = seen.filter((s) => !stageReached(stage, s.machine, s.node));
            if (behind.length === 0) return true;
            return {
              waiting: behind
                .map(
                  (s) =>
                    `${s.machine.metadata.name}: ${MACHINE_STAGES.find((x) => x.stage === nextStage(s.machine, s.node))?.title ?? 'pending'}`,
                )
                .join(', '),
            };
          },
          {
            signal,
            intervalMs: ctx.pollMs ?? DEFAULT_FOLLOW_POLL_MS,
            timeoutMs: limit,
            report,
            timeoutMessage: () => 'stalled',
          },
        );
      } catch (err) {
        if (signal.aborted || (err as Error).message !== 'stalled') throw err;
        const stuck = last.filter((s) => !stageReached(stage, s.machine, s.node));
        const lines: string[] = [];
        for (const s of stuck) lines.push(...(await explain(ctx, s.machine, s.node, signal)));
        throw new Error(
          `${stuck.map((s) => s.machine.metadata.name).join(', ')} did not reach "${title}" within ${minutes(limit)}.\n${[...new Set(lines)].join('\n')}`,
        );
      }
    },
    async verify() {
      return true;
    },
  };
}

function machinesStep(): Step<FollowContext> {
  return {
    id: 'machines',
    title: 'Machines created by the machine controller',
    preview: {
      check: 'the MachineSet has as many Machines as replicas',
      api: [machineSetCalls.machines('<machineset>')],
    },
    async check(ctx, signal) {
      return (await observe(ctx, signal)).length >= (await expectedCount(ctx, signal)) ? 'done' : 'todo';
    },
    async apply(ctx, signal, report) {
      const want = await expectedCount(ctx, signal);
      const limit = timeoutOf(ctx, 'machines');
      await waitFor(
        async () => {
          const seen = await observe(ctx, signal);
          return seen.length >= want ? seen.length : { waiting: `${seen.length} of ${want} Machines` };
        },
        {
          signal,
          intervalMs: ctx.pollMs ?? DEFAULT_FOLLOW_POLL_MS,
          timeoutMs: limit,
          report,
          timeoutMessage: (last) =>
            `MachineSet ${ctx.machineSet} has ${last || 'no Machines'} after ${minutes(limit)}: the machine controller makes them. Check it runs: oc get pods -n openshift-machine-api, and its log: oc logs -n openshift-machine-api deployment/machine-api-controllers -c machineset-controller`,
        },
      );
      for (const m of ctx.state.machines) report(`${m.metadata.name}: created`);
    },
    async verify() {
      return true;
    },
  };
}

/** The follow plan of a MachineSet's Machines, stage by stage (the 'provisioning' stage is the Machines' creation). */
function buildFollowPlan(machineSet: string, proxied: boolean): Plan<FollowContext> {
  return {
    id: 'machineset-follow',
    title: `Follow the Machines of ${machineSet} to Ready nodes`,
    target: machineSet,
    // Following only reads: the MachineSet was created before, and the Machine API goes on without us.
    untouched: `The MachineSet ${machineSet} stays: the machine controller keeps creating its Machines and WMCO keeps configuring them into nodes; kube-windows only stopped following. Scaling the MachineSet to 0 (or deleting it) undoes it.`,
    steps: [
      // Only on a cluster with a cluster-wide proxy: elsewhere there is nothing to check.
      ...(proxied ? [proxyPreflightStep<FollowContext>({ kube: (ctx) => ctx.kube })] : []),
      machinesStep(),
      ...MACHINE_STAGES.filter((s) => s.stage !== 'provisioning').map((s) => stageStep(s.stage, s.title)),
    ],
  };
}

export interface FollowOptions {
  kube: KubeClient;
  machineSet: string;
  expected?: number;
  wmcoNamespace?: string;
  pollMs?: number;
  stageTimeoutMs?: FollowContext['stageTimeoutMs'];
  signal?: AbortSignal;
  onEvent?: (e: RunEvent) => void;
  /** Resume from this stage (a step id: machines, provisioned, running, node, configured, ready). */
  startAt?: string;
}

/** Follows the Machines of a MachineSet until every one is a Ready node, or says why not. */
export async function followMachineSet(
  o: FollowOptions,
): Promise<{ result: RunResult; machines: MachineApiObject[]; nodes: Record<string, string> }> {
  const ctx: FollowContext = {
    kube: o.kube,
    machineSet: o.machineSet,
    ...(o.expected !== undefined ? { expected: o.expected } : {}),
    ...(o.wmcoNamespace ? { wmcoNamespace: o.wmcoNamespace } : {}),
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
    ...(o.stageTimeoutMs !== undefined ? { stageTimeoutMs: o.stageTimeoutMs } : {}),
    state: { machines: [], nodes: {} },
  };
  // An unreadable Proxy (RBAC) leaves the step out: following needs no more than it did.
  const proxied = proxyFacts(await clusterProxy(o.kube, o.signal).catch(() => undefined)) !== undefined;
  const result = await prepare(buildFollowPlan(o.machineSet, proxied), ctx).run({
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
    ...(o.startAt ? { startAt: o.startAt } : {}),
  });
  return { result, machines: ctx.state.machines, nodes: ctx.state.nodes };
}
