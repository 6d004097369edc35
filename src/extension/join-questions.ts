// The questions "Join Windows node", "Show join plan" and "Remove node" ask (a multi-step input:
// context, join path, address, SSH login and key, payload, options), answered or undefined when the
// user cancels (the command then ends quietly). Running what the answers ask for is join-commands.ts's.
import * as vscode from 'vscode';
import { readConfig } from './config';
import { firstLine, parseItem, userMessage } from './command-kit';
import { validateAddress } from '../core/windows/join-input';
import type { JoinVia } from '../bootstrap/join';
import type { Payload } from '../bootstrap/payload';
import { keyStep, rememberedUser, rememberLogin, userStep } from './ssh-prompts';
import { runSteps, type InputStep, type PickItem, type PickStep, type Step } from './multi-step-input';
import { contextStart } from './context-step';
import type { Answers, ClusterHandle, Runtime } from './join-commands';

/** What removing a kubeadm node asks: reset the host too, and then how to reach it. */
export interface RemoveAnswers {
  reset: boolean;
  via: JoinVia;
  address: string;
  user: string;
  keyPath: string;
}

/** What the join questions answer (the payload folder only when no setting names the payload). */
interface JoinAnswers {
  context: string;
  via: JoinVia;
  address: string;
  user: string;
  keyPath: string;
  payloadFolder: string;
  taint: boolean;
  runtimeClass: boolean;
}

const payloadConfigured = (): boolean => {
  const { payloadFolder, payloadUrls: urls } = readConfig().join;
  // URLs with SHA-256 checksums: the host downloads those files itself (a folder's files win).
  return !!payloadFolder || ['containerd', 'kubelet', 'kubeadm'].every((k) => urls[k]?.url && urls[k]?.sha256);
};

/** The join path question: the detected path first (read from the cluster while the picker is busy). */
function viaStep(rt: Runtime, cluster: (context: string) => Promise<ClusterHandle>, hint: boolean | undefined) {
  let why = '';
  let detected: JoinVia | undefined;
  const step: Step<JoinAnswers> = {
    kind: 'pick',
    key: 'via',
    title: (a) => `kube-windows: how to join a Windows host to ${a.context}?`,
    placeholder: () =>
      detected
        ? `Detected: ${detected === 'byoh' ? 'BYOH' : 'kubeadm'}`
        : `Could not detect the cluster kind${why ? ` (${why})` : ''}: choose`,
    items: async (a) => {
      const context = a.context as string;
      const handle = await cluster(context);
      detected = hint === undefined ? undefined : hint ? 'byoh' : 'kubeadm';
      if (!detected) {
        try {
          detected = await (await rt.deps()).detectVia(handle.kube);
        } catch (err) {
          why = firstLine(await userMessage(err, context));
          rt.log.warn(`detecting the join path of ${context}: ${why}`);
        }
      }
      const items: PickItem<JoinVia>[] = [
        {
          value: 'byoh',
          label: 'BYOH (Windows Machine Config Operator)',
          description: detected === 'byoh' ? 'detected: OpenShift/OKD' : '',
          detail:
            'OpenShift/OKD: checks the host, adds it to the windows-instances ConfigMap, and follows WMCO as it configures the host over SSH with the key in cloud-private-key.',
        },
        {
          value: 'kubeadm',
          label: 'kubeadm',
          description: detected === 'kubeadm' ? 'detected: Kubernetes (not OpenShift)' : '',
          detail:
            'Upstream Kubernetes: installs containerd, kubelet and kubeadm from a payload folder over SSH, then runs kubeadm join with a short-lived bootstrap token.',
        },
      ];
      // The detected path first: it is the active entry.
      return detected === 'kubeadm' ? items.reverse() : items;
    },
  };
  return step;
}

/** The host address question; `value` is the default shown (a node's InternalIP when removing it). */
export function addressStep<S extends { address: string; via: JoinVia }>(value?: string): InputStep<S, 'address'> {
  return {
    kind: 'input',
    key: 'address',
    title: 'kube-windows: Windows host address',
    prompt: (a) =>
      a.via === 'byoh'
        ? 'IPv4 address or DNS name of the host (WMCO connects to it over SSH, port 22)'
        : `Address or DNS name of the host (SSH, port ${readConfig().ssh.port})`,
    placeholder: '10.0.0.12 or win-node-1.example.com',
    ...(value ? { value: () => value } : {}),
    validate: (v, a) => validateAddress(v, a.via ?? 'kubeadm') ?? undefined,
    parse: (v) => v.trim() as S['address'],
  };
}

const yesNo = <S, K extends keyof S>(
  key: K,
  title: string,
  yes: { label: string; detail: string },
  no: { label: string; detail: string },
): PickStep<S, K> => ({
  kind: 'pick',
  key,
  title,
  when: (a) => (a as Partial<JoinAnswers>).via === 'kubeadm',
  items: () => [
    { ...yes, value: true as S[K] },
    { ...no, value: false as S[K] },
  ],
});

/** The join questions, in order, as data; `withKey` false for the dry-run (no SSH connection is made for a plan). */
function joinSteps(
  rt: Runtime,
  cluster: (context: string) => Promise<ClusterHandle>,
  hint: boolean | undefined,
  withKey: boolean,
): Step<JoinAnswers>[] {
  return [
    viaStep(rt, cluster, hint),
    addressStep<JoinAnswers>(),
    userStep<JoinAnswers>((a) => (a.context ? rememberedUser(rt.context, a.context) : undefined)),
    { ...keyStep<JoinAnswers>(rt.context, (a) => a.context as string), when: () => withKey },
    {
      kind: 'pick',
      key: 'payloadFolder',
      title: 'kube-windows: the kubeadm payload',
      placeholder: 'A folder with containerd-<version>-windows-amd64.tar.gz, kubelet.exe and kubeadm.exe',
      when: (a) => a.via === 'kubeadm' && !payloadConfigured(),
      items: () => [
        {
          label: 'Choose the payload folder…',
          detail:
            'Or set kubeWindows.join.payloadFolder (or payloadUrls with SHA-256 checksums) to skip this question.',
          choose: async () => {
            const picked = await vscode.window.showOpenDialog({
              title: 'kube-windows: folder with containerd-<version>-windows-amd64.tar.gz, kubelet.exe and kubeadm.exe',
              openLabel: 'Use this payload',
              canSelectFiles: false,
              canSelectFolders: true,
              canSelectMany: false,
            });
            return picked?.[0]?.fsPath;
          },
        },
      ],
    },
    yesNo<JoinAnswers, 'taint'>(
      'taint',
      'kube-windows: taint the new node?',
      {
        label: 'Taint the node os=windows:NoSchedule',
        detail: 'Recommended: only pods that tolerate the taint (Windows workloads) are scheduled on it.',
      },
      { label: 'No taint', detail: 'Pods are kept off the node by nodeSelector kubernetes.io/os=windows only.' },
    ),
    yesNo<JoinAnswers, 'runtimeClass'>(
      'runtimeClass',
      'kube-windows: create a RuntimeClass for the node?',
      {
        label: "Create the RuntimeClass of the node's Windows build",
        detail:
          'windows-2019, windows-2022 or windows-2025 (handler runhcs-wcow-process, the build selector and the os=windows toleration), when missing.',
      },
      { label: 'No RuntimeClass', detail: 'Workloads pin the build with their own nodeSelector.' },
    ),
  ];
}

/** Reads the payload the answers name (the folder, else the configured URLs); undefined when it failed (said so). */
async function readPayload(rt: Runtime, folderAnswer: string | undefined): Promise<Payload | undefined> {
  const { payloadFolder, payloadUrls: urls } = readConfig().join;
  const folder = payloadFolder || folderAnswer || undefined;
  const deps = await rt.deps();
  const dir = folder ?? 'the payload URLs';
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `kube-windows: reading the payload in ${dir}…` },
      () => deps.resolvePayload({ ...(folder ? { folder } : {}), urls }),
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    rt.log.error(`payload ${dir}: ${message}`);
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(message)}`);
    return undefined;
  }
}

/** The join questions as one multi-step input; `withKey` false for the dry-run (no SSH connection is made for a plan). */
export async function askJoin(rt: Runtime, arg: unknown, withKey: boolean): Promise<Answers | undefined> {
  const start = await contextStart<JoinAnswers>(async () => (await rt.deps()).contexts(), arg);
  if (!start) return undefined;
  const handles = new Map<string, Promise<ClusterHandle>>();
  const cluster = (context: string): Promise<ClusterHandle> => {
    let handle = handles.get(context);
    if (!handle) handles.set(context, (handle = rt.deps().then((d) => d.cluster(context))));
    return handle;
  };
  let a: JoinAnswers | undefined;
  try {
    a = await runSteps<JoinAnswers>(
      [...start.steps, ...joinSteps(rt, cluster, parseItem(arg).openshift, withKey)],
      start.known,
    );
  } catch (err) {
    const context = [...handles.keys()].at(-1) ?? '';
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, context))}`);
    return undefined;
  }
  if (!a) return undefined;
  if (withKey) await rememberLogin(rt.context, a.context, a.user, a.keyPath);
  const common = {
    context: a.context,
    cluster: await cluster(a.context),
    via: a.via,
    address: a.address,
    user: a.user,
    ...(withKey ? { keyPath: a.keyPath } : {}),
  };
  if (a.via === 'byoh') return common;
  const payload = await readPayload(rt, a.payloadFolder);
  if (!payload) return undefined;
  return { ...common, payload, taint: a.taint, runtimeClass: a.runtimeClass };
}
