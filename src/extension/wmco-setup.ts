// The WMCO setup a command offers when WMCO or cloud-private-key is missing (the join, and the
// Windows MachineSet creation): install WMCO with the approval the user picks, or create
// cloud-private-key from a key file the user picks. VS Code glue; the engine does the setup.
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { join as joinPath } from 'node:path';
import type { CommandRuntime } from './command-kit';
import type { Secret } from '../bootstrap/plan';
import type { WmcoInstallOptions } from '../bootstrap/wmco-install';

const WMCO_AUTOMATIC = 'Install WMCO (Automatic)';
const WMCO_MANUAL = 'Install WMCO (Manual)';
const CREATE_KEY = 'Create cloud-private-key…';

/** What the WMCO setup of a join adds: WMCO installed, cloud-private-key created. */
export interface WmcoSetup {
  installWmco?: WmcoInstallOptions;
  privateKey?: { pem: Secret; source: string };
}

/**
 * The join command's WMCO setup, offered for what is missing (`what`: what happened, for the message):
 * WMCO installed with the approval the user picks, or cloud-private-key created from a key file. The
 * setup chosen, the label of one of `more` when that was clicked, or undefined (dismissed).
 */
export async function offerWmcoSetup(
  rt: Pick<CommandRuntime<unknown>, 'log'>,
  secret: (value: string) => Secret,
  offer: 'install-wmco' | 'create-key-secret',
  what: string,
  more: string[],
  nearKey?: string,
): Promise<WmcoSetup | string | undefined> {
  if (offer === 'install-wmco') {
    const choice = await vscode.window.showErrorMessage(
      `kube-windows: ${what}. kube-windows can install WMCO (OperatorHub, channel stable): which update approval?`,
      WMCO_AUTOMATIC,
      WMCO_MANUAL,
      ...more,
    );
    if (choice === WMCO_AUTOMATIC || choice === WMCO_MANUAL)
      return { installWmco: { approval: choice === WMCO_AUTOMATIC ? 'Automatic' : 'Manual' } };
    return choice;
  }
  const choice = await vscode.window.showErrorMessage(
    `kube-windows: ${what}. kube-windows can create it from the private key WMCO should use (PEM, no passphrase).`,
    CREATE_KEY,
    ...more,
  );
  if (choice !== CREATE_KEY) return choice;
  const key = await readPrivateKeyFile(rt, secret, nearKey);
  return key ? { privateKey: key } : undefined;
}

async function readPrivateKeyFile(
  rt: Pick<CommandRuntime<unknown>, 'log'>,
  secret: (value: string) => Secret,
  near: string | undefined,
): Promise<{ pem: Secret; source: string } | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: 'kube-windows: private key for cloud-private-key (the key WMCO uses to reach Windows hosts)',
    openLabel: 'Create the secret from this key',
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
    defaultUri: vscode.Uri.file(near ?? joinPath(homedir(), '.ssh')),
  });
  const path = picked?.[0]?.fsPath;
  if (!path) return undefined;
  try {
    const { promises: fsp } = await import('node:fs');
    return { pem: secret(await fsp.readFile(path, 'utf8')), source: path };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    rt.log.error(`reading ${path}: ${code}`);
    void vscode.window.showErrorMessage(`kube-windows: cannot read ${path} (${code}).`);
    return undefined;
  }
}
