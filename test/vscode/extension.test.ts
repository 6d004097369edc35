// Extension-host tests (@vscode/test-cli style, mocha tdd): they drive the `vscode` API directly.
// Run by `npx vscode-test` (.vscode-test.mjs) where VS Code can be downloaded, and by
// `npm run test:vscode` inside code-server here.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'kube-windows.kube-windows';

async function until<T>(get: () => T | undefined, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

suite('kube-windows extension host', () => {
  const folder = () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';

  test('is present and not active before a YAML file is opened', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    assert.equal(ext.isActive, false);
  });

  test('every contributed command is registered after activation', async () => {
    const doc = await vscode.workspace.openTextDocument(path.join(folder(), 'bad', 'scheduling.yaml'));
    await vscode.window.showTextDocument(doc);
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    await until(() => (ext.isActive ? true : undefined), 30_000, 'activation on a YAML file');
    const contributed = (ext.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      contributed.filter((c) => !registered.has(c)),
      [],
    );
  });

  test('diagnostics carry the rule ids (languages.getDiagnostics)', async () => {
    const uri = vscode.Uri.file(path.join(folder(), 'bad', 'scheduling.yaml'));
    const codes = await until(
      () => {
        const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source === 'kube-windows');
        return d.length >= 3
          ? d.map((x) => (typeof x.code === 'object' ? String(x.code.value) : String(x.code)))
          : undefined;
      },
      30_000,
      'diagnostics for scheduling.yaml',
    );
    for (const id of ['WIN070', 'WIN071', 'WIN074']) assert.ok(codes.includes(id), `${id} in ${codes.join(', ')}`);
  });

  test('a quick fix for WIN071 is offered and removes the finding', async () => {
    const uri = vscode.Uri.file(path.join(folder(), 'bad', 'scheduling.yaml'));
    const d = vscode.languages
      .getDiagnostics(uri)
      .find((x) => (typeof x.code === 'object' ? x.code.value : x.code) === 'WIN071');
    assert.ok(d);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      uri,
      d.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const fix = actions.find((a) => a.edit && !/Disable|Fix all/.test(a.title));
    assert.ok(fix, `a fix among ${actions.map((a) => a.title).join(', ')}`);
    assert.ok(await vscode.workspace.applyEdit(fix.edit!));
    await until(
      () =>
        vscode.languages
          .getDiagnostics(uri)
          .some((x) => (typeof x.code === 'object' ? x.code.value : x.code) === 'WIN071')
          ? undefined
          : true,
      30_000,
      'WIN071 gone',
    );
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  test('the Clusters view can be shown', async () => {
    await vscode.commands.executeCommand('kubeWindows.clusters.focus');
  });
});
