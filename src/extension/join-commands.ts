// "Join Windows node", "Show join plan" and "Remove node": VS Code glue over the bootstrap engine
// (src/bootstrap). The questions, prompts, progress and output channels live here; what a join does
// lives in the engine. The engine and the cluster code are loaded on first use only (dynamic
// imports), so registering these commands costs nothing at activation.
//
// Secrets: an SSH key passphrase is kept in SecretStorage only when the user says so; globalState
// holds the key file PATH per context and nothing else. Nothing secret reaches settings, logs or
// messages (the engine redacts its events; we only ever show err.message first lines).
import * as vscode from 'vscode';
import { readConfig, wmcoSettings } from './config';
import {
  cancelledText,
  channelFor,
  firstLine,
  kubeconfigAccess,
  loadEngine,
  onHost,
  parseItem,
  PLAN_LANGUAGE,
  runWithProgress,
  showStopped,
  sshAccess,
  userMessage,
  commandRuntime,
  engineFunctions,
  registerCommands,
  type CommandRuntime,
  type CommandTable,
} from './command-kit';
import { instanceKeyFor } from '../core/windows/join-input';
import type { KubeClient } from '../cluster/kube-client';
import type { JoinPlan, JoinRequest, JoinVia } from '../bootstrap/join';
import type * as Engine from './engine-bundle';
import type { NodeObject } from '../cluster/nodes';
import type { Payload } from '../bootstrap/payload';
import type { Secret } from '../bootstrap/plan';
// Pure and tiny (types only below it): safe in the activation bundle.
import { firstOffer, runFailureSummary, type Finding } from '../bootstrap/preflight';
import { formatFindings } from '../core/windows/findings';
import { counted } from '../core/plural';
import { joinedWords, removalDetail } from '../bootstrap/join-words';
import type { WmcoInstallOptions } from '../bootstrap/wmco-install';
import type { SshConnectorOptions } from '../remote/ssh';
import type { WindowsHost } from '../remote/windows-host';
import { keyStep, rememberedUser, rememberLogin, sshPrompts, userStep, type Prompts } from './ssh-prompts';
import { runSteps } from './multi-step-input';
import { offerWmcoSetup } from './wmco-setup';
import { addressStep, askJoin, shownProxy, type RemoveAnswers } from './join-questions';

const SHOW_LOG = 'Show log';
const RUN_AGAIN = 'Run again';

export interface ClusterHandle {
  kube: KubeClient;
  /** The cluster CA from the kubeconfig (kubeadm discovery when cluster-info is not readable). */
  caPem?: string;
}

/** The engine functions these commands call. */
const ENGINE = [
  'detectVia',
  'joinPlan',
  'dryRunFindings',
  'removePlanFor',
  'resolvePayload',
  'getNode',
  'windowsInstances',
  'byohClusterProxy',
  'kubeadmNoProxyIncluded',
] as const;

/**
 * The seam between these commands and the engine: its own functions, typed by the engine module
 * (joinPlan; dryRunFindings, the read-only cluster preflight a plan shows above its steps ...), and
 * access to clusters and hosts. The defaults are the real modules, loaded on first use; tests pass
 * replacements (for example a joinPlan whose run plays events) so that no cluster or SSH server is
 * needed. Nothing here decides what a join does.
 */
export interface JoinDeps extends Pick<typeof Engine, (typeof ENGINE)[number]> {
  /** Kubeconfig contexts (the kubeWindows.kubeconfig setting, else KUBECONFIG, else ~/.kube/config). */
  contexts(): Promise<{ ok: true; names: string[]; current?: string } | { ok: false; message: string }>;
  cluster(context: string): Promise<ClusterHandle>;
  /** A WindowsHost over SSH with these options (nothing connects until the plan runs). */
  host(options: SshConnectorOptions): WindowsHost;
  /** Whether the passphrase opens the key file (decides whether to offer remembering it). */
  checkPassphrase(keyPath: string, passphrase: string): Promise<boolean>;
  /** A Secret holding text (the cloud-private-key PEM). */
  secret(value: string): Secret;
}

async function defaultDeps(): Promise<JoinDeps> {
  const e = await loadEngine();
  const kc = kubeconfigAccess(e);
  return {
    ...engineFunctions(e, ENGINE),
    contexts: kc.contexts,
    cluster: kc.cluster,
    ...sshAccess(e),
    secret: (value) => new e.Secret(value),
  };
}

function isPreflightError(err: unknown): err is Error & { findings: Finding[] } {
  return (
    err instanceof Error && err.name === 'PreflightError' && Array.isArray((err as { findings?: unknown }).findings)
  );
}

export interface Answers {
  context: string;
  cluster: ClusterHandle;
  via: JoinVia;
  address: string;
  user: string;
  keyPath?: string;
  payload?: Payload;
  taint?: boolean;
  runtimeClass?: boolean;
  /** kubeadm: --proxy (may carry credentials: shown only through redactProxyUrl) and --no-proxy. */
  proxy?: string;
  noProxy?: string;
}

export type Runtime = CommandRuntime<JoinDeps>;

/**
 * The join family's commands (package.json contributes them; test/unit/package-conventions.test.ts checks both agree).
 */
export const JOIN_COMMANDS = {
  'kubeWindows.joinNode': { run: joinNode },
  'kubeWindows.showJoinPlan': { run: showJoinPlan },
  'kubeWindows.removeNode': { run: removeNode, palette: false },
} satisfies CommandTable<Runtime>;

export function registerJoinCommands(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  deps?: Partial<JoinDeps>,
): void {
  const rt: Runtime = commandRuntime(context, log, defaultDeps, deps);
  registerCommands(context, log, JOIN_COMMANDS, rt);
  context.subscriptions.push(
    // Dry-run plans are read-only virtual documents: nothing to save, nothing to edit by mistake.
    vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, {
      provideTextDocumentContent: (uri: vscode.Uri) => planDocs.get(uri.toString()) ?? '# no longer available\n',
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Running a plan

/** The engine's request for what the user answered: the same for running the join and for showing its plan. */
function joinRequest(a: Answers, host: JoinRequest['host']): JoinRequest {
  return {
    kube: a.cluster.kube,
    host,
    address: a.address,
    user: a.user,
    via: a.via,
    wmco: wmcoSettings(),
    sshPort: readConfig().ssh.port,
    ...(a.payload ? { payload: a.payload } : {}),
    ...(a.taint ? { taint: true } : {}),
    ...(a.runtimeClass ? { runtimeClass: true } : {}),
    ...(a.proxy ? { proxy: a.proxy } : {}),
    ...(a.noProxy ? { noProxy: a.noProxy } : {}),
    ...(a.cluster.caPem ? { caPem: a.cluster.caPem } : {}),
  };
}

async function joinNode(rt: Runtime, arg: unknown): Promise<void> {
  const a = await askJoin(rt, arg, true);
  if (!a) return;
  const deps = await rt.deps();
  const channel = channelFor(rt, `kube-windows: join ${a.address}`);
  const prompts = sshPrompts(rt, (k, p) => deps.checkPassphrase(k, p));
  let extra: { installWmco?: WmcoInstallOptions; privateKey?: { pem: Secret; source: string } } = {};
  rt.log.info(`join ${a.address} (${a.via}) to ${a.context}${proxyWords(a)}: started`);

  for (;;) {
    const host = deps.host({
      host: a.address,
      username: a.user,
      ...(a.keyPath ? { privateKeyPath: a.keyPath } : {}),
      ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
      ...prompts.options,
    });
    const request: JoinRequest = { ...joinRequest(a, host), ...extra };
    let plan = undefined as JoinPlan | undefined;
    const { result, thrown } = await onHost(host, prompts, async () => {
      const p = deps.joinPlan(request);
      plan = p;
      return runWithProgress(`kube-windows: joining ${a.address} to ${a.context}`, channel, (o) => p.run(o));
    });

    if (result?.outcome === 'done') {
      await joinedMessage(rt, a, plan?.state.findings ?? []);
      return;
    }
    if (prompts.declinedByUser()) {
      // The user said no to the host key or the passphrase: nothing to report.
      rt.log.info(`join ${a.address}: stopped (host key not trusted or passphrase not given)`);
      return;
    }
    if (result?.outcome === 'cancelled') {
      // The truth of what the run left: before the entry nothing changed; after it WMCO goes on and Remove node undoes it.
      const text = cancelledText(`joining ${a.address}`, result);
      rt.log.info(`join ${a.address}: ${text}`);
      const choice = await showStopped(a.context, text, result, [SHOW_LOG, RUN_AGAIN]);
      if (choice === RUN_AGAIN) continue;
      if (choice === SHOW_LOG) channel.show(true);
      return;
    }

    const findings = isPreflightError(thrown) ? thrown.findings : plan?.state.findings;
    const why = thrown === undefined ? undefined : await userMessage(thrown, a.context);
    const text = runFailureSummary(result, why, findings);
    rt.log.error(`join ${a.address}: ${text}`);
    const fix = firstOffer(findings);
    if (
      (fix?.offer === 'install-wmco' && !extra.installWmco) ||
      (fix?.offer === 'create-key-secret' && !extra.privateKey)
    ) {
      const setup = await offerWmcoSetup(rt, deps.secret, fix.offer, `${a.address}: ${text}`, [SHOW_LOG], a.keyPath);
      if (typeof setup === 'object') {
        extra = { ...extra, ...setup };
        continue;
      }
      if (setup === SHOW_LOG) channel.show(true);
      return;
    }
    // A failure after the entry was written leaves WMCO at work too: say so, and offer the undo.
    const left = result?.aftermath?.changed ? ` ${result.aftermath.state}` : '';
    const choice = await showStopped(a.context, `joining ${a.address} failed: ${text}${left}`, result, [
      SHOW_LOG,
      RUN_AGAIN,
    ]);
    if (choice === RUN_AGAIN) continue; // the plan's checks skip the steps already done
    if (choice === SHOW_LOG) channel.show(true);
    return;
  }
}

const SHOW_DETAILS = 'Show details';

/**
 * The end of a join that succeeded: "joined", or "joined, with N warnings" (the preflight's, such as WMCO's port 22
 * or a missing PTR record) with "Show details", which opens them with their fixes: they must not stay in a log.
 */
async function joinedMessage(rt: Runtime, a: Answers, findings: readonly Finding[]): Promise<void> {
  const words = joinedWords(a.address, a.context, findings);
  if (!words.details) {
    rt.log.info(`join ${a.address}: done`);
    void vscode.window.showInformationMessage(`kube-windows: ${words.message}`);
    return;
  }
  rt.log.warn(
    `join ${a.address}: done, with ${counted(words.warnings.length, 'warning')}:\n${formatFindings(words.warnings)}`,
  );
  const choice = await vscode.window.showWarningMessage(`kube-windows: ${words.message}`, SHOW_DETAILS);
  if (choice !== SHOW_DETAILS) return;
  const uri = vscode.Uri.parse(`${PLAN_SCHEME}:/join-${encodeURIComponent(a.address)}-warnings-${++planCounter}.plan`);
  planDocs.set(uri.toString(), words.details);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, PLAN_LANGUAGE);
  await vscode.window.showTextDocument(doc, { preview: false });
}

async function showJoinPlan(rt: Runtime, arg: unknown): Promise<void> {
  const a = await askJoin(rt, arg, false);
  if (!a) return;
  const deps = await rt.deps();
  const { renderPlan } = await loadEngine();
  // A host object is needed to build the plan, but nothing connects: the plan is not run.
  const host = deps.host({ host: a.address, username: a.user });
  let text: string;
  try {
    // kubeadm: the cluster part of the preflight only reads; its findings go above the plan, and
    // its decisions (the CNI) make the plan show the objects it would create.
    let header = '';
    let planned: JoinRequest['planned'];
    try {
      const read = await deps.dryRunFindings(joinRequest(a, host));
      planned = read.planned;
      if (read.findings.length > 0) header = `${formatFindings(read.findings).replace(/^/gm, '# ')}\n\n`;
    } catch (err) {
      header = `# The cluster preflight could not run: ${firstLine(await userMessage(err, a.context))}\n\n`;
    }
    const p = deps.joinPlan({ ...joinRequest(a, host), ...(planned ? { planned } : {}) });
    // The answers a plan's previews show as placeholders: the proxy (password hidden) and what NO_PROXY adds.
    if (a.proxy) header += `# Proxy for containerd and the kubelet:${proxyWords(a).replace(/^ with proxy/, '')}\n\n`;
    text = header + renderPlan(p);
  } finally {
    host.close();
  }
  // A new URI each time: an open plan of an earlier run stays as it was.
  const uri = vscode.Uri.parse(`${PLAN_SCHEME}:/join-${encodeURIComponent(a.address)}-${++planCounter}.plan`);
  planDocs.set(uri.toString(), text);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, PLAN_LANGUAGE);
  await vscode.window.showTextDocument(doc, { preview: false });
}

/** The proxy a kubeadm join sets, for logs and the plan's header: its password never shown. */
function proxyWords(a: Answers): string {
  if (!a.proxy) return '';
  return ` with proxy ${shownProxy(a.proxy)}${a.noProxy ? ` (NO_PROXY adds ${a.noProxy})` : ''}`;
}

export const PLAN_SCHEME = 'kube-windows-plan';
const planDocs = new Map<string, string>();
let planCounter = 0;

// ---------------------------------------------------------------------------------------------
// Remove

async function removeNode(rt: Runtime, arg: unknown): Promise<void> {
  const { context, node: name } = parseItem(arg);
  if (!context || !name) {
    void vscode.window.showInformationMessage(
      'kube-windows: run "Remove node" on a Windows node in the Clusters view.',
    );
    return;
  }
  const deps = await rt.deps();
  let cluster: ClusterHandle;
  let via: JoinVia;
  let node: NodeObject | undefined;
  try {
    cluster = await deps.cluster(context);
    [via, node] = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `kube-windows: reading ${name}…` },
      () => Promise.all([deps.detectVia(cluster.kube), deps.getNode(cluster.kube, name)]),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, context))}`);
    return;
  }
  const internal = node?.status?.addresses?.find((x) => x.type === 'InternalIP')?.address;

  let address: string;
  let makeHost: (() => WindowsHost) | undefined;
  let prompts: Prompts | undefined;
  if (via === 'byoh') {
    let instances: Record<string, string> | undefined;
    try {
      instances = await deps.windowsInstances(cluster.kube);
    } catch (err) {
      void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, context))}`);
      return;
    }
    const key = instanceKeyFor(node, name, Object.keys(instances ?? {}));
    if (!key) {
      const where = (node?.status?.addresses ?? []).map((x) => x.address).join(', ');
      void vscode.window.showErrorMessage(
        `kube-windows: no windows-instances entry matches ${name}${where ? ` (addresses ${where})` : ''}. It was not joined with BYOH: a Machine-managed node is removed by scaling its MachineSet down.`,
      );
      return;
    }
    address = key;
  } else {
    // kubeadm: whether to reset the host too (then how to reach it), as one multi-step input.
    const r = await runSteps<RemoveAnswers>(
      [
        {
          kind: 'pick',
          key: 'reset',
          title: `kube-windows: remove ${name}`,
          items: () => [
            {
              value: false,
              label: 'Cordon and delete the Node',
              detail: 'The host keeps kubelet installed; it cannot rejoin until it is reset.',
            },
            {
              value: true,
              label: 'Also run kubeadm reset on the host',
              detail:
                'Connects over SSH (address, user and key asked next), runs kubeadm reset and removes the kubelet service.',
            },
          ],
        },
        { ...addressStep<RemoveAnswers>(internal ?? name), when: (x) => x.reset === true },
        { ...userStep<RemoveAnswers>(() => rememberedUser(rt.context, context)), when: (x) => x.reset === true },
        { ...keyStep<RemoveAnswers>(rt.context, () => context), when: (x) => x.reset === true },
      ],
      { via: 'kubeadm' },
    );
    if (!r) return;
    address = internal ?? name;
    if (r.reset) {
      await rememberLogin(rt.context, context, r.user, r.keyPath);
      const at = r.address;
      address = at;
      const p = sshPrompts(rt, (k, p) => deps.checkPassphrase(k, p));
      prompts = p;
      makeHost = () =>
        deps.host({
          host: at,
          username: r.user,
          privateKeyPath: r.keyPath,
          ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
          ...p.options,
        });
    }
  }

  // The confirmation comes last, after every question, and says what this removal does on this cluster.
  const remove = 'Remove node';
  const confirm = await vscode.window.showWarningMessage(
    `Remove the Windows node ${name} from ${context}?`,
    {
      modal: true,
      detail: removalDetail(via, address, makeHost !== undefined),
    },
    remove,
  );
  if (confirm !== remove) return;

  const channel = channelFor(rt, `kube-windows: remove ${name}`);
  rt.log.info(`remove ${name} (${via}, ${address}) from ${context}: started`);
  for (;;) {
    const host = makeHost?.();
    const { result, thrown } = await onHost(host, prompts, async () => {
      const r = await deps.removePlanFor({
        kube: cluster.kube,
        via,
        address,
        nodeName: name,
        wmco: wmcoSettings(),
        ...(host ? { host } : {}),
      });
      return runWithProgress(`kube-windows: removing ${name} from ${context}`, channel, (o) => r.run(o));
    });
    if (result?.outcome === 'done') {
      void vscode.window.showInformationMessage(`kube-windows: ${name} was removed from ${context}.`);
      return;
    }
    if (prompts?.declinedByUser()) return;
    const text =
      result?.outcome === 'cancelled'
        ? cancelledText(`removing ${name}`, result)
        : `removing ${name} failed: ${runFailureSummary(result, thrown === undefined ? undefined : await userMessage(thrown, context), undefined)}`;
    rt.log.error(`remove ${name}: ${text}`);
    const choice = await showStopped(context, text, result, [SHOW_LOG, RUN_AGAIN]);
    if (choice === RUN_AGAIN) continue;
    if (choice === SHOW_LOG) channel.show(true);
    return;
  }
}
