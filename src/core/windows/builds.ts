/**
 * Windows builds, their names and the tags container images use for them
 * (hcsshim osversion/windowsbuilds.go; Kubernetes user guide; WMCO docs).
 */
export interface WindowsBuild {
  build: number;
  /** Value of the node label `node.kubernetes.io/windows-build`. */
  label: string;
  name: string;
  /** Long-term servicing (supported as a Kubernetes node OS) vs a retired semi-annual release. */
  ltsc: boolean;
  eol: boolean;
  tokens: string[];
}

export const WINDOWS_BUILDS: WindowsBuild[] = [
  { build: 14393, label: '10.0.14393', name: 'Windows Server 2016 (1607)', ltsc: true, eol: true, tokens: ['ltsc2016', '1607'] },
  { build: 16299, label: '10.0.16299', name: 'Windows Server 1709 (SAC)', ltsc: false, eol: true, tokens: ['1709'] },
  { build: 17134, label: '10.0.17134', name: 'Windows Server 1803 (SAC)', ltsc: false, eol: true, tokens: ['1803'] },
  { build: 17763, label: '10.0.17763', name: 'Windows Server 2019 (1809)', ltsc: true, eol: false, tokens: ['ltsc2019', '1809'] },
  { build: 18362, label: '10.0.18362', name: 'Windows Server 1903 (SAC)', ltsc: false, eol: true, tokens: ['1903'] },
  { build: 18363, label: '10.0.18363', name: 'Windows Server 1909 (SAC)', ltsc: false, eol: true, tokens: ['1909'] },
  { build: 19041, label: '10.0.19041', name: 'Windows Server 2004 (SAC)', ltsc: false, eol: true, tokens: ['2004'] },
  { build: 19042, label: '10.0.19042', name: 'Windows Server 20H2 (SAC)', ltsc: false, eol: true, tokens: ['20h2'] },
  { build: 20348, label: '10.0.20348', name: 'Windows Server 2022', ltsc: true, eol: false, tokens: ['ltsc2022'] },
  { build: 25398, label: '10.0.25398', name: 'Windows Server 23H2 (annual channel)', ltsc: false, eol: false, tokens: ['23h2'] },
  { build: 26100, label: '10.0.26100', name: 'Windows Server 2025', ltsc: true, eol: false, tokens: ['ltsc2025'] },
];

const BY_BUILD = new Map(WINDOWS_BUILDS.map((b) => [b.build, b]));
const BY_TOKEN = new Map<string, WindowsBuild>();
for (const b of WINDOWS_BUILDS) for (const t of b.tokens) BY_TOKEN.set(t, b);

export function buildByNumber(n: number): WindowsBuild | undefined {
  return BY_BUILD.get(n);
}

/** Parses a `node.kubernetes.io/windows-build` value (`10.0.17763`); undefined when malformed. */
export function parseBuildLabel(value: unknown): { major: number; minor: number; build: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(value.trim());
  if (!m) return undefined;
  return { major: +m[1], minor: +m[2], build: +m[3] };
}

export function describeBuild(build: number): string {
  const b = BY_BUILD.get(build);
  return b ? `10.0.${build} (${b.name})` : `10.0.${build}`;
}

/** The LTSC tag a node build runs, for retargeting an image (`ltsc2022` for 20348). */
export function tagTokenFor(build: number, preferNumeric = false): string | undefined {
  const b = BY_BUILD.get(build);
  if (!b) return undefined;
  if (preferNumeric) return b.tokens.find((t) => /^\d/.test(t)) ?? b.tokens[0];
  return b.tokens[0];
}

/**
 * containerd's rule for process isolation (containerd/platforms platform_windows_compat.go):
 * before 20348 the build must match exactly; from 20348 a host runs images from the previous
 * LTSC floor (20348) up to its own build.
 */
export function isImageCompatible(hostBuild: number, imageBuild: number): boolean {
  if (hostBuild < 20348) return hostBuild === imageBuild;
  return imageBuild >= 20348 && imageBuild <= hostBuild;
}

export interface ImageRef {
  raw: string;
  registry: string;
  /** Repository path without the registry, e.g. `windows/servercore`. */
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
}

export function parseImage(raw: string): ImageRef {
  let rest = raw.trim();
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > slash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const first = rest.split('/')[0];
  let registry = 'docker.io';
  let repository = rest;
  if (rest.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    registry = first;
    repository = rest.slice(first.length + 1);
  } else if (!rest.includes('/')) {
    repository = `library/${rest}`;
  }
  return { raw, registry: registry.toLowerCase(), repository: repository.toLowerCase(), tag, digest };
}

/** The Windows build an image tag names, when it names one (`ltsc2022`, `1809`, `10.0.17763.1234`). */
export function imageBuild(image: ImageRef): { build: number; token: string; tokenStart: number } | undefined {
  const tag = image.tag;
  if (!tag) return undefined;
  const lower = tag.toLowerCase();
  const full = /(?:^|[-_.])10\.0\.(\d{5})/.exec(lower);
  if (full) return { build: +full[1], token: `10.0.${full[1]}`, tokenStart: lower.indexOf(`10.0.${full[1]}`) };
  // Tokens are delimited by start/end or `-` `_` `.`; the numeric ones (1809, 2004) must stand alone.
  for (const part of lower.split(/[-_]/)) {
    const b = BY_TOKEN.get(part);
    if (!b) continue;
    if (/^\d{4}$/.test(part) && !hasWindowsContext(image, lower)) continue;
    return { build: b.build, token: part, tokenStart: tokenIndex(lower, part) };
  }
  return undefined;
}

function tokenIndex(tag: string, token: string): number {
  const re = new RegExp(`(?:^|[-_])${token}(?:$|[-_])`);
  const m = re.exec(tag);
  if (!m) return tag.indexOf(token);
  return m.index + (m[0].startsWith('-') || m[0].startsWith('_') ? 1 : 0);
}

/** A bare `1809` or `2004` tag means a Windows build only on a Windows image. */
function hasWindowsContext(image: ImageRef, tag: string): boolean {
  return isWindowsBaseRepository(image) || /nanoserver|servercore|windows|ltsc/.test(tag);
}

const WINDOWS_REPOS = [
  /^windows(\/|$)/,
  /^windows\/(servercore|nanoserver|server)/,
  /^dotnet\/framework\//,
  /^oss\/kubernetes\/windows-host-process-containers-base-image/,
  /^microsoft\/(windowsservercore|nanoserver|iis|aspnet|dotnet-framework)/,
];

/** Images that are Windows-only by repository (MCR Windows bases, .NET Framework, legacy Docker Hub). */
export function isWindowsBaseRepository(image: ImageRef): boolean {
  const repo = image.repository;
  if (image.registry === 'mcr.microsoft.com') {
    if (/^windows(\/|$)/.test(repo)) return true;
    if (/^dotnet\/framework\//.test(repo)) return true;
    if (/^oss\/kubernetes\/windows-host-process-containers-base-image/.test(repo)) return true;
  }
  if (image.registry === 'docker.io' && /^microsoft\/(windowsservercore|nanoserver|iis|aspnet|dotnet-framework)/.test(repo)) return true;
  return WINDOWS_REPOS.slice(4).some((r) => r.test(repo)) && image.registry === 'docker.io';
}

/** Evidence that an image is a Windows image: a Windows base repository or a Windows tag. */
export function windowsImageEvidence(raw: string): string | undefined {
  const image = parseImage(raw);
  if (isWindowsBaseRepository(image)) return `${image.registry}/${image.repository} is a Windows base image`;
  const tag = (image.tag ?? '').toLowerCase();
  if (/(^|[-_.])(nanoserver|windowsservercore|servercore)([-_.]|$)/.test(tag)) return `tag ${image.tag} names a Windows base`;
  if (/(^|[-_.])ltsc20(16|19|22|25)([-_.]|$)/.test(tag)) return `tag ${image.tag} names a Windows LTSC build`;
  if (/(^|[-_])windows([-_]|$)/.test(tag)) return `tag ${image.tag} is a Windows variant`;
  return undefined;
}

/** Nano Server images: no PowerShell inside, only cmd.exe. */
export function isNanoServer(raw: string): boolean {
  const image = parseImage(raw);
  if (image.registry === 'mcr.microsoft.com' && /^powershell$/.test(image.repository)) return false;
  return /nanoserver/.test(image.repository) || /(^|[-_.])nanoserver/.test((image.tag ?? '').toLowerCase());
}

/** Server Core based images, whose default user is ContainerAdministrator. */
export function isServerCoreFamily(raw: string): boolean {
  const image = parseImage(raw);
  const tag = (image.tag ?? '').toLowerCase();
  if (/nanoserver/.test(image.repository) || /nanoserver/.test(tag)) return false;
  return (
    /servercore|windowsservercore/.test(image.repository) ||
    /servercore/.test(tag) ||
    (image.registry === 'mcr.microsoft.com' && /^dotnet\/framework\//.test(image.repository)) ||
    (image.registry === 'mcr.microsoft.com' && /^windows\/(server|servercore)?$/.test(image.repository)) ||
    /^microsoft\/(windowsservercore|iis|aspnet|dotnet-framework)/.test(image.repository)
  );
}
