// The rules' helper module: what more than one rule family uses (field paths as the API server
// prints them, HostProcess membership, the Linux-only fields). A helper one family alone needs
// stays in that family's file.
import { getAt, isObj, pathString, type Obj, type Path } from '../manifest/path';
import type { ContainerView, PodSpecView } from '../manifest/workloads';
import type { FixKind, FixSpec, Severity } from './types';
import { windowsReason, type Targeting } from './targeting';

/** The API server's notion of "set": the key is there and not null. */
export function isSet(obj: unknown, key: string): boolean {
  return isObj(obj) && Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== null && obj[key] !== undefined;
}

export function objAt(value: unknown, path: Path): Obj | undefined {
  const v = getAt(value, path);
  return isObj(v) ? v : undefined;
}

/** Field path as the API server prints it, e.g. `spec.template.spec.containers[0].securityContext.privileged`. */
export function apiField(pod: PodSpecView, rel: Path): string {
  return pathString([...pod.apiPrefix.split('.'), ...rel]);
}

export function containerField(pod: PodSpecView, c: ContainerView, rel: Path): string {
  return apiField(pod, [c.group, c.index, ...rel]);
}

/**
 * Removes a field. `safe` (the default) when the API server or the kubelet ignores or rejects it: the
 * object means what it meant; `rewrite` when the field did something (see FixKind).
 */
export function deleteFix(title: string, path: Path, keep: number, kind: FixKind = 'safe'): FixSpec {
  return { title, kind, ops: [{ op: 'delete', path, keep }] };
}

/** The pod spec says `os.name: linux`: the Windows-only rules have nothing to say. */
export function declaredLinux(pod: PodSpecView): boolean {
  return objAt(pod.spec, ['os'])?.name === 'linux';
}

/** What the API server calls the container in messages: container, init container or ephemeral container. */
export function containerWord(c: ContainerView): string {
  return c.group === 'initContainers'
    ? 'init container'
    : c.group === 'ephemeralContainers'
      ? 'ephemeral container'
      : 'container';
}

/** Severity for rules about what the API server rejects: softer when Windows is only inferred. */
export function apiSeverity(target: Targeting, declared: Severity = 'error'): Severity {
  return target.declared ? declared : 'warning';
}

/** "(Windows inferred from …)" for messages of inferred pods; empty for declared ones. */
export function inferredNote(target: Targeting): string {
  return target.declared ? '' : ` (Windows inferred from ${windowsReason(target)})`;
}

/** Fix that adds `os: {name: windows}` to the pod spec, at the top where readers see it first. */
export function addOsWindowsFix(pod: PodSpecView): FixSpec {
  return {
    title: 'Add spec.os.name: windows',
    // The API server then validates the pod as a Windows pod: a field added, the object changes.
    kind: 'rewrite',
    ops: [{ op: 'set', path: [...pod.path, 'os'], value: { name: 'windows' }, first: true }],
  };
}

/**
 * For pods whose Windows target is only inferred: the evidence, as a related place. Kept out of the
 * message so that the message stays the same once a fix adds spec.os.name.
 */
export function inferredFrom(target: Targeting): { path: Path; message: string }[] | undefined {
  if (target.declared) return undefined;
  const e =
    target.evidence.find((x) => x.os === 'windows' && x.strong) ?? target.evidence.find((x) => x.os === 'windows');
  return e ? [{ path: e.path, message: `Windows inferred from ${e.detail}` }] : undefined;
}

// ---------------------------------------------------------------------------------------------
// HostProcess membership, decided here only

/** What validateWindowsHostProcessPod sees: the pod value, each container's value and whether it is HostProcess. */
export interface HostProcessInfo {
  /** `spec.securityContext.windowsOptions.hostProcess` when it is a boolean. */
  pod: boolean | undefined;
  containers: { c: ContainerView; own: boolean | undefined; hostProcess: boolean }[];
  /** At least one container is a HostProcess container (explicitly or inherited). */
  any: boolean;
  /** Whether a container of this pod is a HostProcess container. */
  is(c: ContainerView): boolean;
}

/** A boolean value, else undefined (what a `*bool` API field decodes a YAML value into). */
export function asBoolean(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

/**
 * HostProcess membership as the API server computes it (validateWindowsHostProcessPod): a container
 * is HostProcess when its own value is true, or it has none and the pod's is true. Only a boolean is
 * a value: the API field is a `*bool`, which nothing else decodes into, so anything else is unset.
 */
export function hostProcessInfo(pod: PodSpecView): HostProcessInfo {
  let info = hostProcessOfPod.get(pod);
  if (!info) hostProcessOfPod.set(pod, (info = workOutHostProcess(pod)));
  return info;
}

/** Worked out once per pod view: a dozen rules ask, and asking again was 5% of what a check allocates. */
const hostProcessOfPod = new WeakMap<PodSpecView, HostProcessInfo>();

function workOutHostProcess(pod: PodSpecView): HostProcessInfo {
  const p = asBoolean(objAt(pod.spec, ['securityContext', 'windowsOptions'])?.hostProcess);
  const containers = pod.containers.map((c) => {
    const own = asBoolean(objAt(c.value, ['securityContext', 'windowsOptions'])?.hostProcess);
    return { c, own, hostProcess: own === true || (own === undefined && p === true) };
  });
  const members = new Set(containers.filter((x) => x.hostProcess).map((x) => x.c));
  return { pod: p, containers, any: members.size > 0, is: (c) => members.has(c) };
}

// ---------------------------------------------------------------------------------------------
// Linux-only fields

/** Pod-level fields validateWindows forbids once `spec.os.name` is windows, and when they count as set. */
export const LINUX_ONLY_POD_FIELDS: { path: string[]; when: 'set' | 'true' | 'nonEmpty' }[] = [
  { path: ['securityContext', 'appArmorProfile'], when: 'set' },
  { path: ['securityContext', 'seLinuxOptions'], when: 'set' },
  { path: ['hostUsers'], when: 'set' },
  { path: ['hostPID'], when: 'true' },
  { path: ['hostIPC'], when: 'true' },
  { path: ['securityContext', 'seccompProfile'], when: 'set' },
  { path: ['securityContext', 'fsGroup'], when: 'set' },
  { path: ['securityContext', 'fsGroupChangePolicy'], when: 'set' },
  { path: ['securityContext', 'sysctls'], when: 'nonEmpty' },
  { path: ['shareProcessNamespace'], when: 'set' },
  { path: ['securityContext', 'runAsUser'], when: 'set' },
  { path: ['securityContext', 'runAsGroup'], when: 'set' },
  { path: ['securityContext', 'supplementalGroups'], when: 'set' },
  { path: ['securityContext', 'supplementalGroupsPolicy'], when: 'set' },
  { path: ['securityContext', 'seLinuxChangePolicy'], when: 'set' },
];

/** Container-level fields forbidden for Windows pods: any value, even `false` or `{}`. */
export const LINUX_ONLY_CONTAINER_FIELDS = [
  'appArmorProfile',
  'seLinuxOptions',
  'seccompProfile',
  'capabilities',
  'readOnlyRootFilesystem',
  'privileged',
  'allowPrivilegeEscalation',
  'procMount',
  'runAsUser',
  'runAsGroup',
];

/** The Linux-only pod-level fields a pod spec sets (paths relative to the pod spec), in the list's order. */
export function linuxOnlyPodFieldsSet(spec: Record<string, unknown>): string[][] {
  const out: string[][] = [];
  for (const f of LINUX_ONLY_POD_FIELDS) {
    const parent = f.path.length === 1 ? spec : objAt(spec, f.path.slice(0, -1));
    const key = f.path[f.path.length - 1];
    if (!parent || !isSet(parent, key)) continue;
    const v = parent[key];
    if (f.when === 'true' && v !== true) continue;
    if (f.when === 'nonEmpty' && !(Array.isArray(v) ? v.length > 0 : true)) continue;
    out.push(f.path);
  }
  return out;
}
