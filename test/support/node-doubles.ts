// Test doubles of the DaemonSet controller and a Windows node's kubelet, driving the API emulator
// (never the real API server, never shipped). The DaemonSet controller double gives every DaemonSet
// whose pod template's nodeSelector matches a Node one pod on it (named <daemonset>-<5 characters>,
// owned by the DaemonSet, spec.nodeName set); the kubelet double, for pods on the Windows nodes it is
// told about, moves them Pending (ContainerCreating) -> Running (ready), or into CrashLoopBackOff for
// the DaemonSets it is told to crash, and runs a pod with restartPolicy Never to Succeeded. One step
// per tick, as a controller would.
import { randomBytes } from 'node:crypto';
import type { Emulator, KubeObject } from './kube-api-emulator';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface NodeDoublesOptions {
  /** Time between two steps (default 30 ms). */
  tickMs?: number;
  /** DaemonSet name → the container that crashes and its last message (CrashLoopBackOff). */
  crash?: Record<string, { container: string; message: string }>;
  /** Images the kubelet cannot pull (ErrImagePull / ImagePullBackOff). */
  unpullable?: RegExp;
}

export interface NodeDoubles {
  stop(): void;
  /** `<pod>: <what>` for every step taken. */
  log: string[];
}

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

function selects(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);
}

/** A container's status as the kubelet reports it: not ready unless running. */
const containerStatus = (c: Obj, state: Obj, extra: Obj = {}): Obj => ({
  name: c.name,
  image: c.image,
  imageID: '',
  ready: 'running' in state,
  restartCount: 0,
  started: 'running' in state,
  state,
  ...extra,
});

export function startNodeDoubles(emu: Emulator, opts: NodeDoublesOptions = {}): NodeDoubles {
  const log: string[] = [];
  const tick = (): void => {
    const nodes = emu.list('Node') as Obj[];
    const pods = emu.list('Pod') as Obj[];
    // DaemonSet controller double: one pod per matching node.
    for (const ds of emu.list('DaemonSet') as Obj[]) {
      const tpl = ds.spec?.template ?? {};
      for (const node of nodes) {
        if (!selects(tpl.spec?.nodeSelector, node.metadata.labels ?? {})) continue;
        const owned = pods.some(
          (p) =>
            p.metadata.namespace === ds.metadata.namespace &&
            p.spec?.nodeName === node.metadata.name &&
            (p.metadata.ownerReferences ?? []).some((o: Obj) => o.kind === 'DaemonSet' && o.name === ds.metadata.name),
        );
        if (owned) continue;
        const name = `${ds.metadata.name}-${randomBytes(3).toString('hex').slice(0, 5)}`;
        emu.apply({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name,
            namespace: ds.metadata.namespace,
            labels: {
              ...(tpl.metadata?.labels ?? {}),
              'controller-revision-hash': '6d4f5b7c8d',
              'pod-template-generation': '1',
            },
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'DaemonSet',
                name: ds.metadata.name,
                uid: ds.metadata.uid ?? '',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
            creationTimestamp: now(),
          },
          spec: { ...(tpl.spec ?? {}), nodeName: node.metadata.name },
          status: { phase: 'Pending', qosClass: 'BestEffort' },
        } as KubeObject);
        log.push(`${name}: created for ${node.metadata.name}`);
      }
    }
    // kubelet double on the Windows nodes.
    const windows = new Set(
      nodes.filter((n) => n.metadata.labels?.['kubernetes.io/os'] === 'windows').map((n) => n.metadata.name as string),
    );
    for (const pod of pods) {
      if (!windows.has(pod.spec?.nodeName)) continue;
      const phase = pod.status?.phase;
      const containers = (pod.spec?.containers ?? []) as Obj[];
      const owner = (pod.metadata.ownerReferences ?? []).find((o: Obj) => o.kind === 'DaemonSet')?.name as
        string | undefined;
      const ns = pod.metadata.namespace;
      const status = (s: Obj): void => void emu.patch('Pod', pod.metadata.name, ns, { status: s });
      if (phase === undefined || (phase === 'Pending' && !pod.status?.containerStatuses)) {
        status({
          phase: 'Pending',
          containerStatuses: containers.map((c) => containerStatus(c, { waiting: { reason: 'ContainerCreating' } })),
        });
        log.push(`${pod.metadata.name}: ContainerCreating`);
        continue;
      }
      if (phase !== 'Pending') continue;
      const crash = owner ? opts.crash?.[owner] : undefined;
      const unpullable = containers.find((c) => opts.unpullable?.test(c.image));
      if (unpullable) {
        status({
          phase: 'Pending',
          containerStatuses: containers.map((c) =>
            containerStatus(
              c,
              c === unpullable
                ? { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image}"` } }
                : { waiting: { reason: 'PodInitializing' } },
            ),
          ),
        });
        continue;
      }
      if (crash) {
        if (pod.status?.containerStatuses?.some((c: Obj) => c.state?.waiting?.reason === 'CrashLoopBackOff')) continue;
        status({
          phase: 'Running',
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'ContainersNotReady',
              message: `containers with unready status: [${crash.container}]`,
            },
          ],
          containerStatuses: containers.map((c) =>
            c.name === crash.container
              ? containerStatus(
                  c,
                  {
                    waiting: {
                      reason: 'CrashLoopBackOff',
                      message: `back-off 2m40s restarting failed container=${c.name} pod=${pod.metadata.name}_${ns}(${pod.metadata.uid ?? ''})`,
                    },
                  },
                  {
                    restartCount: 5,
                    lastState: {
                      terminated: { exitCode: 1, reason: 'Error', message: crash.message, finishedAt: now() },
                    },
                  },
                )
              : containerStatus(c, { running: { startedAt: now() } }),
          ),
        });
        log.push(`${pod.metadata.name}: CrashLoopBackOff`);
        continue;
      }
      if (pod.spec?.restartPolicy === 'Never' && !owner) {
        status({
          phase: 'Succeeded',
          containerStatuses: containers.map((c) =>
            containerStatus(c, { terminated: { exitCode: 0, reason: 'Completed', finishedAt: now() } }),
          ),
        });
        log.push(`${pod.metadata.name}: Succeeded`);
        continue;
      }
      status({
        phase: 'Running',
        podIP: '10.244.5.10',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: containers.map((c) => containerStatus(c, { running: { startedAt: now() } })),
      });
      log.push(`${pod.metadata.name}: Running`);
    }
  };
  const timer = setInterval(() => {
    try {
      tick();
    } catch {
      // an object changed under the double: the next tick sees the new state
    }
  }, opts.tickMs ?? 30);
  return { stop: () => clearInterval(timer), log };
}
