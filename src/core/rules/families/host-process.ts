import type { EditOp } from '../../manifest/edits';
import { isObj, type Obj, type Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import type { ContainerView, PodSpecView } from '../../manifest/workloads';
import {
  apiField,
  asBoolean,
  containerField,
  containerWord,
  declaredLinux,
  deleteFix,
  hostProcessInfo,
  type HostProcessInfo,
  objAt,
} from '../helpers';
import type { PodRule, Report } from '../types';

const HP: Path = ['securityContext', 'windowsOptions', 'hostProcess'];
const USER: Path = ['securityContext', 'windowsOptions', 'runAsUserName'];

/** Where the pod first becomes a HostProcess pod: the pod-level `hostProcess: true`, else the first container's. */
function firstHostProcessPath(pod: PodSpecView, info: HostProcessInfo): Path {
  if (info.pod === true) return [...pod.path, ...HP];
  const first = info.containers.find((x) => x.own === true);
  return first ? [...first.c.path, ...HP] : [...pod.path, ...HP];
}

/** A container whose own value contradicts the pod value (WIN012 reports it). */
function conflicting(info: HostProcessInfo, own: boolean | undefined): boolean {
  return info.pod !== undefined && own !== undefined && own !== info.pod;
}

function nonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v !== '';
}

/** How many names WIN014's message quotes before "and N more" (its admission policy says the same). */
export const WIN014_LIST_MAX = 3;

function quoteList(names: string[], max = WIN014_LIST_MAX): string {
  const shown = names.slice(0, max).map((n) => preview(n, 40));
  return names.length > max ? `${shown.join(', ')} and ${names.length - max} more` : shown.join(', ');
}

const WIN010: PodRule = {
  id: 'WIN010',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'host-process',
  severity: 'error',
  apiRejects: true,
  title:
    'Pod mixes HostProcess and normal containers (init and ephemeral containers count): rejected by the API server.',
  check({ pod }, report) {
    const info = hostProcessInfo(pod);
    if (!info.any) return;
    // Containers whose own value contradicts the pod value are WIN012's; one error per cause is enough.
    const normal = info.containers.filter((x) => !x.hostProcess && !conflicting(info, x.own));
    if (normal.length === 0) return;
    const ops: EditOp[] = [];
    if (info.pod !== true) ops.push({ op: 'set', path: [...pod.path, ...HP], value: true });
    for (const x of info.containers) {
      if (x.own === false) ops.push({ op: 'delete', path: [...x.c.path, ...HP], keep: x.c.path.length });
    }
    const listed =
      normal
        .slice(0, 3)
        .map((x) => `${containerWord(x.c)} ${preview(x.c.name, 40)}`)
        .join(', ') + (normal.length > 3 ? ` and ${normal.length - 3} more` : '');
    report({
      path: firstHostProcessPath(pod, info),
      message:
        `${apiField(pod, [])}: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers. ` +
        `Not HostProcess: ${listed}. Set hostProcess: true at pod level so every container (init containers too) inherits it, or remove hostProcess everywhere.`,
      fixes: [{ title: 'Make every container HostProcess (pod-level hostProcess: true)', kind: 'rewrite', ops }],
      related: normal.map((x) => ({
        path: [...x.c.path, 'name'],
        target: 'value' as const,
        message: `${containerWord(x.c)} ${preview(x.c.name, 40)} is not a HostProcess container`,
      })),
    });
  },
};

const WIN011: PodRule = {
  id: 'WIN011',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'host-process',
  severity: 'error',
  apiRejects: true,
  title: 'HostProcess pod without hostNetwork: true: rejected by the API server.',
  check({ pod }, report) {
    const info = hostProcessInfo(pod);
    if (!info.any || pod.spec.hostNetwork === true) return;
    const has = Object.prototype.hasOwnProperty.call(pod.spec, 'hostNetwork') && pod.spec.hostNetwork !== null;
    report({
      path: has ? [...pod.path, 'hostNetwork'] : firstHostProcessPath(pod, info),
      target: has ? 'value' : 'key',
      message: `${apiField(pod, ['hostNetwork'])}: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers. HostProcess containers run in the node's network namespace; set hostNetwork: true.`,
      fixes: [
        {
          title: 'Set hostNetwork: true',
          kind: 'rewrite',
          ops: [{ op: 'set', path: [...pod.path, 'hostNetwork'], value: true }],
        },
      ],
    });
  },
};

const WIN012: PodRule = {
  id: 'WIN012',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'host-process',
  severity: 'error',
  apiRejects: true,
  title: 'Container hostProcess differs from the pod-level hostProcess: rejected by the API server.',
  check({ pod }, report) {
    const info = hostProcessInfo(pod);
    for (const x of info.containers) {
      if (!conflicting(info, x.own)) continue;
      const path = [...x.c.path, ...HP];
      report({
        path,
        target: 'value',
        message: `${containerField(pod, x.c, HP)}: Invalid value: ${String(x.own)}: pod hostProcess value must be identical if both are specified, was ${String(info.pod)}. A pod is either all HostProcess or not at all; remove the container's value so it inherits the pod's.`,
        fixes: [deleteFix('Remove the container hostProcess (inherit the pod value)', path, x.c.path.length)],
        related: [
          { path: [...pod.path, ...HP], target: 'value', message: `pod-level hostProcess is ${String(info.pod)}` },
        ],
      });
    }
  },
};

// WIN013's words, given who sets no account ("HostProcess pod", "HostProcess container \"agent\""): shared
// with its admission policy (core/policy).
export const win013Message = (who: string): string =>
  `${who} sets no windowsOptions.runAsUserName; the Kubernetes HostProcess docs require an account: NT AUTHORITY\\SYSTEM, NT AUTHORITY\\Local service, NT AUTHORITY\\NetworkService or a local group. Prefer Local service, the least privileged.`;

const WIN013: PodRule = {
  id: 'WIN013',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'host-process',
  severity: 'warning',
  title: 'HostProcess container without windowsOptions.runAsUserName (the HostProcess docs require an account).',
  check({ pod }, report) {
    if (declaredLinux(pod)) return;
    const info = hostProcessInfo(pod);
    if (!info.any) return;
    const podUser = objAt(pod.spec, ['securityContext', 'windowsOptions'])?.runAsUserName;
    if (nonEmptyString(podUser)) return;
    const missing = info.containers.filter(
      (x) => x.hostProcess && !nonEmptyString(objAt(x.c.value, ['securityContext', 'windowsOptions'])?.runAsUserName),
    );
    if (missing.length === 0) return;
    const value = 'NT AUTHORITY\\Local service';
    if (info.pod === true) {
      report({
        path: [...pod.path, ...HP],
        message: win013Message('HostProcess pod'),
        fixes: [
          {
            title: `Set pod-level runAsUserName: ${value}`,
            kind: 'rewrite',
            ops: [{ op: 'set', path: [...pod.path, ...USER], value }],
          },
        ],
      });
      return;
    }
    for (const x of missing) {
      report({
        path: [...x.c.path, ...HP],
        message: win013Message(`HostProcess ${containerWord(x.c)} ${preview(x.c.name, 40)}`),
        fixes: [
          {
            title: `Set runAsUserName: ${value}`,
            kind: 'rewrite',
            ops: [{ op: 'set', path: [...x.c.path, ...USER], value }],
          },
        ],
      });
    }
  },
};

// WIN014's words, shared with its admission policy (core/policy): `who` is the HostProcess container or containers.
export const win014Message = (who: string): string =>
  `runAsNonRoot: true applies to ${who}; HostProcess containers have privileged access to the host, so the Kubernetes docs say runAsNonRoot cannot be true (allowed: unset or false). Remove it.`;

const WIN014: PodRule = {
  id: 'WIN014',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'host-process',
  severity: 'warning',
  title: 'runAsNonRoot: true on a HostProcess container (the HostProcess docs say it cannot be true).',
  check({ pod }, report) {
    if (declaredLinux(pod)) return;
    const info = hostProcessInfo(pod);
    if (!info.any) return;
    const message = win014Message;
    const podSc = objAt(pod.spec, ['securityContext']);
    const reports: Report[] = [];
    if (podSc?.runAsNonRoot === true) {
      const affected = info.containers.filter(
        (x) => x.hostProcess && asBoolean(objAt(x.c.value, ['securityContext'])?.runAsNonRoot) === undefined,
      );
      if (affected.length > 0) {
        const path = [...pod.path, 'securityContext', 'runAsNonRoot'];
        reports.push({
          path,
          message: message(
            affected.length === 1
              ? `HostProcess ${containerWord(affected[0].c)} ${preview(affected[0].c.name, 40)}`
              : `HostProcess containers ${quoteList(affected.map((x) => x.c.name))}`,
          ),
          fixes: [deleteFix('Remove runAsNonRoot', path, pod.path.length)],
        });
      }
    }
    for (const x of info.containers) {
      if (!x.hostProcess || objAt(x.c.value, ['securityContext'])?.runAsNonRoot !== true) continue;
      const path = [...x.c.path, 'securityContext', 'runAsNonRoot'];
      reports.push({
        path,
        message: message(`HostProcess ${containerWord(x.c)} ${preview(x.c.name, 40)}`),
        // With runAsNonRoot: true on the pod too, removing the container's would only let the pod's apply.
        fixes: [
          podSc?.runAsNonRoot === true
            ? { title: 'Set runAsNonRoot: false', kind: 'rewrite', ops: [{ op: 'set', path, value: false }] }
            : deleteFix('Remove runAsNonRoot', path, x.c.path.length),
        ],
      });
    }
    reports.forEach(report);
  },
};

const PSA_ENFORCE = 'pod-security.kubernetes.io/enforce';

const WIN015: PodRule = {
  id: 'WIN015',
  admission: { enforceable: false, why: 'other-object', detail: "needs the namespace's Pod Security labels" },
  scope: 'pod',
  family: 'host-process',
  severity: 'warning',
  title:
    'HostProcess pod in a namespace whose Pod Security enforce level is baseline or restricted: pods are rejected.',
  check({ pod, facts }, report) {
    if (declaredLinux(pod)) return;
    const ns = pod.object.namespace;
    if (!ns) return;
    const labels = facts.namespaces.get(ns);
    const level = labels?.[PSA_ENFORCE];
    if (level !== 'baseline' && level !== 'restricted') return;
    // The PSA check looks at explicit `hostProcess: true` only (pod and containers), not at inheritance.
    const info = hostProcessInfo(pod);
    const setters = info.containers.filter((x) => x.own === true).map((x) => x.c.name);
    if (info.pod !== true && setters.length === 0) return;
    const parts: string[] = [];
    if (info.pod === true) parts.push('pod');
    if (setters.length > 0) parts.push(`${setters.length === 1 ? 'container' : 'containers'} ${joinQuote(setters)}`);
    const version = labels?.[`${PSA_ENFORCE}-version`] || 'latest';
    report({
      path: firstHostProcessPath(pod, info),
      message:
        `Namespace ${preview(ns, 60)} enforces Pod Security ${level}, so its pods are rejected: violates PodSecurity "${level}:${version}": ${psaReasons(pod, level, parts).join(', ')}${level === 'restricted' ? ', and whatever else the restricted level forbids' : ''}. ` +
        `Run HostProcess workloads in a namespace labelled ${PSA_ENFORCE}: privileged.`,
    });
  },
};

/** PodSecurity's `"a", "b"` (names are DNS labels, 63 characters at most: never shortened). */
function joinQuote(items: string[]): string {
  return items.map((n) => preview(n, 80)).join(', ');
}

function containerNames(pod: PodSpecView, has: (c: ContainerView) => boolean): string[] {
  return pod.containers.filter(has).map((c) => c.name);
}

/**
 * PodSecurity's reasons for a HostProcess pod, as the API server words and orders them (its
 * baseline checks by id, hostProcess last): host namespaces, hostPath volumes (baseline only: the
 * restricted level reports them later, as restricted volume types), hostPort, privileged.
 */
function psaReasons(pod: PodSpecView, level: 'baseline' | 'restricted', setters: string[]): string[] {
  const reasons: string[] = [];
  const hostNs = ['hostNetwork', 'hostPID', 'hostIPC'].filter((k) => pod.spec[k] === true).map((k) => `${k}=true`);
  if (hostNs.length > 0) reasons.push(`host namespaces (${hostNs.join(', ')})`);
  if (level === 'baseline' && Array.isArray(pod.spec.volumes)) {
    const hostPaths = pod.spec.volumes
      .filter((v) => isObj(v) && isObj(v.hostPath))
      .map((v) => String((v as Obj).name ?? ''));
    if (hostPaths.length > 0)
      reasons.push(`hostPath volumes (${hostPaths.length === 1 ? 'volume' : 'volumes'} ${joinQuote(hostPaths)})`);
  }
  const ports = new Set<string>();
  const withPorts = containerNames(pod, (c) => {
    const list = Array.isArray(c.value.ports) ? c.value.ports : [];
    const own = list
      .filter((p) => isObj(p) && typeof p.hostPort === 'number' && p.hostPort !== 0)
      .map((p) => String((p as Obj).hostPort));
    own.forEach((p) => ports.add(p));
    return own.length > 0;
  });
  if (withPorts.length > 0) {
    const sorted = [...ports].sort(); // a Go string set: sorted as strings
    reasons.push(
      `hostPort (${withPorts.length === 1 ? 'container' : 'containers'} ${joinQuote(withPorts)} ${withPorts.length === 1 ? 'uses' : 'use'} ${sorted.length === 1 ? 'hostPort' : 'hostPorts'} ${sorted.join(', ')})`,
    );
  }
  const privileged = containerNames(pod, (c) => objAt(c.value, ['securityContext'])?.privileged === true);
  if (privileged.length > 0)
    reasons.push(
      `privileged (${privileged.length === 1 ? 'container' : 'containers'} ${joinQuote(privileged)} must not set securityContext.privileged=true)`,
    );
  reasons.push(`hostProcess (${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true)`);
  return reasons;
}

export const hostProcessRules: PodRule[] = [WIN010, WIN011, WIN012, WIN013, WIN014, WIN015];
