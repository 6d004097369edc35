// Entry point of the VS Code extension: wires the language client, the status item, the commands
// and the settings together. VS Code glue only; the checks live in core/ and run in the server.
import * as vscode from 'vscode';
import { ServerController, sendClusterSnapshot } from './language-client';
import { SECTION } from '../shared/protocol';
import { affects, readConfig } from './config';
import { StatusPresenter } from './status';
import { registerClusterView } from './cluster-view';
import { registerJoinCommands } from './join-commands';
import { registerMirrorCommands } from './mirror-commands';
import { registerNodeCommands } from './node-commands';
import { registerMachineSetCommands } from './machineset-commands';
import { registerPolicyCommands } from './policy-commands';
import { registerPodCommands } from './pod-commands';
import { registerNodeActions } from './node-actions';
import { ReadOnlyDocs } from './read-only-docs';
import { registerProblemsView } from './problems-view';
import { registerKubernetesTools } from './kubernetes-tools';
import { registerWalkthrough } from './walkthrough';

export { sendClusterSnapshot };

let controller: ServerController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const activateStart = performance.now();
  const log = vscode.window.createOutputChannel('kube-windows', { log: true });
  const server = new ServerController(context.asAbsolutePath('dist/server.js'), log);
  controller = server;
  const status = new StatusPresenter(server, 'kubeWindows.showLog');

  context.subscriptions.push(
    log,
    status,
    vscode.commands.registerCommand('kubeWindows.showLog', () => log.show(true)),
    vscode.commands.registerCommand('kubeWindows.restartServer', () => restartServer(server)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // The other kubeWindows settings reach the server through configuration sync; only
      // `enable` changes the client's own lifecycle.
      if (affects(e, 'kubeWindows.enable')) {
        void server.setEnabled(readConfig().enable);
      } else if (affects(e, SECTION)) {
        log.info('kubeWindows settings changed; the language server re-reads them.');
      }
    }),
  );

  // Read-only documents (node proxy settings, pod and node actions) share one content provider.
  const docs = ReadOnlyDocs.register(context);
  // Node operations (terminal, reboot, logs, proxy settings, services): the engine loads on the first command.
  const nodeOps = registerNodeCommands(context, log, docs);
  // The cluster explorer: nothing contacts a cluster until the view asks for children.
  const revealWindowsNode = registerClusterView(context, log, nodeOps.services);
  // Join / plan / remove Windows nodes: the engine loads on the first command, not here.
  registerJoinCommands(context, log);
  // Preview / apply registry mirror config: the engine loads on the first command.
  registerMirrorCommands(context, log);
  // Windows MachineSets on OpenShift: create (draft editor), follow, scale, delete a Machine.
  registerMachineSetCommands(context, log);
  registerPolicyCommands(context, log);
  // Pod actions (logs, shell, describe, delete, restart) and node actions through the API (cordon,
  // drain, taints, events, node logs): their read-only documents are `docs`.
  registerPodCommands(context, log, docs);
  registerNodeActions(context, log, docs);
  // The live check of a cluster's workloads: nothing is read (nor the engine loaded) until the view shows.
  registerProblemsView(context, log);
  // The Kubernetes extension's Cluster Explorer, when installed: Windows details on its Node rows.
  registerKubernetesTools(context, log, revealWindowsNode);
  // The Get Started walkthrough's commands (its steps are in package.json).
  registerWalkthrough(context);

  // Not awaited: activation must not wait for the server to come up.
  void server.setEnabled(readConfig().enable);
  log.info(`activate took ${(performance.now() - activateStart).toFixed(1)} ms; engine loaded: ${engineLoaded()}`);
}

/** Whether dist/engine.js (ssh2, the plans) is in this extension host: activation must not load it. */
function engineLoaded(): boolean {
  return Object.keys(require.cache).some((file) => /[\\/]dist[\\/]engine\.js$/.test(file));
}

async function restartServer(server: ServerController): Promise<void> {
  if (!server.isEnabled) {
    const open = 'Open setting';
    const choice = await vscode.window.showInformationMessage(
      'kube-windows is turned off (kubeWindows.enable is false), so there is no language server to restart.',
      open,
    );
    if (choice === open) await vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.enable`);
    return;
  }
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'kube-windows: restarting the language server…' },
    () => server.restart(),
  );
}

export function deactivate(): Promise<void> | undefined {
  const server = controller;
  controller = undefined;
  return server?.dispose();
}
