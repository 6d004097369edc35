// The simulated host's side of the node operations (src/core/windows/node-ops.ts): services state
// and restart, boot time, the default gateway and the instance-metadata route (gone after a reboot,
// as a `route add` without -p is), the log files and the System event log. The extra machine state
// lives here, keyed by the host's state object, so state.ts stays as it is. Test double only.
import { OpError, registerSimOp } from './ops';
import { findService, normalisePath, type SimHostState } from './state';
import type { PsLiteral } from './script';

export interface SimNodeState {
  /** The default route's next hop (default: the host's address with .1 as last octet). */
  gateway: string;
  ifIndex: number;
  /** NextHops of the 169.254.169.254/32 routes in the active store. */
  metadataRoutes: string[];
  /** System log errors, newest first. */
  systemErrors: { time: string; id: number; provider: string; message: string }[];
  /** LastBootUpTime, and the boot it belongs to. */
  lastBoot: string;
  seenBootCount: number;
  /** Restart-Service calls, in order. */
  restarts: string[];
}

const NODES = new WeakMap<SimHostState, SimNodeState>();

/** The node-operation state of a simulated host (created on first use). */
export function simNode(state: SimHostState): SimNodeState {
  let n = NODES.get(state);
  if (!n) {
    const ip = state.defaultRouteIPv4 || '10.0.0.10';
    n = {
      gateway: ip.replace(/\.\d+$/, '.1'),
      ifIndex: 6,
      metadataRoutes: [],
      systemErrors: [],
      lastBoot: new Date(Date.now() - 86_400_000).toISOString(),
      seenBootCount: state.bootCount,
      restarts: [],
    };
    NODES.set(state, n);
  }
  // A reboot happened since we last looked: its boot time (when it happened, not when it is first read, which
  // on a loaded machine can be seconds later than the kubelet's Ready); active-store routes are gone.
  if (n.seenBootCount !== state.bootCount) {
    n.seenBootCount = state.bootCount;
    n.lastBoot = new Date(state.bootedAt ?? Date.now()).toISOString();
    n.metadataRoutes = [];
  }
  return n;
}

const str = (p: Record<string, PsLiteral>, name: string): string => {
  const v = p[name];
  if (typeof v !== 'string')
    throw new OpError(`The variable '$${name}' cannot be retrieved because it has not been set.`);
  return v;
};
const list = (p: Record<string, PsLiteral>, name: string): string[] => {
  const v = p[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
};

registerSimOp('node-services-state', (ctx, _fs, p) => ({
  services: list(p, 'Names').map((name) => {
    const s = findService(ctx.state, name)?.[1];
    // Get-Service StartType names differ from Win32_Service StartMode: Auto -> Automatic.
    return s
      ? { name, exists: true, status: s.status, startType: s.startType === 'Auto' ? 'Automatic' : s.startType }
      : { name, exists: false, status: null, startType: null };
  }),
}));

registerSimOp('restart-node-service', (ctx, _fs, p) => {
  const name = str(p, 'Name');
  const found = findService(ctx.state, name);
  if (!found) throw new OpError(`Cannot find any service with service name '${name}'.`);
  const [n, s] = found;
  simNode(ctx.state).restarts.push(n);
  if (s.startType === 'Disabled') throw new OpError(`Failed to start service '${s.displayName ?? n} (${n})'.`);
  s.status = 'Running';
  return { status: s.status };
});

registerSimOp('last-boot-time', (ctx) => ({ lastBoot: simNode(ctx.state).lastBoot }));

registerSimOp('metadata-route-state', (ctx, _fs, p) => {
  str(p, 'Address');
  const n = simNode(ctx.state);
  return { gateway: n.gateway, ifIndex: n.ifIndex, routes: [...n.metadataRoutes] };
});

registerSimOp('add-metadata-route', (ctx, _fs, p) => {
  str(p, 'Address');
  const gw = str(p, 'Gateway');
  const n = simNode(ctx.state);
  if (n.metadataRoutes.includes(gw)) return { changed: false };
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(gw)) throw new OpError(`New-NetRoute : The parameter is incorrect.`);
  n.metadataRoutes.push(gw);
  return { changed: true };
});

registerSimOp('list-log-files', (ctx, fs, p) => {
  const files: { path: string; size: number }[] = [];
  const walk = (dir: string): void => {
    for (const c of fs.children(dir)) {
      if (c.directory) walk(c.path);
      else files.push({ path: normalisePath(c.path), size: fs.read(c.path).length });
    }
  };
  for (const d of list(p, 'Dirs')) if (fs.isDir(d)) walk(d);
  void ctx;
  return { files };
});

registerSimOp('system-event-errors', (ctx, _fs, p) => {
  const max = p.MaxEvents;
  if (typeof max !== 'number')
    throw new OpError("The variable '$MaxEvents' cannot be retrieved because it has not been set.");
  return { events: simNode(ctx.state).systemErrors.slice(0, max) };
});
