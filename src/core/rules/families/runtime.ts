// Runtime family: fields the API server accepts for Windows pods but that fail, or are silently
// ignored, on Windows nodes (reference §4.3 and §5), plus Linux-only settings of pods whose
// Windows target is only inferred (§0).
import { getAt, isObj, type Obj, type Path } from '../../manifest/path';
import type { ContainerView, PodSpecView } from '../../manifest/workloads';
import { preview } from '../../manifest/text';
import { isNanoServer, parseImage } from '../../windows/builds';
import { apiField, apiSeverity, containerField, deleteFix, inferredNote, isSet, objAt } from '../helpers';
import type { FixSpec, PodRule } from '../types';
import { CONTAINER_FIELDS, podFieldsSet } from './pod-security';
import { inferredFrom } from './scheduling';

// ---------------------------------------------------------------------------------------------
// shared helpers

/** HostProcess membership as the API server computes it (reference §2.1). */
interface HostProcess {
  any: boolean;
  is(c: ContainerView): boolean;
}

function hostProcessOf(pod: PodSpecView): HostProcess {
  const podValue = getAt(pod.spec, ['securityContext', 'windowsOptions', 'hostProcess']);
  const is = (c: ContainerView) => {
    const v = getAt(c.value, ['securityContext', 'windowsOptions', 'hostProcess']);
    return v === true || ((v === undefined || v === null) && podValue === true);
  };
  return { any: pod.containers.some(is), is };
}

/**
 * Removes `path` while keeping its parent map in place. Deleting the last key of a map would
 * leave `parent:` with a null value (a volume without a source, say); then the parent becomes `{}`.
 */
function deleteKeepingParent(title: string, path: Path, parent: Obj): FixSpec {
  const parentPath = path.slice(0, -1);
  const key = parentPath[parentPath.length - 1];
  if (Object.keys(parent).length === 1 && typeof key === 'string') {
    return { title, ops: [{ op: 'replacePair', path: parentPath, key, value: {} }] };
  }
  return deleteFix(title, path, parentPath.length);
}

function volumesOf(pod: PodSpecView): { index: number; value: Obj; name: string }[] {
  const list = pod.spec.volumes;
  if (!Array.isArray(list)) return [];
  const out: { index: number; value: Obj; name: string }[] = [];
  list.forEach((v, index) => {
    if (isObj(v)) out.push({ index, value: v, name: typeof v.name === 'string' ? v.name : '' });
  });
  return out;
}

function volumeMountsOf(c: ContainerView): { index: number; value: Obj }[] {
  const list = c.value.volumeMounts;
  if (!Array.isArray(list)) return [];
  const out: { index: number; value: Obj }[] = [];
  list.forEach((m, index) => {
    if (isObj(m)) out.push({ index, value: m });
  });
  return out;
}

/** Places where a container runs a program by exec: its command, exec probes, exec lifecycle hooks. */
interface ExecSite {
  /** Path of the command list relative to the container. */
  rel: Path;
  what: string;
  /** What happens when the program does not exist. */
  outcome: string;
  program: string;
}

const EXEC_PLACES: { rel: string[]; what: string; outcome: string }[] = [
  { rel: ['command'], what: 'command', outcome: 'the container cannot start' },
  { rel: ['livenessProbe', 'exec', 'command'], what: 'liveness probe', outcome: 'the probe always fails and the kubelet keeps restarting the container' },
  { rel: ['readinessProbe', 'exec', 'command'], what: 'readiness probe', outcome: 'the probe always fails and the pod never becomes Ready' },
  { rel: ['startupProbe', 'exec', 'command'], what: 'startup probe', outcome: 'the probe always fails and the container is restarted' },
  { rel: ['lifecycle', 'postStart', 'exec', 'command'], what: 'postStart hook', outcome: 'the hook fails and the container is killed' },
  { rel: ['lifecycle', 'preStop', 'exec', 'command'], what: 'preStop hook', outcome: 'the hook fails and the shutdown steps it holds never run' },
];

function execSites(c: ContainerView): ExecSite[] {
  const out: ExecSite[] = [];
  for (const place of EXEC_PLACES) {
    const list = getAt(c.value, place.rel);
    if (!Array.isArray(list) || typeof list[0] !== 'string') continue;
    out.push({ rel: place.rel, what: place.what, outcome: place.outcome, program: list[0] });
  }
  return out;
}

/** The program name an exec command starts: first word, without directories, lower case. */
function programName(program: string): string {
  const first = program.trim().split(/\s+/)[0] ?? '';
  const base = first.split(/[\\/]/).pop() ?? first;
  return base.toLowerCase();
}

const POSIX_SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh']);

/** `sh`, `bash`, `/bin/…`, `/usr/bin/…`: programs that exist in Linux images only. */
function isPosixProgram(program: string): boolean {
  const first = (program.trim().split(/\s+/)[0] ?? '').toLowerCase();
  if (POSIX_SHELLS.has(first)) return true;
  return /^\/(usr\/(local\/)?)?s?bin\/./.test(first);
}

/** Windows builds of busybox (Kubernetes e2e test images) do ship `sh` and `/bin/*`. */
function isBusybox(image: string | undefined): boolean {
  if (!image) return false;
  const repo = parseImage(image).repository;
  return (repo.split('/').pop() ?? '') === 'busybox';
}

/** The bare Nano Server base image: no PowerShell of any kind inside. */
function isBareNanoServer(image: string): boolean {
  const ref = parseImage(image);
  return (ref.registry === 'mcr.microsoft.com' && ref.repository === 'windows/nanoserver') || (ref.registry === 'docker.io' && ref.repository === 'microsoft/nanoserver');
}

/** mcr.microsoft.com/powershell on Nano Server: pwsh only, no Windows PowerShell. */
function isPowerShellNanoImage(image: string): boolean {
  const ref = parseImage(image);
  return ref.registry === 'mcr.microsoft.com' && ref.repository === 'powershell' && /nanoserver/i.test(ref.tag ?? '');
}

// ---------------------------------------------------------------------------------------------
// WIN040–WIN041: Linux-only settings on pods whose Windows target is inferred

const WIN040: PodRule = {
  id: 'WIN040',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'Linux-only securityContext field on a pod that targets Windows without spec.os.name: ignored by the kubelet, rejected once spec.os.name is set.',
  check({ pod, target }, report) {
    if (target.os !== 'windows' || target.declared) return;
    const note = inferredNote(target);
    const why = `the kubelet silently ignores it on Windows (kubernetes PR #93475), and the API server rejects it once spec.os.name: windows is set`;
    for (const rel of podFieldsSet(pod.spec)) {
      // shareProcessNamespace has its own rule (WIN056).
      if (rel[0] === 'shareProcessNamespace') continue;
      const path = [...pod.path, ...rel];
      report({
        path,
        message: `${apiField(pod, rel)} is Linux-only${note}: ${why}. Delete it.`,
        fixes: [deleteFix(`Remove ${rel.join('.')}`, path, pod.path.length)],
      });
    }
    const hp = hostProcessOf(pod);
    for (const c of pod.containers) {
      const sc = objAt(c.value, ['securityContext']);
      if (!sc) continue;
      // In document order, so the first finding is the first field the reader meets.
      for (const key of Object.keys(sc)) {
        if (!CONTAINER_FIELDS.includes(key) || !isSet(sc, key)) continue;
        // privileged: true on an ordinary container is WIN041's (an error, not a no-op).
        if (key === 'privileged' && sc.privileged === true && !hp.is(c)) continue;
        const path = [...c.path, 'securityContext', key];
        report({
          path,
          message: `${containerField(pod, c, ['securityContext', key])} is Linux-only${note}: ${why}. Delete it.`,
          fixes: [deleteFix(`Remove securityContext.${key}`, path, c.path.length)],
        });
      }
    }
  },
};

const WIN041: PodRule = {
  id: 'WIN041',
  scope: 'pod',
  family: 'runtime',
  severity: 'error',
  title: 'privileged: true on a Windows container that is not a HostProcess container: privileged containers do not exist on Windows.',
  check({ pod, target }, report) {
    // Declared Windows pods get WIN002 (the API server rejects any privileged value).
    if (target.os !== 'windows' || target.declared) return;
    const hp = hostProcessOf(pod);
    for (const c of pod.containers) {
      if (getAt(c.value, ['securityContext', 'privileged']) !== true || hp.is(c)) continue;
      const path = [...c.path, 'securityContext', 'privileged'];
      report({
        path,
        message: `${containerField(pod, c, ['securityContext', 'privileged'])}: privileged containers are not supported on Windows${inferredNote(target)}, and the pod may fail to start. Delete it; for host access use a HostProcess container (windowsOptions.hostProcess: true with hostNetwork: true).`,
        fixes: [deleteFix('Remove securityContext.privileged', path, c.path.length)],
      });
    }
  },
};

// ---------------------------------------------------------------------------------------------
// WIN050–WIN058: resources, volumes, networking

const WIN050: PodRule = {
  id: 'WIN050',
  scope: 'pod',
  family: 'runtime',
  severity: 'error',
  title: 'hugepages-* resource on a Windows pod: Windows nodes have no huge pages, so the pod stays Pending.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const severity = apiSeverity(target);
    const scan = (base: Path, field: (rel: Path) => string, value: unknown, keep: number) => {
      for (const kind of ['requests', 'limits']) {
        const map = objAt(value, ['resources', kind]);
        if (!map) continue;
        for (const name of Object.keys(map)) {
          if (!name.toLowerCase().startsWith('hugepages-')) continue;
          const rel = ['resources', kind, name];
          const path = [...base, ...rel];
          report({
            path,
            severity,
            message: `${field(rel)}: huge pages are not supported for Windows containers; Windows nodes advertise none, so the pod stays Pending${inferredNote(target)}. Remove it.`,
            fixes: [deleteFix(`Remove ${kind}.${name}`, path, keep)],
          });
        }
      }
    };
    scan(pod.path, (rel) => apiField(pod, rel), pod.spec, pod.path.length);
    for (const c of pod.containers) scan(c.path, (rel) => containerField(pod, c, rel), c.value, c.path.length);
  },
};

const WIN051: PodRule = {
  id: 'WIN051',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'emptyDir.medium: Memory on a Windows pod: Windows cannot back a volume with memory.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    for (const v of volumesOf(pod)) {
      const emptyDir = objAt(v.value, ['emptyDir']);
      if (!emptyDir || emptyDir.medium !== 'Memory') continue;
      const rel = ['volumes', v.index, 'emptyDir', 'medium'];
      const path = [...pod.path, ...rel];
      report({
        path,
        target: 'pair',
        message: `${apiField(pod, rel)}: Memory is not supported on Windows: there is no tmpfs, so the volume cannot be memory-backed. Remove medium to use node disk.`,
        fixes: [deleteKeepingParent('Remove medium: Memory', path, emptyDir)],
      });
    }
  },
};

const WIN052: PodRule = {
  id: 'WIN052',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'volumeDevices (raw block volume) on a Windows pod: Windows cannot attach raw block devices to pods.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    for (const c of pod.containers) {
      const list = c.value.volumeDevices;
      if (!Array.isArray(list) || list.length === 0) continue;
      report({
        path: [...c.path, 'volumeDevices'],
        message: `${containerField(pod, c, ['volumeDevices'])}: raw block volumes are not supported on Windows; Windows cannot attach raw block devices to pods. Use a Filesystem-mode PersistentVolumeClaim mounted with volumeMounts.`,
      });
    }
  },
};

const WIN053: PodRule = {
  id: 'WIN053',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'mountPropagation other than None on a Windows pod: the kubelet forces private mounts, the setting has no effect.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    for (const c of pod.containers) {
      for (const m of volumeMountsOf(c)) {
        if (!isSet(m.value, 'mountPropagation') || m.value.mountPropagation === 'None') continue;
        const rel = ['volumeMounts', m.index, 'mountPropagation'];
        const path = [...c.path, ...rel];
        report({
          path,
          target: 'value',
          message: `${containerField(pod, c, rel)}: Windows does not support mount propagation; the kubelet silently uses private mounts, so ${preview(m.value.mountPropagation, 30)} has no effect. Delete it.`,
          fixes: [deleteFix('Remove mountPropagation', path, c.path.length + 2)],
        });
      }
    }
  },
};

const WIN054: PodRule = {
  id: 'WIN054',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'dnsPolicy: ClusterFirstWithHostNet on a Windows pod: not supported, Windows pods always run on a container network.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    if (pod.spec.dnsPolicy !== 'ClusterFirstWithHostNet') return;
    // HostProcess pods share the node's network and resolver; the policy changes nothing there.
    if (hostProcessOf(pod).any) return;
    const path = [...pod.path, 'dnsPolicy'];
    report({
      path,
      target: 'value',
      message: `${apiField(pod, ['dnsPolicy'])}: ClusterFirstWithHostNet is not supported on Windows because host networking is not provided; Windows pods always run on a container network. Use ClusterFirst.`,
      fixes: [{ title: 'Change dnsPolicy to ClusterFirst', ops: [{ op: 'set', path, value: 'ClusterFirst' }] }],
    });
  },
};

const WIN055: PodRule = {
  id: 'WIN055',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'hostNetwork: true on a Windows pod without HostProcess containers: Windows has no host networking mode for ordinary containers.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    if (pod.spec.hostNetwork !== true || hostProcessOf(pod).any) return;
    const path = [...pod.path, 'hostNetwork'];
    report({
      path,
      message: `${apiField(pod, ['hostNetwork'])}: true does nothing for ordinary Windows containers (only HostProcess containers share the node's network; the alpha WindowsHostNetwork feature aside). Delete it, or make the pod a HostProcess pod if it really needs the host network.`,
      fixes: [deleteFix('Remove hostNetwork', path, pod.path.length)],
    });
  },
};

const WIN056: PodRule = {
  id: 'WIN056',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'shareProcessNamespace on a pod that targets Windows without spec.os.name: Windows cannot share process namespaces.',
  check({ pod, target }, report) {
    // Declared Windows pods get WIN001 (rejected by the API server).
    if (target.os !== 'windows' || target.declared) return;
    if (!isSet(pod.spec, 'shareProcessNamespace')) return;
    const path = [...pod.path, 'shareProcessNamespace'];
    const what =
      pod.spec.shareProcessNamespace === true
        ? `Windows cannot share a process namespace between containers${inferredNote(target)}, so it is ignored;`
        : `process namespaces mean nothing on Windows${inferredNote(target)}, and`;
    report({
      path,
      message: `${apiField(pod, ['shareProcessNamespace'])}: ${what} the API server rejects the field, even false, once spec.os.name: windows is set. Delete it.`,
      fixes: [deleteFix('Remove shareProcessNamespace', path, pod.path.length)],
    });
  },
};

const MODE_SOURCES = ['secret', 'configMap', 'projected', 'downwardAPI'];

/** 0644, the file mode the API server defaults every configMap, secret, projected and downwardAPI volume to. */
const SERVER_DEFAULT_MODE = 420;

const WIN057: PodRule = {
  id: 'WIN057',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'Volume feature Windows does not support: NFS volumes (warning); defaultMode and subPath mounts of Secrets (info).',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const volumes = volumesOf(pod);
    for (const v of volumes) {
      if (isSet(v.value, 'nfs')) {
        const rel = ['volumes', v.index, 'nfs'];
        report({
          path: [...pod.path, ...rel],
          message: `${apiField(pod, rel)}: NFS volumes are not supported on Windows nodes, so the volume cannot be mounted and the pod does not start. Use SMB (csi-driver-smb) or another Windows-capable CSI driver.`,
        });
      }
      for (const kind of MODE_SOURCES) {
        const source = objAt(v.value, [kind]);
        // 0644 is the API server's own default, written into every object it returns (kubectl get -o yaml,
        // Helm renders of exported objects): nobody chose it, so there is nothing to delete.
        if (!source || !isSet(source, 'defaultMode') || source.defaultMode === SERVER_DEFAULT_MODE) continue;
        const rel = ['volumes', v.index, kind, 'defaultMode'];
        const path = [...pod.path, ...rel];
        report({
          path,
          severity: 'info',
          message: `${apiField(pod, rel)} is ignored on Windows: files have no UID/GID permission bits there. Delete it; restrict access with the container user (runAsUserName) instead.`,
          fixes: [deleteKeepingParent('Remove defaultMode', path, source)],
        });
      }
    }
    const secrets = new Set(volumes.filter((v) => isSet(v.value, 'secret') && v.name).map((v) => v.name));
    if (secrets.size === 0) return;
    for (const c of pod.containers) {
      for (const m of volumeMountsOf(c)) {
        if (typeof m.value.name !== 'string' || !secrets.has(m.value.name)) continue;
        const key = isSet(m.value, 'subPath') && m.value.subPath !== '' ? 'subPath' : isSet(m.value, 'subPathExpr') && m.value.subPathExpr !== '' ? 'subPathExpr' : undefined;
        if (!key) continue;
        const rel = ['volumeMounts', m.index, key];
        report({
          path: [...c.path, ...rel],
          severity: 'info',
          message: `${containerField(pod, c, rel)}: Windows documents subPath mounts of Secret volumes as unsupported. Mount the whole Secret volume at a directory and read the file from there.`,
        });
      }
    }
  },
};

const WIN058: PodRule = {
  id: 'WIN058',
  scope: 'pod',
  family: 'runtime',
  severity: 'error',
  title: 'Pod-level spec.resources on a Windows pod: rejected by the API server (Kubernetes 1.34 and later) and not supported on Windows nodes; set resources per container.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    if (!isSet(pod.spec, 'resources')) return;
    const path = [...pod.path, 'resources'];
    const field = apiField(pod, ['resources']);
    report({
      path,
      severity: apiSeverity(target),
      message: target.declared
        ? `${field}: Forbidden: may not be set for a windows pod. Pod-level resources are not supported on Windows nodes (API servers before Kubernetes 1.34, where they are off by default, drop the field); set requests and limits on each container instead.`
        : `${field}: pod-level resources are not supported on Windows nodes${inferredNote(target)}, and the API server rejects them once spec.os.name: windows is set ("Forbidden: may not be set for a windows pod"). Set requests and limits on each container instead.`,
      fixes: [deleteFix('Remove pod-level resources', path, pod.path.length)],
    });
  },
};

/**
 * In-tree volume sources Windows nodes have no plugin for: the Windows storage guide names FlexVolume,
 * CSI, and of the in-tree persistent plugins only awsElasticBlockStore, azureDisk, azureFile,
 * gcePersistentDisk and vsphereVolume. (nfs is WIN057's; gitRepo is deprecated and left alone.)
 */
const LINUX_ONLY_SOURCES = ['cephfs', 'cinder', 'fc', 'flocker', 'glusterfs', 'iscsi', 'photonPersistentDisk', 'portworxVolume', 'quobyte', 'rbd', 'scaleIO', 'storageos'];

const WIN059: PodRule = {
  id: 'WIN059',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    'Volume type Windows nodes cannot mount: an in-tree plugin that exists only on Linux (rbd, cephfs, glusterfs, iscsi, cinder …; warning); an inline CSI volume, which needs CSI Proxy on the node (info; not reported where the cluster runs WMCO, which installs it).',
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows') return;
    for (const v of volumesOf(pod)) {
      for (const source of LINUX_ONLY_SOURCES) {
        if (!isSet(v.value, source)) continue;
        const rel = ['volumes', v.index, source];
        report({
          path: [...pod.path, ...rel],
          message: `${apiField(pod, rel)}: Windows nodes have no ${source} volume plugin (the Windows storage guide supports CSI, FlexVolume and, in-tree, only awsElasticBlockStore, azureDisk, azureFile, gcePersistentDisk and vsphereVolume), so the volume cannot be mounted and the pod does not start. Use a CSI driver with a Windows node plugin.`,
        });
      }
      if (!isSet(v.value, 'csi') || facts.cluster?.openshift?.wmcoInstalled === true) continue;
      const rel = ['volumes', v.index, 'csi'];
      report({
        path: [...pod.path, ...rel],
        severity: 'info',
        message: `${apiField(pod, rel)}: CSI volumes on Windows nodes need CSI Proxy running on the node (or a driver whose node plugin runs as a HostProcess container), and the driver must ship a Windows node plugin; otherwise the mount fails. Check both on your Windows nodes (on OpenShift, WMCO installs CSI Proxy).`,
      });
    }
  },
};

const QUANTITIES = ['cpu', 'memory'] as const;

/**
 * The Kubernetes guide to resource management on Windows nodes: no OOM killer for containers (Windows
 * pages memory to disk instead), no memory-pressure eviction, so it asks for requests and limits on
 * every Windows container. A limit alone is enough: the API server defaults the request to it.
 */
const WIN062: PodRule = {
  id: 'WIN062',
  scope: 'pod',
  family: 'runtime',
  severity: 'info',
  title: 'Windows container without CPU and memory requests and limits: Windows has no OOM kill or memory-pressure eviction, so the Kubernetes Windows guide asks for them on every container.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    // HostProcess containers are node agents (CNI, kube-proxy, log shippers) run as host processes, outside the guide's advice.
    const hp = hostProcessOf(pod);
    // Ephemeral containers cannot have resources (the API server refuses them).
    for (const c of pod.containers.filter((x) => x.group !== 'ephemeralContainers' && !hp.is(x))) {
      const limits = objAt(c.value, ['resources', 'limits']);
      const requests = objAt(c.value, ['resources', 'requests']);
      const missing: string[] = [];
      for (const q of QUANTITIES) if (!isSet(requests, q) && !isSet(limits, q)) missing.push(`requests.${q}`);
      for (const q of QUANTITIES) if (!isSet(limits, q)) missing.push(`limits.${q}`);
      if (missing.length === 0) continue;
      const has = isSet(c.value, 'resources');
      report({
        path: has ? [...c.path, 'resources'] : [...c.path, 'name'],
        ...(has ? {} : { target: 'pair' as const }),
        related: inferredFrom(target),
        message: `${containerField(pod, c, ['resources'])}: no ${missing.join(', ')}. Windows nodes neither OOM-kill containers nor evict pods under memory pressure (memory is paged to disk), so the Kubernetes Windows guide asks for CPU and memory requests and limits on every container to keep the node from being overcommitted. Set them (a namespace LimitRange may supply defaults).`,
      });
    }
  },
};

// ---------------------------------------------------------------------------------------------
// WIN060–WIN061: programs that do not exist in Windows images

const WIN060: PodRule = {
  id: 'WIN060',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'Exec command, probe or lifecycle hook runs sh, bash or a /bin/ path in a Windows container: there is no POSIX shell on Windows.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    for (const c of pod.containers) {
      if (isBusybox(c.image)) continue;
      const nano = c.image !== undefined && isNanoServer(c.image);
      for (const site of execSites(c)) {
        if (!isPosixProgram(site.program)) continue;
        const rel = [...site.rel, 0];
        const instead = nano ? 'Use cmd /c … (Nano Server has no PowerShell)' : 'Use cmd /c … or powershell -Command …';
        report({
          path: [...c.path, ...rel],
          target: 'value',
          message: `${containerField(pod, c, rel)}: ${preview(site.program, 40)} is a Linux program and Windows has no POSIX shell, so ${site.outcome}. ${instead} instead.`,
        });
      }
    }
  },
};

const WIN061: PodRule = {
  id: 'WIN061',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'powershell used as the program on a Nano Server image: Nano Server has no Windows PowerShell.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const hp = hostProcessOf(pod);
    for (const c of pod.containers) {
      // HostProcess containers run the host's programs, and the host has Windows PowerShell.
      if (!c.image || hp.is(c)) continue;
      const psImage = isPowerShellNanoImage(c.image);
      if (!psImage && !isNanoServer(c.image)) continue;
      for (const site of execSites(c)) {
        const name = programName(site.program);
        const windowsPowerShell = name === 'powershell' || name === 'powershell.exe';
        const pwshOnBareNano = (name === 'pwsh' || name === 'pwsh.exe') && isBareNanoServer(c.image);
        if (!windowsPowerShell && !pwshOnBareNano) continue;
        const rel = [...site.rel, 0];
        const missing = psImage
          ? 'this PowerShell image is Nano Server based and has PowerShell 7 (pwsh), not Windows PowerShell'
          : windowsPowerShell
            ? 'Nano Server images have no Windows PowerShell'
            : 'the Nano Server base image has no PowerShell at all';
        const instead = psImage ? 'Use pwsh instead.' : 'Use cmd /c …, or pwsh on an mcr.microsoft.com/powershell nanoserver image.';
        report({
          path: [...c.path, ...rel],
          target: 'value',
          message: `${containerField(pod, c, rel)}: ${missing} (image ${preview(c.image, 60)}), so ${site.outcome}. ${instead}`,
        });
      }
    }
  },
};

export const runtimeRules: PodRule[] = [WIN040, WIN041, WIN050, WIN051, WIN052, WIN053, WIN054, WIN055, WIN056, WIN057, WIN058, WIN059, WIN060, WIN061, WIN062];
