// The Get Started walkthrough's own commands: open the example manifest, notice that a quick fix
// was applied (a step completes on it), and copy the sandbox command. The steps themselves are in
// package.json (contributes.walkthroughs) with their pages under media/walkthrough/.
import * as vscode from 'vscode';

export const QUICK_FIX_APPLIED = 'kubeWindows.quickFixApplied';
const SANDBOX_COMMAND = 'npm ci && npm run sandbox';

export function registerWalkthrough(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('kubeWindows.openWalkthroughExample', async () => {
      // An unsaved copy: the user may edit it freely, and nothing is written to their workspace.
      const bytes = await vscode.workspace.fs.readFile(
        vscode.Uri.file(context.asAbsolutePath('media/walkthrough/example-deployment.yaml')),
      );
      const doc = await vscode.workspace.openTextDocument({
        language: 'yaml',
        content: new TextDecoder().decode(bytes),
      });
      await vscode.window.showTextDocument(doc);
    }),
    // Run by VS Code after it applied one of our code actions (language-client.ts adds it to each of them).
    vscode.commands.registerCommand('kubeWindows.quickFixApplied', () =>
      vscode.commands.executeCommand('setContext', QUICK_FIX_APPLIED, true),
    ),
    vscode.commands.registerCommand('kubeWindows.copySandboxCommand', async () => {
      await vscode.env.clipboard.writeText(SANDBOX_COMMAND);
      void vscode.window.showInformationMessage(
        `Copied "${SANDBOX_COMMAND}": run it in a clone of the kube-windows repository.`,
      );
    }),
  );
}
