// The text of a pod's "Describe" document and of a node's events: the failure explanation on top
// (explainPod: the signature catalogue over the pod's status, its events and its node), then the
// pod's status, conditions, container states and events, as a person reads them. Pure: the caller
// reads the pod, its events (field selector on involvedObject) and its node, and passes them in.
import { isObj, type Obj } from '../manifest/path';
import {
  eventsFor,
  explainPod,
  explanationWords,
  type EventFacts,
  type ExplainFacts,
  type Explanation,
  type NodeFacts,
} from './explain';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** "3m", "2h", "5d": how long ago `time` was, as kubectl prints ages; "?" when unknown. */
export function ageOf(time: string | undefined | null, now: Date): string {
  const t = time ? Date.parse(time) : NaN;
  if (!Number.isFinite(t)) return '?';
  const s = Math.max(0, Math.round((now.getTime() - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

const eventTime = (e: EventFacts): string => e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? '';

/** Events oldest first, as a table: type, reason, age, from, message (repeats counted). */
export function eventLines(events: readonly EventFacts[], now: Date): string[] {
  if (events.length === 0) return ['  <none>'];
  return [...events]
    .sort((a, b) => eventTime(a).localeCompare(eventTime(b)))
    .map((e) => {
      const from = e.source?.component ?? e.reportingComponent ?? '';
      const count = e.count && e.count > 1 ? ` (x${e.count})` : '';
      const on = e.involvedObject?.fieldPath ? ` [${e.involvedObject.fieldPath}]` : '';
      return `  ${(e.type ?? 'Normal').padEnd(8)} ${(e.reason ?? '').padEnd(22)} ${ageOf(eventTime(e), now).padStart(4)}${count}  ${from}${on}: ${(e.message ?? '').trim()}`;
    });
}

/** The explanations as the top of a document: what failed, why, what to do, where it was seen. */
function explanationLines(explanations: readonly Explanation[]): string[] {
  if (explanations.length === 0) return ['No known Windows failure matches this pod’s status and events.'];
  const out: string[] = [];
  for (const e of explanations) {
    const words = explanationWords(e);
    out.push(`${e.severity.toUpperCase()} ${e.id} ${e.title}${e.container ? ` (container ${e.container})` : ''}`);
    out.push(`  ${words.message}`);
    if (words.fix) out.push(`  Fix: ${words.fix}`);
    for (const ev of e.evidence) out.push(`  Seen in ${ev.from}: ${ev.text}`);
    out.push(`  Source: ${e.source}`);
  }
  return out;
}

function stateText(state: Obj): string {
  const w = obj(state.waiting);
  const r = obj(state.running);
  const t = obj(state.terminated);
  if (isObj(state.waiting))
    return `Waiting (${str(w.reason) ?? 'no reason'})${str(w.message) ? `: ${str(w.message)}` : ''}`;
  if (isObj(state.running)) return `Running since ${str(r.startedAt) ?? '?'}`;
  if (isObj(state.terminated))
    return `Terminated (${str(t.reason) ?? 'no reason'}, exit code ${typeof t.exitCode === 'number' ? t.exitCode : '?'})${str(t.finishedAt) ? ` at ${str(t.finishedAt)}` : ''}${str(t.message) ? `: ${str(t.message)}` : ''}`;
  return 'unknown';
}

function containerLines(pod: Obj): string[] {
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  const out: string[] = [];
  for (const [specKey, statusKey, title] of [
    ['initContainers', 'initContainerStatuses', 'Init container'],
    ['containers', 'containerStatuses', 'Container'],
  ] as const) {
    const statuses = list(status[statusKey]);
    for (const c of list(spec[specKey])) {
      const name = String(c.name ?? '');
      const s = statuses.find((x) => x.name === name) ?? {};
      out.push(`${title} ${name}`);
      out.push(`  Image:          ${str(c.image) ?? '?'}`);
      if (str(s.imageID)) out.push(`  Image ID:       ${str(s.imageID)}`);
      out.push(`  State:          ${isObj(s.state) ? stateText(s.state) : 'not started'}`);
      if (isObj(s.lastState) && Object.keys(s.lastState).length > 0)
        out.push(`  Last state:     ${stateText(s.lastState)}`);
      out.push(`  Ready:          ${s.ready === true ? 'True' : 'False'}`);
      out.push(`  Restart count:  ${typeof s.restartCount === 'number' ? s.restartCount : 0}`);
    }
  }
  return out;
}

export interface DescribePodInput {
  pod: unknown;
  /** Events of the pod's namespace (only the pod's own are shown). */
  events: readonly EventFacts[];
  /** The node the pod is bound to, when readable. */
  node?: NodeFacts;
  facts?: ExplainFacts;
  now: Date;
}

/** The read-only "Describe" document of a pod. */
export function describePod(input: DescribePodInput): string {
  const pod = obj(input.pod);
  const meta = obj(pod.metadata);
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  const name = String(meta.name ?? '');
  const namespace = str(meta.namespace);
  const own = eventsFor(input.events, {
    kind: 'Pod',
    name,
    ...(namespace ? { namespace } : {}),
    ...(str(meta.uid) ? { uid: str(meta.uid) as string } : {}),
  });
  const explanations = explainPod(pod, own, input.node, input.facts);
  const lines = [
    `Pod ${namespace ?? 'default'}/${name}`,
    '',
    '== Why it fails (kube-windows failure signatures)',
    ...explanationLines(explanations),
    '',
    '== Status',
  ];
  const owners = list(meta.ownerReferences).map((o) => `${String(o.kind ?? '')}/${String(o.name ?? '')}`);
  lines.push(
    `Phase:           ${str(status.phase) ?? 'Unknown'}${str(status.reason) ? ` (${str(status.reason)})` : ''}`,
    ...(str(status.message) ? [`Message:         ${str(status.message)}`] : []),
    `Node:            ${str(spec.nodeName) ?? '<not scheduled>'}${input.node?.build ? ` (Windows build ${input.node.build})` : ''}`,
    `Pod IP:          ${str(status.podIP) ?? '<none>'}`,
    `Started:         ${str(status.startTime) ?? '<not started>'}`,
    `Controlled by:   ${owners.length ? owners.join(', ') : '<none> (a bare pod)'}`,
    ...(str(spec.runtimeClassName) ? [`Runtime class:   ${str(spec.runtimeClassName)}`] : []),
    '',
    '== Conditions',
  );
  const conditions = list(status.conditions);
  if (conditions.length === 0) lines.push('  <none>');
  for (const c of conditions)
    lines.push(
      `  ${String(c.type ?? '').padEnd(26)} ${String(c.status ?? '')}${str(c.reason) ? ` (${str(c.reason)})` : ''}${str(c.message) ? `: ${str(c.message)}` : ''}`,
    );
  lines.push('', '== Containers', ...containerLines(pod), '', '== Events', ...eventLines(own, input.now));
  return `${lines.join('\n')}\n`;
}

/** The read-only events document of a node. */
export function describeNodeEvents(node: string, events: readonly EventFacts[], now: Date): string {
  return [`Events of node ${node} (oldest first)`, '', ...eventLines(events, now), ''].join('\n');
}
