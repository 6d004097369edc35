// What the join, mirror and node commands share: the guard that turns a failure into one line for
// the user (details in the log), and kubeconfig access through the lazily loaded engine.
import * as vscode from 'vscode';
import { readConfig } from './config';
import { ownWords } from '../core/user-error';
import type * as Engine from './engine-bundle';
import type { TreeNode } from '../views/cluster-item';
import type { RunEvent, RunResult } from '../bootstrap/runner';

/** The language of plan and log documents (syntaxes/kube-windows-plan.tmLanguage.json). */
export const PLAN_LANGUAGE = 'kube-windows-plan';

export const firstLine = (text: string): string => text.split('\n')[0]?.trim() ?? '';

/** Wraps a command: an unexpected failure becomes one error line (no stack), logged in full. */
function guarded(
  log: vscode.LogOutputChannel,
  name: string,
  fn: (arg: unknown) => Promise<void>,
): (arg: unknown) => Promise<void> {
  return async (arg: unknown) => {
    try {
      await fn(arg);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.error(`${name}: ${message}`);
      void vscode.window.showErrorMessage(`kube-windows: ${firstLine(message)}`);
    }
  };
}

/**
 * One command of a family's table: what it runs (with the family's runtime and the command's argument, a tree item or a
 * URI).
 */
export interface CommandEntry<R> {
  run: (rt: R, arg: unknown) => unknown;
  /**
   * Where the Command Palette shows it: everywhere when absent; false when it needs a tree item (hidden);
   * else package.json's when-clause. test/unit/package-conventions.test.ts holds package.json to it.
   */
  palette?: false | string;
}

/** A family's commands, declared once: command id -> entry. */
export type CommandTable<R> = Readonly<Record<`kubeWindows.${string}`, CommandEntry<R>>>;

/**
 * Registers a family's table, each command guarded (a failure is one error line, logged in full under the id's own
 * name).
 */
export function registerCommands<R>(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  table: CommandTable<R>,
  rt: R,
): void {
  for (const [id, entry] of Object.entries<CommandEntry<R>>(table)) {
    context.subscriptions.push(
      vscode.commands.registerCommand(
        id,
        guarded(log, id.slice('kubeWindows.'.length), async (arg) => {
          await entry.run(rt, arg);
        }),
      ),
    );
  }
}

/** What each command family keeps for the window's lifetime. */
export interface CommandRuntime<D> {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  /** The engine-backed dependencies, loaded on the first command, once; overrides (tests) win. */
  deps: () => Promise<D>;
  /** Output channels by name, disposed with the extension. */
  channels: Map<string, vscode.OutputChannel>;
  /** Key paths whose passphrase the user declined to remember in this session: asked once. */
  declined: Set<string>;
}

export function commandRuntime<D>(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  load: () => Promise<D>,
  overrides?: Partial<D>,
): CommandRuntime<D> {
  let loaded: Promise<D> | undefined;
  const channels = new Map<string, vscode.OutputChannel>();
  context.subscriptions.push({ dispose: () => channels.forEach((c) => c.dispose()) });
  return {
    context,
    log,
    deps: () => (loaded ??= load().then((d) => ({ ...d, ...overrides }))),
    channels,
    declined: new Set(),
  };
}

/**
 * The named engine functions, as the engine module types them: what a family's deps take from it (tests replace any of
 * them).
 */
export function engineFunctions<const K extends keyof typeof Engine>(
  e: typeof Engine,
  names: readonly K[],
): Pick<typeof Engine, K> {
  return Object.fromEntries(names.map((name) => [name, e[name]])) as Pick<typeof Engine, K>;
}

/** SSH to a host through the engine, and a check of a key's passphrase (before offering to remember it). */
export function sshAccess(e: typeof Engine) {
  return {
    host: (options: ConstructorParameters<typeof Engine.SshConnector>[0]) =>
      new e.WindowsHost(new e.SshConnector(options)),
    checkPassphrase: async (keyPath: string, passphrase: string): Promise<boolean> => {
      try {
        await e.loadPrivateKey(keyPath, async (_path, attempt) => (attempt === 1 ? passphrase : undefined));
        return true;
      } catch {
        return false;
      }
    },
  };
}

export type ContextList = { ok: true; names: string[]; current?: string } | { ok: false; message: string };

/**
 * The kubeconfig as the cluster view reads it (the kubeWindows.kubeconfig setting, else kubectl's rules); clusters
 * opened as the CLI opens them.
 */
export function kubeconfigAccess(e: typeof Engine) {
  const locate = () => ({ explicit: readConfig().kubeconfig });
  /** A client for the context and its config (no CA read: only kubeadm discovery needs that). */
  const client = (context: string) => {
    const { kube, config } = e.openCluster({ context, locate: locate() });
    return { kube, config };
  };
  return {
    client,
    contexts: async (): Promise<ContextList> => {
      const loaded = e.loadKubeconfig(locate());
      if (!loaded.ok) return { ok: false, message: loaded.message };
      return {
        ok: true,
        names: loaded.contexts.map((c) => c.name),
        ...(loaded.currentContext ? { current: loaded.currentContext } : {}),
      };
    },
    /** A client for the context, and its CA (for kubeadm discovery), as the CLI's clusterFor does. */
    cluster: async (context: string) => {
      const { kube, config, caPem } = e.openCluster({ context, locate: locate(), readCa: true });
      return { kube, config, ...(caPem ? { caPem } : {}) };
    },
  };
}

/**
 * The engine module. In the extension build `./engine-bundle` is external and resolves to dist/engine.js
 * (see scripts/build.mjs), loaded on the first command; tests bundle it in.
 */
export function loadEngine(): Promise<typeof import('./engine-bundle')> {
  // require, not import(): the extension host loads CommonJS bundles, and a sync require of the
  // sibling bundle is what esbuild leaves external.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return Promise.resolve().then(() => require('./engine-bundle') as typeof import('./engine-bundle'));
}

/**
 * Words for a failure, the CLI's words (cluster/errors.ts). An error already worded needs nothing more; the others
 * are classified by the engine's copy (its errors' classes are the ones it threw), loaded only for them.
 */
export async function userMessage(err: unknown, context: string): Promise<string> {
  return ownWords(err) ?? (await loadEngine()).userMessage(err, context);
}

/** The context (and node) a tree item stands for: ids are `ctx/<context>` and `ctx/<context>/node/<name>`. */
export function parseItem(arg: unknown): { context?: string; node?: string; openshift?: boolean } {
  if (typeof arg === 'string') return { context: arg };
  const item = arg as Partial<TreeNode> | undefined;
  const ref = item?.ref;
  if (!ref || ref.kind === 'kubeconfig') return {};
  if (ref.kind === 'cluster') return { context: ref.context, openshift: item.contextValue === 'cluster.openshift' };
  // A command on a Windows node item acts on that node; other items only name their cluster.
  return ref.kind === 'node' ? { context: ref.context, node: ref.node } : { context: ref.context };
}

/**
 * The cluster a command works on: the tree item's, else the user's pick among the kubeconfig's
 * contexts (the current one first). Undefined when the user cancelled or there is nothing to pick
 * (then an error message said why).
 */
export async function pickContext(contexts: () => Promise<ContextList>, arg: unknown): Promise<string | undefined> {
  const fromItem = parseItem(arg).context;
  if (fromItem) return fromItem;
  const list = await contexts();
  if (!list.ok) {
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(list.message)}`);
    return undefined;
  }
  if (list.names.length === 0) {
    void vscode.window.showErrorMessage(
      'kube-windows: the kubeconfig has no contexts. Log in to a cluster first (for example `oc login`).',
    );
    return undefined;
  }
  const names = [...list.names].sort((a, b) => (a === list.current ? -1 : b === list.current ? 1 : 0));
  const picked = await vscode.window.showQuickPick(
    names.map((name) => ({ label: name, ...(name === list.current ? { description: 'current context' } : {}) })),
    { title: 'kube-windows: which cluster?', placeHolder: 'A context of your kubeconfig', ignoreFocusOut: true },
  );
  return picked?.label;
}

/** One output channel per operation (name), in the plan/log language. */
export function channelFor(rt: { channels: Map<string, vscode.OutputChannel> }, name: string): vscode.OutputChannel {
  let channel = rt.channels.get(name);
  if (!channel) {
    channel = vscode.window.createOutputChannel(name, PLAN_LANGUAGE);
    rt.channels.set(name, channel);
  }
  return channel;
}

/**
 * Runs work (a plan) on a host: whatever happens, the host is closed and the offer to remember the
 * key's passphrase is settled. What the work returned, or what it threw.
 */
export async function onHost<T>(
  host: { close(): void } | undefined,
  prompts: { settled(): Promise<void> } | undefined,
  work: () => Promise<T>,
): Promise<{ result?: T; thrown?: unknown }> {
  try {
    return { result: await work() };
  } catch (err) {
    return { thrown: err };
  } finally {
    host?.close();
    await prompts?.settled();
  }
}

export type RunFn = (options: { signal: AbortSignal; onEvent: (e: RunEvent) => void }) => Promise<RunResult>;

/** Runs under a cancellable notification; every event goes to the channel as a plan-log line. */
export async function runWithProgress(title: string, channel: vscode.OutputChannel, run: RunFn): Promise<RunResult> {
  const { renderLog } = await loadEngine();
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    async (progress, token) => {
      const ctl = new AbortController();
      const sub = token.onCancellationRequested(() => ctl.abort(new Error('cancelled by the user')));
      let total = 1;
      let step = '';
      const onEvent = (e: RunEvent) => {
        channel.appendLine(renderLog([e]).replace(/\n$/, ''));
        switch (e.type) {
          case 'plan-start':
            total = Math.max(1, e.steps.length);
            break;
          case 'step-start':
            step = `step ${e.index}/${e.total}: ${e.title}`;
            progress.report({ message: step });
            break;
          case 'log': {
            const line = e.message.length > 100 ? `${e.message.slice(0, 99)}…` : e.message;
            progress.report({ message: step ? `${step} — ${line}` : line });
            break;
          }
          case 'step-end':
            progress.report({ increment: 100 / total });
            break;
          default:
            break;
        }
      };
      try {
        return await run({ signal: ctl.signal, onEvent });
      } finally {
        sub.dispose();
      }
    },
  );
}

/** The argument a node command takes from a tree item: what parseItem reads. */
export const nodeArg = (context: string, node: string) => ({ ref: { kind: 'node' as const, context, node } });

/**
 * The words after a cancelled run: where it stopped and the state it leaves (the engine's aftermath: the last step that
 * changed something, never "run it again" alone), with the undo named as its button says.
 */
export function cancelledText(what: string, result: RunResult): string {
  const a = result.aftermath;
  if (!a) return `${what} was cancelled.`;
  const undo = a.undo ? ` “${a.undo.label}” undoes it.` : '';
  return `${what} was cancelled during “${a.stoppedAt.title}”. ${a.state}${undo}`;
}

/**
 * Shows a stopped run's message (the cancel's truth, or the failure with what it left) with the undo as the first
 * button, then `buttons`; runs the undo itself (on the node, as the tree item would) and returns any other choice.
 */
export async function showStopped(
  context: string,
  text: string,
  result: RunResult | undefined,
  buttons: readonly string[],
): Promise<string | undefined> {
  const undo = result?.aftermath?.undo;
  const items = [...(undo ? [undo.label] : []), ...buttons];
  const message = `kube-windows: ${text}`;
  const choice = await (result?.outcome === 'cancelled'
    ? result.aftermath?.changed
      ? vscode.window.showWarningMessage(message, ...items)
      : vscode.window.showInformationMessage(message, ...items)
    : vscode.window.showErrorMessage(message, ...items));
  if (undo && choice === undo.label) {
    await vscode.commands.executeCommand(undo.command, nodeArg(context, undo.node));
    return undefined;
  }
  return choice;
}
