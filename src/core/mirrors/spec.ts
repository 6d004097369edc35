// How the entries of a mirror set are read, in one place for the rules, the renderer and the cluster
// view: which list a kind keeps its entries in, and what counts as a source and a mirror (trimmed
// non-empty strings, as WMCO and the cluster's registries read them). Pure.

export type MirrorKind = 'ImageDigestMirrorSet' | 'ImageTagMirrorSet' | 'ImageContentSourcePolicy';

/** The spec list that holds the entries of each kind. */
export const MIRROR_LIST_KEY: Record<MirrorKind, 'imageDigestMirrors' | 'imageTagMirrors' | 'repositoryDigestMirrors'> =
  {
    ImageDigestMirrorSet: 'imageDigestMirrors',
    ImageTagMirrorSet: 'imageTagMirrors',
    ImageContentSourcePolicy: 'repositoryDigestMirrors',
  };

export const isMirrorKind = (kind: unknown): kind is MirrorKind =>
  typeof kind === 'string' && Object.prototype.hasOwnProperty.call(MIRROR_LIST_KEY, kind);

/** One entry as written: its index in the list, the source and mirrors when usable, the policy as given. */
export interface SpecEntry {
  index: number;
  /** Trimmed; undefined when missing, not a string or blank. */
  source: string | undefined;
  /** Trimmed non-empty strings, each with its index in `mirrors`. */
  mirrors: { value: string; index: number }[];
  /** spec...mirrorSourcePolicy exactly as written (validated by the callers that care). */
  policy: unknown;
  /**
   * The source or a mirror, as written, fails the CRD's pattern (IDMS / ITMS only): the API server rejects the object.
   */
  invalid: boolean;
  /** The first value, as written, that fails the pattern. */
  rejected?: string;
}

// The patterns the ImageDigestMirrorSet and ImageTagMirrorSet CRDs put on a mirror and a source
// (github.com/openshift/api config/v1, zz_generated.crd-manifests, as served by OpenShift 4.21):
// a host with an optional port, then a lowercase repository path; a source may also be a wildcard
// `*.domain`. Spaces, `..`, quotes, `$(` and uppercase paths fail them.
const LABEL = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const REFERENCE = `^(${LABEL}(?:(?:\\.${LABEL})+)?(?::[0-9]+)?)(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?$`;
/** The CRD's pattern on `mirrors[]`, as the API server prints it. */
export const MIRROR_PATTERN = REFERENCE;
/** The CRD's pattern on `source`, as the API server prints it. */
export const SOURCE_PATTERN = `^\\*(?:\\.${LABEL})+$|${REFERENCE}`;
// The API server matches these with Go's linear-time engine; in JavaScript the CRD's `(?:[._]|__|[-]*)`
// (a separator that may be empty) inside a repeated group backtracks exponentially on a long path
// that fails at its end. The same language with the empty separator dropped (an empty separator
// only joins two runs of [a-z0-9], which one run already matches) is matched instead.
const LINEAR_REFERENCE = `^(${LABEL}(?:(?:\\.${LABEL})+)?(?::[0-9]+)?)(?:(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+)?$`;
const MIRROR_RE = new RegExp(LINEAR_REFERENCE);
const SOURCE_RE = new RegExp(`^\\*(?:\\.${LABEL})+$|${LINEAR_REFERENCE}`);
/** The CRD's own patterns, for checking that the linear ones accept exactly the same values. */
export const CRD_PATTERNS = { mirror: new RegExp(MIRROR_PATTERN), source: new RegExp(SOURCE_PATTERN) };

/** Whether the API server's schema accepts the value (untrimmed: a space is refused too). */
export const acceptedReference = (value: string, field: 'source' | 'mirror'): boolean =>
  (field === 'source' ? SOURCE_RE : MIRROR_RE).test(value);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entries of a mirror object's spec (entries that are not objects are skipped, their index kept). */
export function specEntries(kind: MirrorKind, spec: unknown): SpecEntry[] {
  const list = isRecord(spec) ? spec[MIRROR_LIST_KEY[kind]] : undefined;
  if (!Array.isArray(list)) return [];
  const out: SpecEntry[] = [];
  list.forEach((item, index) => {
    if (!isRecord(item)) return;
    const mirrors: SpecEntry['mirrors'] = [];
    const checked = kind !== 'ImageContentSourcePolicy';
    const rejected = !checked
      ? undefined
      : typeof item.source === 'string' && !acceptedReference(item.source, 'source')
        ? item.source
        : Array.isArray(item.mirrors)
          ? (item.mirrors.find((m): m is string => typeof m === 'string' && !acceptedReference(m, 'mirror')) as
              string | undefined)
          : undefined;
    const invalid = rejected !== undefined;
    if (Array.isArray(item.mirrors)) {
      item.mirrors.forEach((m, j) => {
        if (typeof m === 'string' && m.trim()) mirrors.push({ value: m.trim(), index: j });
      });
    }
    out.push({
      index,
      source: typeof item.source === 'string' && item.source.trim() ? item.source.trim() : undefined,
      mirrors,
      policy: item.mirrorSourcePolicy,
      invalid,
      ...(rejected !== undefined ? { rejected } : {}),
    });
  });
  return out;
}

/** The two policies the API accepts; anything else is no policy. */
export function knownPolicy(policy: unknown): 'AllowContactingSource' | 'NeverContactSource' | undefined {
  return policy === 'AllowContactingSource' || policy === 'NeverContactSource' ? policy : undefined;
}
