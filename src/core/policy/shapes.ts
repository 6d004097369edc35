// Where each kind keeps its pod spec, as the admission policies match it: one policy per shape, because
// the API server type-checks a policy's CEL against every kind it matches, and a field path must exist
// in each of them.
import { POD_SPEC_PATHS } from '../manifest/workloads';

export interface PolicyShape {
  /** The policy's name suffix: kube-windows-<name>. */
  name: string;
  /** What the policy's rules are for, in the CLI's words. */
  what: string;
  /** The kinds and resources matched: API group, version, resource plural, kind. */
  resources: { group: string; version: string; resource: string; kind: string }[];
  /** Only on OpenShift (DeploymentConfig). */
  openshift?: boolean;
}

export const POLICY_SHAPES: PolicyShape[] = [
  {
    name: 'pods',
    what: 'Pods',
    resources: [{ group: '', version: 'v1', resource: 'pods', kind: 'Pod' }],
  },
  {
    name: 'workloads',
    what: 'Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs and ReplicationControllers',
    resources: [
      { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' },
      { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' },
      { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet' },
      { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet' },
      { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' },
      { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController' },
    ],
  },
  {
    name: 'cronjobs',
    what: 'CronJobs',
    resources: [{ group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob' }],
  },
  {
    name: 'deploymentconfigs',
    what: 'DeploymentConfigs (OpenShift)',
    resources: [{ group: 'apps.openshift.io', version: 'v1', resource: 'deploymentconfigs', kind: 'DeploymentConfig' }],
    openshift: true,
  },
];

/** The pod spec's path in the shape's objects (`spec.template.spec`): the same for every kind it matches. */
export function specPathOf(shape: PolicyShape): string[] {
  return POD_SPEC_PATHS[shape.resources[0].kind].map(String);
}
