// The rows of a node's Services group (read over SSH by the extension): one per service, or "connect
// first", or the failure (its retry asks the group again). What a cluster of this kind runs decides what
// "not installed" means: WMCO's services belong to OpenShift's Windows nodes, and a kubeadm node runs
// kube-proxy as a HostProcess pod (sig-windows-tools' DaemonSet), not as a service.
import type { NodeServicesAnswer, ServiceRow, WindowsNodeView } from '../../cluster/windows-nodes';
import type { Obj } from '../../core/manifest/path';
import { objectsOf, podSpecOf } from '../../core/manifest/workloads';
import { hostProcessInfo } from '../../core/rules/helpers';
import { enc, type TreeNode } from '../cluster-item';
import { COLORS } from '../item';
import { md } from '../markdown';
import { errorNode } from './error';

const CONNECT_SERVICES_COMMAND = 'kubeWindows.connectServices';
/** Internal: asks a node's Services group again, with (context, node name). */
export const REFRESH_SERVICES_COMMAND = 'kubeWindows.refreshServices';

/** Where the rows come from: the extension reads them over SSH; without a source a node has no Services group. */
export type NodeServicesSource = (context: string, node: WindowsNodeView) => Promise<NodeServicesAnswer>;

/** Services only WMCO installs (its hybrid overlay, metrics exporter and instance config daemon). */
const WMCO_SERVICES: ReadonlySet<string> = new Set([
  'hybrid-overlay-node',
  'windows_exporter',
  'windows-instance-config-daemon',
]);
/** Services a node may run or not, whoever joined it (CSI Proxy, for CSI node plugins only). */
const OPTIONAL_SERVICES: ReadonlySet<string> = new Set(['csi-proxy']);
/** Node components that run as a HostProcess pod where they are not a service (the kubeadm path). */
const POD_COMPONENTS = ['kube-proxy'] as const;

/** What the rows depend on besides the services: the kind of cluster, and the pods on the node (for HostProcess ones). */
export interface ServicesSetting {
  distribution: 'openshift' | 'kubernetes';
  /** The pod objects on the node; undefined when they could not be read. */
  pods?: readonly Obj[];
}

/** A node component running as a HostProcess pod on the node. */
interface ComponentPod {
  namespace: string;
  name: string;
  phase: string;
  ready: boolean;
  daemonSet?: string;
}

/** Whether the rows need the pods on the node: a component that can run as a pod is not a service there. */
export function needsNodePods(answer: NodeServicesAnswer): boolean {
  return (
    'services' in answer &&
    answer.services.some((s) => !s.exists && (POD_COMPONENTS as readonly string[]).includes(s.name))
  );
}

/** Pure: the HostProcess pod on the node that runs `component` (by container name or image), if any. */
function componentPod(component: string, pods: readonly Obj[]): ComponentPod | undefined {
  for (const pod of pods) {
    const [object] = objectsOf({ apiVersion: 'v1', kind: 'Pod', ...pod });
    const view = object && podSpecOf(object);
    if (!view) continue;
    const hp = hostProcessInfo(view);
    const runs = view.containers.some(
      (c) =>
        hp.is(c) && (c.name === component || (c.image ?? '').split('@')[0]?.split('/').pop()?.startsWith(component)),
    );
    if (!runs) continue;
    const meta = (pod.metadata ?? {}) as {
      name?: string;
      namespace?: string;
      ownerReferences?: { kind?: string; name?: string }[];
      deletionTimestamp?: string;
    };
    const status = (pod.status ?? {}) as { phase?: string; conditions?: { type?: string; status?: string }[] };
    const owner = meta.ownerReferences?.find((o) => o.kind === 'DaemonSet')?.name;
    return {
      namespace: meta.namespace ?? '',
      name: meta.name ?? '',
      phase: meta.deletionTimestamp ? 'Terminating' : (status.phase ?? 'Unknown'),
      ready: (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      ...(owner ? { daemonSet: owner } : {}),
    };
  }
  return undefined;
}

/** Pure: the services to show, each either a service or the HostProcess pod that does its job. */
function shownServices(
  services: readonly ServiceRow[],
  setting: ServicesSetting,
): (ServiceRow | { name: string; pod: ComponentPod })[] {
  const out: (ServiceRow | { name: string; pod: ComponentPod })[] = [];
  for (const s of services) {
    if (!s.exists) {
      const pod = setting.pods && componentPod(s.name, setting.pods);
      if (pod) {
        out.push({ name: s.name, pod });
        continue;
      }
      // Absent where this kind of cluster does not install it: nothing is missing.
      if (setting.distribution !== 'openshift' && (WMCO_SERVICES.has(s.name) || OPTIONAL_SERVICES.has(s.name)))
        continue;
    }
    out.push(s);
  }
  return out;
}

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
