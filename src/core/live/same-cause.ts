// One cause, one finding. A failure signature (what a live pod shows) and a rule (what its spec
// predicts) often name the same cause: a missing toleration is WIN073 on the workload and WINF004
// on each of its pending pods. The live check keeps one, on the object whose spec must change:
// - on that same object (a bare pod, a controller's refused creations), the signature, which says
//   what is happening now, with the evidence;
// - on pods a checked workload created, the workload's rule finding (one finding, not one per pod,
//   where the fix goes), which then names the pods that show it.
import { getAt, isObj, type Obj } from '../manifest/path';
import type { ObjectFinding } from '../rules/checker';

/** Signature → the rules that report its cause from the spec. */
export const SAME_CAUSE: Readonly<Record<string, readonly string[]>> = {
  WINF001: ['WIN080'],
  // A Linux-only image's failed pull is WINF003 whatever the runtime says (explain.ts), never WINF002.
  WINF002: ['WIN080'],
  WINF003: ['WIN084', 'WIN085'],
  WINF004: ['WIN073'],
  WINF005: ['WIN071', 'WIN075'],
  WINF007: ['WIN010', 'WIN011', 'WIN012', 'WIN015'],
  WINF009: ['WIN027', 'WIN029'],
  WINF012: ['WIN059', 'WIN063'],
  WINF015: ['WIN072'],
  WINF016: ['WIN060', 'WIN061'],
};

/** One live object and what the check found on it, rule findings and explanations apart. */
export interface CheckedObject {
  object: Obj;
  /** Whether the rules ran on it (isCheckedObject). */
  checked: boolean;
  rules: ObjectFinding[];
  explanations: ObjectFinding[];
}

const CONTAINER = /(?:^|\.)((?:initContainers|containers|ephemeralContainers)\[\d+\])/;

/** Both paths are about the same container, or one of them about the whole pod. */
function sameContainer(a: string, b: string): boolean {
  const x = CONTAINER.exec(a)?.[1];
  const y = CONTAINER.exec(b)?.[1];
  return x === undefined || y === undefined || x === y;
}

const keyOf = (kind: unknown, namespace: unknown, name: unknown) =>
  `${String(kind)}/${String(namespace ?? '')}/${String(name ?? '')}`;

/** Removes the findings a same-cause partner already says (see the header); changes `entries` in place. */
export function oneFindingPerCause(entries: CheckedObject[]): void {
  const byUid = new Map<string, CheckedObject>();
  const byName = new Map<string, CheckedObject>();
  for (const e of entries) {
    const uid = getAt(e.object, ['metadata', 'uid']);
    if (typeof uid === 'string') byUid.set(uid, e);
    byName.set(
      keyOf(e.object.kind, getAt(e.object, ['metadata', 'namespace']), getAt(e.object, ['metadata', 'name'])),
      e,
    );
  }
  const controllerOf = (e: CheckedObject): CheckedObject | undefined => {
    const owners = getAt(e.object, ['metadata', 'ownerReferences']);
    if (!Array.isArray(owners)) return undefined;
    const c = owners.find((o) => isObj(o) && o.controller === true) ?? owners[0];
    if (!isObj(c)) return undefined;
    return (
      (typeof c.uid === 'string' ? byUid.get(c.uid) : undefined) ??
      byName.get(keyOf(c.kind, getAt(e.object, ['metadata', 'namespace']), c.name))
    );
  };
  const shownBy = new Map<ObjectFinding, { pods: string[]; signature: string }>();

  for (const e of entries) {
    if (e.explanations.length === 0) continue;
    // On the same object the signature wins: drop the rule findings it covers.
    if (e.checked) {
      e.rules = e.rules.filter(
        (r) => !e.explanations.some((x) => SAME_CAUSE[x.ruleId]?.includes(r.ruleId) && sameContainer(r.path, x.path)),
      );
    }
    // On a pod a checked workload made, the workload's rule finding wins (up to three owners: Pod,
    // ReplicaSet, Deployment; Pod, Job, CronJob).
    const owners: CheckedObject[] = [];
    for (let o = controllerOf(e); o && owners.length < 3 && !owners.includes(o); o = controllerOf(o)) owners.push(o);
    e.explanations = e.explanations.filter((x) => {
      const covering = SAME_CAUSE[x.ruleId];
      if (!covering) return true;
      for (const owner of owners) {
        if (!owner.checked) continue;
        const r = owner.rules.find((f) => covering.includes(f.ruleId) && sameContainer(f.path, x.path));
        if (!r) continue;
        const seen = shownBy.get(r) ?? { pods: [], signature: x.ruleId };
        const name = String(getAt(e.object, ['metadata', 'name']) ?? '');
        if (!seen.pods.includes(name)) seen.pods.push(name);
        shownBy.set(r, seen);
        return false;
      }
      return true;
    });
  }
  for (const [r, { pods, signature }] of shownBy) r.message = `${r.message} ${shownText(pods, signature)}`;
}

/** "Pod web-1 shows it (WINF004)." / "Pods web-1, web-2 and 3 more show it (WINF004)." */
function shownText(pods: string[], signature: string): string {
  if (pods.length === 1) return `Pod ${pods[0]} shows it (${signature}).`;
  const names = pods.length === 2 ? `${pods[0]} and ${pods[1]}` : `${pods[0]}, ${pods[1]} and ${pods.length - 2} more`;
  return `Pods ${names} show it (${signature}).`;
}
