// When the Kubernetes extension (ms-kubernetes-tools.vscode-kubernetes-tools) is installed, its
// Cluster Explorer rows of Windows nodes get their Windows Server version, build and WMCO version,
// through its public API (vscode-kubernetes-tools-api: a node UI customizer), and a "Show in
// kube-windows" action leads to our tree; users keep the tree they know. Nothing happens, and
// nothing is loaded, when that extension is not installed.
import * as vscode from 'vscode';
import type { ClusterExplorerV1 } from 'vscode-kubernetes-tools-api';
import type { ConfigurationV1_1 } from 'vscode-kubernetes-tools-api/js/configuration/v1_1';
import { WindowsNodeLookup, windowsNodeDecoration } from '../views/kubernetes-explorer';

export const KUBERNETES_EXTENSION_ID = 'ms-kubernetes-tools.vscode-kubernetes-tools';
const CLUSTERS_VIEW_FOCUS = 'kubeWindows.clusters.focus';

/**
 * What "Show in kube-windows" does once the Clusters view is focused and the node is known to be a Windows node of
 * `context`.
 */
export type RevealNode = (context: string, node: string) => Promise<void>;

export function registerKubernetesTools(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  reveal: RevealNode,
): void {
  let integration: Promise<KubernetesToolsIntegration | undefined> | undefined;
  const start = (): Promise<KubernetesToolsIntegration | undefined> =>
    (integration ??= connectKubernetesTools(log, reveal).then((i) => {
      if (i) context.subscriptions.push(i);
      return i;
    }));
  context.subscriptions.push(
    vscode.commands.registerCommand('kubeWindows.showInClusterTree', async (target: unknown) => {
      const i = await start();
      if (!i) {
        void vscode.window.showInformationMessage(
          'kube-windows: this action belongs to the Kubernetes extension’s Cluster Explorer, which is not available.',
        );
        return;
      }
      await i.showInTree(target);
    }),
  );
  // Only when the Kubernetes extension is installed; it activates on YAML and on its own view, as we do.
  if (vscode.extensions.getExtension(KUBERNETES_EXTENSION_ID)) setTimeout(() => void start(), 0);
}

async function connectKubernetesTools(
  log: vscode.LogOutputChannel,
  reveal: RevealNode,
): Promise<KubernetesToolsIntegration | undefined> {
  if (!vscode.extensions.getExtension(KUBERNETES_EXTENSION_ID)) return undefined;
  try {
    // Loaded here, not at activation: importing it asks VS Code for the Kubernetes extension's API.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const k8s = require('vscode-kubernetes-tools-api') as typeof import('vscode-kubernetes-tools-api');
    const explorer = await k8s.extension.clusterExplorer.v1;
    if (!explorer.available) {
      log.info(`Kubernetes extension: Cluster Explorer API not available (${explorer.reason})`);
      return undefined;
    }
    const configuration = await k8s.extension.configuration.v1_1;
    const integration = new KubernetesToolsIntegration(
      explorer.api,
      configuration.available ? configuration.api : undefined,
      reveal,
    );
    log.info('Kubernetes extension: Windows details added to its Cluster Explorer');
    return integration;
  } catch (err) {
    log.warn(`Kubernetes extension: not integrated (${err instanceof Error ? err.message : String(err)})`);
    return undefined;
  }
}

/** The customizer and the command, over the two APIs (passed in, so tests give their own). */
export class KubernetesToolsIntegration implements vscode.Disposable {
  readonly lookup: WindowsNodeLookup;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly explorer: ClusterExplorerV1,
    configuration: ConfigurationV1_1 | undefined,
    private readonly reveal: RevealNode,
    waitMs?: number,
  ) {
    this.lookup = new WindowsNodeLookup(() => kubeconfigPath(configuration), { waitMs });
    explorer.registerNodeUICustomizer({ customize: (node, item) => this.customize(node, item) });
    if (configuration) {
      const changed = () => {
        this.lookup.reset();
        explorer.refresh();
      };
      this.subscriptions.push(
        configuration.onDidChangeContext(changed),
        configuration.onDidChangeKubeconfigPath(changed),
      );
    }
  }

  async customize(node: ClusterExplorerV1.ClusterExplorerNode, item: vscode.TreeItem): Promise<void> {
    const name = nodeName(node);
    if (!name) return;
    const view = await this.lookup.find(name);
    if (!view) return;
    const { description, tooltip } = windowsNodeDecoration(view);
    item.description =
      typeof item.description === 'string' && item.description ? `${item.description} · ${description}` : description;
    const before = typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? '');
    item.tooltip = before ? `${before}\n\n${tooltip}` : tooltip;
  }

  async showInTree(target: unknown): Promise<void> {
    const name = nodeName(this.explorer.resolveCommandTarget(target));
    if (!name) {
      void vscode.window.showInformationMessage(
        'kube-windows: pick a Node in the Kubernetes extension’s Cluster Explorer.',
      );
      return;
    }
    const view = await this.lookup.find(name);
    const context = this.lookup.context;
    if (!view || !context) {
      void vscode.window.showInformationMessage(
        `kube-windows: ${name} is not a Windows node (no kubernetes.io/os=windows label), or its cluster did not answer.`,
      );
      return;
    }
    await vscode.commands.executeCommand(CLUSTERS_VIEW_FOCUS);
    await this.reveal(context, name);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.lookup.dispose();
  }
}

function nodeName(node: ClusterExplorerV1.ClusterExplorerNode | undefined): string | undefined {
  return node?.nodeType === 'resource' && node.resourceKind.manifestKind === 'Node' ? node.name : undefined;
}

/** The kubeconfig the Kubernetes extension uses (a WSL path is not readable from here: the default then). */
function kubeconfigPath(configuration: ConfigurationV1_1 | undefined): string | undefined {
  const p = configuration?.getKubeconfigPath();
  return p?.pathType === 'host' ? p.hostPath : undefined;
}
