// What each step of the kubeadm join leaves on the host and in the cluster once it has run: the words a
// cancelled or failed join ends with (src/bootstrap/aftermath.ts). Declared as one table beside the
// plan so that the cumulative state reads in order: the host prepared, then the Node joined, then the
// objects created for it.

import type { LeavesBehind, Step, Undo } from './plan';
import type { KubeadmContext } from './kubeadm';

const NOTHING_IN_CLUSTER = 'nothing in the cluster was changed; running the join again continues from here';

/** Before the join: the host is prepared, the cluster untouched. */
const onHost =
  (what: string) =>
  (ctx: KubeadmContext): LeavesBehind => ({ state: `On ${ctx.opts.address}, ${what}; ${NOTHING_IN_CLUSTER}.` });

const removeNode = (ctx: KubeadmContext): Undo => ({
  command: 'kubeWindows.removeNode',
  label: 'Remove node…',
  node: ctx.state.nodeName ?? ctx.opts.address,
  cli: `\`kube-windows remove --via kubeadm --address ${ctx.opts.address} --user … --key …\` undoes it (with kubeadm reset on the host).`,
});

/** After the join: the Node is in the cluster and stays there, whatever else happened. */
const joined =
  (what: string, observed = false) =>
  (ctx: KubeadmContext): LeavesBehind => ({
    state: `${ctx.opts.address} joined the cluster as the Node ${ctx.state.nodeName ?? ctx.opts.address}${what}; the kubelet keeps running and the Node stays.`,
    undo: removeNode(ctx),
    ...(observed ? { observed: true as const } : {}),
  });

const LEAVES: Readonly<Partial<Record<string, (ctx: KubeadmContext) => LeavesBehind>>> = {
  'containers-feature': onHost('the Containers feature is enabled (a restart may be pending)'),
  restart: onHost('the Containers feature is enabled and the host was restarted'),
  directories: onHost(`the node directories exist`),
  'containerd-archive': onHost('the containerd archive was uploaded'),
  'containerd-unpack': onHost('containerd is unpacked (not yet running)'),
  'containerd-config': onHost('containerd is unpacked and configured (not yet running)'),
  'containerd-service': onHost('the containerd service runs'),
  'kube-binaries': onHost('the containerd service runs and kubelet.exe and kubeadm.exe are in place'),
  'kubelet-service': onHost(
    'the containerd service runs and the kubelet service is registered (it waits for kubeadm join)',
  ),
  join: joined(''),
  taint: joined(' (tainted os=windows:NoSchedule)'),
  'windows-networking': joined(', and the Windows networking DaemonSets exist in the cluster'),
  'node-ready': joined(' and is Ready', true),
  'networking-pods': joined(', Ready, with its kube-proxy and CNI pods running', true),
  'runtime-class': joined(', Ready, and the RuntimeClass of its Windows build exists'),
};

/** The steps with what each leaves behind. */
export function withKubeadmLeaves(steps: Step<KubeadmContext>[]): Step<KubeadmContext>[] {
  return steps.map((s) => {
    const leaves = LEAVES[s.id];
    return leaves && !s.leavesBehind ? { ...s, leavesBehind: leaves } : s;
  });
}
