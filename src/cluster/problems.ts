// The "Windows workload problems" view as a pure tree model (no VS Code): the live check of one
// context (the kubeconfig's current one unless another was picked), all namespaces or one, grouped
// by object, each object's findings under it. Read once when the view first asks for its items and
// on refresh; a list the user may not read is a line of the view and the rest is still checked.
// Opening an object gives its live YAML with the findings placed (core/live/document.ts).
import { checkLive, liveCheckOptions, type LiveFinding, type LiveReport, type LiveState } from '../core/live/check';
import { findObject, liveDocument, objectTitle, type LiveDocument } from '../core/live/document';
import type { CheckOptions } from '../core/rules/checker';
import type { Severity } from '../core/rules/types';
import { KubeClient } from './kube-client';
import { classifyError } from './errors';
import { configForContext, loadKubeconfig, type LocateOptions } from './kubeconfig';
import { readLiveState } from './live';
import { md as escape, type TreeIcon } from './tree';

/** The object an item stands for: what the open command needs. */
export interface LiveObjectKey {
  kind: string;
  namespace?: string;
  name: string;
}

/** The problems view's item kinds (menus' viewItem when-clauses match these). */
export type ProblemContextValue = 'liveObject' | 'liveFinding' | 'error' | 'info';

export interface ProblemNode {
  /** Stable across refreshes for the same object and finding. */
  id: string;
  label: string;
  description?: string;
  /** Markdown. */
  tooltip: string;
  icon: TreeIcon;
  contextValue: ProblemContextValue;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: { id: string; title: string; args: unknown[] };
  /** Set on object and finding items. */
  object?: LiveObjectKey;
  /** Set on finding items: the index of the finding among its object's. */
  finding?: number;
}

const OPEN_LIVE_OBJECT_COMMAND = 'kubeWindows.openLiveObject';
const REFRESH_PROBLEMS_COMMAND = 'kubeWindows.refreshProblems';

const SEVERITY_ICON: Record<Severity, TreeIcon> = {
  error: { id: 'error', color: 'problemsErrorIcon.foreground' },
  warning: { id: 'warning', color: 'problemsWarningIcon.foreground' },
  info: { id: 'info', color: 'problemsInfoIcon.foreground' },
};
const RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2 };

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

type Listener = () => void;

export class ProblemsTree {
  private scope: ProblemsScope = {};
  private loading: Promise<Loaded> | undefined;
  private generation = 0;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly options: ProblemsOptions = {}) {}

  /** Fired when the whole tree changed (refresh, another scope): ask the roots again. */
  readonly onDidChange = (l: Listener): { dispose(): void } => {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  };

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
    const names = load.contexts.map((c) => c.name).sort((a, b) => (a === load.currentContext ? -1 : b === load.currentContext ? 1 : 0));
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
    for (const l of [...this.listeners]) l();
  }

  async children(node?: ProblemNode): Promise<ProblemNode[]> {
    const loaded = await this.loaded();
    if (node?.object && node.finding === undefined) return this.findingNodes(loaded, node.object);
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
    if (!load.ok) return { ...(namespace !== undefined ? { namespace } : {}), error: kubeconfigMessage(load.message), readAt };
    const context = this.scope.context ?? load.currentContext;
    const base = { ...(context ? { context } : {}), ...(namespace !== undefined ? { namespace } : {}), readAt };
    if (!context) return { ...base, error: 'The kubeconfig has no current context. Pick a context for this view (kube-windows: Check another cluster…).' };
    if (!load.contexts.some((c) => c.name === context)) return { ...base, error: `The kubeconfig has no context "${context}". Pick another (kube-windows: Check another cluster…).` };
    try {
      const kube = new KubeClient(configForContext(load.config, context), this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {});
      const state = await readLiveState(kube, { context, ...(namespace !== undefined ? { namespace } : {}), partial: true });
      const report = checkLive(state);
      return { ...base, state, report, options: liveCheckOptions(state) };
    } catch (err) {
      return { ...base, error: classifyError(err, { context, what: 'the workloads' }).message };
    }
  }

  private rootNodes(loaded: Loaded): ProblemNode[] {
    if (loaded.error !== undefined) {
      return [
        {
          id: 'problems/error',
          label: 'Cannot check this cluster',
          description: loaded.error,
          tooltip: escape(loaded.error),
          icon: SEVERITY_ICON.error,
          contextValue: 'error',
          collapsible: 'none',
          command: { id: REFRESH_PROBLEMS_COMMAND, title: 'Retry', args: [] },
        },
      ];
    }
    const out: ProblemNode[] = (loaded.state?.unread ?? []).map((u) => ({
      id: `problems/unread/${u.what}`,
      label: `${u.what} not read`,
      description: u.message,
      tooltip: `${escape(u.message)}\n\nThe other kinds were read and checked.`,
      icon: SEVERITY_ICON.warning,
      contextValue: 'info',
      collapsible: 'none',
    }));
    for (const e of loaded.report?.ruleErrors ?? []) {
      out.push({
        id: `problems/rule-error/${e.ruleId}`,
        label: `Rule ${e.ruleId} failed`,
        description: e.message,
        tooltip: `${escape(e.message)}\n\nThis is a bug of kube-windows; please report it.`,
        icon: { id: 'bug' },
        contextValue: 'info',
        collapsible: 'none',
      });
    }
    const report = loaded.report;
    if (!report) return out;
    for (const o of report.objects) out.push(objectNode(o));
    if (report.objects.length === 0) {
      const n = report.summary.objects;
      out.push({
        id: 'problems/none',
        label: 'No Windows workload problems',
        description: `${n} object${n === 1 ? '' : 's'} checked`,
        tooltip: `The live check found nothing to report in the ${n} object${n === 1 ? '' : 's'} it checked.`,
        icon: { id: 'pass', color: 'testing.iconPassed' },
        contextValue: 'info',
        collapsible: 'none',
      });
    }
    return out;
  }

  private findingNodes(loaded: Loaded, key: LiveObjectKey): ProblemNode[] {
    const findings = findingsOf(loaded.report, key);
    const id = objectId(key);
    return findings.map((f, i) => ({
      id: `${id}/finding/${i}`,
      label: f.ruleId,
      description: f.message,
      tooltip: `**${f.ruleId}** (${f.severity}) at \`${f.path}\`\n\n${escape(f.message)}`,
      icon: SEVERITY_ICON[f.severity],
      contextValue: 'liveFinding',
      collapsible: 'none',
      command: { id: OPEN_LIVE_OBJECT_COMMAND, title: 'Show in the live YAML', args: [key, i] },
      object: key,
      finding: i,
    }));
  }
}

function findingsOf(report: LiveReport | undefined, key: LiveObjectKey): LiveFinding[] {
  const o = report?.objects.find((x) => x.kind === key.kind && x.name === key.name && (x.namespace ?? undefined) === (key.namespace ?? undefined));
  return o?.findings ?? [];
}

const objectId = (key: LiveObjectKey): string => `problems/object/${key.kind}/${key.namespace ?? ''}/${key.name}`;

function objectNode(o: LiveReport['objects'][number]): ProblemNode {
  const key: LiveObjectKey = { kind: o.kind, ...(o.namespace !== undefined ? { namespace: o.namespace } : {}), name: o.name };
  const counts = { error: 0, warning: 0, info: 0 };
  let worst: Severity = 'info';
  for (const f of o.findings) {
    counts[f.severity]++;
    if (RANK[f.severity] > RANK[worst]) worst = f.severity;
  }
  const parts = (['error', 'warning', 'info'] as const).filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}${counts[s] === 1 ? '' : 's'}`);
  return {
    id: objectId(key),
    label: objectTitle(key),
    description: parts.join(', '),
    tooltip: `**${escape(objectTitle(key))}** (${o.apiVersion})\n\n${parts.join(', ')}`,
    icon: SEVERITY_ICON[worst],
    contextValue: 'liveObject',
    collapsible: 'collapsed',
    command: { id: OPEN_LIVE_OBJECT_COMMAND, title: 'Open the live YAML', args: [key] },
    object: key,
  };
}

function kubeconfigMessage(message: string): string {
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}. Log in to a cluster (for example \`oc login\`), or set kubeWindows.kubeconfig.`;
}
