// Windows MachineSets on OpenShift in VS Code: "Create Windows MachineSet…" on a cluster (questions,
// then the MachineSet opens as an untitled YAML editor where the language server's MachineSet rules
// show inline, and "Create in <context>" creates it from the editor's text and follows its Machines),
// "Follow" and "Scale…" on a MachineSet item, "Delete Machine" on a Machine item. VS Code glue only:
// what a Windows MachineSet is, how it is built, created and followed lives in the engine
// (src/bootstrap/machineset-*.ts, src/cluster/machinesets.ts, src/core/openshift), loaded on first use.
import * as vscode from 'vscode';
import { readConfig, wmcoSettings } from './config';
import {
  channelFor,
  commandRuntime,
  firstLine,
  kubeconfigAccess,
  loadEngine,
  pickContext,
  runWithProgress,
  userMessage,
  registerCommands,
  engineFunctions,
  type CommandRuntime,
  type CommandTable,
} from './command-kit';
import type { ClusterHandle } from './join-commands';
import { offerWmcoSetup } from './wmco-setup';
import { runSteps, type Step } from './multi-step-input';
import { draftName, openDraft } from './drafts';
import { counted } from '../core/plural';
import { proxyAllows, proxyChannel, proxyReviewLine, SHOW_FINDINGS, writeFindings } from './machineset-proxy';
import type * as Engine from './engine-bundle';
import type { TreeNode, TreeRef } from '../views/cluster-item';
import type { Secret } from '../bootstrap/plan';
import type { MachineApiObject } from '../core/openshift/windows-machineset';
import type { RunEvent, RunResult } from '../bootstrap/runner';

const SHOW_LOG = 'Show log';
export const FOLLOW_AGAIN = 'Follow again';
export const CREATE_ANYWAY = 'Create anyway';
export const SCALE = 'Scale';
export { SHOW_FINDINGS } from './machineset-proxy';
export const DELETE_MACHINE = 'Delete Machine';
/**
 * Internal: reads a context's Windows MachineSets again, with (context, MachineSet name?); registered by the cluster
 * view.
 */
export const REFRESH_MACHINESETS_COMMAND = 'kubeWindows.refreshMachineSets';
const APPLY_COMMAND = 'kubeWindows.applyMachineSet';

/** The engine functions these commands call. */
const ENGINE = [
  'machineSetSources',
  'creationRefusals',
  'prepareWindowsMachineSet',
  'machineSetProxyFindings',
  'machineSetFromText',
  'createWindowsMachineSet',
  'followMachineSet',
  'wmcoSetupPlan',
  'getScale',
  'scaleMachineSet',
  'scaleConsequence',
  'getMachine',
  'deleteMachine',
  'imageHelp',
  'imageProblem',
  'nameProblem',
  'platformTitle',
  'machineView',
] as const;

/**
 * The seam to the engine (tests pass replacements): its own functions, typed by the engine module, and access to
 * clusters.
 */
export interface MachineSetDeps extends Pick<typeof Engine, (typeof ENGINE)[number]> {
  contexts: ReturnType<typeof kubeconfigAccess>['contexts'];
  cluster(context: string): Promise<ClusterHandle>;
  secret(value: string): Secret;
  /** How often a follow polls the Machines (ms); the engine's default when unset. */
  followPollMs?: number;
}

async function defaultDeps(): Promise<MachineSetDeps> {
  const e = await loadEngine();
  const kc = kubeconfigAccess(e);
  return {
    ...engineFunctions(e, ENGINE),
    contexts: kc.contexts,
    cluster: kc.cluster,
    secret: (value) => new e.Secret(value),
  };
}

/** An untitled MachineSet editor made by "Create Windows MachineSet…": the cluster it is for. */
interface Draft {
  context: string;
  name: string;
}

interface Runtime extends CommandRuntime<MachineSetDeps> {
  /** Drafts by document URI. */
  drafts: Map<string, Draft>;
  lensesChanged: vscode.EventEmitter<void>;
}

/**
 * The MachineSet family's commands (package.json contributes them; test/unit/package-conventions.test.ts checks both
 * agree).
 */
export const MACHINESET_COMMANDS = {
  'kubeWindows.createMachineSet': { run: createMachineSet },
  'kubeWindows.applyMachineSet': { run: applyMachineSet, palette: 'editorLangId == yaml' },
  'kubeWindows.followMachineSet': { run: followFromItem, palette: false },
  'kubeWindows.scaleMachineSet': { run: scaleFromItem, palette: false },
  'kubeWindows.deleteMachine': { run: deleteFromItem, palette: false },
} satisfies CommandTable<Runtime>;

export function registerMachineSetCommands(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  deps?: Partial<MachineSetDeps>,
): void {
  const lensesChanged = new vscode.EventEmitter<void>();
  const rt: Runtime = { ...commandRuntime(context, log, defaultDeps, deps), drafts: new Map(), lensesChanged };
  registerCommands(context, log, MACHINESET_COMMANDS, rt);
  context.subscriptions.push(
    lensesChanged,
    // "Create in <context>" above the first line of each draft.
    vscode.languages.registerCodeLensProvider(
      { language: 'yaml' },
      {
        onDidChangeCodeLenses: lensesChanged.event,
        provideCodeLenses: (doc) => {
          const draft = rt.drafts.get(doc.uri.toString());
          if (!draft) return [];
          const title = `$(cloud-upload) Create in ${draft.context}`;
          return [
            new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { title, command: APPLY_COMMAND, arguments: [doc.uri] }),
          ];
        },
      },
    ),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (rt.drafts.delete(doc.uri.toString())) lensesChanged.fire();
    }),
  );
}

const wmcoNamespace = (): string | undefined => readConfig().wmco.namespace || undefined;

/** The tree item's reference (commands on MachineSet and Machine items). */
function refOf(arg: unknown): TreeRef | undefined {
  return (arg as Partial<TreeNode> | undefined)?.ref;
}

async function fail(err: unknown, context: string, what: string): Promise<void> {
  const text = await userMessage(err, context);
  void vscode.window.showErrorMessage(`kube-windows: ${what}: ${firstLine(text)}`);
}

const refreshTree = (context: string, name?: string): Thenable<unknown> =>
  vscode.commands.executeCommand(REFRESH_MACHINESETS_COMMAND, context, name);

/**
 * Nothing refuses creating a Windows MachineSet any more (WMCO installed, cloud-private-key present),
 * after the join command's WMCO setup when what is missing was offered and accepted. False: refused
 * (the message said why) or the user declined.
 */
async function creationAllowed(
  rt: Runtime,
  deps: MachineSetDeps,
  context: string,
  cluster: ClusterHandle,
): Promise<boolean> {
  for (let round = 0; round < 3; round++) {
    const [refusal] = await deps.creationRefusals(cluster.kube, wmcoNamespace());
    if (!refusal) return true;
    const setup = await offerWmcoSetup(
      rt,
      deps.secret,
      refusal.offer,
      `a Windows MachineSet cannot be created in ${context}: ${refusal.message}`,
      [],
    );
    if (typeof setup !== 'object') return false;
    const channel = channelFor(rt, `kube-windows: WMCO setup ${context}`);
    const plan = deps.wmcoSetupPlan({ kube: cluster.kube, wmco: wmcoSettings(), ...setup });
    const result = await runWithProgress(`kube-windows: setting up WMCO in ${context}`, channel, (o) => plan.run(o));
    if (result.outcome !== 'done') {
      const choice = await vscode.window.showErrorMessage(
        `kube-windows: the WMCO setup of ${context} ${result.outcome === 'cancelled' ? `was cancelled. ${result.aftermath?.state ?? ''}`.trim() : `failed: ${firstLine(result.error?.message ?? 'unknown error')}`}`,
        SHOW_LOG,
      );
      if (choice === SHOW_LOG) channel.show(true);
      return false;
    }
  }
  return false;
}

/**
 * Nothing refuses the creation now: WMCO and its key (creationAllowed), then the cluster's proxy (a Machine could use
 * it; the findings go to the context's proxy channel whatever they are). False: refused, the message said why.
 */
async function readyToCreate(
  rt: Runtime,
  deps: MachineSetDeps,
  context: string,
  cluster: ClusterHandle,
  refused: string,
): Promise<boolean> {
  if (!(await creationAllowed(rt, deps, context, cluster))) return false;
  const findings = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `kube-windows: checking the proxy of ${context}…` },
    () => deps.machineSetProxyFindings(cluster.kube),
  );
  return proxyAllows(rt, context, findings, refused);
}

// ---------------------------------------------------------------------------------------------
// Create: questions, then a draft editor

/** What "Create Windows MachineSet…" asks once the cluster is read. */
interface CreateAnswers {
  from: string;
  image: string;
  name: string;
  replicas: number;
}

/** The questions, as data: the Linux MachineSet to start from, the image, the name (its real default), the replicas. */
function createSteps(deps: MachineSetDeps, context: string, sources: Engine.MachineSetSources): Step<CreateAnswers>[] {
  const platform = sources.platform;
  const title = deps.platformTitle(platform);
  const where = sources.region ? { region: sources.region } : {};
  const short = platform === 'Azure' || platform === 'VSphere';
  return [
    {
      kind: 'pick',
      key: 'from',
      title: `kube-windows: the Linux worker MachineSet to start from (${context})`,
      placeholder:
        'Its network, credentials, zone and size are copied; the image, labels and user data become Windows ones',
      items: () =>
        sources.linuxWorkers.map((name, i) => ({
          value: name,
          label: name,
          description: `${i === 0 ? 'default · ' : ''}Windows MachineSet ${sources.defaultNames[name] ?? ''}`,
        })),
    },
    {
      kind: 'input',
      key: 'image',
      title: `kube-windows: Windows Server image on ${title}`,
      prompt: deps.imageHelp(platform, where),
      placeholder: IMAGE_EXAMPLES[platform] ?? '',
      validate: (v) => deps.imageProblem(platform, v),
    },
    {
      kind: 'input',
      key: 'name',
      title: 'kube-windows: name of the Windows MachineSet',
      // The real default, computed from the cluster's infrastructure name and the Linux MachineSet's zone.
      value: (a) => sources.defaultNames[a.from ?? ''] ?? '',
      prompt: (a) =>
        `Default ${sources.defaultNames[a.from ?? ''] ?? ''}${short ? `. On ${title} Windows machine names have at most 15 characters, so the MachineSet name at most 9.` : ', after the Linux one and its zone.'}`,
      validate: (v) => (v.trim() === '' ? undefined : deps.nameProblem(platform, v.trim())),
      parse: (v, a) => v.trim() || (sources.defaultNames[a.from ?? ''] ?? ''),
    },
    {
      kind: 'input',
      key: 'replicas',
      title: 'kube-windows: replicas (Windows Machines to make)',
      value: () => '1',
      validate: (v) => (/^\d{1,3}$/.test(v.trim()) ? undefined : 'A whole number, 0 or more.'),
      parse: (v) => Number(v.trim()),
    },
  ];
}

async function createMachineSet(rt: Runtime, arg: unknown): Promise<void> {
  const context = await pickContext(async () => (await rt.deps()).contexts(), arg);
  if (!context) return;
  const deps = await rt.deps();
  let cluster: ClusterHandle;
  let sources: Engine.MachineSetSources;
  try {
    cluster = await deps.cluster(context);
    sources = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `kube-windows: reading the MachineSets of ${context}…` },
      () => deps.machineSetSources(cluster.kube),
    );
    // Before the questions: nobody should answer them to be refused.
    if (!(await readyToCreate(rt, deps, context, cluster, `a Windows MachineSet cannot be created in ${context}`)))
      return;
  } catch (err) {
    await fail(err, context, `cannot create a Windows MachineSet in ${context}`);
    return;
  }

  const a = await runSteps(createSteps(deps, context, sources));
  if (!a) return;
  let prepared: Awaited<ReturnType<MachineSetDeps['prepareWindowsMachineSet']>>;
  try {
    const ns = wmcoNamespace();
    prepared = await deps.prepareWindowsMachineSet({
      kube: cluster.kube,
      image: a.image,
      from: a.from,
      ...(a.name && a.name !== sources.defaultNames[a.from] ? { name: a.name } : {}),
      replicas: a.replicas,
      ...(ns ? { wmcoNamespace: ns } : {}),
    });
  } catch (err) {
    await fail(err, context, `cannot create a Windows MachineSet in ${context}`);
    return;
  }
  const { built } = prepared;
  const proxy = prepared.proxy ?? [];
  const channel = proxyChannel(rt, context);
  writeFindings(channel, context, proxy, prepared.refusals);
  // An untitled YAML draft with a real name: the language server's MachineSet rules show inline as it is edited.
  // Opened even when the creation is refused now, so that the answers are not lost: "Create in" checks again.
  const doc = await openDraft(draftName('windows-machineset', built.name), prepared.yaml);
  rt.drafts.set(doc.uri.toString(), { context, name: built.name });
  rt.lensesChanged.fire();
  rt.log.info(`machineset draft ${built.name} (${built.platform}, from ${built.from}) for ${context}`);
  const create = `Create in ${context}`;
  const [refusal, ...more] = prepared.refusals;
  if (refusal) {
    for (const r of prepared.refusals) rt.log.error(`machineset ${built.name} in ${context}: ${r}`);
    const also = more.length ? ` (${counted(more.length, 'other reason')})` : '';
    const choice = await vscode.window.showErrorMessage(
      `kube-windows: MachineSet ${built.name} cannot be created in ${context} now: ${firstLine(refusal).replace(/\.$/, '')}${also}. The draft stays open; "${create}" checks again.`,
      SHOW_FINDINGS,
    );
    if (choice === SHOW_FINDINGS) channel.show(true);
    return;
  }
  const choice = await vscode.window.showInformationMessage(
    `kube-windows: review the Windows MachineSet ${built.name} (from ${built.from}); edit it if needed, then create it with "${create}" above its first line or here.${proxyReviewLine(proxy)}`,
    create,
    ...(proxy.length > 0 ? [SHOW_FINDINGS] : []),
  );
  if (choice === SHOW_FINDINGS) channel.show(true);
  if (choice === create) await applyMachineSet(rt, doc.uri);
}

const IMAGE_EXAMPLES: Record<string, string> = {
  AWS: 'ami-0123456789abcdef0',
  Azure: 'MicrosoftWindowsServer:WindowsServer:2022-datacenter:latest',
  GCP: 'projects/windows-cloud/global/images/family/windows-2022-core',
  VSphere: 'windows-golden-images/windows-server-2022-template',
  Nutanix: 'nutanix-windows-server-2022',
};

// ---------------------------------------------------------------------------------------------
// Apply: the draft editor's text, created and followed

async function applyMachineSet(rt: Runtime, arg: unknown): Promise<void> {
  const uri =
    arg instanceof Object && 'scheme' in arg ? (arg as vscode.Uri) : vscode.window.activeTextEditor?.document.uri;
  const doc = uri ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) : undefined;
  if (!uri || !doc) {
    void vscode.window.showInformationMessage(
      'kube-windows: open a Windows MachineSet in the editor first (right-click a cluster: Create Windows MachineSet…).',
    );
    return;
  }
  const draft = rt.drafts.get(uri.toString());
  const context = draft?.context ?? (await pickContext(async () => (await rt.deps()).contexts(), undefined));
  if (!context) return;
  const deps = await rt.deps();
  let parsed: { name: string; object: MachineApiObject };
  try {
    parsed = deps.machineSetFromText(doc.getText());
  } catch (err) {
    await fail(err, context, 'cannot create this MachineSet');
    return;
  }
  const errors = vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
  if (errors.length > 0) {
    const codes = [
      ...new Set(errors.map((d) => String(typeof d.code === 'object' ? d.code.value : (d.code ?? ''))).filter(Boolean)),
    ].join(', ');
    const choice = await vscode.window.showWarningMessage(
      `MachineSet ${parsed.name} has ${counted(errors.length, 'error')}${codes ? ` (${codes})` : ''}. Create it in ${context} anyway?`,
      { modal: true, detail: firstLine(errors[0]?.message ?? '') },
      CREATE_ANYWAY,
    );
    if (choice !== CREATE_ANYWAY) return;
  }
  let cluster: ClusterHandle;
  try {
    cluster = await deps.cluster(context);
    // Again here: the draft may be created long after it was made.
    if (!(await readyToCreate(rt, deps, context, cluster, `MachineSet ${parsed.name} cannot be created in ${context}`)))
      return;
  } catch (err) {
    await fail(err, context, `cannot create MachineSet ${parsed.name} in ${context}`);
    return;
  }
  const channel = channelFor(rt, `kube-windows: machineset ${parsed.name}`);
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `kube-windows: creating MachineSet ${parsed.name} in ${context}`,
        cancellable: false,
      },
      (progress) =>
        deps.createWindowsMachineSet(cluster.kube, parsed, undefined, (m) => {
          channel.appendLine(m);
          progress.report({ message: m });
        }),
    );
  } catch (err) {
    const text = await userMessage(err, context);
    rt.log.error(`create machineset ${parsed.name} in ${context}: ${text}`);
    const choice = await vscode.window.showErrorMessage(
      `kube-windows: the API server did not create MachineSet ${parsed.name} in ${context}: ${firstLine(text)}`,
      SHOW_LOG,
    );
    if (choice === SHOW_LOG) channel.show(true);
    return;
  }
  rt.log.info(`machineset ${parsed.name} created in ${context}`);
  if (rt.drafts.delete(uri.toString())) rt.lensesChanged.fire();
  await refreshTree(context, parsed.name);
  const replicas = parsed.object.spec?.replicas;
  await follow(rt, deps, context, cluster, parsed.name, typeof replicas === 'number' ? replicas : 1);
}

// ---------------------------------------------------------------------------------------------
// Follow, scale, delete

/** Follows the Machines under a cancellable notification; the tree shows each change. */
async function follow(
  rt: Runtime,
  deps: MachineSetDeps,
  context: string,
  cluster: ClusterHandle,
  name: string,
  expected?: number,
): Promise<void> {
  if (expected === 0) {
    void vscode.window.showInformationMessage(`kube-windows: MachineSet ${name} has 0 replicas: no Machine to follow.`);
    return;
  }
  const channel = channelFor(rt, `kube-windows: machineset ${name}`);
  const ns = wmcoNamespace();
  let result: RunResult;
  let nodes: Record<string, string> = {};
  try {
    result = await runWithProgress(`kube-windows: following the Machines of ${name}`, channel, async (o) => {
      const onEvent = (e: RunEvent) => {
        o.onEvent(e);
        // Each step and each Machine's progress changes what the MachineSet's item shows.
        if (e.type === 'log' || e.type === 'step-end') void refreshTree(context, name);
      };
      const r = await deps.followMachineSet({
        kube: cluster.kube,
        machineSet: name,
        ...(expected !== undefined ? { expected } : {}),
        ...(ns ? { wmcoNamespace: ns } : {}),
        ...(deps.followPollMs ? { pollMs: deps.followPollMs } : {}),
        signal: o.signal,
        onEvent,
      });
      nodes = r.nodes;
      return r.result;
    });
  } catch (err) {
    await fail(err, context, `following ${name} failed`);
    return;
  }
  await refreshTree(context, name);
  if (result.outcome === 'done') {
    const list = Object.entries(nodes).map(([m, n]) => `${m} → ${n}`);
    void vscode.window.showInformationMessage(
      `kube-windows: every Machine of ${name} is a Ready Windows node${list.length ? ` (${list.join(', ')})` : ''}.`,
    );
    return;
  }
  const text =
    result.outcome === 'cancelled'
      ? `stopped following ${name}; the MachineSet stays and its Machines go on.`
      : `${name}: ${result.error?.message ?? 'the follow failed'}`;
  rt.log[result.outcome === 'cancelled' ? 'info' : 'error'](`follow ${name} in ${context}: ${text}`);
  const message = `kube-windows: ${firstLine(text)}`;
  const choice = await (result.outcome === 'cancelled'
    ? vscode.window.showInformationMessage(message, SHOW_LOG, FOLLOW_AGAIN)
    : vscode.window.showErrorMessage(message, SHOW_LOG, FOLLOW_AGAIN));
  if (choice === SHOW_LOG) channel.show(true);
  if (choice === FOLLOW_AGAIN) await follow(rt, deps, context, cluster, name);
}

async function machineSetTarget(
  rt: Runtime,
  arg: unknown,
  what: string,
): Promise<{ context: string; name: string; deps: MachineSetDeps; cluster: ClusterHandle } | undefined> {
  const ref = refOf(arg);
  if (ref?.kind !== 'machineSet') {
    void vscode.window.showInformationMessage(
      `kube-windows: run "${what}" on a Windows MachineSet in the Clusters view.`,
    );
    return undefined;
  }
  const deps = await rt.deps();
  try {
    return { context: ref.context, name: ref.machineSet, deps, cluster: await deps.cluster(ref.context) };
  } catch (err) {
    await fail(err, ref.context, `${what} ${ref.machineSet}`);
    return undefined;
  }
}

async function followFromItem(rt: Runtime, arg: unknown): Promise<void> {
  const t = await machineSetTarget(rt, arg, 'Follow');
  if (t) await follow(rt, t.deps, t.context, t.cluster, t.name);
}

async function scaleFromItem(rt: Runtime, arg: unknown): Promise<void> {
  const t = await machineSetTarget(rt, arg, 'Scale');
  if (!t) return;
  const { context, name, deps, cluster } = t;
  let from: number;
  try {
    const scale = await deps.getScale(cluster.kube, name);
    if (!scale) {
      void vscode.window.showErrorMessage(`kube-windows: there is no MachineSet ${name} in ${context} any more.`);
      void refreshTree(context);
      return;
    }
    from = scale.spec?.replicas ?? 0;
  } catch (err) {
    await fail(err, context, `cannot read the replicas of ${name}`);
    return;
  }
  const typed = await vscode.window.showInputBox({
    title: `kube-windows: replicas of ${name} (now ${from})`,
    value: String(from),
    ignoreFocusOut: true,
    validateInput: (v) => (/^\d{1,3}$/.test(v.trim()) ? undefined : 'A whole number, 0 or more.'),
  });
  if (typed === undefined) return;
  const to = Number(typed.trim());
  if (to === from) {
    void vscode.window.showInformationMessage(
      `kube-windows: MachineSet ${name} already has ${counted(to, 'replica')}.`,
    );
    return;
  }
  const down = deps.scaleConsequence(from, to);
  const confirm = await vscode.window.showWarningMessage(
    `Scale MachineSet ${name} from ${from} to ${counted(to, 'replica')} in ${context}?`,
    { modal: true, detail: down },
    SCALE,
  );
  if (confirm !== SCALE) return;
  try {
    await deps.scaleMachineSet(cluster.kube, name, to);
  } catch (err) {
    await fail(err, context, `scaling ${name} failed`);
    return;
  }
  rt.log.info(`machineset ${name} in ${context} scaled from ${from} to ${to}`);
  await refreshTree(context, name);
  if (to > from) {
    const choice = await vscode.window.showInformationMessage(
      `kube-windows: MachineSet ${name} scaled from ${from} to ${counted(to, 'replica')}.`,
      'Follow',
    );
    if (choice === 'Follow') await follow(rt, deps, context, cluster, name, to);
  } else
    void vscode.window.showInformationMessage(
      `kube-windows: MachineSet ${name} scaled from ${from} to ${counted(to, 'replica')}.`,
    );
}

async function deleteFromItem(rt: Runtime, arg: unknown): Promise<void> {
  const ref = refOf(arg);
  if (ref?.kind !== 'machine') {
    void vscode.window.showInformationMessage(
      'kube-windows: run "Delete Machine" on a Machine of a Windows MachineSet in the Clusters view.',
    );
    return;
  }
  const { context, machine: name } = ref;
  const deps = await rt.deps();
  let cluster: ClusterHandle;
  let view: ReturnType<MachineSetDeps['machineView']>;
  try {
    cluster = await deps.cluster(context);
    const machine = await deps.getMachine(cluster.kube, name);
    if (!machine) {
      void vscode.window.showErrorMessage(`kube-windows: there is no Machine ${name} in ${context} any more.`);
      void refreshTree(context, ref.machineSet);
      return;
    }
    view = deps.machineView(machine);
  } catch (err) {
    await fail(err, context, `cannot read Machine ${name}`);
    return;
  }
  const what = `Machine ${name}${view.node ? ` (node ${view.node})` : ''}`;
  const confirm = await vscode.window.showWarningMessage(
    `Delete ${what} in ${context}?`,
    {
      modal: true,
      detail: `The machine controller drains the node and deletes the VM${view.machineSet ? `; MachineSet ${view.machineSet} then makes a new Machine` : ''}.`,
    },
    DELETE_MACHINE,
  );
  if (confirm !== DELETE_MACHINE) return;
  try {
    await deps.deleteMachine(cluster.kube, name);
  } catch (err) {
    await fail(err, context, `deleting ${name} failed`);
    return;
  }
  rt.log.info(`machine ${name} in ${context} deleted`);
  await refreshTree(context, ref.machineSet);
  void vscode.window.showInformationMessage(`kube-windows: ${what} deleted.`);
}
