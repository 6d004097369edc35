// Generates N Windows workloads whose shapes vary from document to document, the way a real
// repository's do: six workload kinds, one to three containers, init containers, HTTP, TCP, exec
// and gRPC probes, one to four ports, requests with or without limits, windowsOptions (an account,
// gMSA, both), env and envFrom, volumes, affinity or a node selector, flow and block style, quoted
// and plain scalars, comments. `findings: 'dense'` gives every document at least one finding (a
// different rule from one document to the next); 'sparse', every tenth. Deterministic: the same N
// gives the same file.
export function generateVaried(n, { findings = 'dense' } = {}) {
  const rnd = lcg(27);
  const docs = [];
  for (let i = 0; i < n; i++)
    docs.push(workload(i, rnd, findings === 'dense' || (findings === 'sparse' && i % 10 === 0)));
  return docs.join('---\n');
}

function lcg(seed) {
  let s = seed >>> 0;
  return (k) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % k;
  };
}

const KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod'];
const IMAGES = [
  'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
  'mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022',
  'mcr.microsoft.com/windows/nanoserver:ltsc2022',
  'mcr.microsoft.com/dotnet/runtime:8.0-nanoserver-ltsc2022',
  'registry.example.com/team/orders-api:2.14.3',
  'registry.example.com/team/worker@sha256:3f1d2a9c0e8b7a6d5c4b3a29181706f5e4d3c2b1a09f8e7d6c5b4a3928170605',
];
// What makes the document's finding, one per document in turn.
const FAULTS = [
  'readOnlyRootFilesystem', // WIN002
  'tolerateLowercaseOnly', // WIN073 with a fix
  'shProbe', // WIN060
  'runAsUserPod', // WIN001
  'noLimits', // WIN062
  'memoryEmptyDir', // WIN051
  'oldImage', // WIN081
  'capabilities', // WIN002 on an init container
  'mountPropagation', // WIN053
  'noNodeSelector', // WIN070
];

function workload(i, rnd, bad) {
  const kind = KINDS[i % KINDS.length];
  const fault = bad ? FAULTS[i % FAULTS.length] : undefined;
  const name = `svc-${i}-${['api', 'web', 'jobs', 'cache', 'gateway'][rnd(5)]}`;
  const labels = [`app: ${name}`, `tier: ${['frontend', 'backend', 'batch'][rnd(3)]}`];
  if (rnd(2)) labels.push(`app.kubernetes.io/version: "${1 + rnd(9)}.${rnd(20)}.${rnd(10)}"`);
  const apiVersion = kind === 'Pod' ? 'v1' : kind === 'Job' || kind === 'CronJob' ? 'batch/v1' : 'apps/v1';
  const out = [`apiVersion: ${apiVersion}`, `kind: ${kind}`, 'metadata:', `  name: ${name}`];
  out.push(`  namespace: ${rnd(2) ? `team-${i % 23}` : `"team-${i % 23}"`}`, '  labels:', ...indent(labels, 4));
  if (rnd(4) === 0)
    out.push(
      `  # owned by team ${i % 23}; see the runbook`,
      '  annotations:',
      `    deployment.kubernetes.io/revision: "${1 + rnd(40)}"`,
    );
  const pod = podSpec(i, rnd, fault, kind);
  if (kind === 'Pod') return [...out, 'spec:', ...indent(pod, 2), ''].join('\n');
  const template = ['template:', '  metadata:', '    labels:', ...indent(labels, 6)];
  if (rnd(3) === 0)
    template.push('    annotations:', '      prometheus.io/scrape: "true"', '      prometheus.io/port: "9102"');
  template.push('  spec:', ...indent(pod, 4));
  out.push('spec:');
  if (kind === 'Job') out.push(`  backoffLimit: ${rnd(6)}`, ...indent(template, 2));
  else if (kind === 'CronJob')
    out.push(
      `  schedule: "${rnd(60)} ${rnd(24)} * * *"`,
      '  concurrencyPolicy: Forbid',
      '  jobTemplate:',
      '    spec:',
      ...indent(template, 6),
    );
  else {
    if (kind === 'StatefulSet') out.push(`  serviceName: ${name}`, `  replicas: ${1 + rnd(5)}`);
    else if (kind === 'Deployment')
      out.push(
        `  replicas: ${1 + rnd(5)}`,
        '  strategy:',
        '    type: RollingUpdate',
        '    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}',
      );
    else out.push('  updateStrategy:', '    type: RollingUpdate');
    out.push('  selector:', '    matchLabels:', `      app: ${name}`, ...indent(template, 2));
  }
  return [...out, ''].join('\n');
}

function podSpec(i, rnd, fault, kind) {
  const lines = ['os:', '  name: windows'];
  if (fault === 'noNodeSelector') {
    // Nothing pins the pod to Windows nodes.
  } else if (rnd(3) === 0)
    lines.push(
      'affinity:',
      '  nodeAffinity:',
      '    requiredDuringSchedulingIgnoredDuringExecution:',
      '      nodeSelectorTerms:',
      '        - matchExpressions:',
      '            - key: kubernetes.io/os',
      '              operator: In',
      '              values: ["windows"]',
    );
  else {
    lines.push('nodeSelector:', '  kubernetes.io/os: windows');
    if (rnd(2)) lines.push('  node.kubernetes.io/windows-build: "10.0.20348"');
  }
  if (fault === 'tolerateLowercaseOnly')
    lines.push('tolerations:', '  - key: os', '    operator: Equal', '    value: windows', '    effect: NoSchedule');
  else if (rnd(2)) lines.push('tolerations:', '  - key: os', '    operator: Exists', '    effect: NoSchedule');
  else lines.push('tolerations: [{key: os, operator: Exists, effect: NoSchedule}]');
  if (kind === 'Job' || kind === 'CronJob') lines.push(`restartPolicy: ${rnd(2) ? 'Never' : 'OnFailure'}`);
  if (rnd(3) === 0) lines.push(`serviceAccountName: sa-${i % 31}`);
  if (rnd(4) === 0) lines.push(`terminationGracePeriodSeconds: ${15 + rnd(60)}`);
  if (fault === 'runAsUserPod') lines.push('securityContext:', '  runAsUser: 1000');
  else if (rnd(2))
    lines.push(
      'securityContext:',
      '  windowsOptions:',
      `    runAsUserName: "${rnd(2) ? 'ContainerUser' : 'NT AUTHORITY\\\\NETWORK SERVICE'}"`,
    );
  const containers = rnd(4) === 0 ? 2 : 1;
  if (rnd(4) === 0 || fault === 'capabilities') {
    lines.push('initContainers:');
    lines.push(
      ...indent(container(i, rnd, 'init', fault === 'capabilities' ? 'capabilities' : undefined, true), 2, '- '),
    );
  }
  lines.push('containers:');
  for (let c = 0; c < containers; c++)
    lines.push(
      ...indent(container(i, rnd, c === 0 ? 'main' : `side${c}`, c === 0 ? fault : undefined, false), 2, '- '),
    );
  const volumes = [];
  if (fault === 'memoryEmptyDir') volumes.push('- name: scratch', '  emptyDir:', '    medium: Memory');
  else if (rnd(2)) volumes.push('- name: scratch', '  emptyDir: {}');
  if (rnd(2)) volumes.push('- name: config', '  configMap:', `    name: cfg-${i % 41}`);
  if (fault === 'mountPropagation' && volumes.length === 0) volumes.push('- name: scratch', '  emptyDir: {}');
  if (volumes.length > 0) lines.push('volumes:', ...indent(volumes, 2));
  return lines;
}

function container(i, rnd, name, fault, init) {
  const image = fault === 'oldImage' ? 'mcr.microsoft.com/windows/servercore:1909' : IMAGES[rnd(IMAGES.length)];
  const lines = [`name: ${name}`, `image: ${rnd(2) ? image : `"${image}"`}`];
  if (rnd(3) === 0) lines.push(`imagePullPolicy: ${['Always', 'IfNotPresent'][rnd(2)]}`);
  if (init || rnd(4) === 0)
    lines.push(
      rnd(2) ? 'command: ["powershell.exe", "-NoProfile", "-Command"]' : 'command:\n  - cmd.exe\n  - /c',
      rnd(2)
        ? `args: ["Write-Host starting ${i}"]`
        : `args:\n  - |\n    Write-Host "warming up ${i}"\n    Start-Sleep -Seconds ${rnd(10)}`,
    );
  const ports = init ? 0 : rnd(4);
  if (ports > 0) {
    lines.push('ports:');
    for (let p = 0; p < ports; p++)
      lines.push(
        rnd(2)
          ? `  - containerPort: ${8000 + p}\n    name: p${p}\n    protocol: ${rnd(4) ? 'TCP' : 'UDP'}`
          : `  - {containerPort: ${8000 + p}, protocol: TCP}`,
      );
  }
  if (rnd(2)) {
    lines.push('env:');
    for (let e = 0, n = 1 + rnd(3); e < n; e++)
      lines.push(
        e === 1
          ? `  - name: POD_NAME\n    valueFrom:\n      fieldRef:\n        fieldPath: metadata.name`
          : `  - name: SETTING_${e}\n    value: "${rnd(1000)}"`,
      );
  }
  if (rnd(5) === 0) lines.push('envFrom:', `  - configMapRef:\n      name: cfg-${i % 41}`);
  if (fault !== 'noLimits') {
    const cpu = ['100m', '250m', '500m', '1', '"2"'][rnd(5)];
    const mem = ['128Mi', '512Mi', '1Gi', '2Gi'][rnd(4)];
    lines.push(
      rnd(3) === 0
        ? `resources: {requests: {cpu: ${cpu}, memory: ${mem}}, limits: {cpu: ${cpu}, memory: ${mem}}}`
        : `resources:\n  requests:\n    cpu: ${cpu}\n    memory: ${mem}\n  limits:\n    cpu: ${cpu}\n    memory: ${mem}`,
    );
  }
  if (!init) lines.push(...probes(rnd, fault === 'shProbe'));
  const sc = [];
  if (fault === 'readOnlyRootFilesystem') sc.push('readOnlyRootFilesystem: true');
  if (fault === 'capabilities') sc.push('capabilities:', '  drop: ["ALL"]');
  const wo = rnd(4);
  if (wo === 1) sc.push('windowsOptions:', '  runAsUserName: ContainerAdministrator');
  else if (wo === 2) sc.push('windowsOptions:', `  gmsaCredentialSpecName: gmsa-${i % 7}`);
  else if (wo === 3)
    sc.push('windowsOptions:', `  gmsaCredentialSpecName: gmsa-${i % 7}`, '  runAsUserName: ContainerUser');
  if (sc.length > 0) lines.push('securityContext:', ...indent(sc, 2));
  if (fault === 'mountPropagation')
    lines.push(
      'volumeMounts:',
      '  - name: scratch',
      '    mountPath: C:\\scratch',
      '    mountPropagation: HostToContainer',
    );
  else if (rnd(2)) lines.push('volumeMounts:', `  - name: scratch\n    mountPath: "C:\\\\data\\\\${name}"`);
  return lines.flatMap((l) => l.split('\n'));
}

function probes(rnd, sh) {
  const out = [];
  const kinds = ['livenessProbe', 'readinessProbe', 'startupProbe'].filter(() => rnd(3) !== 0);
  if (sh && kinds.length === 0) kinds.push('livenessProbe');
  for (const [k, kind] of kinds.entries()) {
    out.push(`${kind}:`);
    const how = sh && k === 0 ? 4 : rnd(4);
    if (how === 0) out.push('  httpGet:', `    path: /healthz`, `    port: ${8000 + rnd(3)}`);
    else if (how === 1) out.push('  tcpSocket:', `    port: ${8000 + rnd(3)}`);
    else if (how === 2) out.push('  exec:', '    command: ["powershell", "-Command", "exit 0"]');
    else if (how === 3) out.push('  grpc:', `    port: ${9000 + rnd(3)}`);
    else out.push('  exec:', '    command: ["sh", "-c", "curl -f http://localhost/healthz"]');
    out.push(`  periodSeconds: ${5 + rnd(25)}`);
    if (rnd(2)) out.push(`  initialDelaySeconds: ${rnd(30)}`, `  failureThreshold: ${1 + rnd(5)}`);
  }
  return out;
}

/** Lines indented by `n` spaces; with `first`, the first line gets it as a list marker. */
function indent(lines, n, first) {
  const pad = ' '.repeat(n);
  if (!first) return lines.map((l) => pad + l);
  return lines.map((l, k) => (k === 0 ? pad + first + l : pad + ' '.repeat(first.length) + l));
}
