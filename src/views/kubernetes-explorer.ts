// Windows facts for the Kubernetes extension's Cluster Explorer (ms-kubernetes-tools), which shows
// every Node the same way: which of the current context's nodes run Windows, and the words we add
// to their rows. VS Code-free; src/extension/kubernetes-tools.ts wires it to that extension's API.
import { within } from '../core/delay';
import { loadKubeconfig } from '../cluster/kubeconfig';
import { ClusterSession } from '../cluster/session';
import type { WindowsNodeView } from '../cluster/windows-nodes';

/** The description and tooltip lines added to a Windows node's row. */
export function windowsNodeDecoration(n: WindowsNodeView): { description: string; tooltip: string } {
  const version = n.windowsVersion ?? 'Windows';
  const parts = [version];
  if (n.build) parts.push(n.build);
  if (n.wmco.version) parts.push(`WMCO ${n.wmco.version}`);
  const lines = [`${version}${n.build ? ` (build ${n.build})` : ''}`];
  if (n.containerRuntimeVersion) lines.push(`Runtime: ${n.containerRuntimeVersion}`);
  if (n.kubeletVersion) lines.push(`Kubelet: ${n.kubeletVersion}`);
  if (n.problems.length) lines.push(`Problems: ${n.problems.join(', ')}`);
  lines.push('Windows details, pods, logs and actions: kube-windows → Clusters ("Show in kube-windows").');
  return { description: parts.join(' · '), tooltip: lines.join('\n') };
}

export interface WindowsNodeLookupOptions {
  /** How long one row may wait for the first list of Windows nodes. Default 3000 ms. */
  waitMs?: number;
}

/**
 * The Windows nodes of one kubeconfig's current context, listed once and then kept by the node
 * watch; `reset()` when the Kubernetes extension switches context or kubeconfig.
 */
export class WindowsNodeLookup {
  private session: ClusterSession | undefined;
  private opened = false;

  constructor(
    private kubeconfigPath: () => string | undefined,
    private readonly options: WindowsNodeLookupOptions = {},
  ) {}

  /** The Windows view of a node of the current context; undefined for other nodes, errors and slow answers. */
  async find(name: string): Promise<WindowsNodeView | undefined> {
    const session = this.current();
    if (!session) return undefined;
    const model = await within(
      session.windowsNodes().catch(() => undefined),
      this.options.waitMs ?? 3000,
    );
    return model?.get(name);
  }

  /** The context the rows belong to, for messages. */
  get context(): string | undefined {
    return this.current()?.context;
  }

  reset(): void {
    this.session?.dispose();
    this.session = undefined;
    this.opened = false;
  }

  dispose(): void {
    this.reset();
  }

  private current(): ClusterSession | undefined {
    if (!this.opened) {
      this.opened = true;
      const load = loadKubeconfig({ explicit: this.kubeconfigPath() });
      if (load.ok && load.currentContext) this.session = new ClusterSession(load.currentContext, load.config);
    }
    return this.session;
  }
}
