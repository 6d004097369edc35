// What each OpenShift release supports for Windows nodes: platforms, Windows Server versions per
// platform, and cluster features (proxy, disconnected, private registries, storage, networking).
// Encoded once, from the documents named next to each row; rules, preflights and the CLI read it
// here and say "not supported on OpenShift 4.6 (supported from 4.11)" instead of guessing.
// Pure data and small pure functions: no I/O.

import type { ClusterSnapshot } from '../rules/facts';

/** An OpenShift release as major.minor (4.16); patch levels do not change Windows support. */
export interface OpenShiftRelease {
  major: number;
  minor: number;
}

/** Infrastructure `status.platformStatus.type` values Windows nodes can be on (None = platform none, BYOH only). */
export type WindowsPlatform = 'AWS' | 'Azure' | 'GCP' | 'VSphere' | 'Nutanix' | 'None';

/** Windows Server releases the documents name (20H2 was a semi-annual channel release). */
export type WindowsServerRelease = '2019' | '2022' | '2025' | '20H2';

/** A span of releases: from `since`, through `until` when support ended. */
export interface SupportSpan {
  since: string;
  until?: string;
  /** Where this was read. */
  source: string;
}

export interface PlatformSupport {
  /** How the documents name the platform. */
  label: string;
  /** Windows nodes on this platform at all. */
  windows: SupportSpan;
  /** Windows Server releases by the first and last OpenShift release that supports them there. */
  servers: Partial<Record<WindowsServerRelease, SupportSpan>>;
  /** How Windows nodes get machines there. */
  provisioning: 'MachineSet' | 'BYOH';
  /** Hybrid OVN-Kubernetes needs a custom VXLAN port on this platform (and then not Windows Server 2019). */
  customVxlanPort?: boolean;
  /** A caveat the documents add. */
  note?: string;
}

const OCP_DOCS = 'https://docs.openshift.com/container-platform';
const WMCO_REPO = 'https://github.com/openshift/windows-machine-config-operator';
const SRC = {
  ocp46: `${OCP_DOCS}/4.6/windows_containers/understanding-windows-container-workloads.html`,
  ocp47: `${OCP_DOCS}/4.7/windows_containers/understanding-windows-container-workloads.html`,
  okd48: 'https://docs.okd.io/4.8/windows_containers/understanding-windows-container-workloads.html',
  wmco5: `${OCP_DOCS}/4.10/windows_containers/windows-containers-release-notes-5-x.html`,
  wmco6: `${OCP_DOCS}/4.11/windows_containers/windows-containers-release-notes-6-x.html`,
  wmco9: `${OCP_DOCS}/4.14/windows_containers/windows-containers-release-notes-9-x.html`,
  wmco9prereqs: `${OCP_DOCS}/4.14/windows_containers/wmco_rn/windows-containers-release-notes-9-x-prereqs.html`,
  wmcoPrereqs: `${WMCO_REPO}/blob/master/docs/wmco-prerequisites.md`,
  wmcoReadme: `${WMCO_REPO}/blob/master/README.md`,
  // WMCO commit df8690560 "[docs] Declare support for windows server 2025" (WMCO 11.0.0, after 10.22).
  ws2025: `${WMCO_REPO}/commit/df8690560`,
  // WMCO 10.21 release notes: the last WMCO that supports Windows Server 2019.
  ws2019end: 'https://github.com/openshift/openshift-docs/pull/105866',
  // openshift-docs "WMCO applies image mirroring settings to Windows instances and disconnected support", cherry-picked
  // to 4.16.
  disconnected: 'https://github.com/openshift/openshift-docs/pull/74918',
  // WMCO commit d2e5766c9 "[doc] Adjust private registry support statement" (WMCO 10.16.0).
  privateRegistries: `${WMCO_REPO}/commit/d2e5766c9`,
};

/** AWS and Azure share their history: 4.6 with Windows Server 2019 (through 4.21), 2022 from 4.11, 2025 from 5.0. */
function firstClouds(label: string): PlatformSupport {
  return {
    label,
    windows: { since: '4.6', source: SRC.ocp46 },
    servers: {
      '2019': { since: '4.6', until: '4.21', source: `${SRC.ocp46} ; ${SRC.ws2019end}` },
      '2022': { since: '4.11', source: SRC.wmco6 },
      '2025': { since: '5.0', source: SRC.ws2025 },
    },
    provisioning: 'MachineSet',
    note: 'before 4.11 (WMCO 5 and older) the Windows Server 2019 image had to have Docker installed',
  };
}

/**
 * Platforms by Infrastructure platform type. AWS and Azure: 4.6 (WMCO 1.0); WMCO's own table now
 * starts them at 4.11 because WMCO before 6.0 needed Windows Server 2019 images with Docker, which
 * Microsoft and AWS stopped publishing.
 */
export const PLATFORM_SUPPORT: Record<WindowsPlatform, PlatformSupport> = {
  AWS: firstClouds('AWS'),
  Azure: firstClouds('Azure'),
  VSphere: {
    label: 'vSphere',
    windows: { since: '4.7', source: SRC.ocp47 },
    servers: {
      '20H2': { since: '4.7', until: '4.10', source: `${SRC.ocp47} ; ${SRC.wmco6}` },
      '2022': { since: '4.10', source: SRC.wmco5 },
      '2025': { since: '5.0', source: SRC.ws2025 },
    },
    provisioning: 'MachineSet',
    customVxlanPort: true,
  },
  GCP: {
    label: 'GCP',
    windows: { since: '4.12', source: SRC.wmcoPrereqs },
    servers: { '2022': { since: '4.12', source: SRC.wmcoPrereqs }, '2025': { since: '5.0', source: SRC.ws2025 } },
    provisioning: 'MachineSet',
  },
  Nutanix: {
    label: 'Nutanix',
    windows: { since: '4.14', source: SRC.wmcoPrereqs },
    servers: { '2022': { since: '4.14', source: SRC.wmco9prereqs }, '2025': { since: '5.0', source: SRC.ws2025 } },
    provisioning: 'MachineSet',
  },
  None: {
    label: 'platform none (Bring-Your-Own-Host)',
    windows: { since: '4.8', source: SRC.okd48 },
    servers: {
      '2019': { since: '4.8', until: '4.21', source: `${SRC.okd48} ; ${SRC.ws2019end}` },
      '2022': { since: '4.10', source: SRC.wmco5 },
    },
    provisioning: 'BYOH',
  },
};

export type WindowsFeature =
  'byoh' | 'clusterWideProxy' | 'disconnected' | 'privateRegistries' | 'csiStorage' | 'hybridOvnKubernetes';

export interface FeatureSupport {
  label: string;
  /** First release that supports it; absent when every release with Windows nodes does, or when no document pins it. */
  since?: string;
  /** Every release requires it (not an option). */
  required?: boolean;
  /** Last release that does not support it, where no document pins the first one that does. */
  unsupportedThrough?: string;
  note?: string;
  source: string;
}

export const FEATURE_SUPPORT: Record<WindowsFeature, FeatureSupport> = {
  // 4.6: hybrid networking with OVN-Kubernetes is the only supported network; still so today.
  hybridOvnKubernetes: {
    label: 'hybrid networking with OVN-Kubernetes',
    required: true,
    note: 'vSphere needs a custom VXLAN port, which Windows Server 2019 does not support',
    source: `${SRC.ocp46} ; ${SRC.wmcoPrereqs}`,
  },
  byoh: { label: 'Bring-Your-Own-Host Windows instances', since: '4.8', source: SRC.okd48 },
  // 4.6 lists the cluster-wide proxy as unsupported; WMCO 9.0.0 (4.14) adds it.
  clusterWideProxy: { label: 'a cluster-wide proxy', since: '4.14', source: `${SRC.ocp46} ; ${SRC.wmco9}` },
  // 4.6 lists disconnected clusters as unsupported; mirror settings and disconnected support arrive in 4.16.
  disconnected: { label: 'disconnected clusters', since: '4.16', source: `${SRC.ocp46} ; ${SRC.disconnected}` },
  // WMCO 6 (4.11) still lists secure private registries as a known issue; WMCO 10.16 docs drop the restriction.
  privateRegistries: {
    label: 'pulling from private registries',
    since: '4.16',
    source: `${SRC.wmco6} ; ${SRC.privateRegistries}`,
  },
  // 4.6 supports in-tree storage drivers only; WMCO now runs csi-proxy, the administrator deploys the Windows CSI
  // driver.
  csiStorage: {
    label: 'CSI storage drivers (in-tree only on 4.6)',
    unsupportedThrough: '4.6',
    note: 'the first release with csi-proxy is not pinned here',
    source: `${SRC.ocp46} ; ${SRC.wmcoReadme}`,
  },
};

const RELEASE = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.+-]*)?$/;

/** `4.16`, `4.16.3`, `4.16.0-rc.1`, `v4.16` → {4, 16}; undefined for anything else. */
export function parseOpenShiftRelease(text: string): OpenShiftRelease | undefined {
  const m = RELEASE.exec(text.trim());
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return Number.isSafeInteger(major) && Number.isSafeInteger(minor) ? { major, minor } : undefined;
}

function releaseText(r: OpenShiftRelease): string {
  return `${r.major}.${r.minor}`;
}

function compareReleases(a: OpenShiftRelease, b: OpenShiftRelease): number {
  return a.major - b.major || a.minor - b.minor;
}

function release(text: string): OpenShiftRelease {
  const r = parseOpenShiftRelease(text);
  if (!r) throw new Error(`bad release in the support table: ${text}`);
  return r;
}

function inSpan(r: OpenShiftRelease, span: SupportSpan): boolean {
  return (
    compareReleases(r, release(span.since)) >= 0 &&
    (span.until === undefined || compareReleases(r, release(span.until)) <= 0)
  );
}

/** The Windows platform of an Infrastructure platform type (case-insensitive; `vsphere` → VSphere). */
export function windowsPlatform(type: string | undefined): WindowsPlatform | undefined {
  if (!type) return undefined;
  const t = type.toLowerCase();
  return (Object.keys(PLATFORM_SUPPORT) as WindowsPlatform[]).find((p) => p.toLowerCase() === t);
}

/** Why a platform or a Windows Server release is not supported on a release, in words; undefined when it is. */
export type Verdict = { supported: true } | { supported: false; reason: string; source: string };

/** Windows nodes on `platform` at release `r`. */
export function platformVerdict(platform: WindowsPlatform, r: OpenShiftRelease): Verdict {
  const row = PLATFORM_SUPPORT[platform];
  if (inSpan(r, row.windows)) return { supported: true };
  return {
    supported: false,
    reason: `Windows nodes on ${row.label} are not supported on OpenShift ${releaseText(r)} (supported from ${row.windows.since})`,
    source: row.windows.source,
  };
}

/** A cluster feature on Windows nodes at release `r`; supported when the table cannot tell otherwise. */
export function featureVerdict(feature: WindowsFeature, r: OpenShiftRelease): Verdict {
  const row = FEATURE_SUPPORT[feature];
  if (row.since && compareReleases(r, release(row.since)) < 0) {
    return {
      supported: false,
      reason: `${row.label} on Windows nodes is not supported on OpenShift ${releaseText(r)} (supported from ${row.since})`,
      source: row.source,
    };
  }
  if (row.unsupportedThrough && compareReleases(r, release(row.unsupportedThrough)) <= 0) {
    return {
      supported: false,
      reason: `${row.label} on Windows nodes is not supported on OpenShift ${releaseText(r)}`,
      source: row.source,
    };
  }
  return { supported: true };
}

/** Windows Server `server` on `platform` at release `r`. */
export function serverVerdict(platform: WindowsPlatform, server: WindowsServerRelease, r: OpenShiftRelease): Verdict {
  const row = PLATFORM_SUPPORT[platform];
  const span = row.servers[server];
  const name = `Windows Server ${server}`;
  if (!span) {
    const others = supportedServers(platform, r);
    return {
      supported: false,
      reason: `${name} is not supported on ${row.label} by any OpenShift release${others.length > 0 ? ` (OpenShift ${releaseText(r)} supports ${others.map((s) => `Windows Server ${s}`).join(', ')} there)` : ''}`,
      source: SRC.wmcoPrereqs,
    };
  }
  if (inSpan(r, span)) return { supported: true };
  const when =
    compareReleases(r, release(span.since)) < 0 ? `supported from ${span.since}` : `supported through ${span.until}`;
  return {
    supported: false,
    reason: `${name} on ${row.label} is not supported on OpenShift ${releaseText(r)} (${when})`,
    source: span.source,
  };
}

/** The Windows Server releases `platform` supports at `r`, newest first. */
export function supportedServers(platform: WindowsPlatform, r: OpenShiftRelease): WindowsServerRelease[] {
  const spans = PLATFORM_SUPPORT[platform].servers;
  return (Object.keys(spans) as WindowsServerRelease[])
    .filter((s) => inSpan(r, spans[s] as SupportSpan))
    .sort((a, b) => b.localeCompare(a));
}

/** Whether release `r` supports `feature`: true, false, or undefined when no document pins it. */
export function featureSupported(feature: WindowsFeature, r: OpenShiftRelease): boolean | undefined {
  const row = FEATURE_SUPPORT[feature];
  if (row.required || row.since === undefined) return row.required ? true : undefined;
  return compareReleases(r, release(row.since)) >= 0;
}

/**
 * The cluster facts with an OpenShift release chosen by hand (`--openshift-version`): it wins over the
 * version a live snapshot reports, because asking "what about 4.N" is the point of giving it (planning
 * an upgrade, checking files for another cluster). Everything else the snapshot knows stays.
 */
export function withOpenShiftRelease(cluster: ClusterSnapshot | undefined, r: OpenShiftRelease): ClusterSnapshot {
  const base: ClusterSnapshot = cluster ?? {
    name: `OpenShift ${releaseText(r)}`,
    stated: true,
    windowsNodes: [],
    runtimeClasses: [],
  };
  return { ...base, flavour: 'openshift', openshift: { ...base.openshift, version: releaseText(r) } };
}
