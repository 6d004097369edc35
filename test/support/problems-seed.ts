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
    metadata: { name: 'iis', namespace: 'web', uid: 'd-1', managedFields: [{ manager: 'kubectl', operation: 'Apply' }] },
    spec: { replicas: 1, selector: { matchLabels: { app: 'iis' } }, template: { metadata: { labels: { app: 'iis' } }, spec: WIN_SPEC({ securityContext: { privileged: true } }) } },
  };
  const agent: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'web', uid: 'ds-1' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { ...WIN_SPEC(), hostNetwork: true } } },
  };
  // A bare pod on win-1 whose image needs another Windows build, as the kubelet reports it.
  const failing = pod('api-0', 'web', 'win-1', { windows: true, image: 'mcr.microsoft.com/windows/servercore:ltsc2019', phase: 'Pending' });
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
            message: 'hcs::CreateComputeSystem api: The container operating system does not match the host operating system.: unknown',
          },
        },
      },
    ],
  };
  return [namespace('web'), namespace('clean'), windowsNode('win-1', { build: '10.0.20348' }), deploy, agent, failing, pod('ok-0', 'clean', undefined)];
}

/** The emulator with problemsSeed(); `limited-token` may not list DaemonSets. */
export function startProblemsEmulator(): Promise<Emulator> {
  return startEmulator({ objects: problemsSeed(), openshift: false, tokens: { 'limited-token': { user: 'limited', deny: [{ verb: 'list', resource: 'daemonsets' }] } } });
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
