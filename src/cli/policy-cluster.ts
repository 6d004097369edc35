// `kube-windows policy apply|status|remove --context C`: the generated policies in a cluster, with a
// server-side dry run and a diff before anything changes, our own field manager, and only our objects
// touched (src/cluster/admission-policies.ts).
import { version } from '../../package.json';
import {
  applyPolicyObject,
  deletePolicyObject,
  FIELD_MANAGER,
  FieldConflictError,
  installedPolicyObjects,
  requirePolicyApi,
  servesDeploymentConfigs,
  type PolicyKind,
  type PolicyObject,
} from '../cluster/admission-policies';
import { generatePolicies } from '../core/policy/generate';
import { policyChanges, type PolicyChange } from '../core/policy/changes';
import { policySummary } from '../core/policy/request';
import { policyStatusRows, type PolicyStatusRow } from '../core/policy/status';
import { counted } from '../core/plural';
import { confirm, EXIT, oneOf, out, userMessage } from './kit';
import { clusterFor, type Cluster } from './kit-remote';
import { policyOptions, type PolicyValues } from './policy';

export async function runPolicyCluster(action: 'apply' | 'status' | 'remove', values: PolicyValues): Promise<number> {
  const format = action === 'status' ? (oneOf('format', values.format, ['text', 'json']) ?? 'text') : 'text';
  // Bad options are refused before the cluster is reached.
  if (action === 'apply') policyOptions(values, false);
  const cluster = clusterFor(values);
  try {
    const serverVersion = await requirePolicyApi(cluster.kube, cluster.context);
    if (action === 'status') return await status(cluster, serverVersion, format === 'json');
    if (action === 'remove') return await remove(cluster, values);
    return await apply(cluster, values);
  } catch (err) {
    process.stderr.write(`${userMessage(err, cluster.context)}\n`);
    // Another tool's change is an answer (no), not a usage error.
    return err instanceof FieldConflictError ? EXIT.FAILED : EXIT.USAGE;
  }
}

function printChanges(changes: readonly PolicyChange[]): void {
  for (const c of changes) {
    out(`  ${c.change.padEnd(9)} ${c.kind} ${c.name}`);
    if (c.diff) process.stdout.write(c.diff.replace(/^/gm, '    ').replace(/ +$/gm, ''));
  }
}

async function apply(cluster: Cluster, values: PolicyValues): Promise<number> {
  const openshift = await servesDeploymentConfigs(cluster.kube);
  const options = policyOptions(values, openshift);
  const wanted = generatePolicies(options) as unknown as PolicyObject[];
  const installed = await installedPolicyObjects(cluster.kube);
  // The API server's own word first: compile errors, RBAC and field conflicts show before anything changes.
  const dryRun: PolicyObject[] = [];
  for (const o of wanted) dryRun.push(await applyPolicyObject(cluster.kube, o, { dryRun: true }));
  const changes = policyChanges([...installed.policies, ...installed.bindings], wanted, dryRun);
  for (const line of policySummary(options)) out(line);
  out(`Cluster "${cluster.context}", field manager ${FIELD_MANAGER} (server-side dry run):`);
  printChanges(changes);
  const todo = changes.filter((c) => c.change !== 'unchanged');
  if (todo.length === 0) {
    out('The policies are up to date: nothing to change.');
    return EXIT.OK;
  }
  if (values['dry-run']) {
    out(`Dry run: ${counted(todo.length, 'change')} shown, nothing changed.`);
    return EXIT.OK;
  }
  if (!(await confirm(`Apply ${counted(todo.length, 'change')} to cluster "${cluster.context}"?`, values.yes === true)))
    return EXIT.FAILED;
  // Policies before their bindings (a binding to a missing policy does nothing); deletions after.
  for (const o of wanted) {
    const c = changes.find((x) => x.kind === o.kind && x.name === o.metadata.name);
    if (c?.change === 'unchanged') continue;
    await applyPolicyObject(cluster.kube, o);
    out(`${c?.change === 'create' ? 'created' : 'updated'} ${o.kind} ${o.metadata.name}`);
  }
  for (const c of [...changes].reverse().filter((x) => x.change === 'delete')) {
    await deletePolicyObject(cluster.kube, c.kind as PolicyKind, c.name);
    out(`deleted ${c.kind} ${c.name} (no longer part of the set)`);
  }
  out(
    `Applied. "kube-windows policy status --context ${cluster.context}" shows what the API server reports about them.`,
  );
  return EXIT.OK;
}

function printStatus(rows: readonly PolicyStatusRow[]): void {
  for (const r of rows) {
    out(`${r.name}: ${r.action ?? 'no binding'}, ${counted(r.rules.length, 'rule')} (${r.rules.join(', ')})`);
    out(`  version ${r.version ?? 'unknown'} (${r.versionNote})`);
    for (const p of r.problems) out(`  ${p}`);
  }
}

async function status(cluster: Cluster, serverVersion: string, json: boolean): Promise<number> {
  const installed = await installedPolicyObjects(cluster.kube);
  const rows = policyStatusRows(installed.policies, installed.bindings, version);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ context: cluster.context, serverVersion, cli: version, policies: rows }, null, 2)}\n`,
    );
    return EXIT.OK;
  }
  if (rows.length === 0) {
    out(
      `No kube-windows admission policies on cluster "${cluster.context}" (Kubernetes ${serverVersion}). "kube-windows policy apply --context ${cluster.context}" installs them.`,
    );
    return EXIT.OK;
  }
  out(`Cluster "${cluster.context}" (Kubernetes ${serverVersion}), kube-windows ${version}:`);
  printStatus(rows);
  return EXIT.OK;
}

async function remove(cluster: Cluster, values: PolicyValues): Promise<number> {
  const installed = await installedPolicyObjects(cluster.kube);
  // Bindings first: a policy without its binding enforces nothing, the other way round it would dangle.
  const objects = [...installed.bindings, ...installed.policies];
  if (objects.length === 0) {
    out(`No kube-windows admission policies on cluster "${cluster.context}": nothing to remove.`);
    return EXIT.OK;
  }
  for (const o of objects)
    await deletePolicyObject(cluster.kube, o.kind as PolicyKind, o.metadata.name, { dryRun: true });
  out(`Cluster "${cluster.context}" (server-side dry run):`);
  for (const o of objects) out(`  delete    ${o.kind} ${o.metadata.name}`);
  if (values['dry-run']) {
    out(`Dry run: ${counted(objects.length, 'object')} would be deleted, nothing changed.`);
    return EXIT.OK;
  }
  if (
    !(await confirm(
      `Delete ${counted(objects.length, 'object')} from cluster "${cluster.context}"?`,
      values.yes === true,
    ))
  )
    return EXIT.FAILED;
  for (const o of objects) {
    await deletePolicyObject(cluster.kube, o.kind as PolicyKind, o.metadata.name);
    out(`deleted ${o.kind} ${o.metadata.name}`);
  }
  return EXIT.OK;
}
