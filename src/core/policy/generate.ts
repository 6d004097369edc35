// The ValidatingAdmissionPolicies and their bindings (admissionregistration.k8s.io/v1) that enforce the
// rules at admission: one policy per shape of object (pods, pod-template owners, CronJobs,
// DeploymentConfigs), one validation per rule, all generated from the rules' own descriptions.
import { RULES_BY_ID } from '../rules/registry';
import type { Rule } from '../rules/types';
import { ACTION_ANNOTATION, MANAGED_BY, MANAGED_BY_LABEL, RULES_ANNOTATION, VERSION_ANNOTATION } from './labels';
import { sentence, str, strList } from './cel';
import { RULE_CEL, RULE_CEL_BY_ID } from './rule-cel';
import { nonEmpty, type CelContext, type RuleCel } from './finding-cel';
import { effectiveRelease } from '../kubernetes-release';
import type { LabelSelector } from './selector';
import { POLICY_SHAPES, specPathOf, type PolicyShape } from './shapes';
import {
  hostProcessVariables,
  mayConcernWindows,
  POLICY_CONTAINER_GROUPS,
  targetingVariables,
  v,
  type CelVariable,
} from './targeting-cel';

export type PolicyAction = 'Deny' | 'Warn' | 'Audit';
export const POLICY_ACTIONS: readonly PolicyAction[] = ['Deny', 'Warn', 'Audit'];

const POLICY_PREFIX = 'kube-windows-';

/** Namespaces a cluster's own components run in: excluded unless asked (names, and name prefixes). */
const SYSTEM_NAMESPACES = {
  names: [
    'kube-system',
    'kube-public',
    'kube-node-lease',
    // CNI plugins' and CSI drivers' own namespaces
    'calico-system',
    'calico-apiserver',
    'tigera-operator',
    'kube-flannel',
    'cilium',
    'cilium-secrets',
    'csi-proxy',
  ],
  prefixes: ['openshift-'],
};

/** In words, for the output and the docs: "kube-system, …, openshift-*". */
export function systemNamespacesText(): string {
  return [...SYSTEM_NAMESPACES.names, ...SYSTEM_NAMESPACES.prefixes.map((p) => `${p}*`)].join(', ');
}

/** The rules a policy can enforce, in the registry's order. */
export function enforceableRules(): Rule[] {
  return RULE_CEL.map((r) => RULES_BY_ID.get(r.id)).filter((r): r is Rule => r !== undefined);
}

export interface PolicyOptions {
  /** Rule ids, already checked to be enforceable; all of them when absent. */
  rules?: string[];
  action: PolicyAction;
  namespaceSelector?: LabelSelector;
  includeSystemNamespaces?: boolean;
  /** Add the DeploymentConfig policy (OpenShift clusters). */
  openshift?: boolean;
  /** The cluster's Kubernetes release, for the rules whose words depend on it (as `check --context` says them). */
  kubernetesVersion?: string;
  /** This CLI's version, written on every object (`status` compares it). */
  version: string;
}

type K8sObject = Record<string, unknown> & { apiVersion: string; kind: string; metadata: Record<string, unknown> };

/** The admission policy's validation for one rule in one shape. */
function validation(
  rule: RuleCel,
  shape: PolicyShape,
  ctx: CelContext,
): { expression: string; messageExpression: string } {
  const prefix = specPathOf(shape).join('.');
  const podLists: string[] = [];
  const messages: string[] = [];
  const conditions: string[] = [];
  for (const f of rule.findings) {
    const parts = f.parts ?? 1;
    const msg = (item: string) =>
      parts === 1
        ? sentence((field, note) => f.message(field, note, [], ctx), [item, v('inferredNote')])
        : sentence(
            (field, note, ...more) => f.message(field, note, more, ctx),
            // string(): an item mixing typed and dynamic values is a list of dyn.
            [
              `string(${item}[0])`,
              v('inferredNote'),
              ...Array.from({ length: parts - 1 }, (_, i) => `string(${item}[${i + 1}])`),
            ],
          );
    if (f.pod) {
      const list = `(${f.pod(v('spec'), str(prefix))})`;
      podLists.push(list);
      messages.push(`${list}.map(f, ${msg('f')})`);
    }
    if (f.container) {
      const cf = f.container;
      for (const g of POLICY_CONTAINER_GROUPS) {
        const path = `${str(`${prefix}.${g}[`)} + string(${v(g)}.indexOf(c)) + ']'`;
        const list = `(${cf('c', path, g)})`;
        conditions.push(`${v(g)}.exists(c, ${nonEmpty(list)})`);
        // Each container's list once, then its first item's sentence: the list's text is not repeated per hole.
        messages.push(`${v(g)}.filter(c, size(${list}) > 0).map(c, ${list}).map(l, ${msg('l[0]')})`);
      }
    }
  }
  const found = rule.when?.() ?? [...podLists.map(nonEmpty), ...conditions].join(' || ');
  const skip = rule.osDeclared
    ? `${v('osName')} == ''`
    : rule.notLinux
      ? `${v('osName')} == 'linux'`
      : rule.inferredOnly
        ? `!${v('windows')} || ${v('declared')}`
        : `!${v('windows')}`;
  const expression = `${skip} || !(${found})`;
  return {
    expression,
    // The API server evaluates every messageExpression on every request, failed or not: the sentences
    // are built only when the validation has failed.
    messageExpression: `(${expression}) ? '' : ${str(`${rule.id}: `)} + (${messages.join(' + ')})[0]`,
  };
}

function matchConditions(shape: PolicyShape, options: PolicyOptions): { name: string; expression: string }[] {
  const out: { name: string; expression: string }[] = [];
  if (!options.includeSystemNamespaces)
    out.push({
      name: 'not-a-system-namespace',
      expression: `!(request.namespace in ${strList(SYSTEM_NAMESPACES.names)})${SYSTEM_NAMESPACES.prefixes
        .map((p) => ` && !request.namespace.startsWith(${str(p)})`)
        .join('')}`,
    });
  if (shape.name !== 'pods') {
    // An update that leaves the pod template alone (a label, an annotation, replicas) is not refused for
    // what the template already was.
    const template = ['object', ...specPathOf(shape).slice(0, -1)].join('.');
    out.push({
      name: 'pod-template-created-or-changed',
      expression: `request.operation == 'CREATE' || ${template} != ${template.replace(/^object/, 'oldObject')}`,
    });
  }
  // Last: the conditions are evaluated in order, and the ones above are cheaper.
  out.push({ name: 'may-concern-windows', expression: mayConcernWindows(specPathOf(shape)) });
  return out;
}

function metadata(name: string, rules: string[], options: PolicyOptions): Record<string, unknown> {
  return {
    name,
    labels: { [MANAGED_BY_LABEL]: MANAGED_BY },
    annotations: {
      [VERSION_ANNOTATION]: options.version,
      [RULES_ANNOTATION]: rules.join(','),
      [ACTION_ANNOTATION]: options.action,
    },
  };
}

/** The shapes policies are generated for with these options. */
export function shapesFor(options: Pick<PolicyOptions, 'openshift'>): PolicyShape[] {
  return POLICY_SHAPES.filter((s) => !s.openshift || options.openshift);
}

/** The policies and bindings, policy before its binding. */
export function generatePolicies(options: PolicyOptions): K8sObject[] {
  const rules = (options.rules ?? RULE_CEL.map((r) => r.id)).map((id) => {
    const r = RULE_CEL_BY_ID.get(id);
    if (!r) throw new Error(`${id} cannot be enforced at admission`);
    return r;
  });
  const ids = rules.map((r) => r.id);
  const ctx: CelContext = { release: effectiveRelease(options.kubernetesVersion, undefined) };
  const out: K8sObject[] = [];
  for (const shape of shapesFor(options)) {
    const name = `${POLICY_PREFIX}${shape.name}`;
    const variables: CelVariable[] = [
      ...targetingVariables(specPathOf(shape)),
      ...(rules.some((r) => r.hostProcess) ? hostProcessVariables() : []),
      // Rules may share a variable (WIN060 and WIN061 read the same exec rows): once, by name.
      ...new Map(rules.flatMap((r) => r.variables?.() ?? []).map((x) => [x.name, x])).values(),
    ];
    const groups = new Map<string, { version: string; resources: string[] }>();
    for (const r of shape.resources) {
      const g = groups.get(r.group) ?? { version: r.version, resources: [] };
      g.resources.push(r.resource);
      groups.set(r.group, g);
    }
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: metadata(name, ids, options),
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [...groups].map(([group, g]) => ({
            apiGroups: [group],
            apiVersions: [g.version],
            operations: shape.name === 'pods' ? ['CREATE'] : ['CREATE', 'UPDATE'],
            resources: g.resources,
          })),
        },
        matchConditions: matchConditions(shape, options),
        variables,
        validations: rules.map((r) => validation(r, shape, ctx)),
      },
    });
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: metadata(name, ids, options),
      spec: {
        policyName: name,
        validationActions: [options.action],
        ...(options.namespaceSelector ? { matchResources: { namespaceSelector: options.namespaceSelector } } : {}),
      },
    });
  }
  return out;
}
