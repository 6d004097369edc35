// What every node operation of a Windows node item shares: the seam to the engine (NodeDeps, replaced by
// tests), the runtime, the node an item stands for (read from the API), how to reach it (SSH with a user
// and key, or a HostProcess pod where the operation can use one: asked once per node and remembered, see
// ./ssh-prompts.ts), and one SSH round trip under a progress notification. The operations themselves
// live beside it: ./node-commands.ts (the command table, terminal, reboot, logs), ./node-services.ts,
// ./node-proxy-settings.ts.
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { join as joinPath } from 'node:path';
import {
  engineFunctions,
  firstLine,
  kubeconfigAccess,
  loadEngine,
  onHost,
  parseItem,
  sshAccess,
  userMessage,
  type CommandRuntime,
} from './command-kit';
import { askReach, rememberedReach, sshPrompts, type Prompts } from './ssh-prompts';
import type { KubeConfig } from '../cluster/kubeconfig';
import type { NodeServicesAnswer } from '../cluster/windows-nodes';
import type { NodeObject } from '../cluster/nodes';
import type { SshConnectorOptions } from '../remote/ssh';
import type { WindowsHost } from '../remote/windows-host';
import type { InteractiveSession } from '../remote/interactive';
import type { NodeProxyComparison } from '../core/proxy/node-env';
import type { NodeProxyExpectation } from '../bootstrap/node-proxy';
import type * as Engine from './engine-bundle';
import type { ClusterHandle } from './join-commands';
import type { ReadOnlyDocs } from './read-only-docs';

/** The engine functions the node operations call. */
const ENGINE = [
  'getNode',
  'nodeAddress',
  'nodeServices',
  'restartNodeService',
  'quietNodeServices',
  'rebootPlanFor',
  'rebootSummary',
  'podsWithEmptyDir',
  'collectNodeLogs',
  'proxyExpectation',
  'readNodeProxy',
  'nodeProxyText',
  'recordProxySeen',
  'proxyVerdict',
] as const;

/**
 * The seam to the engine (tests pass replacements): its own functions, typed by the engine module, and access to
 * clusters, hosts and terminals.
 */
export interface NodeDeps extends Pick<typeof Engine, (typeof ENGINE)[number]> {
  cluster(context: string): Promise<ClusterHandle & { config?: KubeConfig }>;
  host(options: SshConnectorOptions): WindowsHost;
  checkPassphrase(keyPath: string, passphrase: string): Promise<boolean>;
  openSsh(
    options: SshConnectorOptions & { cols: number; rows: number; signal?: AbortSignal },
  ): Promise<InteractiveSession>;
  openPod(options: {
    context: string;
    nodeName: string;
    labels: Record<string, string>;
    cols: number;
    rows: number;
    signal?: AbortSignal;
    onStatus?: (t: string) => void;
  }): Promise<InteractiveSession>;
  /** The node's proxy settings read through a HostProcess pod pinned to it, deleted before this settles. */
  readProxyThroughPod(options: {
    context: string;
    node: NodeObject;
    expected: NodeProxyExpectation;
    signal: AbortSignal;
    onStatus: (t: string) => void;
  }): Promise<NodeProxyComparison>;
  /** Folder under which each collection makes its `<node>-<time>` folder. */
  logsDir(): string;
}

export async function defaultNodeDeps(): Promise<NodeDeps> {
  const e = await loadEngine();
  const { client } = kubeconfigAccess(e);
  return {
    ...engineFunctions(e, ENGINE),
    cluster: async (context) => client(context),
    ...sshAccess(e),
    openSsh: (options) => e.openSshSession(options),
    openPod: ({ context, ...o }) => e.openPodShell({ ...client(context), ...o }),
    readProxyThroughPod: ({ context, node, expected, signal, onStatus }) =>
      e.readNodeProxyThroughPod({ ...client(context), node, onStatus }, expected, signal),
    logsDir: () => joinPath(homedir(), 'kube-windows-logs'),
  };
}

export interface NodeRuntime extends CommandRuntime<NodeDeps> {
  /** Services last read per `context\0node`, so a connect or restart shows at once. */
  services: Map<string, { at: number; answer: NodeServicesAnswer }>;
  docs: ReadOnlyDocs;
}

// ---------------------------------------------------------------------------------------------
// Target

export interface Target {
  context: string;
  name: string;
  cluster: ClusterHandle;
  node: NodeObject;
  address: string | undefined;
}

/** The node an item stands for, read from the API (its addresses and labels are needed). */
export async function target(rt: NodeRuntime, arg: unknown, what: string): Promise<Target | undefined> {
  const { context, node: name } = parseItem(arg);
  if (!context || !name) {
    void vscode.window.showInformationMessage(`kube-windows: run "${what}" on a Windows node in the Clusters view.`);
    return undefined;
  }
  const deps = await rt.deps();
  try {
    const cluster = await deps.cluster(context);
    const node = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `kube-windows: reading ${name}…` },
      () => deps.getNode(cluster.kube, name),
    );
    if (!node) {
      void vscode.window.showErrorMessage(`kube-windows: there is no Node named ${name} in ${context} any more.`);
      return undefined;
    }
    return { context, name, cluster, node, address: deps.nodeAddress(node) };
  } catch (err) {
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, context))}`);
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// How to reach the node

export interface SshChoice {
  user: string;
  keyPath: string;
}

/**
 * How to reach the node: what is remembered for it (or for its cluster), else asked once ("how to reach <node>?")
 * and remembered; "Change how to reach node…" asks again. The HostProcess pod only where `allowPod`. undefined:
 * cancelled.
 */
export async function chooseAccess(
  rt: NodeRuntime,
  t: Target,
  allowPod: boolean,
): Promise<SshChoice | 'pod' | undefined> {
  const known = rememberedReach(rt.context, t.context, t.name);
  const reach =
    known && (allowPod || known.via === 'ssh')
      ? known
      : await askReach(rt.context, t.context, t.name, t.address ?? t.name, allowPod);
  if (!reach) return undefined;
  rt.log.info(
    `${t.name}: reached ${reach.via === 'pod' ? 'through a HostProcess pod' : `as ${reach.user} with ${reach.keyPath}`}`,
  );
  return reach.via === 'pod' ? 'pod' : { user: reach.user, keyPath: reach.keyPath };
}

export function sshOptions(address: string, c: SshChoice, prompts: Pick<Prompts, 'options'>): SshConnectorOptions {
  return {
    host: address,
    username: c.user,
    privateKeyPath: c.keyPath,
    ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
    ...prompts.options,
  };
}

export function promptsFor(rt: NodeRuntime, deps: NodeDeps): Prompts {
  return sshPrompts(rt, (k, p) => deps.checkPassphrase(k, p));
}

/** True (and said in one error line) when the node has no address SSH could reach. */
export function noAddress(t: Target): boolean {
  if (t.address) return false;
  void vscode.window.showErrorMessage(
    `kube-windows: ${t.name} reports no InternalIP or ExternalIP address: SSH cannot reach it.`,
  );
  return true;
}

/** What one SSH round trip ended with: its result, or why not (the user declined a question, or it failed). */
export type SshOutcome<T> = { result: T } | { declined: true } | { error: unknown };

/**
 * Does `what` on the node over SSH with the given user and key, under a progress notification; the host is closed
 * on every way out.
 */
export async function sshRoundTrip<T>(
  rt: NodeRuntime,
  t: Target,
  access: SshChoice,
  what: string,
  work: (host: WindowsHost, deps: NodeDeps) => Promise<T>,
): Promise<SshOutcome<T>> {
  const deps = await rt.deps();
  const prompts = promptsFor(rt, deps);
  const host = deps.host(sshOptions(t.address ?? t.name, access, prompts));
  const ran = await onHost(host, prompts, async () =>
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `kube-windows: ${what}…` },
      () => work(host, deps),
    ),
  );
  if ('result' in ran) return { result: ran.result as T };
  return prompts.declinedByUser() ? { declined: true } : { error: ran.thrown };
}

/**
 * Does `what` on the node over SSH (asking how to connect) under a progress notification. Undefined
 * when the user cancelled or declined a question, or when it failed (one error message said so).
 */
export async function overSsh<T>(
  rt: NodeRuntime,
  t: Target,
  what: string,
  work: (host: WindowsHost, deps: NodeDeps) => Promise<T>,
): Promise<T | undefined> {
  const access = await chooseAccess(rt, t, false);
  if (!access || access === 'pod') return undefined;
  const outcome = await sshRoundTrip(rt, t, access, what, work);
  if ('result' in outcome) return outcome.result;
  if ('error' in outcome)
    void vscode.window.showErrorMessage(
      `kube-windows: ${what} failed: ${firstLine(await userMessage(outcome.error, t.context))}`,
    );
  return undefined;
}
