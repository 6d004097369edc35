// The policy command's declaration (usage, options, actions), kept apart from ./commands for size; it is
// part of the same command table (COMMANDS there), from which the parser, help and README are made.

import { command, forActions } from './declare';
import { CLUSTER_OPTIONS, HELP_OPTION, YES_OPTION } from './kit';

const POLICY_CHOICE = ['export', 'apply'] as const;
const POLICY_CLUSTER = ['apply', 'status', 'remove'] as const;

export const POLICY_COMMAND = command({
  name: 'policy',
  usage: [
    'policy export [--rules R,...] [--action Deny|Warn|Audit] [--namespace-selector SEL] [--include-system-namespaces] [--openshift] [--format yaml|json]',
    'policy apply --context C [--kubeconfig F] [--rules R,...] [--action Deny|Warn|Audit] [--namespace-selector SEL] [--include-system-namespaces] [--dry-run] [--yes]',
    'policy status --context C [--kubeconfig F] [--format text|json]',
    'policy remove --context C [--kubeconfig F] [--dry-run] [--yes]',
  ],
  intro: `The rules enforced in the cluster itself: ValidatingAdmissionPolicies and their bindings
(admissionregistration.k8s.io/v1, Kubernetes 1.30 and later), generated from the rules that an
admission policy can decide exactly ("kube-windows rules" says which, and why not for the others),
for Pods, Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, ReplicationControllers,
CronJobs and (OpenShift) DeploymentConfigs. Roll out Audit, then Warn, then Deny.`,
  actions: {
    export: 'print the policies and bindings (YAML, or JSON as a List) for kubectl, GitOps or Helm',
    apply:
      'install them, or upgrade an older set in place: a server-side dry run and a diff first, then\nserver-side apply with the field manager kube-windows (asks first)',
    status:
      "the installed policies: action, rules, version against this CLI's, and what the API\nserver reports about them",
    remove: "delete kube-windows's policies and bindings (only those it manages; asks first)",
  },
  options: {
    ...HELP_OPTION,
    rules: {
      type: 'string',
      multiple: true,
      value: 'R[,R]',
      actions: POLICY_CHOICE,
      help: 'only these rules (repeatable; default: every rule enforceable at admission)',
    },
    action: {
      type: 'string',
      value: 'Deny|Warn|Audit',
      actions: POLICY_CHOICE,
      help: 'what the API server does with an object that breaks a rule: refuse it,\nwarn the client, or write an audit annotation (default Warn)',
    },
    'namespace-selector': {
      type: 'string',
      value: 'SEL',
      actions: POLICY_CHOICE,
      help: 'only namespaces with these labels, as kubectl -l writes them\n(env=prod,tier in (a,b),!legacy)',
    },
    'include-system-namespaces': {
      type: 'boolean',
      actions: POLICY_CHOICE,
      help: 'also enforce in kube-system, kube-public, kube-node-lease, openshift-* and\nthe CNI and CSI namespaces (excluded by default)',
    },
    openshift: {
      type: 'boolean',
      actions: ['export'],
      help: 'add the DeploymentConfig policy (apply decides it from the cluster)',
    },
    format: {
      type: 'string',
      value: 'yaml|json|text',
      actions: ['export', 'status'],
      help: 'export: yaml (default) or json; status: text (default) or json',
    },
    'dry-run': {
      type: 'boolean',
      actions: ['apply', 'remove'],
      help: 'show what would change (after a server-side dry run) and change nothing',
    },
    ...forActions(YES_OPTION, ['apply', 'remove']),
    ...forActions(CLUSTER_OPTIONS, POLICY_CLUSTER),
  },
});
