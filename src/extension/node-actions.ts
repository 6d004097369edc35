// The cluster-side actions on a Windows node item (no SSH): Cordon / Uncordon and Drain (the
// reboot plan's own steps, shared with `kube-windows nodes cordon|uncordon|drain`: the Eviction API,
// PodDisruptionBudgets honoured, DaemonSet and mirror pods left, emptyDir data named before anything
// is lost), Edit taints, Events, and Node logs through the API server's node proxy (with the SSH
// log collection offered when the node refuses). VS Code glue only; the logic is in the engine.
import * as vscode from 'vscode';
import type { KubeClient } from '../cluster/kube-client';
import type { NodeObject } from '../cluster/nodes';
import type { SchedulingAction } from '../bootstrap/drain';
import {
  channelFor,
  commandRuntime,
  firstLine,
  kubeconfigAccess,
  loadEngine,
  parseItem,
  registerCommands,
  runWithProgress,
  showStopped,
  userMessage,
  type CommandRuntime,
  type CommandTable,
} from './command-kit';
import type { ReadOnlyDocs } from './read-only-docs';
import { counted, plural } from '../core/plural';

const DRAIN = 'Drain';
const DELETE_EMPTYDIR_DATA = 'Delete the emptyDir data and drain';
const SET_TAINTS = 'Set taints';
const COLLECT_OVER_SSH = 'Collect logs over SSH';
const BROWSE = 'Browse the log folder…';
/** The services the kubelet's log query is offered for. */
const LOG_SERVICES = ['kubelet', 'containerd', 'kube-proxy'];
/** A node log document holds at most this much (the rest is left on the node). */
const LOG_CAP_BYTES = 8 * 1024 * 1024;

export interface NodeActionDeps {
  cluster(context: string): Promise<{ kube: KubeClient }>;
  /** How a drain waits (tests shorten it); default the plan's own. */
  drainTiming?: { evictionRetryMs?: number; pollMs?: number; drainTimeoutMs?: number };
  now(): Date;
}

async function defaultDeps(): Promise<NodeActionDeps> {
  const e = await loadEngine();
  const { client } = kubeconfigAccess(e);
  return { cluster: async (context) => client(context), now: () => new Date() };
}

interface Runtime extends CommandRuntime<NodeActionDeps> {
  docs: ReadOnlyDocs;
}

interface Target {
  context: string;
  name: string;
  kube: KubeClient;
  node: NodeObject;
  /** The tree item (for the SSH log collection offered when the node refuses its logs). */
  item: unknown;
}

/** A node action: runs on the Windows node of a tree item (read first), else says where to run it. */
function onNode(title: string, fn: (rt: Runtime, t: Target) => Promise<void>) {
  return async (rt: Runtime, arg: unknown): Promise<void> => {
    const t = await target(rt, arg, title);
    if (t) await fn(rt, t);
  };
}

/**
 * The node actions through the API (package.json contributes them; test/unit/package-conventions.test.ts checks both
 * agree).
 */
export const NODE_ACTION_COMMANDS = {
  'kubeWindows.cordonNode': { run: onNode('Cordon', (r, t) => schedule(r, t, 'cordon')), palette: false },
  'kubeWindows.uncordonNode': { run: onNode('Uncordon', (r, t) => schedule(r, t, 'uncordon')), palette: false },
  'kubeWindows.drainNode': { run: onNode('Drain', drainNode), palette: false },
  'kubeWindows.editTaints': { run: onNode('Edit taints', editTaints), palette: false },
  'kubeWindows.nodeEvents': { run: onNode('Events', nodeEvents), palette: false },
  'kubeWindows.nodeLogs': { run: onNode('Node logs', nodeLogs), palette: false },
} satisfies CommandTable<Runtime>;

export function registerNodeActions(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  docs: ReadOnlyDocs,
  deps?: Partial<NodeActionDeps>,
): void {
  const rt: Runtime = { ...commandRuntime(context, log, defaultDeps, deps), docs };
  registerCommands(context, log, NODE_ACTION_COMMANDS, rt);
}

async function target(rt: Runtime, arg: unknown, what: string): Promise<Target | undefined> {
  const { context, node: name } = parseItem(arg);
  if (!context || !name) {
    void vscode.window.showInformationMessage(`kube-windows: run "${what}" on a Windows node in the Clusters view.`);
    return undefined;
  }
  try {
    const { kube } = await (await rt.deps()).cluster(context);
    const e = await loadEngine();
    const node = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `kube-windows: reading ${name}…` },
      () => e.getNode(kube, name),
    );
    if (node) return { context, name, kube, node, item: arg };
    void vscode.window.showErrorMessage(`kube-windows: there is no Node named ${name} in ${context} any more.`);
  } catch (err) {
    await fail(err, context);
  }
  return undefined;
}

async function fail(err: unknown, context: string, prefix = ''): Promise<void> {
  void vscode.window.showErrorMessage(`kube-windows: ${prefix}${firstLine(await userMessage(err, context))}`);
}

// ---------------------------------------------------------------------------------------------
// Cordon, uncordon, drain

async function schedule(rt: Runtime, t: Target, action: SchedulingAction, deleteEmptyDirData = false): Promise<void> {
  const e = await loadEngine();
  const opts = {
    kube: t.kube,
    node: t.node,
    ...(deleteEmptyDirData ? { deleteEmptyDirData } : {}),
    ...((await rt.deps()).drainTiming ?? {}),
  };
  const plan = e.schedulingPlanFor(action, opts);
  const channel = channelFor(rt, `kube-windows: ${action} ${t.name}`);
  const result = await runWithProgress(`kube-windows: ${action} ${t.name}`, channel, (o) => plan.run(o));
  const summary = e.schedulingSummary(action, result, t.name).replace(/ \(kube-windows nodes uncordon [^)]*\)/, '');
  rt.log.info(`${action} ${t.name} (${t.context}): ${result.outcome}`);
  if (result.outcome === 'done') {
    void vscode.window.showInformationMessage(`kube-windows: ${summary}`);
    return;
  }
  const blocked = plan.state.blockedBy ?? [];
  if (blocked.length > 0) {
    const budgets = [...new Set(blocked.map((b) => b.pdb ?? `the budget of ${b.pod}`))];
    void vscode.window.showErrorMessage(
      `kube-windows: the drain of ${t.name} is blocked by PodDisruptionBudget ${budgets.join(', ')} (${blocked.map((b) => b.pod).join(', ')} may not be evicted now). The node stays cordoned; drain again once the budget allows it.`,
    );
    return;
  }
  const choice = await showStopped(t.context, summary, result, ['Show log']);
  if (choice === 'Show log') channel.show(true);
}

async function drainNode(rt: Runtime, t: Target): Promise<void> {
  const e = await loadEngine();
  let preview: Awaited<ReturnType<typeof e.drainPreview>>;
  try {
    preview = await e.drainPreview({ kube: t.kube, node: t.node });
  } catch (err) {
    return fail(err, t.context);
  }
  const list = (names: string[]) =>
    `${names.slice(0, 12).join('\n')}${names.length > 12 ? `\n… and ${names.length - 12} more` : ''}`;
  let deleteEmptyDirData = false;
  if (preview.emptyDir.length > 0) {
    const ok = await vscode.window.showWarningMessage(
      `${counted(preview.emptyDir.length, 'pod')} on ${t.name} ${plural(preview.emptyDir.length, 'uses', 'use')} emptyDir volumes: draining deletes that data.`,
      {
        modal: true,
        detail: `${list(preview.emptyDir)}\n\nWithout consent the node is not drained (nothing changes).`,
      },
      DELETE_EMPTYDIR_DATA,
    );
    if (ok !== DELETE_EMPTYDIR_DATA) return;
    deleteEmptyDirData = true;
  } else {
    const detail = [
      preview.evict.length ? `Evicted (PodDisruptionBudgets honoured):\n${list(preview.evict)}` : 'No pod to evict.',
      preview.skipped.length ? `Left on the node:\n${list(preview.skipped)}` : '',
      'The node stays cordoned afterwards (Uncordon makes it schedulable again).',
    ]
      .filter(Boolean)
      .join('\n\n');
    const ok = await vscode.window.showWarningMessage(
      `Drain ${t.name}: cordon it and evict ${counted(preview.evict.length, 'pod')}?`,
      { modal: true, detail },
      DRAIN,
    );
    if (ok !== DRAIN) return;
  }
  await schedule(rt, t, 'drain', deleteEmptyDirData);
}

// ---------------------------------------------------------------------------------------------
// Taints

async function editTaints(rt: Runtime, t: Target): Promise<void> {
  const e = await loadEngine();
  const before = t.node.spec?.taints ?? [];
  const text = await vscode.window.showInputBox({
    title: `kube-windows: taints of ${t.name}`,
    prompt:
      'key=value:Effect, comma-separated (Effect: NoSchedule, PreferNoSchedule or NoExecute); empty removes them all',
    value: before.map(e.taintText).join(', '),
    ignoreFocusOut: true,
    validateInput: (v) => {
      const r = e.parseTaints(v);
      return 'error' in r ? r.error : undefined;
    },
  });
  if (text === undefined) return;
  const parsed = e.parseTaints(text);
  if ('error' in parsed) return; // validateInput said so
  const { added, removed } = e.taintChanges(before, parsed.taints);
  if (added.length === 0 && removed.length === 0) {
    void vscode.window.showInformationMessage(`kube-windows: the taints of ${t.name} are unchanged.`);
    return;
  }
  const detail = [
    added.length ? `Added: ${added.join(', ')}` : '',
    removed.length ? `Removed: ${removed.join(', ')}` : '',
    added.some((a) => a.endsWith(':NoExecute')) ? 'NoExecute evicts the running pods that do not tolerate it.' : '',
  ]
    .filter(Boolean)
    .join('\n');
  const ok = await vscode.window.showWarningMessage(
    `Change the taints of ${t.name}?`,
    { modal: true, detail },
    SET_TAINTS,
  );
  if (ok !== SET_TAINTS) return;
  try {
    await e.setNodeTaints(t.kube, t.node, parsed.taints);
  } catch (err) {
    if ((err as { status?: number }).status === 409) {
      void vscode.window.showErrorMessage(
        `kube-windows: ${t.name} changed while its taints were edited; nothing was written. Run Edit taints again.`,
      );
      return;
    }
    return fail(err, t.context);
  }
  rt.log.info(`taints of ${t.name}: +[${added.join(', ')}] -[${removed.join(', ')}]`);
  void vscode.window.showInformationMessage(`kube-windows: the taints of ${t.name} are set.`);
}

// ---------------------------------------------------------------------------------------------
// Events and logs

async function nodeEvents(rt: Runtime, t: Target): Promise<void> {
  const e = await loadEngine();
  try {
    const events = await e.nodeEvents(t.kube, t.name);
    await rt.docs.show(`events/${t.name}.txt`, e.describeNodeEvents(t.name, events, (await rt.deps()).now()));
  } catch (err) {
    await fail(err, t.context);
  }
}

/** Which log: a service's log query, or a file picked in the node's log folder. undefined: cancelled. */
async function pickNodeLog(t: Target): Promise<{ query: string } | { path: string } | undefined> {
  const e = await loadEngine();
  const picked = await vscode.window.showQuickPick(
    [
      ...LOG_SERVICES.map((s) => ({ label: s, description: 'the kubelet’s log query' })),
      { label: BROWSE, description: 'C:\\var\\log on the node' },
    ],
    {
      title: `kube-windows: which log of ${t.name}?`,
      ignoreFocusOut: true,
    },
  );
  if (!picked) return undefined;
  if (picked.label !== BROWSE) return { query: picked.label };
  let folder = '';
  for (;;) {
    const names = await e.listNodeLogFolder(t.kube, t.name, folder);
    const name = await vscode.window.showQuickPick(names, {
      title: `kube-windows: ${t.name}: logs/${folder}`,
      ignoreFocusOut: true,
    });
    if (!name) return undefined;
    if (!name.endsWith('/')) return { path: `${folder}${name}` };
    folder = `${folder}${name}`;
  }
}

async function nodeLogs(rt: Runtime, t: Target): Promise<void> {
  const e = await loadEngine();
  let text = '';
  let bytes = 0;
  let request: { query: string } | { path: string } | undefined;
  try {
    request = await pickNodeLog(t);
    if (!request) return;
    const r = request;
    const what = 'query' in r ? `the ${r.query} log` : r.path;
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `kube-windows: reading ${what} of ${t.name}…`,
        cancellable: true,
      },
      async (_p, token) => {
        const ctl = new AbortController();
        const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled by the user')));
        try {
          await e.streamNodeLog(
            t.kube,
            t.name,
            r,
            (c) => {
              if (bytes >= LOG_CAP_BYTES) return ctl.abort(new Error('cap'));
              bytes += c.length;
              text += c.toString('utf8');
            },
            ctl.signal,
          );
        } catch (err) {
          if (!(bytes >= LOG_CAP_BYTES && ctl.signal.aborted)) throw err;
          text += `\n[kube-windows] the first ${LOG_CAP_BYTES / 1048576} MB are shown; Collect logs over SSH fetches everything.\n`;
        } finally {
          sub.dispose();
        }
      },
    );
  } catch (err) {
    if (err instanceof e.NodeLogRefusedError) {
      rt.log.warn(`node logs ${t.name}: ${err.refusal.kind}: ${err.message}`);
      const offer = err.refusal.kind === 'no-node' ? [] : [COLLECT_OVER_SSH];
      const choice = await vscode.window.showErrorMessage(`kube-windows: ${err.message}`, ...offer);
      if (choice === COLLECT_OVER_SSH) await vscode.commands.executeCommand('kubeWindows.collectLogs', t.item);
      return;
    }
    return fail(err, t.context);
  }
  const name = 'query' in request ? `${request.query}.log` : request.path.replace(/\//g, '_');
  await rt.docs.show(`node-logs/${t.name}/${name}`, text || '(empty)\n', 'log');
}
