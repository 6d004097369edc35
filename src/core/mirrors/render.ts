/**
 * ImageDigestMirrorSet / ImageTagMirrorSet (and ImageContentSourcePolicy) entries → containerd
 * `hosts.toml` files for Windows nodes, in two modes (WMCO pkg/registries/registries.go):
 *
 * - `wmco`: byte for byte what WMCO writes, quirks included (source path dropped, mirrors sorted,
 *   `host:port` and wildcard directory names, the unset-policy merge quirk), so users can preview
 *   and verify what their nodes get.
 * - `ordered`: the same semantics with the written mirror priority kept, `host_port_` directories
 *   (containerd's Windows form; NTFS forbids `:`) and wildcard sources refused.
 *
 * Pure: no I/O. Credentials only ever appear in the rendered file contents.
 */
import {
  containerdHostDir,
  goStringCompare,
  isNtfsSafeName,
  isOneSegment,
  isWildcard,
  registryHost,
  repositoryPath,
  stripScheme,
  wmcoMirrorHost,
} from './paths';
import { isMirrorKind, knownPolicy, specEntries } from './spec';

export type MirrorMode = 'wmco' | 'ordered';
export interface MirrorEntry {
  source: string;
  mirrors: string[];
  mirrorSourcePolicy?: 'AllowContactingSource' | 'NeverContactSource';
  kind: 'IDMS' | 'ITMS' | 'ICSP';
  setName?: string;
  /** The value the API server's schema rejects (IDMS / ITMS): the entry is refused, never rendered. */
  invalid?: string;
}
export interface RenderedFile {
  dir: string;
  /** `${dir}/hosts.toml` */
  path: string;
  content: string;
  source: string;
}
export interface Refusal {
  source: string;
  message: string;
}
export type Credential = { username: string; password: string } | { auth: string };
export interface RenderOptions {
  mode: MirrorMode;
  /** Pull credentials by registry host (`host[:port]`), e.g. from `credentialsFromPullSecret`. */
  credentials?: Record<string, Credential>;
}
export interface RenderResult {
  files: RenderedFile[];
  refused: Refusal[];
}

interface Mirror {
  /** Registry plus optional org path, as WMCO keeps it (`quay.io/testuser`). */
  host: string;
  resolveTags: boolean;
}
interface MirrorSet {
  source: string;
  mirrors: Mirror[];
  /**
   * '' = unset; kept distinct because WMCO's merge treats it differently from Allow (WMCO registries.go
   * mergeMirrorSets).
   */
  policy: string;
}

const KIND_RANK: Record<MirrorEntry['kind'], number> = { IDMS: 0, ITMS: 1, ICSP: 2 };

/** Base64 of a UTF-8 string, without Buffer (core stays free of Node APIs). */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out +=
      abc[(n >> 18) & 63] +
      abc[(n >> 12) & 63] +
      (i + 1 < bytes.length ? abc[(n >> 6) & 63] : '=') +
      (i + 2 < bytes.length ? abc[n & 63] : '=');
  }
  return out;
}

/** Decodes standard base64 to UTF-8 text; undefined when it is not base64. */
function unbase64(text: string): string | undefined {
  const s = text.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) return undefined;
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const clean = s.replace(/=+$/, '');
  const bytes: number[] = [];
  let buf = 0;
  let bits = 0;
  for (const ch of clean) {
    buf = (buf << 6) | abc.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buf >> bits) & 0xff);
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

/** Error about a pull secret; the message never contains credential material. */
export class PullSecretError extends Error {}

/**
 * The `auths` map of a docker `config.json` / `.dockerconfigjson` as credentials by registry.
 * Like WMCO (Kubernetes' DockerConfigJSON), an `auth` must be base64 of `username:password`;
 * otherwise the whole secret is rejected, naming only the registry.
 */
export function credentialsFromPullSecret(json: string): Record<string, Credential> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    // Never echo the parser's message: it can quote the secret's text.
    throw new PullSecretError(
      'the pull secret is not valid JSON; expected a docker config.json such as {"auths":{"registry.example.com":{"auth":"<base64 of user:password>"}}}',
    );
  }
  if (!isRecord(parsed) || !isRecord(parsed.auths)) {
    throw new PullSecretError(
      'the pull secret has no "auths" object; expected a docker config.json such as {"auths":{"registry.example.com":{"auth":"<base64 of user:password>"}}}',
    );
  }
  const out: Record<string, Credential> = {};
  for (const [registry, entry] of Object.entries(parsed.auths)) {
    if (!isRecord(entry)) continue;
    if (typeof entry.auth === 'string' && entry.auth !== '') {
      const decoded = unbase64(entry.auth);
      if (decoded === undefined || !decoded.includes(':')) {
        throw new PullSecretError(
          `the pull secret's "auth" for ${JSON.stringify(registry.slice(0, 200))} is not base64 of username:password; fix or remove that entry`,
        );
      }
      out[registry] = { auth: entry.auth.trim() };
    } else if (typeof entry.username === 'string' || typeof entry.password === 'string') {
      out[registry] = {
        username: typeof entry.username === 'string' ? entry.username : '',
        password: typeof entry.password === 'string' ? entry.password : '',
      };
    }
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The Basic token WMCO writes: its secret parser decodes `auth` into username and password and
 * the renderer encodes `username:password` again, so the token is always canonical base64.
 */
function basicToken(c: Credential): string | undefined {
  if ('auth' in c) {
    const decoded = unbase64(c.auth);
    return decoded === undefined ? undefined : base64(decoded);
  }
  if (c.username === '' && c.password === '') return undefined;
  return base64(`${c.username}:${c.password}`);
}

function credentialFor(host: string, options: RenderOptions): Credential | undefined {
  const creds = options.credentials;
  if (!creds) return undefined;
  const registry = registryHost(host);
  if (Object.prototype.hasOwnProperty.call(creds, registry)) return creds[registry];
  // WMCO looks the registry up verbatim; for our own nodes also accept `https://host/...` keys
  // as docker does.
  if (options.mode === 'ordered') {
    for (const [key, c] of Object.entries(creds)) if (registryHost(key) === registry) return c;
  }
  return undefined;
}

/** Escapes a TOML basic string; a no-op for every valid image reference. */
function tomlString(s: string): string {
  return `"${s.replace(/[\\"\x00-\x1f\x7f]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))}"`;
}

/** `quay.io/testuser` → `https://quay.io/v2/testuser` (WMCO adds /v2 and sets override_path). */
function hostUrl(host: string): string {
  const org = repositoryPath(host);
  return `https://${registryHost(host)}/v2${org ? `/${org}` : ''}`;
}

/** The exact text of WMCO's `generateConfig` (pkg/registries/registries.go); empty when there are no mirrors. */
function generateConfig(set: MirrorSet, options: RenderOptions): string {
  if (set.mirrors.length === 0) return '';
  const fallback = set.policy === 'NeverContactSource' ? set.mirrors[0].host : set.source;
  let out = `server = ${tomlString(hostUrl(fallback))}\n\noverride_path = true\n`;
  for (const m of set.mirrors) {
    const key = `host.${tomlString(hostUrl(m.host))}`;
    out += `\n[${key}]\n`;
    out += m.resolveTags ? '  capabilities = ["pull", "resolve"]\n' : '  capabilities = ["pull"]\n';
    out += '  override_path = true\n';
    const cred = credentialFor(m.host, options);
    const token = cred && basicToken(cred);
    if (token) out += `  [${key}.header]\n    authorization = ${tomlString(`Basic ${token}`)}\n`;
  }
  return out;
}

/** WMCO's `newMirror`: a mirror equal to its source keeps only its registry host. */
function mirrorOf(source: string, mirror: string, resolveTags: boolean): Mirror {
  return { host: wmcoMirrorHost(source, mirror), resolveTags };
}

/**
 * The mirror sets in WMCO's way: merged by source host, mirrors deduplicated and sorted (WMCO registries.go
 * mergeMirrorSets).
 */
function wmcoSets(entries: MirrorEntry[]): MirrorSet[] {
  // WMCO lists all IDMS, then all ITMS (each in API order, i.e. by name) and ignores ICSP.
  const inputs = entries
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e.kind !== 'ICSP')
    .sort(
      (a, b) =>
        KIND_RANK[a.e.kind] - KIND_RANK[b.e.kind] || goStringCompare(a.e.setName ?? '', b.e.setName ?? '') || a.i - b.i,
    )
    .map(({ e }) => e);
  const sets = new Map<string, MirrorSet>();
  for (const e of inputs) {
    // WMCO: `if existing == AllowContactingSource { existing = new }` — so NeverContactSource wins
    // over Allow, but an unset policy seen first is never replaced (the mergeMirrorSets quirk).
    mergeInto(sets, registryHost(e.source), e, (existing, policy) =>
      existing === 'AllowContactingSource' ? policy : existing,
    );
  }
  const out = [...sets.values()];
  for (const s of out) s.mirrors.sort((a, b) => goStringCompare(a.host, b.host));
  return out.sort((a, b) => goStringCompare(a.source, b.source));
}

/**
 * WMCO's `mergeMirrors`: one mirror per host, a tag mirror beats a digest mirror. Also applied to
 * a source's first entry: two mirrors that truncate to the same host would otherwise give two
 * identical TOML tables, which containerd cannot parse.
 */
function mergeMirrors(existing: Mirror[], added: Mirror[]): Mirror[] {
  const out: Mirror[] = [];
  const byHost = new Map<string, Mirror>();
  for (const m of [...existing, ...added]) {
    const seen = byHost.get(m.host);
    if (seen) {
      if (m.resolveTags) seen.resolveTags = true;
      continue;
    }
    const copy = { ...m };
    byHost.set(m.host, copy);
    out.push(copy);
  }
  return out;
}

/** What `ordered` mode refuses a source for, or undefined. */
function refusalOf(source: string): string | undefined {
  const host = registryHost(source);
  if (isWildcard(source)) {
    return `wildcard source ${host} cannot be configured on Windows nodes: containerd only looks up exact registry hosts (or _default), and "*" is not allowed in NTFS names. Add one entry per registry host instead.`;
  }
  const dir = containerdHostDir(host);
  if (!host || !isNtfsSafeName(dir)) {
    return `source registry ${JSON.stringify(host)} has no valid Windows directory name (${JSON.stringify(dir)} is not allowed on NTFS), so containerd cannot find its hosts.toml. Use a plain host or host:port.`;
  }
  return undefined;
}

/** `ordered` mode: the same merge, but mirrors keep their first written position. */
function orderedSets(entries: MirrorEntry[]): { sets: MirrorSet[]; refused: Refusal[] } {
  const sets = new Map<string, MirrorSet>();
  const refused = new Map<string, Refusal>();
  for (const e of entries) {
    const source = registryHost(e.source);
    const why = refusalOf(e.source);
    if (why !== undefined) {
      if (!refused.has(source)) refused.set(source, { source, message: why });
      continue;
    }
    // ICSP entries are digest mirrors, as on Linux nodes. Any NeverContactSource wins, whatever came
    // first (WMCO's unset-policy quirk is not kept).
    mergeInto(sets, source, e, (existing, policy) => (policy === 'NeverContactSource' ? policy : existing));
  }
  return {
    sets: [...sets.values()].sort((a, b) => goStringCompare(a.source, b.source)),
    refused: [...refused.values()].sort((a, b) => goStringCompare(a.source, b.source)),
  };
}

/** Renders one `hosts.toml` per source registry host. */
export function renderHostsToml(entries: MirrorEntry[], options: RenderOptions): RenderResult {
  // What the API server would reject is reported as such and goes no further: no folder, no file.
  const rejected: Refusal[] = entries
    .filter((e) => e.invalid !== undefined)
    .map((e) => ({
      source: e.source,
      message: `${e.kind}${e.setName ? ` ${e.setName}` : ''} entry ${JSON.stringify(e.source)}: ${JSON.stringify(e.invalid)} is not a valid image reference (the API server rejects this object); it is not rendered.`,
    }));
  const result = renderValid(
    entries.filter((e) => e.invalid === undefined),
    options,
  );
  return rejected.length === 0 ? result : { files: result.files, refused: [...rejected, ...result.refused] };
}

function renderValid(entries: MirrorEntry[], options: RenderOptions): RenderResult {
  const usable = entries.filter((e) => typeof e.source === 'string' && stripScheme(e.source) !== '');
  if (options.mode === 'wmco') {
    // WMCO's own naming is reproduced (even names NTFS refuses), but never a folder outside the tree.
    const sets = wmcoSets(usable);
    const files = sets
      .filter((s) => isOneSegment(s.source))
      .map((s) => file(s.source, s.source, generateConfig(s, options)));
    const refused = sets
      .filter((s) => !isOneSegment(s.source))
      .map((s) => ({
        source: s.source,
        message: `source registry ${JSON.stringify(s.source)} is not a folder name (it would leave the registries folder); the API server rejects such a source.`,
      }));
    return { files, refused };
  }
  const { sets, refused } = orderedSets(usable);
  return { files: sets.map((s) => file(containerdHostDir(s.source), s.source, generateConfig(s, options))), refused };
}

function file(dir: string, source: string, content: string): RenderedFile {
  return { dir, path: `${dir}/hosts.toml`, content, source };
}

const LIST_KINDS: Record<string, string> = {
  ImageDigestMirrorSetList: 'ImageDigestMirrorSet',
  ImageTagMirrorSetList: 'ImageTagMirrorSet',
  ImageContentSourcePolicyList: 'ImageContentSourcePolicy',
};

/**
 * The mirror entries of IDMS / ITMS / ICSP objects (parsed YAML or API objects), in the order
 * given; `List` objects are expanded. Other objects, and entries without a source, are skipped.
 */
const SHORT = { ImageDigestMirrorSet: 'IDMS', ImageTagMirrorSet: 'ITMS', ImageContentSourcePolicy: 'ICSP' } as const;

export function mirrorEntriesOf(objects: unknown[]): MirrorEntry[] {
  const out: MirrorEntry[] = [];
  const visit = (obj: unknown, impliedKind: string | undefined, depth: number) => {
    if (!isRecord(obj) || depth > 4) return;
    const kind = typeof obj.kind === 'string' ? obj.kind : impliedKind;
    if (Array.isArray(obj.items)) {
      for (const item of obj.items) visit(item, kind ? LIST_KINDS[kind] : undefined, depth + 1);
      return;
    }
    const spec = isRecord(obj.spec) ? obj.spec : undefined;
    if (!spec || !kind) return;
    const meta = isRecord(obj.metadata) ? obj.metadata : undefined;
    const setName = typeof meta?.name === 'string' ? meta.name : undefined;
    if (!isMirrorKind(kind)) return;
    const short = SHORT[kind];
    for (const e of specEntries(kind, spec)) {
      if (e.source === undefined) continue;
      const policy = knownPolicy(e.policy);
      const entry: MirrorEntry = {
        source: e.source,
        mirrors: e.mirrors.map((m) => m.value),
        ...(policy ? { mirrorSourcePolicy: policy } : {}),
        kind: short,
        ...(setName !== undefined ? { setName } : {}),
      };
      if (e.rejected !== undefined) entry.invalid = e.rejected;
      out.push(entry);
    }
  };
  for (const o of objects) visit(o, undefined, 0);
  return out;
}

/** Adds an entry's mirrors to the set of its source (created on first sight); `policyOf` merges the policies. */
function mergeInto(
  sets: Map<string, MirrorSet>,
  source: string,
  e: MirrorEntry,
  policyOf: (existing: string, policy: string) => string,
): void {
  const mirrors = e.mirrors.map((m) => mirrorOf(e.source, m, e.kind === 'ITMS'));
  const policy = e.mirrorSourcePolicy ?? '';
  const existing = sets.get(source);
  if (!existing) {
    sets.set(source, { source, mirrors: mergeMirrors([], mirrors), policy });
    return;
  }
  existing.mirrors = mergeMirrors(existing.mirrors, mirrors);
  existing.policy = policyOf(existing.policy, policy);
}
