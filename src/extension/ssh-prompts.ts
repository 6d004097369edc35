// The SSH questions shared by every command that reaches a Windows host (join, remove, terminal,
// services, reboot, logs): the user and key file (the key PATH remembered per context in
// globalState), the key passphrase (SecretStorage only when the user says so) and trust on first
// use of a host key, and where every connection goes (kubeWindows.ssh.port, kubeWindows.ssh.knownHostsFile),
// so that all commands ask, and connect, the same way.
import * as vscode from 'vscode';
import { readConfig } from './config';
import { homedir } from 'node:os';
import { join as joinPath } from 'node:path';
import { userProblem } from '../core/windows/join-input';
import type { SshConnectorOptions } from '../remote/ssh';

const KEY_PATHS = 'kubeWindows.join.keyPaths';
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

export async function askUser(): Promise<string | undefined> {
  const user = await vscode.window.showInputBox({
    title: 'kube-windows: SSH user on the Windows host',
    prompt: 'An administrator account of the host',
    value: 'Administrator',
    ignoreFocusOut: true,
    validateInput: (v) => (!v.trim() ? 'Enter the user name.' : userProblem(v.trim())),
  });
  return user?.trim() || undefined;
}

/** The key path last used for this kubeconfig context, if any (a path only, never key material). */
export function rememberedKeyPath(ext: vscode.ExtensionContext, context: string): string | undefined {
  return (ext.globalState.get<Record<string, string>>(KEY_PATHS, {}) ?? {})[context];
}

const BROWSE = 'Browse…';

/**
 * The private key for SSH: a quick pick of the key last used for this context and the
 * kubeWindows.ssh.privateKeyPath setting (when either is set), else, or on "Browse…", the open dialog.
 */
export async function askKeyFile(rt: Pick<PromptRuntime, 'context'>, context: string): Promise<string | undefined> {
  const remembered = rt.context.globalState.get<Record<string, string>>(KEY_PATHS, {}) ?? {};
  const last = remembered[context];
  const configured = readConfig().ssh.privateKeyPath;
  const offers = keyOffers(last, configured);
  let path: string | undefined;
  if (offers.length) {
    const items: vscode.QuickPickItem[] = [
      ...offers.map((o) => ({ label: o.path, description: o.why })),
      { label: BROWSE, description: 'another key file' },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: 'kube-windows: private key for SSH to the host',
      placeHolder: 'The key file the host accepts',
      ignoreFocusOut: true,
    });
    if (!picked) return undefined;
    if (picked.label !== BROWSE) path = picked.label;
  }
  if (!path) {
    const chosen = await vscode.window.showOpenDialog({
      title: 'kube-windows: private key for SSH to the host',
      openLabel: 'Use this key',
      canSelectFiles: true,
      canSelectFolders: false,
      canSelectMany: false,
      defaultUri: vscode.Uri.file(last ?? joinPath(homedir(), '.ssh')),
    });
    path = chosen?.[0]?.fsPath;
  }
  if (!path) return undefined;
  // A path only: the key's content and passphrase never go to globalState.
  if (path !== last) await rt.context.globalState.update(KEY_PATHS, { ...remembered, [context]: path });
  return path;
}

/** The key files offered before the dialog: the last used for the context, then the setting's (once each). */
function keyOffers(last: string | undefined, configured: string): { path: string; why: string }[] {
  const out: { path: string; why: string }[] = [];
  if (last) out.push({ path: last, why: 'last used for this cluster' });
  if (configured && configured !== last) out.push({ path: configured, why: 'kubeWindows.ssh.privateKeyPath' });
  return out;
}

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
