// Telling the user where a folder the extension wrote is (collected logs), with what exists where the
// extension runs: `revealFileInOS` only on a local desktop window (it is missing in code-server, VS
// Code for the Web, and it would open a file manager on the wrong machine under Remote-SSH, WSL or
// Codespaces), the Explorer when the folder is in the workspace, "Open Folder" and "Copy Path"
// everywhere. The message always carries the path itself, so the user learns it whatever they click.
import * as vscode from 'vscode';

const REVEAL_IN_EXPLORER = 'Reveal in Explorer';
const OPEN_FOLDER = 'Open Folder';
const COPY_PATH = 'Copy Path';

/** The OS file manager's button, as VS Code names it on each platform. */
function revealInOsLabel(): string {
  if (process.platform === 'darwin') return 'Reveal in Finder';
  if (process.platform === 'win32') return 'Reveal in File Explorer';
  return 'Open Containing Folder';
}

/** The buttons that work here, with what each does. */
async function folderActions(folder: string): Promise<{ label: string; run: () => Thenable<unknown> }[]> {
  const uri = vscode.Uri.file(folder);
  const commands = new Set(await vscode.commands.getCommands(true));
  // A window whose extension host runs on this machine, in the desktop app: the OS file manager is on the same disk.
  const localDesktop = vscode.env.remoteName === undefined && vscode.env.uiKind === vscode.UIKind.Desktop;
  const actions: { label: string; run: () => Thenable<unknown> }[] = [];
  if (vscode.workspace.getWorkspaceFolder(uri) && commands.has('revealInExplorer'))
    actions.push({ label: REVEAL_IN_EXPLORER, run: () => vscode.commands.executeCommand('revealInExplorer', uri) });
  if (localDesktop && commands.has('revealFileInOS'))
    actions.push({ label: revealInOsLabel(), run: () => vscode.commands.executeCommand('revealFileInOS', uri) });
  if (commands.has('vscode.openFolder'))
    actions.push({
      label: OPEN_FOLDER,
      run: () => vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true }),
    });
  actions.push({ label: COPY_PATH, run: () => vscode.env.clipboard.writeText(folder) });
  return actions;
}

/** Shows `message` (which names the folder) with the folder's buttons, and does what the user picks. */
export async function showFolderMessage(message: string, folder: string): Promise<void> {
  const actions = await folderActions(folder);
  const text = message.includes(folder) ? message : `${message} (${folder})`;
  const choice = await vscode.window.showInformationMessage(text, ...actions.map((a) => a.label));
  await actions.find((a) => a.label === choice)?.run();
}
