// The "Windows workload problems" view as a pure tree model (no VS Code): the live check of one
// context (the kubeconfig's current one unless another was picked), all namespaces or one, grouped
// by object, each object's findings under it. Read once when the view first asks for its items and
// on refresh; a list the user may not read is a line of the view and the rest is still checked.
// Opening an object gives its live YAML with the findings placed (core/live/document.ts).
import { checkLive, liveCheckOptions, type LiveFinding, type LiveReport, type LiveState } from '../core/live/check';
import { findObject, liveDocument, objectTitle, type LiveDocument } from '../core/live/document';
import type { CheckOptions } from '../core/rules/checker';
import { openCluster } from '../cluster/open';
import { classifyError } from '../cluster/errors';
import { loadKubeconfig, type LocateOptions } from '../cluster/kubeconfig';
import { readLiveState } from '../cluster/live';
import { Emitter } from './emitter';
import {
  checkFailedNode,
  findingNodes,
  noProblemsNode,
  objectNode,
  ruleErrorNode,
  unreadNode,
} from './items/live-problem';
import type { LiveObjectKey, ProblemNode } from './problem-item';

export interface ProblemsScope {
  /** The context checked; the kubeconfig's current context when undefined. */
  context?: string;
  /** One namespace; every namespace when undefined. */
  namespace?: string;
}

export interface ProblemsOptions {
  locate?: LocateOptions;
  /** Per-request timeout (default: the client's). */
  timeoutMs?: number;
  /** The clock of the document header (tests). */
  now?: () => Date;
}

interface Loaded {
  context?: string;
  namespace?: string;
  /** Set when nothing could be read: the message for the user. */
  error?: string;
  state?: LiveState;
  report?: LiveReport;
  options?: CheckOptions;
  readAt: Date;
}

export class ProblemsTree {
  private scope: ProblemsScope = {};
  private loading: Promise<Loaded> | undefined;
  private generation = 0;
  private readonly changed = new Emitter<void>();

  constructor(private readonly options: ProblemsOptions = {}) {}

  /** Fired when the whole tree changed (refresh, another scope): ask the roots again. */
  readonly onDidChange = this.changed.event;

  get currentScope(): ProblemsScope {
    return { ...this.scope };
  }

  /** What the view's title says: `lab · all namespaces`. */
  async scopeLabel(): Promise<string> {
    const loaded = await this.loaded();
    const where = loaded.namespace === undefined ? 'all namespaces' : `namespace ${loaded.namespace}`;
    return loaded.context ? `${loaded.context} · ${where}` : where;
  }

  /** The contexts of the kubeconfig (to pick from), the current one first. */
  contexts(): { names: string[]; current?: string } | { message: string } {
    const load = loadKubeconfig(this.options.locate);
    if (!load.ok) return { message: kubeconfigMessage(load.message) };
    const names = load.contexts
      .map((c) => c.name)
      .sort((a, b) => (a === load.currentContext ? -1 : b === load.currentContext ? 1 : 0));
    return { names, ...(load.currentContext ? { current: load.currentContext } : {}) };
  }

  setScope(scope: ProblemsScope): void {
    this.scope = { ...scope };
    this.refresh();
  }

  /** Forgets what was read; the next ask reads again. */
  refresh(): void {
    this.generation++;
    this.loading = undefined;
    this.changed.fire();
  }

  async children(node?: ProblemNode): Promise<ProblemNode[]> {
    const loaded = await this.loaded();
    if (node?.object && node.finding === undefined)
      return findingNodes(node.object, findingsOf(loaded.report, node.object));
    if (node) return [];
    return this.rootNodes(loaded);
  }

  /** The object's live YAML with its findings placed; undefined when the last read has no such object. */
  async document(key: LiveObjectKey): Promise<(LiveDocument & { title: string; context: string }) | undefined> {
    const loaded = await this.loaded();
    const object = loaded.state ? findObject(loaded.state.objects, key) : undefined;
    if (!object || !loaded.options) return undefined;
    const findings = findingsOf(loaded.report, key);
    const title = objectTitle(key);
    const header = [
      `${title} on cluster "${loaded.context ?? ''}" as kube-windows read it at ${loaded.readAt.toISOString()} (read-only).`,
      'managedFields and the defaults the API server writes (volume defaultMode 0644) are left out.',
    ];
    return { title, context: loaded.context ?? '', ...liveDocument(object, findings, loaded.options, header) };
  }

  private loaded(): Promise<Loaded> {
    if (!this.loading) {
      const generation = this.generation;
      this.loading = this.read().then((l) => (generation === this.generation ? l : this.loaded()));
    }
    return this.loading;
  }

  private async read(): Promise<Loaded> {
    const readAt = this.options.now?.() ?? new Date();
    const namespace = this.scope.namespace;
    const load = loadKubeconfig(this.options.locate);
    if (!load.ok)
      return { ...(namespace !== undefined ? { namespace } : {}), error: kubeconfigMessage(load.message), readAt };
    const context = this.scope.context ?? load.currentContext;
    const base = { ...(context ? { context } : {}), ...(namespace !== undefined ? { namespace } : {}), readAt };
    if (!context)
      return {
        ...base,
        error:
          'The kubeconfig has no current context. Pick a context for this view (kube-windows: Check another cluster…).',
      };
    if (!load.contexts.some((c) => c.name === context))
      return {
        ...base,
        error: `The kubeconfig has no context "${context}". Pick another (kube-windows: Check another cluster…).`,
      };
    try {
      const { kube } = openCluster({
        context,
        config: load.config,
        ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      });
      const state = await readLiveState(kube, {
        context,
        ...(namespace !== undefined ? { namespace } : {}),
        partial: true,
      });
      const report = checkLive(state);
      return { ...base, state, report, options: liveCheckOptions(state) };
    } catch (err) {
      return { ...base, error: classifyError(err, { context, what: 'the workloads' }).message };
    }
  }

  private rootNodes(loaded: Loaded): ProblemNode[] {
    if (loaded.error !== undefined) return [checkFailedNode(loaded.error)];
    const out: ProblemNode[] = (loaded.state?.unread ?? []).map(unreadNode);
    for (const e of loaded.report?.ruleErrors ?? []) out.push(ruleErrorNode(e));
    const report = loaded.report;
    if (!report) return out;
    for (const o of report.objects) out.push(objectNode(o));
    if (report.objects.length === 0) out.push(noProblemsNode(report.summary.objects));
    return out;
  }
}

function findingsOf(report: LiveReport | undefined, key: LiveObjectKey): LiveFinding[] {
  const o = report?.objects.find(
    (x) => x.kind === key.kind && x.name === key.name && (x.namespace ?? undefined) === (key.namespace ?? undefined),
  );
  return o?.findings ?? [];
}

function kubeconfigMessage(message: string): string {
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}. Log in to a cluster (for example \`oc login\`), or set kubeWindows.kubeconfig.`;
}
