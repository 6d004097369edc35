// Where a Windows node's components run, by the kind of cluster: WMCO installs its services (hybrid
// overlay, metrics exporter, instance config daemon) on OpenShift's Windows nodes only; CSI Proxy is
// optional anywhere; on the kubeadm path kube-proxy is a HostProcess pod (sig-windows-tools'
// kube-proxy-windows DaemonSet), not a service. What a node lacks is "not installed" only where it is
// expected. Pure: services as read over SSH and pod objects in, what to show out.
import type { Obj } from '../manifest/path';
import { objectsOf, podSpecOf } from '../manifest/workloads';
import { hostProcessInfo } from '../rules/helpers';

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

/** A service as read on the node. */
interface ServiceLike {
  name: string;
  exists: boolean;
}

/** What the rows depend on besides the services: the kind of cluster, and the pods on the node (for HostProcess ones). */
export interface ServicesSetting {
  distribution: 'openshift' | 'kubernetes';
  /** The pod objects on the node; undefined when they could not be read. */
  pods?: readonly Obj[];
}

/** A node component running as a HostProcess pod on the node. */
export interface ComponentPod {
  namespace: string;
  name: string;
  phase: string;
  ready: boolean;
  daemonSet?: string;
}

/** Whether the rows need the pods on the node: a component that can run as a pod is not a service there. */
export function needsNodePods(services: readonly ServiceLike[]): boolean {
  return services.some((s) => !s.exists && (POD_COMPONENTS as readonly string[]).includes(s.name));
}

/** The HostProcess pod on the node that runs `component` (by container name or image), if any. */
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

/** The services to show, each either the service as read or the HostProcess pod that does its job. */
export function shownServices<S extends ServiceLike>(
  services: readonly S[],
  setting: ServicesSetting,
): (S | { name: string; pod: ComponentPod })[] {
  const out: (S | { name: string; pod: ComponentPod })[] = [];
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
