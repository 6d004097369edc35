// Claims on Windows pods: the CSI driver that provisions a PersistentVolumeClaim is named by its
// StorageClass (or its bound PersistentVolume), not by the pod, so only cluster facts tell whether
// the Windows nodes have that driver's node plugin. Without those facts nothing is reported.
import { getAt, isObj, type Path } from '../../manifest/path';
import type { PodSpecView } from '../../manifest/workloads';
import { apiField } from '../helpers';
import { claimKey, type ClaimFacts, type Facts, type StorageFacts } from '../facts';
import type { Targeting } from '../targeting';
import type { PodRule } from '../types';

/** In-tree provisioners whose volumes CSI migration (GA) hands to a CSI driver. */
const MIGRATED_PROVISIONERS: Readonly<Record<string, string>> = {
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
};

/** Where a claim's driver was learnt, for the message. */
interface ClaimSource {
  driver: string;
  storageClass?: { name: string; provisioner: string; isDefault: boolean };
  volume?: string;
}

/** The CSI driver a provisioner stands for; undefined for no-provisioner, other in-tree and non-CSI provisioners. */
export function csiDriverOf(provisioner: string, storage: StorageFacts): string | undefined {
  const migrated = MIGRATED_PROVISIONERS[provisioner];
  if (migrated) return migrated;
  if (provisioner.startsWith('kubernetes.io/')) return undefined;
  // An external provisioner is not necessarily a CSI driver: only one the cluster knows as such counts.
  return storage.csiDrivers.includes(provisioner) ? provisioner : undefined;
}

function classSource(storage: StorageFacts, name: string | undefined): ClaimSource | undefined {
  let sc;
  if (name === undefined) {
    const defaults = storage.storageClasses.filter((c) => c.isDefault);
    // Several defaults: the API server takes the newest, which these facts do not tell.
    sc = defaults.length === 1 ? defaults[0] : undefined;
  } else {
    sc = storage.storageClasses.find((c) => c.name === name);
  }
  const driver = sc && csiDriverOf(sc.provisioner, storage);
  return sc && driver ? { driver, storageClass: sc } : undefined;
}

/** The driver of a claim: its class's, else (no class named) its bound volume's, else the default class's. */
function claimSource(claim: ClaimFacts, facts: Facts, storage: StorageFacts): ClaimSource | undefined {
  if (claim.storageClassName) return classSource(storage, claim.storageClassName);
  if (claim.volumeName !== undefined) {
    const driver = facts.volumes.get(claim.volumeName)?.csiDriver;
    return driver ? { driver, volume: claim.volumeName } : undefined;
  }
  return claim.storageClassName === undefined ? classSource(storage, undefined) : undefined;
}

/** The Windows nodes the pod may land on: its node, the nodes of the builds it pins, or all. */
function candidateNodes(pod: PodSpecView, target: Targeting, storage: StorageFacts): StorageFacts['windowsNodes'] {
  const nodeName = pod.spec.nodeName;
  if (typeof nodeName === 'string' && nodeName !== '') return storage.windowsNodes.filter((n) => n.name === nodeName);
  return storage.windowsNodes.filter((n) => target.builds.every((b) => b.value === n.build));
}

/** A StatefulSet's claim templates, the pod's ephemeral volumes and its claims, with where each is written. */
function claimsOf(pod: PodSpecView, facts: Facts): { path: Path; field: string; what: string; claim: ClaimFacts }[] {
  const out: { path: Path; field: string; what: string; claim: ClaimFacts }[] = [];
  const templateClaim = (template: unknown): ClaimFacts => {
    const name = getAt(template, ['spec', 'storageClassName']);
    return typeof name === 'string' ? { storageClassName: name } : {};
  };
  const volumes = pod.spec.volumes;
  if (Array.isArray(volumes)) {
    volumes.forEach((v, i) => {
      if (!isObj(v)) return;
      const claimName = getAt(v, ['persistentVolumeClaim', 'claimName']);
      if (typeof claimName === 'string') {
        const claim = facts.claims.get(claimKey(pod.object.namespace, claimName));
        const rel = ['volumes', i, 'persistentVolumeClaim', 'claimName'];
        if (claim)
          out.push({
            path: [...pod.path, ...rel],
            field: apiField(pod, rel),
            what: `PersistentVolumeClaim ${claimName}`,
            claim,
          });
      }
      const template = getAt(v, ['ephemeral', 'volumeClaimTemplate']);
      if (isObj(template)) {
        const rel = ['volumes', i, 'ephemeral'];
        out.push({
          path: [...pod.path, ...rel],
          field: apiField(pod, rel),
          what: `the ephemeral volume ${String(v.name ?? i)}`,
          claim: templateClaim(template),
        });
      }
    });
  }
  const templates =
    pod.object.kind === 'StatefulSet' ? getAt(pod.object.value, ['spec', 'volumeClaimTemplates']) : undefined;
  if (Array.isArray(templates)) {
    templates.forEach((t, i) => {
      if (!isObj(t)) return;
      const name = getAt(t, ['metadata', 'name']);
      out.push({
        path: [...pod.object.path, 'spec', 'volumeClaimTemplates', i],
        field: `spec.volumeClaimTemplates[${i}]`,
        what: `the claim template ${String(name ?? i)}`,
        claim: templateClaim(t),
      });
    });
  }
  return out;
}

function describeSource(s: ClaimSource): string {
  if (s.volume !== undefined) return `is bound to PersistentVolume ${s.volume}, a CSI volume of driver ${s.driver}`;
  const sc = s.storageClass as NonNullable<ClaimSource['storageClass']>;
  const via =
    sc.provisioner === s.driver ? '' : ` (in-tree ${sc.provisioner}, which CSI migration hands to ${s.driver})`;
  return `uses ${sc.isDefault ? 'the default ' : ''}StorageClass ${sc.name}, provisioned by CSI driver ${s.driver}${via}`;
}

function nodeList(nodes: { name: string }[]): string {
  const names = nodes.slice(0, 3).map((n) => n.name);
  return nodes.length > 3 ? `${names.join(', ')} and ${nodes.length - 3} more` : names.join(', ');
}

const WIN063: PodRule = {
  id: 'WIN063',
  admission: { enforceable: false, why: 'node-facts', detail: 'needs the CSI drivers the Windows nodes registered' },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    "PersistentVolumeClaim, ephemeral volume or claim template of a Windows pod whose StorageClass's CSI driver no Windows node registered (CSINode): the volume cannot be mounted there. Needs cluster facts (check --context, or a snapshot).",
  check({ pod, target, facts }, report) {
    const storage = facts.cluster?.storage;
    if (target.os !== 'windows' || !storage) return;
    const nodes = candidateNodes(pod, target, storage);
    if (nodes.length === 0) return;
    for (const c of claimsOf(pod, facts)) {
      const source = claimSource(c.claim, facts, storage);
      if (!source || nodes.some((n) => n.drivers.includes(source.driver))) continue;
      report({
        path: c.path,
        message: `${c.field}: ${c.what} ${describeSource(source)}, but no Windows node this pod can run on (${nodeList(nodes)}) lists ${source.driver} in its CSINode: the driver's Windows node plugin (run beside CSI Proxy, or as a HostProcess container) is missing there, so the volume cannot be mounted and the pod does not start. Install the driver's Windows node DaemonSet and CSI Proxy on the Windows nodes, or use a StorageClass whose driver has a Windows node plugin.`,
      });
    }
  },
};

export const storageRules: PodRule[] = [WIN063];
