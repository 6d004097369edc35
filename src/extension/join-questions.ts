// The questions "Join Windows node", "Show join plan" and "Remove node" ask (a multi-step input:
// context, join path, address, SSH login and key, payload, options, and on kubeadm the proxy for
// containerd and the kubelet with its NO_PROXY additions), answered or undefined when the user cancels
// (the command then ends quietly). Running what the answers ask for is join-commands.ts's.
import * as vscode from 'vscode';
import { readConfig } from './config';
import { firstLine, parseItem, userMessage } from './command-kit';
import { noProxyProblem, proxyUrlProblem, validateAddress } from '../core/windows/join-input';
import { noProxyEntries, proxySummary, withoutCredentials, type ClusterProxyFacts } from '../core/proxy/settings';
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
  /** kubeadm: the proxy URL for containerd and the kubelet ('' = none); BYOH: '' (WMCO applies the cluster's). */
  proxy: string;
  /** kubeadm: NO_PROXY entries beyond those always included, comma-separated ('' = none). */
  noProxy: string;
}

const payloadConfigured = (): boolean => {
  const { payloadFolder, payloadUrls: urls } = readConfig().join;
  // URLs with SHA-256 checksums: the host downloads those files itself (a folder's files win).
  return !!payloadFolder || ['containerd', 'kubelet', 'kubeadm'].every((k) => urls[k]?.url && urls[k]?.sha256);
};

/** The join path question: the detected path first (read from the cluster while the picker is busy). */
function viaStep(
  rt: Runtime,
  cluster: (context: string) => Promise<ClusterHandle>,
  hint: boolean | undefined,
  proxies: Map<string, ClusterProxyFacts | undefined>,
) {
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
      if (detected !== 'kubeadm') proxies.set(context, await byohProxy(rt, handle, context));
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

/** A proxy URL as titles, logs and the plan show it: a user and password in it are left out, and said so. */
export function shownProxy(url: string): string {
  const clean = withoutCredentials(url);
  return clean.had ? `${clean.url} (credentials not shown)` : clean.url;
}

/** The cluster-wide proxy WMCO would apply (said in the proxy question's place on BYOH); undefined when unreadable. */
async function byohProxy(rt: Runtime, handle: ClusterHandle, context: string): Promise<ClusterProxyFacts | undefined> {
  try {
    return await (await rt.deps()).byohClusterProxy(handle.kube);
  } catch (err) {
    rt.log.warn(`reading the cluster-wide proxy of ${context}: ${firstLine(await userMessage(err, context))}`);
    return undefined;
  }
}

/**
 * The proxy questions: on kubeadm the proxy for containerd and the kubelet (blank = none), then what NO_PROXY adds
 * to the entries every such join sets (shown as "always included"); on BYOH, when the cluster has a cluster-wide
 * proxy, one line in their place saying WMCO applies it. A URL's password is never shown (titles say •••).
 */
function proxySteps(
  rt: Runtime,
  cluster: (context: string) => Promise<ClusterHandle>,
  proxies: ReadonlyMap<string, ClusterProxyFacts | undefined>,
): Step<JoinAnswers>[] {
  return [
    {
      kind: 'pick',
      key: 'proxy',
      title: 'kube-windows: the cluster-wide proxy',
      when: (a) => a.via === 'byoh' && proxies.get(a.context as string) !== undefined,
      placeholder: (a) => {
        const p = proxies.get(a.context as string) as ClusterProxyFacts;
        return `WMCO applies ${proxySummary(p)} to the node: nothing to set here`;
      },
      items: (a) => {
        const p = proxies.get(a.context as string) as ClusterProxyFacts;
        const no = noProxyEntries(p.noProxy).length;
        return [
          {
            value: '',
            label: 'Continue',
            description: proxySummary(p),
            detail: `WMCO (9.0.0 or later) sets HTTP_PROXY, HTTPS_PROXY and NO_PROXY (${no} ${no === 1 ? 'entry' : 'entries'})${p.trustedCA ? ` and imports the trusted CA bundle ${p.trustedCA}` : ''} on the node and reconciles them; workloads do not inherit them.`,
          },
        ];
      },
    },
    {
      kind: 'input',
      key: 'proxy',
      title: 'kube-windows: HTTP(S) proxy for containerd and the kubelet',
      when: (a) => a.via === 'kubeadm',
      prompt:
        'Optional: HTTP_PROXY and HTTPS_PROXY of both services (image pulls, the API server through NO_PROXY aside). Blank: no proxy.',
      placeholder: 'http://proxy.corp.example:3128 (blank: none)',
      validate: (v) => proxyUrlProblem(v),
      parse: (v) => v.trim(),
    },
    {
      kind: 'input',
      key: 'noProxy',
      title: (a) => `kube-windows: NO_PROXY for ${shownProxy(a.proxy ?? '')}`,
      when: (a) => a.via === 'kubeadm' && !!a.proxy,
      prompt: async (a) => {
        const included = await alwaysIncluded(rt, cluster, a.context as string, a.address as string);
        return `Always included: ${included}. Add more, comma-separated (blank: none).`;
      },
      placeholder: '.corp.example, 10.20.0.0/16',
      validate: (v) => noProxyProblem(v),
      parse: (v) => noProxyEntries(v).join(','),
    },
  ];
}

/** The NO_PROXY entries the join always sets, in words; the networks named, not listed, when they cannot be read. */
async function alwaysIncluded(
  rt: Runtime,
  cluster: (context: string) => Promise<ClusterHandle>,
  context: string,
  address: string,
): Promise<string> {
  const handle = await cluster(context);
  try {
    return (await (await rt.deps()).kubeadmNoProxyIncluded(handle.kube, address)).join(', ');
  } catch (err) {
    rt.log.warn(`reading the networks of ${context}: ${firstLine(await userMessage(err, context))}`);
    const api = new URL(handle.kube.server).hostname;
    return `localhost, 127.0.0.1, .svc, .cluster.local, the cluster's Service and Pod networks (read when the join runs), ${api}, ${address}`;
  }
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
  const proxies = new Map<string, ClusterProxyFacts | undefined>();
  return [
    viaStep(rt, cluster, hint, proxies),
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
    ...proxySteps(rt, cluster, proxies),
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
  // The same as the CLI's --proxy URL [--no-proxy LIST]: the join adds the entries it always includes itself.
  const proxy = a.proxy ? { proxy: a.proxy, ...(a.noProxy ? { noProxy: a.noProxy } : {}) } : {};
  return { ...common, payload, taint: a.taint, runtimeClass: a.runtimeClass, ...proxy };
}
