// A Windows MachineSet made from a cluster's own Linux worker MachineSet: the provider spec keeps
// what the installer wrote for this cluster (network, subnets, security groups, credentials, zone,
// size) and changes what makes the Machines Windows ones that WMCO configures: the os-id and worker
// labels, the user-data secret WMCO writes, the Windows image in the platform's own place, a name
// the platform's Windows machine names can carry, and a selector that matches the template. Nothing
// that belongs to the old object (uid, resourceVersion, status, annotations ...) is carried over.
// Facts from WMCO's README, docs/machineset-{aws,azure,gcp,nutanix}.md and hack/machineset.sh.
// Pure: plain objects in, a plain object and YAML text out.

import { loadAll, YAML11_SCHEMA } from 'js-yaml';
import { commentAboveKey, yamlDocument, yamlText } from '../manifest/yaml-writer';
import { UserError } from '../user-error';
import {
  MACHINE_API_NAMESPACE,
  MACHINE_API_VERSION,
  MACHINE_CLUSTER_LABEL,
  MACHINE_OS_ID_LABEL,
  MACHINE_OS_ID_WINDOWS,
  MACHINE_ROLE_LABEL,
  MACHINE_TYPE_LABEL,
  MACHINESET_LABEL,
  WINDOWS_USER_DATA_SECRET,
  WORKER_ROLE_LABEL,
  WORKER_USER_DATA_SECRET,
} from '../well-known';

import {
  isLinuxImageName,
  isLinuxWorkerMachineSet,
  isWindowsMachineSet,
  MACHINE_PLATFORMS,
  MAX_MACHINE_NAME,
  platformTitle,
  providerSpecValue,
  SHORT_MACHINESET_NAME,
  SHORT_NAME_PLATFORMS,
  type MachinePlatform,
} from './machines';
// Also here for the modules that build and read MachineSets (the extension's activation bundle takes them from
// ./machines, without the YAML writer).
export { isLinuxWorkerMachineSet, isWindowsMachineSet, platformTitle, providerSpecValue };
export type MachineSetPlatform = MachinePlatform;

export const isMachineSetPlatform = (p: string | undefined): p is MachineSetPlatform =>
  (MACHINE_PLATFORMS as readonly string[]).includes(p ?? '');

/** A MachineSet's name is also a label value (cluster-api-machineset): 63 characters at most. */
const NAME_LIMIT = 63;

/** A MachineSet or Machine as the API serves it (the fields read here). */
export interface MachineApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [k: string]: unknown;
}

/**
 * Why a Windows MachineSet cannot be made: `usage` for a bad --image or --name, `refused` for a cluster it cannot be
 * made for.
 */
export class MachineSetInputError extends UserError {
  override readonly name = 'MachineSetInputError';
  constructor(
    message: string,
    readonly kind: 'usage' | 'refused',
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

// ---- the image, in each platform's own form ------------------------------------------------------

const AMI = /^ami-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;

/** How to find a Windows Server image for the platform, as one shell command or one sentence. */
export function imageHelp(platform: MachineSetPlatform, where: { region?: string } = {}): string {
  switch (platform) {
    case 'AWS': {
      const region = where.region ?? '<region>';
      return `AMIs differ per region; the newest Windows Server 2022 Core AMI of ${region}: aws ec2 describe-images --region ${region} --owners amazon --filters "Name=name,Values=Windows_Server-2022-English-Core-Base-*" --query "reverse(sort_by(Images, &CreationDate))[0].ImageId" --output text`;
    }
    case 'Azure':
      return `A URN publisher:offer:sku:version; the Windows Server 2022 images of ${where.region ?? '<location>'}: az vm image list --all --location ${where.region ?? '<location>'} --publisher MicrosoftWindowsServer --offer WindowsServer --sku 2022-datacenter --query "[].urn" --output tsv (or MicrosoftWindowsServer:WindowsServer:2022-datacenter-smalldisk:latest)`;
    case 'GCP':
      return 'An image path; a family path takes its newest image: projects/windows-cloud/global/images/family/windows-2022-core (list: gcloud compute images list --project windows-cloud --filter="family~windows-2022")';
    case 'VSphere':
      return "The name (or inventory path) of a sysprepped Windows Server VM template in vCenter, prepared as WMCO's vSphere prerequisites say (VMware Tools, OpenSSH server capability, generalised with sysprep)";
    case 'Nutanix':
      return 'The name of a Windows Server image uploaded to Prism Central, for example nutanix-windows-server-2022';
  }
}

/** The image part of the provider spec for `image`, or why it is not an image of the platform's form. */
function readImage(platform: MachineSetPlatform, image: string): { value: Obj } | { why: string } {
  const value = image.trim();
  if (!value || /[\s\u0000-\u001f"'`$]/.test(value))
    return { why: 'not an image of this platform (empty, or spaces, quotes or control characters)' };
  if (isLinuxImageName(value))
    return { why: 'this looks like a Linux (RHCOS) image; a Windows MachineSet needs a Windows Server image' };
  switch (platform) {
    case 'AWS':
      if (!AMI.test(value)) return { why: 'on AWS the image is an AMI id: ami- and 8 or 17 hexadecimal digits' };
      return { value: { ami: { id: value } } };
    case 'Azure': {
      if (value.startsWith('/subscriptions/') || value.startsWith('/resourceGroups/'))
        return { value: { image: { offer: '', publisher: '', resourceID: value, sku: '', version: '' } } };
      const parts = value.split(':');
      if (parts.length !== 4 || parts.some((p) => p === ''))
        return {
          why: 'on Azure the image is a URN, publisher:offer:sku:version as az vm image list writes it, or an image resource ID',
        };
      const [publisher, offer, sku, version] = parts as [string, string, string, string];
      return { value: { image: { offer, publisher, resourceID: '', sku, version } } };
    }
    case 'GCP':
      if (!/^[A-Za-z0-9._/:-]+$/.test(value))
        return {
          why: 'on GCP the image is an image path such as projects/windows-cloud/global/images/family/windows-2022-core',
        };
      return { value: { image: value } };
    case 'VSphere':
      return { value: { template: value } };
    case 'Nutanix':
      return { value: { image: { type: 'name', name: value } } };
  }
}

/** The image part of the provider spec for `image`, or a usage error saying what the platform expects. */
export function parseImage(platform: MachineSetPlatform, image: string, where: { region?: string } = {}): Obj {
  const read = readImage(platform, image);
  if ('why' in read)
    throw new MachineSetInputError(
      `--image ${JSON.stringify(image)}: ${read.why}. ${imageHelp(platform, where)}`,
      'usage',
    );
  return read.value;
}

/**
 * Why `image` is not a Windows image in the platform's own form (one sentence), or undefined: for a prompt that shows
 * imageHelp already.
 */
export function imageProblem(platform: MachineSetPlatform, image: string): string | undefined {
  const read = readImage(platform, image);
  return 'why' in read ? `${read.why.charAt(0).toUpperCase()}${read.why.slice(1)}.` : undefined;
}

// ---- the name ------------------------------------------------------------------------------------

const LABEL_VALUE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Why `name` cannot name a Windows MachineSet on the platform, or undefined when it can. */
export function nameProblem(platform: MachineSetPlatform, name: string): string | undefined {
  if (!LABEL_VALUE.test(name))
    return 'a MachineSet name is lowercase letters, digits and "-", starting and ending with a letter or digit';
  if (name.length > NAME_LIMIT)
    return `at most ${NAME_LIMIT} characters (it is also the value of the ${MACHINESET_LABEL} label)`;
  if (SHORT_NAME_PLATFORMS.includes(platform) && name.length > SHORT_MACHINESET_NAME) {
    return `on ${platformTitle(platform)} Windows machine names are limited to ${MAX_MACHINE_NAME} characters and Machines are named <MachineSet>-<5 characters>, so a Windows MachineSet name has at most ${SHORT_MACHINESET_NAME} characters`;
  }
  return undefined;
}

/** The zone part of a default name: AWS availability zone, GCP zone suffix (as the installer names its MachineSets). */
function zoneOf(platform: MachineSetPlatform, value: Obj): string | undefined {
  if (platform === 'AWS') return str(isObj(value.placement) ? value.placement.availabilityZone : undefined);
  if (platform === 'GCP') return str(value.zone)?.split('-').pop();
  return undefined;
}

/**
 * The default name: `winworker` on Azure and vSphere (WMCO's short name), else
 * `<infra>-windows-worker-<suffix>` where the suffix is the Linux MachineSet's own
 * (`<infra>-worker-<suffix>`) or the zone. A taken name gets a number.
 */
export function defaultMachineSetName(
  platform: MachineSetPlatform,
  infra: string,
  from: MachineApiObject,
  taken: readonly string[] = [],
): string {
  const free = (n: string): boolean => !taken.includes(n);
  if (SHORT_NAME_PLATFORMS.includes(platform)) {
    const candidates = ['winworker', ...[2, 3, 4, 5, 6, 7, 8, 9].map((i) => `winwrkr-${i}`)];
    return candidates.find(free) ?? 'winworker';
  }
  const prefix = `${infra}-worker-`;
  const suffix = from.metadata.name.startsWith(prefix)
    ? from.metadata.name.slice(prefix.length)
    : zoneOf(platform, providerSpecValue(from) ?? {});
  const base = `${infra}-windows-worker${suffix ? `-${suffix}` : ''}`;
  if (free(base)) return base;
  for (let i = 2; i < 100; i++) if (free(`${base}-${i}`)) return `${base}-${i}`;
  return base;
}

// ---- the builder -----------------------------------------------------------------------------------

export interface WindowsMachineSetInput {
  /** Infrastructure `status.platformStatus.type` (or `status.platform`). */
  platform: string | undefined;
  /** Infrastructure `status.infrastructureName`. */
  infrastructureName: string | undefined;
  /** The Linux worker MachineSet to start from, as the API serves it. */
  from: MachineApiObject;
  /** The Windows image in the platform's own form. */
  image: string;
  name?: string;
  replicas?: number;
  /** Names of the MachineSets that exist: the default name avoids them. */
  taken?: readonly string[];
}

export interface WindowsMachineSet {
  platform: MachineSetPlatform;
  name: string;
  /** The MachineSet, ready to be sent (apiVersion, kind, metadata, spec). */
  object: MachineApiObject;
  /** The Linux MachineSet it was made from. */
  from: string;
  /** The region (AWS, GCP) or location (Azure) of its Machines, when the provider spec says. */
  region?: string;
}

/** The region (AWS, GCP) or location (Azure) a provider spec places its Machines in. */
export function regionOf(platform: MachineSetPlatform, value: Obj): string | undefined {
  if (platform === 'AWS') return str(isObj(value.placement) ? value.placement.region : undefined);
  if (platform === 'GCP') return str(value.region);
  if (platform === 'Azure') return str(value.location);
  return undefined;
}

/**
 * The Windows provider spec: the Linux one with the Windows image, WMCO's user data, and on Azure the Windows OS disk.
 */
function windowsProviderSpec(platform: MachineSetPlatform, linux: Obj, image: Obj): Obj {
  const value = structuredClone(linux);
  // The provider spec's own ObjectMeta is always empty ({creationTimestamp: null}) in served objects.
  delete value.metadata;
  const userData = isObj(value.userDataSecret) ? value.userDataSecret : {};
  value.userDataSecret = { ...userData, name: WINDOWS_USER_DATA_SECRET };
  switch (platform) {
    case 'AWS':
    case 'VSphere':
    case 'Nutanix':
      Object.assign(value, image);
      break;
    case 'Azure': {
      value.image = image.image;
      const osDisk = isObj(value.osDisk) ? value.osDisk : {};
      value.osDisk = { ...osDisk, osType: 'Windows' };
      break;
    }
    case 'GCP': {
      const disks = Array.isArray(value.disks) ? value.disks.filter(isObj) : [];
      const boot = disks.find((d) => d.boot === true) ?? disks[0];
      if (!boot)
        throw new MachineSetInputError(
          'the Linux MachineSet has no disks in its GCP provider spec: there is no boot disk to put the Windows image on',
          'refused',
        );
      boot.image = image.image;
      value.disks = disks;
      break;
    }
  }
  return value;
}

/** Why a Windows MachineSet cannot be made on a platform that is none of the five. */
export function platformRefusal(platform: string | undefined): MachineSetInputError {
  return new MachineSetInputError(
    `Windows MachineSets are made on AWS, Azure, GCP, vSphere and Nutanix; this cluster's platform is ${platform ? `"${platform}"` : 'unknown (the Infrastructure object has no platform)'}. Add Windows nodes with Bring-Your-Own-Host instead: kube-windows join --context C --address A.`,
    'refused',
  );
}

/** Builds the Windows MachineSet; MachineSetInputError for a platform, image or name it cannot be made with. */
export function buildWindowsMachineSet(input: WindowsMachineSetInput): WindowsMachineSet {
  const platform = input.platform;
  if (!isMachineSetPlatform(platform)) throw platformRefusal(platform);
  const infra = input.infrastructureName;
  if (!infra)
    throw new MachineSetInputError(
      'the Infrastructure object has no status.infrastructureName: the MachineSet labels cannot be written without it',
      'refused',
    );
  const linux = providerSpecValue(input.from);
  if (!linux)
    throw new MachineSetInputError(
      `the MachineSet ${input.from.metadata.name} has no spec.template.spec.providerSpec.value to start from`,
      'refused',
    );
  const region = regionOf(platform, linux);
  const image = parseImage(platform, input.image, region ? { region } : {});
  const name = input.name ?? defaultMachineSetName(platform, infra, input.from, input.taken);
  const problem = nameProblem(platform, name);
  if (problem) throw new MachineSetInputError(`--name ${JSON.stringify(name)}: ${problem}`, 'usage');
  const replicas = input.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 0)
    throw new MachineSetInputError('--replicas must be a whole number, 0 or more', 'usage');

  const selector = { [MACHINE_CLUSTER_LABEL]: infra, [MACHINESET_LABEL]: name };
  const object: MachineApiObject = {
    apiVersion: MACHINE_API_VERSION,
    kind: 'MachineSet',
    metadata: { name, namespace: MACHINE_API_NAMESPACE, labels: { [MACHINE_CLUSTER_LABEL]: infra } },
    spec: {
      replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: {
          labels: {
            [MACHINE_CLUSTER_LABEL]: infra,
            [MACHINE_ROLE_LABEL]: 'worker',
            [MACHINE_TYPE_LABEL]: 'worker',
            [MACHINESET_LABEL]: name,
            [MACHINE_OS_ID_LABEL]: MACHINE_OS_ID_WINDOWS,
          },
        },
        spec: {
          metadata: { labels: { [WORKER_ROLE_LABEL]: '' } },
          providerSpec: { value: windowsProviderSpec(platform, linux, image) },
        },
      },
    },
  };
  return { platform, name, object, from: input.from.metadata.name, ...(region ? { region } : {}) };
}

// ---- YAML with review comments -------------------------------------------------------------------

const SIZE_KEYS: Record<MachineSetPlatform, string> = {
  AWS: 'instanceType',
  Azure: 'vmSize',
  GCP: 'machineType',
  VSphere: 'numCPUs',
  Nutanix: 'vcpuSockets',
};
const IMAGE_KEYS: Record<MachineSetPlatform, string[]> = {
  AWS: ['ami'],
  Azure: ['image'],
  GCP: ['disks'],
  VSphere: ['template'],
  Nutanix: ['image'],
};

/** The MachineSet as YAML, with short comments on what to review before creating it. */
export function machineSetYaml(ms: WindowsMachineSet): string {
  const p = ms.platform;
  const comment = [
    `Windows MachineSet for ${platformTitle(p)}, made by kube-windows from the Linux MachineSet ${ms.from}:`,
    "network, credentials, zone and size are that one's. Review the image and the size, then create it.",
    'WMCO configures its Machines and writes the user-data secret; the first node takes about 10 to 15 minutes.',
  ].join('\n');
  const doc = yamlDocument(ms.object, { comment });
  const value = ['spec', 'template', 'spec', 'providerSpec', 'value'];
  const commentKey = (path: (string | number)[], text: string) => commentAboveKey(doc, path, text);
  if (SHORT_NAME_PLATFORMS.includes(p)) {
    commentKey(
      ['metadata', 'name'],
      `On ${platformTitle(p)} Windows machine names have at most ${MAX_MACHINE_NAME} characters: this name at most ${SHORT_MACHINESET_NAME}.`,
    );
  }
  commentKey(
    ['spec', 'selector'],
    'Must match the template labels below (the API server refuses a MachineSet whose selector does not).',
  );
  commentKey(
    ['spec', 'template', 'metadata', 'labels', MACHINE_OS_ID_LABEL],
    'WMCO configures only Machines labelled exactly "Windows".',
  );
  commentKey(
    [...value, 'userDataSecret'],
    `Written by WMCO; the Linux ${WORKER_USER_DATA_SECRET} would boot a VM that never becomes a node.`,
  );
  for (const key of IMAGE_KEYS[p])
    commentKey([...value, key], `The Windows image. ${imageHelp(p, ms.region ? { region: ms.region } : {})}`);
  if (p === 'Azure') commentKey([...value, 'osDisk'], 'osType Windows: Azure boots the image as Windows.');
  commentKey(
    [...value, SIZE_KEYS[p]],
    `Copied from ${ms.from}; Windows nodes want at least 2 vCPUs and 8 GiB of memory.`,
  );
  return yamlText(doc);
}

// ---- a MachineSet edited as text ------------------------------------------------------------------

/**
 * The MachineSet a YAML text holds (one document, kind MachineSet of machine.openshift.io/v1beta1,
 * a name, in openshift-machine-api), ready to be sent: what an edited draft is created from.
 * MachineSetInputError (`usage`) saying what is wrong otherwise. Read with the YAML 1.1 schema, as
 * the API server's decoder reads manifests.
 */
export function machineSetFromText(text: string): { name: string; object: MachineApiObject } {
  let docs: unknown[];
  try {
    docs = loadAll(text, { schema: YAML11_SCHEMA }).filter((d) => d !== null && d !== undefined);
  } catch (err) {
    throw new MachineSetInputError(
      `the MachineSet is not valid YAML: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`,
      'usage',
    );
  }
  if (docs.length !== 1)
    throw new MachineSetInputError(
      `the text holds ${docs.length} YAML documents; it must hold exactly one MachineSet`,
      'usage',
    );
  const doc = docs[0];
  if (!isObj(doc) || doc.kind !== 'MachineSet' || doc.apiVersion !== MACHINE_API_VERSION) {
    const what = isObj(doc)
      ? `${String(doc.apiVersion ?? 'no apiVersion')} ${String(doc.kind ?? 'no kind')}`
      : 'not a mapping';
    throw new MachineSetInputError(
      `the text is not a MachineSet (apiVersion ${MACHINE_API_VERSION}, kind MachineSet): it is ${what}`,
      'usage',
    );
  }
  const metadata = isObj(doc.metadata) ? doc.metadata : {};
  const name = str(metadata.name);
  if (!name) throw new MachineSetInputError('the MachineSet has no metadata.name', 'usage');
  const ns = metadata.namespace;
  if (ns !== undefined && ns !== MACHINE_API_NAMESPACE)
    throw new MachineSetInputError(
      `MachineSets live in namespace ${MACHINE_API_NAMESPACE}, not ${String(ns)}`,
      'usage',
    );
  const object = { ...doc, metadata: { ...metadata, name, namespace: MACHINE_API_NAMESPACE } } as MachineApiObject;
  return { name, object };
}
