// The "Windows workload problems" view: a TreeDataProvider over ProblemsTree (src/views/problems-tree.ts,
// where the logic lives, loaded from the engine bundle when the view first shows), its commands, and
// the read-only live YAML documents with the findings as diagnostics.
import * as vscode from 'vscode';
import { readConfig } from './config';
import { firstLine, loadEngine } from './command-kit';
import { toTreeItem } from './tree-item';
import type { LiveObjectKey, ProblemNode } from '../views/problem-item';
import type { ProblemsTree } from '../views/problems-tree';
import type { PlacedFinding } from '../core/live/document';

const PROBLEMS_VIEW_ID = 'kubeWindows.problems';
const LIVE_SCHEME = 'kube-windows-live';
/** True while the view checks one namespace (the "all namespaces" command shows then). */
const NAMESPACED = 'kubeWindows.problemsNamespaced';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const SEVERITY: Record<PlacedFinding['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

class Provider implements vscode.TreeDataProvider<ProblemNode> {
  private readonly emitter = new vscode.EventEmitter<ProblemNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private tree: Promise<ProblemsTree> | undefined;
  view: vscode.TreeView<ProblemNode> | undefined;

  /** The model, created on the first ask (the view became visible): the engine loads then, not at activation. */
  model(): Promise<ProblemsTree> {
    return (this.tree ??= loadEngine().then((e) => {
      const tree = new e.ProblemsTree({ locate: { explicit: readConfig().kubeconfig } });
      tree.onDidChange(() => this.emitter.fire(undefined));
      return tree;
    }));
  }

  /** A new kubeconfig setting: a new model on the next ask. */
  reset(): void {
    this.tree = undefined;
    this.emitter.fire(undefined);
  }

  getTreeItem(node: ProblemNode): vscode.TreeItem {
    return toTreeItem(node, vscode);
  }

  async getChildren(node?: ProblemNode): Promise<ProblemNode[]> {
    const tree = await this.model();
    const children = await tree.children(node);
    if (!node && this.view) {
      this.view.description = await tree.scopeLabel();
      void vscode.commands.executeCommand('setContext', NAMESPACED, tree.currentScope.namespace !== undefined);
    }
    return children;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** `kube-windows-live:/<context>/<Kind>/<namespace>/<name>.yaml`: the text of the last open, by URI. */
class LiveDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  readonly diagnostics = vscode.languages.createDiagnosticCollection('kube-windows live');

  async open(tree: ProblemsTree, key: LiveObjectKey, index: number | undefined): Promise<boolean> {
    const doc = await tree.document(key);
    if (!doc) return false;
    const path = [doc.context, key.kind, key.namespace ?? '_cluster', `${key.name}.yaml`]
      .map(encodeURIComponent)
      .join('/');
    const uri = vscode.Uri.parse(`${LIVE_SCHEME}:/${path}`);
    const again = this.texts.has(uri.toString());
    this.texts.set(uri.toString(), doc.text);
    if (again) this.changed.fire(uri);
    this.diagnostics.set(uri, doc.findings.map(diagnosticOf));
    const text = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(text, 'yaml');
    const at = doc.findings[index ?? 0]?.range;
    await vscode.window.showTextDocument(text, { preview: true, ...(at ? { selection: rangeOf(at) } : {}) });
    return true;
  }

  forget(uri: vscode.Uri): void {
    if (uri.scheme !== LIVE_SCHEME) return;
    this.texts.delete(uri.toString());
    this.diagnostics.delete(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return (
      this.texts.get(uri.toString()) ??
      '# no longer available: open the object again from the Windows workload problems view\n'
    );
  }

  dispose(): void {
    this.diagnostics.dispose();
    this.changed.dispose();
  }
}

const rangeOf = (r: PlacedFinding['range']): vscode.Range =>
  new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);

function diagnosticOf(f: PlacedFinding): vscode.Diagnostic {
  const d = new vscode.Diagnostic(rangeOf(f.range), f.message, SEVERITY[f.severity]);
  d.source = 'kube-windows';
  d.code = f.ruleId;
  return d;
}

export function registerProblemsView(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const provider = new Provider();
  const docs = new LiveDocuments();
  provider.view = vscode.window.createTreeView(PROBLEMS_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  const guard =
    (name: string, fn: (...args: unknown[]) => Promise<void>) =>
    async (...args: unknown[]): Promise<void> => {
      try {
        await fn(...args);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.error(`${name}: ${message}`);
        void vscode.window.showErrorMessage(`kube-windows: ${firstLine(message)}`);
      }
    };

  context.subscriptions.push(
    provider,
    provider.view,
    docs,
    vscode.workspace.registerTextDocumentContentProvider(LIVE_SCHEME, docs),
    vscode.workspace.onDidCloseTextDocument((d) => docs.forget(d.uri)),
    vscode.commands.registerCommand(
      'kubeWindows.refreshProblems',
      guard('refreshProblems', async () => (await provider.model()).refresh()),
    ),
    vscode.commands.registerCommand(
      'kubeWindows.openLiveObject',
      guard('openLiveObject', async (arg: unknown, index?: unknown) => {
        const node = arg as Partial<ProblemNode> & Partial<LiveObjectKey>;
        const key =
          node?.object ??
          (typeof node?.kind === 'string' && typeof node.name === 'string' ? (node as LiveObjectKey) : undefined);
        if (!key) return;
        const at = typeof index === 'number' ? index : node.finding;
        if (!(await docs.open(await provider.model(), key, at))) {
          void vscode.window.showWarningMessage(
            `kube-windows: ${key.kind} ${key.name} is not in the last check any more. Refresh the Windows workload problems view.`,
          );
        }
      }),
    ),
    vscode.commands.registerCommand(
      'kubeWindows.problemsPickContext',
      guard('problemsPickContext', async () => {
        const tree = await provider.model();
        const list = tree.contexts();
        if ('message' in list) {
          void vscode.window.showErrorMessage(`kube-windows: ${firstLine(list.message)}`);
          return;
        }
        const picked = await vscode.window.showQuickPick(
          list.names.map((name) => ({
            label: name,
            ...(name === list.current ? { description: 'current context' } : {}),
          })),
          { title: 'kube-windows: check the workloads of which cluster?', placeHolder: 'A context of your kubeconfig' },
        );
        if (picked) tree.setScope({ context: picked.label });
      }),
    ),
    vscode.commands.registerCommand(
      'kubeWindows.problemsScopeNamespace',
      guard('problemsScopeNamespace', async () => {
        const tree = await provider.model();
        const namespace = await vscode.window.showInputBox({
          title: 'kube-windows: check one namespace',
          prompt: 'The namespace whose workloads the Windows workload problems view checks',
          value: tree.currentScope.namespace ?? '',
          validateInput: (v) =>
            DNS_LABEL.test(v.trim())
              ? undefined
              : 'A namespace name: lower-case letters, digits and "-", at most 63 characters',
        });
        if (namespace !== undefined) tree.setScope({ ...tree.currentScope, namespace: namespace.trim() });
      }),
    ),
    vscode.commands.registerCommand(
      'kubeWindows.problemsAllNamespaces',
      guard('problemsAllNamespaces', async () => {
        const tree = await provider.model();
        const scope = tree.currentScope;
        tree.setScope(scope.context !== undefined ? { context: scope.context } : {});
      }),
    ),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('kubeWindows.kubeconfig')) provider.reset();
    }),
  );
}
