// The API paths of the ValidatingAdmissionPolicies and bindings kube-windows manages, their shape as the
// API server returns them, and the collections the cluster tree watches (ours, by their label). Light on
// purpose: the extension's tree reads it without the generator (src/cluster/admission-policies.ts).
import { MANAGED_BY, MANAGED_BY_LABEL } from '../core/policy/labels';

export const GROUP_PATH = '/apis/admissionregistration.k8s.io/v1';
export const POLICY_KINDS = {
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
} as const;
export type PolicyKind = keyof typeof POLICY_KINDS;

export const policyObjectPath = (kind: PolicyKind, name?: string): string =>
  `${GROUP_PATH}/${POLICY_KINDS[kind]}${name ? `/${encodeURIComponent(name)}` : ''}`;

export interface PolicyObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: { manager?: string; operation?: string }[];
    generation?: number;
    resourceVersion?: string;
  };
  spec?: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    typeChecking?: { expressionWarnings?: { fieldRef: string; warning: string }[] };
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** The collections the cluster tree watches: our policies and bindings (by their label). */
export const policyCollections = (Object.keys(POLICY_KINDS) as PolicyKind[]).map((kind) => ({
  kind,
  path: policyObjectPath(kind),
  selector: { labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}` },
}));
