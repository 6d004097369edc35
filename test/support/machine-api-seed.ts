// Machine API objects of an installer-provisioned OpenShift cluster, per platform, for the emulator and
// the real API server: the Infrastructure (platform, infrastructure name), and the Linux worker
// MachineSet the installer writes. The Linux MachineSet is WMCO's documented Windows example
// (test/fixtures/wmco-machinesets/, placeholders filled with one cluster's values) turned back into
// the Linux worker it would be made from: the installer's name and labels, no os-id, the Linux user
// data, the RHCOS image, and what the server and controllers add (uid, resourceVersion, generation,
// annotations of the autoscaler and kubectl, status, managedFields). Test-only.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { load } from 'js-yaml';
import type { KubeObject } from './kube-emulator/types';

export type Platform = 'AWS' | 'Azure' | 'GCP' | 'VSphere' | 'Nutanix';
export const PLATFORMS: Platform[] = ['AWS', 'Azure', 'GCP', 'VSphere', 'Nutanix'];
export const INFRA = 'test-x7k2p';

/** The repository: out/test/support/ in the unit bundles, out/e2e/ in the real-VS-Code ones. */
const ROOT =
  [resolve(__dirname, '..', '..', '..'), resolve(__dirname, '..', '..')].find((d) =>
    existsSync(resolve(d, 'test', 'fixtures', 'wmco-machinesets')),
  ) ?? resolve(__dirname, '..', '..', '..');

/** One cluster's values for the docs' placeholders, per platform, and the Windows image the tests pass. */
export const CLUSTER: Record<
  Platform,
  {
    placeholders: Record<string, string>;
    windowsImage: string;
    linuxName: string;
    windowsName: string;
    region?: string;
  }
> = {
  AWS: {
    placeholders: {
      '<infrastructureID>': INFRA,
      '<zone>': 'us-east-2a',
      '<region>': 'us-east-2',
      '<windows_server_ami>': 'ami-0e2a1f3b5c7d9e0f1',
    },
    windowsImage: 'ami-0e2a1f3b5c7d9e0f1',
    linuxName: `${INFRA}-worker-us-east-2a`,
    windowsName: `${INFRA}-windows-worker-us-east-2a`,
    region: 'us-east-2',
  },
  Azure: {
    placeholders: { '<infrastructureID>': INFRA, '<location>': 'centralus', '<zone>': '1' },
    windowsImage: 'MicrosoftWindowsServer:WindowsServer:2022-datacenter:latest',
    linuxName: `${INFRA}-worker-centralus1`,
    windowsName: 'winworker',
    region: 'centralus',
  },
  GCP: {
    placeholders: {
      '<infrastructure_id>': INFRA,
      '<zone_suffix>': 'a',
      '<zone>': 'us-central1-a',
      '<region>': 'us-central1',
      '<project_id>': 'openshift-windows-ci',
      '<windows_server_image>': 'projects/windows-cloud/global/images/family/windows-2022-core',
    },
    windowsImage: 'projects/windows-cloud/global/images/family/windows-2022-core',
    linuxName: `${INFRA}-worker-a`,
    windowsName: `${INFRA}-windows-worker-a`,
    region: 'us-central1',
  },
  VSphere: {
    placeholders: {
      '<infrastructureID>': INFRA,
      '<VM Network Name>': 'ci-vlan-1148',
      '<Windows_VM_template>': 'windows-golden-images/windows-server-2022-template-ipv6-disabled',
      '<vCenter DataCenter Name>': 'cidatacenter',
      '<vCenter Datastore Name>': 'vsanDatastore',
      '<Path to VM Folder in vCenter>': `/cidatacenter/vm/${INFRA}`,
      '<vCenter Server FQDN/IP>': 'vcenter.ci.example.com',
    },
    windowsImage: 'windows-golden-images/windows-server-2022-template-ipv6-disabled',
    linuxName: `${INFRA}-worker-0`,
    windowsName: 'winworker',
  },
  Nutanix: {
    placeholders: {
      '<infrastructure_id>': INFRA,
      // The installer's Nutanix worker MachineSet has no suffix: the Windows one has none either.
      '-<suffix>': '',
      '<prism_element_uuid>': '0005f3a9-4c5d-8e1b-0000-00000000d2a4',
      '<windows_server_image_name>': 'nutanix-windows-server-2022',
      '<subnet_name>': 'ci-subnet-1',
    },
    windowsImage: 'nutanix-windows-server-2022',
    linuxName: `${INFRA}-worker`,
    windowsName: `${INFRA}-windows-worker`,
  },
};

/** WMCO's documented Windows MachineSet for the platform, placeholders filled, parsed. */
export function wmcoDocMachineSet(platform: Platform): KubeObject {
  let text = readFileSync(
    resolve(ROOT, 'test', 'fixtures', 'wmco-machinesets', `${platform.toLowerCase()}.yaml`),
    'utf8',
  );
  for (const [k, v] of Object.entries(CLUSTER[platform].placeholders)) text = text.split(k).join(v);
  const body = text.replace(/^#.*$/gm, '');
  if (/<[A-Za-z_ ]+>/.test(body))
    throw new Error(`unfilled placeholder in the ${platform} example: ${/<[A-Za-z_ /]+>/.exec(body)?.[0]}`);
  return load(text) as KubeObject;
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * WMCO's example as the comparison reference for what kube-windows writes: the provider spec's
 * empty ObjectMeta (`metadata: {creationTimestamp: null}`, in the vSphere example) carries nothing
 * and is not written.
 */
export function wmcoReference(platform: Platform): KubeObject {
  const doc = wmcoDocMachineSet(platform) as Obj;
  delete doc.spec.template.spec.providerSpec.value.metadata;
  return doc as KubeObject;
}

/** The Linux image the installer puts in the platform's place. */
function linuxImage(platform: Platform, value: Obj): void {
  switch (platform) {
    case 'AWS':
      value.ami = { id: 'ami-0c3b9f8e7d6a5b4c2' };
      break;
    case 'Azure':
      value.image = {
        offer: '',
        publisher: '',
        resourceID: `/resourceGroups/${INFRA}-rg/providers/Microsoft.Compute/galleries/gallery_${INFRA.replace(/-/g, '_')}/images/${INFRA}-gen2/versions/latest`,
        sku: '',
        version: '',
      };
      value.osDisk.osType = 'Linux';
      break;
    case 'GCP':
      value.disks[0].image = 'projects/rhcos-cloud/global/images/rhcos-418-94-202410090804-0-gcp-x86-64';
      break;
    case 'VSphere':
      value.template = `${INFRA}-rhcos-generated-region-generated-zone`;
      break;
    case 'Nutanix':
      value.image = { type: 'name', name: `${INFRA}-rhcos` };
      break;
  }
}

/** The Linux worker MachineSet as the cluster serves it: what a Windows one for the platform is made from. */
export function linuxWorkerMachineSet(platform: Platform, opts: { name?: string; replicas?: number } = {}): KubeObject {
  const ms = wmcoDocMachineSet(platform) as Obj;
  const name = opts.name ?? CLUSTER[platform].linuxName;
  ms.metadata.name = name;
  ms.metadata.uid = '5c1f9a7e-2b3d-4e8f-9a0b-1c2d3e4f5a6b';
  ms.metadata.resourceVersion = '48213';
  ms.metadata.generation = 3;
  ms.metadata.creationTimestamp = '2026-10-02T07:31:08Z';
  ms.metadata.annotations = {
    'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=amd64',
    'machine.openshift.io/GPU': '0',
    'machine.openshift.io/memoryMb': '8192',
    'machine.openshift.io/vCPU': '2',
    'machine.openshift.io/cluster-api-autoscaler-node-group-min-size': '1',
    'machine.openshift.io/cluster-api-autoscaler-node-group-max-size': '6',
    'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineSet',
      metadata: { name },
    }),
  };
  ms.metadata.managedFields = [
    {
      manager: 'cluster-bootstrap',
      operation: 'Update',
      apiVersion: 'machine.openshift.io/v1beta1',
      time: '2026-10-02T07:31:08Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    },
  ];
  ms.metadata.ownerReferences = [
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      name: 'version',
      uid: '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9',
    },
  ];
  ms.spec.replicas = opts.replicas ?? 2;
  ms.spec.selector.matchLabels['machine.openshift.io/cluster-api-machineset'] = name;
  const labels = ms.spec.template.metadata.labels;
  delete labels['machine.openshift.io/os-id'];
  labels['machine.openshift.io/cluster-api-machineset'] = name;
  ms.spec.template.spec.metadata = {};
  const value = ms.spec.template.spec.providerSpec.value;
  value.metadata = { creationTimestamp: null };
  value.userDataSecret.name = 'worker-user-data';
  linuxImage(platform, value);
  ms.status = { availableReplicas: 2, fullyLabeledReplicas: 2, observedGeneration: 3, readyReplicas: 2, replicas: 2 };
  return ms as KubeObject;
}

/** The Infrastructure of an installer-provisioned cluster on the platform. */
export function infrastructure(platform: Platform | 'None' | 'BareMetal'): KubeObject {
  const platformStatus: Obj = { type: platform };
  if (platform === 'AWS') platformStatus.aws = { region: 'us-east-2' };
  if (platform === 'Azure')
    platformStatus.azure = {
      cloudName: 'AzurePublicCloud',
      networkResourceGroupName: `${INFRA}-rg`,
      resourceGroupName: `${INFRA}-rg`,
    };
  if (platform === 'GCP') platformStatus.gcp = { projectID: 'openshift-windows-ci', region: 'us-central1' };
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'Infrastructure',
    metadata: { name: 'cluster', creationTimestamp: '2026-10-02T07:12:40Z', generation: 1 },
    spec: { cloudConfig: { name: '' }, platformSpec: { type: platform } },
    status: {
      apiServerInternalURI: 'https://api-int.test.example.com:6443',
      apiServerURL: 'https://api.test.example.com:6443',
      controlPlaneTopology: 'HighlyAvailable',
      cpuPartitioning: 'None',
      etcdDiscoveryDomain: '',
      infrastructureName: INFRA,
      infrastructureTopology: 'HighlyAvailable',
      platform,
      platformStatus,
    },
  };
}

/** A Windows image the cloud refuses (the double fails Machines that use it, as AWS answers InvalidAMIID.NotFound). */
export const REFUSED_AMI = 'ami-00000000000000000';
