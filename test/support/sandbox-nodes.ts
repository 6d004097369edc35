// What makes the sandbox's seeded Windows nodes usable end to end (test doubles only): each gets a
// simulated host on its own loopback address (the Node's InternalIP rewritten to it, its BYOH entry
// in windows-instances too) with the node services running, log files to collect and the mirror tree
// WMCO writes, and a kubelet double on the same address serving its logs through the API server's
// node proxy. WMCO's part for registry mirrors: when an ImageDigestMirrorSet or ImageTagMirrorSet
// changes, every WMCO node's tree is written again (one node starts stale, so drift shows).
import { desiredTree } from '../../src/bootstrap/mirrors-apply';
import { mirrorEntriesOf, renderHostsToml } from '../../src/core/mirrors/render';
import { WMCO_REGISTRY_DIR } from '../../src/core/windows/layout';
import type { Emulator, KubeObject } from './kube-api-emulator';
import { WMCO_NAMESPACE } from './kube-seed';
import { startKubeletDouble, type KubeletDouble } from './kubelet-double';
import { findService, SimFs, type SimHost, type SimHostOptions } from './windows-host-sim';

export interface NodeHost {
  node: string;
  address: string;
  hostname: string;
  kubelet: KubeletDouble;
}

const LOG_FILES = (node: string): Record<string, string> => ({
  'kubelet/kubelet.log': Array.from(
    { length: 40 },
    (_, i) =>
      `I1125 08:${String(10 + i).padStart(2, '0')}:00.000000    4242 kubelet.go:2450] "SyncLoop (PLEG): event for pod" node="${node}"\n`,
  ).join(''),
  'containerd/containerd.log':
    'time="2026-11-25T08:10:00Z" level=info msg="containerd successfully booted in 0.412s"\n',
  'kube-proxy/kube-proxy.log': 'I1125 08:10:02.000000    5120 server.go:484] "Version info" version="v1.31.3"\n',
});

/** The services and log files of a configured Windows worker. */
export function nodeHostState(node: string): Pick<SimHostOptions, 'services' | 'files'> {
  const running = { status: 'Running' };
  return {
    services: {
      kubelet: running,
      containerd: running,
      'kube-proxy': running,
      'hybrid-overlay-node': running,
      windows_exporter: running,
      'windows-instance-config-daemon': running,
    },
    files: {
      // Without its config a restarted kubelet stays stopped (the simulated host's rule).
      'C:\\var\\lib\\kubelet\\config.yaml': 'kind: KubeletConfiguration\n',
      ...Object.fromEntries(
        Object.entries(LOG_FILES(node)).map(([p, c]) => [`C:\\var\\log\\${p.replace(/\//g, '\\')}`, c]),
      ),
    },
  };
}

type NodeLike = KubeObject & {
  status?: { addresses?: { type: string; address: string }[]; daemonEndpoints?: unknown };
};

/**
 * Gives every Windows Node of `objects` the address `addressOf(i)` (changing the objects in place,
 * the windows-instances entry of a BYOH node too) and a kubelet double listening there.
 */
export async function placeWindowsNodes(objects: KubeObject[], addressOf: (i: number) => string): Promise<NodeHost[]> {
  const nodes = objects.filter(
    (o): o is NodeLike => o.kind === 'Node' && o.metadata.labels?.['kubernetes.io/os'] === 'windows',
  );
  const instances = objects.find(
    (o) => o.kind === 'ConfigMap' && o.metadata.name === 'windows-instances' && o.metadata.namespace === WMCO_NAMESPACE,
  ) as (KubeObject & { data?: Record<string, string> }) | undefined;
  const out: NodeHost[] = [];
  try {
    for (const [i, node] of nodes.entries()) {
      const address = addressOf(i);
      const name = node.metadata.name;
      const kubelet = await startKubeletDouble({
        host: address,
        files: LOG_FILES(name),
        services: { kubelet: { file: 'kubelet/kubelet.log' }, containerd: { file: 'containerd/containerd.log' } },
      });
      out.push({ node: name, address, hostname: name.toUpperCase(), kubelet });
      const old = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
      if (old && instances?.data?.[old] !== undefined) {
        instances.data[address] = instances.data[old];
        delete instances.data[old];
      }
      node.status = {
        ...node.status,
        ...kubelet.nodeStatus(),
        addresses: [...kubelet.nodeStatus().addresses, { type: 'Hostname', address: name }],
      };
    }
  } catch (err) {
    await Promise.all(out.map((h) => h.kubelet.stop()));
    throw err;
  }
  return out;
}

/** Replaces the host's WMCO mirror tree with what WMCO renders from these mirror sets. */
export function writeWmcoTree(sim: SimHost, mirrorSets: unknown[]): void {
  const fs = new SimFs(sim.state);
  fs.remove(WMCO_REGISTRY_DIR);
  fs.mkdirp(WMCO_REGISTRY_DIR);
  for (const [rel, text] of desiredTree(renderHostsToml(mirrorEntriesOf(mirrorSets), { mode: 'wmco' }).files)) {
    const path = `${WMCO_REGISTRY_DIR}\\${rel}`;
    fs.mkdirp(path.slice(0, path.lastIndexOf('\\')));
    fs.write(path, Buffer.from(text));
  }
}

/** WMCO's mirror part: every change of a mirror set rewrites the trees of `sims` (after a short delay, as WMCO reconciles). */
export function attachWmcoMirrorWriter(emu: Emulator, sims: readonly SimHost[], delayMs = 500): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const write = (): void => {
    const sets = [...emu.list('ImageDigestMirrorSet'), ...emu.list('ImageTagMirrorSet')];
    for (const sim of sims) writeWmcoTree(sim, sets);
  };
  const unsubscribe = emu.onChange((ev) => {
    if (ev.object.kind !== 'ImageDigestMirrorSet' && ev.object.kind !== 'ImageTagMirrorSet') return;
    clearTimeout(timer);
    timer = setTimeout(write, delayMs);
  });
  return {
    stop: () => {
      clearTimeout(timer);
      unsubscribe();
    },
  };
}

/**
 * What WMCO installs on a BYOH host it configures: when a Node registers with the address of one of
 * `sims` whose host has no kubelet yet, that host gets the node services and log files; when the
 * Node is deleted (WMCO deconfigured the host), the services go again.
 */
export function attachWmcoHostSetup(emu: Emulator, sims: readonly SimHost[]): { stop(): void } {
  const unsubscribe = emu.onChange((ev) => {
    if (ev.type === 'MODIFIED' || ev.object.kind !== 'Node') return;
    const addresses = ((ev.object as NodeLike).status?.addresses ?? [])
      .filter((a) => a.type === 'InternalIP')
      .map((a) => a.address);
    const sim = sims.find((s) => addresses.includes(s.host));
    if (!sim) return;
    const { services, files } = nodeHostState(ev.object.metadata.name);
    if (ev.type === 'DELETED') {
      for (const name of Object.keys(services ?? {})) sim.state.services.delete(name);
      return;
    }
    if (findService(sim.state, 'kubelet')) return;
    const fs = new SimFs(sim.state);
    for (const [name, s] of Object.entries(services ?? {}))
      sim.state.services.set(name, {
        startType: 'Auto',
        binaryPathName: `C:\\k\\${name}.exe`,
        dependsOn: [],
        description: '',
        ...s,
      });
    for (const [path, text] of Object.entries(files ?? {})) {
      fs.mkdirp(path.slice(0, path.lastIndexOf('\\')));
      fs.write(path, Buffer.from(text));
    }
  });
  return { stop: unsubscribe };
}
