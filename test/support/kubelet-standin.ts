// A stand-in for the kubelets of simulated Windows hosts, driving the API emulator (test-only): the
// Node whose InternalIP is a host's address reports Ready Unknown while that host restarts and Ready
// again once it has been back a moment (on AWS only after the 169.254.169.254 route is back, as a
// real node needs it), so a graceful reboot runs to its end. A kubelet reports on its next status
// update, never in the same instant: hence the delay after the host is back.
import type { Emulator, KubeObject } from './kube-api-emulator';
import { simNode, type SimHost } from './windows-host-sim';

export interface KubeletStandinOptions {
  /** How often the hosts are looked at (default 100 ms). */
  tickMs?: number;
  /** How long a host is back before its Node turns Ready (default 300 ms). */
  readyAfterMs?: number;
  /** The Node never turns Ready again (a host that does not come back to the cluster). */
  neverReady?: boolean;
}

/** The route is seen at least this long before Ready: a kubelet reports on its next status update. */
const ROUTE_TO_READY_MS = 20;

type NodeLike = KubeObject & {
  spec?: { providerID?: string };
  status?: { addresses?: { type: string; address: string }[]; conditions?: Record<string, unknown>[] };
};

/** Sets the Ready condition, keeping the others. */
function setReady(emu: Emulator, node: NodeLike, ready: boolean): void {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const others = (node.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
  const condition = ready
    ? {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      }
    : {
        type: 'Ready',
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      };
  emu.patch('Node', node.metadata.name, undefined, { status: { conditions: [...others, condition] } });
}

/** Watches `sims` (the array may grow: hosts joined later are watched too). */
export function startKubeletStandin(
  emu: Emulator,
  sims: readonly SimHost[],
  opts: KubeletStandinOptions = {},
): { stop(): void } {
  const readyAfter = opts.readyAfterMs ?? 300;
  const down = new Map<SimHost, { backAt?: number; routedAt?: number }>();
  const tick = (): void => {
    for (const sim of sims) {
      const node = (emu.list('Node') as NodeLike[]).find((n) =>
        (n.status?.addresses ?? []).some((a) => a.type === 'InternalIP' && a.address === sim.host),
      );
      if (!node) continue;
      const ready = (node.status?.conditions ?? []).find((c) => c.type === 'Ready')?.status === 'True';
      if (sim.rebooting) {
        if (ready) setReady(emu, node, false);
        down.set(sim, {});
        continue;
      }
      const d = down.get(sim);
      if (!d) continue;
      d.backAt ??= Date.now();
      const routed = !node.spec?.providerID?.startsWith('aws://') || simNode(sim.state).metadataRoutes.length > 0;
      if (routed) d.routedAt ??= Date.now();
      if (
        !opts.neverReady &&
        routed &&
        Date.now() - d.backAt >= readyAfter &&
        Date.now() - d.routedAt! >= ROUTE_TO_READY_MS
      ) {
        setReady(emu, node, true);
        down.delete(sim);
      }
    }
  };
  const timer = setInterval(() => {
    try {
      tick();
    } catch {
      // A Node deleted between list and patch: the next tick sees the new state.
    }
  }, opts.tickMs ?? 100);
  return { stop: () => clearInterval(timer) };
}
