// The release sweep's probes (test/apiserver-suites/release-sweep.test.ts), generated from an API
// server's own OpenAPI v3 document for core/v1: one probe per field of PodSpec, PodSecurityContext,
// SecurityContext and Container (and of the nested types whose fields Windows validation reads), per
// sample value: both booleans, every enum value, otherwise one valid value. A field the sample tables
// below do not know gets a value built from its schema; the suite then tells whether the server
// takes it. Test-only.

/** The part of an OpenAPI v3 schema the sweep reads. */
export interface Schema {
  type?: string;
  $ref?: string;
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  additionalProperties?: Schema | boolean;
  format?: string;
  'x-kubernetes-int-or-string'?: boolean;
}

export interface OpenApiDocument {
  components?: { schemas?: Record<string, Schema> };
}

export type PodSpecObject = Record<string, unknown> & { containers: Record<string, unknown>[] };

export interface Probe {
  /**
   * What the Linux control needs on top for the value to be valid there (Bidirectional propagation
   * needs a privileged container, which no Windows pod may have): the Windows pods go without it.
   */
  linuxControl?(spec: PodSpecObject): void;
  /** The field as the API server names it, under a Pod: `spec.containers[0].lifecycle.stopSignal`. */
  field: string;
  /** The schema type that declares it (`Lifecycle`), for the report. */
  owner: string;
  value: unknown;
  /** Sets the field (and whatever it needs to be valid: a volume for a mount, hostNetwork for hostProcess) on a copy of a pod spec. */
  apply(spec: PodSpecObject): void;
}

const CORE = 'io.k8s.api.core.v1.';

/** Where the four swept types sit in a pod spec; containers[0] stands for every container. */
const ROOTS: { type: string; at: string[] }[] = [
  { type: 'PodSpec', at: [] },
  { type: 'PodSecurityContext', at: ['securityContext'] },
  { type: 'SecurityContext', at: ['containers', '0', 'securityContext'] },
  { type: 'Container', at: ['containers', '0'] },
];

/**
 * Nested types whose fields are swept one by one (at the first place they occur under a root):
 * Windows validation reads inside them (windowsOptions, a mount's propagation, a stop signal, a
 * resize policy, resources, host ports, capabilities).
 */
export const NESTED: Record<string, string> = {
  WindowsSecurityContextOptions: 'hostProcess, runAsUserName and gMSA are validated for Windows pods',
  Lifecycle: 'stopSignal is validated against spec.os (KEP-4960)',
  VolumeMount: 'Bidirectional propagation needs privileged, which Windows pods may not set',
  ResourceRequirements: 'pod-level resources are refused for Windows pods (1.34+)',
  ContainerPort: 'hostPort with and without hostNetwork',
  ContainerResizePolicy: 'in-place resize is refused for Windows pods',
  Capabilities: 'capabilities are refused for Windows pods, even empty',
};

/**
 * Nested types swept only as a whole (their field above is probed with a valid value): Windows
 * validation reads none of their fields. A type neither here nor in NESTED fails the suite, so a
 * type a future release adds gets a decision.
 */
export const OPAQUE: Record<string, string> = {
  Affinity: 'scheduling only',
  Container: 'swept as the Container root at containers[0]',
  EphemeralContainer: 'cannot be set on create (the ephemeralcontainers subresource adds them)',
  EnvVar: 'environment only',
  EvictionResponder: 'eviction requests only (1.37, EvictionRequestAPI)',
  EnvFromSource: 'environment only',
  HostAlias: 'the hosts file only',
  LocalObjectReference: 'a name only',
  PodDNSConfig: 'DNS only',
  PodOS: 'the os field itself decides Windows validation (WIN004 is proven in rule-messages)',
  PodReadinessGate: 'readiness only',
  PodResourceClaim: 'DRA claims; validated the same for every OS',
  PodSchedulingGate: 'scheduling only',
  PodSchedulingGroup: 'workload-aware scheduling only (1.37)',
  Probe: 'probe handlers are validated the same for every OS',
  LifecycleHandler: 'postStart and preStop handlers are validated the same for every OS',
  ResourceClaim: 'DRA claims; validated the same for every OS',
  ContainerRestartRule: 'restart rules are validated the same for every OS',
  SeccompProfile: 'the whole seccompProfile is refused for Windows pods',
  SELinuxOptions: 'the whole seLinuxOptions is refused for Windows pods',
  AppArmorProfile: 'the whole appArmorProfile is refused for Windows pods',
  SecurityContext: 'swept as the SecurityContext root',
  PodSecurityContext: 'swept as the PodSecurityContext root',
  Sysctl: 'the whole sysctls list is refused for Windows pods',
  Toleration: 'scheduling only',
  TopologySpreadConstraint: 'scheduling only',
  Volume: 'volume sources are validated the same for every OS',
  VolumeDevice: 'a device path only (WIN052 is a warning: the API accepts it)',
  WorkloadReference: 'gang scheduling only',
};

export const SWEEP_PRIORITY_CLASS = 'kube-windows-sweep';
/** The suite creates this RuntimeClass (handler runhcs-wcow-process, this overhead): RuntimeClass admission checks a pod's overhead against it. */
export const SWEEP_RUNTIME_CLASS = 'kube-windows-sweep';
export const SWEEP_RUNTIME_OVERHEAD = { cpu: '100m' };

const VOLUME = { name: 'data', emptyDir: {} };
const withVolume = (spec: PodSpecObject) => {
  spec.volumes = [VOLUME];
};

/**
 * Valid values for fields whose schema alone does not make one (`Type.field`), with what else the
 * pod needs for the value to be valid. Booleans and enums need no entry: every value is tried.
 */
const SAMPLES: Record<string, { value: unknown; needs?: (spec: PodSpecObject) => void }[]> = {
  'PodSpec.activeDeadlineSeconds': [{ value: 600 }],
  'PodSpec.affinity': [
    {
      value: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['windows'] }] },
            ],
          },
        },
      },
    },
  ],
  'PodSpec.containers': [{ value: [{ name: 'app', image: 'mcr.microsoft.com/windows/servercore:ltsc2022' }] }],
  'PodSpec.dnsConfig': [
    { value: { nameservers: ['10.0.0.10'], searches: ['example.com'], options: [{ name: 'ndots', value: '2' }] } },
  ],
  'PodSpec.evictionResponders': [{ value: [{ name: 'example.com/drainer', priority: 10000 }] }],
  'PodSpec.schedulingGroup': [{ value: { podGroupName: 'workers' } }],
  'PodSpec.hostAliases': [{ value: [{ ip: '10.1.2.3', hostnames: ['db.example.com'] }] }],
  'PodSpec.hostname': [{ value: 'web-0' }],
  'PodSpec.hostnameOverride': [{ value: 'web-override' }],
  'PodSpec.imagePullSecrets': [{ value: [{ name: 'registry' }] }],
  'PodSpec.initContainers': [{ value: [{ name: 'setup', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' }] }],
  'PodSpec.nodeName': [{ value: 'win-node-1' }],
  'PodSpec.nodeSelector': [
    { value: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' } },
  ],
  'PodSpec.overhead': [
    { value: SWEEP_RUNTIME_OVERHEAD, needs: (spec) => (spec.runtimeClassName = SWEEP_RUNTIME_CLASS) },
  ],
  // The Priority admission plugin refuses a policy other than its class's (PreemptLowerPriority by default).
  'PodSpec.preemptionPolicy': [
    { value: 'PreemptLowerPriority', needs: (spec) => (spec.priorityClassName = SWEEP_PRIORITY_CLASS) },
  ],
  // The suite creates this PriorityClass (value 1000): the Priority admission plugin sets spec.priority from it.
  'PodSpec.priorityClassName': [{ value: SWEEP_PRIORITY_CLASS }],
  'PodSpec.priority': [{ value: 1000, needs: (spec) => (spec.priorityClassName = SWEEP_PRIORITY_CLASS) }],
  'PodSpec.readinessGates': [{ value: [{ conditionType: 'example.com/ready' }] }],
  'PodSpec.resourceClaims': [{ value: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] }],
  'PodSpec.runtimeClassName': [{ value: SWEEP_RUNTIME_CLASS }],
  'PodSpec.schedulerName': [{ value: 'default-scheduler' }],
  'PodSpec.schedulingGates': [{ value: [{ name: 'example.com/gate' }] }],
  'PodSpec.serviceAccount': [{ value: 'default' }],
  'PodSpec.serviceAccountName': [{ value: 'default' }],
  'PodSpec.subdomain': [{ value: 'web' }],
  'PodSpec.terminationGracePeriodSeconds': [{ value: 30 }],
  'PodSpec.tolerations': [{ value: [{ key: 'os', operator: 'Equal', value: 'Windows', effect: 'NoSchedule' }] }],
  'PodSpec.topologySpreadConstraints': [
    {
      value: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { app: 'sweep' } },
        },
      ],
    },
  ],
  'PodSpec.volumes': [{ value: [VOLUME] }],
  'PodSpec.workloadRef': [{ value: { name: 'training', podGroup: 'workers' } }],
  'PodSecurityContext.appArmorProfile': [{ value: { type: 'RuntimeDefault' } }],
  'PodSecurityContext.fsGroup': [{ value: 2000 }],
  'PodSecurityContext.runAsGroup': [{ value: 3000 }],
  'PodSecurityContext.runAsUser': [{ value: 1000 }],
  'PodSecurityContext.seLinuxChangePolicy': [{ value: 'Recursive' }, { value: 'MountOption' }],
  'PodSecurityContext.seLinuxOptions': [{ value: { level: 's0:c1,c2' } }],
  'PodSecurityContext.seccompProfile': [{ value: { type: 'RuntimeDefault' } }],
  'PodSecurityContext.supplementalGroups': [{ value: [4000] }, { value: [] }],
  'PodSecurityContext.sysctls': [
    { value: [{ name: 'net.ipv4.ip_local_port_range', value: '1024 65535' }] },
    { value: [] },
  ],
  'PodSecurityContext.windowsOptions': [{ value: { runAsUserName: 'ContainerUser' } }],
  'SecurityContext.appArmorProfile': [{ value: { type: 'RuntimeDefault' } }],
  'SecurityContext.capabilities': [{ value: { drop: ['ALL'] } }, { value: {} }],
  'SecurityContext.runAsGroup': [{ value: 3000 }],
  'SecurityContext.runAsUser': [{ value: 1000 }],
  'SecurityContext.seLinuxOptions': [{ value: { level: 's0:c1,c2' } }],
  'SecurityContext.seccompProfile': [{ value: { type: 'RuntimeDefault' } }],
  'SecurityContext.windowsOptions': [{ value: { runAsUserName: 'ContainerUser' } }],
  'Container.args': [{ value: ['/c', 'echo ready'] }],
  'Container.command': [{ value: ['cmd.exe'] }],
  'Container.env': [{ value: [{ name: 'MODE', value: 'sweep' }] }],
  'Container.envFrom': [{ value: [{ configMapRef: { name: 'settings' } }] }],
  'Container.image': [{ value: 'mcr.microsoft.com/windows/servercore:ltsc2022' }],
  'Container.lifecycle': [{ value: { preStop: { exec: { command: ['cmd.exe', '/c', 'echo bye'] } } } }],
  'Container.livenessProbe': [{ value: { tcpSocket: { port: 8080 }, periodSeconds: 10 } }],
  'Container.name': [{ value: 'web' }],
  'Container.ports': [{ value: [{ containerPort: 8080, protocol: 'TCP' }] }],
  'Container.readinessProbe': [{ value: { httpGet: { path: '/healthz', port: 8080 } } }],
  'Container.resizePolicy': [{ value: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }],
  'Container.resources': [{ value: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } } }],
  'Container.restartPolicy': [{ value: 'Always' }, { value: 'OnFailure' }, { value: 'Never' }],
  'Container.restartPolicyRules': [
    {
      value: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }],
      needs: (spec) => {
        spec.containers[0].restartPolicy = 'Never';
        spec.restartPolicy = 'Never';
      },
    },
  ],
  'Container.startupProbe': [{ value: { exec: { command: ['cmd.exe', '/c', 'exit 0'] }, failureThreshold: 30 } }],
  'Container.stdinOnce': [{ value: true, needs: (spec) => (spec.containers[0].stdin = true) }, { value: false }],
  'Container.terminationMessagePath': [{ value: 'C:\\dev\\termination-log' }],
  'Container.tty': [{ value: true, needs: (spec) => (spec.containers[0].stdin = true) }, { value: false }],
  'Container.volumeDevices': [
    {
      value: [{ name: 'block', devicePath: '\\\\.\\PhysicalDrive1' }],
      needs: (spec) => (spec.volumes = [{ name: 'block', persistentVolumeClaim: { claimName: 'block' } }]),
    },
  ],
  'Container.volumeMounts': [{ value: [{ name: 'data', mountPath: 'C:\\data' }], needs: withVolume }],
  'Container.workingDir': [{ value: 'C:\\app' }],
  'WindowsSecurityContextOptions.gmsaCredentialSpecName': [{ value: 'webapp1' }],
  'WindowsSecurityContextOptions.gmsaCredentialSpec': [{ value: '{"CmsPlugins":["ActiveDirectory"]}' }],
  'WindowsSecurityContextOptions.runAsUserName': [{ value: 'ContainerUser' }],
  'Lifecycle.postStart': [{ value: { exec: { command: ['cmd.exe', '/c', 'echo started'] } } }],
  'Lifecycle.preStop': [{ value: { exec: { command: ['cmd.exe', '/c', 'echo bye'] } } }],
  'VolumeMount.name': [{ value: 'data', needs: withVolume }],
  'VolumeMount.mountPath': [{ value: 'C:\\data', needs: withVolume }],
  'VolumeMount.bindMountOptions': [{ value: ['nosuid'], needs: withVolume }],
  'VolumeMount.recursiveReadOnly': [{ value: 'Disabled' }, { value: 'IfPossible' }, { value: 'Enabled' }],
  'VolumeMount.subPath': [{ value: 'logs', needs: withVolume }],
  'VolumeMount.subPathExpr': [{ value: 'logs-$(POD_NAME)', needs: withVolume }],
  'ResourceRequirements.limits': [{ value: { cpu: '1', memory: '1Gi' } }],
  'ResourceRequirements.requests': [{ value: { cpu: '500m', memory: '512Mi' } }],
  'ResourceRequirements.claims': [
    { value: [{ name: 'gpu' }], needs: (spec) => (spec.resourceClaims = [{ name: 'gpu', resourceClaimName: 'gpu' }]) },
  ],
  'ContainerPort.containerPort': [{ value: 8080 }],
  'ContainerPort.hostIP': [{ value: '10.0.0.5', needs: undefined }],
  'ContainerPort.hostPort': [{ value: 8080 }],
  'ContainerPort.name': [{ value: 'http' }],
  'ContainerResizePolicy.resourceName': [{ value: 'memory' }],
  'ContainerResizePolicy.restartPolicy': [{ value: 'NotRequired' }, { value: 'RestartContainer' }],
  'Capabilities.add': [{ value: ['NET_ADMIN'] }],
  'Capabilities.drop': [{ value: ['ALL'] }],
};

/**
 * What a nested type needs around a swept field so that the value is valid: its required siblings
 * (a mount's name and path), and for a few whole-pod companions (hostProcess needs hostNetwork).
 */
const BASES: Record<string, Record<string, unknown>> = {
  VolumeMount: { name: 'data', mountPath: 'C:\\data' },
  ContainerPort: { containerPort: 8080 },
  ContainerResizePolicy: { resourceName: 'cpu', restartPolicy: 'NotRequired' },
};

/** Fields whose value makes the pod need more than the field (beyond SAMPLES' own `needs`). */
const COMPANIONS: Record<string, (spec: PodSpecObject, value: unknown) => void> = {
  'WindowsSecurityContextOptions.hostProcess': (spec, value) => {
    if (value !== true) return;
    spec.hostNetwork = true;
    // The same value at pod level makes every container HostProcess (the API requires all or none).
    spec.securityContext = { ...(spec.securityContext as object), windowsOptions: { hostProcess: true } };
    (spec.securityContext as { windowsOptions: Record<string, unknown> }).windowsOptions.runAsUserName =
      'NT AUTHORITY\\SYSTEM';
  },
  'VolumeMount.mountPropagation': (spec) => withVolume(spec),
  'PodSpec.dnsPolicy': (spec, value) => {
    if (value === 'None') spec.dnsConfig = { nameservers: ['10.0.0.10'] };
  },
  'SecurityContext.procMount': (spec, value) => {
    if (value === 'Unmasked') spec.hostUsers = false;
  },
  'VolumeMount.readOnly': (spec) => withVolume(spec),
  'VolumeMount.recursiveReadOnly': (spec, value) => {
    withVolume(spec);
    // Enabled/IfPossible need a read-only mount with no propagation (or None).
    if (value !== 'Disabled') {
      const m = (spec.containers[0].volumeMounts as Record<string, unknown>[])[0];
      m.readOnly = true;
    }
  },
  'ContainerPort.hostIP': (spec) => {
    const p = (spec.containers[0].ports as Record<string, unknown>[])[0];
    p.hostPort = 8080;
  },
  'PodSpec.hostNetwork': (spec) => {
    spec.containers[0].ports = [{ containerPort: 8080 }];
  },
  'Container.stdinOnce': (spec) => (spec.containers[0].stdin = true),
};

/** What only the Linux control adds (see Probe.linuxControl). */
const LINUX_CONTROL: Record<string, (spec: PodSpecObject, value: unknown) => void> = {
  'VolumeMount.mountPropagation': (spec, value) => {
    if (value === 'Bidirectional') spec.containers[0].securityContext = { privileged: true };
  },
};

function deref(doc: OpenApiDocument, s: Schema | undefined): { name?: string; schema?: Schema } {
  if (!s) return {};
  if (s.$ref) {
    const full = s.$ref.replace('#/components/schemas/', '');
    return { name: full.startsWith(CORE) ? full.slice(CORE.length) : full, schema: doc.components?.schemas?.[full] };
  }
  if (s.allOf?.length === 1) return deref(doc, s.allOf[0]);
  return { schema: s };
}

export function typeSchema(doc: OpenApiDocument, name: string): Schema {
  const s = doc.components?.schemas?.[CORE + name];
  if (!s?.properties) throw new Error(`the server's OpenAPI document has no ${CORE + name} with properties`);
  return s;
}

/** A value built from the schema alone: required fields filled, placeholder scalars. */
export function valueFromSchema(doc: OpenApiDocument, s: Schema | undefined, depth = 0): unknown {
  const { schema } = deref(doc, s);
  if (!schema || depth > 6) return {};
  if (schema.enum?.length) return schema.enum[0];
  if (schema['x-kubernetes-int-or-string']) return 1;
  switch (schema.type) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return 1;
    case 'string':
      return 'sweep';
    case 'array':
      return [valueFromSchema(doc, schema.items, depth + 1)];
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    return { sweep: valueFromSchema(doc, schema.additionalProperties, depth + 1) };
  }
  const out: Record<string, unknown> = {};
  for (const r of schema.required ?? []) out[r] = valueFromSchema(doc, schema.properties?.[r], depth + 1);
  return out;
}

/** The sample values of one field: booleans both ways, every enum value, else the table or the schema. */
function samples(
  doc: OpenApiDocument,
  key: string,
  s: Schema,
): { value: unknown; needs?: (spec: PodSpecObject) => void }[] {
  if (SAMPLES[key]) return SAMPLES[key];
  const { schema } = deref(doc, s);
  if (schema?.type === 'boolean') return [{ value: true }, { value: false }];
  if (schema?.enum?.length) return schema.enum.map((value) => ({ value }));
  return [{ value: valueFromSchema(doc, s) }];
}

function setAt(spec: PodSpecObject, at: string[], value: unknown): void {
  let node: Record<string, unknown> | unknown[] = spec;
  for (let i = 0; i < at.length - 1; i++) {
    const k = at[i];
    const next = (node as Record<string, unknown>)[k];
    if (next === undefined || next === null) {
      const fresh = /^\d+$/.test(at[i + 1]) ? [] : {};
      (node as Record<string, unknown>)[k] = fresh;
      node = fresh;
    } else node = next as Record<string, unknown>;
  }
  (node as Record<string, unknown>)[at[at.length - 1]] = value;
}

/** `['containers','0','securityContext']` → `containers[0].securityContext`. */
export function fieldPath(at: string[]): string {
  return at.map((k, i) => (/^\d+$/.test(k) ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

export interface Sweep {
  probes: Probe[];
  /** Distinct fields swept (`spec.containers[0].lifecycle.stopSignal`). */
  fields: string[];
  /** Nested types reached that neither NESTED nor OPAQUE decides: the suite fails on these. */
  undecided: string[];
}

/** Every probe the server's OpenAPI document calls for. */
export function sweepProbes(doc: OpenApiDocument): Sweep {
  const probes: Probe[] = [];
  const fields = new Set<string>();
  const undecided = new Set<string>();
  const nestedDone = new Set<string>();

  const visit = (type: string, at: string[], base?: Record<string, unknown>) => {
    const schema = typeSchema(doc, type);
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const here = [...at, name];
      const field = `spec.${fieldPath(here)}`;
      const key = `${type}.${name}`;
      fields.add(field);
      for (const sample of samples(doc, key, prop)) {
        probes.push({
          field,
          owner: type,
          value: sample.value,
          apply(spec) {
            if (base) setAt(spec, at, structuredClone(base));
            sample.needs?.(spec);
            setAt(spec, here, structuredClone(sample.value));
            COMPANIONS[key]?.(spec, sample.value);
          },
          linuxControl: LINUX_CONTROL[key] ? (spec) => LINUX_CONTROL[key](spec, sample.value) : undefined,
        });
      }
      const { name: ref, schema: target } = deref(doc, prop.items ?? prop);
      if (!ref || !target?.properties || ROOTS.some((r) => r.type === ref)) continue;
      if (NESTED[ref]) {
        // One place per type and root level: containers[0].resources and spec.resources both count.
        const place = `${type}.${name}`;
        if (nestedDone.has(place)) continue;
        nestedDone.add(place);
        const nestedAt = prop.items || deref(doc, prop).schema?.type === 'array' ? [...here, '0'] : here;
        visit(ref, nestedAt, BASES[ref] ?? {});
      } else if (!OPAQUE[ref]) undecided.add(ref);
    }
  };
  for (const root of ROOTS) visit(root.type, root.at);
  return { probes, fields: [...fields], undecided: [...undecided].sort() };
}
