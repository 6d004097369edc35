// "Preview mirror config" and "Apply mirror config": VS Code glue over the mirror engine
// (src/bootstrap/mirrors-apply.ts). The mirror sets come from the active YAML editor when it holds
// IDMS/ITMS objects, else from the cluster. The engine loads on first use (./join-commands'
// loadEngine), so registering costs nothing at activation; SSH questions are those of join.
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
import type { KubeClient } from '../cluster/kube-client';
import type { SshConnectorOptions } from '../remote/ssh';
import type { WindowsHost } from '../remote/windows-host';
import type * as Engine from './engine-bundle';
import { channelFor, loadEngine, userMessage } from './command-kit';
import {
  keyStep,
  rememberedKeyPath,
  rememberedUser,
  rememberLogin,
  sshPrompts,
  userStep,
  type Prompts,
} from './ssh-prompts';
import { runSteps } from './multi-step-input';
import { contextStart } from './context-step';
import { counted } from '../core/plural';

const APPLY = 'Apply';
const SHOW_LOG = 'Show log';
const WITHOUT_SSH = 'Without reading the nodes';
const PREVIEW = 'Preview mirror config';
const OTHER_KEY = 'Another user or key…';

/** The engine functions these commands call. */
const ENGINE = [
  'mirrorsDiff',
  'mirrorsApply',
  'mirrorObjectsOfText',
  'mirrorsPreviewMarkdown',
  'mirrorsRenderOnly',
  'mirrorResultTable',
  'mirrorsApplySummary',
  'mirrorsCase',
  'isWmcoCluster',
] as const;

/**
 * The seam to the engine (tests pass replacements): its own functions, typed by the engine module, and access to
 * clusters and hosts.
 */
export interface MirrorDeps extends Pick<typeof Engine, (typeof ENGINE)[number]> {
  contexts(): Promise<{ ok: true; names: string[]; current?: string } | { ok: false; message: string }>;
  cluster(context: string): Promise<{ kube: KubeClient }>;
  host(options: SshConnectorOptions): WindowsHost;
  checkPassphrase(keyPath: string, passphrase: string): Promise<boolean>;
}

async function defaultDeps(): Promise<MirrorDeps> {
  const e = await loadEngine();
  const kc = kubeconfigAccess(e);
  return { ...engineFunctions(e, ENGINE), contexts: kc.contexts, cluster: kc.cluster, ...sshAccess(e) };
}

interface Runtime extends CommandRuntime<MirrorDeps> {
  /** Preview texts by URI, served read-only by the content provider. */
  previews: Map<string, string>;
  previewChanged: vscode.EventEmitter<vscode.Uri>;
}

/**
 * The mirror family's commands (package.json contributes them; test/unit/package-conventions.test.ts checks both
 * agree).
 */
export const MIRROR_COMMANDS = {
  'kubeWindows.previewMirrors': { run: preview },
  'kubeWindows.applyMirrors': { run: apply },
} satisfies CommandTable<Runtime>;

export function registerMirrorCommands(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  deps?: Partial<MirrorDeps>,
): void {
  const previews = new Map<string, string>();
  const previewChanged = new vscode.EventEmitter<vscode.Uri>();
  const rt: Runtime = { ...commandRuntime(context, log, defaultDeps, deps), previews, previewChanged };
  registerCommands(context, log, MIRROR_COMMANDS, rt);
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
      onDidChange: previewChanged.event,
      provideTextDocumentContent: (uri: vscode.Uri) => previews.get(uri.toString()) ?? '# no longer available\n',
    }),
    previewChanged,
  );
}

/** Mirror sets of the active YAML editor, if it has any (else the cluster's are used). */
function editorObjects(deps: MirrorDeps): { objects: unknown[]; from: string } | undefined {
  const doc = vscode.window.activeTextEditor?.document as (vscode.TextDocument & { getText(): string }) | undefined;
  if (!doc || doc.languageId !== 'yaml') return undefined;
  const objects = deps.mirrorObjectsOfText(doc.getText());
  if (objects.length === 0) return undefined;
  const name = doc.uri?.path?.split('/').pop() ?? 'the active editor';
  return { objects, from: name };
}

/** What the mirror commands ask: the cluster, whether to read the nodes over SSH, and then as whom. */
interface MirrorAnswers {
  context: string;
  ssh: 'remembered' | 'other' | 'none';
  user: string;
  keyPath: string;
}

/**
 * The questions as one multi-step input: the cluster (unless the item names it), how to read the nodes (the user
 * and key remembered for the cluster, another user and key, or no SSH at all), then the user and key when asked for.
 * undefined: cancelled; `ssh` null: without SSH.
 */
async function askMirrors(
  rt: Runtime,
  arg: unknown,
  withoutLabel: string,
): Promise<{ context: string; ssh: { user: string; keyPath: string } | null } | undefined> {
  const start = await contextStart<MirrorAnswers>(async () => (await rt.deps()).contexts(), arg);
  if (!start) return undefined;
  const remembered = (a: Partial<MirrorAnswers>) => {
    const keyPath = a.context ? rememberedKeyPath(rt.context, a.context) : undefined;
    return keyPath ? { user: rememberedUser(rt.context, a.context as string) ?? 'Administrator', keyPath } : undefined;
  };
  const a = await runSteps<MirrorAnswers>(
    [
      ...start.steps,
      {
        kind: 'pick',
        key: 'ssh',
        title: "kube-windows: read the Windows nodes' hosts.toml over SSH?",
        items: (x) => {
          const r = remembered(x);
          return [
            ...(r ? [{ value: 'remembered' as const, label: `SSH as ${r.user}`, description: r.keyPath }] : []),
            { value: 'other' as const, label: OTHER_KEY },
            { value: 'none' as const, label: withoutLabel },
          ];
        },
      },
      { ...userStep<MirrorAnswers>((x) => remembered(x)?.user), when: (x) => x.ssh === 'other' },
      { ...keyStep<MirrorAnswers>(rt.context, (x) => x.context as string), when: (x) => x.ssh === 'other' },
    ],
    start.known,
  );
  if (!a) return undefined;
  if (a.ssh === 'none') return { context: a.context, ssh: null };
  if (a.ssh === 'remembered') return { context: a.context, ssh: remembered(a) ?? null };
  await rememberLogin(rt.context, a.context, a.user, a.keyPath);
  return { context: a.context, ssh: { user: a.user, keyPath: a.keyPath } };
}

function hostFactory(deps: MirrorDeps, ssh: { user: string; keyPath: string }, prompts: Prompts) {
  return (t: Engine.MirrorTarget) =>
    deps.host({
      host: t.address,
      username: ssh.user,
      privateKeyPath: ssh.keyPath,
      ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
      ...prompts.options,
    });
}

async function preview(rt: Runtime, arg: unknown): Promise<void> {
  const deps = await rt.deps();
  const fromEditor = editorObjects(deps);
  const asked = await askMirrors(rt, arg, WITHOUT_SSH);
  if (!asked) return;
  const { context, ssh } = asked;
  const prompts = sshPrompts(rt, (k, p) => deps.checkPassphrase(k, p));
  let out: Engine.MirrorsOutcome;
  let note = '';
  try {
    const cluster = await deps.cluster(context);
    out = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `kube-windows: reading the mirror configuration of ${context}…`,
      },
      () =>
        deps.mirrorsDiff({
          kube: cluster.kube,
          ...(fromEditor ? { objects: fromEditor.objects } : {}),
          ...(ssh ? { hostFor: hostFactory(deps, ssh, prompts) } : {}),
          concurrency: readConfig().mirrors.concurrency,
        }),
    );
  } catch (err) {
    const message = firstLine(await userMessage(err, context));
    // The editor's mirror sets can still be rendered; the nodes' diff needs the cluster.
    if (!fromEditor) {
      void vscode.window.showErrorMessage(`kube-windows: ${message}`);
      return;
    }
    out = deps.mirrorsRenderOnly(fromEditor.objects);
    note = ` (cluster not reachable: ${message}; no node diff)`;
  } finally {
    await prompts.settled();
  }
  const heading = `Registry mirror configuration for ${context}, from ${fromEditor ? fromEditor.from : "the cluster's ImageDigestMirrorSets / ImageTagMirrorSets"}${note}`;
  // A read-only virtual document (the preview is what nodes get, not something to edit).
  const uri = vscode.Uri.parse(`${PREVIEW_SCHEME}:/${encodeURIComponent(context)}/mirror-config.md`);
  rt.previews.set(uri.toString(), deps.mirrorsPreviewMarkdown(out, heading));
  rt.previewChanged.fire(uri);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  await vscode.window.showTextDocument(doc, { preview: true });
}

const PREVIEW_SCHEME = 'kube-windows-mirrors';

async function apply(rt: Runtime, arg: unknown): Promise<void> {
  const deps = await rt.deps();
  const fromEditor = editorObjects(deps);
  const what = fromEditor ? `the mirror sets of ${fromEditor.from}` : "the cluster's mirror sets";
  const asked = await askMirrors(rt, arg, 'Without SSH (WMCO clusters: objects only, no verification)');
  if (!asked) return;
  const { context, ssh } = asked;
  const prompts = sshPrompts(rt, (k, p) => deps.checkPassphrase(k, p));
  let cluster: { kube: KubeClient };
  let wmco: boolean;
  try {
    cluster = await deps.cluster(context);
    wmco = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `kube-windows: reading ${context}…` },
      () => deps.isWmcoCluster(cluster.kube),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, context))}`);
    return;
  }
  // The confirmation comes last, after every question, and names the case this cluster is.
  const ok = await vscode.window.showWarningMessage(
    wmco
      ? `kube-windows: apply ${what} to ${context} as ImageDigestMirrorSet / ImageTagMirrorSet objects? WMCO then rewrites the Windows nodes' hosts.toml.`
      : `kube-windows: push ${what} to the Windows nodes of ${context} as containerd hosts.toml files over SSH?`,
    {
      modal: true,
      detail: `${deps.mirrorsCase(wmco)}${ssh ? '' : wmco ? ' Without SSH, whether WMCO converged is not checked.' : ' Without SSH, no node can be reached.'}`,
    },
    APPLY,
  );
  if (ok !== APPLY) return;
  const channel = channelFor(rt, `kube-windows: mirrors ${context}`);
  channel.appendLine(`Applying ${what} to ${context}…`);
  let out: Engine.MirrorsOutcome;
  try {
    out = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `kube-windows: applying mirror configuration to ${context}`,
        cancellable: true,
      },
      async (progress, token) => {
        const ctl = new AbortController();
        const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled by the user')));
        let done = 0;
        try {
          return await deps.mirrorsApply({
            kube: cluster.kube,
            wmco,
            ...(fromEditor ? { objects: fromEditor.objects } : {}),
            ...(ssh ? { hostFor: hostFactory(deps, ssh, prompts) } : {}),
            concurrency: readConfig().mirrors.concurrency,
            signal: ctl.signal,
            onLog: (line) => channel.appendLine(line),
            onEvent: (t, e) => {
              if (e.type === 'step-end' && e.outcome === 'failed')
                channel.appendLine(`[${t.node}] ${e.stepId} failed: ${e.message ?? ''}`);
              else if (e.type === 'log' && e.stepId) channel.appendLine(`[${t.node}] ${e.message}`);
              else if (e.type === 'plan-end') {
                done++;
                channel.appendLine(`[${t.node}] ${e.outcome} (${(e.durationMs / 1000).toFixed(1)} s)`);
                progress.report({ message: `${counted(done, 'node')} done; last: ${t.node}` });
              }
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
  } catch (err) {
    const message = await userMessage(err, context);
    channel.appendLine(`Failed: ${message}`);
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(message)}`);
    return;
  } finally {
    await prompts.settled();
  }
  for (const o of out.objects)
    channel.appendLine(`${o.kind}/${o.name}: ${o.action}${o.reason ? ` (${o.reason})` : ''}`);
  for (const r of out.render.refused) channel.appendLine(`refused ${r.source}: ${r.message}`);
  channel.appendLine(
    out.nodes.length === 0 ? 'The cluster has no Windows nodes.' : deps.mirrorResultTable(out.nodes).trimEnd(),
  );
  channel.show(true);
  const summary = deps.mirrorsApplySummary(out);
  rt.log.info(`mirrors ${context}: ${summary.text}. ${summary.advice}`);
  if (summary.advice) channel.appendLine(summary.advice);
  const message = `kube-windows: ${context}: ${summary.text}.${summary.advice ? ` ${summary.advice}` : ''}`;
  if (summary.attention) {
    const choice = await vscode.window.showWarningMessage(message, SHOW_LOG, PREVIEW);
    if (choice === SHOW_LOG) channel.show();
    if (choice === PREVIEW) await preview(rt, context);
  } else {
    const choice = await vscode.window.showInformationMessage(message, PREVIEW);
    if (choice === PREVIEW) await preview(rt, context);
  }
}
