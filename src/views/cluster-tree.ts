// The Clusters view's model: the kubeconfig's contexts as roots, the groups of each cluster
// (cluster-groups.ts), each Windows node with its conditions, taints, pods and services; no VS Code.
// Nothing contacts a cluster until the children of a context are asked. Windows node watch events
// update only the item of the node that changed. Ids, parents and the timing VS Code's tree needs are
// the lazy tree's (lazy-tree.ts); this module says what the items are and when they change.
import type { ClusterSnapshot } from '../core/rules/facts';
import { explainPod } from '../core/live/explain';
import { isErrorItem } from '../cluster/extras';
import {
  loadKubeconfig,
  watchKubeconfig,
  type KubeconfigLoad,
  type KubeconfigWatcher,
  type LocateOptions,
} from '../cluster/kubeconfig';
import { nodePath } from '../cluster/nodes';
import { nodeFactsOfView, type NodePodWatch } from '../cluster/node-pods';
import { podPath } from '../cluster/pods';
import { SessionManager, type ClusterSession, type SessionOptions } from '../cluster/session';
import { buildSnapshot, snapshotOf } from '../cluster/snapshot';
import type { NodeChange, WindowsNodeModel, WindowsNodeView } from '../cluster/windows-nodes';
import { groupsOf, machineSetRow, type GroupContext } from './cluster-groups';
import { detailRef, enc, withRef, type TreeNode } from './cluster-item';
import { Emitter } from './emitter';
import { forDisplay } from './for-display';
import { infoNode } from './items/cluster-info';
import { contextId, contextNode } from './items/context';
import { errorNode, failedNode } from './items/error';
import { clusterErrorNode } from './items/cluster-error';
import { Reconnects, type ReconnectOptions } from './reconnects';
import { groupNode } from './items/group';
import { machineSetId } from './items/machine-set';
import { podNode } from './items/pod';
import { loadingNode, placeholder } from './items/placeholder';
import { serviceItems, type NodeServicesSource } from './items/services';
import { needsNodePods } from '../core/windows/node-components';
import type { Obj } from '../core/manifest/path';
import { nodeFactNodes, windowsNodeId, windowsNodeNode } from './items/windows-node';
import { LazyTree } from './lazy-tree';
import { md } from './markdown';

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
  /** When a cluster that failed to connect is tried again by itself (reconnects.ts). */
  reconnect?: ReconnectOptions;
}

/** Per context and node name, for the maps below. */
const nodeKey = (context: string, node: string): string => `${context}\u0000${node}`;

export class ClusterTree {
  private load: KubeconfigLoad | undefined;
  private manager: SessionManager | undefined;
  private watcher: KubeconfigWatcher | undefined;
  private readonly tree: LazyTree<TreeNode>;
  private readonly watchedModels = new WeakSet<WindowsNodeModel>();
  /** The last view of each node item, by context and name (node details read it). */
  private readonly nodeViews = new Map<string, WindowsNodeView>();
  /** The Services group id of each node item handed out, by context and node name. */
  private readonly serviceGroups = new Map<string, string>();
  /** The Pods groups whose watch the tree started, by group id. */
  private readonly podGroups = new Map<string, { session: ClusterSession; node: string }>();
  private readonly watchedPods = new WeakSet<NodePodWatch>();
  /** The sessions whose changes the tree follows (each once). */
  private readonly followedSessions = new WeakSet<ClusterSession>();
  /** The last snapshot of each context (explanations word themselves with the cluster's facts). */
  private readonly snapshots = new Map<string, ClusterSnapshot>();
  private readonly snapshotEmitter = new Emitter<ClusterSnapshot | null>();
  private snapshotTimer: NodeJS.Timeout | undefined;
  private lastSnapshotAt = 0;
  private disposed = false;
  /** The automatic tries of the clusters that failed to connect, by context. */
  private readonly reconnects: Reconnects;

  /** Fires with the id of the item that changed, or undefined when the whole tree did. */
  readonly onDidChange: LazyTree<TreeNode>['onDidChange'];
  /** Fires (throttled) with the snapshot of the current context once its Windows nodes loaded or changed. */
  readonly onSnapshot = this.snapshotEmitter.event;

  constructor(private readonly options: ClusterTreeOptions = {}) {
    this.tree = new LazyTree<TreeNode>({
      roots: () => this.roots(),
      loading: loadingNode,
      failed: failedNode,
      adopt: (item, parent) => (item.ref ??= detailRef(parent?.ref)),
      ...(options.loadingAfterMs !== undefined ? { loadingAfterMs: options.loadingAfterMs } : {}),
    });
    this.onDidChange = this.tree.onDidChange;
    this.reconnects = new Reconnects(options.reconnect);
  }

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
    return this.tree.item(id);
  }

  /** The item an item was handed out under (undefined for the roots), as VS Code's reveal needs it. */
  parentOf(item: TreeNode): TreeNode | undefined {
    return this.tree.parentOf(item);
  }

  /** The root item of a context, and the item of one of its Windows nodes once the view has listed it. */
  contextItem(context: string): TreeNode | undefined {
    return this.tree.item(contextId(context));
  }

  listedWindowsNode(context: string, node: string): TreeNode | undefined {
    return this.tree.item(windowsNodeId(contextId(context), node));
  }

  /**
   * The children of an item (the roots without one). Answers within `loadingAfterMs`: what is not known
   * by then is a loading row, replaced through a change event of `parent` once it arrived.
   */
  children(parent?: TreeNode): Promise<TreeNode[]> {
    return this.tree.children(parent);
  }

  /** Reloads the kubeconfig and forgets every session: everything is asked again. */
  refresh(): void {
    this.reconnects.dispose();
    this.manager?.dispose();
    this.manager = undefined;
    // A snapshot scheduled for a session of the old manager would read (and watch) through it.
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.snapshotTimer = undefined;
    this.load = undefined;
    this.tree.reset();
    this.podGroups.clear();
    this.tree.notify(undefined);
  }

  /** The action of an error item: reconnect the cluster (an error of the cluster itself) or ask its parent again. */
  retry(errorId: string): void {
    const item = this.tree.item(errorId);
    if (!item) return;
    const parent = this.tree.parentOf(item);
    if (!parent) {
      this.refresh(); // the kubeconfig's own error (a root), or an item no longer shown
      return;
    }
    if (parent.ref?.kind === 'cluster') {
      // The automatic try waits no longer: this one replaces it (its failure schedules the next).
      this.reconnects.forget(parent.ref.context);
      void this.manager?.session(parent.ref.context)?.reconnect();
    }
    this.tree.notify(parent.id);
  }

  /** Asks the Services group of a node again (after its SSH credentials were given). */
  refreshServices(context: string, node: string): void {
    const id = this.serviceGroups.get(nodeKey(context, node));
    if (id !== undefined) this.tree.notify(id);
  }

  /**
   * Reads the Windows MachineSets of a context again after a command changed them (created, scaled,
   * a Machine deleted, a follow's progress): the MachineSet's item is refilled and its change fired
   * (its Machines are asked again); a MachineSet the view does not show yet, or no longer exists,
   * changes the group instead.
   */
  async refreshMachineSet(context: string, name?: string): Promise<void> {
    const ctxId = contextId(context);
    const gid = `${ctxId}/group/machineSets`;
    if (!this.tree.item(gid)) return;
    const session = this.session(context);
    const id = name === undefined ? undefined : machineSetId(ctxId, name);
    if (!session || id === undefined || !this.tree.item(id)) return this.tree.notify(gid);
    const read = await session.windowsMachineSets();
    const ms = isErrorItem(read) ? undefined : read.sets.find((m) => m.metadata.name === name);
    if (this.disposed) return;
    if (!ms) return this.tree.notify(gid);
    this.tree.remember([machineSetRow(this.groupContext(gid, ctxId, session), ms)], gid);
    this.tree.notify(id);
  }

  /**
   * The view collapsed an item (TreeView.onDidCollapseElement). A collapsed Pods group stops its pod
   * watch, and its change marks it stale in the view: expanding it asks for its children (and starts
   * the watch) again, instead of showing what the view kept from before.
   */
  collapsed(item: TreeNode): void {
    if (item.ref?.kind === 'cluster' && !this.tree.parentOf(item)) this.reconnects.stop(item.ref.context);
    const group = this.podGroups.get(item.id);
    if (!group) return;
    this.podGroups.delete(item.id);
    group.session.stopPodWatch(group.node);
    this.tree.notify(item.id);
  }

  /** The nodes whose pods are watched now, by context (for tests and the trace log). */
  watchedPodNodes(context: string): string[] {
    return this.manager?.session(context)?.watchedPodNodes ?? [];
  }

  /** The contexts whose automatic reconnect is pending (tests, the trace log). */
  get pendingReconnects(): string[] {
    return this.reconnects.pending;
  }

  dispose(): void {
    this.disposed = true;
    this.reconnects.dispose();
    this.watcher?.close();
    this.manager?.dispose();
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.tree.dispose();
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
    this.tree.notify(undefined);
  }

  private roots(): TreeNode[] {
    const load = this.ensureLoaded();
    if (!load.ok) {
      if (this.noKubeconfig) return [];
      return [
        errorNode('kubeconfig/error', { kind: 'error', reason: 'config', message: load.message, what: 'kubeconfig' }),
      ];
    }
    return load.contexts.map((c) => {
      const flavour = this.manager && this.load?.ok ? this.session(c.name)?.state : undefined;
      const node = contextNode(
        c,
        c.name === load.currentContext,
        flavour?.status === 'connected' && flavour.info.flavour === 'openshift',
      );
      this.tree.expandable(node.id, () => this.clusterChildren(node.id, c.name));
      return node;
    });
  }

  private session(context: string): ClusterSession | undefined {
    this.ensureLoaded();
    return this.manager?.session(context);
  }

  private groupContext(gid: string, ctxId: string, session: ClusterSession): GroupContext {
    return {
      gid,
      ctxId,
      context: session.context,
      session,
      yamlOf: (path) => () => session.client.get(path).then(forDisplay),
      expandable: (id, resolve) => this.tree.expandable(id, resolve),
      windowsNodes: () => this.nodeItems(gid, ctxId, session),
    };
  }

  private async clusterChildren(id: string, context: string): Promise<TreeNode[]> {
    const session = this.session(context);
    if (!session) return [];
    let state = await session.connect();
    // Collapsed while failing, its tries stopped: expanding it again is the user's ask to try now.
    if (state.status === 'error' && this.reconnects.stopped(context, state)) state = await session.reconnect();
    if (this.disposed) return [];
    if (state.status === 'error') {
      const next = this.reconnects.failed(context, state, () => void this.tryAgain(id, session));
      return [clusterErrorNode(`${id}/error`, state.error, next)];
    }
    this.reconnects.forget(context);
    // The root's contextValue follows the flavour now known. The descriptor is the element the view
    // hands to commands, so they see it at once; no change event: the menus are the same for both
    // flavours, and refreshing the cluster now would drop the children the view is still loading.
    const root = this.tree.item(id);
    if (root && state.info.flavour === 'openshift') root.contextValue = 'cluster.openshift';
    this.followSession(id, session);
    const out: TreeNode[] = [infoNode(`${id}/info`, state.info)];
    state.info.errors.forEach((e, i) => out.push(errorNode(`${id}/error/${i}`, e)));
    for (const group of groupsOf(state.info.flavour)) {
      const gid = `${id}/group/${group.key}`;
      const g = this.groupContext(gid, id, session);
      this.tree.expandable(gid, () => group.children(g));
      out.push(groupNode(gid, group, { context, group: group.key }));
    }
    return out;
  }

  /**
   * The automatic try of a cluster that failed to connect. Its error row stays while it runs (no flicker
   * of a loading row every few seconds); connected, the cluster is asked again for its children; failed
   * again, the row says the new cause and the next time.
   */
  private async tryAgain(id: string, session: ClusterSession): Promise<void> {
    if (this.disposed || this.manager?.session(session.context) !== session) return;
    await session.reconnect();
    // A Retry clicked meanwhile started a newer connect: its outcome is the one to show.
    const state = await session.connect();
    if (this.disposed || this.manager?.session(session.context) !== session) return;
    if (state.status === 'connected') {
      this.reconnects.forget(session.context);
      return this.tree.notify(id);
    }
    const next = this.reconnects.failed(session.context, state, () => void this.tryAgain(id, session));
    const errorId = `${id}/error`;
    if (!this.tree.item(errorId)) return this.tree.notify(id);
    this.tree.remember([clusterErrorNode(errorId, state.error, next)], id);
    this.tree.notify(errorId);
  }

  /**
   * Subscribes once per session: its info (node counts, WMCO) refills the info row; a watched collection's change
   * refreshes the group that shows it (and, through VS Code, its expanded rows), so no command needs to poke the tree.
   */
  private followSession(ctxId: string, session: ClusterSession): void {
    if (this.followedSessions.has(session)) return;
    this.followedSessions.add(session);
    session.onChange((topic) => {
      if (this.disposed) return;
      if (topic === 'info') {
        const infoId = `${ctxId}/info`;
        if (session.state?.status !== 'connected' || !this.tree.item(infoId)) return;
        this.tree.remember([infoNode(infoId, session.state.info)], ctxId);
        return this.tree.notify(infoId);
      }
      // A Machine's change is its MachineSet's: the group's refresh refills the MachineSets and their Machines.
      const gid = `${ctxId}/group/${topic === 'machines' ? 'machineSets' : topic}`;
      if (this.tree.item(gid)) this.tree.notify(gid);
      if (topic === 'runtimeClasses' && session.context === this.activeContext) this.scheduleSnapshot(session);
    });
  }

  private async nodeItems(gid: string, ctxId: string, session: ClusterSession): Promise<TreeNode[]> {
    const model = await session.windowsNodes();
    this.follow(model, gid, ctxId, session);
    const nodes = model.nodes();
    const out: TreeNode[] = [];
    if (model.error) out.push(errorNode(`${gid}/error`, model.error));
    for (const n of nodes) out.push(this.windowsNodeItem(ctxId, n, session));
    if (!nodes.length && !model.error)
      out.push(placeholder(`${gid}/none`, 'No Windows nodes', 'No node is labelled `kubernetes.io/os=windows`.'));
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
        const id = windowsNodeId(ctxId, c.name);
        if (this.tree.item(id)) {
          this.tree.remember([this.windowsNodeItem(ctxId, c.node, session)], gid);
          this.tree.notify(id);
        } else this.tree.notify(gid);
      } else if (c.type !== 'synced' || model.error === undefined) {
        if (c.type === 'removed') this.podGroups.delete(`${windowsNodeId(ctxId, c.name)}/pods`);
        this.tree.notify(gid);
      }
      if (c.type !== 'error' && session.context === this.activeContext) this.scheduleSnapshot(session);
    });
  }

  private windowsNodeItem(ctxId: string, n: WindowsNodeView, session: ClusterSession): TreeNode {
    const id = windowsNodeId(ctxId, n.name);
    this.nodeViews.set(nodeKey(session.context, n.name), n);
    this.tree.expandable(id, async () => this.nodeDetails(id, n.name, session));
    const yaml = () => session.client.get(nodePath(n.name)).then(forDisplay);
    return withRef({ kind: 'node', context: session.context, node: n.name }, windowsNodeNode(id, n, yaml));
  }

  /** Under a node: its conditions and taints, its Pods group, and its Services group when there is a source. */
  private nodeDetails(id: string, name: string, session: ClusterSession): TreeNode[] {
    const model = this.nodeViews.get(nodeKey(session.context, name));
    if (!model) return [];
    const out = nodeFactNodes(id, model);
    const pid = `${id}/pods`;
    this.tree.expandable(pid, () => this.podItems(pid, name, session));
    const pods = {
      label: 'Pods',
      icon: 'package',
      tooltip: `Pods scheduled on ${md(name)}, watched while this group is expanded (field selector \`spec.nodeName\`).`,
    };
    out.push(groupNode(pid, pods, { context: session.context, group: 'pods', node: name }));
    const services = this.options.services;
    if (services) {
      const sid = `${id}/services`;
      this.serviceGroups.set(nodeKey(session.context, name), sid);
      this.tree.expandable(sid, async () => {
        const answer = await services(session.context, model);
        const pods = 'services' in answer && needsNodePods(answer.services) ? await session.podObjectsOfNode(name) : [];
        const distribution = session.state?.status === 'connected' ? session.state.info.flavour : 'kubernetes';
        return serviceItems(sid, { context: session.context, node: name }, answer, {
          distribution,
          ...(isErrorItem(pods) ? {} : { pods: pods as unknown as Obj[] }),
        });
      });
      const row = {
        label: 'Services',
        icon: 'gear',
        tooltip: `The node services of ${md(name)} (kubelet, containerd, kube-proxy, ...), read over SSH.`,
      };
      out.push(groupNode(sid, row, { context: session.context, group: 'services', node: name }));
    }
    return out;
  }

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
      watch.on('change', () => this.tree.notify(pid));
    }
    await watch.start();
    const entries = watch.pods();
    const out: TreeNode[] = [];
    if (watch.error) out.push(errorNode(`${pid}/error`, watch.error));
    if (!entries.length && !watch.error)
      return [placeholder(`${pid}/none`, 'No pods', `No pod is scheduled on ${md(nodeName)}.`)];
    const node = this.nodeViews.get(nodeKey(session.context, nodeName));
    const nodeFacts = node ? nodeFactsOfView(node) : undefined;
    const facts = { cluster: await this.clusterFacts(session) };
    const now = Date.now();
    // Under the node's id: a pod name comes back on another node (a StatefulSet pod rescheduled) while
    // the first node's list may still be shown, and one id must never stand for two rows.
    for (const { view: p, pod } of entries) {
      const yaml = () => session.client.get(podPath(p.namespace, p.name)).then(forDisplay);
      const ref = {
        kind: 'pod',
        context: session.context,
        node: nodeName,
        namespace: p.namespace,
        name: p.name,
      } as const;
      out.push(
        withRef(
          ref,
          podNode(`${pid}/${enc(p.namespace)}/${enc(p.name)}`, p, explainPod(pod, [], nodeFacts, facts), now, yaml),
        ),
      );
    }
    return out;
  }

  /** The context's last snapshot, else one of its Windows nodes alone. */
  private async clusterFacts(session: ClusterSession): Promise<ClusterSnapshot> {
    const known = this.snapshots.get(session.context);
    if (known) return known;
    return buildSnapshot({ name: session.context, nodes: (await session.windowsNodes()).nodes(), runtimeClasses: [] });
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
