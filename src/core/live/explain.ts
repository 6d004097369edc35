// Explains why a live Windows pod fails: reads its status (waiting/terminated reasons and messages,
// the scheduling condition), its events and its node's conditions, matches them against the failure
// signature catalogue (signatures.ts) and words each match with the facts at hand (the node's build,
// the image's build, the cluster's Windows nodes, RuntimeClasses and mirror sets). Pure: callers
// (the CLI's live check, the explorer's pod items) read the objects and pass them in.
import { getAt, isObj, type Obj } from '../manifest/path';
import { objectsOf, podSpecOf } from '../manifest/workloads';
import { emptyFacts, stringMap, type ClusterSnapshot, type Taint } from '../rules/facts';
import { targetingOf } from '../rules/targeting';
import type { Severity } from '../rules/types';
import type { EventFacts } from '../openshift/machine-state';
import {
  buildByNumber,
  imageBuild,
  linuxOnlyImage,
  parseBuildLabel,
  parseImage,
  retagForBuild,
  windowsImageEvidence,
} from '../windows/builds';
import { BUILD_LABEL, OS_LABEL } from '../well-known';
import { SIGNATURES, type Signature, type TextKind } from './signatures';
import { counted, plural } from '../plural';

export type { EventFacts };

/** What explanations need to know of a node (from a Node object: see nodeFactsOf). */
export interface NodeFacts {
  name: string;
  /** `node.kubernetes.io/windows-build`, e.g. 10.0.20348. */
  build?: string;
  os?: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

/** One registry mirror set as the cluster serves it (IDMS serve digests only, ITMS tags). */
export interface MirrorSetFacts {
  kind: 'ImageDigestMirrorSet' | 'ImageTagMirrorSet';
  name: string;
  mirrors: { source: string; mirrors: string[] }[];
}

export interface ExplainFacts {
  cluster?: ClusterSnapshot;
  mirrorSets?: MirrorSetFacts[];
}

export interface Evidence {
  /**
   * Where the text was read: `container iis waiting (ErrImagePull)`, `event FailedCreatePodSandBox`, `node win-2
   * Ready`.
   */
  from: string;
  text: string;
}

export interface Explanation {
  /** The signature's stable id (WINF001 …). */
  id: string;
  severity: Severity;
  title: string;
  /** What happened to this pod, with the facts named. */
  message: string;
  /** What to do, as sharp as the facts allow. */
  fix: string;
  /** Where the signature's texts were seen. */
  source: string;
  /** The container concerned, when the texts name one. */
  container?: string;
  /** The pod field the failure is about (`spec.containers[0].image`, `spec.tolerations`), or `status`. */
  path: string;
  evidence: Evidence[];
}

/**
 * An explanation worded so that each thing is said once: its title (left out when the message
 * restates it), its message, and its fix (left out when the message already says it). Every place
 * that shows an explanation (pod tooltips, the describe document, live findings) uses this.
 */
export function explanationWords(e: Pick<Explanation, 'title' | 'message' | 'fix'>): {
  title?: string;
  message: string;
  fix?: string;
} {
  const message = squash(e.message);
  const head = squash(e.title.replace(/:.*$/, ''));
  const saysFix = message.includes(squash(e.fix).slice(0, 40));
  return {
    ...(message.startsWith(head) ? {} : { title: e.title }),
    message: e.message,
    ...(saysFix ? {} : { fix: e.fix }),
  };
}

const squash = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

interface Text {
  kind: TextKind;
  reason?: string;
  text: string;
  from: string;
  container?: string;
}

/** The facts a node object gives explanations. */
export function nodeFactsOf(node: unknown): NodeFacts {
  const n = isObj(node) ? node : {};
  const labels = stringMap(getAt(n, ['metadata', 'labels']));
  const facts: NodeFacts = { name: String(getAt(n, ['metadata', 'name']) ?? ''), labels };
  if (labels[BUILD_LABEL]) facts.build = labels[BUILD_LABEL];
  if (labels[OS_LABEL]) facts.os = labels[OS_LABEL];
  const taints = getAt(n, ['spec', 'taints']);
  if (Array.isArray(taints))
    facts.taints = taints.filter(isObj).map((t) => ({
      key: String(t.key ?? ''),
      ...(typeof t.value === 'string' && t.value ? { value: t.value } : {}),
      effect: String(t.effect ?? ''),
    }));
  const conditions = getAt(n, ['status', 'conditions']);
  if (Array.isArray(conditions)) {
    facts.conditions = conditions.filter(isObj).map((c) => ({
      type: String(c.type ?? ''),
      status: String(c.status ?? ''),
      ...(typeof c.reason === 'string' ? { reason: c.reason } : {}),
      ...(typeof c.message === 'string' ? { message: c.message } : {}),
    }));
  }
  return facts;
}

/**
 * Whether a live pod targets Windows: its spec (OS field, selectors, RuntimeClass, images) or the node it is bound to.
 */
export function podTargetsWindows(pod: unknown, node: NodeFacts | undefined, facts: ExplainFacts = {}): boolean {
  if (node?.os === 'windows' || node?.build) return true;
  const view = podView(pod);
  return view !== undefined && targetingOf(view, emptyFacts('auto', facts.cluster)).os === 'windows';
}

/** The events that concern one object (by uid when the event has one, else by kind, namespace and name). */
export function eventsFor(
  events: readonly EventFacts[],
  object: { kind: string; namespace?: string; name: string; uid?: string },
): EventFacts[] {
  return events.filter((e) => {
    const o = e.involvedObject;
    if (!o) return false;
    if (object.uid && o.uid) return o.uid === object.uid;
    return o.kind === object.kind && o.name === object.name && (o.namespace ?? '') === (object.namespace ?? '');
  });
}

/**
 * Explains a live pod's Windows failures. `events` may be every event of the namespace: only those
 * whose involvedObject is this pod are read. `node` is the node the pod is bound to, if any.
 */
export function explainPod(
  pod: unknown,
  events: readonly EventFacts[],
  node: NodeFacts | undefined,
  facts: ExplainFacts = {},
): Explanation[] {
  const p = isObj(pod) ? pod : {};
  const meta = isObj(p.metadata) ? p.metadata : {};
  const own = eventsFor(events, {
    kind: 'Pod',
    name: String(meta.name ?? ''),
    namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined,
    uid: typeof meta.uid === 'string' ? meta.uid : undefined,
  });
  const texts = [...podTexts(p), ...eventTexts(own), ...nodeTexts(node)];
  const ctx: Ctx = { pod: p, node, facts, windows: podTargetsWindows(p, node, facts) };
  return explainTexts(texts, ctx);
}

/**
 * Explains the events of a workload (a ReplicaSet, Job, DaemonSet … whose pods admission refused, so
 * that no pod exists to explain): FailedCreate with a RuntimeClass, Pod Security or gMSA refusal.
 */
export function explainEvents(events: readonly EventFacts[], facts: ExplainFacts = {}): Explanation[] {
  return explainTexts(eventTexts(events), { pod: {}, facts, windows: true });
}

interface Ctx {
  pod: Obj;
  node?: NodeFacts;
  facts: ExplainFacts;
  windows: boolean;
}

function explainTexts(texts: Text[], ctx: Ctx): Explanation[] {
  const found = new Map<string, { sig: Signature; match: RegExpExecArray; texts: Text[]; container?: string }>();
  for (const t of texts) {
    for (const sig of SIGNATURES) {
      if (!sig.kinds.includes(t.kind)) continue;
      if (sig.reasons && (!t.reason || !sig.reasons.includes(t.reason))) continue;
      let match: RegExpExecArray | null = null;
      for (const re of sig.patterns) if ((match = re.exec(t.text))) break;
      if (!match) continue;
      const key = `${sig.id}\u0000${t.container ?? ''}`;
      const entry = found.get(key);
      if (entry) {
        if (!entry.texts.some((x) => x.text === t.text)) entry.texts.push(t);
      } else found.set(key, { sig, match, texts: [t], ...(t.container ? { container: t.container } : {}) });
    }
  }
  // A Linux image on a Windows node needs no text beyond a failing pull: the image itself says it.
  for (const c of containersOf(ctx.pod)) {
    if (!ctx.node?.build && ctx.node?.os !== 'windows') break;
    const why = c.image ? linuxOnlyImage(c.image) : undefined;
    if (!why) continue;
    const failing = texts.filter(
      (t) =>
        t.container === c.name &&
        (t.kind === 'waiting' || t.kind === 'event') &&
        /ErrImagePull|ImagePullBackOff|Failed|CreateContainerError|InspectFailed/.test(t.reason ?? ''),
    );
    if (failing.length === 0) continue;
    found.delete(`WINF002\u0000${c.name}`);
    const sig = SIGNATURES.find((s) => s.id === 'WINF003') as Signature;
    found.set(`WINF003\u0000${c.name}`, {
      sig,
      match: /./.exec('x') as RegExpExecArray,
      texts: failing.slice(0, 3),
      container: c.name,
    });
  }
  const out: Explanation[] = [];
  for (const { sig, match, texts: seen, container } of found.values()) {
    const words = describe(sig, match, container, ctx);
    if (!words) continue;
    out.push({
      id: sig.id,
      severity: sig.severity,
      title: sig.title,
      message: words.message,
      fix: words.fix ?? sig.fix,
      source: sig.source,
      ...(container ? { container } : {}),
      path: fieldOf(sig.id, container, ctx.pod),
      evidence: seen.slice(0, 3).map((t) => ({ from: t.from, text: t.text })),
    });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id) || (a.container ?? '').localeCompare(b.container ?? ''));
}

// ---------------------------------------------------------------------------------------------
// Texts

function podTexts(pod: Obj): Text[] {
  const out: Text[] = [];
  const status = isObj(pod.status) ? pod.status : {};
  for (const group of ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses']) {
    const list = status[group];
    if (!Array.isArray(list)) continue;
    for (const cs of list.filter(isObj)) {
      const name = String(cs.name ?? '');
      for (const [which, state] of [
        ['', cs.state],
        ['last ', cs.lastState],
      ] as const) {
        if (!isObj(state)) continue;
        const w = state.waiting;
        if (isObj(w) && typeof w.message === 'string')
          out.push({
            kind: 'waiting',
            reason: str(w.reason),
            text: w.message,
            container: name,
            from: `container ${name} ${which}waiting (${str(w.reason) ?? 'no reason'})`,
          });
        const t = state.terminated;
        if (isObj(t)) {
          const from = `container ${name} ${which}terminated (${str(t.reason) ?? 'no reason'})`;
          if (typeof t.message === 'string' && t.message)
            out.push({ kind: 'terminated', reason: str(t.reason), text: t.message, container: name, from });
          if (typeof t.exitCode === 'number' && t.exitCode !== 0)
            out.push({
              kind: 'terminated',
              reason: str(t.reason),
              text: `exit code ${t.exitCode}`,
              container: name,
              from,
            });
        }
      }
    }
  }
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObj) : [];
  const scheduled = conditions.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (scheduled && typeof scheduled.message === 'string')
    out.push({
      kind: 'scheduling',
      reason: str(scheduled.reason),
      text: scheduled.message,
      from: `condition PodScheduled (${str(scheduled.reason) ?? 'False'})`,
    });
  if (typeof status.reason === 'string' || typeof status.message === 'string') {
    const text = [str(status.reason), str(status.message)].filter(Boolean).join(': ');
    out.push({
      kind: 'pod',
      reason: str(status.reason),
      text,
      from: `pod status (${str(status.reason) ?? str(status.phase) ?? ''})`,
    });
  }
  return out;
}

function eventTexts(events: readonly EventFacts[]): Text[] {
  const out: Text[] = [];
  for (const e of events) {
    if (!e.message) continue;
    const container = /\{([^}]+)\}/.exec(e.involvedObject?.fieldPath ?? '')?.[1];
    const times = e.count && e.count > 1 ? ` (x${e.count})` : '';
    const subject =
      e.involvedObject?.kind && e.involvedObject.kind !== 'Pod'
        ? ` on ${e.involvedObject.kind} ${e.involvedObject.name ?? ''}`
        : '';
    out.push({
      kind: 'event',
      reason: e.reason,
      text: e.message,
      from: `event ${e.reason ?? ''}${subject}${times}`,
      ...(container ? { container } : {}),
    });
    if (e.reason === 'FailedScheduling')
      out.push({ kind: 'scheduling', reason: e.reason, text: e.message, from: `event FailedScheduling${times}` });
  }
  return out;
}

function nodeTexts(node: NodeFacts | undefined): Text[] {
  if (!node) return [];
  return (node.conditions ?? [])
    .filter((c) => (c.type === 'Ready' ? c.status !== 'True' : false) && c.message)
    .map((c) => ({
      kind: 'node' as const,
      reason: c.reason,
      text: c.message ?? '',
      from: `node ${node.name} ${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`,
    }));
}

// ---------------------------------------------------------------------------------------------
// Words, with facts

type Words = { message: string; fix?: string } | undefined;

function describe(sig: Signature, m: RegExpExecArray, container: string | undefined, ctx: Ctx): Words {
  const node = ctx.node;
  const on = node ? ` on node ${node.name}` : '';
  const image = imageOf(ctx.pod, container);
  switch (sig.id) {
    case 'WINF001':
      return buildMismatch(image, container, node);
    case 'WINF002': {
      const wanted = m[1] ?? node?.build;
      const what = image ? `image ${image}` : 'the image';
      const linux = image ? linuxOnlyImage(image) : undefined;
      const build = wanted ? ` ${wanted}${buildName(wanted)}` : '';
      const hint = linux ? ` (${linux})` : '';
      return {
        message: `${what} has no variant for windows/amd64${build}${node?.build && wanted === node.build ? `, the build node ${node.name} runs` : on}${hint}.`,
      };
    }
    case 'WINF003': {
      const why = image ? linuxOnlyImage(image) : undefined;
      return {
        message: `${image ? `image ${image}` : 'a Linux image'} cannot run${on}${node?.build ? ` (Windows ${node.build})` : ''}${why ? `: ${why}` : ''}.`,
      };
    }
    case 'WINF004':
      return untoleratedTaint(m, ctx);
    case 'WINF005':
      return ctx.windows ? selectorMismatch(m, ctx) : undefined;
    case 'WINF006': {
      const name = m[1];
      const classes = (ctx.facts.cluster?.runtimeClasses ?? []).map((r) => r.name);
      const known = classes.length > 0 ? `; the cluster's Windows RuntimeClasses are ${classes.join(', ')}` : '';
      const handler = /RuntimeHandler|no runtime for/i.test(m[0]);
      return {
        message: handler
          ? `handler "${name}" is not configured in containerd${on}${known}.`
          : `RuntimeClass "${name}" does not exist${known}.`,
        ...(classes.length > 0 && !handler
          ? {
              fix: `Set runtimeClassName to one of ${classes.join(', ')}, or create RuntimeClass "${name}" (handler runhcs-wcow-process).`,
            }
          : {}),
      };
    }
    case 'WINF011': {
      const os = ctx.facts.cluster?.openshift;
      const overlay =
        os && os.hybridOverlay === false
          ? ' The Network operator has no hybridOverlayConfig: WMCO cannot configure Windows networking without it.'
          : '';
      return {
        message: `node ${node?.name ?? '?'} reports its container network not ready; no pod can start there.${overlay}`,
      };
    }
    case 'WINF014':
      return mirrorMissed(image, ctx);
    case 'WINF016': {
      const command = commandOf(ctx.pod, container);
      const linux = command && /^(\/bin\/|\/usr\/bin\/)?(sh|bash|ash|dash|zsh)$/.test(command);
      return {
        message: `container ${container ?? '?'} could not start its process${command ? ` (${command})` : ''}${linux ? `: ${command} is a Linux shell, absent from Windows images` : ''}.`,
      };
    }
    case 'WINF017': {
      const code = Number(/(-?\d+)$/.exec(m[0])?.[1] ?? 0);
      const hex = `0x${(code >>> 0).toString(16).toUpperCase()}`;
      const meaning: Record<string, string> = {
        '0xC0000135': 'a DLL was not found',
        '0xC0000142': 'a DLL failed to initialise',
        '0xC0000005': 'an access violation',
      };
      const nano =
        image && /nanoserver/i.test(image) ? `; ${image} is Nano Server based, which lacks most Server Core DLLs` : '';
      return {
        message: `container ${container ?? '?'} exited with ${code} (${hex}: ${meaning[hex] ?? 'a Windows status code'})${nano}.`,
      };
    }
    default:
      return { message: `${sig.title.replace(/:.*$/, '')}${container ? ` (container ${container})` : ''}${on}.` };
  }
}

function buildMismatch(image: string | undefined, container: string | undefined, node: NodeFacts | undefined): Words {
  const named = image ? imageBuild(parseImage(image)) : undefined;
  const nodeBuild = parseBuildLabel(node?.build)?.build;
  const needs = named
    ? `needs ${buildByNumber(named.build)?.name.replace(/ \(.*\)$/, '') ?? `Windows build ${named.build}`} (10.0.${named.build})`
    : "was built for another Windows build than the node's";
  const runs = node
    ? `node ${node.name} runs ${node.build ? `${node.build}${buildName(node.build)}` : 'another build'}`
    : 'the node runs another build';
  const subject = image
    ? `image ${image}`
    : container
      ? `container ${container}'s image`
      : "the pod's sandbox (pause) image";
  const retag = image && nodeBuild ? retagForBuild(image, nodeBuild) : undefined;
  const ltsc = nodeBuild ? buildByNumber(nodeBuild)?.tokens[0] : undefined;
  const fix = [
    retag && retag !== image ? `use ${retag}` : ltsc ? `use the ${ltsc} tag` : 'use the tag of the node build',
    named
      ? `or schedule by the ${BUILD_LABEL} label (${BUILD_LABEL}: 10.0.${named.build})`
      : `or schedule by the ${BUILD_LABEL} label`,
  ].join(' ');
  // What happened, then (apart) what to do: every front end shows the fix once, after the message.
  return { message: `${subject} ${needs}; ${runs}.`, fix: `${fix[0].toUpperCase()}${fix.slice(1)}.` };
}

function untoleratedTaint(m: RegExpExecArray, ctx: Ctx): Words {
  const count = m[1];
  const nodes = ctx.facts.cluster?.windowsNodes ?? [];
  const taint = nodes
    .flatMap((n) => n.taints)
    .find(
      (t) => /^(os|kubernetes\.io\/os|node\.kubernetes\.io\/os)$/.test(t.key) && /windows/i.test(t.value ?? ''),
    ) ?? {
    key: 'os',
    value: 'Windows',
    effect: 'NoSchedule',
  };
  // The toleration WIN073's fix adds: operator Exists covers os=Windows (WMCO) and os=windows alike.
  const toleration = `{key: ${taint.key}, operator: Exists, effect: ${taint.effect}}`;
  return {
    message: `${counted(Number(count), 'Windows node')} ${plural(Number(count), 'carries', 'carry')} the taint ${taint.key}=${taint.value ?? ''}:${taint.effect} and the pod does not tolerate it.`,
    fix: `Add tolerations: [${toleration}] to the pod template, or use a RuntimeClass whose scheduling.tolerations carries it.`,
  };
}

function selectorMismatch(m: RegExpExecArray, ctx: Ctx): Words {
  const spec = isObj(ctx.pod.spec) ? ctx.pod.spec : {};
  const selector = stringMap(spec.nodeSelector);
  const nodes = ctx.facts.cluster?.windowsNodes;
  const wanted = selector[BUILD_LABEL];
  const shown = Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  if (nodes && nodes.length === 0)
    return {
      message: `${counted(Number(m[1]), 'node')} didn't match the pod's selectors (${shown || 'node affinity'}); the cluster has no Windows nodes.`,
      fix: 'Add Windows nodes (a Windows MachineSet, BYOH or kubeadm join), or run the workload on Linux.',
    };
  if (wanted && nodes) {
    const builds = new Map<string, number>();
    for (const n of nodes) builds.set(n.build, (builds.get(n.build) ?? 0) + 1);
    if (!builds.has(wanted)) {
      const have = [...builds].map(([b, n]) => `${b}${buildName(b)} (${counted(n, 'node')})`).join(', ');
      return {
        message: `the pod selects ${BUILD_LABEL}=${wanted}${buildName(wanted)}, which no Windows node runs; the Windows nodes run ${have}.`,
        fix: `Select a build the cluster has (${[...builds.keys()].join(', ')}) with the image tag of that build, or add nodes of ${wanted}.`,
      };
    }
  }
  // Some nodes failed for other reasons (a taint, resources): the selector only kept the pod off the
  // other nodes (Linux ones, for a Windows pod), which is what it is for.
  const total = /0\/(\d+) nodes are available/.exec(m.input);
  if (total && Number(m[1]) < Number(total[1])) return undefined;
  return { message: `${counted(Number(m[1]), 'node')} didn't match the pod's selectors${shown ? ` (${shown})` : ''}.` };
}

function mirrorMissed(image: string | undefined, ctx: Ctx): Words {
  if (!image) return undefined;
  const ref = image.replace(/^docker\.io\//, '');
  const byDigest = image.includes('@sha256:');
  const covering = (ctx.facts.mirrorSets ?? []).flatMap((set) =>
    set.mirrors
      .filter(
        (e) =>
          ref === e.source ||
          ref.startsWith(`${e.source}/`) ||
          ref.startsWith(`${e.source}:`) ||
          ref.startsWith(`${e.source}@`),
      )
      .map((e) => ({ set, entry: e })),
  );
  if (covering.length === 0) return undefined;
  const tagSets = covering.filter((c) => c.set.kind === 'ImageTagMirrorSet');
  const first = covering[0];
  const mirrors = first.entry.mirrors.join(', ');
  if (!byDigest && tagSets.length === 0) {
    return {
      message: `image ${image} is referenced by tag, and only ${first.set.kind} ${first.set.name} mirrors ${first.entry.source} (to ${mirrors}): digest mirror sets serve pulls by digest only, so the node went to the source, which it cannot reach.`,
      fix: `Reference the image by digest (${image.split(':')[0]}@sha256:…), or add an ImageTagMirrorSet for ${first.entry.source}.`,
    };
  }
  const node = ctx.node ? `node ${ctx.node.name}` : 'the node';
  return {
    message: `${first.set.kind} ${first.set.name} mirrors ${first.entry.source} to ${mirrors}, but ${node} pulled ${image} from the source, which it cannot reach: its containerd mirror configuration (hosts.toml) does not name the mirror.`,
    fix: `Push the mirror configuration to ${node} (WMCO does on OpenShift; kube-windows mirrors apply elsewhere), then delete the pod.`,
  };
}

// ---------------------------------------------------------------------------------------------
// Small readers

/** Pod-level fields a signature is about; container-level ones are under the container. */
const POD_FIELDS: Record<string, string> = {
  WINF004: 'spec.tolerations',
  WINF005: 'spec.nodeSelector',
  WINF006: 'spec.runtimeClassName',
  WINF007: 'spec.securityContext.windowsOptions.hostProcess',
  WINF009: 'spec.securityContext.windowsOptions.gmsaCredentialSpecName',
  WINF011: 'spec.nodeName',
  WINF015: 'spec.os',
};
const CONTAINER_FIELDS: Record<string, string> = {
  WINF001: 'image',
  WINF002: 'image',
  WINF003: 'image',
  WINF014: 'image',
  WINF008: 'securityContext.windowsOptions',
  WINF013: 'volumeMounts',
  WINF016: 'command',
};

function fieldOf(id: string, container: string | undefined, pod: Obj): string {
  const spec = isObj(pod.spec) ? pod.spec : {};
  if (container) {
    for (const group of ['initContainers', 'containers', 'ephemeralContainers']) {
      const list = spec[group];
      const i = Array.isArray(list) ? list.findIndex((c) => isObj(c) && c.name === container) : -1;
      if (i >= 0) return `spec.${group}[${i}]${CONTAINER_FIELDS[id] ? `.${CONTAINER_FIELDS[id]}` : ''}`;
    }
  }
  if (POD_FIELDS[id]) return POD_FIELDS[id];
  if (CONTAINER_FIELDS[id] === 'image') {
    const list = Array.isArray(spec.containers) ? spec.containers : [];
    const i = list.findIndex((c) => isObj(c) && typeof c.image === 'string' && c.image === imageOf(pod, undefined));
    if (i >= 0) return `spec.containers[${i}].image`;
  }
  return 'status';
}

function podView(pod: unknown) {
  const value = isObj(pod) ? { apiVersion: 'v1', kind: 'Pod', ...pod } : undefined;
  const object = value ? objectsOf(value)[0] : undefined;
  return object ? podSpecOf(object) : undefined;
}

function containersOf(pod: Obj): { name: string; image?: string; command?: unknown }[] {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const out: { name: string; image?: string; command?: unknown }[] = [];
  for (const group of ['initContainers', 'containers', 'ephemeralContainers']) {
    const list = spec[group];
    if (Array.isArray(list))
      for (const c of list.filter(isObj))
        out.push({
          name: String(c.name ?? ''),
          ...(typeof c.image === 'string' ? { image: c.image } : {}),
          command: c.command,
        });
  }
  return out;
}

/** The container's image; without a container, the first Windows image of the pod (a sandbox failure names none). */
function imageOf(pod: Obj, container: string | undefined): string | undefined {
  const all = containersOf(pod);
  const named = container ? all.find((c) => c.name === container) : undefined;
  if (named) return named.image;
  return (
    all.find((c) => c.image && windowsImageEvidence(c.image))?.image ?? (all.length === 1 ? all[0].image : undefined)
  );
}

function commandOf(pod: Obj, container: string | undefined): string | undefined {
  const c = containersOf(pod).find((x) => x.name === container);
  return Array.isArray(c?.command) && typeof c.command[0] === 'string' ? c.command[0] : undefined;
}

function buildName(label: string): string {
  const b = parseBuildLabel(label);
  const known = b ? buildByNumber(b.build) : undefined;
  return known ? ` (${known.name.replace(/^Windows Server /, '').replace(/ \(.*\)$/, '')})` : '';
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}
