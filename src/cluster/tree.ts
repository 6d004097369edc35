// The cluster explorer as a pure tree model: plain item descriptors over the cluster model, no VS Code.
// Roots are the kubeconfig contexts; nothing contacts a cluster until the children of a context are asked.
// Windows node watch events update only the item of the node that changed.
//
// Identity and timing follow what VS Code's tree needs (its extension host registers each child by id
// after our answer, and throws "Element with id … is already registered" when an id comes back while it
// is still registered from an answer it could no longer clear):
// - one descriptor object per id, refilled in place, so the same node is the same element;
// - an answer that needs the network and takes longer than `loadingAfterMs` is a loading row at once,
//   and the real children follow with a change event for that parent (loading resolves, never races);
// - a change event for an item waits while the view is loading children at or below it (answers under
//   way, or given less than SETTLE_MS ago: the view asks for expanded items level by level, and a
//   refresh in between leaves them empty), and is fired for the item that changed, not the whole tree;
// - an answer overtaken by a newer ask at or above it ends empty (the view has forgotten where it
//   would go).
import type { ClusterSnapshot } from '../core/rules/facts';
import type { ClusterErrorItem } from './errors';
import { isErrorItem, type ByohInstance, type ClusterRuntimeClass, type MirrorSetView } from './extras';
import { loadKubeconfig, watchKubeconfig, type ContextInfo, type KubeconfigLoad, type KubeconfigWatcher, type LocateOptions } from './kubeconfig';
import { SessionManager, type ClusterSession, type SessionInfo, type SessionOptions } from './session';
import { snapshotOf } from './snapshot';
import { age, machineSetView, machineView, type MachineSetView, type MachineView } from '../core/openshift/machine-state';
import type { MachineApiObject } from '../core/openshift/machineset';
import { platformTitle } from '../core/openshift/machines';
import { MACHINES_PATH, MACHINESETS_PATH } from './machinesets';
import type { NodeChange, WindowsNodeModel, WindowsNodeView } from './windows-nodes';
import { nodeFactsOfView, type NodePodWatch, type PodView } from './node-pods';
import { buildSnapshot } from './snapshot';
import { explainPod, type Explanation } from '../core/live/explain';

export type ContextValue =
  | 'cluster'
  | 'cluster.openshift'
  | 'windowsNode'
  | 'windowsNode.cordoned'
  | 'windowsService'
  | 'windowsService.stopped'
  | 'byohInstance'
  | 'pod'
  | 'mirrorSet'
  | 'runtimeClass'
  | 'machineSet'
  | 'machine'
  | 'error'
  | 'group'
  | 'info';

export interface TreeIcon {
  /** A codicon name. */
  id: string;
  /** A theme color id. */
  color?: string;
}

/** The groups a cluster or a node shows. */
export type GroupKey = 'nodes' | 'machineSets' | 'byoh' | 'mirrors' | 'runtimeClasses' | 'pods' | 'services';

/**
 * What an item stands for, typed: commands read this, never the id (the id is only VS Code's handle).
 * `detail` is everything else under a cluster (info rows, conditions, taints, placeholders, errors).
 */
export type TreeRef =
  | { kind: 'kubeconfig' }
  | { kind: 'cluster'; context: string }
  | { kind: 'group'; context: string; group: GroupKey; node?: string }
  | { kind: 'node'; context: string; node: string }
  | { kind: 'pod'; context: string; node: string; namespace: string; name: string }
  | { kind: 'service'; context: string; node: string; service: string }
  | { kind: 'byohInstance'; context: string; address: string }
  | { kind: 'mirrorSet'; context: string; setKind: string; name: string }
  | { kind: 'runtimeClass'; context: string; name: string }
  | { kind: 'machineSet'; context: string; machineSet: string }
  | { kind: 'machine'; context: string; machineSet: string; machine: string }
  | { kind: 'detail'; context: string; node?: string };

export interface TreeNode {
  /** VS Code's handle, stable across refreshes, e.g. `ctx/<context>/node/<name>`; never parsed. */
  id: string;
  /** What the item stands for (set by the tree for every item it hands out). */
  ref?: TreeRef;
  label: string;
  description?: string;
  /** Markdown. */
  tooltip: string;
  icon: TreeIcon;
  contextValue: ContextValue;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: { id: string; title: string; args: unknown[] };
  /** The object as the API server returns it (never a Secret), for a read-only YAML view. */
  yaml?: () => Promise<object>;
}

const RETRY_COMMAND = 'kubeWindows.retry';

const COLORS = {
  ok: 'testing.iconPassed',
  error: 'problemsErrorIcon.foreground',
  warning: 'problemsWarningIcon.foreground',
} as const;

export interface ClusterTreeOptions {
  /** The kubeWindows.kubeconfig setting and the environment (for tests). */
  locate?: LocateOptions;
  session?: SessionOptions;
  /** Watch the kubeconfig files and reload on change. Default true. */
  watchKubeconfig?: boolean;
  /** Minimum interval between two snapshots of the active context. Default 1000 ms. */
  snapshotThrottleMs?: number;
  /**
   * How long an answer may take before a loading row stands in for it (the children then follow with a
   * change event). Default 150 ms.
   */
  loadingAfterMs?: number;
  /**
   * The services of a Windows node (read over SSH by the extension). When set, each node item gets a
   * "Services" group; without it (the CLI, tests of the plain tree) there is none.
   */
  services?: NodeServicesSource;
}

/** One row of a node's Services group. */
export interface ServiceRow {
  name: string;
  exists: boolean;
  status: string | null;
  startType?: string | null;
}

/** What the services source answers: the rows, "connect first" (no usable SSH credentials), or a failure. */
export type NodeServicesAnswer = { services: ServiceRow[] } | { connect: string } | { error: string };
export type NodeServicesSource = (context: string, node: WindowsNodeView) => Promise<NodeServicesAnswer>;

const CONNECT_SERVICES_COMMAND = 'kubeWindows.connectServices';
/** Internal: asks a node's Services group again, with (context, node name). */
export const REFRESH_SERVICES_COMMAND = 'kubeWindows.refreshServices';

type Listener<T> = (e: T) => void;

class Emitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (l: Listener<T>): { dispose(): void } => {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  clear(): void {
    this.listeners.clear();
  }
}

/** Markdown-escapes a text from the cluster. */
export function md(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

const enc = encodeURIComponent;

/** Drops noise (managedFields) and refuses Secrets: the YAML view never shows one. */
export function forDisplay(obj: unknown): object {
  const o = (obj ?? {}) as { kind?: string; metadata?: Record<string, unknown> };
  if (o.kind === 'Secret') throw new Error('Secrets are not shown');
  if (o.metadata && 'managedFields' in o.metadata) {
    const metadata = { ...o.metadata };
    delete metadata.managedFields;
    return { ...o, metadata };
  }
  return o;
}

export class ClusterTree {
  private load: KubeconfigLoad | undefined;
  private manager: SessionManager | undefined;
  private watcher: KubeconfigWatcher | undefined;
  /** The last descriptors handed out, by id (a refresh of one item re-fills the same object). */
  private readonly items = new Map<string, TreeNode>();
  private readonly resolvers = new Map<string, () => Promise<TreeNode[]>>();
  /** The parent of each item handed out (undefined: a root), to know what lies below an item. */
  private readonly parents = new Map<string, string | undefined>();
  /** Children being asked, by parent id: the answers under way (more than one when the view asked again). */
  private readonly asking = new Map<string, Set<Ask>>();
  /** Changes held back while children at or below them are being asked. */
  private readonly held = new Set<string>();
  /** Children that arrived after a loading row was shown, kept for the next ask (with their time). */
  private readonly arrived = new Map<string, { nodes: TreeNode[]; at: number }>();
  /** When each item's change was last fired: the tree refreshes an item shortly after its event. */
  private readonly firedAt = new Map<string, number>();
  /** When the children of each item were last answered (registered by the view). */
  private readonly answeredAt = new Map<string, number>();
  private releaseTimer: NodeJS.Timeout | undefined;
  private readonly watchedModels = new WeakSet<WindowsNodeModel>();
  private readonly changeEmitter = new Emitter<string | undefined>();
  private readonly snapshotEmitter = new Emitter<ClusterSnapshot | null>();
  private snapshotTimer: NodeJS.Timeout | undefined;
  private lastSnapshotAt = 0;
  private disposed = false;

  /** Fires with the id of the item that changed, or undefined when the whole tree did. */
  readonly onDidChange = this.changeEmitter.event;
  /** Fires (throttled) with the snapshot of the current context once its Windows nodes loaded or changed. */
  readonly onSnapshot = this.snapshotEmitter.event;

  constructor(private readonly options: ClusterTreeOptions = {}) {}

  /** True when there is no kubeconfig at all: the view shows its welcome content. */
  get noKubeconfig(): boolean {
    const load = this.ensureLoaded();
    return !load.ok && /^no kubeconfig/.test(load.message);
  }

  /** The kubeconfig's current-context. */
  get activeContext(): string | undefined {
    const load = this.ensureLoaded();
    return load.ok ? load.currentContext : undefined;
  }

  get kubeconfigFiles(): string[] {
    return this.ensureLoaded().location.files;
  }

  /** The descriptor last handed out under this id. */
  item(id: string): TreeNode | undefined {
    return this.items.get(id);
  }

  /** The item an item was handed out under (undefined for the roots), as VS Code's reveal needs it. */
  parentOf(item: TreeNode): TreeNode | undefined {
    const id = this.parents.get(item.id);
    return id === undefined ? undefined : this.items.get(id);
  }

  /** The root item of a context, and the item of one of its Windows nodes once the view has listed it. */
  contextItem(context: string): TreeNode | undefined {
    return this.items.get(`ctx/${enc(context)}`);
  }

  listedWindowsNode(context: string, node: string): TreeNode | undefined {
    return this.items.get(`ctx/${enc(context)}/node/${enc(node)}`);
  }

  /**
   * The children of an item (the roots without one). Answers within `loadingAfterMs`: what is not known
   * by then is a loading row, replaced through a change event of `parent` once it arrived.
   */
  async children(parent?: TreeNode): Promise<TreeNode[]> {
    // Asking for the children of an item (or the roots) makes the view forget what it registered below
    // it: an answer still under way there would register into what was forgotten, and the next ask of
    // the same ids would clash with it. Such answers end empty; the newer ask carries the children.
    this.supersede(parent?.id);
    if (!parent) return this.roots();
    const id = parent.id;
    const arrived = this.arrived.get(id);
    this.arrived.delete(id);
    if (arrived && Date.now() - arrived.at < ARRIVED_TTL_MS) return this.remember(arrived.nodes, id);
    const resolve = this.resolvers.get(id);
    if (!resolve) return [];
    const ask: Ask = { superseded: false };
    const asks = this.asking.get(id) ?? new Set<Ask>();
    asks.add(ask);
    this.asking.set(id, asks);
    try {
      const pending = resolve().catch((err: unknown) => [failedNode(`${id}/error`, err)]);
      // Right after this item (or one above it) changed, the view is about to ask again: answer at once.
      const waitMs = this.refreshComing(id) ? 0 : (this.options.loadingAfterMs ?? 150);
      const answer = await within(pending, waitMs);
      if (ask.superseded) return [];
      if (answer) return this.remember(answer, id);
      void pending.then((nodes) => {
        if (this.disposed) return;
        this.arrived.set(id, { nodes, at: Date.now() });
        this.notify(id);
      });
      return this.remember([loadingNode(`${id}/loading`, parent)], id);
    } finally {
      // The view registers our answer in the microtasks that follow it: the ask ends after those, so
      // that a change held for it cannot refresh the parent before its children are registered.
      setTimeout(() => {
        asks.delete(ask);
        if (!asks.size && this.asking.get(id) === asks) this.asking.delete(id);
        this.answeredAt.set(id, Date.now());
        this.releaseHeld();
      }, 0);
    }
  }

  /** Marks the answers under way at or below `id` (all of them for the roots) as superseded. */
  private supersede(id: string | undefined): void {
    for (const [asked, asks] of this.asking) {
      if (id !== undefined && !this.isAtOrBelow(asked, id)) continue;
      for (const a of asks) a.superseded = true;
    }
  }

  /** Reloads the kubeconfig and forgets every session: everything is asked again. */
  refresh(): void {
    this.manager?.dispose();
    this.manager = undefined;
    this.load = undefined;
    this.resolvers.clear();
    this.arrived.clear();
    this.podGroups.clear();
    this.notify(undefined);
  }

  /** The action of an error item: reconnect the cluster (an error of the cluster itself) or ask its parent again. */
  retry(errorId: string): void {
    if (!this.items.has(errorId)) return;
    const parentId = this.parents.get(errorId);
    const parent = parentId === undefined ? undefined : this.items.get(parentId);
    if (!parent) {
      this.refresh(); // the kubeconfig's own error (a root), or an item no longer shown
      return;
    }
    if (parent.ref?.kind === 'cluster') void this.manager?.session(parent.ref.context)?.reconnect();
    this.notify(parent.id);
  }

  /** Asks the Services group of a node again (after its SSH credentials were given). */
  refreshServices(context: string, node: string): void {
    const id = this.serviceGroups.get(`${context}\u0000${node}`);
    if (id !== undefined) this.notify(id);
  }

  /**
   * Reads the Windows MachineSets of a context again after a command changed them (created, scaled,
   * a Machine deleted, a follow's progress): the MachineSet's item is refilled and its change fired
   * (its Machines are asked again); a MachineSet the view does not show yet, or no longer exists,
   * changes the group instead.
   */
  async refreshMachineSet(context: string, name?: string): Promise<void> {
    const ctxId = `ctx/${enc(context)}`;
    const gid = `${ctxId}/group/machineSets`;
    if (!this.items.has(gid)) return;
    const session = this.session(context);
    const id = name === undefined ? undefined : machineSetId(ctxId, name);
    if (!session || id === undefined || !this.items.has(id)) return this.notify(gid);
    const read = await session.windowsMachineSets();
    const ms = isErrorItem(read) ? undefined : read.sets.find((m) => m.metadata.name === name);
    if (this.disposed) return;
    if (!ms) return this.notify(gid);
    this.remember([this.machineSetItem(ctxId, ms, session)], gid);
    this.notify(id);
  }

  /** The Services group id of each node item handed out, by context and node name. */
  private readonly serviceGroups = new Map<string, string>();

  dispose(): void {
    this.disposed = true;
    this.watcher?.close();
    this.manager?.dispose();
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    if (this.releaseTimer) clearTimeout(this.releaseTimer);
    this.changeEmitter.clear();
    this.snapshotEmitter.clear();
  }

  private ensureLoaded(): KubeconfigLoad {
    if (!this.load) {
      const load = loadKubeconfig(this.options.locate ?? {});
      this.load = load;
      if (load.ok) {
        if (this.manager) this.manager.update(load.config);
        else this.manager = new SessionManager(load.config, this.options.session);
      }
      if (this.options.watchKubeconfig !== false && !this.watcher && !this.disposed) {
        this.watcher = watchKubeconfig(load.location.files, () => this.kubeconfigChanged());
      }
    }
    return this.load;
  }

  private kubeconfigChanged(): void {
    if (this.disposed) return;
    const before = this.load?.ok ? this.load.currentContext : undefined;
    const files = this.load?.location.files.join('\n');
    this.load = undefined;
    const load = this.ensureLoaded();
    if (files !== load.location.files.join('\n')) {
      this.watcher?.close();
      this.watcher = undefined;
      this.load = undefined;
      this.ensureLoaded();
    }
    if (before !== (load.ok ? load.currentContext : undefined)) this.snapshotEmitter.fire(null);
    this.notify(undefined);
  }

  /**
   * Fires a change: for the whole tree at once (VS Code cancels every answer under way then); for one
   * item only when the view is not loading at or below it (no answer under way there, none in the last
   * SETTLE_MS: the view asks for the children of expanded items one level after the other, and a
   * refresh of the item in between would leave them without their children), else once it is quiet.
   */
  private notify(id: string | undefined): void {
    if (this.disposed) return;
    if (id === undefined) {
      this.held.clear();
      this.changeEmitter.fire(undefined);
      return;
    }
    if (this.loadingAtOrBelow(id)) {
      this.held.add(id);
      this.scheduleRelease();
      return;
    }
    this.firedAt.set(id, Date.now());
    this.changeEmitter.fire(id);
  }

  private releaseHeld(): void {
    for (const id of [...this.held]) {
      if (this.loadingAtOrBelow(id)) continue;
      this.held.delete(id);
      this.notify(id);
    }
    if (this.held.size) this.scheduleRelease();
  }

  private scheduleRelease(): void {
    if (this.releaseTimer || this.disposed) return;
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = undefined;
      this.releaseHeld();
    }, SETTLE_MS);
    this.releaseTimer.unref?.();
  }

  private loadingAtOrBelow(id: string): boolean {
    for (const asked of this.asking.keys()) if (this.isAtOrBelow(asked, id)) return true;
    const now = Date.now();
    for (const [asked, at] of this.answeredAt) {
      if (now - at >= SETTLE_MS) this.answeredAt.delete(asked);
      else if (this.isAtOrBelow(asked, id)) return true;
    }
    return false;
  }

  /** Whether `id` is `ancestor` or lies below it. */
  private isAtOrBelow(id: string | undefined, ancestor: string): boolean {
    for (let at = id, hops = 0; at !== undefined && hops < 64; at = this.parents.get(at), hops++) if (at === ancestor) return true;
    return false;
  }

  /** Whether a change of this item or of one above it was fired so recently that the view has yet to act on it. */
  private refreshComing(id: string): boolean {
    const now = Date.now();
    for (let at: string | undefined = id, hops = 0; at !== undefined && hops < 64; at = this.parents.get(at), hops++) {
      const t = this.firedAt.get(at);
      if (t !== undefined && now - t < REFRESH_WINDOW_MS) return true;
    }
    return false;
  }

  private remember(nodes: TreeNode[], parentId?: string): TreeNode[] {
    const parentRef = parentId === undefined ? undefined : this.items.get(parentId)?.ref;
    for (const n of nodes) {
      n.ref ??= detailRef(parentRef);
      this.parents.set(n.id, parentId);
      const old = this.items.get(n.id);
      if (old) {
        for (const key of Object.keys(old) as (keyof TreeNode)[]) delete old[key];
        Object.assign(old, n);
      } else this.items.set(n.id, n);
    }
    return nodes.map((n) => this.items.get(n.id) ?? n);
  }

  private roots(): TreeNode[] {
    const load = this.ensureLoaded();
    if (!load.ok) {
      if (this.noKubeconfig) return [];
      return this.remember([errorNode('kubeconfig/error', { kind: 'error', reason: 'config', message: load.message, what: 'kubeconfig' })]);
    }
    return this.remember(load.contexts.map((c) => this.contextNode(c, c.name === load.currentContext)));
  }

  private session(context: string): ClusterSession | undefined {
    this.ensureLoaded();
    return this.manager?.session(context);
  }

  private contextNode(c: ContextInfo, current: boolean): TreeNode {
    const id = `ctx/${enc(c.name)}`;
    const flavour = this.manager && this.load?.ok ? this.session(c.name)?.state : undefined;
    const openshift = flavour?.status === 'connected' && flavour.info.flavour === 'openshift';
    this.resolvers.set(id, () => this.clusterChildren(id, c.name));
    const tooltip = [
      `**${md(c.name)}**${current ? ' (current context)' : ''}`,
      '',
      `- Cluster: ${md(c.cluster)}`,
      `- User: ${md(c.user)}`,
      c.server ? `- Server: ${md(c.server)}` : '',
      c.namespace ? `- Namespace: ${md(c.namespace)}` : '',
      c.file ? `- From: ${md(c.file)}` : '',
    ].filter(Boolean);
    const node: TreeNode = {
      id,
      label: c.name,
      tooltip: tooltip.join('\n'),
      icon: { id: current ? 'server-environment' : 'server' },
      contextValue: openshift ? 'cluster.openshift' : 'cluster',
      collapsible: current ? 'expanded' : 'collapsed',
      ref: { kind: 'cluster', context: c.name },
    };
    const description = [current ? 'current' : '', c.server ?? ''].filter(Boolean).join(' · ');
    if (description) node.description = description;
    return node;
  }

  private async clusterChildren(id: string, context: string): Promise<TreeNode[]> {
    const session = this.session(context);
    if (!session) return [];
    const state = await session.connect();
    if (state.status === 'error') return [errorNode(`${id}/error`, state.error)];
    // The root's contextValue follows the flavour now known. The descriptor is the element the view
    // hands to commands, so they see it at once; no change event: the menus are the same for both
    // flavours, and refreshing the cluster now would drop the children the view is still loading.
    const root = this.items.get(id);
    if (root && state.info.flavour === 'openshift') root.contextValue = 'cluster.openshift';
    const out: TreeNode[] = [infoNode(`${id}/info`, state.info)];
    state.info.errors.forEach((e, i) => out.push(errorNode(`${id}/error/${i}`, e)));
    const group = (key: GroupKey, label: string, icon: string, resolve: (gid: string) => Promise<TreeNode[]>, tooltip: string): TreeNode => {
      const gid = `${id}/group/${key}`;
      this.resolvers.set(gid, () => resolve(gid));
      return { id: gid, label, tooltip, icon: { id: icon }, contextValue: 'group', collapsible: key === 'nodes' ? 'expanded' : 'collapsed', ref: { kind: 'group', context, group: key } };
    };
    out.push(group('nodes', 'Windows nodes', 'vm', (gid) => this.nodeItems(gid, id, session), 'Nodes labelled `kubernetes.io/os=windows`, kept up to date by a watch.'));
    // Only OpenShift has the Machine API: elsewhere the group is not shown at all.
    if (state.info.flavour === 'openshift') {
      out.push(
        group(
          'machineSets',
          'Windows MachineSets',
          'server-process',
          (gid) => this.machineSetItems(gid, id, session),
          'MachineSets in `openshift-machine-api` whose Machines are Windows ones (label `machine.openshift.io/os-id` or a Windows image), with their Machines.',
        ),
      );
    }
    out.push(group('byoh', 'BYOH instances', 'remote', (gid) => this.byohItems(gid, id, session), 'Entries of the `windows-instances` ConfigMap (bring-your-own-host Windows instances).'));
    out.push(group('mirrors', 'Mirror sets', 'mirror', (gid) => this.mirrorItems(gid, id, session), 'ImageDigestMirrorSets and ImageTagMirrorSets.'));
    out.push(group('runtimeClasses', 'Windows RuntimeClasses', 'symbol-class', (gid) => this.runtimeClassItems(gid, id, session), 'RuntimeClasses that schedule onto Windows nodes.'));
    return out;
  }

  private async nodeItems(gid: string, ctxId: string, session: ClusterSession): Promise<TreeNode[]> {
    const model = await session.windowsNodes();
    this.follow(model, gid, ctxId, session);
    const nodes = model.nodes();
    const out: TreeNode[] = [];
    if (model.error) out.push(errorNode(`${gid}/error`, model.error));
    for (const n of nodes) out.push(this.windowsNodeItem(ctxId, n, session));
    if (!nodes.length && !model.error) out.push(placeholder(`${gid}/none`, 'No Windows nodes', 'No node is labelled `kubernetes.io/os=windows`.'));
    if (session.context === this.activeContext) this.scheduleSnapshot(session);
    return out;
  }

  /** Subscribes once per node model: a modified node refreshes its own item, anything else the group. */
  private follow(model: WindowsNodeModel, gid: string, ctxId: string, session: ClusterSession): void {
    if (this.watchedModels.has(model)) return;
    this.watchedModels.add(model);
    model.on('change', (c: NodeChange) => {
      if (this.disposed) return;
      if (c.type === 'modified') {
        const id = `${ctxId}/node/${enc(c.name)}`;
        if (this.items.has(id)) {
          this.remember([this.windowsNodeItem(ctxId, c.node, session)], gid);
          this.notify(id);
        } else this.notify(gid);
      } else if (c.type !== 'synced' || model.error === undefined) {
        if (c.type === 'removed') this.podGroups.delete(`${ctxId}/node/${enc(c.name)}/pods`);
        this.notify(gid);
      }
      if (c.type !== 'error' && session.context === this.activeContext) this.scheduleSnapshot(session);
    });
  }

  private windowsNodeItem(ctxId: string, n: WindowsNodeView, session: ClusterSession): TreeNode {
    const id = `${ctxId}/node/${enc(n.name)}`;
    this.nodeViews.set(`${session.context}\u0000${n.name}`, n);
    this.resolvers.set(id, async () => this.nodeDetails(id, n.name, session));
    return { ...windowsNodeNode(id, n, () => session.client.get(`/api/v1/nodes/${enc(n.name)}`).then(forDisplay)), ref: { kind: 'node', context: session.context, node: n.name } };
  }

  private nodeDetails(id: string, name: string, session: ClusterSession): TreeNode[] {
    const model = this.nodeViews.get(`${session.context}\u0000${name}`);
    if (!model) return [];
    const out: TreeNode[] = [];
    for (const c of model.conditions) {
      const bad = c.type === 'Ready' ? c.status !== 'True' : c.status === 'True';
      out.push({
        id: `${id}/condition/${enc(c.type)}`,
        label: `${c.type}: ${c.status}`,
        ...(c.reason ? { description: c.reason } : {}),
        tooltip: `**${md(c.type)}** ${md(c.status)}${c.reason ? ` (${md(c.reason)})` : ''}${c.message ? `\n\n${md(c.message)}` : ''}`,
        icon: bad ? { id: 'warning', color: COLORS.warning } : { id: 'pass', color: COLORS.ok },
        contextValue: 'info',
        collapsible: 'none',
      });
    }
    model.taints.forEach((t, i) => {
      const text = `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
      out.push({ id: `${id}/taint/${i}`, label: text, description: 'taint', tooltip: `Taint \`${text.replace(/`/g, "'")}\``, icon: { id: 'tag' }, contextValue: 'info', collapsible: 'none' });
    });
    const pid = `${id}/pods`;
    this.resolvers.set(pid, () => this.podItems(pid, name, session));
    out.push({
      id: pid,
      label: 'Pods',
      tooltip: `Pods scheduled on ${md(name)}, watched while this group is expanded (field selector \`spec.nodeName\`).`,
      icon: { id: 'package' },
      contextValue: 'group',
      collapsible: 'collapsed',
      ref: { kind: 'group', context: session.context, group: 'pods', node: name },
    });
    const services = this.options.services;
    if (services) {
      const sid = `${id}/services`;
      this.serviceGroups.set(`${session.context}\u0000${name}`, sid);
      this.resolvers.set(sid, async () => serviceItems(sid, { context: session.context, node: name }, await services(session.context, model)));
      out.push({
        id: sid,
        label: 'Services',
        tooltip: `The node services of ${md(name)} (kubelet, containerd, kube-proxy, ...), read over SSH.`,
        icon: { id: 'gear' },
        contextValue: 'group',
        collapsible: 'collapsed',
        ref: { kind: 'group', context: session.context, group: 'services', node: name },
      });
    }
    return out;
  }

  /** The last view of each node item, by context and name (node details read it). */
  private readonly nodeViews = new Map<string, WindowsNodeView>();

  /**
   * The children of a node's Pods group, from the node's pod watch (started here, when the view asks
   * for them; stopped when the group is collapsed, the node is gone, or on refresh). Each watched
   * change refreshes this group only. Ages are as of this answer: every change asks again.
   */
  private async podItems(pid: string, nodeName: string, session: ClusterSession): Promise<TreeNode[]> {
    const watch = session.podWatch(nodeName);
    this.podGroups.set(pid, { session, node: nodeName });
    if (!this.watchedPods.has(watch)) {
      this.watchedPods.add(watch);
      watch.on('change', () => this.notify(pid));
    }
    await watch.start();
    const entries = watch.pods();
    const out: TreeNode[] = [];
    if (watch.error) out.push(errorNode(`${pid}/error`, watch.error));
    if (!entries.length && !watch.error) return [placeholder(`${pid}/none`, 'No pods', `No pod is scheduled on ${md(nodeName)}.`)];
    const node = this.nodeViews.get(`${session.context}\u0000${nodeName}`);
    const nodeFacts = node ? nodeFactsOfView(node) : undefined;
    const facts = { cluster: await this.clusterFacts(session) };
    const now = Date.now();
    // Under the node's id: a pod name comes back on another node (a StatefulSet pod rescheduled) while
    // the first node's list may still be shown, and one id must never stand for two rows.
    for (const { view: p, pod } of entries) {
      const yaml = () => session.client.get(`/api/v1/namespaces/${enc(p.namespace)}/pods/${enc(p.name)}`).then(forDisplay);
      const ref: TreeRef = { kind: 'pod', context: session.context, node: nodeName, namespace: p.namespace, name: p.name };
      out.push(withRef(ref, podNode(`${pid}/${enc(p.namespace)}/${enc(p.name)}`, p, explainPod(pod, [], nodeFacts, facts), now, yaml)));
    }
    return out;
  }

  /** The Pods groups whose watch the tree started, by group id. */
  private readonly podGroups = new Map<string, { session: ClusterSession; node: string }>();
  private readonly watchedPods = new WeakSet<NodePodWatch>();
  /** The last snapshot of each context (explanations word themselves with the cluster's facts). */
  private readonly snapshots = new Map<string, ClusterSnapshot>();

  /** The context's last snapshot, else one of its Windows nodes alone. */
  private async clusterFacts(session: ClusterSession): Promise<ClusterSnapshot> {
    const known = this.snapshots.get(session.context);
    if (known) return known;
    return buildSnapshot({ name: session.context, nodes: (await session.windowsNodes()).nodes(), runtimeClasses: [] });
  }

  /**
   * The view collapsed an item (TreeView.onDidCollapseElement). A collapsed Pods group stops its pod
   * watch, and its change marks it stale in the view: expanding it asks for its children (and starts
   * the watch) again, instead of showing what the view kept from before.
   */
  collapsed(item: TreeNode): void {
    const group = this.podGroups.get(item.id);
    if (!group) return;
    this.podGroups.delete(item.id);
    group.session.stopPodWatch(group.node);
    this.notify(item.id);
  }

  /** The nodes whose pods are watched now, by context (for tests and the trace log). */
  watchedPodNodes(context: string): string[] {
    return this.manager?.session(context)?.watchedPodNodes ?? [];
  }

  private async machineSetItems(gid: string, ctxId: string, session: ClusterSession): Promise<TreeNode[]> {
    const read = await session.windowsMachineSets();
    if (isErrorItem(read)) return [errorNode(`${gid}/error`, read)];
    if (!read.available) return [placeholder(`${gid}/none`, 'Not available', 'This cluster serves no Machine API (`machine.openshift.io`): its Windows nodes are not made from MachineSets.')];
    if (!read.sets.length) {
      return [placeholder(`${gid}/none`, 'No Windows MachineSets', 'No MachineSet in `openshift-machine-api` makes Windows Machines. Right-click the cluster: **Create Windows MachineSet…**')];
    }
    return read.sets.map((ms) => this.machineSetItem(ctxId, ms, session));
  }

  private machineSetItem(ctxId: string, ms: MachineApiObject, session: ClusterSession): TreeNode {
    const name = ms.metadata.name;
    const id = machineSetId(ctxId, name);
    this.resolvers.set(id, () => this.machineItems(id, name, session));
    const yaml = () => session.client.get(`${MACHINESETS_PATH}/${enc(name)}`).then(forDisplay);
    return withRef({ kind: 'machineSet', context: session.context, machineSet: name }, machineSetNode(id, machineSetView(ms), yaml));
  }

  private async machineItems(msId: string, machineSet: string, session: ClusterSession): Promise<TreeNode[]> {
    const machines = await session.machines(machineSet);
    if (isErrorItem(machines)) return [errorNode(`${msId}/error`, machines)];
    if (!machines.length) return [placeholder(`${msId}/none`, 'No Machines', `MachineSet ${md(machineSet)} has no Machines (0 replicas, or the machine controller has not made them yet).`)];
    const now = Date.now();
    return machines.map((m) => {
      const name = m.metadata.name;
      const yaml = () => session.client.get(`${MACHINES_PATH}/${enc(name)}`).then(forDisplay);
      return withRef({ kind: 'machine', context: session.context, machineSet, machine: name }, machineNode(`${msId}/machine/${enc(name)}`, machineView(m), now, yaml));
    });
  }

  private async byohItems(gid: string, ctxId: string, session: ClusterSession): Promise<TreeNode[]> {
    const byoh = await session.byohInstances();
    if (isErrorItem(byoh)) return [errorNode(`${gid}/error`, byoh)];
    if (!byoh.configMap) return [placeholder(`${gid}/none`, 'No windows-instances ConfigMap', 'WMCO reads BYOH instances from the `windows-instances` ConfigMap; there is none.')];
    if (!byoh.instances.length) return [placeholder(`${gid}/none`, 'No BYOH instances', 'The `windows-instances` ConfigMap is empty.')];
    return byoh.instances.map((i) => withRef({ kind: 'byohInstance', context: session.context, address: i.address }, byohNode(`${ctxId}/byoh/${enc(i.address)}`, i)));
  }

  private async mirrorItems(gid: string, ctxId: string, session: ClusterSession): Promise<TreeNode[]> {
    const sets = await session.mirrorSets();
    if (isErrorItem(sets)) return [errorNode(`${gid}/error`, sets)];
    if (!sets.available) return [placeholder(`${gid}/none`, 'Not available', 'This cluster has no ImageDigestMirrorSet or ImageTagMirrorSet API (not OpenShift).')];
    if (!sets.sets.length) return [placeholder(`${gid}/none`, 'No mirror sets', 'No ImageDigestMirrorSet or ImageTagMirrorSet.')];
    return sets.sets.map((s) => {
      const plural = s.kind === 'ImageDigestMirrorSet' ? 'imagedigestmirrorsets' : 'imagetagmirrorsets';
      const ref: TreeRef = { kind: 'mirrorSet', context: session.context, setKind: s.kind, name: s.name };
      return withRef(
        ref,
        mirrorNode(`${ctxId}/mirrorSet/${s.kind}/${enc(s.name)}`, s, () => session.client.get(`/apis/config.openshift.io/v1/${plural}/${enc(s.name)}`).then(forDisplay)),
      );
    });
  }

  private async runtimeClassItems(gid: string, ctxId: string, session: ClusterSession): Promise<TreeNode[]> {
    const rcs = await session.runtimeClasses();
    if (isErrorItem(rcs)) return [errorNode(`${gid}/error`, rcs)];
    if (!rcs.length) return [placeholder(`${gid}/none`, 'No Windows RuntimeClasses', 'No RuntimeClass selects `kubernetes.io/os=windows` nodes.')];
    return rcs.map((rc) =>
      withRef(
        { kind: 'runtimeClass', context: session.context, name: rc.name },
        runtimeClassNode(`${ctxId}/runtimeClass/${enc(rc.name)}`, rc, () => session.client.get(`/apis/node.k8s.io/v1/runtimeclasses/${enc(rc.name)}`).then(forDisplay)),
      ),
    );
  }

  private scheduleSnapshot(session: ClusterSession): void {
    if (this.snapshotTimer || this.disposed) return;
    const throttle = this.options.snapshotThrottleMs ?? 1000;
    const wait = Math.max(0, this.lastSnapshotAt + throttle - Date.now());
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = undefined;
      this.lastSnapshotAt = Date.now();
      if (this.disposed || session.context !== this.activeContext) return;
      void snapshotOf(session).then((s) => {
        if (s) this.snapshots.set(session.context, s);
        if (!this.disposed && s) this.snapshotEmitter.fire(s);
      });
    }, wait);
    this.snapshotTimer.unref?.();
  }
}

/** A MachineSet's item id: under its context (MachineSets live in one namespace, openshift-machine-api). */
const machineSetId = (ctxId: string, name: string): string => `${ctxId}/machineSet/${enc(name)}`;

/** One answer under way; superseded when the view asked again at or above it meanwhile. */
interface Ask {
  superseded: boolean;
}

/**
 * VS Code refreshes an item at once on a first change event and batches further ones for 200 ms (a
 * leading debounce): within this window after an event, a refresh of that item is still to come.
 */
const REFRESH_WINDOW_MS = 400;
/** Quiet time after an answer before a change at or above it fires (the view asks level by level). */
const SETTLE_MS = 200;
/** Children that arrived for a parent the view did not ask again within this time are asked afresh. */
const ARRIVED_TTL_MS = 5_000;

/** The value of a promise if it settles within `ms`, else undefined (the promise goes on). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((res) => {
    timer = setTimeout(() => res(undefined), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- descriptors (pure) ----

function withRef(ref: TreeRef, node: TreeNode): TreeNode {
  node.ref = ref;
  return node;
}

/** The reference of an item that is none of the named kinds: its parent's cluster (and node). */
function detailRef(parent: TreeRef | undefined): TreeRef {
  if (!parent || parent.kind === 'kubeconfig') return { kind: 'kubeconfig' };
  const node = 'node' in parent ? parent.node : undefined;
  return node === undefined ? { kind: 'detail', context: parent.context } : { kind: 'detail', context: parent.context, node };
}

/** Stands in for children still being read; the parent's change event replaces it. */
function loadingNode(id: string, parent: Pick<TreeNode, 'contextValue' | 'label' | 'description'>): TreeNode {
  const connecting = parent.contextValue.startsWith('cluster');
  const label = connecting ? 'Connecting…' : 'Loading…';
  return { id, label, tooltip: connecting ? `Connecting to ${md(parent.label)}…` : `Reading ${md(parent.label)}…`, icon: { id: 'loading~spin' }, contextValue: 'info', collapsible: 'none' };
}

/** An unexpected failure of a resolver (they return error items for what they expect). */
function failedNode(id: string, err: unknown): TreeNode {
  return errorNode(id, { kind: 'error', reason: 'other', message: err instanceof Error ? err.message : String(err) });
}

export function errorNode(id: string, e: ClusterErrorItem): TreeNode {
  return {
    id,
    label: e.what ? `${e.what}: ${shortReason(e)}` : shortReason(e),
    description: e.message,
    tooltip: `**${md(e.what ?? 'Error')}**\n\n${md(e.message)}\n\n_Click to retry._`,
    icon: { id: 'error', color: COLORS.error },
    contextValue: 'error',
    collapsible: 'none',
    command: { id: RETRY_COMMAND, title: 'Retry', args: [id] },
  };
}

function shortReason(e: ClusterErrorItem): string {
  switch (e.reason) {
    case 'forbidden':
      return 'permission denied';
    case 'unauthorized':
      return 'not logged in';
    case 'timeout':
    case 'unreachable':
      return 'cluster does not answer';
    case 'exec':
      return 'credential plugin failed';
    case 'tls':
      return 'TLS error';
    case 'config':
      return 'kubeconfig problem';
    default:
      return 'failed';
  }
}

/** The children of a node's Services group (pure). The error item's retry asks the group again. */
function serviceItems(sid: string, node: { context: string; node: string }, answer: NodeServicesAnswer): TreeNode[] {
  if ('connect' in answer) {
    // The command gets the node as an item with its reference, as if run on the node itself.
    const nodeItem: Pick<TreeNode, 'ref'> = { ref: { kind: 'node', ...node } };
    return [
      {
        id: `${sid}/connect`,
        label: 'Connect to show services…',
        tooltip: md(answer.connect),
        icon: { id: 'plug' },
        contextValue: 'info',
        collapsible: 'none',
        command: { id: CONNECT_SERVICES_COMMAND, title: 'Connect', args: [nodeItem] },
        ref: { kind: 'detail', ...node },
      },
    ];
  }
  if ('error' in answer) return [errorNode(`${sid}/error`, { kind: 'error', reason: 'other', message: answer.error, what: 'services' })];
  return answer.services.map((s) => {
    const running = s.status === 'Running';
    const state = s.exists ? (s.status ?? 'unknown') : 'not installed';
    return {
      id: `${sid}/${enc(s.name)}`,
      label: s.name,
      description: [state, s.exists && s.startType ? s.startType : ''].filter(Boolean).join(' · '),
      tooltip: `**${md(s.name)}** · ${md(state)}${s.startType ? ` (start type ${md(s.startType)})` : ''}`,
      icon: !s.exists ? { id: 'circle-slash' } : running ? { id: 'pass', color: COLORS.ok } : { id: 'circle-outline', color: COLORS.warning },
      contextValue: !s.exists ? 'info' : running ? 'windowsService' : 'windowsService.stopped',
      collapsible: 'none',
      ref: s.exists ? { kind: 'service', ...node, service: s.name } : { kind: 'detail', ...node },
    };
  });
}

function placeholder(id: string, label: string, tooltip: string): TreeNode {
  return { id, label, tooltip, icon: { id: 'info' }, contextValue: 'info', collapsible: 'none' };
}

function infoLine(info: SessionInfo): string {
  const parts = [info.version ?? 'version unknown', info.flavour === 'openshift' ? 'OpenShift' : 'Kubernetes'];
  if (info.wmco.present) parts.push(['WMCO', info.wmco.version, info.wmco.phase].filter(Boolean).join(' '));
  else if (!info.wmco.error) parts.push('no WMCO');
  if (info.nodes.linux !== undefined && info.nodes.windows !== undefined) parts.push(`${info.nodes.linux} Linux / ${info.nodes.windows} Windows nodes`);
  return parts.join(' · ');
}

function infoNode(id: string, info: SessionInfo): TreeNode {
  const lines = [
    `**${md(info.context)}** at ${md(info.server)}`,
    '',
    `- Server version: ${md(info.version ?? 'unknown')}`,
    `- Flavour: ${info.flavour === 'openshift' ? 'OpenShift' : 'Kubernetes'}`,
    `- WMCO: ${info.wmco.present ? md([info.wmco.csv ?? 'installed', info.wmco.phase].filter(Boolean).join(', ')) : 'not installed'}`,
  ];
  if (info.nodes.windows !== undefined) lines.push(`- Nodes: ${info.nodes.linux ?? '?'} Linux, ${info.nodes.windows} Windows`);
  const wmcoBad = info.wmco.present && info.wmco.phase !== undefined && info.wmco.phase !== 'Succeeded';
  return { id, label: infoLine(info), tooltip: lines.join('\n'), icon: wmcoBad ? { id: 'warning', color: COLORS.warning } : { id: 'info' }, contextValue: 'info', collapsible: 'none' };
}

export function windowsNodeNode(id: string, n: WindowsNodeView, yaml?: () => Promise<object>): TreeNode {
  const readiness = n.ready === true ? 'Ready' : 'NotReady';
  const extras: string[] = [];
  if (n.wmco.upgrading) extras.push('upgrading');
  if (n.cordoned) extras.push('cordoned');
  if (n.provisioning === 'byoh') extras.push('BYOH');
  const description = [n.windowsVersion ?? 'Windows', readiness, ...extras].join(' · ');
  const icon: TreeIcon =
    n.ready === true ? { id: n.wmco.upgrading ? 'sync' : 'vm-active', color: COLORS.ok } : n.ready === false ? { id: 'vm-outline', color: COLORS.error } : { id: 'vm-outline', color: COLORS.warning };
  const lines = [`**${md(n.name)}** · ${readiness}`, ''];
  if (n.windowsVersion) lines.push(`- ${md(n.windowsVersion)}${n.build ? ` (build ${md(n.build)})` : ''}`);
  if (n.osImage) lines.push(`- OS image: ${md(n.osImage)}`);
  if (n.kernelVersion) lines.push(`- Kernel: ${md(n.kernelVersion)}`);
  if (n.kubeletVersion) lines.push(`- Kubelet: ${md(n.kubeletVersion)}`);
  if (n.containerRuntimeVersion) lines.push(`- Runtime: ${md(n.containerRuntimeVersion)}`);
  lines.push(`- Provisioning: ${n.provisioning === 'byoh' ? 'BYOH instance' : 'Machine'}`);
  if (n.wmco.version || n.wmco.desiredVersion) {
    lines.push(`- WMCO: ${md(n.wmco.version ?? 'not configured yet')}${n.wmco.upgrading ? ` → ${md(n.wmco.desiredVersion ?? '?')} (upgrading)` : ''}`);
  }
  if (n.wmco.rebootRequired) lines.push('- Reboot required');
  if (n.cordoned) lines.push('- Cordoned (unschedulable)');
  if (n.problems.length) lines.push(`- Problems: ${n.problems.map(md).join(', ')}`);
  if (n.addresses.length) lines.push(`- Addresses: ${n.addresses.map((a) => md(a.address)).join(', ')}`);
  const node: TreeNode = { id, label: n.name, description, tooltip: lines.join('\n'), icon, contextValue: n.cordoned ? 'windowsNode.cordoned' : 'windowsNode', collapsible: 'collapsed' };
  if (yaml) node.yaml = yaml;
  return node;
}

/**
 * A pod row: "Running · 1/1 · 3 restarts · 5m" (age as of `nowMs`), and when the failure signatures
 * explain it, the worst explanation's icon and title (all of them in the tooltip).
 */
export function podNode(id: string, p: PodView, problems: readonly Explanation[], nowMs: number, yaml?: () => Promise<object>): TreeNode {
  const phase = p.phase ?? 'Unknown';
  const since = age(p.created, nowMs);
  const restarts = `${p.restarts} restart${p.restarts === 1 ? '' : 's'}`;
  const rank = (e: Explanation): number => ['error', 'warning', 'info'].indexOf(e.severity);
  const sorted = [...problems].sort((a, b) => rank(a) - rank(b));
  const worst = sorted[0];
  const description = [phase, `${p.readyCount}/${p.containerCount}`, restarts, since, worst?.title ?? ''].filter(Boolean).join(' · ');
  const ok = p.phase === 'Succeeded' || (p.phase === 'Running' && p.ready);
  const icon: TreeIcon = worst
    ? worst.severity === 'error'
      ? { id: 'error', color: COLORS.error }
      : { id: 'warning', color: COLORS.warning }
    : ok
      ? { id: 'pass', color: COLORS.ok }
      : p.phase === 'Failed'
        ? { id: 'error', color: COLORS.error }
        : { id: 'circle-outline', color: COLORS.warning };
  const lines = [`**${md(p.name)}** · ${md(phase)}`, '', `- Namespace: ${md(p.namespace)}`, `- Ready: ${p.readyCount}/${p.containerCount} containers`, `- Restarts: ${p.restarts}`];
  if (since) lines.push(`- Age: ${since}`);
  if (p.reason) lines.push(`- Reason: ${md(p.reason)}`);
  lines.push('- Images:', ...p.images.map((i) => `  - \`${i.replace(/`/g, "'")}\``));
  for (const e of sorted) {
    lines.push('', `$(${e.severity === 'error' ? 'error' : 'warning'}) **${e.id}** ${md(e.title)}`, '', md(e.message), '', `_Fix:_ ${md(e.fix)}`);
  }
  const node: TreeNode = { id, label: p.name, description, tooltip: lines.join('\n'), icon, contextValue: 'pod', collapsible: 'none' };
  if (yaml) node.yaml = yaml;
  return node;
}

function byohNode(id: string, i: ByohInstance): TreeNode {
  const description = i.invalid ? `invalid: ${i.invalid}` : i.status === 'joined' ? `joined as ${i.node ?? '?'}` : 'not joined';
  const lines = [
    `**${md(i.address)}**`,
    '',
    `- User: ${md(i.username ?? '?')}`,
    `- ${i.status === 'joined' ? `Joined as node ${md(i.node ?? '?')}` : 'Not joined: no Windows node has this address yet'}`,
  ];
  if (i.invalid) lines.push(`- Invalid entry: ${md(i.invalid)} (WMCO rejects the whole ConfigMap)`);
  const plain: Record<string, string> = { address: i.address, status: i.status };
  if (i.username) plain.username = i.username;
  if (i.node) plain.node = i.node;
  return {
    id,
    label: i.address,
    description,
    tooltip: lines.join('\n'),
    icon: i.invalid ? { id: 'warning', color: COLORS.warning } : i.status === 'joined' ? { id: 'plug', color: COLORS.ok } : { id: 'debug-disconnect', color: COLORS.warning },
    contextValue: 'byohInstance',
    collapsible: 'none',
    yaml: () => Promise.resolve(plain),
  };
}

function mirrorNode(id: string, s: MirrorSetView, yaml: () => Promise<object>): TreeNode {
  const lines = [`**${md(s.name)}** (${s.kind})`, '', ...s.mirrors.map((m) => `- ${md(m.source)} → ${m.mirrors.map(md).join(', ')}${m.mirrorSourcePolicy ? ` (${md(m.mirrorSourcePolicy)})` : ''}`)];
  return { id, label: s.name, description: s.kind, tooltip: lines.join('\n'), icon: { id: 'mirror' }, contextValue: 'mirrorSet', collapsible: 'none', yaml };
}

function runtimeClassNode(id: string, rc: ClusterRuntimeClass, yaml: () => Promise<object>): TreeNode {
  const description = [rc.handler, rc.build ? `build ${rc.build}` : 'any build'].join(' · ');
  const selector = Object.entries(rc.nodeSelector).map(([k, v]) => `\`${k}=${v}\``);
  const lines = [`**${md(rc.name)}**`, '', `- Handler: ${md(rc.handler)}`, `- Node selector: ${selector.join(', ') || 'none'}`, `- Tolerations: ${rc.tolerations.length}`];
  return { id, label: rc.name, description, tooltip: lines.join('\n'), icon: { id: 'symbol-class' }, contextValue: 'runtimeClass', collapsible: 'none', yaml };
}

export function machineSetNode(id: string, v: MachineSetView, yaml?: () => Promise<object>): TreeNode {
  const complete = v.ready >= v.desired;
  const description = [`${v.ready}/${v.desired} ready`, v.platform ? platformTitle(v.platform) : '', v.deleting ? 'deleting' : ''].filter(Boolean).join(' · ');
  const lines = [
    `**${md(v.name)}** · Windows MachineSet`,
    '',
    `- Replicas: ${v.desired} desired, ${v.ready} ready, ${v.available} available`,
    `- Platform: ${v.platform ? platformTitle(v.platform) : 'unknown'}`,
  ];
  if (v.deleting) lines.push('- Being deleted');
  const node: TreeNode = {
    id,
    label: v.name,
    description,
    tooltip: lines.join('\n'),
    icon: complete ? { id: 'server-process', color: COLORS.ok } : { id: 'server-process', color: COLORS.warning },
    contextValue: 'machineSet',
    collapsible: 'expanded',
  };
  if (yaml) node.yaml = yaml;
  return node;
}

export function machineNode(id: string, m: MachineView, nowMs: number, yaml?: () => Promise<object>): TreeNode {
  const since = age(m.created, nowMs);
  const description = [m.deleting ? 'Deleting' : m.phase, m.node ? `node ${m.node}` : '', since, m.error ?? ''].filter(Boolean).join(' · ');
  const lines = [`**${md(m.name)}** · ${md(m.phase)}`, ''];
  if (m.machineSet) lines.push(`- MachineSet: ${md(m.machineSet)}`);
  lines.push(`- Node: ${m.node ? md(m.node) : 'none yet'}`);
  if (since) lines.push(`- Age: ${since}`);
  if (m.error) lines.push(`- Error: ${md(m.error)}`);
  if (m.deleting) lines.push('- Being deleted: the machine controller drains the node and deletes the VM');
  const icon: TreeIcon =
    m.error || m.phase === 'Failed'
      ? { id: 'error', color: COLORS.error }
      : m.deleting
        ? { id: 'trash', color: COLORS.warning }
        : m.phase === 'Running'
          ? { id: 'vm-running', color: COLORS.ok }
          : { id: 'vm-outline', color: COLORS.warning };
  const node: TreeNode = { id, label: m.name, description, tooltip: lines.join('\n'), icon, contextValue: 'machine', collapsible: 'none' };
  if (yaml) node.yaml = yaml;
  return node;
}
