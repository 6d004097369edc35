// The kinds the exact-API validator validates (validator/main.go's table): Pods and every kind
// with a pod template, by API group. Other documents are not sent to it.

const VALIDATED: Record<string, readonly string[]> = {
  '': ['Pod', 'PodTemplate', 'ReplicationController'],
  apps: ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'],
  batch: ['Job', 'CronJob'],
};

/** Whether a document's value is an object of a kind the validator validates (any version of its group). */
export function validatedKind(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return false;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return VALIDATED[group]?.includes(kind) === true;
}
