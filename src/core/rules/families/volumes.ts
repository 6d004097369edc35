// Runtime family, volumes: volume types Windows nodes cannot mount and volume features they ignore
// (Kubernetes docs: concepts/storage/windows-storage.md, concepts/windows/intro.md).
import { isObj, type Obj, type Path } from '../../manifest/path';
import type { ContainerView, PodSpecView } from '../../manifest/workloads';
import { preview } from '../../manifest/text';
import { apiField, containerField, containerWord, deleteFix, isSet, objAt } from '../helpers';
import type { FixSpec, PodRule } from '../types';

/**
 * Removes `path` while keeping its parent map in place. Deleting the last key of a map would
 * leave `parent:` with a null value (a volume without a source, say); then the parent becomes `{}`.
 */
function deleteKeepingParent(title: string, path: Path, parent: Obj): FixSpec {
  const parentPath = path.slice(0, -1);
  const key = parentPath[parentPath.length - 1];
  if (Object.keys(parent).length === 1 && typeof key === 'string') {
    return { title, kind: 'safe', ops: [{ op: 'replacePair', path: parentPath, key, value: {} }] };
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

// The words of each finding, shared with the rule's admission policy (core/policy).
export const win051Message = (field: string): string =>
  `${field}: Memory is not supported on Windows: there is no tmpfs, so the volume cannot be memory-backed. Remove medium to use node disk.`;
/** `shown` is the mountPropagation value as preview quotes it (30 characters). */
export const win053Message = (field: string, shown: string): string =>
  `${field}: Windows does not support mount propagation; the kubelet silently uses private mounts, so ${shown} has no effect. Delete it.`;
export const win052Message = (field: string): string =>
  `${field}: raw block volumes are not supported on Windows; Windows cannot attach raw block devices to pods. Use a Filesystem-mode PersistentVolumeClaim mounted with volumeMounts.`;

const WIN051: PodRule = {
  id: 'WIN051',
  admission: { enforceable: true },
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
        message: win051Message(apiField(pod, rel)),
        fixes: [deleteKeepingParent('Remove medium: Memory', path, emptyDir)],
      });
    }
  },
};

const WIN052: PodRule = {
  id: 'WIN052',
  admission: { enforceable: true },
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
        message: win052Message(containerField(pod, c, ['volumeDevices'])),
      });
    }
  },
};

/** The API server's words (validateMountPropagation), the field path without the mount's index as it prints it. */
const BIDIRECTIONAL_REFUSED = 'Forbidden: Bidirectional mount propagation is available only to privileged containers';

const capitalized = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

const WIN053: PodRule = {
  id: 'WIN053',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    'mountPropagation other than None on a Windows pod: the kubelet forces private mounts, so it has no effect; Bidirectional is rejected by the API server (it needs privileged, which a declared Windows pod may not set).',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    for (const c of pod.containers) {
      for (const m of volumeMountsOf(c)) {
        if (!isSet(m.value, 'mountPropagation') || m.value.mountPropagation === 'None') continue;
        const rel = ['volumeMounts', m.index, 'mountPropagation'];
        const path = [...c.path, ...rel];
        const fixes = [deleteFix('Remove mountPropagation', path, c.path.length + 2)];
        // Bidirectional needs privileged: a declared Windows pod may not set it, and without it any pod is refused.
        const privileged = objAt(c.value, ['securityContext'])?.privileged === true;
        if (m.value.mountPropagation === 'Bidirectional' && (target.declared || !privileged)) {
          const field = containerField(pod, c, ['volumeMounts']);
          const why = target.declared
            ? 'A Windows pod may not set privileged'
            : `${capitalized(containerWord(c))} ${preview(c.name, 40)} is not privileged`;
          report({
            path,
            target: 'value',
            severity: 'error',
            apiRejects: true,
            message: `${field}.mountPropagation: ${BIDIRECTIONAL_REFUSED}. ${why}, and Windows has no mount propagation anyway (the kubelet uses private mounts): delete it.`,
            fixes,
          });
          continue;
        }
        report({
          path,
          target: 'value',
          message: win053Message(containerField(pod, c, rel), preview(m.value.mountPropagation, 30)),
          fixes,
        });
      }
    }
  },
};

const MODE_SOURCES = ['secret', 'configMap', 'projected', 'downwardAPI'];

/** 0644, the file mode the API server defaults every configMap, secret, projected and downwardAPI volume to. */
const SERVER_DEFAULT_MODE = 420;

// WIN057's words for an NFS volume, shared with its admission policy (core/policy).
export const win057NfsMessage = (field: string): string =>
  `${field}: NFS volumes are not supported on Windows nodes, so the volume cannot be mounted and the pod does not start. Use SMB (csi-driver-smb) or another Windows-capable CSI driver.`;

const WIN057: PodRule = {
  id: 'WIN057',
  // Its defaultMode and Secret subPath findings are info: advice, which a policy does not enforce.
  admission: { enforceable: true, detail: 'NFS volumes; defaultMode and Secret subPath mounts are advice (info)' },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    'Volume feature Windows does not support: NFS volumes (warning); defaultMode and subPath mounts of Secrets (info).',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const volumes = volumesOf(pod);
    for (const v of volumes) {
      if (isSet(v.value, 'nfs')) {
        const rel = ['volumes', v.index, 'nfs'];
        report({
          path: [...pod.path, ...rel],
          message: win057NfsMessage(apiField(pod, rel)),
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
        const key =
          isSet(m.value, 'subPath') && m.value.subPath !== ''
            ? 'subPath'
            : isSet(m.value, 'subPathExpr') && m.value.subPathExpr !== ''
              ? 'subPathExpr'
              : undefined;
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

/**
 * In-tree volume sources Windows nodes have no plugin for: the Windows storage guide names FlexVolume,
 * CSI, and of the in-tree persistent plugins only awsElasticBlockStore, azureDisk, azureFile,
 * gcePersistentDisk and vsphereVolume. (nfs is WIN057's; gitRepo is deprecated and left alone.)
 */
const LINUX_ONLY_SOURCES = [
  'cephfs',
  'cinder',
  'fc',
  'flocker',
  'glusterfs',
  'iscsi',
  'photonPersistentDisk',
  'portworxVolume',
  'quobyte',
  'rbd',
  'scaleIO',
  'storageos',
];

const WIN059: PodRule = {
  id: 'WIN059',
  admission: {
    enforceable: false,
    why: 'node-facts',
    detail: 'its inline CSI finding holds only where the cluster does not run WMCO, which a policy cannot see',
  },
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

export const volumeRules: PodRule[] = [WIN051, WIN052, WIN053, WIN057, WIN059];
