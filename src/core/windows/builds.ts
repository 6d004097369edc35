import { memoize } from '../memo';
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
  {
    build: 14393,
    label: '10.0.14393',
    name: 'Windows Server 2016 (1607)',
    ltsc: true,
    eol: true,
    // sac2016: Nano Server 2016's tag.
    tokens: ['ltsc2016', '1607', 'sac2016'],
  },
  { build: 16299, label: '10.0.16299', name: 'Windows Server 1709 (SAC)', ltsc: false, eol: true, tokens: ['1709'] },
  { build: 17134, label: '10.0.17134', name: 'Windows Server 1803 (SAC)', ltsc: false, eol: true, tokens: ['1803'] },
  {
    build: 17763,
    label: '10.0.17763',
    name: 'Windows Server 2019 (1809)',
    ltsc: true,
    eol: false,
    tokens: ['ltsc2019', '1809'],
  },
  { build: 18362, label: '10.0.18362', name: 'Windows Server 1903 (SAC)', ltsc: false, eol: true, tokens: ['1903'] },
  { build: 18363, label: '10.0.18363', name: 'Windows Server 1909 (SAC)', ltsc: false, eol: true, tokens: ['1909'] },
  { build: 19041, label: '10.0.19041', name: 'Windows Server 2004 (SAC)', ltsc: false, eol: true, tokens: ['2004'] },
  { build: 19042, label: '10.0.19042', name: 'Windows Server 20H2 (SAC)', ltsc: false, eol: true, tokens: ['20h2'] },
  { build: 20348, label: '10.0.20348', name: 'Windows Server 2022', ltsc: true, eol: false, tokens: ['ltsc2022'] },
  {
    build: 25398,
    label: '10.0.25398',
    name: 'Windows Server 23H2 (annual channel)',
    ltsc: false,
    eol: false,
    tokens: ['23h2'],
  },
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

/** The LTSC tag a node build runs, for retargeting an image (`ltsc2022` for 20348). */
function tagTokenFor(build: number, preferNumeric = false): string | undefined {
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

/** Shared by the parse cache: never mutate one. */
export interface ImageRef {
  readonly raw: string;
  readonly registry: string;
  /** Repository path without the registry, e.g. `windows/servercore`. */
  readonly repository: string;
  readonly tag: string | undefined;
  readonly digest: string | undefined;
}

const IMAGE_CACHE = new Map<string, ImageRef>();

/** Parses an image reference; memoized, since many rules read the same few images of a file. */
export function parseImage(raw: string): ImageRef {
  let ref = IMAGE_CACHE.get(raw);
  if (!ref) {
    if (IMAGE_CACHE.size > 4096) IMAGE_CACHE.clear();
    ref = parseImageUncached(raw);
    IMAGE_CACHE.set(raw, ref);
  }
  return ref;
}

function parseImageUncached(raw: string): ImageRef {
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
  return imageBuildCached(image.raw);
}

const imageBuildCached = memoize((raw: string) => imageBuildOf(parseImage(raw)));

function imageBuildOf(image: ImageRef): { build: number; token: string; tokenStart: number } | undefined {
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

/**
 * Windows-only repositories, per registry (MCR Windows bases and .NET Framework, legacy Docker Hub): a
 * repository is one when it is one of `names` or starts with one of `prefixes`. Data, not code, because
 * the admission policies (core/policy) turn the same description into CEL.
 */
export const WINDOWS_REPOSITORIES: { registry: string; names: string[]; prefixes: string[] }[] = [
  {
    registry: 'mcr.microsoft.com',
    names: ['windows'],
    prefixes: ['windows/', 'dotnet/framework/', 'oss/kubernetes/windows-host-process-containers-base-image'],
  },
  {
    registry: 'docker.io',
    names: [],
    prefixes: [
      'microsoft/windowsservercore',
      'microsoft/nanoserver',
      'microsoft/iis',
      'microsoft/aspnet',
      'microsoft/dotnet-framework',
    ],
  },
];

function isWindowsBaseRepository(image: ImageRef): boolean {
  const entry = WINDOWS_REPOSITORIES.find((r) => r.registry === image.registry);
  return (
    !!entry && (entry.names.includes(image.repository) || entry.prefixes.some((p) => image.repository.startsWith(p)))
  );
}

/**
 * Words in a lowercased image tag that make it a Windows image, each standing alone between the tag's
 * ends and one of `separators` (the admission policies generate their CEL from this too).
 */
export const WINDOWS_TAG_WORDS: { words: string[]; separators: string; says: string }[] = [
  { words: ['nanoserver', 'windowsservercore', 'servercore'], separators: '-_.', says: 'names a Windows base' },
  { words: ['ltsc2016', 'ltsc2019', 'ltsc2022', 'ltsc2025'], separators: '-_.', says: 'names a Windows LTSC build' },
  { words: ['windows'], separators: '-_', says: 'is a Windows variant' },
];

const TAG_WORD_RES = WINDOWS_TAG_WORDS.map((t) => {
  const sep = `[${t.separators.replace(/[-\\\]^]/g, '\\$&')}]`;
  return { re: new RegExp(`(^|${sep})(${t.words.join('|')})(${sep}|$)`), says: t.says };
});

/** Evidence that an image is a Windows image: a Windows base repository or a Windows tag. */
export const windowsImageEvidence = memoize((raw: string): string | undefined => windowsImageEvidenceOf(raw));

function windowsImageEvidenceOf(raw: string): string | undefined {
  const image = parseImage(raw);
  if (isWindowsBaseRepository(image)) return `${image.registry}/${image.repository} is a Windows base image`;
  const tag = (image.tag ?? '').toLowerCase();
  const word = TAG_WORD_RES.find((t) => t.re.test(tag));
  return word ? `tag ${image.tag} ${word.says}` : undefined;
}

/** Nano Server images: no PowerShell inside, only cmd.exe. */
export const isNanoServer = memoize((raw: string): boolean => isNanoServerOf(raw));

function isNanoServerOf(raw: string): boolean {
  const image = parseImage(raw);
  if (image.registry === 'mcr.microsoft.com' && /^powershell$/.test(image.repository)) return false;
  return /nanoserver/.test(image.repository) || /(^|[-_.])nanoserver/.test((image.tag ?? '').toLowerCase());
}

/**
 * Server Core based images: they declare no user in their config and so run as ContainerAdministrator,
 * which the kubelet's runAsNonRoot check cannot see (it compares the declared user).
 */
export const isServerCoreFamily = memoize((raw: string): boolean => isServerCoreFamilyOf(raw));

function isServerCoreFamilyOf(raw: string): boolean {
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

/** Tag of an image split out of its reference: where it starts in `ref` (trimmed), or undefined without a tag. */
function tagOffset(ref: string): number | undefined {
  const at = ref.indexOf('@');
  const base = at === -1 ? ref : ref.slice(0, at);
  const slash = base.lastIndexOf('/');
  const colon = base.lastIndexOf(':');
  return colon > slash ? colon + 1 : undefined;
}

/**
 * The image reference with the Windows build token of its tag swapped for `build`'s token
 * (`servercore:ltsc2022` → `servercore:ltsc2019`). Keeps the numeric style (`1809`) when the tag used it
 * or when the repository is Nano Server based (no `ltsc2019` tag exists there). Undefined when the tag
 * names no build, names it as `10.0.NNNNN` (a pinned revision), the reference carries a digest (the digest
 * would win), or the target build has no known tag.
 */
export function retagForBuild(raw: string, build: number): string | undefined {
  const ref = raw.trim();
  const image = parseImage(ref);
  if (image.digest) return undefined;
  const named = imageBuild(image);
  if (!named || named.token.startsWith('10.0.')) return undefined;
  const start = tagOffset(ref);
  if (start === undefined) return undefined;
  if (named.build === build) return ref;
  const nano = /nanoserver/.test(image.repository) || /nanoserver/.test((image.tag ?? '').toLowerCase());
  const token = tagTokenFor(build, nano || /^\d/.test(named.token));
  if (!token) return undefined;
  const at = start + named.tokenStart;
  return ref.slice(0, at) + token + ref.slice(at + named.token.length);
}

const LINUX_ONLY_OFFICIAL = new Set([
  'alpine',
  'busybox',
  'ubuntu',
  'debian',
  'centos',
  'fedora',
  'nginx',
  'redis',
  'postgres',
  'mysql',
  'httpd',
]);
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/**
 * Why an image is known to have no Windows variant, or undefined when it may have one. Deliberately short:
 * Docker Hub official images that publish Linux only, Red Hat UBI and distroless.
 */
export const linuxOnlyImage = memoize((raw: string): string | undefined => linuxOnlyImageOf(raw));

function linuxOnlyImageOf(raw: string): string | undefined {
  if (windowsImageEvidence(raw)) return undefined;
  const image = parseImage(raw);
  let repo = image.repository;
  if (DOCKER_HUB.has(image.registry)) {
    if (!repo.includes('/')) repo = `library/${repo}`;
    const name = repo.startsWith('library/') ? repo.slice('library/'.length) : '';
    if (LINUX_ONLY_OFFICIAL.has(name)) return `the Docker Hub official image ${name} is published for Linux only`;
    return undefined;
  }
  if (
    (image.registry === 'registry.access.redhat.com' || image.registry === 'registry.redhat.io') &&
    /^ubi\d*(?:[-/]|$)/.test(repo)
  ) {
    return 'Red Hat UBI images are Linux only';
  }
  if (image.registry === 'gcr.io' && repo.startsWith('distroless/')) return 'distroless images are Linux only';
  return undefined;
}

const MCR_SUCCESSORS: Record<string, string> = {
  windowsservercore: 'mcr.microsoft.com/windows/servercore',
  nanoserver: 'mcr.microsoft.com/windows/nanoserver',
  iis: 'mcr.microsoft.com/windows/servercore/iis',
  aspnet: 'mcr.microsoft.com/dotnet/framework/aspnet',
  'dotnet-framework': 'mcr.microsoft.com/dotnet/framework/runtime or …/sdk',
  dotnet: 'mcr.microsoft.com/dotnet/runtime, …/aspnet or …/sdk',
  powershell: 'mcr.microsoft.com/powershell',
};

/**
 * For an image from the retired Docker Hub `microsoft/*` repositories: the mcr.microsoft.com repository
 * that replaced it (or plain `mcr.microsoft.com` when there is no one-to-one successor). Undefined otherwise.
 */
export function dockerHubMicrosoftSuccessor(raw: string): string | undefined {
  const image = parseImage(raw);
  if (!DOCKER_HUB.has(image.registry)) return undefined;
  const m = /^microsoft\/([^/]+)$/.exec(image.repository);
  if (!m) return undefined;
  return MCR_SUCCESSORS[m[1]] ?? 'mcr.microsoft.com';
}
