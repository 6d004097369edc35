// Node operations on a Windows node item: "Open SSH terminal", "Reboot gracefully",
// "Collect logs", "Show proxy settings" (./node-proxy-settings.ts), and the node's Services group with
// "Restart service" (./node-services.ts); the command table of them all is here. VS Code glue only: the
// reboot plan, the log collection, the service ops, the SSH shell and the HostProcess pod live in the
// engine (src/bootstrap, src/remote, src/cluster), loaded on first use like the join commands; the seam to
// it, the node an item stands for and how it is reached are ./node-access.ts.
//
// SSH: the same questions and rules as join (./ssh-prompts.ts): the key PATH is remembered per
// context (shared with join), the passphrase only in SecretStorage on "Remember", unknown host keys
// need an explicit trust. The Services group never asks anything while the tree expands: without
// usable credentials it shows "Connect to show services…", which asks.
import * as vscode from 'vscode';
import { readConfig } from './config';
import {
  channelFor,
  commandRuntime,
  firstLine,
  onHost,
  registerCommands,
  runWithProgress,
  showStopped,
  userMessage,
  type CommandTable,
} from './command-kit';
import { isHostKeyRefusalOrCancel } from '../remote/types';
import type { InteractiveSession } from '../remote/interactive';
import { askReach, USE_POD } from './ssh-prompts';
import { SessionPty } from './terminal';
import type { ReadOnlyDocs } from './read-only-docs';
import { showFolderMessage } from './reveal-folder';
import { counted } from '../core/plural';
import type { NodeServicesSource } from '../views/items/services';
import {
  chooseAccess,
  defaultNodeDeps,
  noAddress,
  promptsFor,
  sshOptions,
  target,
  type NodeDeps,
  type NodeRuntime as Runtime,
} from './node-access';
import { connectServices, refreshServices, restartService, serviceKey, servicesFor } from './node-services';
import { showProxySettings } from './node-proxy-settings';

const SHOW_LOG = 'Show log';
const RUN_AGAIN = 'Run again';
export { USE_POD } from './ssh-prompts';
export { RESTART } from './node-services';
export type { NodeDeps } from './node-access';
export const REBOOT = 'Reboot';
export const DELETE_EMPTYDIR = 'Reboot, deleting the emptyDir data';
export const BYPASS_PDB = 'Delete the pods, bypassing the budgets';

export interface NodeCommands {
  /** The Services group's source for the cluster tree. */
  services: NodeServicesSource;
}

/**
 * The node family's commands (package.json contributes them; test/unit/package-conventions.test.ts checks both
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
  const rt: Runtime = { ...commandRuntime(context, log, defaultNodeDeps, deps), services: new Map(), docs };
  registerCommands(context, log, NODE_COMMANDS, rt);
  return { services: (ctx, node) => servicesFor(rt, ctx, node) };
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
    `kube-windows: ${t.name} is reached ${reach.via === 'pod' ? 'through a HostProcess pod from now on: the terminal and "Show proxy settings" use it; SSH is asked for the rest (reboot, logs, services)' : `over SSH as ${reach.user} with the key ${reach.keyPath} from now on`}.`,
  );
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
