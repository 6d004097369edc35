// The Kubernetes release (a minor version, "1.35") the rules decide by: parsed from what users type
// and what servers report (`1.35`, `v1.35.4`, `v1.34.2+k3s1`), compared, defaulted, and derived from
// an OpenShift release. Pure.

/** A Kubernetes minor release: 1.35. Patch levels do not change what the API server accepts. */
export interface KubernetesRelease {
  major: number;
  minor: number;
}

/**
 * The release the rules assume when neither the user nor a cluster says: the newest one the project
 * tests against (the real API server suite runs on it), so advice is right for current clusters.
 */
export const DEFAULT_KUBERNETES_RELEASE = '1.37';

/** The oldest release whose behaviour the rules know; older ones are refused rather than guessed at. */
export const OLDEST_KUBERNETES_RELEASE = '1.25';

const RELEASE = /^v?(\d{1,3})\.(\d{1,3})(?:\.(\d{1,6}))?(?:[-+][0-9A-Za-z.+-]*)?$/;

/** `1.35`, `v1.35`, `1.35.4`, `v1.35.4-gke.100`, `v1.34.2+k3s1` → {1, 35}; undefined for anything else. */
export function parseKubernetesRelease(text: string | undefined): KubernetesRelease | undefined {
  if (text === undefined) return undefined;
  const m = RELEASE.exec(text.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]) };
}

export function releaseText(r: KubernetesRelease): string {
  return `${r.major}.${r.minor}`;
}

/** The "1.N" text of a version, or undefined when it is not one (normalises `v1.35.4` to `1.35`). */
export function normalizeRelease(text: string | undefined): string | undefined {
  const r = parseKubernetesRelease(text);
  return r ? releaseText(r) : undefined;
}

/** Negative when a is older than b, zero when the same release, positive when newer. */
export function compareReleases(a: KubernetesRelease, b: KubernetesRelease): number {
  return a.major - b.major || a.minor - b.minor;
}

function mustParse(text: string): KubernetesRelease {
  const r = parseKubernetesRelease(text);
  if (!r) throw new Error(`not a Kubernetes release: ${text}`);
  return r;
}

/** Whether `version` ("1.N") is `since` or later. An unreadable version counts as the default release. */
export function releaseAtLeast(version: string | undefined, since: string): boolean {
  const v = parseKubernetesRelease(version) ?? mustParse(DEFAULT_KUBERNETES_RELEASE);
  return compareReleases(v, mustParse(since)) >= 0;
}

/** What is wrong with a `--kubernetes-version` value, or undefined when it names a release the rules know. */
export function kubernetesReleaseProblem(value: string): string | undefined {
  const r = parseKubernetesRelease(value);
  if (!r || r.major !== 1)
    return `takes a Kubernetes release such as ${DEFAULT_KUBERNETES_RELEASE} (got "${JSON.stringify(value).slice(1, -1)}")`;
  if (compareReleases(r, mustParse(OLDEST_KUBERNETES_RELEASE)) < 0)
    return `${releaseText(r)} is older than ${OLDEST_KUBERNETES_RELEASE}, the oldest release the rules know`;
  return undefined;
}

/**
 * OpenShift 4.N ships Kubernetes 1.(N+13): 4.12 → 1.25, 4.16 → 1.29, 4.21 → 1.34 (each release's
 * notes name its Kubernetes version; the offset has held since 4.6 → 1.19). Undefined before 4.6.
 */
export function kubernetesOfOpenShift(openshiftVersion: string | undefined): string | undefined {
  const r = parseKubernetesRelease(openshiftVersion);
  if (!r || r.major !== 4 || r.minor < 6) return undefined;
  return `1.${r.minor + 13}`;
}

/** The cluster facts a release can be read from (a snapshot, saved or live). */
interface ReleaseSources {
  /** The API server's `/version` gitVersion: `v1.35.4`. */
  serverVersion?: string;
  openshift?: { version?: string };
}

/** The release a cluster runs: its API server's version, else its OpenShift release's Kubernetes. */
export function clusterRelease(cluster: ReleaseSources | undefined): string | undefined {
  return normalizeRelease(cluster?.serverVersion) ?? kubernetesOfOpenShift(cluster?.openshift?.version);
}

/** The release the rules decide by: the one asked for, else the cluster's own, else the default. */
export function effectiveRelease(asked: string | undefined, cluster: ReleaseSources | undefined): string {
  return normalizeRelease(asked) ?? clusterRelease(cluster) ?? DEFAULT_KUBERNETES_RELEASE;
}

/**
 * When what Windows pods meet changed, per release (k8s.io/kubernetes pkg/features/kube_features.go
 * and pkg/apis/core/validation, read at v1.35.4 and v1.37.2). Rules and plans read these, never a
 * literal release.
 */
export const WINDOWS_RELEASES = {
  /** PodLevelResources beta and on: the API server keeps pod-level `spec.resources`, and refuses it for Windows pods. */
  podLevelResources: '1.34',
  /** InPlacePodVerticalScaling beta and on: `resizePolicy` is kept (dropped before); GA in 1.35. */
  inPlaceResize: '1.33',
  /** "windows pods cannot be resized": the resize subresource refuses every Windows pod. */
  windowsResizeRefused: '1.32',
  /** WindowsHostNetwork (alpha since 1.26, never on by default) deprecated; its KEP (3503) withdrawn. */
  windowsHostNetworkDeprecated: '1.33',
  /** NodeLogQuery GA and locked on: the kubelet needs only `enableSystemLogQuery: true`. */
  nodeLogQueryGA: '1.36',
  /** WindowsGracefulNodeShutdown beta and on: the kubelet stops pods (their grace periods) before Windows shuts down. */
  windowsGracefulShutdown: '1.34',
  /** WinDSR and WinOverlay GA and locked on: kube-proxy refuses to start with either set to false. */
  winDsrOverlayLocked: '1.34',
} as const;

/**
 * ContainerStopSignals (KEP-4960): alpha since 1.33 and off by default in every release up to 1.37
 * (v1.37.2 still lists only the 1.33 alpha), so the API server drops `lifecycle.stopSignal`. Where a
 * cluster turns the gate on, Windows pods take only these, and a pod without `spec.os.name` none.
 */
export const WINDOWS_STOP_SIGNALS = ['SIGKILL', 'SIGTERM'] as const;
