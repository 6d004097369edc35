// One session per kubeconfig context, connected lazily on first use: server version, flavour (from API
// discovery), WMCO presence and state, node counts. Failures are error items on the session, never thrown.
// What the explorer shows is watched (list+watch) from its first read on: the Windows nodes, RuntimeClasses,
// the windows-instances ConfigMap, mirror sets, MachineSets and Machines, WMCO's CSV; `onChange` names what
// changed, and the session info (node counts, WMCO) follows the same watches.
import { policyCollections, type PolicyObject } from './admission-policy-lists';
import { policyStatusRows, type PolicyStatusRow } from '../core/policy/status';
import type { KubeConfig, V1ConfigMap, V1NodeList, V1Pod, V1RuntimeClass } from '@kubernetes/client-node';
import { EventEmitter } from 'node:events';
import type { KubeClient } from './kube-client';
import { ApiError, classifyError, type ClusterErrorItem, type ErrorContext } from './errors';
import { isOpenShiftGroups, WMCO_NAMESPACE } from '../core/well-known';
import {
  byohInstancesOf,
  mirrorSetCollections,
  mirrorSetViewsOf,
  runtimeClassCollection,
  windowsInstancesCollection,
  windowsRuntimeClassesOf,
  type ByohInstances,
  type ClusterRuntimeClass,
  type MirrorSets,
} from './extras';
import { machineCollection, machineSetCollection, type WindowsMachineSets } from './machinesets';
import type { MachineApiObject } from '../core/openshift/windows-machineset';
import { isWindowsMachineSet } from '../core/openshift/machines';
import { MACHINESET_LABEL } from '../core/well-known';
import type { Obj } from '../core/manifest/path';
import { apiGroups } from './openshift';
import { csvVersion, wmcoCsv, wmcoCsvCollection } from './wmco';
import { WatchedList, type WatchedObject } from './watched-list';
import { contextClient } from './open';
import { expiredClientCertificate } from './client-certificate';
import { readOpenShiftFacts } from './snapshot';
import type { ClusterProxyFacts } from '../core/proxy/settings';
import { readStorageObjects, type StorageObjects } from './storage';
import type { OpenShiftFacts } from '../core/rules/facts';
import { WindowsNodeModel } from './windows-nodes';
import { listPodObjectsOfNode, listPodsOfNode, NodePodWatch, type PodView } from './node-pods';

export interface WmcoState {
  present: boolean;
  /** ClusterServiceVersion phase (Succeeded, Installing, Failed ...). */
  phase?: string;
  version?: string;
  csv?: string;
  error?: ClusterErrorItem;
}

export interface NodeCounts {
  linux?: number;
  windows?: number;
  error?: ClusterErrorItem;
}

export interface SessionInfo {
  context: string;
  server: string;
  version?: string;
  flavour: 'openshift' | 'kubernetes';
  wmco: WmcoState;
  nodes: NodeCounts;
  /** Failures of single parts (the rest of the session works). */
  errors: ClusterErrorItem[];
  /** On OpenShift, once read: the cluster-wide proxy (absent: none) and the release it is judged by. */
  proxy?: { facts: ClusterProxyFacts; openshiftVersion?: string };
}

/** What changed in a session: its info (node counts, WMCO), or the objects of one group. */
export type SessionTopic = 'info' | 'runtimeClasses' | 'byoh' | 'mirrors' | 'machineSets' | 'machines' | 'policies';

export type SessionState = { status: 'connected'; info: SessionInfo } | { status: 'error'; error: ClusterErrorItem };

export interface SessionOptions {
  /** Per-request timeout. Default VIEW_TIMEOUT_MS (open.ts). */
  timeoutMs?: number;
  watchTimeoutSeconds?: number;
  retryMs?: number;
  /** Where WMCO lives on this cluster (default openshift-windows-machine-config-operator). */
  wmcoNamespace?: string;
}

/** When a failed proxy read is tried again: after 2, 5, 15 and 30 s (then at the next reconnect). */
const PROXY_RETRIES_MS = [2_000, 5_000, 15_000, 30_000];

export class ClusterSession {
  readonly client: KubeClient;
  readonly errorContext: ErrorContext;
  private connecting: Promise<SessionState> | undefined;
  private model: WindowsNodeModel | undefined;
  /** The pod watch of each node whose pods are shown, by node name. */
  private readonly podWatches = new Map<string, NodePodWatch>();
  private facts: Promise<OpenShiftFacts> | undefined;
  /** The next try of a proxy read that failed. */
  private proxyRetry: NodeJS.Timeout | undefined;
  private storage: Promise<StorageObjects> | undefined;
  /** The watched collections, by name, started on first read. */
  private readonly watched = new Map<string, WatchedList<WatchedObject>>();
  private readonly changes = new EventEmitter<{ change: [SessionTopic] }>();
  /** The outcome of the last connect(), if any. */
  state: SessionState | undefined;
  /**
   * Set by dispose(): a caller still holding the session (a throttled snapshot, a read in flight) is answered
   * at once, but no watch starts: nothing would ever stop it.
   */
  private disposed = false;

  constructor(
    readonly context: string,
    config: KubeConfig,
    private readonly options: SessionOptions = {},
  ) {
    this.client = contextClient(config, context, {
      use: 'view',
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    this.errorContext = { context, server: this.client.server };
  }

  /** Connects once; later calls return the same result until `reconnect()`. */
  connect(): Promise<SessionState> {
    this.connecting ??= this.doConnect().then((s) => {
      this.state = s;
      if (s.status === 'connected' && s.info.flavour === 'openshift') {
        void this.followWmco();
        void this.readProxy(s.info);
      }
      return s;
    });
    return this.connecting;
  }

  reconnect(): Promise<SessionState> {
    this.stopPodWatches();
    this.stopWatched();
    this.model?.stop();
    this.model = undefined;
    this.connecting = undefined;
    clearTimeout(this.proxyRetry);
    this.facts = undefined;
    this.storage = undefined;
    return this.connect();
  }

  /** The live Windows node model (started on first call). */
  async windowsNodes(): Promise<WindowsNodeModel> {
    if (!this.model) {
      this.model = new WindowsNodeModel(this.client, {
        errorContext: this.errorContext,
        watchTimeoutSeconds: this.options.watchTimeoutSeconds,
        retryMs: this.options.retryMs,
      });
      // A node that is gone has no pods to watch.
      this.model.on('change', (c) => {
        if (c.type === 'removed') this.stopPodWatch(c.name);
        if (c.type === 'modified' || c.type === 'error') return;
        this.countWindowsNodes();
        // A BYOH instance is joined when a node has its address.
        if (this.watched.has('byoh')) this.changes.emit('change', 'byoh');
      });
      if (this.disposed) this.model.stop();
    }
    await this.model.start();
    return this.model;
  }

  /** The pods on a node, listed once (the tree watches them: podWatch). */
  podsOfNode(name: string): Promise<PodView[] | ClusterErrorItem> {
    return listPodsOfNode(this.client, name, this.errorContext);
  }

  /**
   * The pod objects on a node: from its pod watch when the tree shows its pods, else listed once (the Services group
   * reads what runs as HostProcess pods there).
   */
  async podObjectsOfNode(name: string): Promise<V1Pod[] | ClusterErrorItem> {
    const watch = this.podWatches.get(name);
    if (watch && !watch.error) {
      await watch.start();
      return watch.pods().map((e) => e.pod);
    }
    return listPodObjectsOfNode(this.client, name, this.errorContext);
  }

  /** The watch of a node's pods, started on first call; the same one until stopPodWatch(). */
  podWatch(node: string): NodePodWatch {
    let watch = this.podWatches.get(node);
    if (!watch) {
      watch = new NodePodWatch(this.client, node, {
        errorContext: this.errorContext,
        watchTimeoutSeconds: this.options.watchTimeoutSeconds,
        retryMs: this.options.retryMs,
      });
      this.podWatches.set(node, watch);
      if (this.disposed) watch.stop();
      void watch.start();
    }
    return watch;
  }

  stopPodWatch(node: string): void {
    this.podWatches.get(node)?.stop();
    this.podWatches.delete(node);
  }

  /** The nodes whose pods are watched now. */
  get watchedPodNodes(): string[] {
    return [...this.podWatches.keys()];
  }

  private stopPodWatches(): void {
    for (const w of this.podWatches.values()) w.stop();
    this.podWatches.clear();
  }

  async byohInstances(): Promise<ByohInstances | ClusterErrorItem> {
    const model = await this.windowsNodes();
    const w = await this.watch<V1ConfigMap>(
      'byoh',
      windowsInstancesCollection(this.options.wmcoNamespace),
      'BYOH instances',
      this.changed('byoh'),
    );
    if (w.error) return w.error;
    const cm = w.items()[0];
    return cm
      ? { configMap: true, instances: byohInstancesOf(cm.data, model.nodes()) }
      : { configMap: false, instances: [] };
  }

  async mirrorSets(): Promise<MirrorSets | ClusterErrorItem> {
    const out: MirrorSets = { available: false, sets: [] };
    for (const c of mirrorSetCollections()) {
      const w = await this.watch<Obj & WatchedObject>(`mirrors/${c.kind}`, c, 'mirror sets', this.changed('mirrors'));
      if (w.error) return w.error;
      if (!w.served) continue;
      out.available = true;
      out.sets.push(...mirrorSetViewsOf(c.kind, w.items()));
    }
    return out;
  }

  async runtimeClasses(): Promise<ClusterRuntimeClass[] | ClusterErrorItem> {
    const w = await this.watch<V1RuntimeClass>(
      'runtimeClasses',
      runtimeClassCollection,
      'RuntimeClasses',
      this.changed('runtimeClasses'),
    );
    return w.error ?? windowsRuntimeClassesOf(w.items());
  }

  /**
   * kube-windows's admission policies, as `kube-windows policy status` shows them against `cliVersion`;
   * undefined when the cluster does not serve ValidatingAdmissionPolicies (before 1.30).
   */
  async admissionPolicies(cliVersion: string): Promise<PolicyStatusRow[] | ClusterErrorItem | undefined> {
    const lists: PolicyObject[][] = [];
    for (const c of policyCollections) {
      const w = await this.watch<PolicyObject & WatchedObject>(
        `policies/${c.kind}`,
        c,
        'admission policies',
        this.changed('policies'),
      );
      if (w.error) return w.error;
      if (!w.served) return undefined;
      lists.push(w.items());
    }
    return policyStatusRows(lists[0] ?? [], lists[1] ?? [], cliVersion);
  }

  /** The Windows MachineSets of an OpenShift cluster (openshift-machine-api). */
  async windowsMachineSets(): Promise<WindowsMachineSets | ClusterErrorItem> {
    const w = await this.watch<MachineApiObject>(
      'machineSets',
      machineSetCollection,
      'Windows MachineSets',
      this.changed('machineSets'),
    );
    if (w.error) return w.error;
    if (!w.served) return { available: false, sets: [] };
    return { available: true, sets: w.items().filter(isWindowsMachineSet) };
  }

  /** The Machines of a MachineSet (by its label), by name. */
  async machines(machineSet: string): Promise<MachineApiObject[] | ClusterErrorItem> {
    const w = await this.watch<MachineApiObject>(
      'machines',
      machineCollection,
      `Machines of ${machineSet}`,
      this.changed('machines'),
    );
    if (w.error) return w.error;
    return w.items().filter((m) => m.metadata.labels?.[MACHINESET_LABEL] === machineSet);
  }

  /** The Windows node count of the info follows the node model (what the tree lists under "Windows nodes"). */
  private countWindowsNodes(): void {
    const info = this.state?.status === 'connected' ? this.state.info : undefined;
    if (!info || !this.model || this.model.error || info.nodes.error) return;
    const windows = this.model.nodes().length;
    if (info.nodes.windows === windows) return;
    info.nodes = { ...info.nodes, windows };
    this.changes.emit('change', 'info');
  }

  private changed(topic: SessionTopic): () => void {
    return () => this.changes.emit('change', topic);
  }

  /** On OpenShift, WMCO's CSVs are watched from the connect on: installing or upgrading WMCO changes the info. */
  private async followWmco(): Promise<void> {
    const ns = this.options.wmcoNamespace ?? WMCO_NAMESPACE;
    await this.watch(wmcoCsvCollection(ns).path, wmcoCsvCollection(ns), 'WMCO ClusterServiceVersion', () => {
      void this.wmco().then((wmco) => {
        const info = this.state?.status === 'connected' ? this.state.info : undefined;
        if (!info || JSON.stringify(info.wmco) === JSON.stringify(wmco)) return;
        info.wmco = wmco;
        this.changes.emit('change', 'info');
      });
    });
  }

  /**
   * The cluster-wide proxy joins the info when the OpenShift facts arrive (the row does not wait for it). A read
   * that failed (a timeout on a loaded cluster) is tried again a few times: a missing Proxy is not "no proxy".
   */
  private async readProxy(info: SessionInfo, attempt = 0): Promise<void> {
    const facts = await this.openshiftFacts().catch(() => undefined);
    const current = () => !this.disposed && this.state?.status === 'connected' && this.state.info === info;
    if (!current()) return;
    if (facts?.proxy) {
      info.proxy = { facts: facts.proxy, ...(facts.version ? { openshiftVersion: facts.version } : {}) };
      this.changes.emit('change', 'info');
      return;
    }
    // Facts read in full are kept; a read a retry can cure was dropped (openshiftFacts), so asking again reads anew.
    if (this.facts !== undefined || attempt >= PROXY_RETRIES_MS.length) return;
    clearTimeout(this.proxyRetry);
    this.proxyRetry = setTimeout(() => void this.readProxy(info, attempt + 1), PROXY_RETRIES_MS[attempt]);
    this.proxyRetry.unref?.();
  }

  /**
   * OpenShift's version, platform, network, WMCO and proxy facts, read once per session (again after reconnect());
   * a read of which a part failed in a way a retry can cure (timeout, server away, 5xx) is not kept, so that the next
   * use reads them again.
   */
  openshiftFacts(): Promise<OpenShiftFacts> {
    if (this.facts) return this.facts;
    // Only a failure a retry can cure makes the read incomplete: a forbidden object stays forbidden.
    let incomplete = false;
    const read = readOpenShiftFacts(this.client, this.options.wmcoNamespace, undefined, (err) => {
      if (['unreachable', 'timeout', 'server'].includes(classifyError(err, this.errorContext).reason))
        incomplete = true;
    });
    this.facts = read;
    const forget = () => {
      if (this.facts === read) this.facts = undefined;
    };
    read.then(() => incomplete && forget(), forget);
    return read;
  }

  /** StorageClasses, CSINodes and CSIDrivers, read once per session (again after reconnect()). */
  storageObjects(): Promise<StorageObjects> {
    this.storage ??= readStorageObjects(this.client);
    return this.storage;
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.proxyRetry);
    this.stopPodWatches();
    this.stopWatched();
    this.model?.stop();
    this.model = undefined;
    this.changes.removeAllListeners();
  }

  /** Calls `listener` with what changed (see SessionTopic); returns the unsubscribe. */
  onChange(listener: (topic: SessionTopic) => void): () => void {
    this.changes.on('change', listener);
    return () => this.changes.off('change', listener);
  }

  private stopWatched(): void {
    for (const w of this.watched.values()) w.stop();
    this.watched.clear();
  }

  /** The watched collection `name` (started on first call); its changes after the first list call `changed`. */
  private async watch<T extends WatchedObject>(
    name: string,
    spec: { path: string; selector: Record<string, string> },
    what: string,
    changed: () => void,
  ): Promise<WatchedList<T>> {
    let w = this.watched.get(name) as WatchedList<T> | undefined;
    if (!w) {
      w = new WatchedList<T>(this.client, spec, {
        errorContext: { ...this.errorContext, what },
        watchTimeoutSeconds: this.options.watchTimeoutSeconds,
        retryMs: this.options.retryMs,
      });
      let started = false;
      w.on('change', () => {
        if (started) changed();
      });
      this.watched.set(name, w as WatchedList<WatchedObject>);
      if (this.disposed) w.stop();
      await w.start();
      started = true;
    }
    await w.start();
    return w;
  }

  private async doConnect(): Promise<SessionState> {
    const expired = expiredClientCertificate(this.client.kubeConfig, this.errorContext);
    if (expired) return { status: 'error', error: expired };
    let version: string | undefined;
    try {
      // /version answers every authenticated user; a failure here (unreachable, 401, exec plugin) ends the session.
      const v = await this.client.get<{ gitVersion?: string }>('/version');
      version = v.gitVersion;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 401 || err.status >= 500) {
        return { status: 'error', error: classifyError(err, { ...this.errorContext, what: 'server version' }) };
      }
    }
    const errors: ClusterErrorItem[] = [];
    const [flavour, wmco, nodes] = await Promise.all([this.flavour(errors), this.wmco(), this.nodeCounts()]);
    if (wmco.error) errors.push(wmco.error);
    if (nodes.error) errors.push(nodes.error);
    const info: SessionInfo = { context: this.context, server: this.client.server, flavour, wmco, nodes, errors };
    if (version) info.version = version;
    return { status: 'connected', info };
  }

  private async flavour(errors: ClusterErrorItem[]): Promise<'openshift' | 'kubernetes'> {
    try {
      return isOpenShiftGroups(await apiGroups(this.client)) ? 'openshift' : 'kubernetes';
    } catch (err) {
      errors.push(classifyError(err, { ...this.errorContext, what: 'API discovery' }));
      return 'kubernetes';
    }
  }

  private async wmco(): Promise<WmcoState> {
    const ns = this.options.wmcoNamespace ?? WMCO_NAMESPACE;
    try {
      await this.client.get(`/api/v1/namespaces/${encodeURIComponent(ns)}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return { present: false };
      return { present: false, error: classifyError(err, { ...this.errorContext, what: 'WMCO namespace' }) };
    }
    try {
      // Only WMCO's own CSV: OLM copies the CSVs of operators installed for all namespaces into every
      // namespace, so another CSV there says nothing about WMCO.
      const csv = await wmcoCsv(this.client, undefined, ns);
      const state: WmcoState = { present: true };
      if (csv) {
        state.csv = csv.metadata.name;
        if (csv.status?.phase) state.phase = csv.status.phase;
        const version = csvVersion(csv);
        if (version) state.version = version;
      }
      return state;
    } catch (err) {
      return { present: true, error: classifyError(err, { ...this.errorContext, what: 'WMCO ClusterServiceVersion' }) };
    }
  }

  private async nodeCounts(): Promise<NodeCounts> {
    try {
      // Servers give remainingItemCount only for unselected lists: count all nodes that way and
      // Linux as the difference; a selected list when there is no count.
      // The Windows count comes from the Windows node model's own list: the tree needs that list
      // anyway, so the nodes are downloaded once, not once to count and once to show.
      const [total, model] = await Promise.all([this.count(undefined), this.windowsNodes()]);
      if (model.error) return { error: model.error };
      const windowsCount = model.nodes().length;
      const linux = total !== undefined ? total - windowsCount : await this.fullCount('kubernetes.io/os=linux');
      return { linux, windows: windowsCount };
    } catch (err) {
      return { error: classifyError(err, { ...this.errorContext, what: 'nodes' }) };
    }
  }

  /**
   * limit=1 plus remainingItemCount; for a selector without a count, the selected list. Undefined: no count for all
   * nodes.
   */
  private async count(labelSelector: string | undefined): Promise<number | undefined> {
    const page = await this.client.get<V1NodeList>('/api/v1/nodes', { labelSelector, limit: 1 });
    const remaining = page.metadata?.remainingItemCount;
    if (typeof remaining === 'number') return page.items.length + remaining;
    if (!page.metadata?._continue && !(page.metadata as { continue?: string } | undefined)?.continue)
      return page.items.length;
    if (labelSelector === undefined) return undefined;
    return this.fullCount(labelSelector);
  }

  private async fullCount(labelSelector: string): Promise<number> {
    const all = await this.client.get<V1NodeList>('/api/v1/nodes', { labelSelector });
    return all.items.length;
  }
}

/** Sessions by context name, created on demand; `update()` after the kubeconfig changed. */
export class SessionManager {
  private readonly sessions = new Map<string, { session: ClusterSession; fingerprint: string }>();

  constructor(
    private config: KubeConfig,
    private readonly options: SessionOptions = {},
  ) {}

  session(context: string): ClusterSession | undefined {
    const existing = this.sessions.get(context);
    if (existing) return existing.session;
    if (!this.config.getContextObject(context)) return undefined;
    const session = new ClusterSession(context, this.config, this.options);
    this.sessions.set(context, { session, fingerprint: fingerprint(this.config, context) });
    return session;
  }

  /**
   * Takes a new kubeconfig; disposes the sessions whose context vanished or whose cluster or user changed. Returns
   * their names.
   */
  update(config: KubeConfig): string[] {
    this.config = config;
    const changed: string[] = [];
    for (const [name, entry] of this.sessions) {
      if (!config.getContextObject(name) || fingerprint(config, name) !== entry.fingerprint) {
        entry.session.dispose();
        this.sessions.delete(name);
        changed.push(name);
      }
    }
    return changed;
  }

  dispose(): void {
    for (const { session } of this.sessions.values()) session.dispose();
    this.sessions.clear();
  }
}

function fingerprint(config: KubeConfig, context: string): string {
  const ctx = config.getContextObject(context);
  if (!ctx) return '';
  return JSON.stringify([ctx, config.getCluster(ctx.cluster), config.getUser(ctx.user)]);
}
