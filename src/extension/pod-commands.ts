// The actions on a pod item of the Clusters view: Logs (a container, followed into an output
// channel or read into a document, or its previous instance), Shell (the shell the container can
// run, in a terminal over pods/exec), Describe (a read-only document with the failure explanation
// on top), Delete, and Restart of the owning workload (rollout restart). VS Code glue only: the calls
// are in src/cluster/pod-actions.ts and pod-exec.ts, the texts in src/core, loaded with the engine.
import * as vscode from 'vscode';
import type { KubeClient } from '../cluster/kube-client';
import type { KubeConfig } from '../cluster/kubeconfig';
import type { PodObject } from '../cluster/pod-actions';
import type { TreeNode } from '../views/cluster-item';
import type { ShellKind } from '../core/windows/container-shell';
import {
  commandRuntime,
  firstLine,
  kubeconfigAccess,
  loadEngine,
  registerCommands,
  userMessage,
  type CommandRuntime,
  type CommandTable,
} from './command-kit';
import type { ReadOnlyDocs } from './read-only-docs';
import { SessionPty } from './terminal';
import { counted } from '../core/plural';

const DELETE = 'Delete';
const RESTART_WORKLOAD = 'Restart';
const FOLLOW = 'Follow';
const SHOW_LOG = 'Show the log';
const PREVIOUS = 'Previous instance';
/** What a log document holds at most (its last lines); following has no end. */
const LOG_TAIL_LINES = 10_000;
/** The lines a follow starts with. */
const FOLLOW_TAIL_LINES = 200;

/** The seam to the cluster (tests point it elsewhere). */
export interface PodDeps {
  cluster(context: string): Promise<{ kube: KubeClient; config: KubeConfig }>;
  now(): Date;
}

async function defaultDeps(): Promise<PodDeps> {
  const e = await loadEngine();
  const { client } = kubeconfigAccess(e);
  return {
    cluster: async (context) => client(context),
    now: () => new Date(),
  };
}

interface Runtime extends CommandRuntime<PodDeps> {
  docs: ReadOnlyDocs;
  /** The log follows under way, by channel name: a new pick stops the one before. */
  follows: Map<string, AbortController>;
}

/** A pod command: runs on the pod of a tree item, else says where to run it. */
function onPod(fn: (rt: Runtime, pod: PodRef) => Promise<void>) {
  return async (rt: Runtime, arg: unknown): Promise<void> => {
    const pod = podOf(arg);
    if (pod) await fn(rt, pod);
    else
      void vscode.window.showInformationMessage(
        'kube-windows: run this on a pod under a Windows node in the Clusters view.',
      );
  };
}

/**
 * The pod family's commands (package.json contributes them; test/unit/package-conventions.test.ts checks both agree).
 */
export const POD_COMMANDS = {
  'kubeWindows.podLogs': { run: onPod(podLogs), palette: false },
  'kubeWindows.podShell': { run: onPod(podShell), palette: false },
  'kubeWindows.describePod': { run: onPod(describePod), palette: false },
  'kubeWindows.deletePod': { run: onPod(deletePod), palette: false },
  'kubeWindows.restartWorkload': { run: onPod(restartWorkload), palette: false },
  'kubeWindows.stopFollowingLogs': { run: (rt) => stopFollows(rt), palette: 'kubeWindows.followingLogs' },
} satisfies CommandTable<Runtime>;

export function registerPodCommands(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  docs: ReadOnlyDocs,
  deps?: Partial<PodDeps>,
): void {
  const rt: Runtime = { ...commandRuntime(context, log, defaultDeps, deps), docs, follows: new Map() };
  registerCommands(context, log, POD_COMMANDS, rt);
  context.subscriptions.push({ dispose: () => stopFollows(rt) });
}

interface PodRef {
  context: string;
  namespace: string;
  name: string;
}

function podOf(arg: unknown): PodRef | undefined {
  const ref = (arg as Partial<TreeNode> | undefined)?.ref;
  return ref?.kind === 'pod' ? { context: ref.context, namespace: ref.namespace, name: ref.name } : undefined;
}

const podName = (p: PodRef): string => `${p.namespace}/${p.name}`;

async function fail(p: PodRef, err: unknown): Promise<void> {
  void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, p.context))}`);
}

/** The pod as the API has it now; undefined (after a message) when it is gone or unreadable. */
async function readPod(
  rt: Runtime,
  p: PodRef,
): Promise<{ kube: KubeClient; config: KubeConfig; pod: PodObject } | undefined> {
  try {
    const { kube, config } = await (await rt.deps()).cluster(p.context);
    const e = await loadEngine();
    const pod = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `kube-windows: reading ${podName(p)}…` },
      () => e.getPod(kube, p.namespace, p.name),
    );
    if (pod) return { kube, config, pod };
    void vscode.window.showErrorMessage(`kube-windows: the pod ${podName(p)} no longer exists in ${p.context}.`);
  } catch (err) {
    await fail(p, err);
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Logs

async function pickContainer(
  names: { name: string; init?: boolean; restarts?: number }[],
  title: string,
): Promise<string | undefined> {
  if (names.length <= 1) return names[0]?.name;
  const picked = await vscode.window.showQuickPick(
    names.map((c) => ({
      label: c.name,
      description: [c.init ? 'init container' : '', c.restarts ? counted(c.restarts, 'restart') : '']
        .filter(Boolean)
        .join(', '),
    })),
    { title, ignoreFocusOut: true },
  );
  return picked?.label;
}

async function podLogs(rt: Runtime, p: PodRef): Promise<void> {
  const read = await readPod(rt, p);
  if (!read) return;
  const e = await loadEngine();
  const containers = e.logContainers(read.pod);
  const container = await pickContainer(containers, `kube-windows: the log of which container of ${p.name}?`);
  if (!container) return;
  const has = containers.find((c) => c.name === container);
  const mode = await vscode.window.showQuickPick(
    [
      {
        label: FOLLOW,
        description: 'into an output channel that keeps following (kube-windows: Stop Following Pod Logs ends it)',
      },
      { label: SHOW_LOG, description: `its last ${LOG_TAIL_LINES} lines in an editor` },
      {
        label: PREVIOUS,
        description: has?.previous
          ? 'the instance that ran before the last restart'
          : 'the container has not restarted: the API may have none',
      },
    ],
    { title: `kube-windows: the log of ${p.name} (${container})`, ignoreFocusOut: true },
  );
  if (!mode) return;
  const request = { namespace: p.namespace, pod: p.name, container };
  if (mode.label === FOLLOW) return follow(rt, read.kube, p, container);
  const previous = mode.label === PREVIOUS;
  let text = '';
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `kube-windows: reading the log of ${podName(p)} (${container})…`,
        cancellable: true,
      },
      async (_progress, token) => {
        const ctl = new AbortController();
        const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled by the user')));
        try {
          await e.streamPodLog(
            read.kube,
            { ...request, previous, tailLines: LOG_TAIL_LINES },
            (c) => (text += c.toString('utf8')),
            ctl.signal,
          );
        } finally {
          sub.dispose();
        }
      },
    );
  } catch (err) {
    return fail(p, err);
  }
  await rt.docs.show(
    `logs/${p.namespace}/${p.name}/${container}${previous ? '.previous' : ''}.log`,
    text || `(the ${previous ? 'previous instance' : 'container'} wrote nothing to its log)\n`,
    'log',
  );
}

/** Whether a follow is under way: "Stop following pod logs" shows in the palette only then. */
const following = (rt: Runtime): Thenable<unknown> =>
  vscode.commands.executeCommand('setContext', 'kubeWindows.followingLogs', rt.follows.size > 0);

function stopFollows(rt: Runtime): void {
  for (const c of rt.follows.values()) c.abort(new Error('stopped'));
  rt.follows.clear();
  void following(rt);
}

/** Follows a container's log into its output channel until it ends, is stopped, or the same log is picked again. */
async function follow(rt: Runtime, kube: KubeClient, p: PodRef, container: string): Promise<void> {
  const name = `kube-windows: logs ${podName(p)} (${container})`;
  rt.follows.get(name)?.abort(new Error('followed again'));
  const ctl = new AbortController();
  rt.follows.set(name, ctl);
  void following(rt);
  let channel = rt.channels.get(name);
  if (!channel) {
    channel = vscode.window.createOutputChannel(name, 'log');
    rt.channels.set(name, channel);
  }
  const out = channel;
  out.clear();
  out.show(true);
  rt.log.info(`following the log of ${podName(p)} (${container})`);
  const e = await loadEngine();
  try {
    await e.streamPodLog(
      kube,
      { namespace: p.namespace, pod: p.name, container, follow: true, tailLines: FOLLOW_TAIL_LINES },
      (c) => out.append(c.toString('utf8')),
      ctl.signal,
    );
    if (!ctl.signal.aborted)
      out.appendLine(
        `[kube-windows] the log of ${podName(p)} (${container}) ended: the container stopped or the pod is gone.`,
      );
  } catch (err) {
    if (ctl.signal.aborted) return;
    const why = firstLine(await userMessage(err, p.context));
    out.appendLine(`[kube-windows] ${why}`);
    void vscode.window.showErrorMessage(`kube-windows: ${why}`);
  } finally {
    if (rt.follows.get(name) === ctl) rt.follows.delete(name);
    void following(rt);
    if (ctl.signal.aborted) out.appendLine(`[kube-windows] stopped following.`);
  }
}

// ---------------------------------------------------------------------------------------------
// Shell

async function podShell(rt: Runtime, p: PodRef): Promise<void> {
  const read = await readPod(rt, p);
  if (!read) return;
  const e = await loadEngine();
  const running = (read.pod.spec?.containers ?? []).map((c) => ({ name: c.name }));
  const container = await pickContainer(running, `kube-windows: a shell in which container of ${p.name}?`);
  if (!container) return;
  let target: Awaited<ReturnType<typeof e.resolveShellTarget>>;
  try {
    target = await e.resolveShellTarget(read.kube, { namespace: p.namespace, pod: p.name, container, tty: true });
  } catch (err) {
    return fail(p, err);
  }
  const auto = target.choice;
  const items = [
    {
      label: auto.command[0] ?? auto.shell,
      description: `automatic: ${auto.why}`,
      shell: undefined as ShellKind | undefined,
    },
    ...(['cmd', 'powershell', 'pwsh', 'sh'] as const)
      .filter((s) => s !== auto.shell)
      .map((s) => ({ label: s, description: 'whatever the image', shell: s as ShellKind | undefined })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: `kube-windows: which shell in ${p.name} (${container})?`,
    ignoreFocusOut: true,
  });
  if (!picked) return;
  const pty = new SessionPty(async (io) => {
    const session = await e.openContainerShell({
      kube: read.kube,
      config: read.config,
      namespace: p.namespace,
      pod: p.name,
      container,
      tty: true,
      cols: io.size.cols,
      rows: io.size.rows,
      signal: io.signal,
      ...(picked.shell ? { shell: picked.shell } : {}),
    });
    const t = session.target;
    io.print(
      `kube-windows: ${t.command.join(' ')} in ${podName(p)} container ${t.container} (${picked.shell ? 'chosen' : t.choice.why})`,
    );
    session.onEnd((end) => {
      if (end.lost) return;
      const code = end.exitCode ?? 0;
      rt.log.info(`shell ${podName(p)} (${t.container}): ${t.command[0]} exited with code ${code}`);
      if (code !== 0)
        void vscode.window.showWarningMessage(
          `kube-windows: ${t.command[0]} in ${podName(p)} exited with code ${code}.`,
        );
    });
    return session;
  });
  vscode.window
    .createTerminal({ name: `${p.name} (${container})`, pty, iconPath: new vscode.ThemeIcon('terminal') })
    .show();
}

// ---------------------------------------------------------------------------------------------
// Describe, delete, restart

async function describePod(rt: Runtime, p: PodRef): Promise<void> {
  const read = await readPod(rt, p);
  if (!read) return;
  const e = await loadEngine();
  const [events, node] = await Promise.all([
    e.podEvents(read.kube, read.pod).catch((err: unknown) => {
      rt.log.warn(`describe ${podName(p)}: events not readable: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    }),
    // Reading nodes is often not allowed to those who may read pods: the explanation does without.
    read.pod.spec?.nodeName
      ? e.getNode(read.kube, read.pod.spec.nodeName).catch(() => undefined)
      : Promise.resolve(undefined),
  ]);
  const text = e.describePod({
    pod: read.pod,
    events,
    ...(node ? { node: e.nodeFactsOf(node) } : {}),
    now: (await rt.deps()).now(),
  });
  await rt.docs.show(`describe/${p.namespace}/${p.name}.txt`, text);
}

async function deletePod(rt: Runtime, p: PodRef): Promise<void> {
  const read = await readPod(rt, p);
  if (!read) return;
  const owner = (read.pod.metadata.ownerReferences ?? []).find((o) => o.controller);
  const ok = await vscode.window.showWarningMessage(
    `Delete the pod ${podName(p)}?`,
    {
      modal: true,
      detail: owner
        ? `${owner.kind} ${owner.name} controls it and creates a new pod.`
        : 'It is a bare pod: nothing creates it again.',
    },
    DELETE,
  );
  if (ok !== DELETE) return;
  const e = await loadEngine();
  try {
    const deleted = await e.deletePodNamed(read.kube, p.namespace, p.name);
    rt.log.info(`delete ${podName(p)}: ${deleted ? 'deleted' : 'already gone'}`);
    void vscode.window.showInformationMessage(
      `kube-windows: ${deleted ? `the pod ${podName(p)} is being deleted.` : `the pod ${podName(p)} was already gone.`}`,
    );
  } catch (err) {
    await fail(p, err);
  }
}

async function restartWorkload(rt: Runtime, p: PodRef): Promise<void> {
  const read = await readPod(rt, p);
  if (!read) return;
  const e = await loadEngine();
  try {
    const target = await e.restartTargetOf(read.kube, read.pod);
    if ('refuse' in target) {
      void vscode.window.showWarningMessage(`kube-windows: ${target.refuse}`);
      return;
    }
    const what = `${target.kind} ${target.namespace}/${target.name}`;
    const ok = await vscode.window.showWarningMessage(
      `Restart ${what}?`,
      {
        modal: true,
        detail: `As kubectl rollout restart: a new kubectl.kubernetes.io/restartedAt on its pod template replaces its pods as its update strategy says.`,
      },
      RESTART_WORKLOAD,
    );
    if (ok !== RESTART_WORKLOAD) return;
    await e.restartWorkload(read.kube, target, (await rt.deps()).now());
    rt.log.info(`restart ${what}`);
    void vscode.window.showInformationMessage(`kube-windows: ${what} is restarting.`);
  } catch (err) {
    await fail(p, err);
  }
}
