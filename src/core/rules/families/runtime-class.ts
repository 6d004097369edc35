import { getAt, isObj, type Obj, type Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import { parseBuildLabel, WINDOWS_BUILDS } from '../../windows/builds';
import { handlerFamily, isOpenShift, runtimeClassIsWindows, stringMap } from '../facts';
import { OS_LABELS } from '../targeting';
import { BETA_OS_LABEL, BUILD_LABEL, OS_LABEL } from '../../well-known';
import type { ObjectRule, Rule } from '../types';

const KINDS = ['RuntimeClass'];

function isRuntimeClass(apiVersion: string): boolean {
  return apiVersion.startsWith('node.k8s.io/');
}

function rcName(name: string): string {
  return name ? `RuntimeClass "${name}"` : 'This RuntimeClass';
}

/** Builds Windows nodes can report today (LTSC and annual channel still in support). */
const SUPPORTED_BUILDS = WINDOWS_BUILDS.filter((b) => !b.eol);
const KNOWN_LABELS = new Set(WINDOWS_BUILDS.map((b) => b.label));

function knownBuildList(): string {
  return SUPPORTED_BUILDS.map((b) => `${b.label} (${b.name})`).join(', ');
}

const RTC001: ObjectRule = {
  id: 'RTC001',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about RuntimeClass objects' },
  scope: 'object',
  family: 'runtime-class',
  severity: 'error',
  title: 'RuntimeClass pins a malformed or unknown node.kubernetes.io/windows-build value, so no Windows node matches.',
  kinds: KINDS,
  check({ object }, report) {
    if (!isRuntimeClass(object.apiVersion)) return;
    const selector = getAt(object.value, ['scheduling', 'nodeSelector']);
    if (!isObj(selector) || !(BUILD_LABEL in selector)) return;
    const value = selector[BUILD_LABEL];
    const path = [...object.path, 'scheduling', 'nodeSelector', BUILD_LABEL];
    const parsed = typeof value === 'string' ? parseBuildLabel(value) : undefined;
    if (!parsed || typeof value !== 'string' || value !== value.trim()) {
      report({
        path,
        target: 'value',
        message: `${BUILD_LABEL} must be a string like "10.0.20348" (major.minor.build, as the kubelet sets it), not ${preview(value)}: no node carries this label value, so pods using ${rcName(object.name)} never schedule. Known builds: ${knownBuildList()}.`,
      });
      return;
    }
    if (KNOWN_LABELS.has(value)) return;
    report({
      path,
      target: 'value',
      severity: 'warning',
      message: `${value} is not a known Windows Server build, so probably no node carries it and pods using ${rcName(object.name)} stay Pending. Known builds: ${knownBuildList()}.`,
    });
  },
};

interface TaintSpec {
  key: string;
  value: string;
  effect: string;
}

/** Kubernetes' toleration matching (ToleratesTaint): key, operator, value and effect; case-sensitive. */
export function tolerates(toleration: Obj, taint: TaintSpec): boolean {
  const effect = typeof toleration.effect === 'string' ? toleration.effect : '';
  if (effect !== '' && effect !== taint.effect) return false;
  const key = typeof toleration.key === 'string' ? toleration.key : '';
  const operator = typeof toleration.operator === 'string' ? toleration.operator : 'Equal';
  if (key === '') return operator === 'Exists';
  if (key !== taint.key) return false;
  if (operator === 'Exists') return true;
  if (operator !== 'Equal') return false;
  const value = toleration.value === undefined || toleration.value === null ? '' : String(toleration.value);
  return value === taint.value;
}

const UPSTREAM_TAINT: TaintSpec = { key: 'os', value: 'windows', effect: 'NoSchedule' };
const OPENSHIFT_TAINT: TaintSpec = { key: 'os', value: 'Windows', effect: 'NoSchedule' };
const ROBUST_TOLERATION = { key: 'os', operator: 'Exists', effect: 'NoSchedule' };

const RTC002: ObjectRule = {
  id: 'RTC002',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about RuntimeClass objects' },
  scope: 'object',
  family: 'runtime-class',
  severity: 'warning',
  title:
    'Windows RuntimeClass does not tolerate both Windows taints, os=windows:NoSchedule (upstream) and os=Windows:NoSchedule (OpenShift WMCO).',
  kinds: KINDS,
  check({ object, facts }, report) {
    if (!isRuntimeClass(object.apiVersion)) return;
    const handler = typeof object.value.handler === 'string' ? object.value.handler : '';
    if (!runtimeClassIsWindows(handler, stringMap(getAt(object.value, ['scheduling', 'nodeSelector'])))) return;
    const raw = getAt(object.value, ['scheduling', 'tolerations']);
    const tolerations = Array.isArray(raw) ? raw.filter(isObj) : [];
    const upstream = tolerations.some((t) => tolerates(t, UPSTREAM_TAINT));
    const openshift = tolerations.some((t) => tolerates(t, OPENSHIFT_TAINT));
    if (upstream && openshift) return;
    const tolPath: Path = [...object.path, 'scheduling', 'tolerations'];
    const path: Path = Array.isArray(raw)
      ? tolPath
      : isObj(object.value.scheduling)
        ? [...object.path, 'scheduling']
        : [...object.path, 'handler'];
    const fix = {
      title: 'Tolerate every os taint: {key: os, operator: Exists, effect: NoSchedule}',
      kind: 'rewrite' as const,
      ops: [{ op: 'append' as const, path: tolPath, value: { ...ROBUST_TOLERATION } }],
    };
    if (!upstream && !openshift) {
      report({
        path,
        message: `${rcName(object.name)} selects Windows nodes but tolerates neither os=windows:NoSchedule (upstream) nor os=Windows:NoSchedule (set by OpenShift WMCO), so its pods stay Pending on tainted Windows nodes unless each pod tolerates the taint. Add the toleration {key: os, operator: Exists, effect: NoSchedule}.`,
        fixes: [fix],
      });
      return;
    }
    const missing = upstream ? OPENSHIFT_TAINT : UPSTREAM_TAINT;
    const has = upstream ? UPSTREAM_TAINT : OPENSHIFT_TAINT;
    // The capital-W taint only exists on OpenShift; elsewhere this is advice for portability.
    const severity = !upstream || isOpenShift(facts) ? 'warning' : 'info';
    report({
      path,
      severity,
      message: `${rcName(object.name)} tolerates os=${has.value}:NoSchedule but not os=${missing.value}:NoSchedule${missing === OPENSHIFT_TAINT ? ', the taint OpenShift WMCO puts on Windows nodes' : ', the upstream Windows taint'}; taint values are case-sensitive. Use {key: os, operator: Exists, effect: NoSchedule} to tolerate both.`,
      fixes: [fix],
    });
  },
};

const RTC003: ObjectRule = {
  id: 'RTC003',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about RuntimeClass objects' },
  scope: 'object',
  family: 'runtime-class',
  severity: 'error',
  apiRejects: true,
  title: 'RuntimeClass uses node.k8s.io/v1beta1 or v1alpha1, which Kubernetes 1.25 no longer serves.',
  kinds: KINDS,
  check({ object }, report) {
    const path = [...object.path, 'apiVersion'];
    if (object.apiVersion === 'node.k8s.io/v1beta1') {
      report({
        path,
        target: 'value',
        message:
          'node.k8s.io/v1beta1 RuntimeClass was removed in Kubernetes 1.25 (OpenShift 4.12), so the API server rejects this object. Use node.k8s.io/v1; the fields are the same.',
        fixes: [
          // The same fields under the served version.
          {
            title: 'Change apiVersion to node.k8s.io/v1',
            kind: 'safe',
            ops: [{ op: 'set', path, value: 'node.k8s.io/v1' }],
          },
        ],
      });
    } else if (object.apiVersion === 'node.k8s.io/v1alpha1') {
      report({
        path,
        target: 'value',
        message:
          'node.k8s.io/v1alpha1 RuntimeClass is no longer served, so the API server rejects this object. Rewrite it as node.k8s.io/v1: spec.runtimeHandler becomes the top-level handler, spec.scheduling becomes scheduling.',
      });
    }
  },
};

const RTC004: ObjectRule = {
  id: 'RTC004',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about RuntimeClass objects' },
  scope: 'object',
  family: 'runtime-class',
  severity: 'error',
  title:
    'RuntimeClass nodeSelector kubernetes.io/os with the wrong case (Windows): label values are case-sensitive, so no node matches.',
  kinds: KINDS,
  check({ object }, report) {
    if (!isRuntimeClass(object.apiVersion)) return;
    const selector = getAt(object.value, ['scheduling', 'nodeSelector']);
    if (!isObj(selector)) return;
    for (const label of OS_LABELS) {
      const v = selector[label];
      if (typeof v !== 'string') continue;
      const lower = v.trim().toLowerCase();
      if ((lower !== 'windows' && lower !== 'linux') || v === lower) continue;
      const path = [...object.path, 'scheduling', 'nodeSelector', label];
      report({
        path,
        target: 'value',
        message: `Nodes are labelled ${label}=${lower} (lower case) and label values are case-sensitive, so ${preview(v)} matches no node and pods using ${rcName(object.name)} never schedule. Use ${lower}.`,
        fixes: [{ title: `Change the value to ${lower}`, kind: 'safe', ops: [{ op: 'set', path, value: lower }] }],
      });
    }
  },
};

const WINDOWS_HANDLER = 'runhcs-wcow-process';

const RTC005: ObjectRule = {
  id: 'RTC005',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about RuntimeClass objects' },
  scope: 'object',
  family: 'runtime-class',
  severity: 'warning',
  title:
    'RuntimeClass handler no Windows node configures: "docker" (dockershim, gone since Kubernetes 1.24) or a HostProcess prototype (runhcs-privileged …); containerd on Windows uses runhcs-wcow-process.',
  kinds: KINDS,
  check({ object }, report) {
    if (!isRuntimeClass(object.apiVersion)) return;
    const handler = typeof object.value.handler === 'string' ? object.value.handler : '';
    const nodeSelector = stringMap(getAt(object.value, ['scheduling', 'nodeSelector']));
    const os = (nodeSelector[OS_LABEL] ?? nodeSelector[BETA_OS_LABEL] ?? '').toLowerCase();
    if (os === 'linux') return;
    const path = [...object.path, 'handler'];
    if (handlerFamily(handler)?.family === 'privileged') {
      report({
        path,
        target: 'value',
        message: `Handler ${preview(handler, 60)} is a prototype of privileged Windows containers from before HostProcess containers: containerd's Windows configuration has no such runtime, so pods using ${rcName(object.name)} fail with 'no runtime for ${preview(handler, 60)} is configured'. Use handler ${WINDOWS_HANDLER} and make the pod a HostProcess pod (securityContext.windowsOptions.hostProcess: true, hostNetwork: true).`,
        fixes: [
          // The class then runs ordinary process-isolated containers: the pods must opt into HostProcess themselves.
          {
            title: `Change the handler to ${WINDOWS_HANDLER}`,
            kind: 'rewrite',
            ops: [{ op: 'set', path, value: WINDOWS_HANDLER }],
          },
        ],
      });
      return;
    }
    if (handler !== 'docker') return;
    report({
      path,
      target: 'value',
      message: `Handler "docker" belonged to dockershim, removed in Kubernetes 1.24; containerd has no such handler, so pods using ${rcName(object.name)} fail with 'no runtime for "docker" is configured'. Use ${WINDOWS_HANDLER} (process isolation, containerd's default on Windows).`,
      fixes:
        os === 'windows'
          ? [
              {
                title: `Change the handler to ${WINDOWS_HANDLER}`,
                kind: 'rewrite',
                ops: [{ op: 'set', path, value: WINDOWS_HANDLER }],
              },
            ]
          : [],
    });
  },
};

export const runtimeClassRules: Rule[] = [RTC001, RTC002, RTC003, RTC004, RTC005];
