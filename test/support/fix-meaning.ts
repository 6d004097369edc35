// What a `safe` fix may do to an object (FixKind): remove what the API server or the kubelet ignores
// or rejects, or write the same thing as it should be written (a case, a deprecated name of the same
// label, whitespace, slashes). Used by every test that applies a fix (support/check.ts) and by the walk
// over the corpora (unit/fix-kinds.test.ts). Test-only.
import { loadManifest } from '../../src/core/manifest/document';

/** Leaves of a value as `path=value`; sequence indexes written `*` (removing an item shifts the rest). */
function leaves(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [`${path}=[]`] : value.flatMap((v) => leaves(v, `${path}[*]`));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length === 0 ? [`${path}={}`] : entries.flatMap(([k, v]) => leaves(v, `${path}.${k}`));
  }
  return [`${path}=${JSON.stringify(value)}`];
}

/** The items of `a` that are not in `b`, as multisets. */
function minus(a: string[], b: string[]): string[] {
  const left = [...b];
  return a.filter((x) => {
    const i = left.indexOf(x);
    if (i === -1) return true;
    left.splice(i, 1);
    return false;
  });
}

const spelling = (s: string) =>
  s
    .toLowerCase()
    .replace(/[\s\u0000-\u001f\u007f"']|\\[nrt]/g, '')
    .replace(/[\\/]+/g, '\\');
// Values a rule documents as the same thing.
const SAME_MEANING: [RegExp, string, string][] = [
  // Without the host's network the kubelet treats ClusterFirstWithHostNet as ClusterFirst.
  [/\.dnsPolicy$/, '"ClusterFirstWithHostNet"', '"ClusterFirst"'],
  // node.k8s.io/v1beta1 RuntimeClass: the same fields under the served version.
  [/^\.apiVersion$/, '"node.k8s.io/v1beta1"', '"node.k8s.io/v1"'],
  // A node affinity term on the deprecated name of the same label.
  [/\.key$/, '"beta.kubernetes.io/os"', '"kubernetes.io/os"'],
];

const split = (leaf: string): [string, string] => [leaf.slice(0, leaf.indexOf('=')), leaf.slice(leaf.indexOf('=') + 1)];

function explained(added: string, removed: string[]): boolean {
  const [path, value] = split(added);
  if (value === '{}') return true; // a map emptied by the removal of its last key
  return removed.some((r) => {
    const [rPath, rValue] = split(r);
    if (rPath === path)
      return (
        spelling(rValue) === spelling(value) ||
        SAME_MEANING.some(([p, from, to]) => p.test(path) && rValue === from && value === to)
      );
    // A key renamed: wrongly cased, or the deprecated name of the same label.
    const key = (p: string) => p.toLowerCase().replace('beta.kubernetes.io/os', 'kubernetes.io/os');
    return rValue === value && key(rPath) === key(path);
  });
}

/**
 * What a fix of document `index` changed beyond what a safe fix may: the leaves it added or changed
 * that no removed leaf explains (empty when the fix keeps the object's meaning).
 */
export function meaningChanges(before: string, after: string, index: number): string[] {
  const was = leaves(loadManifest(before).documents[index]?.value);
  const now = leaves(loadManifest(after).documents[index]?.value);
  const removed = minus(was, now);
  return minus(now, was).filter((a) => !explained(a, removed));
}
