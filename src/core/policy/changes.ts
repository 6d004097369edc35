// What `policy apply` changes, decided from the installed objects and what the server-side dry run of
// the wanted ones returned (both defaulted by the API server, so only real changes show).
import { writeYaml } from '../manifest/yaml-writer';
import { unifiedDiff } from '../unified-diff';
import { ACTION_ANNOTATION, RULES_ANNOTATION, VERSION_ANNOTATION } from './labels';

export interface PolicyLike {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
}

export interface PolicyChange {
  kind: string;
  name: string;
  change: 'create' | 'update' | 'unchanged' | 'delete';
  /** A unified diff of the labels, annotations and spec (updates). */
  diff?: string;
}

const key = (o: PolicyLike) => `${o.kind}/${o.metadata.name}`;

/** The part of an object `apply` sets, as YAML for a diff. */
function comparable(o: PolicyLike): string {
  const annotations = Object.fromEntries(
    Object.entries(o.metadata.annotations ?? {}).filter(([k]) =>
      [VERSION_ANNOTATION, RULES_ANNOTATION, ACTION_ANNOTATION].includes(k),
    ),
  );
  return writeYaml({ metadata: { labels: o.metadata.labels ?? {}, annotations }, spec: o.spec ?? {} });
}

/** Creates, updates (with their diff) and unchanged objects for `wanted`; deletes for installed objects no longer wanted. */
export function policyChanges(
  installed: readonly PolicyLike[],
  wanted: readonly PolicyLike[],
  dryRunResults: readonly PolicyLike[],
): PolicyChange[] {
  const current = new Map(installed.map((o) => [key(o), o]));
  const out: PolicyChange[] = wanted.map((w, i) => {
    const now = current.get(key(w));
    const base = { kind: w.kind, name: w.metadata.name };
    if (!now) return { ...base, change: 'create' };
    const before = comparable(now);
    const after = comparable(dryRunResults[i] ?? w);
    if (before === after) return { ...base, change: 'unchanged' };
    return { ...base, change: 'update', diff: unifiedDiff(before, after, `installed ${key(w)}`, `new ${key(w)}`) };
  });
  const wantedKeys = new Set(wanted.map(key));
  for (const o of installed)
    if (!wantedKeys.has(key(o))) out.push({ kind: o.kind, name: o.metadata.name, change: 'delete' });
  return out;
}
