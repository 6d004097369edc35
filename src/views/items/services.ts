// The rows of a node's Services group (read over SSH by the extension): one per service, or "connect
// first", or the failure (its retry asks the group again). What a cluster of this kind runs decides what
// "not installed" means: WMCO's services belong to OpenShift's Windows nodes, and a kubeadm node runs
// kube-proxy as a HostProcess pod (sig-windows-tools' DaemonSet), not as a service (core/windows/node-components.ts).
import type { NodeServicesAnswer, WindowsNodeView } from '../../cluster/windows-nodes';
import { shownServices, type ComponentPod, type ServicesSetting } from '../../core/windows/node-components';
import { enc, type TreeNode } from '../cluster-item';
import { COLORS } from '../item';
import { md } from '../markdown';
import { errorNode } from './error';

const CONNECT_SERVICES_COMMAND = 'kubeWindows.connectServices';
/** Internal: asks a node's Services group again, with (context, node name). */
export const REFRESH_SERVICES_COMMAND = 'kubeWindows.refreshServices';

/** Where the rows come from: the extension reads them over SSH; without a source a node has no Services group. */
export type NodeServicesSource = (context: string, node: WindowsNodeView) => Promise<NodeServicesAnswer>;

export function serviceItems(
  sid: string,
  node: { context: string; node: string },
  answer: NodeServicesAnswer,
  setting: ServicesSetting = { distribution: 'openshift' },
): TreeNode[] {
  if ('connect' in answer) {
    // The command gets the node as an item with its reference, as if run on the node itself.
    const nodeItem: Pick<TreeNode, 'ref'> = { ref: { kind: 'node', ...node } };
    return [
      {
        id: `${sid}/connect`,
        label: 'Connect to show services…',
        tooltip: md(answer.connect),
        icon: { id: 'plug' },
        contextValue: 'info',
        collapsible: 'none',
        command: { id: CONNECT_SERVICES_COMMAND, title: 'Connect', args: [nodeItem] },
        ref: { kind: 'detail', ...node },
      },
    ];
  }
  if ('error' in answer)
    return [errorNode(`${sid}/error`, { kind: 'error', reason: 'other', message: answer.error, what: 'services' })];
  return shownServices(answer.services, setting).map((s) => {
    if ('pod' in s) return componentPodNode(sid, node, s.name, s.pod);
    const running = s.status === 'Running';
    const state = s.exists ? (s.status ?? 'unknown') : 'not installed';
    return {
      id: `${sid}/${enc(s.name)}`,
      label: s.name,
      description: [state, s.exists && s.startType ? s.startType : ''].filter(Boolean).join(' · '),
      tooltip: `**${md(s.name)}** · ${md(state)}${s.startType ? ` (start type ${md(s.startType)})` : ''}`,
      icon: !s.exists
        ? { id: 'circle-slash' }
        : running
          ? { id: 'pass', color: COLORS.ok }
          : { id: 'circle-outline', color: COLORS.warning },
      contextValue: !s.exists ? 'info' : running ? 'windowsService' : 'windowsService.stopped',
      collapsible: 'none',
      ref: s.exists ? { kind: 'service', ...node, service: s.name } : { kind: 'detail', ...node },
    };
  });
}

function componentPodNode(
  sid: string,
  node: { context: string; node: string },
  name: string,
  pod: ComponentPod,
): TreeNode {
  const ok = pod.phase === 'Running' && pod.ready;
  const where = `${pod.namespace}/${pod.name}`;
  return {
    id: `${sid}/${enc(name)}`,
    label: name,
    description: `${pod.phase}${pod.phase === 'Running' && !pod.ready ? ', not ready' : ''} · HostProcess pod`,
    tooltip: [
      `**${md(name)}** runs as the HostProcess pod ${md(where)}${pod.daemonSet ? ` of DaemonSet ${md(pod.daemonSet)}` : ''}, not as a Windows service.`,
      '',
      'Restart it by deleting the pod (its DaemonSet makes a new one).',
    ].join('\n'),
    icon: ok ? { id: 'pass', color: COLORS.ok } : { id: 'circle-outline', color: COLORS.warning },
    contextValue: 'info',
    collapsible: 'none',
    ref: { kind: 'detail', ...node },
  };
}
