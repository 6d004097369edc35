// Reading OpenShift Machine API objects (machine.openshift.io MachineSets and Machines): where their
// labels, provider spec, user data and image are, which platform they are for, and what the image
// says about the operating system. Pure: plain values in, plain values out, paths for the rules.

import { getAt, isObj, type Obj, type Path } from '../manifest/path';
import type { ObjectView } from '../manifest/workloads';
import {
  BETA_OS_LABEL,
  BUILD_LABEL,
  MACHINE_OS_ID_LABEL,
  MACHINE_ROLE_LABEL,
  MACHINE_TYPE_LABEL,
  MACHINESET_LABEL,
  OS_LABEL,
  WINDOWS_USER_DATA_SECRET,
} from '../well-known';
import type { WindowsPlatform, WindowsServerRelease } from './windows-support';

/** A platform with Windows MachineSets (platform none has no machines). */
export type MachinePlatform = Exclude<WindowsPlatform, 'None'>;

/** The platforms (Infrastructure `status.platformStatus.type`) WMCO configures MachineSet instances on. */
export const MACHINE_PLATFORMS: readonly MachinePlatform[] = ['AWS', 'Azure', 'GCP', 'VSphere', 'Nutanix'];

/**
 * On these platforms a Windows machine's name is its computer name, at most 15 characters, and a
 * MachineSet's Machines are named `<MachineSet>-<5 characters>`: so a MachineSet name of at most 9.
 */
export const SHORT_NAME_PLATFORMS: readonly MachinePlatform[] = ['Azure', 'VSphere'];
export const MAX_MACHINE_NAME = 15;
export const MACHINE_NAME_SUFFIX = 6;
export const SHORT_MACHINESET_NAME = MAX_MACHINE_NAME - MACHINE_NAME_SUFFIX;

/** What an image reference says about the operating system it boots. */
export interface ImageFacts {
  /** Where the image is named. */
  path: Path;
  /** The text shown in messages (an AMI id, an Azure URN, a template name ...). */
  text: string;
  os: 'windows' | 'linux' | 'unknown';
  /** The Windows Server release, when the name tells it. */
  server?: WindowsServerRelease;
  /** Another Windows release (2016, 2012 ...) or SAC name the name tells, which no OpenShift release supports. */
  otherWindows?: string;
  /** Why `os` was decided. */
  evidence?: string;
}

export interface MachineView {
  object: ObjectView;
  /** `MachineSet` or `Machine`. */
  kind: 'MachineSet' | 'Machine';
  /** The Machine's metadata (`spec.template.metadata` of a MachineSet, `metadata` of a Machine). */
  metadataPath: Path;
  labels: Obj;
  /** The Machine spec (`spec.template.spec` of a MachineSet, `spec` of a Machine). */
  specPath: Path;
  /** `providerSpec.value` inside the Machine spec. */
  providerPath: Path;
  provider: Obj | undefined;
  platform?: MachinePlatform;
  image?: ImageFacts;
  /** The os-id label as written, if any. */
  osId?: string;
  /** What says the machines are meant to be Windows without the os-id label or a Windows image, if anything. */
  otherSignal?: WindowsSignal;
}

/** A sign, other than the os-id label and the image, that a MachineSet or Machine is meant to be Windows. */
export interface WindowsSignal {
  path: Path;
  /** Reads after "its": "userDataSecret is windows-user-data, the secret WMCO creates for Windows machines". */
  words: string;
}

const PROVIDER_KINDS: Record<string, MachinePlatform> = {
  AWSMachineProviderConfig: 'AWS',
  AzureMachineProviderSpec: 'Azure',
  GCPMachineProviderSpec: 'GCP',
  VSphereMachineProviderSpec: 'VSphere',
  NutanixMachineProviderConfig: 'Nutanix',
};

const PROVIDER_GROUPS: [RegExp, MachinePlatform][] = [
  [/^awsproviderconfig\./, 'AWS'],
  [/^azureproviderconfig\./, 'Azure'],
  [/^gcpprovider(config)?\./, 'GCP'],
  [/^vsphereprovider(config)?\./, 'VSphere'],
  [/^nutanixprovider(config)?\./, 'Nutanix'],
];

/** The Machine API view of a MachineSet or Machine, or undefined for anything else. */
export function machineView(object: ObjectView): MachineView | undefined {
  if (!object.apiVersion.startsWith('machine.openshift.io/')) return undefined;
  const base = object.path;
  let metadataPath: Path;
  let specPath: Path;
  if (object.kind === 'MachineSet') {
    metadataPath = [...base, 'spec', 'template', 'metadata'];
    specPath = [...base, 'spec', 'template', 'spec'];
  } else if (object.kind === 'Machine') {
    metadataPath = [...base, 'metadata'];
    specPath = [...base, 'spec'];
  } else {
    return undefined;
  }
  const rel = (p: Path) => p.slice(base.length);
  const labelsValue = getAt(object.value, [...rel(metadataPath), 'labels']);
  const labels = isObj(labelsValue) ? labelsValue : {};
  const providerPath = [...specPath, 'providerSpec', 'value'];
  const providerValue = getAt(object.value, rel(providerPath));
  const provider = isObj(providerValue) ? providerValue : undefined;
  const platform = provider ? providerPlatform(provider) : undefined;
  const osIdValue = labels[MACHINE_OS_ID_LABEL];
  const osId =
    typeof osIdValue === 'string'
      ? osIdValue
      : osIdValue === undefined || osIdValue === null
        ? undefined
        : String(osIdValue);
  const view: MachineView = {
    object,
    kind: object.kind,
    metadataPath,
    labels,
    specPath,
    providerPath,
    provider,
    platform,
    osId,
  };
  if (provider && platform) view.image = imageOf(platform, provider, providerPath);
  const signal = otherWindowsSignal(object, view);
  if (signal) view.otherSignal = signal;
  return view;
}

/** Node labels only Windows nodes carry: a MachineSet that puts one on its nodes makes Windows nodes. */
const WINDOWS_NODE_LABELS: [string, RegExp][] = [
  [OS_LABEL, /^windows$/i],
  [BETA_OS_LABEL, /^windows$/i],
  ['node.openshift.io/os_id', /^windows$/i],
  [BUILD_LABEL, /./],
];

/** `<infra>-windows-worker-<zone>`, `winworker` (the 9-character Azure/vSphere names), `win-2022` …, not `winter`. */
const WINDOWS_MACHINE_NAME = /(^|[-_.])(windows|win(?:worker|node|ws)?(?:\d+)?)([-_.]|$)/i;

/**
 * The other signs WMCO's own objects carry: the user-data secret WMCO creates only for Windows
 * machines, a Windows label on the nodes the machines become, and the name (the docs' templates all
 * say `windows`). The name alone yields to an image known to be Linux.
 */
function otherWindowsSignal(object: ObjectView, view: MachineView): WindowsSignal | undefined {
  const secret = view.provider ? getAt(view.provider, ['userDataSecret', 'name']) : undefined;
  if (secret === WINDOWS_USER_DATA_SECRET)
    return {
      path: [...view.providerPath, 'userDataSecret', 'name'],
      words: `userDataSecret is ${WINDOWS_USER_DATA_SECRET}, the secret WMCO creates for Windows machines`,
    };
  const nodeLabelsPath = [...view.specPath, 'metadata', 'labels'];
  const nodeLabels = getAt(object.value, nodeLabelsPath.slice(object.path.length));
  if (isObj(nodeLabels)) {
    for (const [key, value] of WINDOWS_NODE_LABELS) {
      const v = nodeLabels[key];
      if (typeof v === 'string' && value.test(v))
        return { path: [...nodeLabelsPath, key], words: `nodes are labelled ${key}=${v}, a Windows node label` };
    }
  }
  if (view.image?.os === 'linux') return undefined;
  const setLabel = view.labels[MACHINESET_LABEL];
  const name = object.name || (typeof setLabel === 'string' ? setLabel : '');
  if (WINDOWS_MACHINE_NAME.test(name))
    return { path: [...object.path, 'metadata', 'name'], words: `name ${JSON.stringify(name)} says Windows` };
  return undefined;
}

export function providerPlatform(provider: Obj): MachinePlatform | undefined {
  if (typeof provider.kind === 'string' && PROVIDER_KINDS[provider.kind]) return PROVIDER_KINDS[provider.kind];
  const api = typeof provider.apiVersion === 'string' ? provider.apiVersion : '';
  return PROVIDER_GROUPS.find(([re]) => re.test(api))?.[1];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The image a provider spec boots, where it is, and what its name says. */
function imageOf(platform: MachinePlatform, provider: Obj, providerPath: Path): ImageFacts | undefined {
  switch (platform) {
    case 'AWS': {
      const id = str(getAt(provider, ['ami', 'id']));
      if (id) return { path: [...providerPath, 'ami', 'id'], text: id, ...classifyName(id) };
      const filters = getAt(provider, ['ami', 'filters']);
      if (Array.isArray(filters)) {
        for (let i = 0; i < filters.length; i++) {
          const values = getAt(filters[i], ['values']);
          if (!Array.isArray(values)) continue;
          for (let j = 0; j < values.length; j++) {
            const v = str(values[j]);
            if (v) return { path: [...providerPath, 'ami', 'filters', i, 'values', j], text: v, ...classifyName(v) };
          }
        }
      }
      return undefined;
    }
    case 'Azure': {
      const image = getAt(provider, ['image']);
      if (!isObj(image)) return undefined;
      const publisher = str(image.publisher);
      const offer = str(image.offer);
      const sku = str(image.sku);
      const resourceID = str(image.resourceID);
      if (publisher || offer || sku) {
        const text = [publisher ?? '', offer ?? '', sku ?? '', str(image.version) ?? ''].join(':');
        const path = [...providerPath, 'image', sku ? 'sku' : publisher ? 'publisher' : 'offer'];
        return { path, text, ...classifyAzure(publisher, offer, sku) };
      }
      if (resourceID)
        return {
          path: [...providerPath, 'image', 'resourceID'],
          text: resourceID,
          ...classifyAzureResource(resourceID),
        };
      return undefined;
    }
    case 'GCP': {
      const disks = getAt(provider, ['disks']);
      if (!Array.isArray(disks)) return undefined;
      const index = disks.findIndex((d) => isObj(d) && d.boot === true);
      const i = index >= 0 ? index : 0;
      const image = str(getAt(disks[i], ['image']));
      return image ? { path: [...providerPath, 'disks', i, 'image'], text: image, ...classifyName(image) } : undefined;
    }
    case 'VSphere': {
      const template = str(provider.template);
      return template ? { path: [...providerPath, 'template'], text: template, ...classifyName(template) } : undefined;
    }
    case 'Nutanix': {
      const name = str(getAt(provider, ['image', 'name']));
      if (name) return { path: [...providerPath, 'image', 'name'], text: name, ...classifyName(name) };
      const uuid = str(getAt(provider, ['image', 'uuid']));
      return uuid ? { path: [...providerPath, 'image', 'uuid'], text: uuid, os: 'unknown' } : undefined;
    }
  }
}

type Classified = Pick<ImageFacts, 'os' | 'server' | 'otherWindows' | 'evidence'>;

const LINUX_NAME = /(^|[^a-z])(rhcos|fcos|scos|coreos|rhel|fedora|centos|ubuntu|linux)([^a-z]|$)/i;
const WINDOWS_NAME = /windows|(^|[^a-z])win(\d|[^a-z]|$)|(^|[^a-z])ws20\d\d/i;
const SERVER_YEAR = /(?:^|[^0-9])(2012|2016|2019|2022|2025)(?:[^0-9]|$)/;
const SAC = /(?:^|[^0-9a-z])(1809|1903|1909|2004|20h2)(?:[^0-9a-z]|$)/i;

/** Decides from a free-form name (AMI filter, GCP image path, vSphere template, Nutanix image). */
function classifyName(name: string): Classified {
  if (LINUX_NAME.test(name))
    return { os: 'linux', evidence: `the name ${JSON.stringify(name)} is a Linux (RHCOS) image's` };
  if (!WINDOWS_NAME.test(name)) return { os: 'unknown' };
  return { os: 'windows', evidence: 'the image name says Windows', ...serverOf(name) };
}

function serverOf(text: string): Pick<ImageFacts, 'server' | 'otherWindows'> {
  const year = SERVER_YEAR.exec(text)?.[1];
  if (year === '2019' || year === '2022' || year === '2025') return { server: year };
  if (year) return { otherWindows: `Windows Server ${year}` };
  const sac = SAC.exec(text)?.[1];
  if (sac?.toUpperCase() === '20H2') return { server: '20H2' };
  if (sac === '1809') return { server: '2019' };
  return sac ? { otherWindows: `Windows Server ${sac}` } : {};
}

function classifyAzure(publisher: string | undefined, offer: string | undefined, sku: string | undefined): Classified {
  const all = `${publisher ?? ''} ${offer ?? ''} ${sku ?? ''}`;
  if (/^(redhat|azureopenshift)$/i.test(publisher ?? '') || LINUX_NAME.test(all) || /aro4|rh-ocp-worker/i.test(all)) {
    return { os: 'linux', evidence: `${publisher ?? ''}:${offer ?? ''} is a Red Hat (RHCOS) image` };
  }
  if (!/windows/i.test(all)) return { os: 'unknown' };
  return {
    os: 'windows',
    evidence: `${publisher ?? ''}:${offer ?? ''} is a Windows Server image`,
    ...serverOf(sku ?? offer ?? ''),
  };
}

function classifyAzureResource(id: string): Classified {
  // The cluster's own image (installer-created gallery or managed image) is RHCOS.
  if (LINUX_NAME.test(id) || /\/galleries\/gallery_/i.test(id))
    return { os: 'linux', evidence: 'it is the cluster’s own RHCOS image' };
  return WINDOWS_NAME.test(id)
    ? { os: 'windows', evidence: 'the image name says Windows', ...serverOf(id) }
    : { os: 'unknown' };
}

/**
 * Whether a MachineSet or Machine is meant to be Windows: it carries the os-id label (not a Linux
 * value), its image is a Windows one, or another sign says so (otherWindowsSignal).
 */
export function isWindowsMachine(view: MachineView): boolean {
  return meantAsWindows(view.osId, view.image) || view.otherSignal !== undefined;
}

function meantAsWindows(osId: string | undefined, image: ImageFacts | undefined): boolean {
  if (osId !== undefined && !LINUX_NAME.test(osId)) return true;
  return image?.os === 'windows';
}

/**
 * The same decision on a MachineSet as the API serves it (no source positions): the tree, the CLI and the builder use
 * it.
 */
function isWindowsMachineSetObject(ms: { spec?: unknown; metadata?: unknown }): boolean {
  const name = getAt(ms.metadata, ['name']);
  const view = machineView({
    kind: 'MachineSet',
    apiVersion: 'machine.openshift.io/v1beta1',
    name: typeof name === 'string' ? name : '',
    namespace: undefined,
    value: ms as Obj,
    path: [],
  });
  return view !== undefined && isWindowsMachine(view);
}

/** A Linux (RHCOS and other) image name. */
export const isLinuxImageName = (name: string): boolean => LINUX_NAME.test(name);

/**
 * Placeholders the documentation templates use: `<infrastructureID>`, `<windows_server_ami>`, `<VM Network Name>` ...
 */
const PLACEHOLDER = /<[A-Za-z_][A-Za-z0-9_ ./-]{0,60}>/g;

/** Every string in `value` (depth-first, keys in order) with a placeholder, with its path; at most `limit`. */
export function placeholdersIn(
  value: unknown,
  path: Path,
  limit = 50,
): { path: Path; text: string; placeholders: string[] }[] {
  const out: { path: Path; text: string; placeholders: string[] }[] = [];
  const walk = (v: unknown, p: Path, depth: number) => {
    if (out.length >= limit || depth > 24) return;
    if (typeof v === 'string') {
      const found = v.match(PLACEHOLDER);
      if (found) out.push({ path: p, text: v, placeholders: [...new Set(found)] });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...p, i], depth + 1));
    } else if (isObj(v)) {
      for (const [k, item] of Object.entries(v)) walk(item, [...p, k], depth + 1);
    }
  };
  walk(value, path, 0);
  return out;
}

/** A MachineSet as read here (machineset.ts's MachineApiObject, or any object the API served). */
type MachineSetLike = { spec?: Record<string, unknown>; [k: string]: unknown };

/** spec.template.spec.providerSpec.value of a MachineSet, or undefined. */
export function providerSpecValue(ms: MachineSetLike): Obj | undefined {
  const t = ms.spec?.template;
  const spec = isObj(t) ? t.spec : undefined;
  const ps = isObj(spec) ? spec.providerSpec : undefined;
  return isObj(ps) && isObj(ps.value) ? ps.value : undefined;
}

export const platformTitle = (p: MachinePlatform): string => (p === 'VSphere' ? 'vSphere' : p);

/** The template labels of a MachineSet (spec.template.metadata.labels). */
function templateLabels(ms: MachineSetLike): Record<string, string> {
  const t = ms.spec?.template;
  const labels = isObj(t) && isObj(t.metadata) ? t.metadata.labels : undefined;
  return isObj(labels) ? (labels as Record<string, string>) : {};
}

/**
 * A Windows MachineSet: the os-id label (a misspelt one is still meant as Windows) or a Windows image; the rules decide
 * the same way.
 */
export const isWindowsMachineSet = (ms: MachineSetLike): boolean => isWindowsMachineSetObject(ms);

/** A Linux worker MachineSet: not Windows, and its Machines are workers (not infra, not control plane). */
export function isLinuxWorkerMachineSet(ms: MachineSetLike): boolean {
  const labels = templateLabels(ms);
  return (
    !isWindowsMachineSet(ms) &&
    (labels[MACHINE_ROLE_LABEL] ?? 'worker') === 'worker' &&
    (labels[MACHINE_TYPE_LABEL] ?? 'worker') === 'worker'
  );
}
