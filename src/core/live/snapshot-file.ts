// A ClusterSnapshot saved as JSON (`kube-windows snapshot --context C > facts.json`) and read back by
// `check --snapshot facts.json`: checked field by field, so a wrong file is refused with what is wrong.
import { isObj } from '../manifest/path';
import type { ClusterSnapshot } from '../rules/facts';

export type SnapshotRead = { ok: true; snapshot: ClusterSnapshot } | { ok: false; message: string };

const isStringMap = (v: unknown): v is Record<string, string> =>
  isObj(v) && Object.values(v).every((x) => typeof x === 'string');

/** Parses and checks a snapshot file's text; the message says which field is wrong. */
export function readSnapshotText(text: string): SnapshotRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `is not JSON (${(err as Error).message})` };
  }
  const bad = (field: string, want: string): SnapshotRead => ({
    ok: false,
    message: `is not a cluster snapshot: ${field} must be ${want} (write one with "kube-windows snapshot --context C")`,
  });
  if (!isObj(value)) return bad('the file', 'a JSON object');
  if (typeof value.name !== 'string') return bad('name', 'a string');
  if (value.flavour !== undefined && value.flavour !== 'openshift' && value.flavour !== 'kubernetes')
    return bad('flavour', '"openshift" or "kubernetes"');
  if (!Array.isArray(value.windowsNodes)) return bad('windowsNodes', 'an array');
  for (const [i, n] of value.windowsNodes.entries()) {
    if (!isObj(n) || typeof n.name !== 'string' || typeof n.build !== 'string')
      return bad(`windowsNodes[${i}]`, 'an object with name and build strings');
    if (
      !Array.isArray(n.taints) ||
      !n.taints.every(
        (t) =>
          isObj(t) &&
          typeof t.key === 'string' &&
          typeof t.effect === 'string' &&
          (t.value === undefined || typeof t.value === 'string'),
      )
    )
      return bad(`windowsNodes[${i}].taints`, 'an array of {key, value?, effect}');
  }
  if (!Array.isArray(value.runtimeClasses)) return bad('runtimeClasses', 'an array');
  for (const [i, rc] of value.runtimeClasses.entries()) {
    if (
      !isObj(rc) ||
      typeof rc.name !== 'string' ||
      typeof rc.handler !== 'string' ||
      !isStringMap(rc.nodeSelector) ||
      !Array.isArray(rc.tolerations) ||
      (rc.build !== undefined && typeof rc.build !== 'string')
    )
      return bad(`runtimeClasses[${i}]`, 'an object with name, handler, nodeSelector (strings) and tolerations');
  }
  if (value.openshift !== undefined && !isObj(value.openshift)) return bad('openshift', 'an object');
  if (value.serverVersion !== undefined && typeof value.serverVersion !== 'string')
    return bad('serverVersion', 'a string (the API server\'s version, such as "v1.35.4")');
  if (value.storage !== undefined) {
    const problem = storageProblem(value.storage);
    if (problem) return bad(problem[0], problem[1]);
  }
  return { ok: true, snapshot: value as unknown as ClusterSnapshot };
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** What is wrong with a snapshot's storage facts, as [field, what it must be]; undefined when nothing. */
function storageProblem(storage: unknown): [string, string] | undefined {
  if (!isObj(storage)) return ['storage', 'an object'];
  if (!Array.isArray(storage.storageClasses)) return ['storage.storageClasses', 'an array'];
  for (const [i, sc] of storage.storageClasses.entries()) {
    if (
      !isObj(sc) ||
      typeof sc.name !== 'string' ||
      typeof sc.provisioner !== 'string' ||
      typeof sc.isDefault !== 'boolean'
    )
      return [`storage.storageClasses[${i}]`, 'an object with name and provisioner strings and isDefault (boolean)'];
  }
  if (!isStrings(storage.csiDrivers)) return ['storage.csiDrivers', 'an array of strings'];
  if (!Array.isArray(storage.windowsNodes)) return ['storage.windowsNodes', 'an array'];
  for (const [i, n] of storage.windowsNodes.entries()) {
    if (
      !isObj(n) ||
      typeof n.name !== 'string' ||
      (n.build !== undefined && typeof n.build !== 'string') ||
      !isStrings(n.drivers)
    )
      return [`storage.windowsNodes[${i}]`, 'an object with name, build (optional) and drivers (strings)'];
  }
  return undefined;
}
