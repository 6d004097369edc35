// The SSH questions shared by every command that reaches a Windows host (join, remove, terminal,
// services, reboot, logs, mirrors): the user and key file as steps of a multi-step input (the key PATH remembered
// per context in globalState), how to reach each node (asked once per node, remembered, changed on demand), the key passphrase (SecretStorage only when the user says so) and trust on first
// use of a host key, and where every connection goes (kubeWindows.ssh.port, kubeWindows.ssh.knownHostsFile),
// so that all commands ask, and connect, the same way.
import * as vscode from 'vscode';
import { readConfig } from './config';
import { homedir } from 'node:os';
import { join as joinPath } from 'node:path';
import { userProblem } from '../core/windows/join-input';
import type { SshConnectorOptions } from '../remote/ssh';
import { runSteps, type InputStep, type PickAction, type PickItem, type PickStep, type Step } from './multi-step-input';

const KEY_PATHS = 'kubeWindows.join.keyPaths';
const USERS = 'kubeWindows.ssh.users';
/** How each node is reached, by `context/node`: user and key PATH, or the HostProcess pod. */
const REACH = 'kubeWindows.ssh.reach';
export const passphraseKey = (keyPath: string) => `kubeWindows.ssh.passphrase:${keyPath}`;
const TRUST = 'Trust and continue';

/** What the prompts need from the command runtime. */
export interface PromptRuntime {
  context: vscode.ExtensionContext;
  /** Key paths whose passphrase the user declined to remember in this session: asked once. */
  declined: Set<string>;
}

/** Whether the passphrase opens the key file (decides whether to offer remembering it). */
export type CheckPassphrase = (keyPath: string, passphrase: string) => Promise<boolean>;

/** The SSH user question (an administrator of the host), with a default: the user remembered, else Administrator. */
export function userStep<S extends { user: string }>(
  fallback: (a: Partial<S>) => string | undefined = () => undefined,
): InputStep<S, 'user'> {
  return {
    kind: 'input',
    key: 'user',
    title: 'kube-windows: SSH user on the Windows host',
    prompt: 'An administrator account of the host',
    value: (a) => fallback(a) ?? 'Administrator',
    validate: (v) => (!v.trim() ? 'Enter the user name.' : userProblem(v.trim())),
    parse: (v) => v.trim() as S['user'],
  };
}

/** The key path last used for this kubeconfig context, if any (a path only, never key material). */
export function rememberedKeyPath(ext: vscode.ExtensionContext, context: string): string | undefined {
  return (ext.globalState.get<Record<string, string>>(KEY_PATHS, {}) ?? {})[context];
}

/** Remembers the key PATH used for a context (the key's content and passphrase never go to globalState). */
async function rememberKeyPath(ext: vscode.ExtensionContext, context: string, path: string): Promise<void> {
  const remembered = ext.globalState.get<Record<string, string>>(KEY_PATHS, {}) ?? {};
  if (remembered[context] !== path) await ext.globalState.update(KEY_PATHS, { ...remembered, [context]: path });
}

const BROWSE = 'Browse…';

/**
 * The private key question: the key last used for the context and the kubeWindows.ssh.privateKeyPath setting
 * (when either is set, the first is the default), and "Browse…" for the open dialog.
 */
export function keyStep<S extends { keyPath: string }>(
  ext: vscode.ExtensionContext,
  contextOf: (a: Partial<S>) => string,
): PickStep<S, 'keyPath'> {
  return {
    kind: 'pick',
    key: 'keyPath',
    title: 'kube-windows: private key for SSH to the host',
    placeholder: 'The key file the host accepts',
    items: (a) => {
      const last = rememberedKeyPath(ext, contextOf(a));
      const offers: (PickItem<S['keyPath']> | PickAction<S['keyPath']>)[] = keyOffers(
        last,
        readConfig().ssh.privateKeyPath,
      ).map((o) => ({ label: o.path, description: o.why, value: o.path as S['keyPath'] }));
      offers.push({
        label: BROWSE,
        description: 'another key file',
        choose: async () => {
          const chosen = await vscode.window.showOpenDialog({
            title: 'kube-windows: private key for SSH to the host',
            openLabel: 'Use this key',
            canSelectFiles: true,
            canSelectFolders: false,
            canSelectMany: false,
            defaultUri: vscode.Uri.file(last ?? joinPath(homedir(), '.ssh')),
          });
          return chosen?.[0]?.fsPath as S['keyPath'] | undefined;
        },
      });
      return offers;
    },
  };
}

/** The key files offered before the dialog: the last used for the context, then the setting's (once each). */
function keyOffers(last: string | undefined, configured: string): { path: string; why: string }[] {
  const out: { path: string; why: string }[] = [];
  if (last) out.push({ path: last, why: 'last used for this cluster' });
  if (configured && configured !== last) out.push({ path: configured, why: 'kubeWindows.ssh.privateKeyPath' });
  return out;
}

// ---------------------------------------------------------------------------------------------
// How to reach a node: asked once per node, remembered (user and key PATH, or the HostProcess pod), changed on demand

/** How a node is reached: SSH with a user and key file, or (the terminal only) a HostProcess pod. */
export type Reach = { via: 'ssh'; user: string; keyPath: string } | { via: 'pod' };

const reachKey = (context: string, node: string) => `${context}/${node}`;

/**
 * How to reach a node without asking: what was chosen for it, else the user and key remembered for its cluster
 * (a join, another node), else the kubeWindows.ssh.privateKeyPath setting as Administrator. Undefined: ask.
 */
export function rememberedReach(ext: vscode.ExtensionContext, context: string, node: string): Reach | undefined {
  const mine = (ext.globalState.get<Record<string, Reach>>(REACH, {}) ?? {})[reachKey(context, node)];
  if (mine) return mine;
  const keyPath = rememberedKeyPath(ext, context) ?? (readConfig().ssh.privateKeyPath || undefined);
  return keyPath ? { via: 'ssh', user: rememberedUser(ext, context) ?? 'Administrator', keyPath } : undefined;
}

/** Remembers how to reach a node (and, for SSH, the user and key for its cluster: the default of its other nodes). */
async function rememberReach(ext: vscode.ExtensionContext, context: string, node: string, reach: Reach): Promise<void> {
  const all = ext.globalState.get<Record<string, Reach>>(REACH, {}) ?? {};
  await ext.globalState.update(REACH, { ...all, [reachKey(context, node)]: reach });
  if (reach.via === 'ssh') await rememberLogin(ext, context, reach.user, reach.keyPath);
}

/** Remembers the SSH user and key PATH used for a cluster: how its nodes are reached unless one says otherwise. */
export async function rememberLogin(
  ext: vscode.ExtensionContext,
  context: string,
  user: string,
  keyPath: string,
): Promise<void> {
  await rememberKeyPath(ext, context, keyPath);
  const users = ext.globalState.get<Record<string, string>>(USERS, {}) ?? {};
  if (users[context] !== user) await ext.globalState.update(USERS, { ...users, [context]: user });
}

/** The SSH user remembered for a context. */
export function rememberedUser(ext: vscode.ExtensionContext, context: string): string | undefined {
  return (ext.globalState.get<Record<string, string>>(USERS, {}) ?? {})[context];
}

interface ReachAnswers {
  via: 'ssh' | 'pod';
  user: string;
  keyPath: string;
}

/**
 * "How to reach <node>?": SSH (user, then key) or, when the command can use one, a HostProcess pod; the answers are
 * remembered for the node. `current` is the reach used so far (its values are the defaults).
 */
export async function askReach(
  ext: vscode.ExtensionContext,
  context: string,
  node: string,
  where: string,
  allowPod: boolean,
): Promise<Reach | undefined> {
  const current = rememberedReach(ext, context, node);
  const steps: Step<ReachAnswers>[] = [
    {
      kind: 'pick',
      key: 'via',
      when: () => allowPod,
      title: `kube-windows: how to reach ${node}?`,
      placeholder: `${where}: remembered for this node (change it with "Change how to reach node…")`,
      items: () => [
        { value: 'ssh', label: 'SSH', description: where, detail: 'A user and key file the host accepts.' },
        {
          value: 'pod',
          label: USE_POD,
          detail:
            'No SSH: a privileged pod pinned to the node runs PowerShell as SYSTEM on the host (the terminal, "Show proxy settings"); it is deleted when they end.',
        },
      ],
    },
    {
      ...userStep<ReachAnswers>(() => (current?.via === 'ssh' ? current.user : rememberedUser(ext, context))),
      when: (a) => a.via !== 'pod',
      title: `kube-windows: how to reach ${node}? SSH user`,
    },
    {
      ...keyStep<ReachAnswers>(ext, () => context),
      when: (a) => a.via !== 'pod',
      title: `kube-windows: how to reach ${node}? SSH key`,
    },
  ];
  const a = await runSteps(steps, allowPod ? {} : { via: 'ssh' });
  if (!a) return undefined;
  const reach: Reach = a.via === 'pod' ? { via: 'pod' } : { via: 'ssh', user: a.user, keyPath: a.keyPath };
  await rememberReach(ext, context, node, reach);
  return reach;
}

export const USE_POD = 'Use a HostProcess pod';

/** The SSH port and known_hosts file of the settings, for every connection the extension makes to a Windows host. */
export function sshEndpoint(): Pick<SshConnectorOptions, 'port' | 'knownHostsPath'> {
  const { port, knownHostsFile } = readConfig().ssh;
  return { port, ...(knownHostsFile ? { knownHostsPath: knownHostsFile } : {}) };
}

export interface Prompts {
  options: Pick<SshConnectorOptions, 'askPassphrase' | 'confirmUnknownHost' | 'port' | 'knownHostsPath'>;
  /** The user refused the host key or cancelled the passphrase: end quietly. */
  declinedByUser(): boolean;
  /** Settles the "remember the passphrase?" offer, if one was made. */
  settled(): Promise<void>;
}

export function sshPrompts(rt: PromptRuntime, checkPassphrase: CheckPassphrase): Prompts {
  const secrets = rt.context.secrets;
  // The passphrase that opened the key in this operation: reconnects (after a host restart) reuse it
  // instead of asking again. Memory only.
  let known: string | undefined;
  let declined = false;
  const offers: Promise<void>[] = [];
  const endpoint = sshEndpoint();
  const knownHostsFile = endpoint.knownHostsPath ?? '~/.ssh/known_hosts';
  return {
    options: {
      ...endpoint,
      askPassphrase: async (keyPath, attempt) => {
        const id = passphraseKey(keyPath);
        if (attempt === 1 && known !== undefined) return known;
        if (attempt === 1) {
          const stored = await secrets.get(id);
          if (stored !== undefined) return stored;
        } else {
          // The previous answer was wrong; if it came from SecretStorage it is stale.
          known = undefined;
          await secrets.delete(id);
        }
        const typed = await vscode.window.showInputBox({
          title: 'kube-windows: SSH key passphrase',
          prompt:
            attempt > 1
              ? `Wrong passphrase. Passphrase for ${keyPath} (attempt ${attempt})`
              : `Passphrase for ${keyPath}`,
          password: true,
          ignoreFocusOut: true,
        });
        if (typed === undefined) {
          declined = true;
          return undefined;
        }
        if (await checkPassphrase(keyPath, typed)) {
          known = typed;
          if (!rt.declined.has(keyPath)) offers.push(offerRemember(rt, keyPath, typed));
        }
        return typed;
      },
      confirmUnknownHost: async (host, port, fingerprint, keyType) => {
        const choice = await vscode.window.showWarningMessage(
          `kube-windows: the SSH host key of ${host}${port === 22 ? '' : `:${port}`} is not known. Trust it?`,
          {
            modal: true,
            detail: `Host: ${host}:${port}\nKey type: ${keyType}\nFingerprint: ${fingerprint}\n\nCompare it with the key on the host (ssh-keygen -lf C:\\ProgramData\\ssh\\ssh_host_*_key.pub). Trusting it adds it to ${knownHostsFile}.`,
          },
          TRUST,
        );
        if (choice !== TRUST) declined = true;
        return choice === TRUST;
      },
    },
    declinedByUser: () => declined,
    settled: async () => {
      await Promise.all(offers);
    },
  };
}

/**
 * Offered once per key path (until accepted): remembers the passphrase in SecretStorage (the OS keychain) only on
 * "Remember".
 */
async function offerRemember(rt: PromptRuntime, keyPath: string, passphrase: string): Promise<void> {
  const remember = 'Remember';
  const choice = await vscode.window.showInformationMessage(
    `kube-windows: remember the passphrase of ${keyPath} in VS Code's secret storage (your OS keychain)?`,
    remember,
    'Not now',
  );
  if (choice === remember) await rt.context.secrets.store(passphraseKey(keyPath), passphrase);
  else rt.declined.add(keyPath); // asked once: no nagging for this key again in this session
}
