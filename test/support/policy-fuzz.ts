// Fuzzed workload documents for the admission parity suite: pods and every pod-template owner, placed
// on Windows (or not) by each kind of evidence the targeting reads, carrying the fields the enforceable
// rules are about, each with a seeded random choice, so that a run is repeatable. Test-only.
import { POD_SPEC_PATHS } from '../../src/core/manifest/workloads';

type Obj = Record<string, unknown>;

/** A small seeded generator (mulberry32): the same seed, the same documents. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const IMAGES = [
  'mcr.microsoft.com/windows/servercore:ltsc2022',
  'mcr.microsoft.com/windows/nanoserver:ltsc2019',
  'mcr.microsoft.com/windows:ltsc2019',
  'MCR.microsoft.com/Windows/ServerCore:LTSC2022',
  'mcr.microsoft.com/dotnet/framework/aspnet:4.8',
  'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0',
  'microsoft/nanoserver:1809',
  'docker.io/microsoft/iis',
  'example.com/app:1.0-windowsservercore-ltsc2022',
  'example.com/app:nanoserver',
  'example.com/app:ltsc2025_x',
  'example.com/app:Windows-amd64',
  'example.com/windows/app:1.0',
  'example.com/app:servercoreish',
  'registry.local:5000/app:windows',
  'example.com/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  'example.com/app:ltsc2022@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  'nginx:1.25',
  'busybox',
  'ghcr.io/org/tool:windows-1809',
  'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022',
  'example.com/tools/busybox:1.36-windows',
  'example.com/base/NanoServer-app:2.0',
  'nanoserver.example.com/app:1.0',
  'localhost:5000/busybox',
];

/** Exec commands: POSIX shells and paths, Windows shells, PowerShell by name and by path. */
const COMMANDS = [
  ['sh', '-c', 'echo ok'],
  ['/bin/bash'],
  [' BASH -c true'],
  ['/usr/local/bin/app'],
  ['cmd', '/c', 'echo ok'],
  ['powershell', '-Command', 'Get-Date'],
  ['C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\PowerShell.exe'],
  ['pwsh', '-c', 'Get-Date'],
  ['app.exe'],
  // What JavaScript's lowercase and whitespace make of them: the Kelvin sign lowercases to k, the long s
  // stays itself, a no-break space is whitespace.
  ['\u212Ash', '-c', 'true'],
  ['\u017Fh'],
  ['\u00A0sh -c true'],
  ['\u3000/BIN/sh'],
  ['C:\\Tools\\PWSH.EXE\u2003-File', 'x.ps1'],
];

const OS_LABELS = ['kubernetes.io/os', 'beta.kubernetes.io/os'];
const ARCH_LABELS = ['kubernetes.io/arch', 'beta.kubernetes.io/arch'];

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)];
}
const chance = (r: () => number, p: number) => r() < p;

function container(r: () => number, name: string): Obj {
  const c: Obj = { name, image: pick(r, IMAGES) };
  const sc: Obj = {};
  if (chance(r, 0.2)) sc.runAsUser = 1000;
  if (chance(r, 0.1)) sc.runAsGroup = 1000;
  if (chance(r, 0.15)) sc.privileged = chance(r, 0.7);
  if (chance(r, 0.1)) sc.readOnlyRootFilesystem = chance(r, 0.5);
  if (chance(r, 0.1)) sc.allowPrivilegeEscalation = false;
  if (chance(r, 0.1)) sc.capabilities = chance(r, 0.5) ? {} : { drop: ['ALL'] };
  if (chance(r, 0.05)) sc.seccompProfile = { type: 'RuntimeDefault' };
  if (chance(r, 0.05)) sc.procMount = 'Default';
  if (chance(r, 0.15)) {
    const w: Obj = {};
    if (chance(r, 0.5)) w.runAsUserName = pick(r, ['ContainerUser', 'ContainerAdministrator', 'NT AUTHORITY\\SYSTEM']);
    if (chance(r, 0.4)) w.hostProcess = chance(r, 0.5);
    if (chance(r, 0.2)) {
      w.gmsaCredentialSpec = '{"ActiveDirectoryConfig":{}}';
      if (chance(r, 0.4)) w.gmsaCredentialSpecName = 'webapp';
    }
    sc.windowsOptions = w;
  }
  if (Object.keys(sc).length > 0) c.securityContext = sc;
  if (chance(r, 0.15))
    c.resources = {
      limits: { memory: '1Gi', ...(chance(r, 0.6) ? { 'hugepages-2Mi': '2Mi' } : {}) },
      ...(chance(r, 0.3) ? { requests: { memory: '1Gi', 'hugepages-1Gi': '1Gi' } } : {}),
    };
  if (chance(r, 0.1)) c.volumeDevices = [{ name: 'data', devicePath: '/dev/xvda' }];
  if (chance(r, 0.08)) c.resizePolicy = [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }];
  if (chance(r, 0.12))
    c.volumeMounts = [
      {
        name: 'scratch',
        mountPath: 'C:\\scratch',
        mountPropagation: pick(r, ['None', 'HostToContainer', 'Bidirectional']),
      },
    ];
  if (chance(r, 0.2)) c.command = pick(r, COMMANDS);
  if (chance(r, 0.1)) c.livenessProbe = { exec: { command: pick(r, COMMANDS) } };
  return c;
}

function podSpec(r: () => number): Obj {
  const spec: Obj = {};
  // Where it goes: os.name, selectors, affinity, tolerations, nothing.
  if (chance(r, 0.2)) spec.os = { name: pick(r, ['windows', 'linux']) };
  if (chance(r, 0.45))
    spec.nodeSelector = {
      [pick(r, OS_LABELS)]: pick(r, ['windows', 'Windows', 'linux', 'WINDOWS']),
      ...(chance(r, 0.2) ? { 'node.kubernetes.io/windows-build': '10.0.20348' } : {}),
    };
  else if (chance(r, 0.1)) spec.nodeSelector = { 'node.kubernetes.io/windows-build': '10.0.17763' };
  if (chance(r, 0.12))
    spec.nodeSelector = {
      ...(spec.nodeSelector as Obj | undefined),
      [pick(r, ARCH_LABELS)]: pick(r, ['amd64', 'arm64', 'AMD64']),
    };
  if (chance(r, 0.25)) {
    const expr = () => {
      const key = chance(r, 0.7)
        ? pick(r, OS_LABELS)
        : chance(r, 0.5)
          ? pick(r, ARCH_LABELS)
          : 'node.kubernetes.io/windows-build';
      if (ARCH_LABELS.includes(key))
        return { key, operator: pick(r, ['In', 'NotIn']), values: pick(r, [['arm64'], ['amd64'], ['amd64', 'arm64']]) };
      const operator = pick(r, ['In', 'NotIn', 'In', 'Exists']);
      return operator === 'Exists'
        ? { key, operator }
        : { key, operator, values: chance(r, 0.5) ? [pick(r, ['windows', 'linux', 'Windows'])] : ['windows', 'linux'] };
    };
    const terms = Array.from({ length: chance(r, 0.75) ? 1 : 2 }, () => ({ matchExpressions: [expr()] }));
    spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } };
  }
  if (chance(r, 0.25))
    spec.tolerations = [
      {
        key: pick(r, ['os', 'node.kubernetes.io/os', 'sku', 'dedicated']),
        operator: 'Equal',
        value: pick(r, ['windows', 'Windows', 'linux']),
        effect: 'NoSchedule',
      },
    ];
  if (chance(r, 0.1)) spec.runtimeClassName = pick(r, ['windows-2022', 'runc']);
  // What the rules are about.
  const sc: Obj = {};
  if (chance(r, 0.12)) sc.runAsUser = 0;
  if (chance(r, 0.08)) sc.fsGroup = 2000;
  if (chance(r, 0.05)) sc.seccompProfile = { type: 'RuntimeDefault' };
  if (chance(r, 0.05)) sc.sysctls = [{ name: 'net.core.somaxconn', value: '1024' }];
  if (chance(r, 0.05)) sc.supplementalGroups = [1];
  if (chance(r, 0.15)) {
    const w: Obj = {};
    if (chance(r, 0.5)) w.hostProcess = chance(r, 0.6);
    if (chance(r, 0.5)) w.runAsUserName = 'NT AUTHORITY\\SYSTEM';
    if (chance(r, 0.15)) w.gmsaCredentialSpec = '{"ActiveDirectoryConfig":{}}';
    sc.windowsOptions = w;
  }
  if (Object.keys(sc).length > 0) spec.securityContext = sc;
  if (chance(r, 0.06)) spec.resources = { limits: { cpu: '2', memory: '2Gi' } };
  if (chance(r, 0.15)) spec.hostNetwork = true;
  if (chance(r, 0.05)) spec.hostPID = true;
  if (chance(r, 0.1)) spec.shareProcessNamespace = chance(r, 0.5);
  if (chance(r, 0.1)) spec.dnsPolicy = 'ClusterFirstWithHostNet';
  if (chance(r, 0.15))
    spec.volumes = [
      { name: 'cache', emptyDir: chance(r, 0.7) ? { medium: 'Memory' } : {} },
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
    ];
  // A HostProcess pod the API server accepts: host network, and (below) containers that do not say otherwise.
  const hostProcessPod = (sc.windowsOptions as Obj | undefined)?.hostProcess === true && chance(r, 0.8);
  if (hostProcessPod) spec.hostNetwork = true;
  spec.containers = Array.from({ length: chance(r, 0.3) ? 2 : 1 }, (_, i) => container(r, `c${i}`));
  if (chance(r, 0.15)) spec.initContainers = [container(r, 'init')];
  const all = [...(spec.containers as Obj[]), ...((spec.initContainers as Obj[] | undefined) ?? [])];
  if (all.some((c) => c.volumeMounts))
    spec.volumes = [...((spec.volumes as Obj[] | undefined) ?? []), { name: 'scratch', emptyDir: {} }];
  // Drawn last, so that the documents above stay what they were: runAsNonRoot (WIN014), NFS (WIN057),
  // preferred affinity on the OS labels (WIN071).
  if (chance(r, 0.2)) spec.securityContext = { ...(spec.securityContext as Obj | undefined), runAsNonRoot: true };
  for (const c of all) {
    if (!chance(r, 0.15)) continue;
    c.securityContext = { ...(c.securityContext as Obj | undefined), runAsNonRoot: chance(r, 0.7) };
  }
  if (chance(r, 0.08))
    spec.volumes = [
      ...((spec.volumes as Obj[] | undefined) ?? []),
      { name: 'share', nfs: { server: 'nfs.example.com', path: '/exports/share' } },
    ];
  if (chance(r, 0.1)) {
    const affinity = (spec.affinity as Obj | undefined) ?? {};
    const nodeAffinity = (affinity.nodeAffinity as Obj | undefined) ?? {};
    nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution = [
      {
        weight: 10,
        preference: {
          matchExpressions: [
            {
              key: pick(r, OS_LABELS),
              operator: pick(r, ['In', 'NotIn']),
              values: chance(r, 0.5) ? [pick(r, ['Windows', 'LINUX', 'windows'])] : ['Windows', 'linux'],
            },
          ],
        },
      },
    ];
    spec.affinity = { ...affinity, nodeAffinity };
  }
  return spec;
}

const KINDS: { apiVersion: string; kind: string }[] = [
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'apps/v1', kind: 'DaemonSet' },
  { apiVersion: 'batch/v1', kind: 'Job' },
  { apiVersion: 'batch/v1', kind: 'CronJob' },
  { apiVersion: 'v1', kind: 'ReplicationController' },
];

/** Wraps a pod spec in `kind`, with what the API server requires of each (selectors, labels, schedules). */
function wrap(kind: { apiVersion: string; kind: string }, name: string, spec: Obj): Obj {
  const labels = { app: name };
  const path = POD_SPEC_PATHS[kind.kind].map(String);
  if (kind.kind === 'Pod') return { ...kind, metadata: { name, labels }, spec };
  const restartPolicy = kind.kind === 'Job' || kind.kind === 'CronJob' ? { restartPolicy: 'Never' } : {};
  const template = { metadata: { labels }, spec: { ...spec, ...restartPolicy } };
  const obj: Obj = { ...kind, metadata: { name, labels } };
  // spec.template.spec, or spec.jobTemplate.spec.template.spec: build the path down to the template.
  let at = obj;
  for (const key of path.slice(0, -2)) {
    at[key] = {};
    at = at[key] as Obj;
  }
  at.template = template;
  const spec0 = obj.spec as Obj;
  if (kind.kind === 'CronJob') spec0.schedule = '*/5 * * * *';
  else if (kind.kind === 'ReplicationController') spec0.selector = labels;
  else if (kind.kind !== 'Job') spec0.selector = { matchLabels: labels };
  if (kind.kind === 'StatefulSet') spec0.serviceName = name;
  return obj;
}

/** `count` fuzzed documents, the same for the same seed. */
export function fuzzedWorkloads(count: number, seed = 28): Obj[] {
  const r = random(seed);
  return Array.from({ length: count }, (_, i) => wrap(KINDS[i % KINDS.length], `fuzz-${i}`, podSpec(r)));
}
