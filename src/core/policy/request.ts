// What `kube-windows policy export|apply` and VS Code's "Enforce Windows rules…" ask for, checked once:
// the rules (each must exist and be enforceable at admission), the action, the namespace selector.
import { RULES_BY_ID } from '../rules/registry';
import { admissionText } from './admission-words';
import { counted } from '../plural';
import { enforceableRules, POLICY_ACTIONS, shapesFor, systemNamespacesText, type PolicyOptions } from './generate';
import { parseNamespaceSelector } from './selector';

export interface PolicyRequest {
  /** Rule ids, each entry possibly a comma-separated list (as --rules repeats). */
  rules?: readonly string[];
  action?: string;
  namespaceSelector?: string;
  includeSystemNamespaces?: boolean;
  openshift?: boolean;
  version: string;
}

/** The options for generatePolicies, or the first problem in one line. */
export function resolvePolicyRequest(req: PolicyRequest): PolicyOptions | { error: string } {
  let rules: string[] | undefined;
  if (req.rules && req.rules.length > 0) {
    rules = [];
    for (const raw of req.rules.flatMap((r) => r.split(','))) {
      const id = raw.trim().toUpperCase();
      if (!id) return { error: '--rules has an empty entry: list rule ids separated by commas (WIN040,WIN055)' };
      const rule = RULES_BY_ID.get(id);
      if (!rule)
        return { error: `--rules: ${raw.trim()} is not a kube-windows rule ("kube-windows rules" lists them)` };
      if (!rule.admission.enforceable)
        return {
          error: `--rules: ${id} cannot be enforced at admission: ${admissionText(rule.admission).replace(/^no: /, '')}. Enforceable: ${enforceableRules()
            .map((r) => r.id)
            .join(', ')}`,
        };
      if (!rules.includes(id)) rules.push(id);
    }
  }
  let action: PolicyOptions['action'] = 'Warn';
  if (req.action !== undefined) {
    const found = POLICY_ACTIONS.find((a) => a.toLowerCase() === req.action?.trim().toLowerCase());
    if (!found) return { error: `--action must be Deny, Warn or Audit, not "${req.action}"` };
    action = found;
  }
  let namespaceSelector: PolicyOptions['namespaceSelector'];
  if (req.namespaceSelector !== undefined) {
    const parsed = parseNamespaceSelector(req.namespaceSelector);
    if ('error' in parsed) return parsed;
    namespaceSelector = parsed;
  }
  return {
    ...(rules ? { rules } : {}),
    action,
    ...(namespaceSelector ? { namespaceSelector } : {}),
    ...(req.includeSystemNamespaces ? { includeSystemNamespaces: true } : {}),
    ...(req.openshift ? { openshift: true } : {}),
    version: req.version,
  };
}

/** What the generated set does, in words: the header of `export` and the preview in VS Code. */
export function policySummary(options: PolicyOptions): string[] {
  const ids = options.rules ?? enforceableRules().map((r) => r.id);
  const shapes = shapesFor(options).map((s) => s.what);
  return [
    `kube-windows ${options.version}: ${counted(ids.length, 'rule')} enforced at admission (${ids.join(', ')}), action ${options.action}.`,
    `For ${shapes.join('; ')}.`,
    options.includeSystemNamespaces
      ? 'System namespaces included (--include-system-namespaces).'
      : `Not enforced in the system namespaces ${systemNamespacesText()}; --include-system-namespaces includes them.`,
    ...(options.namespaceSelector ? ['Only in the namespaces the namespace selector matches.'] : []),
    'Requires Kubernetes 1.30 or later (admissionregistration.k8s.io/v1).',
  ];
}
