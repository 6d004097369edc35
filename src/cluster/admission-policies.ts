// The ValidatingAdmissionPolicies and bindings kube-windows manages (admissionregistration.k8s.io/v1):
// their API paths, reading the installed set, server-side apply with our own field manager (never
// forced), deletion of ours only, and whether the cluster serves the API at all.
import { normalizeRelease, releaseAtLeast } from '../core/kubernetes-release';
import { policyChanges, type PolicyChange } from '../core/policy/changes';
import { generatePolicies, type PolicyOptions } from '../core/policy/generate';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../core/policy/labels';
import { policyStatusRows, type PolicyStatusRow } from '../core/policy/status';
import { UserError } from '../core/user-error';
import { ApiError } from './errors';
import type { KubeClient } from './kube-client';
import {
  GROUP_PATH,
  POLICY_KINDS,
  policyObjectPath,
  type PolicyKind,
  type PolicyObject,
} from './admission-policy-lists';

export type { PolicyKind, PolicyObject } from './admission-policy-lists';

/** The field manager every write of ours uses: `kubectl get --show-managed-fields` names it. */
export const FIELD_MANAGER = 'kube-windows';
/** The first release that serves admissionregistration.k8s.io/v1 policies. */
const POLICY_RELEASE = '1.30';

/** A cluster that cannot hold the policies: older than 1.30, or not serving the API. */
class PolicyApiMissingError extends UserError {}

/**
 * Refuses a cluster without admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies, naming its
 * version; resolves to the version ("v1.35.4").
 */
export async function requirePolicyApi(kube: KubeClient, context: string, signal?: AbortSignal): Promise<string> {
  const version = (await kube.get<{ gitVersion?: string }>('/version', undefined, signal)).gitVersion ?? '';
  const release = normalizeRelease(version);
  if (release && !releaseAtLeast(release, POLICY_RELEASE))
    throw new PolicyApiMissingError(
      `Cluster "${context}" runs Kubernetes ${version}: ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1) need ${POLICY_RELEASE} or later. Upgrade the cluster, or keep checking with "kube-windows check --context ${context}".`,
    );
  let served: { resources?: { name: string }[] } | undefined;
  try {
    served = await kube.get(GROUP_PATH, undefined, signal);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
  if (!served?.resources?.some((r) => r.name === POLICY_KINDS.ValidatingAdmissionPolicy))
    throw new PolicyApiMissingError(
      `Cluster "${context}" (Kubernetes ${version || 'of an unknown version'}) does not serve ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1): the API is turned off there. Turn it on, or keep checking with "kube-windows check --context ${context}".`,
    );
  return version;
}

/** Whether the cluster serves DeploymentConfigs (apps.openshift.io/v1): then their policy is part of the set. */
async function servesDeploymentConfigs(kube: KubeClient, signal?: AbortSignal): Promise<boolean> {
  try {
    const group = await kube.get<{ resources?: { name: string }[] }>('/apis/apps.openshift.io/v1', undefined, signal);
    return group.resources?.some((r) => r.name === 'deploymentconfigs') ?? false;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return false;
    throw err;
  }
}

/** Ours: labelled as managed by kube-windows. */
export async function installedPolicyObjects(
  kube: KubeClient,
  signal?: AbortSignal,
): Promise<{ policies: PolicyObject[]; bindings: PolicyObject[] }> {
  const query = { labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}` };
  const settled = await Promise.allSettled(
    (Object.keys(POLICY_KINDS) as PolicyKind[]).map((kind) =>
      // A list's items come without their kind and apiVersion.
      kube
        .get<{ items?: PolicyObject[] }>(policyObjectPath(kind), query, signal)
        .then((l) => (l.items ?? []).map((o) => ({ ...o, apiVersion: 'admissionregistration.k8s.io/v1', kind }))),
    ),
  );
  // When both lists fail (a user without RBAC for either), report the policies' error, not whichever answered
  // first: the same message on every run.
  const [policies, bindings] = settled.map((s) => {
    if (s.status === 'rejected') throw s.reason;
    return s.value;
  });
  return { policies, bindings };
}

/** Another field manager owns a field we set: reported, never forced. */
export class FieldConflictError extends UserError {}

/** Server-side apply of one object with our field manager (a dry run with `dryRun`); conflicts are refused. */
async function applyPolicyObject(
  kube: KubeClient,
  obj: PolicyObject,
  options: { dryRun?: boolean; signal?: AbortSignal } = {},
): Promise<PolicyObject> {
  try {
    return await kube.request<PolicyObject>('PATCH', policyObjectPath(obj.kind as PolicyKind, obj.metadata.name), {
      body: obj,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: FIELD_MANAGER, ...(options.dryRun ? { dryRun: 'All' } : {}) },
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof ApiError && err.status === 409)
      throw new FieldConflictError(
        `${obj.kind} ${obj.metadata.name}: ${err.body?.message ?? 'another field manager owns fields kube-windows sets'}. kube-windows does not force a change another tool made: undo it there, or delete the object ("kube-windows policy remove"), then apply again.`,
      );
    throw err;
  }
}

/** Deletes one object of ours (a dry run with `dryRun`). */
export async function deletePolicyObject(
  kube: KubeClient,
  kind: PolicyKind,
  name: string,
  options: { dryRun?: boolean; signal?: AbortSignal } = {},
): Promise<void> {
  const path = `${policyObjectPath(kind, name)}${options.dryRun ? '?dryRun=All' : ''}`;
  await kube.delete(path, options.signal);
}

/** What `apply` would do: the options (DeploymentConfigs decided by the cluster), the objects, the changes. */
export interface PreparedPolicyApply {
  options: PolicyOptions;
  wanted: PolicyObject[];
  changes: PolicyChange[];
}

/**
 * Reads the cluster and runs the server-side dry run of every object (compile errors, RBAC and field
 * conflicts show here, before anything changes), then decides what changes.
 */
export async function preparePolicyApply(
  kube: KubeClient,
  context: string,
  options: Omit<PolicyOptions, 'openshift'>,
  signal?: AbortSignal,
): Promise<PreparedPolicyApply> {
  const version = await requirePolicyApi(kube, context, signal);
  // The rules whose words name the release say the cluster's, as `check --context` does.
  const full = {
    ...options,
    kubernetesVersion: options.kubernetesVersion ?? normalizeRelease(version),
    openshift: await servesDeploymentConfigs(kube, signal),
  };
  const wanted = generatePolicies(full) as unknown as PolicyObject[];
  const installed = await installedPolicyObjects(kube, signal);
  const dryRun: PolicyObject[] = [];
  for (const o of wanted) dryRun.push(await applyPolicyObject(kube, o, { dryRun: true, signal }));
  return {
    options: full,
    wanted,
    changes: policyChanges([...installed.policies, ...installed.bindings], wanted, dryRun),
  };
}

/** Applies what `prepared` found to change: policies before their bindings, deletions last. Each done change is reported. */
export async function executePolicyApply(
  kube: KubeClient,
  prepared: PreparedPolicyApply,
  onChange: (c: PolicyChange) => void = () => {},
  signal?: AbortSignal,
): Promise<void> {
  for (const o of prepared.wanted) {
    const c = prepared.changes.find((x) => x.kind === o.kind && x.name === o.metadata.name);
    if (!c || c.change === 'unchanged') continue;
    await applyPolicyObject(kube, o, { signal });
    onChange(c);
  }
  for (const c of [...prepared.changes].reverse().filter((x) => x.change === 'delete')) {
    await deletePolicyObject(kube, c.kind as PolicyKind, c.name, { signal });
    onChange(c);
  }
}

/** The installed set as `status` and the cluster tree show it. */
export async function readPolicyStatus(
  kube: KubeClient,
  cliVersion: string,
  signal?: AbortSignal,
): Promise<PolicyStatusRow[]> {
  const installed = await installedPolicyObjects(kube, signal);
  return policyStatusRows(installed.policies, installed.bindings, cliVersion);
}
