// Conditions a chart writes on `.Capabilities.KubeVersion`, decided for the release the check is for (`check
// --kubernetes-version`, or the cluster's), as `helm template --kube-version` decides them; when none is given, over
// the Kubernetes releases users run (1.29 to 1.37): true when every one of them satisfies it, false when none does,
// undecided otherwise. Charts ask old questions (`semverCompare "^1.14-0"`, `eq .Capabilities.KubeVersion.Minor
// "21"`) whose answer is the same on every supported cluster, and leaving them undecided hides what Helm renders.
import { parseKubernetesRelease } from '../kubernetes-release';

/** The minors of the 1.x releases this project supports (the oldest a user runs, the newest it tests against). */
const SUPPORTED_MINORS = Array.from({ length: 37 - 29 + 1 }, (_, i) => 29 + i);

type Version = [number, number, number];

/** `.Capabilities.KubeVersion`, `.Capabilities.KubeVersion.Version` or `.GitVersion` (also from `$`). */
export function isKubeVersion(expr: string): boolean {
  return /^\$?\.Capabilities\.KubeVersion(?:\.(?:GitVersion|Version))?$/.test(expr);
}

/** `.Capabilities.KubeVersion.Minor`. */
export function isKubeMinor(expr: string): boolean {
  return /^\$?\.Capabilities\.KubeVersion\.Minor$/.test(expr);
}

/**
 * A Masterminds/semver constraint (what Helm's `semverCompare` takes) for `release` ("1.35"), or over the supported
 * releases when none is given.
 */
export function kubeVersionSatisfies(constraint: string, release?: string): boolean | undefined {
  // `>= 1.30` is `>=1.30`: an operator may stand apart from its version.
  const groups = constraint
    .replace(/(>=|<=|!=|~>|[><=~^])\s+/g, '$1')
    .split('||')
    .map((g) =>
      g
        .trim()
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(parseTerm),
    );
  if (groups.some((g) => g.length === 0 || g.some((t) => t === undefined))) return undefined;
  return decide((v) => groups.some((g) => g.every((t) => (t as (v: Version) => boolean)(v))), release);
}

/** `eq .Capabilities.KubeVersion.Minor "N"` for `release`, or over the supported releases. */
export function kubeMinorIs(minor: string, release?: string): boolean | undefined {
  if (!/^\d+\+?$/.test(minor)) return undefined;
  const n = Number.parseInt(minor, 10);
  return decide((v) => v[1] === n, release);
}

function decide(test: (v: Version) => boolean, release?: string): boolean | undefined {
  const given = parseKubernetesRelease(release);
  // A release names a minor, not a patch: decided when its first and a late patch agree.
  const versions: Version[] = given
    ? [
        [given.major, given.minor, 0],
        [given.major, given.minor, 999],
      ]
    : SUPPORTED_MINORS.map((m) => [1, m, 0]);
  const results = versions.map(test);
  if (results.every(Boolean)) return true;
  return results.some(Boolean) ? undefined : false;
}

function parseTerm(term: string): ((v: Version) => boolean) | undefined {
  const m = /^(>=|<=|!=|>|<|=|~>|~|\^)?v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?(?:-[0-9A-Za-z.-]+)?$/.exec(term);
  if (!m) return undefined;
  const op = m[1] ?? '=';
  const num = (s: string | undefined) => (s === undefined || s === 'x' || s === '*' ? undefined : Number(s));
  const [major, minor, patch] = [Number(m[2]), num(m[3]), num(m[4])];
  const base: Version = [major, minor ?? 0, patch ?? 0];
  const cmp = (v: Version) => compare(v, base);
  switch (op) {
    case '>=':
      return (v) => cmp(v) >= 0;
    case '>':
      return (v) => cmp(v) > 0;
    case '<=':
      return (v) => cmp(v) <= 0;
    case '<':
      return (v) => cmp(v) < 0;
    case '!=':
      return (v) => cmp(v) !== 0;
    case '^':
      return (v) => cmp(v) >= 0 && v[0] === major;
    case '~':
    case '~>':
      return (v) => cmp(v) >= 0 && v[0] === major && (minor === undefined || v[1] === minor);
    default:
      // `=1.14` or a bare `1.14`: every version the given parts name.
      return (v) =>
        v[0] === major && (minor === undefined || v[1] === minor) && (patch === undefined || v[2] === patch);
  }
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}
