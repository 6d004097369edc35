// Making a Windows MachineSet on an OpenShift cluster from its own Linux worker MachineSet, for the
// CLI (`kube-windows machineset create`) and VS Code alike: read the Infrastructure and the
// MachineSets, refuse when the platform is not one WMCO supports for MachineSets, when WMCO is not
// installed or when cloud-private-key is missing, build the MachineSet (core/openshift/windows-machineset),
// then create it with a server-side dry run first.
import {
  buildWindowsMachineSet,
  defaultMachineSetName,
  isMachineSetPlatform,
  machineSetYaml,
  MachineSetInputError,
  platformRefusal,
  providerSpecValue,
  regionOf,
  type MachineApiObject,
  type MachineSetPlatform,
  type WindowsMachineSet,
} from '../core/openshift/windows-machineset';
import { KEY_SECRET, KEY_SECRET_KEY, WMCO_NAMESPACE } from '../core/well-known';
import type { KubeClient } from '../cluster/kube-client';
import { createMachineSet, getMachineSet, machineSetsByKind, readInfrastructure } from '../cluster/machinesets';
import { keySecret, wmcoCsv } from '../cluster/wmco';
import { clusterVersion } from '../cluster/openshift';
import { parseOpenShiftRelease, platformVerdict, windowsPlatform } from '../core/openshift/windows-support';
import { blocking, type Finding } from '../core/windows/findings';
import { machineSetProxyFindings } from './proxy-preflight';

export { MachineSetInputError, machineSetFromText } from '../core/openshift/windows-machineset';

export interface PrepareOptions {
  kube: KubeClient;
  /** The Windows image in the platform's own form. */
  image: string;
  /** The Linux worker MachineSet to start from (default: the first worker one by name). */
  from?: string;
  name?: string;
  replicas?: number;
  wmcoNamespace?: string;
  signal?: AbortSignal;
}

export interface PreparedMachineSet {
  built: WindowsMachineSet;
  /** The MachineSet as YAML with review comments. */
  yaml: string;
  /**
   * Why creating it now would be refused (WMCO not installed, cloud-private-key missing); empty when it can be created.
   */
  refusals: string[];
  /** What the proxy preflight found (empty on a cluster without a cluster-wide proxy). */
  proxy?: Finding[];
}

/** The refusal when secret cloud-private-key is missing: what it is for and how to create it. */
function missingKeyMessage(ns: string): string {
  return (
    `Secret ${KEY_SECRET} is missing in namespace ${ns}: WMCO needs that private key to reach the Windows VMs over SSH, and writes the user data of Windows Machines from it. ` +
    `Create it with the join command's WMCO setup (kube-windows join --context C --address A --key FILE creates it from FILE), or: ` +
    `oc create secret generic ${KEY_SECRET} --from-file=${KEY_SECRET_KEY}=<private key file> -n ${ns}`
  );
}

/**
 * Reads what the MachineSet is made from and builds it. Throws MachineSetInputError: `refused`
 * (platform, no Linux worker MachineSet) or `usage` (image, name, --from); what would refuse the
 * creation itself (WMCO, cloud-private-key) comes back in `refusals`, so that a preview can still be
 * shown. API failures are thrown as they come (ApiError ...).
 */
export async function prepareWindowsMachineSet(o: PrepareOptions): Promise<PreparedMachineSet> {
  const ns = o.wmcoNamespace ?? WMCO_NAMESPACE;
  const infra = await readInfrastructure(o.kube, o.signal);
  if (!infra) throw new MachineSetInputError(NO_INFRASTRUCTURE, 'refused');
  await refuseUnsupportedRelease(o.kube, infra.platform, o.signal);
  // The platform first: on a platform without MachineSets, WMCO and the key are beside the point.
  const sets = await machineSetsByKind(o.kube, o.signal);
  let from: MachineApiObject | undefined;
  if (o.from) {
    from = await getMachineSet(o.kube, o.from, o.signal);
    if (!from)
      throw new MachineSetInputError(
        `--from ${o.from}: there is no MachineSet of that name in openshift-machine-api (Linux workers: ${names(sets.linuxWorkers)})`,
        'usage',
      );
  } else from = sets.linuxWorkers[0];
  const taken = [...sets.windows, ...sets.linuxWorkers, ...sets.other].map((m) => m.metadata.name);
  const check = (): WindowsMachineSet => {
    if (!from)
      throw new MachineSetInputError(
        `the cluster has no Linux worker MachineSet to start from (MachineSets: ${names([...sets.linuxWorkers, ...sets.windows, ...sets.other])})`,
        'refused',
      );
    return buildWindowsMachineSet({
      platform: infra.platform,
      infrastructureName: infra.infrastructureName,
      from,
      image: o.image,
      taken,
      ...(o.name !== undefined ? { name: o.name } : {}),
      ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
    });
  };
  // Platform and inputs are checked (and refused) before WMCO: the first thing to fix comes first.
  const built = check();
  const refusals = (await creationRefusals(o.kube, ns, o.signal)).map((r) => r.message);
  // A proxy that no Machine could use refuses too: nothing is created that would stall at its first pull.
  const proxy = await machineSetProxyFindings(o.kube, o.signal);
  refusals.push(...blocking(proxy).map((f) => `${f.title}. ${f.fix ?? ''}`.trim()));
  return { built, yaml: machineSetYaml(built), refusals, proxy };
}

/** What would refuse creating a Windows MachineSet now, with what would set it up (the join command's WMCO setup). */
export interface CreationRefusal {
  offer: 'install-wmco' | 'create-key-secret';
  message: string;
}

/** WMCO not installed, or secret cloud-private-key missing (empty: a Windows MachineSet can be created). */
export async function creationRefusals(
  kube: KubeClient,
  wmcoNamespace = WMCO_NAMESPACE,
  signal?: AbortSignal,
): Promise<CreationRefusal[]> {
  const ns = wmcoNamespace;
  if (!(await wmcoCsv(kube, signal, ns))) {
    return [
      {
        offer: 'install-wmco',
        message: `WMCO is not installed in namespace ${ns} (no windows-machine-config-operator ClusterServiceVersion): nothing would configure the Windows Machines. Install it from OperatorHub, or with kube-windows join --install-wmco Automatic.`,
      },
    ];
  }
  if (!(await keySecret(kube, signal, ns)).present)
    return [{ offer: 'create-key-secret', message: missingKeyMessage(ns) }];
  return [];
}

/**
 * What a Windows MachineSet can be made from on this cluster: its platform and its Linux worker MachineSets (names,
 * first the default).
 */
export interface MachineSetSources {
  platform: MachineSetPlatform;
  region?: string;
  linuxWorkers: string[];
  /** The name a Windows MachineSet made from each Linux worker gets when none is typed (what the question shows). */
  defaultNames: Record<string, string>;
}

/**
 * Reads the platform and the Linux worker MachineSets, for the questions asked before building one
 * (VS Code asks the image in the platform's own form). Throws MachineSetInputError (`refused`) when
 * the cluster is not OpenShift, the platform is none of the five, or there is no Linux worker MachineSet.
 */
export async function machineSetSources(kube: KubeClient, signal?: AbortSignal): Promise<MachineSetSources> {
  const infra = await readInfrastructure(kube, signal);
  if (!infra) throw new MachineSetInputError(NO_INFRASTRUCTURE, 'refused');
  if (!isMachineSetPlatform(infra.platform)) throw platformRefusal(infra.platform);
  await refuseUnsupportedRelease(kube, infra.platform, signal);
  const sets = await machineSetsByKind(kube, signal);
  if (!sets.linuxWorkers.length)
    throw new MachineSetInputError(
      `the cluster has no Linux worker MachineSet to start from (MachineSets: ${names([...sets.windows, ...sets.other])})`,
      'refused',
    );
  const first = providerSpecValue(sets.linuxWorkers[0] as MachineApiObject);
  const region = first ? regionOf(infra.platform, first) : undefined;
  const taken = [...sets.windows, ...sets.linuxWorkers, ...sets.other].map((m) => m.metadata.name);
  const defaultNames = Object.fromEntries(
    sets.linuxWorkers.map((m) => [
      m.metadata.name,
      defaultMachineSetName(infra.platform as MachineSetPlatform, infra.infrastructureName ?? '', m, taken),
    ]),
  );
  return {
    platform: infra.platform,
    ...(region ? { region } : {}),
    linuxWorkers: sets.linuxWorkers.map((m) => m.metadata.name),
    defaultNames,
  };
}

/**
 * The support table's row for the cluster's release (ClusterVersion): Windows nodes on a platform
 * that release does not support are refused with the release named ("not supported on OpenShift
 * 4.6 (supported from 4.12)"). An unreadable ClusterVersion leaves the decision to the platform check.
 */
async function refuseUnsupportedRelease(
  kube: KubeClient,
  platformType: string | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const platform = windowsPlatform(platformType);
  if (!platform || platform === 'None') return;
  const version = (await clusterVersion(kube, signal).catch(() => undefined))?.status?.desired?.version;
  const release = version ? parseOpenShiftRelease(version) : undefined;
  if (!release) return;
  const verdict = platformVerdict(platform, release);
  if (!verdict.supported) throw new MachineSetInputError(`${verdict.reason}; see ${verdict.source}`, 'refused');
}

const NO_INFRASTRUCTURE =
  'the cluster has no Infrastructure object (config.openshift.io/v1 infrastructures/cluster): Windows MachineSets are made on OpenShift clusters only';

function names(list: MachineApiObject[]): string {
  return list.map((m) => m.metadata.name).join(', ') || 'none';
}

/**
 * Creates the MachineSet (built, or read from an edited text): a server-side dry run first (schema, defaults,
 * admission), then for real. Returns the stored object.
 */
export async function createWindowsMachineSet(
  kube: KubeClient,
  built: Pick<WindowsMachineSet, 'name' | 'object'>,
  signal?: AbortSignal,
  onStep?: (message: string) => void,
): Promise<MachineApiObject> {
  await createMachineSet(kube, built.object, { dryRun: true }, signal);
  onStep?.(`The API server accepted MachineSet ${built.name} in a dry run.`);
  const created = await createMachineSet(kube, built.object, {}, signal);
  onStep?.(`MachineSet ${built.name} created.`);
  return created;
}
