// The live check, pure: given the objects read from a cluster (workloads, pods, Windows nodes, events,
// namespaces, RuntimeClasses) and its facts, which objects the rules run on, which pods get failure
// explanations, and the findings per object located by field path. cluster/live.ts reads; this decides.
import { getAt, isObj, type Obj } from '../manifest/path';
import { POD_SPEC_PATHS } from '../manifest/workloads';
import { checkObject, gatherObjectFacts, type CheckOptions, type ObjectFinding } from '../rules/checker';
import type { ClusterSnapshot, Flavour } from '../rules/facts';
import { SEVERITY_RANK, type Severity } from '../rules/severity';
import {
  explainEvents,
  explainPod,
  explanationWords,
  nodeFactsOf,
  podTargetsWindows,
  type EventFacts,
  type ExplainFacts,
  type Explanation,
  type MirrorSetFacts,
  type NodeFacts,
} from './explain';
import { oneFindingPerCause, type CheckedObject } from './same-cause';

/** The kinds the live check reads, in output order; `openshift` ones exist only there. */
export const LIVE_KINDS = [
  { kind: 'Deployment', apiVersion: 'apps/v1', plural: 'deployments' },
  { kind: 'DaemonSet', apiVersion: 'apps/v1', plural: 'daemonsets' },
  { kind: 'StatefulSet', apiVersion: 'apps/v1', plural: 'statefulsets' },
  { kind: 'ReplicaSet', apiVersion: 'apps/v1', plural: 'replicasets' },
  { kind: 'Job', apiVersion: 'batch/v1', plural: 'jobs' },
  { kind: 'CronJob', apiVersion: 'batch/v1', plural: 'cronjobs' },
  { kind: 'Pod', apiVersion: 'v1', plural: 'pods' },
  { kind: 'DeploymentConfig', apiVersion: 'apps.openshift.io/v1', plural: 'deploymentconfigs' },
  { kind: 'MachineSet', apiVersion: 'machine.openshift.io/v1beta1', plural: 'machinesets' },
] as const;

/** What the cluster module read, every list complete (paged). */
export interface LiveState {
  /** Objects of LIVE_KINDS, each with apiVersion and kind set. */
  objects: Obj[];
  /** Warning events of the namespaces read. */
  events: EventFacts[];
  /** The Windows nodes (Node objects). */
  windowsNodes: Obj[];
  /** Namespace, RuntimeClass, PersistentVolumeClaim and PersistentVolume objects: facts for the rules. */
  factObjects: Obj[];
  snapshot: ClusterSnapshot;
  mirrorSets?: MirrorSetFacts[];
  /** What a partial read could not list (the API server refused it): the rest was read and is checked. */
  unread?: UnreadList[];
}

/** A list the API server refused, in words for the user. */
export interface UnreadList {
  /** What was not read, e.g. "DaemonSets". */
  what: string;
  /** The refusal explained (who may not list what, and what to do). */
  message: string;
}

/** Rule findings and failure explanations alike; an explanation's message ends with what to do. */
export type LiveFinding = ObjectFinding;

/** An explanation as a finding: its fix is part of the message unless the message already says it. */
function explanationFinding(e: Explanation, path: string): LiveFinding {
  const { message, fix } = explanationWords(e);
  return { ruleId: e.id, severity: e.severity, message: fix ? `${message} Fix: ${fix}` : message, path };
}

/** A live object by name (and uid, which policy reports carry to tell a re-created object from the old one). */
export interface LiveObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

interface LiveObjectReport extends LiveObjectRef {
  findings: LiveFinding[];
}

export interface LiveReport {
  /** Objects with findings, in a stable order (kind order of LIVE_KINDS, then namespace, then name). */
  objects: LiveObjectReport[];
  /**
   * The Windows objects the rules ran on that have no finding (same order): a policy report's "pass"
   * results. A controller's pods are not among them: their workload passes for them.
   */
  passed: LiveObjectRef[];
  summary: { objects: number; errors: number; warnings: number; infos: number };
  /** Rules that threw (bugs), never shown as a stack. */
  ruleErrors: { ruleId: string; message: string }[];
}

export interface LiveOptions {
  check?: Pick<CheckOptions, 'only' | 'disable' | 'severity' | 'kubernetesVersion'>;
  flavour?: Flavour;
  minSeverity?: Severity;
}

/**
 * Whether the rules run on an object: everything but what a controller the check also reads created
 * (a Deployment's ReplicaSets, a CronJob's Jobs, a controller's Pods), whose findings would repeat.
 */
export function isCheckedObject(object: Obj): boolean {
  const owners = getAt(object, ['metadata', 'ownerReferences']);
  if (!Array.isArray(owners)) return true;
  const controller = owners.find((o) => isObj(o) && o.controller === true) ?? owners[0];
  if (!isObj(controller)) return true;
  if (object.kind === 'ReplicaSet') return controller.kind !== 'Deployment';
  if (object.kind === 'Job') return controller.kind !== 'CronJob';
  if (object.kind === 'Pod') return false;
  return true;
}

/** The API server's default file mode of volume files (0644), which it writes into every volume source. */
const DEFAULT_MODE = 420;
const MODE_SOURCES = ['configMap', 'secret', 'projected', 'downwardAPI'];

/**
 * A live object as its author wrote it, as far as the rules can tell: the API server writes defaults
 * into every object (a volume's defaultMode 0644, the projected service-account token volume of every
 * pod), and a default is nobody's choice to report. Only the defaults a rule reads are removed; the
 * paths of everything else are unchanged. Returns the object itself when there is nothing to remove.
 */
export function withoutServerDefaults(object: Obj): Obj {
  const specPath = POD_SPEC_PATHS[String(object.kind)];
  const volumes = specPath ? getAt(object, [...specPath, 'volumes']) : undefined;
  if (
    !Array.isArray(volumes) ||
    !volumes.some((v) => isObj(v) && MODE_SOURCES.some((k) => getAt(v, [k, 'defaultMode']) === DEFAULT_MODE))
  )
    return object;
  const copy = structuredClone(object);
  for (const v of getAt(copy, [...(specPath ?? []), 'volumes']) as unknown[]) {
    if (!isObj(v)) continue;
    for (const k of MODE_SOURCES) {
      const source = v[k];
      if (isObj(source) && source.defaultMode === DEFAULT_MODE) delete source.defaultMode;
    }
  }
  return copy;
}

/** The rules' options of a live check: its facts gathered over every object read (Namespaces, RuntimeClasses). */
export function liveCheckOptions(state: LiveState, options: LiveOptions = {}): CheckOptions {
  const flavour = options.flavour ?? 'auto';
  const facts = gatherObjectFacts(state.factObjects, flavour, state.snapshot, options.check?.kubernetesVersion);
  return { ...options.check, flavour, cluster: state.snapshot, facts };
}

/** Runs the rules on the live objects and explains the failing Windows pods. */
export function checkLive(state: LiveState, options: LiveOptions = {}): LiveReport {
  const checkOptions = liveCheckOptions(state, options);
  const explainFacts: ExplainFacts = {
    cluster: state.snapshot,
    ...(state.mirrorSets ? { mirrorSets: state.mirrorSets } : {}),
  };
  const enabled = ruleFilter(options.check);
  const threshold = SEVERITY_RANK[options.minSeverity ?? 'info'];

  const nodes = new Map<string, NodeFacts>();
  for (const n of state.windowsNodes) {
    const f = nodeFactsOf(n);
    nodes.set(f.name, { ...f, os: f.os ?? 'windows' });
  }
  // Events grouped once by the object they are about (uid, else kind/namespace/name): never a scan per pod.
  const byObject = new Map<string, EventFacts[]>();
  for (const e of state.events) {
    const o = e.involvedObject;
    if (!o) continue;
    const key = o.uid ? `uid:${o.uid}` : `${o.kind}/${o.namespace ?? ''}/${o.name}`;
    const list = byObject.get(key);
    if (list) list.push(e);
    else byObject.set(key, [e]);
  }
  const eventsOf = (o: Obj): EventFacts[] => {
    const uid = getAt(o, ['metadata', 'uid']);
    const named =
      byObject.get(
        `${String(o.kind)}/${String(getAt(o, ['metadata', 'namespace']) ?? '')}/${String(getAt(o, ['metadata', 'name']) ?? '')}`,
      ) ?? [];
    return typeof uid === 'string' ? [...(byObject.get(`uid:${uid}`) ?? []), ...named] : named;
  };

  const reports: LiveObjectReport[] = [];
  const ruleErrors: LiveReport['ruleErrors'] = [];
  let objects = 0;
  const entries: CheckedObject[] = [];
  const cleanWindowsObjects = new Set<Obj>();
  for (const object of state.objects) {
    const findings: LiveFinding[] = [];
    const checked = isCheckedObject(object);
    let counted = checked;
    let windows = false;
    const rules: LiveFinding[] = [];
    if (checked) {
      const result = checkObject(withoutServerDefaults(object), checkOptions);
      windows = result.windowsWorkloads > 0;
      rules.push(...result.findings);
      ruleErrors.push(...result.ruleErrors);
    }
    const kind = String(object.kind);
    if (kind === 'Pod') {
      const nodeName = getAt(object, ['spec', 'nodeName']);
      const node = typeof nodeName === 'string' ? nodes.get(nodeName) : undefined;
      const pending = typeof nodeName !== 'string' || nodeName === '';
      if (node || (pending && podTargetsWindows(object, undefined, explainFacts))) {
        counted = true;
        for (const e of explainPod(object, eventsOf(object), node, explainFacts))
          findings.push(explanationFinding(e, e.path));
      }
    } else {
      // Admission refusals leave no pod to explain: they are events on the controller (FailedCreate).
      const own = eventsOf(object).filter((e) => e.reason === 'FailedCreate');
      if (own.length > 0) {
        const prefix = (POD_SPEC_PATHS[kind] ?? []).slice(0, -1).join('.');
        for (const e of explainEvents(own, explainFacts)) {
          findings.push(explanationFinding(e, prefix && e.path.startsWith('spec') ? `${prefix}.${e.path}` : e.path));
        }
      }
    }
    if (counted) objects++;
    const shown = (f: LiveFinding) => enabled(f.ruleId) && SEVERITY_RANK[f.severity] >= threshold;
    entries.push({ object, checked, rules: rules.filter(shown), explanations: findings.filter(shown) });
    // A finding below --min-severity is hidden, not passed: only an object with none at all passes.
    if (windows && !rules.some((f) => enabled(f.ruleId)) && !findings.some((f) => enabled(f.ruleId)))
      cleanWindowsObjects.add(object);
  }
  // Only now, with every object's findings known: a pod's failure and its workload's rule may say the same.
  oneFindingPerCause(entries);
  const passed: LiveObjectRef[] = [];
  for (const { object, rules, explanations } of entries) {
    const kept = [...rules, ...explanations];
    if (kept.length === 0) {
      if (cleanWindowsObjects.has(object)) passed.push(objectRef(object));
      continue;
    }
    reports.push({ ...objectRef(object), findings: kept });
  }
  const order = new Map<string, number>(LIVE_KINDS.map((k, i) => [k.kind, i]));
  const byKindNamespaceName = (a: LiveObjectRef, b: LiveObjectRef) =>
    (order.get(a.kind) ?? 99) - (order.get(b.kind) ?? 99) ||
    (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
    a.name.localeCompare(b.name);
  reports.sort(byKindNamespaceName);
  passed.sort(byKindNamespaceName);
  const summary = { objects, errors: 0, warnings: 0, infos: 0 };
  for (const r of reports) {
    for (const f of r.findings) {
      if (f.severity === 'error') summary.errors++;
      else if (f.severity === 'warning') summary.warnings++;
      else summary.infos++;
    }
  }
  return { objects: reports, passed, summary, ruleErrors };
}

function objectRef(object: Obj): LiveObjectRef {
  const namespace = getAt(object, ['metadata', 'namespace']);
  const uid = getAt(object, ['metadata', 'uid']);
  return {
    apiVersion: String(object.apiVersion ?? ''),
    kind: String(object.kind),
    ...(typeof namespace === 'string' ? { namespace } : {}),
    name: String(getAt(object, ['metadata', 'name']) ?? ''),
    ...(typeof uid === 'string' ? { uid } : {}),
  };
}

/**
 * --enable/--disable/--severity off apply to failure signatures as they do to rules (engine.ts applies them to rules).
 */
function ruleFilter(options: LiveOptions['check']): (id: string) => boolean {
  const only = options?.only && options.only.length > 0 ? new Set(options.only) : undefined;
  const disabled = new Set(options?.disable ?? []);
  return (id) =>
    !id.startsWith('WINF') || ((!only || only.has(id)) && !disabled.has(id) && options?.severity?.[id] !== 'off');
}
