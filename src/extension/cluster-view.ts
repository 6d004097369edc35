// The cluster explorer view: a TreeDataProvider over ClusterTree (src/views/cluster-tree.ts, where the logic
// lives), its commands, the read-only YAML documents and the cluster snapshot sent to the server.
import * as vscode from 'vscode';
import { affects, readConfig } from './config';
import { ClusterTree } from '../views/cluster-tree';
import type { TreeNode } from '../views/cluster-item';
import type { NodeServicesSource } from '../views/items/services';
import { sendClusterSnapshot } from './language-client';
import { toTreeItem } from './tree-item';
import { writeYaml } from '../core/manifest/yaml-writer';
import { recordWalkthroughFact } from './walkthrough';

const VIEW_ID = 'kubeWindows.clusters';
const YAML_SCHEME = 'kube-windows';
const NO_KUBECONFIG = 'kubeWindows.noKubeconfig';

class Provider implements vscode.TreeDataProvider<TreeNode> {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  /** `log`: each ask and change at trace level (Developer: Set Log Level… → Trace), to follow the view. */
  constructor(
    private tree: ClusterTree,
    private readonly log?: vscode.LogOutputChannel,
  ) {}

  attach(tree: ClusterTree): vscode.Disposable {
    this.tree = tree;
    // An item's change refreshes that element only; an id never handed out to the view is no change
    // for it (firing undefined instead would reload the whole tree).
    const sub = tree.onDidChange((id) => {
      this.log?.trace(`tree: change ${id ?? '(all)'}`);
      if (id === undefined) this.emitter.fire(undefined);
      else {
        const item = tree.item(id);
        if (item) this.emitter.fire(item);
      }
    });
    return { dispose: () => sub.dispose() };
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return toTreeItem(node, vscode);
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return this.tree.parentOf(node);
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    const t0 = Date.now();
    const children = await this.tree.children(node);
    this.log?.trace(`tree: children of ${node?.id ?? '(roots)'} in ${Date.now() - t0} ms: ${children.length}`);
    if (!node) void vscode.commands.executeCommand('setContext', NO_KUBECONFIG, this.tree.noKubeconfig);
    return children;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** Read-only documents `kube-windows:/<item id>.yaml` with the object of an item. */
class YamlDocuments implements vscode.TextDocumentContentProvider {
  private readonly objects = new Map<string, object>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  async open(node: TreeNode): Promise<void> {
    if (!node.yaml) return;
    const object = await node.yaml();
    const uri = vscode.Uri.parse(
      `${YAML_SCHEME}:/${encodeURIComponent(node.label)}.yaml?${encodeURIComponent(node.id)}`,
    );
    const again = this.objects.has(uri.toString());
    this.objects.set(uri.toString(), object);
    if (again) this.changed.fire(uri); // an open document shows the object as read now
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'yaml');
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const object = this.objects.get(uri.toString());
    return object ? writeYaml(object) : '# no longer available\n';
  }
}

/** Selects a Windows node of a context in the view, expanding its cluster first when the view has not listed it yet. */
export type RevealWindowsNode = (context: string, node: string) => Promise<void>;

/** `services` feeds the Services group under each Windows node (node-commands.ts); without it there is none. */
export function registerClusterView(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  services?: NodeServicesSource,
): RevealWindowsNode {
  const makeTree = () => {
    const config = readConfig();
    return new ClusterTree({
      locate: { explicit: config.kubeconfig },
      ...(config.wmco.namespace ? { session: { wmcoNamespace: config.wmco.namespace } } : {}),
      ...(services ? { services } : {}),
    });
  };
  let tree = makeTree();
  const provider = new Provider(tree, log);
  let subs: vscode.Disposable[] = [];
  const wire = () => {
    subs = [provider.attach(tree), tree.onSnapshot(forwardSnapshot(log))];
  };
  wire();
  const docs = new YamlDocuments();
  const view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  // The walkthrough's "Open the cluster tree" step, counted even when done before the walkthrough is opened.
  context.subscriptions.push(view.onDidChangeVisibility((e) => e.visible && recordWalkthroughFact('clusterViewShown')));

  context.subscriptions.push(
    provider,
    view,
    // A collapsed Pods group stops watching its node's pods (expanding it asks for them again).
    view.onDidCollapseElement((e) => {
      log.trace(`tree: collapsed ${e.element.id}`);
      tree.collapsed(e.element);
    }),
    vscode.workspace.registerTextDocumentContentProvider(YAML_SCHEME, docs),
    vscode.commands.registerCommand('kubeWindows.refresh', () => tree.refresh()),
    vscode.commands.registerCommand('kubeWindows.retry', (arg: TreeNode | string | undefined) => {
      const id = typeof arg === 'string' ? arg : arg?.id;
      if (id) tree.retry(id);
    }),
    vscode.commands.registerCommand('kubeWindows.refreshServices', (context: string, node: string) =>
      tree.refreshServices(context, node),
    ),
    // Internal (machineset-commands.ts): a command changed a context's Windows MachineSets.
    vscode.commands.registerCommand('kubeWindows.refreshMachineSets', (context: string, machineSet?: string) =>
      tree.refreshMachineSet(context, machineSet),
    ),
    vscode.commands.registerCommand('kubeWindows.copyName', async (node: TreeNode | undefined) => {
      if (node) await vscode.env.clipboard.writeText(node.label);
    }),
    vscode.commands.registerCommand('kubeWindows.openYaml', async (node: TreeNode | undefined) => {
      if (!node?.yaml) return;
      try {
        await docs.open(node);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.error(`opening ${node.id}: ${message}`);
        void vscode.window.showErrorMessage(`kube-windows: cannot show ${node.label}: ${message.split('\n')[0]}`);
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!affects(e, 'kubeWindows.kubeconfig') && !affects(e, 'kubeWindows.wmco.namespace')) return;
      for (const s of subs) s.dispose();
      tree.dispose();
      tree = makeTree();
      wire();
      void sendClusterSnapshot(null);
      tree.refresh();
    }),
    {
      dispose: () => {
        for (const s of subs) s.dispose();
        tree.dispose();
      },
    },
  );

  return async (contextName, node) => {
    // Items exist once the view asked for them (never asked here: a second asker would race the
    // view's own requests): the roots after the view is shown, a node after its cluster is expanded.
    const appeared = async <T>(get: () => T | undefined): Promise<T | undefined> => {
      for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 100))) {
        const found = get();
        if (found || Date.now() > end) return found;
      }
    };
    const root = await appeared(() => tree.contextItem(contextName));
    if (!root) return log.info(`reveal: context ${contextName} is not in the view`);
    if (!tree.listedWindowsNode(contextName, node)) await view.reveal(root, { expand: 1, select: false, focus: false });
    const item = await appeared(() => tree.listedWindowsNode(contextName, node));
    if (item) await view.reveal(item, { select: true, focus: true });
    else log.info(`reveal: ${node} of ${contextName} did not appear in the view within 10 s`);
  };
}

/** The tree throttles snapshots already (once per second); this forwards them and logs. */
function forwardSnapshot(log: vscode.LogOutputChannel) {
  return (snapshot: Parameters<typeof sendClusterSnapshot>[0]) => {
    log.info(
      snapshot
        ? `cluster snapshot of ${snapshot.name}: ${snapshot.windowsNodes.length} Windows nodes`
        : 'cluster snapshot cleared',
    );
    void sendClusterSnapshot(snapshot);
  };
}
