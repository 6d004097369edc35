import { getAt, isObj, type Obj, type Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import type { PodSpecView } from '../../manifest/workloads';
import { apiField, inferredFrom, isSet, objAt } from '../helpers';
import { factOrigin, isOpenShift, type Facts, type RuntimeClassFacts, type Taint } from '../facts';
import { OS_LABELS } from '../targeting';
import { BETA_OS_LABEL, BUILD_LABEL, OS_LABEL } from '../../well-known';
import type { FixSpec, PodRule, Report } from '../types';

const REQUIRED = ['affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];
const PREFERRED = ['affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution'];

/** One `matchExpressions` entry of a node affinity term, with where it sits. */
interface Expr {
  path: Path;
  key: string;
  operator: string;
  values: unknown[];
  term: number;
  required: boolean;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function requiredTerms(pod: PodSpecView): unknown[] | undefined {
  const terms = getAt(pod.spec, REQUIRED);
  return Array.isArray(terms) ? terms : undefined;
}

/** Every node affinity expression of the pod: required terms, and (when asked) preferred ones. */
function affinityExprs(pod: PodSpecView, withPreferred: boolean): Expr[] {
  const out: Expr[] = [];
  const collect = (exprs: unknown, base: Path, term: number, required: boolean) => {
    if (!Array.isArray(exprs)) return;
    exprs.forEach((e, i) => {
      if (!isObj(e) || typeof e.key !== 'string') return;
      out.push({
        path: [...base, i],
        key: e.key,
        operator: str(e.operator),
        values: Array.isArray(e.values) ? e.values : [],
        term,
        required,
      });
    });
  };
  requiredTerms(pod)?.forEach((t, ti) => {
    if (isObj(t)) collect(t.matchExpressions, [...pod.path, ...REQUIRED, ti, 'matchExpressions'], ti, true);
  });
  if (withPreferred) {
    const pref = getAt(pod.spec, PREFERRED);
    if (Array.isArray(pref)) {
      pref.forEach((p, pi) => {
        const preference = isObj(p) ? p.preference : undefined;
        if (isObj(preference))
          collect(
            preference.matchExpressions,
            [...pod.path, ...PREFERRED, pi, 'preference', 'matchExpressions'],
            pi,
            false,
          );
      });
    }
  }
  return out;
}

/** A RuntimeClass whose scheduling.nodeSelector keeps its pods on Windows nodes. */
function runtimeClassPinsWindows(rc: RuntimeClassFacts): boolean {
  const os = rc.nodeSelector[OS_LABEL] ?? rc.nodeSelector[BETA_OS_LABEL];
  if (typeof os === 'string') return os === 'windows';
  return BUILD_LABEL in rc.nodeSelector;
}

function runtimeClassOf(pod: PodSpecView, facts: Facts): RuntimeClassFacts | undefined {
  const name = pod.spec.runtimeClassName;
  return typeof name === 'string' ? facts.runtimeClasses.get(name) : undefined;
}

/** Where a pod-wide finding is shown: `os` when declared, else the pod spec key. */
function podAnchor(pod: PodSpecView): Path {
  return isObj(pod.spec.os) ? [...pod.path, 'os'] : pod.path;
}

/**
 * AKS labels every node with its OS SKU (Ubuntu, AzureLinux, Windows2019, Windows2022, WindowsAnnual …):
 * a Windows SKU exists only on Windows nodes, so selecting one keeps the pod off Linux as well as kubernetes.io/os
 * does.
 */
const AKS_OS_SKU = 'kubernetes.azure.com/os-sku';
const isAksWindowsSku = (v: unknown): boolean => typeof v === 'string' && /^Windows/.test(v);

const WIN070: PodRule = {
  id: 'WIN070',
  admission: { enforceable: false, why: 'other-object', detail: 'a Windows RuntimeClass also places the pod' },
  scope: 'pod',
  family: 'scheduling',
  severity: 'warning',
  title:
    'Windows pod with no kubernetes.io/os node selector, affinity or Windows RuntimeClass: the scheduler ignores spec.os.name and may place it on a Linux node.',
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows' || isSet(pod.spec, 'nodeName')) return;
    const selector = objAt(pod.spec, ['nodeSelector']);
    // Any OS selector (even a wrong one: WIN071/WIN072 speak about it) or a build pin keeps it off Linux nodes.
    if (selector && [...OS_LABELS, BUILD_LABEL].some((l) => isSet(selector, l))) return;
    if (selector && isAksWindowsSku(selector[AKS_OS_SKU])) return;
    const terms = requiredTerms(pod);
    if (terms && terms.length > 0) {
      const exprs = affinityExprs(pod, false);
      const restricts = (ti: number) =>
        exprs.some(
          (e) =>
            e.term === ti &&
            ((OS_LABELS.includes(e.key) && (e.operator === 'In' || e.operator === 'NotIn')) ||
              (e.key === BUILD_LABEL && (e.operator === 'In' || e.operator === 'Exists')) ||
              (e.key === AKS_OS_SKU && e.operator === 'In' && e.values.length > 0 && e.values.every(isAksWindowsSku))),
        );
      if (terms.every((_, ti) => restricts(ti))) return;
    }
    if (typeof pod.spec.runtimeClassName === 'string') {
      const rc = runtimeClassOf(pod, facts);
      // A RuntimeClass we cannot see may well pin Windows nodes: say nothing rather than guess.
      if (!rc || runtimeClassPinsWindows(rc)) return;
    }
    report({
      path: podAnchor(pod),
      message: `${pod.object.kind}${pod.object.name ? ` ${preview(pod.object.name)}` : ''} targets Windows but nothing keeps it off Linux nodes: the scheduler ignores spec.os.name, so it may be placed on a Linux node and fail there. Add nodeSelector kubernetes.io/os: windows (${apiField(pod, ['nodeSelector'])}).`,
      related: inferredFrom(target),
      fixes: [
        {
          title: 'Add nodeSelector kubernetes.io/os: windows',
          kind: 'rewrite',
          ops: [{ op: 'set', path: [...pod.path, 'nodeSelector', OS_LABEL], value: 'windows' }],
        },
      ],
    });
  },
};

// WIN071's words, shared with its admission policy (core/policy). `shown` is the value as preview quotes it.
export const win071BetaSelectorMessage = (field: string, hasNew: boolean): string =>
  `${field} uses ${BETA_OS_LABEL}, deprecated since Kubernetes 1.14; select on ${OS_LABEL}, the label every kubelet sets. ${hasNew ? `Remove it: ${OS_LABEL} is already there.` : `Rename the key to ${OS_LABEL}.`}`;
export const win071SelectorCaseMessage = (label: string, shown: string, fix: string): string =>
  `nodeSelector ${label}: ${shown} never matches a node: label values are case-sensitive and nodes carry ${label}=${fix}. The pod stays Pending; use ${fix}.`;
/** `kind` is "required node affinity" or "preferred node affinity". */
export const win071BetaAffinityMessage = (kind: string): string =>
  `${kind} on ${BETA_OS_LABEL}, deprecated since Kubernetes 1.14; use ${OS_LABEL}, the label every kubelet sets.`;
export const win071AffinityCaseMessage = (
  kind: string,
  key: string,
  operator: string,
  shown: string,
  fix: string,
  effect: string,
): string =>
  `${kind} ${key} ${operator} ${shown}: label values are case-sensitive and nodes carry ${key}=${fix}, ${effect}. Use ${fix}.`;
/** What a wrong-case value does: in the only values of a required `In`, nothing matches; elsewhere it is lost. */
export const WIN071_EFFECT = {
  never: 'so no node matches and the pod stays Pending',
  excludesNone: 'so it excludes no node',
  matchesNone: 'so this value matches no node',
};

const WIN071: PodRule = {
  id: 'WIN071',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'scheduling',
  severity: 'error',
  title:
    'OS node label with a wrong-case value (Windows never matches a node) or the deprecated beta.kubernetes.io/os label.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    // A value naming the other OS than spec.os.name (`Linux` on a windows pod) is WIN072's conflict,
    // with its fix; "use linux" here would be a second, contrary one.
    const osName = getAt(pod.spec, ['os', 'name']);
    const conflicts = (fix: string) => (osName === 'windows' || osName === 'linux') && fix !== osName;
    const selector = objAt(pod.spec, ['nodeSelector']);
    if (selector) {
      for (const label of OS_LABELS) {
        if (!isSet(selector, label)) continue;
        const path = [...pod.path, 'nodeSelector', label];
        if (label === BETA_OS_LABEL) {
          const hasNew = isSet(selector, OS_LABEL);
          report({
            path,
            severity: 'warning',
            message: win071BetaSelectorMessage(apiField(pod, ['nodeSelector']), hasNew),
            fixes: [
              hasNew
                ? {
                    title: `Remove ${BETA_OS_LABEL}`,
                    kind: 'safe',
                    ops: [{ op: 'delete', path, keep: pod.path.length + 1 }],
                  }
                : // The deprecated name of the same label.
                  { title: `Rename to ${OS_LABEL}`, kind: 'safe', ops: [{ op: 'renameKey', path, newKey: OS_LABEL }] },
            ],
          });
        }
        const value = selector[label];
        const fix = wrongCase(value);
        if (fix && !conflicts(fix)) {
          report({
            path,
            target: 'value',
            message: win071SelectorCaseMessage(label, preview(value), fix),
            fixes: [{ title: `Change to ${fix}`, kind: 'safe', ops: [{ op: 'set', path, value: fix }] }],
          });
        }
      }
    }
    for (const e of affinityExprs(pod, true)) {
      if (!OS_LABELS.includes(e.key)) continue;
      const kind = e.required ? 'required node affinity' : 'preferred node affinity';
      if (e.key === BETA_OS_LABEL) {
        report({
          path: [...e.path, 'key'],
          target: 'value',
          severity: 'warning',
          message: win071BetaAffinityMessage(kind),
          fixes: [
            {
              title: `Change key to ${OS_LABEL}`,
              kind: 'safe',
              ops: [{ op: 'set', path: [...e.path, 'key'], value: OS_LABEL }],
            },
          ],
        });
      }
      const exact = e.values.some((v) => v === 'windows' || v === 'linux');
      e.values.forEach((v, vi) => {
        const fix = wrongCase(v);
        if (!fix || conflicts(fix)) return;
        // `In [Windows]` alone matches no node; anything else only loses its effect.
        const never = e.required && e.operator === 'In' && !exact;
        const effect = never
          ? WIN071_EFFECT.never
          : e.operator === 'NotIn'
            ? WIN071_EFFECT.excludesNone
            : WIN071_EFFECT.matchesNone;
        report({
          path: [...e.path, 'values', vi],
          target: 'value',
          severity: never ? 'error' : 'warning',
          message: win071AffinityCaseMessage(kind, e.key, e.operator, preview(v), fix, effect),
          fixes: [
            {
              title: `Change to ${fix}`,
              kind: 'safe',
              ops: [{ op: 'set', path: [...e.path, 'values', vi], value: fix }],
            },
          ],
        });
      });
    }
  },
};

/** The lowercase OS value for a value that only differs from it by case (`Windows`), else undefined. */
function wrongCase(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const lower = v.toLowerCase();
  return (lower === 'windows' || lower === 'linux') && v !== lower ? lower : undefined;
}

// WIN072's words, shared with its admission policy (core/policy). `shown` is the value as preview quotes it.
const WIN072_WHY =
  'the pod can never run (the kubelet rejects it with PodOSNotSupported or PodOSSelectorNodeLabelDoesNotMatch)';
export const win072SelectorMessage = (osField: string, osName: string, label: string, shown: string): string =>
  `${osField} is ${osName} but nodeSelector ${label} is ${shown}: ${WIN072_WHY}. Make both name the same OS.`;
/** `expression` is "key operator values", the values as preview quotes them. */
export const win072AffinityMessage = (osField: string, osName: string, expression: string): string =>
  `${osField} is ${osName} but required node affinity ${expression} excludes ${osName} nodes: ${WIN072_WHY}. Make both name the same OS.`;

const WIN072: PodRule = {
  id: 'WIN072',
  admission: { enforceable: true, detail: 'not the conflict with a RuntimeClass, another object' },
  scope: 'pod',
  family: 'scheduling',
  severity: 'error',
  title:
    'spec.os.name conflicts with the kubernetes.io/os node selector or required affinity: the kubelet rejects the pod.',
  check({ pod, facts }, report) {
    const osName = getAt(pod.spec, ['os', 'name']);
    if (osName !== 'windows' && osName !== 'linux') return;
    const other = osName === 'windows' ? 'linux' : 'windows';
    const osPath = [...pod.path, 'os', 'name'];
    const related = [
      { path: osPath, target: 'value' as const, message: `${apiField(pod, ['os', 'name'])} is ${osName} here` },
    ];

    const selector = objAt(pod.spec, ['nodeSelector']);
    for (const label of OS_LABELS) {
      const v = selector?.[label];
      if (typeof v !== 'string' || v.toLowerCase() !== other) continue;
      const path = [...pod.path, 'nodeSelector', label];
      report({
        path,
        target: 'value',
        message: win072SelectorMessage(apiField(pod, ['os', 'name']), osName, label, preview(v)),
        related,
        fixes: [
          {
            title: `Change nodeSelector ${label} to ${osName}`,
            kind: 'rewrite',
            ops: [{ op: 'set', path, value: osName }],
          },
        ],
      });
    }

    const rc = runtimeClassOf(pod, facts);
    const rcOs = rc ? (rc.nodeSelector[OS_LABEL] ?? rc.nodeSelector[BETA_OS_LABEL]) : undefined;
    if (rc && typeof rcOs === 'string' && rcOs.toLowerCase() === other) {
      report({
        path: [...pod.path, 'runtimeClassName'],
        target: 'value',
        message: `${apiField(pod, ['os', 'name'])} is ${osName} but RuntimeClass ${preview(rc.name)} adds nodeSelector kubernetes.io/os: ${rcOs}${factOrigin(rc)}: ${WIN072_WHY}. Use a RuntimeClass for ${osName} nodes.`,
        related,
      });
    }

    // Terms are ORed: the pod is stuck only when every required term excludes its OS.
    const terms = requiredTerms(pod);
    if (!terms || terms.length === 0) return;
    const exprs = affinityExprs(pod, false).filter((e) => OS_LABELS.includes(e.key));
    const conflicting = (e: Expr) => {
      if (e.operator === 'In') {
        const lower = e.values.map((v) => String(v).toLowerCase());
        return lower.length > 0 && !lower.includes(osName);
      }
      return e.operator === 'NotIn' && e.values.includes(osName);
    };
    const perTerm = terms.map((_, ti) => exprs.find((e) => e.term === ti && conflicting(e)));
    if (perTerm.some((e) => !e)) return;
    for (const e of perTerm as Expr[]) {
      const onlyOne = e.operator === 'In' && e.values.length === 1;
      report({
        path: [...e.path, 'key'],
        target: 'value',
        message: win072AffinityMessage(
          apiField(pod, ['os', 'name']),
          osName,
          `${e.key} ${e.operator} ${preview(e.values)}`,
        ),
        related,
        fixes: onlyOne
          ? [
              {
                title: `Change the affinity value to ${osName}`,
                kind: 'rewrite',
                ops: [{ op: 'set', path: [...e.path, 'values', 0], value: osName }],
              },
            ]
          : [],
      });
    }
  },
};

/** Kubernetes' toleration match (v1 helper ToleratesTaint), reading only correctly spelled fields as the API does. */
function tolerates(t: Obj, taint: Taint): boolean {
  const effect = str(t.effect);
  if (effect && effect !== taint.effect) return false;
  const key = str(t.key);
  const op = str(t.operator) || 'Equal';
  if (!key) return op === 'Exists';
  if (key !== taint.key) return false;
  if (op === 'Exists') return true;
  return op === 'Equal' && str(t.value) === (taint.value ?? '');
}

function effectiveTolerations(pod: PodSpecView, facts: Facts): Obj[] {
  const own = Array.isArray(pod.spec.tolerations) ? pod.spec.tolerations.filter(isObj) : [];
  // RuntimeClass scheduling.tolerations are merged into the pod at admission.
  return [...own, ...(runtimeClassOf(pod, facts)?.tolerations ?? [])];
}

function taintText(t: Taint): string {
  const text = `${t.key}${t.value !== undefined && t.value !== '' ? `=${t.value}` : ''}:${t.effect}`;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function addTolerationsFix(pod: PodSpecView, add: { key: string; effect: string }[]): FixSpec {
  const items = add.map((a) => ({ key: a.key, operator: 'Exists', effect: a.effect }));
  const path = [...pod.path, 'tolerations'];
  const title = `Add toleration${items.length > 1 ? 's' : ''} ${items.map((i) => `${i.key} Exists ${i.effect}`).join(', ')}`;
  // Several appends to a missing list would each create it: set the whole list then.
  if (!Array.isArray(pod.spec.tolerations)) return { title, kind: 'rewrite', ops: [{ op: 'set', path, value: items }] };
  return { title, kind: 'rewrite', ops: items.map((value) => ({ op: 'append' as const, path, value })) };
}

const BLOCKING = new Set(['NoSchedule', 'NoExecute']);

const WIN073: PodRule = {
  id: 'WIN073',
  admission: { enforceable: false, why: 'node-facts', detail: "needs the Windows nodes' taints" },
  scope: 'pod',
  family: 'scheduling',
  severity: 'warning',
  title:
    "Tolerations do not cover the Windows nodes' taint (values are case-sensitive: WMCO taints os=Windows, upstream guides os=windows).",
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows' || isSet(pod.spec, 'nodeName')) return;
    const tols = effectiveTolerations(pod, facts);
    const tolerated = (taint: Taint) => tols.some((t) => tolerates(t, taint));
    const anchor = Array.isArray(pod.spec.tolerations) ? [...pod.path, 'tolerations'] : podAnchor(pod);
    const field = apiField(pod, ['tolerations']);

    const cluster = facts.cluster;
    if (cluster && cluster.windowsNodes.length > 0) {
      const pins = new Set(target.builds.map((b) => b.value));
      const nodes = cluster.windowsNodes.filter((n) => pins.size === 0 || pins.has(n.build));
      if (nodes.length === 0) return;
      const missing = new Map<string, Taint>();
      for (const node of nodes) {
        const untolerated = node.taints.filter((t) => BLOCKING.has(t.effect) && !tolerated(t));
        if (untolerated.length === 0) return; // this node accepts the pod
        for (const t of untolerated) missing.set(taintText(t), t);
      }
      const taints = [...missing.values()];
      const adds = uniqueBy(
        taints.map((t) => ({ key: t.key, effect: t.effect })),
        (a) => `${a.key}:${a.effect}`,
      );
      report({
        path: anchor,
        message: `No Windows node of cluster ${preview(cluster.name)} accepts this pod: ${field} do not tolerate the taint ${taints.slice(0, 3).map(taintText).join(', ')}${taints.length > 3 ? ' …' : ''}, so the scheduler will not place it on any of them. Add a toleration with operator: Exists for ${[...new Set(adds.map((a) => a.key))].join(', ')}.`,
        fixes: [addTolerationsFix(pod, adds)],
      });
      return;
    }

    if (isOpenShift(facts)) {
      const wmco: Taint = { key: 'os', value: 'Windows', effect: 'NoSchedule' };
      if (tolerated(wmco)) return;
      const lowercase = tolerated({ key: 'os', value: 'windows', effect: 'NoSchedule' });
      report({
        path: anchor,
        message: `OpenShift's WMCO taints Windows nodes os=Windows:NoSchedule (capital W) and nothing in ${field} tolerates it${lowercase ? ' (value windows does not match Windows: values are case-sensitive)' : ''}, so the scheduler will not place it on a Windows node. Add {key: os, operator: Exists, effect: NoSchedule}.`,
        fixes: [addTolerationsFix(pod, [{ key: 'os', effect: 'NoSchedule' }])],
      });
      return;
    }

    // Unknown cluster: only speak when the pod plainly meant the Windows taint but spelled one casing.
    // Tolerations the pod does not write itself come from its RuntimeClass, where RTC002 says it.
    const own = Array.isArray(pod.spec.tolerations) ? pod.spec.tolerations.filter(isObj) : [];
    for (const key of ['os', 'node.kubernetes.io/os']) {
      const equal = own.find(
        (t) =>
          str(t.key) === key &&
          (str(t.operator) || 'Equal') === 'Equal' &&
          (t.value === 'windows' || t.value === 'Windows'),
      );
      if (!equal) continue;
      const effect = str(equal.effect) || 'NoSchedule';
      const other = equal.value === 'windows' ? 'Windows' : 'windows';
      if (tolerated({ key, value: other, effect })) continue;
      report({
        path: anchor,
        severity: 'info',
        message: `${field} tolerate ${key}=${String(equal.value)} only: taint values are case-sensitive, and clusters differ (OpenShift WMCO taints os=Windows, upstream guides os=windows). Tolerate both with {key: ${key}, operator: Exists}.`,
        fixes: [addTolerationsFix(pod, [{ key, effect }])],
      });
      return;
    }
  },
};

function uniqueBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = key(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const TOLERATION_FIELDS = ['key', 'operator', 'value', 'effect', 'tolerationSeconds'];
const BY_LOWER = new Map(TOLERATION_FIELDS.map((f) => [f.toLowerCase(), f]));
/** What a toleration becomes when the API server drops the misspelt field. */
const DROPPED: Record<string, string> = {
  key: 'an empty key is read: with operator Exists that tolerates every taint, otherwise the API server rejects the toleration',
  operator: 'the operator defaults to Equal',
  value: 'an empty value is read, which matches no Windows taint with operator Equal',
  effect: 'the toleration applies to every effect',
  tolerationSeconds: 'NoExecute taints are tolerated forever',
};

const WIN074: PodRule = {
  id: 'WIN074',
  admission: {
    enforceable: false,
    why: 'dropped-before-admission',
    detail: 'the API server drops unknown toleration fields',
  },
  scope: 'pod',
  family: 'scheduling',
  severity: 'warning',
  title:
    'Toleration with an unknown or wrongly-cased field (Effect, Key, Value …): the API server drops it, so the toleration is not what it seems.',
  check({ pod, target }, report) {
    if (target.os !== 'windows' || !Array.isArray(pod.spec.tolerations)) return;
    pod.spec.tolerations.forEach((t, i) => {
      if (!isObj(t)) return;
      for (const k of Object.keys(t)) {
        if (TOLERATION_FIELDS.includes(k)) continue;
        const path = [...pod.path, 'tolerations', i, k];
        const right = BY_LOWER.get(k.toLowerCase());
        // The API server's words: a warning when it drops the field, the error of strict field validation.
        const unknown = `unknown field ${preview(`${apiField(pod, ['tolerations', i])}.${k}`, 240)}`;
        const r: Report = {
          path,
          message: right
            ? `${unknown}: field names are case-sensitive, so the API server drops it (with kubectl's strict field validation it rejects the object instead) and ${DROPPED[right]}. Rename it to ${right}.`
            : `${unknown}: the API server drops it (with kubectl's strict field validation it rejects the object instead). Tolerations have only ${TOLERATION_FIELDS.join(', ')}.`,
          fixes: right
            ? [
                isSet(t, right)
                  ? {
                      title: `Remove ${k} (${right} is already set)`,
                      kind: 'safe',
                      ops: [{ op: 'delete', path, keep: path.length - 1 }],
                    }
                  : { title: `Rename to ${right}`, kind: 'safe', ops: [{ op: 'renameKey', path, newKey: right }] },
              ]
            : [],
        };
        report(r);
      }
    });
  },
};

// ---------------------------------------------------------------------------------------------
// WIN075: CPU architecture

export const ARCH_LABELS = ['kubernetes.io/arch', 'beta.kubernetes.io/arch'];

/**
 * Windows nodes are amd64 only: Kubernetes supports Windows Server (2022, 2025) as the node OS, and
 * Windows Server ships for x64 only, so there are no arm64 Windows nodes. A Windows pod pinned to
 * another architecture matches no node.
 */
// WIN075's words, shared with its admission policy (core/policy). `shown` is the value as preview quotes it.
export const win075SelectorMessage = (field: string, shown: string): string =>
  `${field}: ${shown} on a Windows pod: Windows nodes run on amd64 only, so no node matches and the pod stays Pending. Use amd64 (or remove the selector).`;
/** Said of the expression's term when it is the only required term. */
export const WIN075_ONLY_TERM = ' and the pod stays Pending';
export const win075AffinityMessage = (key: string, operator: string, values: string, onlyTerm: string): string =>
  `Required node affinity ${key} ${operator} [${values}] on a Windows pod excludes amd64, the only architecture of Windows nodes: no node matches this term${onlyTerm}. Allow amd64.`;

const WIN075: PodRule = {
  id: 'WIN075',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'scheduling',
  severity: 'warning',
  title:
    'Windows pod pinned to a CPU architecture other than amd64 (kubernetes.io/arch): Windows nodes are amd64 only, so no node matches and the pod stays Pending.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const selector = objAt(pod.spec, ['nodeSelector']);
    for (const label of ARCH_LABELS) {
      const v = selector?.[label];
      if (typeof v !== 'string' || v === 'amd64') continue;
      const path = [...pod.path, 'nodeSelector', label];
      report({
        path,
        target: 'value',
        message: win075SelectorMessage(apiField(pod, ['nodeSelector', label]), preview(v, 40)),
        fixes: [{ title: `Set ${label}: amd64`, kind: 'rewrite', ops: [{ op: 'set', path, value: 'amd64' }] }],
      });
    }
    for (const e of affinityExprs(pod, false)) {
      if (!ARCH_LABELS.includes(e.key)) continue;
      const values = e.values.filter((x): x is string => typeof x === 'string');
      const excluded =
        (e.operator === 'In' && values.length > 0 && !values.includes('amd64')) ||
        (e.operator === 'NotIn' && values.includes('amd64'));
      if (!excluded) continue;
      report({
        path: [...e.path, 'values'],
        message: win075AffinityMessage(
          e.key,
          e.operator,
          values.join(', '),
          requiredTerms(pod)?.length === 1 ? WIN075_ONLY_TERM : '',
        ),
      });
    }
  },
};

export const schedulingRules: PodRule[] = [WIN070, WIN071, WIN072, WIN073, WIN074, WIN075];
