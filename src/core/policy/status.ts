// What `policy status` and the cluster tree say about the installed set: per policy its binding's action,
// its rules, its version against this CLI's, and what the API server reports (type checking, conditions).
import { RULES_ANNOTATION, VERSION_ANNOTATION } from './labels';
import { compareVersions } from './version';

interface Installed {
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: {
    typeChecking?: { expressionWarnings?: { fieldRef: string; warning: string }[] };
    conditions?: { type: string; status: string; message?: string }[];
  };
}

export interface PolicyStatusRow {
  name: string;
  /** The binding's validation actions ("Deny"), undefined without a binding. */
  action?: string;
  rules: string[];
  version?: string;
  /** Older, newer or the same as this CLI's. */
  age: 'older' | 'same' | 'newer' | 'unknown';
  versionNote: string;
  /** What is wrong, one line each: a missing binding, type-checking warnings, failing conditions. */
  problems: string[];
}

export function policyStatusRows(
  policies: readonly Installed[],
  bindings: readonly Installed[],
  cliVersion: string,
): PolicyStatusRow[] {
  const rows: PolicyStatusRow[] = [];
  for (const p of [...policies].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const binding = bindings.find((b) => b.spec?.policyName === p.metadata.name);
    const actions = binding?.spec?.validationActions;
    const version = p.metadata.annotations?.[VERSION_ANNOTATION];
    const cmp = version ? compareVersions(version, cliVersion) : undefined;
    const age = cmp === undefined ? 'unknown' : cmp < 0 ? 'older' : cmp > 0 ? 'newer' : 'same';
    const problems: string[] = [];
    if (!binding) problems.push('no binding: the policy enforces nothing ("kube-windows policy apply" adds it)');
    for (const w of p.status?.typeChecking?.expressionWarnings ?? [])
      problems.push(`type checking: ${w.fieldRef}: ${w.warning.split('\n')[0]}`);
    for (const c of p.status?.conditions ?? [])
      if (c.status === 'False') problems.push(`${c.type}: ${c.message ?? 'False'}`);
    rows.push({
      name: p.metadata.name,
      ...(Array.isArray(actions) ? { action: actions.join(', ') } : {}),
      rules: (p.metadata.annotations?.[RULES_ANNOTATION] ?? '').split(',').filter(Boolean),
      ...(version ? { version } : {}),
      age,
      versionNote:
        age === 'older'
          ? `older than this kube-windows ${cliVersion}: "kube-windows policy apply" upgrades it in place`
          : age === 'newer'
            ? `newer than this kube-windows ${cliVersion}`
            : age === 'same'
              ? 'this version'
              : 'no version annotation',
      problems,
    });
  }
  const named = new Set(policies.map((p) => p.metadata.name));
  for (const b of bindings)
    if (typeof b.spec?.policyName === 'string' && !named.has(b.spec.policyName))
      rows.push({
        name: b.metadata.name,
        rules: [],
        age: 'unknown',
        versionNote: 'binding without its policy',
        problems: [`binding to the missing policy ${b.spec.policyName}: "kube-windows policy remove" cleans it up`],
      });
  return rows;
}
