// "Enforce Windows rules…" on a cluster: pick the rules and the action, preview the policies as YAML,
// then the server-side dry run and what changes, a modal confirmation, and server-side apply: the same
// generator and API calls as `kube-windows policy apply` (src/core/policy, src/cluster/admission-policies).
import * as vscode from 'vscode';
import { version } from '../../package.json';
import {
  commandRuntime,
  engineFunctions,
  firstLine,
  kubeconfigAccess,
  loadEngine,
  registerCommands,
  userMessage,
  type CommandRuntime,
  type CommandTable,
} from './command-kit';
import type { KubeClient } from '../cluster/kube-client';
import type * as Engine from './engine-bundle';
import { runSteps } from './multi-step-input';
import { contextStart } from './context-step';
import { openDraft } from './drafts';
import { counted } from '../core/plural';

const APPLY = 'Apply';

const ENGINE = [
  'enforceableRules',
  'resolvePolicyRequest',
  'generatePolicies',
  'renderPolicies',
  'policySummary',
  'preparePolicyApply',
  'executePolicyApply',
] as const;

/** The seam to the engine (tests pass replacements). */
export interface PolicyDeps extends Pick<typeof Engine, (typeof ENGINE)[number]> {
  contexts(): Promise<{ ok: true; names: string[]; current?: string } | { ok: false; message: string }>;
  cluster(context: string): Promise<{ kube: KubeClient }>;
}

async function defaultDeps(): Promise<PolicyDeps> {
  const e = await loadEngine();
  const kc = kubeconfigAccess(e);
  return { ...engineFunctions(e, ENGINE), contexts: kc.contexts, cluster: kc.cluster };
}

type Runtime = CommandRuntime<PolicyDeps>;

/** The policy commands (package.json contributes them; test/unit/package-conventions.test.ts checks both agree). */
export const POLICY_COMMANDS = {
  'kubeWindows.enforceWindowsRules': { run: enforce },
} satisfies CommandTable<Runtime>;

export function registerPolicyCommands(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  deps?: Partial<PolicyDeps>,
): void {
  registerCommands(context, log, POLICY_COMMANDS, commandRuntime(context, log, defaultDeps, deps));
}

interface Answers {
  context: string;
  rules: string[];
  action: 'Deny' | 'Warn' | 'Audit';
}

async function enforce(rt: Runtime, arg: unknown): Promise<void> {
  const deps = await rt.deps();
  const start = await contextStart<Answers>(() => deps.contexts(), arg);
  if (!start) return;
  const all = deps.enforceableRules();
  const a = await runSteps<Answers>(
    [
      ...start.steps,
      {
        kind: 'pick',
        key: 'rules',
        title: 'kube-windows: which rules to enforce at admission?',
        items: () => [
          {
            value: all.map((r) => r.id),
            label: `Every enforceable rule (${all.length})`,
            description: all.map((r) => r.id).join(', '),
          },
          {
            label: 'Choose rules…',
            choose: async () => {
              const picked = await vscode.window.showQuickPick(
                all.map((r) => ({ label: r.id, description: r.severity, detail: r.title, picked: true })),
                { canPickMany: true, title: 'kube-windows: the rules to enforce' },
              );
              return picked && picked.length > 0 ? picked.map((p) => p.label) : undefined;
            },
          },
        ],
      },
      {
        kind: 'pick',
        key: 'action',
        title: 'kube-windows: what should the API server do with an object that breaks a rule?',
        items: () => [
          {
            value: 'Audit' as const,
            label: 'Audit',
            description: 'write it to the audit log only (first step of a rollout)',
          },
          { value: 'Warn' as const, label: 'Warn', description: 'accept it, and warn whoever created it' },
          { value: 'Deny' as const, label: 'Deny', description: 'refuse it, with the rule and its words' },
        ],
      },
    ],
    start.known,
  );
  if (!a) return;
  const options = deps.resolvePolicyRequest({ rules: a.rules, action: a.action, version });
  if ('error' in options) {
    void vscode.window.showErrorMessage(`kube-windows: ${options.error}`);
    return;
  }
  // The preview: the very objects, as YAML under what they do (the language server checks it like any YAML).
  const summary = deps.policySummary(options);
  await openDraft(
    `kube-windows-policies-${a.context.replace(/[^A-Za-z0-9._-]+/g, '-')}.yaml`,
    deps.renderPolicies(deps.generatePolicies(options), 'yaml', summary),
  );
  let prepared: Engine.PreparedPolicyApply;
  let kube: KubeClient;
  try {
    kube = (await deps.cluster(a.context)).kube;
    prepared = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `kube-windows: server-side dry run on ${a.context}…` },
      () => deps.preparePolicyApply(kube, a.context, options),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, a.context))}`);
    return;
  }
  const todo = prepared.changes.filter((c) => c.change !== 'unchanged');
  if (todo.length === 0) {
    void vscode.window.showInformationMessage(
      `kube-windows: the policies on ${a.context} are up to date (${a.action}, ${counted(options.rules?.length ?? all.length, 'rule')}).`,
    );
    return;
  }
  const ok = await vscode.window.showWarningMessage(
    `kube-windows: apply ${counted(todo.length, 'change')} to ${a.context}?`,
    {
      modal: true,
      detail: [
        ...todo.map((c) => `${c.change} ${c.kind} ${c.name}`),
        '',
        ...summary.slice(0, 3),
        'The server-side dry run passed. Written with the field manager kube-windows.',
      ].join('\n'),
    },
    APPLY,
  );
  if (ok !== APPLY) return;
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `kube-windows: applying the policies to ${a.context}…` },
      () =>
        deps.executePolicyApply(kube, prepared, (c) =>
          rt.log.info(`policy ${a.context}: ${c.change} ${c.kind} ${c.name}`),
        ),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`kube-windows: ${firstLine(await userMessage(err, a.context))}`);
    return;
  }
  await vscode.commands.executeCommand('kubeWindows.refresh');
  void vscode.window.showInformationMessage(
    `kube-windows: Windows rules enforced on ${a.context}: ${counted(options.rules?.length ?? all.length, 'rule')}, action ${a.action}.`,
  );
}
