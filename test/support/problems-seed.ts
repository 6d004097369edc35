// A small cluster for the Windows workload problems view (test/integration/problems-*.test.ts): a
// Windows Deployment with a privileged container, a Windows DaemonSet, a bare pod failing on its
// Windows node (image of another build), a clean namespace; and a kubeconfig with three contexts
// on it (the admin, a user who may not list DaemonSets, a cluster that is down).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from './kube-api-emulator';
import { namespace, pod, windowsNode } from './kube-seed';

const WIN_SPEC = (extra: Record<string, unknown> = {}) => ({
  nodeSelector: { 'kubernetes.io/os': 'windows' },
  tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
  containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022', ...extra }],
});

export function problemsSeed(): KubeObject[] {
  const deploy: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'iis',
      namespace: 'web',
      uid: 'd-1',
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'iis' } },
      template: { metadata: { labels: { app: 'iis' } }, spec: WIN_SPEC({ securityContext: { privileged: true } }) },
    },
  };
  const agent: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'web', uid: 'ds-1' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { ...WIN_SPEC(), hostNetwork: true } },
    },
  };
  // A bare pod on win-1 whose image needs another Windows build, as the kubelet reports it.
  const failing = pod('api-0', 'web', 'win-1', {
    windows: true,
    image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
    phase: 'Pending',
  });
  failing.status = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'api',
        ready: false,
        restartCount: 0,
        image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
        state: {
          waiting: {
            reason: 'CreateContainerError',
            message:
              'hcs::CreateComputeSystem api: The container operating system does not match the host operating system.: unknown',
          },
        },
      },
    ],
  };
  return [
    namespace('web'),
    namespace('clean'),
    windowsNode('win-1', { build: '10.0.20348' }),
    deploy,
    agent,
    failing,
    pod('ok-0', 'clean', undefined),
  ];
}

/** The emulator with problemsSeed(); `limited-token` may not list DaemonSets. */
export function startProblemsEmulator(): Promise<Emulator> {
  return startEmulator({
    objects: problemsSeed(),
    openshift: false,
    tokens: { 'limited-token': { user: 'limited', deny: [{ verb: 'list', resource: 'daemonsets' }] } },
  });
}

/** One kubeconfig, three contexts: the admin, a user who may not list DaemonSets, a cluster that is down. */
export function writeProblemsKubeconfig(emu: Emulator, dir: string): string {
  const ca = Buffer.from(emu.caPem).toString('base64');
  const file = join(dir, 'config');
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters:
- name: emu
  cluster: {server: ${JSON.stringify(emu.url)}, certificate-authority-data: ${ca}}
- name: down
  cluster: {server: "https://127.0.0.1:1", certificate-authority-data: ${ca}}
users:
- name: admin
  user: {token: ${JSON.stringify(emu.token)}}
- name: limited
  user: {token: limited-token}
contexts:
- name: lab
  context: {cluster: emu, user: admin}
- name: restricted
  context: {cluster: emu, user: limited}
- name: down
  context: {cluster: down, user: admin}
current-context: lab
`,
  );
  return file;
}

/**
 * A few failing Windows pods for the mixed cluster (kube-seed's mixedCluster, the sandbox): an image
 * of another Windows build on the 2019 node, a pod that does not tolerate the Windows taint, a crash
 * loop on the 2022 node; with the scheduler's event and the crashing container's logs (by
 * `ns/pod/container`, for a kubelet double).
 */
export function failingWindowsPods(): { objects: KubeObject[]; containerLogs: Record<string, string> } {
  const ns = 'win-apps';
  const named = (p: KubeObject, container: string): KubeObject => {
    (p.spec as { containers: { name: string }[] }).containers[0]!.name = container;
    return p;
  };
  const mismatch = named(
    pod('reports-6b7c8d9f5-mq2zt', ns, 'winworker-2019-a', {
      windows: true,
      phase: 'Pending',
      image: 'mcr.microsoft.com/windows/servercore:ltsc2022',
    }),
    'reports',
  );
  mismatch.status = {
    phase: 'Pending',
    hostIP: '10.0.130.21',
    containerStatuses: [
      {
        name: 'reports',
        ready: false,
        restartCount: 0,
        image: 'mcr.microsoft.com/windows/servercore:ltsc2022',
        state: {
          waiting: {
            reason: 'CreateContainerError',
            message:
              'hcs::CreateComputeSystem reports: The container operating system does not match the host operating system.: unknown',
          },
        },
      },
    ],
  };
  const untolerated = named(pod('batch-5f6d7c8b9-x7k2p', ns, undefined, { windows: true }), 'batch');
  (untolerated.spec as { tolerations?: unknown }).tolerations = undefined;
  untolerated.status = {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message:
          "0/6 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint {os: Windows}. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
      },
    ],
  };
  const crashing = named(pod('worker-7d8e9f6a5-r4t8w', ns, 'winworker-2022-b', { windows: true }), 'worker');
  crashing.status = {
    ...(crashing.status as object),
    containerStatuses: [
      {
        name: 'worker',
        ready: false,
        restartCount: 6,
        image: 'mcr.microsoft.com/windows/servercore:ltsc2022',
        state: {
          waiting: { reason: 'CrashLoopBackOff', message: 'back-off 2m40s restarting failed container=worker' },
        },
        lastState: {
          terminated: {
            exitCode: 1,
            reason: 'Error',
            startedAt: '2026-11-25T08:40:00Z',
            finishedAt: '2026-11-25T08:40:03Z',
          },
        },
      },
    ],
  };
  const event: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'batch-5f6d7c8b9-x7k2p.187a1b2c3d4e5f60', namespace: ns },
    involvedObject: {
      apiVersion: 'v1',
      kind: 'Pod',
      name: untolerated.metadata.name,
      namespace: ns,
      uid: untolerated.metadata.uid,
    },
    reason: 'FailedScheduling',
    message: (untolerated.status as { conditions: { message: string }[] }).conditions[0]!.message,
    type: 'Warning',
    count: 12,
    firstTimestamp: '2026-11-25T08:00:00Z',
    lastTimestamp: '2026-11-25T08:45:00Z',
    source: { component: 'default-scheduler' },
  } as KubeObject;
  const log =
    'Starting worker...\nUnhandled exception. System.IO.FileNotFoundException: Could not find file C:\\app\\settings.json\n';
  return {
    objects: [mismatch, untolerated, crashing, event],
    containerLogs: {
      [`${ns}/${crashing.metadata.name}/worker`]: log,
      [`${ns}/${crashing.metadata.name}/worker#previous`]: log,
    },
  };
}
