// `kube-windows policy export|apply|status|remove`: the rules as ValidatingAdmissionPolicies. export is
// pure (core/policy); the cluster actions are in ./policy-cluster, loaded when run (they load the
// Kubernetes client).
import { version } from '../../package.json';
import { generatePolicies, type PolicyOptions } from '../core/policy/generate';
import { renderPolicies } from '../core/policy/render';
import { policySummary, resolvePolicyRequest } from '../core/policy/request';
import { actionOf, commandHelp, parseCommand } from './declare';
import { POLICY_COMMAND } from './policy-command';
import { EXIT, oneOf, UsageError, warn } from './kit';

export type PolicyValues = ReturnType<typeof parseCommand<(typeof POLICY_COMMAND)['options']>>['values'];

/** The generator's options from the command line; a usage error for an unknown rule, action or a bad selector. */
export function policyOptions(values: PolicyValues, openshift: boolean): PolicyOptions {
  const resolved = resolvePolicyRequest({
    ...(values.rules ? { rules: values.rules } : {}),
    ...(values.action !== undefined ? { action: values.action } : {}),
    ...(values['namespace-selector'] !== undefined ? { namespaceSelector: values['namespace-selector'] } : {}),
    includeSystemNamespaces: values['include-system-namespaces'] === true,
    openshift,
    version,
  });
  if ('error' in resolved) throw new UsageError(resolved.error);
  return resolved;
}

export async function runPolicy(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(POLICY_COMMAND, args);
  if (values.help || positionals[0] === 'help') {
    process.stdout.write(commandHelp(POLICY_COMMAND));
    return EXIT.OK;
  }
  const { action } = actionOf(POLICY_COMMAND, positionals, values);
  if (action === 'export') {
    const format = oneOf('format', values.format, ['yaml', 'json']) ?? 'yaml';
    const options = policyOptions(values, values.openshift === true);
    const summary = policySummary(options);
    // YAML carries the summary as its header comment; JSON cannot, so it goes to standard error.
    if (format === 'json') for (const line of summary) warn(line);
    process.stdout.write(renderPolicies(generatePolicies(options), format, summary));
    return EXIT.OK;
  }
  const cluster = await import('./policy-cluster');
  return cluster.runPolicyCluster(action, values);
}
