/**
 * How WMCO turns ImageDigestMirrorSet / ImageTagMirrorSet entries into containerd `hosts.toml`
 * files on Windows nodes (WMCO pkg/registries/registries.go, README "Running in a disconnected/airgapped environment"),
 * as pure functions.
 *
 * The key difference from Linux nodes: WMCO keeps only the *registry host* of a source and writes
 * one file per source host; the mirror keeps its registry plus whatever "org" prefix is left after
 * removing the path segments it shares with the end of the source. containerd then appends the
 * full repository path of the pulled image to that mirror prefix.
 */

/** `https://`, `docker://` … in front of a reference (the IDMS/ITMS API forbids them; WMCO copes). */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export function stripScheme(ref: string): string {
  return ref.trim().replace(SCHEME, '');
}

/**
 * The registry host (with port) of a source or mirror, as WMCO's `extractRegistryHostname`:
 * the URL host when a scheme is given, else everything before the first `/`.
 */
export function registryHost(ref: string): string {
  const s = stripScheme(ref);
  const slash = s.indexOf('/');
  return slash === -1 ? s : s.slice(0, slash);
}

/** The repository path after the registry host (`ubi9/ubi-minimal`), empty for a bare host. */
export function repositoryPath(ref: string): string {
  const s = stripScheme(ref).replace(/\/+$/, '');
  const slash = s.indexOf('/');
  return slash === -1 ? '' : s.slice(slash + 1);
}

/** Wildcard sources such as `*.example.com` (allowed by the API; no containerd equivalent). */
export function isWildcard(ref: string): boolean {
  return registryHost(ref).startsWith('*');
}

/** The port of a registry host, if any (`registry.local:5000` → `5000`). */
export function hostPort(host: string): string | undefined {
  const m = /^(?:\[[^\]]*\]|[^:]*):(\d+)$/.exec(host);
  return m ? m[1] : undefined;
}

/** The directory containerd on Windows looks up for a host: `host:port` becomes `host_port_`. */
export function containerdHostDir(host: string): string {
  const port = hostPort(host);
  if (port === undefined) return host;
  return `${host.slice(0, host.length - port.length - 1)}_${port}_`;
}

/** Characters NTFS does not allow in a file or directory name. */
const NTFS_ILLEGAL = /[<>:"/\\|?*\x00-\x1f]/;

/** Whether `name` can be a directory name on NTFS (no reserved characters, no trailing dot or space). */
/** One folder name that stays inside its parent: not empty, `.` or `..`, no separator or NUL. */
export const isOneSegment = (name: string): boolean =>
  name !== '' && name !== '.' && name !== '..' && !/[\\/\0]/.test(name);

export function isNtfsSafeName(name: string): boolean {
  return name.length > 0 && !NTFS_ILLEGAL.test(name) && !/[. ]$/.test(name);
}

/**
 * The mirror prefix WMCO writes into `hosts.toml` for one (source, mirror) pair, as its
 * `extractMirrorURL`: trailing path segments the mirror shares with the source are removed, the
 * rest (registry plus optional org path) is kept. A mirror equal to its source keeps only its host.
 */
export function wmcoMirrorHost(source: string, mirror: string): string {
  const src = stripScheme(source).replace(/\/+$/, '');
  const mir = stripScheme(mirror).replace(/\/+$/, '');
  if (src === mir) return registryHost(mir);
  const s = src.split('/');
  const m = mir.split('/');
  let i = s.length - 1;
  let j = m.length - 1;
  // Never strip the mirror's registry host itself.
  while (i >= 0 && j >= 1 && s[i] === m[j]) {
    i--;
    j--;
  }
  return m.slice(0, j + 1).join('/');
}

/**
 * The repository a Windows node pulls from `mirror` for an image `image` that lives under
 * `source` (default: the source repository itself): the WMCO mirror prefix plus the image's full
 * repository path, because WMCO dropped the source's path.
 */
export function windowsPullPath(source: string, mirror: string, image: string = source): string {
  const prefix = wmcoMirrorHost(source, mirror);
  const repo = repositoryPath(image);
  return repo ? `${prefix}/${repo}` : prefix;
}

/**
 * The repository a Linux node (CRI-O, containers/image) pulls for the same image: the part of the
 * image reference that matches `source` replaced by `mirror`.
 */
export function linuxPullPath(source: string, mirror: string, image: string = source): string {
  const src = stripScheme(source).replace(/\/+$/, '');
  const img = stripScheme(image).replace(/\/+$/, '');
  const mir = stripScheme(mirror).replace(/\/+$/, '');
  if (img === src) return mir;
  if (img.startsWith(`${src}/`)) return `${mir}${img.slice(src.length)}`;
  return img;
}

/**
 * WMCO's naming rule: the mirror must end with the source's whole repository path (the "final
 * portion of the namespaces and the image name"), possibly under an extra org prefix. Only then do
 * Windows nodes pull the same repository Linux nodes pull. Bare-host sources always keep it.
 */
export function keepsSourcePath(source: string, mirror: string): boolean {
  const srcPath = repositoryPath(source);
  if (!srcPath) return true;
  const mirPath = repositoryPath(mirror);
  return mirPath === srcPath || mirPath.endsWith(`/${srcPath}`);
}

/** Go's `sort.Strings` order (byte-wise), which WMCO uses for the mirrors of a source host. */
export function goStringCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The mirror prefixes of one entry in the order WMCO writes them (deduplicated, sorted). */
export function wmcoMirrorOrder(source: string, mirrors: string[]): string[] {
  return [...new Set(mirrors.map((m) => wmcoMirrorHost(source, m)))].sort(goStringCompare);
}
