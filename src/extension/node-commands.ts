// Node operations on a Windows node item: "Open SSH terminal", "Reboot gracefully",
// "Collect logs", "Show proxy settings", and the node's Services group with "Restart service". VS Code glue only: the
// reboot plan, the log collection, the service ops, the SSH shell and the HostProcess pod live in the
// engine (src/bootstrap, src/remote, src/cluster), loaded on first use like the join commands.
//
// SSH: the same questions and rules as join (./ssh-prompts.ts): the key PATH is remembered per
// context (shared with join), the passphrase only in SecretStorage on "Remember", unknown host keys
// need an explicit trust. The Services group never asks anything while the tree expands: without
// usable credentials it shows "Connect to show services…", which asks.
import * as vscode from 'vscode';
import { readConfig } from './config';
import {
  commandRuntime,
  engineFunctions,
  firstLine,
  kubeconfigAccess,
  sshAccess,
  registerCommands,
  type CommandRuntime,
  type CommandTable,
} from './command-kit';
import { homedir } from 'node:os';
import { join as joinPath } from 'node:path';
import type { KubeConfig } from '../cluster/kubeconfig';
import type { NodeServicesAnswer } from '../cluster/windows-nodes';
import type { TreeNode } from '../views/cluster-item';
import { REFRESH_SERVICES_COMMAND, type NodeServicesSource } from '../views/items/services';
import type { WindowsNodeView } from '../cluster/windows-nodes';
import type { NodeObject } from '../cluster/nodes';
import type { SshConnectorOptions } from '../remote/ssh';
import { isHostKeyRefusalOrCancel } from '../remote/types';
import type { WindowsHost } from '../remote/windows-host';
import type { InteractiveSession } from '../remote/interactive';
import type * as Engine from './engine-bundle';
import type { ClusterHandle } from './join-commands';
import { channelFor, loadEngine, onHost, parseItem, runWithProgress, showStopped, userMessage } from './command-kit';
import {
  askReach,
  passphraseKey,
  rememberedReach,
  sshEndpoint,
  sshPrompts,
  USE_POD,
  type Prompts,
} from './ssh-prompts';
import { SessionPty } from './terminal';
import type { ReadOnlyDocs } from './read-only-docs';
import { showFolderMessage } from './reveal-folder';
import { counted } from '../core/plural';

const SHOW_LOG = 'Show log';
const RUN_AGAIN = 'Run again';
export { USE_POD } from './ssh-prompts';
export const REBOOT = 'Reboot';
export const DELETE_EMPTYDIR = 'Reboot, deleting the emptyDir data';
export const BYPASS_PDB = 'Delete the pods, bypassing the budgets';
export const RESTART = 'Restart';
/** Services read by a connect (or a restart) are shown for this long without connecting again. */
const SERVICES_FRESH_MS = 30_000;

/** The engine functions these commands call. */
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
  /** Folder under which each collection makes its `<node>-<time>` folder. */
  logsDir(): string;
}

async function defaultDeps(): Promise<NodeDeps> {
  const e = await loadEngine();
  const { client } = kubeconfigAccess(e);
  return {
    ...engineFunctions(e, ENGINE),
    cluster: async (context) => client(context),
    ...sshAccess(e),
    openSsh: (options) => e.openSshSession(options),
    openPod: ({ context, ...o }) => e.openPodShell({ ...client(context), ...o }),
    logsDir: () => joinPath(homedir(), 'kube-windows-logs'),
  };
}

interface Runtime extends CommandRuntime<NodeDeps> {
  /** Services last read per `context\0node`, so a connect or restart shows at once. */
  services: Map<string, { at: number; answer: NodeServicesAnswer }>;
  docs: ReadOnlyDocs;
}

export interface NodeCommands {
  /** The Services group's source for the cluster tree. */
  services: NodeServicesSource;
}

/**
 * The node family's commands over SSH (package.json contributes them; test/unit/package-conventions.test.ts checks both
 * agree).
 */
export const NODE_COMMANDS = {
  'kubeWindows.openTerminal': { run: openTerminal, palette: false },
  'kubeWindows.rebootNode': { run: rebootNode, palette: false },
  'kubeWindows.collectLogs': { run: collectLogs, palette: false },
  'kubeWindows.showProxySettings': { run: showProxySettings, palette: false },
  'kubeWindows.restartService': { run: restartService, palette: false },
  'kubeWindows.connectServices': { run: connectServices, palette: false },
  'kubeWindows.changeNodeAccess': { run: changeAccess, palette: false },
} satisfies CommandTable<Runtime>;

export function registerNodeCommands(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  docs: ReadOnlyDocs,
  deps?: Partial<NodeDeps>,
): NodeCommands {
  const rt: Runtime = { ...commandRuntime(context, log, defaultDeps, deps), services: new Map(), docs };
  registerCommands(context, log, NODE_COMMANDS, rt);
  return { services: (ctx, node) => servicesFor(rt, ctx, node) };
}

// ---------------------------------------------------------------------------------------------
// Target and SSH

interface Target {
  context: string;
  name: string;
  cluster: ClusterHandle;
  node: NodeObject;
  address: string | undefined;
}

/** The node an item stands for, read from the API (its addresses and labels are needed). */
async function target(rt: Runtime, arg: unknown, what: string): Promise<Target | undefined> {
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

interface SshChoice {
  user: string;
  keyPath: string;
}

/**
 * How to reach the node: what is remembered for it (or for its cluster), else asked once ("how to reach <node>?")
 * and remembered; "Change how to reach node…" asks again. The HostProcess pod only where `allowPod`. undefined:
 * cancelled.
 */
async function chooseAccess(rt: Runtime, t: Target, allowPod: boolean): Promise<SshChoice | 'pod' | undefined> {
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

/** "Change how to reach node…": the question again, its answers the defaults; the node's services are read anew. */
async function changeAccess(rt: Runtime, arg: unknown): Promise<void> {
  const t = await target(rt, arg, 'Change how to reach node');
  if (!t) return;
  const reach = await askReach(rt.context, t.context, t.name, t.address ?? t.name, true);
  if (!reach) return;
  rt.services.delete(serviceKey(t.context, t.name));
  refreshServices({ context: t.context, node: t.name });
  void vscode.window.showInformationMessage(
    `kube-windows: ${t.name} is reached ${reach.via === 'pod' ? 'through a HostProcess pod (terminal only; SSH is asked for the rest)' : `over SSH as ${reach.user} with the key ${reach.keyPath}`} from now on.`,
  );
}

function sshOptions(address: string, c: SshChoice, prompts: Pick<Prompts, 'options'>): SshConnectorOptions {
  return {
    host: address,
    username: c.user,
    privateKeyPath: c.keyPath,
    ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
    ...prompts.options,
  };
}

function promptsFor(rt: Runtime, deps: NodeDeps): Prompts {
  return sshPrompts(rt, (k, p) => deps.checkPassphrase(k, p));
}

function noAddress(t: Target): boolean {
  if (t.address) return false;
  void vscode.window.showErrorMessage(
    `kube-windows: ${t.name} reports no InternalIP or ExternalIP address: SSH cannot reach it.`,
  );
  return true;
}

// ---------------------------------------------------------------------------------------------
// Terminal

async function openTerminal(rt: Runtime, arg: unknown): Promise<void> {
  const t = await target(rt, arg, 'Open SSH terminal');
  if (!t) return;
  const access = await chooseAccess(rt, t, true);
  if (!access) return;
  const deps = await rt.deps();
  const labels = t.node.metadata.labels ?? {};
  const viaPod = async (
    io: Parameters<ConstructorParameters<typeof SessionPty>[0]>[0],
  ): Promise<InteractiveSession> => {
    io.print(`Starting a HostProcess pod on ${t.name} (it is deleted when this terminal closes)…`);
    const session = await deps.openPod({
      context: t.context,
      nodeName: t.name,
      labels,
      cols: io.size.cols,
      rows: io.size.rows,
      signal: io.signal,
      onStatus: (s) => io.print(`  ${s}`),
    });
    rt.log.info(`terminal ${t.name}: ${session.label}`);
    return session;
  };
  const pty = new SessionPty(async (io) => {
    if (access === 'pod') return viaPod(io);
    const address = t.address ?? t.name;
    const prompts = promptsFor(rt, deps);
    io.print(`Connecting to ${access.user}@${address} over SSH…`);
    try {
      const session = await deps.openSsh({
        ...sshOptions(address, access, prompts),
        cols: io.size.cols,
        rows: io.size.rows,
        signal: io.signal,
      });
      void prompts.settled();
      return session;
    } catch (err) {
      void prompts.settled();
      if (prompts.declinedByUser() || io.signal.aborted) return undefined;
      const why = firstLine(await userMessage(err, t.context));
      rt.log.warn(`terminal ${t.name}: SSH failed: ${why}`);
      io.print(why);
      if (isHostKeyRefusalOrCancel(err)) throw new Error('SSH is not possible with this host key.');
      const choice = await vscode.window.showWarningMessage(
        `kube-windows: SSH to ${t.name} failed: ${why} Open a shell through a HostProcess pod instead?`,
        USE_POD,
      );
      if (choice !== USE_POD) throw new Error('SSH failed; no shell was opened.');
      return viaPod(io);
    }
  });
  const terminal = vscode.window.createTerminal({
    name: `${t.name} (${access === 'pod' ? 'pod' : 'SSH'})`,
    pty,
    iconPath: new vscode.ThemeIcon('terminal-powershell'),
  });
  terminal.show();
}

// ---------------------------------------------------------------------------------------------
// Reboot

async function rebootNode(rt: Runtime, arg: unknown): Promise<void> {
  const t = await target(rt, arg, 'Reboot gracefully');
  if (!t || noAddress(t)) return;
  // Every question first (how to reach it), then what the drain would delete, then one confirmation, last.
  const access = await chooseAccess(rt, t, false);
  if (!access || access === 'pod') return;
  const deps = await rt.deps();
  let emptyDir: string[];
  try {
    emptyDir = await deps.podsWithEmptyDir(t.cluster.kube, t.name);
  } catch (err) {
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, t.context))}`);
    return;
  }
  const how =
    'kube-windows cordons the node, drains it through the Eviction API (PodDisruptionBudgets honoured, DaemonSet pods left), runs Restart-Computer -Force over SSH, waits for NotReady then Ready (on AWS it re-adds the instance metadata route), and uncordons it.';
  const lost = emptyDir.length
    ? `\n\n${counted(emptyDir.length, 'pod')} on ${t.name} ${emptyDir.length === 1 ? 'uses' : 'use'} emptyDir volumes: draining deletes that data.\n${emptyDir.slice(0, 10).join('\n')}${emptyDir.length > 10 ? `\n… and ${emptyDir.length - 10} more` : ''}`
    : '';
  const button = emptyDir.length ? DELETE_EMPTYDIR : REBOOT;
  const confirm = await vscode.window.showWarningMessage(
    `Reboot the Windows node ${t.name} gracefully?`,
    { modal: true, detail: `${how}${lost}\n\nOver SSH as ${access.user}@${t.address ?? t.name}.` },
    button,
  );
  if (confirm !== button) return;
  const deleteEmptyDirData = emptyDir.length > 0;

  const minutes = readConfig().reboot.timeoutMinutes;
  const channel = channelFor(rt, `kube-windows: reboot ${t.name}`);
  const address = t.address ?? t.name;
  let disableEviction = false;
  rt.log.info(`reboot ${t.name} (${t.context}): started`);
  for (;;) {
    const prompts = promptsFor(rt, deps);
    const host = deps.host(sshOptions(address, access, prompts));
    let blocked = undefined as { pod: string; pdb?: string }[] | undefined;
    const { result, thrown } = await onHost(host, prompts, async () => {
      const plan = await deps.rebootPlanFor({
        kube: t.cluster.kube,
        host,
        nodeName: t.name,
        deleteEmptyDirData,
        disableEviction,
        timeoutMs: minutes * 60_000,
      });
      const r = await runWithProgress(`kube-windows: rebooting ${t.name}`, channel, (o) => plan.run(o));
      blocked = plan.state.blockedBy;
      return r;
    });
    if (result?.outcome === 'done') {
      rt.log.info(`reboot ${t.name}: done`);
      void vscode.window.showInformationMessage(`kube-windows: ${deps.rebootSummary(result, t.name)}`);
      return;
    }
    if (prompts.declinedByUser()) return;
    if (result && blocked && blocked.length > 0 && !disableEviction && result.outcome === 'failed') {
      const budgets = [...new Set(blocked.map((b) => b.pdb ?? `the budget of ${b.pod}`))];
      const choice = await vscode.window.showWarningMessage(
        `The drain of ${t.name} is blocked by PodDisruptionBudget ${budgets.join(', ')}. The node stays cordoned.`,
        {
          modal: true,
          detail: `Blocked pods: ${blocked.map((b) => b.pod).join(', ')}.\n\nThe documented way out is to drain with eviction disabled: the pods are deleted directly, bypassing the budgets, so the application may drop below the availability its budget asks for. Only continue if that is acceptable.`,
        },
        BYPASS_PDB,
      );
      if (choice === BYPASS_PDB) {
        rt.log.warn(`reboot ${t.name}: the user confirmed draining with eviction disabled (${budgets.join(', ')})`);
        disableEviction = true;
        continue;
      }
    }
    const text = result
      ? deps.rebootSummary(result, t.name)
      : `The reboot of ${t.name} could not start: ${firstLine(await userMessage(thrown, t.context))}`;
    rt.log.error(`reboot ${t.name}: ${text}`);
    // A cancel is not an error; after the cordon, Uncordon is offered beside the resume.
    const choice = await showStopped(t.context, text, result, [SHOW_LOG, RUN_AGAIN]);
    if (choice === RUN_AGAIN) continue; // resumable: done steps are skipped
    if (choice === SHOW_LOG) channel.show(true);
    return;
  }
}

// ---------------------------------------------------------------------------------------------
// Logs

async function collectLogs(rt: Runtime, arg: unknown): Promise<void> {
  const t = await target(rt, arg, 'Collect logs');
  if (!t || noAddress(t)) return;
  const access = await chooseAccess(rt, t, false);
  if (!access || access === 'pod') return;
  const deps = await rt.deps();
  const megabytes = readConfig().logs.maxMegabytes;
  const prompts = promptsFor(rt, deps);
  const host = deps.host(sshOptions(t.address ?? t.name, access, prompts));
  let result: Awaited<ReturnType<NodeDeps['collectNodeLogs']>>;
  try {
    result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `kube-windows: collecting the logs of ${t.name}`,
        cancellable: true,
      },
      async (progress, token) => {
        const ctl = new AbortController();
        const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled by the user')));
        let last = 0;
        try {
          return await deps.collectNodeLogs({
            host,
            nodeName: t.name,
            dir: deps.logsDir(),
            maxBytes: megabytes * 1024 * 1024,
            signal: ctl.signal,
            onProgress: (message, fraction) => {
              const now = fraction === undefined ? last : Math.round(fraction * 100);
              progress.report({ message, increment: Math.max(0, now - last) });
              last = Math.max(last, now);
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
  } catch (err) {
    await prompts.settled();
    if (prompts.declinedByUser()) return;
    const cancelled = err instanceof Error && /cancelled by the user/.test(err.message);
    const text = cancelled ? 'cancelled' : firstLine(await userMessage(err, t.context));
    rt.log[cancelled ? 'info' : 'error'](`logs ${t.name}: ${text}`);
    if (cancelled) {
      // Collecting only reads the host; what was downloaded before the cancel stays in a folder under logsDir.
      void vscode.window.showInformationMessage(
        `kube-windows: collecting the logs of ${t.name} was cancelled. Nothing was changed on the host (collecting only reads it); the files downloaded before the cancel stay under ${deps.logsDir()}.`,
      );
      return;
    }
    void vscode.window.showErrorMessage(`kube-windows: collecting the logs of ${t.name} failed: ${text}`);
    return;
  } finally {
    host.close();
  }
  await prompts.settled();
  rt.log.info(`logs ${t.name}: ${result.message} (${result.folder})`);
  // The path in the message, and only the buttons that work where the extension runs (no revealFileInOS in code-server).
  await showFolderMessage(`kube-windows: ${result.message}`, result.folder);
}

// ---------------------------------------------------------------------------------------------
// Proxy settings

/**
 * "Show proxy settings": what `kube-windows nodes proxy` runs (one SSH round trip): the node's machine and per-service
 * HTTP_PROXY/HTTPS_PROXY/NO_PROXY and trusted CA against what the cluster expects, in a read-only document, with
 * one line of verdict (drift said as such, with when the node was last seen equal).
 */
async function showProxySettings(rt: Runtime, arg: unknown): Promise<void> {
  const t = await target(rt, arg, 'Show proxy settings');
  if (!t || noAddress(t)) return;
  const read = await overSsh(rt, t, `reading the proxy settings of ${t.name}`, async (host, deps) => {
    const expected = await deps.proxyExpectation(t.cluster.kube, t.node);
    return { expected, comparison: await deps.readNodeProxy(host, expected) };
  });
  if (!read) return;
  const deps = await rt.deps();
  const { expected, comparison } = read;
  const lastEqual = deps.recordProxySeen({ context: t.context, node: t.name }, comparison.equal);
  await rt.docs.show(`proxy/${t.name}.txt`, deps.nodeProxyText(t.name, expected, comparison, lastEqual));
  rt.log.info(`proxy settings of ${t.name}: ${comparison.equal ? 'equal' : 'drift'}`);
  const verdict = `kube-windows: ${deps.proxyVerdict(t.name, expected, comparison, lastEqual)}`;
  void (comparison.equal ? vscode.window.showInformationMessage(verdict) : vscode.window.showWarningMessage(verdict));
}

// ---------------------------------------------------------------------------------------------
// Services

const serviceKey = (context: string, node: string) => `${context}\u0000${node}`;

/** The tree's source: never asks anything (passphrase from SecretStorage only, host key must be known). */
async function servicesFor(rt: Runtime, context: string, view: WindowsNodeView): Promise<NodeServicesAnswer> {
  const cached = rt.services.get(serviceKey(context, view.name));
  if (cached && Date.now() - cached.at < SERVICES_FRESH_MS) return cached.answer;
  const reach = rememberedReach(rt.context, context, view.name);
  if (reach?.via !== 'ssh')
    return {
      connect: `How to reach ${view.name} over SSH is not known yet: connect once (user and key) to show its services.`,
    };
  const deps = await rt.deps();
  const address = deps.nodeAddress({ metadata: { name: view.name }, status: { addresses: view.addresses } });
  if (!address) return { error: `${view.name} reports no InternalIP or ExternalIP address.` };
  return deps.quietNodeServices({
    address,
    user: reach.user,
    keyPath: reach.keyPath,
    endpoint: sshEndpoint(),
    storedPassphrase: (path) => Promise.resolve(rt.context.secrets.get(passphraseKey(path))),
    host: deps.host,
    read: deps.nodeServices,
    describe: (err) => userMessage(err, context),
  });
}

/** Asks the node's Services group again (the tree reads rt.services, just filled). */
function refreshServices(node: NodeRef): void {
  void vscode.commands.executeCommand(REFRESH_SERVICES_COMMAND, node.context, node.node);
}

type NodeRef = { context: string; node: string };

/** The node a services item (the group, its connect row, a service) belongs to, from its typed reference. */
function nodeOf(arg: unknown): NodeRef | undefined {
  const ref = (arg as Partial<TreeNode> | undefined)?.ref;
  if (!ref || !('node' in ref) || ref.node === undefined) return undefined;
  return { context: ref.context, node: ref.node };
}

/** An item standing for the node itself (what target() takes). */
const nodeItem = (n: NodeRef): Pick<TreeNode, 'ref'> => ({ ref: { kind: 'node', context: n.context, node: n.node } });

async function connectServices(rt: Runtime, arg: unknown): Promise<void> {
  const node = nodeOf(arg);
  const t = await target(rt, node && nodeItem(node), 'Connect to show services');
  if (!t || !node || noAddress(t)) return;
  const services = await overSsh(rt, t, `reading the services of ${t.name}`, (host, deps) => deps.nodeServices(host));
  if (!services) return;
  rt.services.set(serviceKey(t.context, t.name), { at: Date.now(), answer: { services } });
  refreshServices(node);
}

async function restartService(rt: Runtime, arg: unknown): Promise<void> {
  const ref = (arg as Partial<TreeNode> | undefined)?.ref;
  if (ref?.kind !== 'service') {
    void vscode.window.showInformationMessage(
      'kube-windows: run "Restart service" on a service under a Windows node in the Clusters view.',
    );
    return;
  }
  const { service, node: nodeName } = ref;
  const node = { context: ref.context, node: nodeName };
  const ok = await vscode.window.showWarningMessage(
    `Restart ${service} on ${nodeName ?? 'the node'}?`,
    {
      modal: true,
      detail:
        service === 'kubelet' || service === 'containerd'
          ? 'Running containers keep running, but the node may briefly report NotReady.'
          : 'The service stops and starts again (Restart-Service -Force).',
    },
    RESTART,
  );
  if (ok !== RESTART) return;
  const t = await target(rt, nodeItem(node), 'Restart service');
  if (!t || noAddress(t)) return;
  const r = await overSsh(rt, t, `restarting ${service} on ${t.name}`, async (host, deps) => {
    const restarted = await deps.restartNodeService(host, service);
    rt.services.set(serviceKey(t.context, t.name), {
      at: Date.now(),
      answer: { services: await deps.nodeServices(host) },
    });
    return restarted;
  });
  if (!r) return;
  rt.log.info(`restart ${service} on ${t.name}: ${r.status}`);
  void vscode.window.showInformationMessage(`kube-windows: ${service} on ${t.name} was restarted (${r.status}).`);
  refreshServices(node);
}

/**
 * Does `what` on the node over SSH (asking how to connect) under a progress notification. Undefined
 * when the user cancelled or declined a question, or when it failed (one error message said so).
 */
async function overSsh<T>(
  rt: Runtime,
  t: Target,
  what: string,
  work: (host: WindowsHost, deps: NodeDeps) => Promise<T>,
): Promise<T | undefined> {
  const access = await chooseAccess(rt, t, false);
  if (!access || access === 'pod') return undefined;
  const deps = await rt.deps();
  const prompts = promptsFor(rt, deps);
  const host = deps.host(sshOptions(t.address ?? t.name, access, prompts));
  let result: T;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `kube-windows: ${what}…` },
      () => work(host, deps),
    );
  } catch (err) {
    await prompts.settled();
    if (!prompts.declinedByUser())
      void vscode.window.showErrorMessage(
        `kube-windows: ${what} failed: ${firstLine(await userMessage(err, t.context))}`,
      );
    return undefined;
  } finally {
    host.close();
  }
  await prompts.settled();
  return result;
}
