import { getAt, isObj, pathString, type Obj, type Path } from '../manifest/path';
import type { ContainerView, PodSpecView } from '../manifest/workloads';
import type { FixSpec, Severity } from './types';
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

export function deleteFix(title: string, path: Path, keep: number): FixSpec {
  return { title, ops: [{ op: 'delete', path, keep }] };
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
  return { title: 'Add spec.os.name: windows', ops: [{ op: 'set', path: [...pod.path, 'os'], value: { name: 'windows' }, first: true }] };
}
