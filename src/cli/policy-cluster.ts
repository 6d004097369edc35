// `kube-windows policy apply|status|remove --context C`: the generated policies in a cluster, with a
// server-side dry run and a diff before anything changes, our own field manager, and only our objects
// touched (src/cluster/admission-policies.ts).
import { version } from '../../package.json';
import {
  deletePolicyObject,
  executePolicyApply,
  FIELD_MANAGER,
  FieldConflictError,
  installedPolicyObjects,
  preparePolicyApply,
  readPolicyStatus,
  requirePolicyApi,
  type PolicyKind,
} from '../cluster/admission-policies';
import type { PolicyChange } from '../core/policy/changes';
import { policySummary } from '../core/policy/request';
import type { PolicyStatusRow } from '../core/policy/status';
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
    if (action === 'apply') return await apply(cluster, values);
    const serverVersion = await requirePolicyApi(cluster.kube, cluster.context);
    if (action === 'status') return await status(cluster, serverVersion, format === 'json');
    return await remove(cluster, values);
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
  const prepared = await preparePolicyApply(cluster.kube, cluster.context, policyOptions(values, false));
  const { changes } = prepared;
  for (const line of policySummary(prepared.options)) out(line);
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
  await executePolicyApply(cluster.kube, prepared, (c) =>
    out(
      c.change === 'delete'
        ? `deleted ${c.kind} ${c.name} (no longer part of the set)`
        : `${c.change === 'create' ? 'created' : 'updated'} ${c.kind} ${c.name}`,
    ),
  );
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
  const rows = await readPolicyStatus(cluster.kube, version);
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
