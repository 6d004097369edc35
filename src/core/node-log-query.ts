// The kubelet's node log endpoints as reached through the API server's node proxy
// (`/api/v1/nodes/NODE/proxy/logs/...`), which is how `oc adm node-logs` and
// `kubectl get --raw` read a node's logs without SSH:
// - `/logs/<path>`: a file (or folder listing) under the node's log folder (C:\var\log on Windows,
//   /var/log on Linux), served when the kubelet has `enableSystemLogHandler: true`;
// - `/logs/?query=<service>&tailLines=N&sinceTime=<RFC3339>&pattern=<regex>`: the log query
//   (kubelet `enableSystemLogQuery: true`; before 1.36 also the feature gate NodeLogQuery); on Windows it reads the
//   service's log file or Get-WinEvent.
// The parameter names and limits are the kubelet's (pkg/kubelet/kubelet_server_journal.go,
// newNodeLogQuery and validate). Pure: the calls are in src/cluster/node-logs.ts.

import { normalizeRelease, releaseAtLeast, WINDOWS_RELEASES } from './kubernetes-release';

/** The kubelet's limits (kubelet_server_journal.go). */
const MAX_TAIL_LINES = 100_000;
const MAX_SERVICE_LENGTH = 256;
/** The kubelet refuses any other character in a service name (reServiceNameUnsafeCharacters). */
const SERVICE_NAME = /^[a-zA-Z\-_.:0-9@]+$/;

export class NodeLogInputError extends Error {
  override readonly name = 'NodeLogInputError';
}

/** A log file or folder path under the node's log folder, as URL path segments (each encoded). */
export function logPathSegments(path: string): string {
  const trimmed = path.trim().replace(/\\/g, '/');
  if (trimmed === '' || trimmed === '/') return '';
  if (/^[A-Za-z]:/.test(trimmed) || trimmed.startsWith('/'))
    throw new NodeLogInputError(
      `--path is relative to the node's log folder (C:\\var\\log on Windows): "kubelet/kubelet.log", not "${path}"`,
    );
  const parts = trimmed.split('/');
  const dir = parts[parts.length - 1] === '';
  const segs = parts.filter((p) => p !== '' && p !== '.');
  if (segs.some((p) => p === '..')) throw new NodeLogInputError(`--path may not leave the node's log folder ("..")`);
  if (segs.some((p) => /[\x00-\x1f]/.test(p))) throw new NodeLogInputError('--path may not contain control characters');
  return segs.map(encodeURIComponent).join('/') + (dir && segs.length > 0 ? '/' : '');
}

export interface LogQueryInput {
  /** A service (kubelet, containerd, kube-proxy ...) as the kubelet's query takes it. */
  query: string;
  tail?: number;
  /** An RFC 3339 time or a duration back from `now`: 30s, 15m, 1h, 2h30m, 1d. */
  since?: string;
  pattern?: string;
  now: Date;
}

/** Go's RFC 3339 without fractions: 2026-05-01T10:00:00Z. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** --since: a duration (1h, 90m, 2h30m, 45s, 1d) back from `now`, or an RFC 3339 time; the sinceTime to send. */
export function sinceTime(since: string, now: Date): string {
  const s = since.trim();
  if (/^\d{4}-\d{2}-\d{2}T/.test(s)) {
    const t = Date.parse(s);
    if (Number.isNaN(t) || !/(Z|[+-]\d{2}:\d{2})$/i.test(s))
      throw new NodeLogInputError(
        `--since "${since}" is not an RFC 3339 time (2026-05-01T10:00:00Z) or a duration (1h, 30m)`,
      );
    return rfc3339(new Date(t));
  }
  const parts = [...s.matchAll(/(\d+)([smhd])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== s)
    throw new NodeLogInputError(`--since "${since}" is not a duration (1h, 30m, 2h30m, 45s, 1d) or an RFC 3339 time`);
  const ms = parts.reduce((n, p) => n + Number(p[1]) * (UNIT_MS[p[2] as string] as number), 0);
  if (ms <= 0) throw new NodeLogInputError(`--since must be more than 0`);
  return rfc3339(new Date(now.getTime() - ms));
}

/**
 * The query string of a log query, checked as the kubelet checks it (so that a mistake is said
 * here, not as a 406 from the node): the service name's characters and length, tailLines within
 * 0..100000, the pattern a regular expression. A query with / or \ names a file, which the kubelet
 * refuses together with options.
 */
export function logQuery(input: LogQueryInput): Record<string, string> {
  const q = input.query.trim();
  if (q === '') throw new NodeLogInputError('--query needs a service name, such as kubelet');
  const file = /[/\\]/.test(q);
  if (!file && (!SERVICE_NAME.test(q) || q.length > MAX_SERVICE_LENGTH))
    throw new NodeLogInputError(
      `--query "${input.query}" is not a service name the kubelet accepts (letters, digits and - _ . : @, at most ${MAX_SERVICE_LENGTH})`,
    );
  const hasOptions = input.tail !== undefined || input.since !== undefined || input.pattern !== undefined;
  if (file && hasOptions)
    throw new NodeLogInputError(
      '--query names a file (it has / or \\): the kubelet takes no --tail, --since or --pattern with a file; use --path for a file',
    );
  const out: Record<string, string> = { query: q };
  if (input.tail !== undefined) {
    if (!Number.isInteger(input.tail) || input.tail < 0 || input.tail > MAX_TAIL_LINES)
      throw new NodeLogInputError(`--tail must be a whole number from 0 to ${MAX_TAIL_LINES}`);
    out.tailLines = String(input.tail);
  }
  if (input.since !== undefined) out.sinceTime = sinceTime(input.since, input.now);
  if (input.pattern !== undefined) {
    try {
      new RegExp(input.pattern);
    } catch (err) {
      throw new NodeLogInputError(`--pattern is not a regular expression: ${(err as Error).message}`);
    }
    out.pattern = input.pattern;
  }
  return out;
}

/**
 * The names in a folder listing the kubelet's file server sends (Go's http.FileServer: `<a href="name">`); folders end
 * with /.
 */
export function parseLogListing(html: string): string[] {
  const names: string[] = [];
  for (const m of html.matchAll(/<a href="([^"]*)">/g)) {
    let name: string;
    try {
      name = decodeURIComponent(
        (m[1] as string)
          .replace(/&amp;/g, '&')
          .replace(/&#39;/g, "'")
          .replace(/&quot;/g, '"'),
      );
    } catch {
      continue;
    }
    // Only entries of this folder: no parent, no absolute links, no links elsewhere.
    if (
      name === '' ||
      name === '../' ||
      name.startsWith('/') ||
      /^[a-z]+:/i.test(name) ||
      name.slice(0, -1).includes('/')
    )
      continue;
    names.push(name);
  }
  return names;
}

/** Whether an answer is the file server's folder listing (what the kubelet sends for /logs/ when the query is off). */
export function isLogListing(contentType: string | undefined, text: string): boolean {
  return /text\/html/i.test(contentType ?? '') && /<pre>/i.test(text);
}

/**
 * How to turn the endpoints on, said with every refusal, for the node's kubelet version (`v1.35.4`;
 * undefined: not known). NodeLogQuery is GA and locked on from 1.36: only older kubelets need the gate.
 */
export function enableNodeLogs(kubeletVersion?: string): string {
  const ga = WINDOWS_RELEASES.nodeLogQueryGA;
  const release = normalizeRelease(kubeletVersion);
  const gate = '`NodeLogQuery=true` (featureGates: {NodeLogQuery: true})';
  const query =
    release === undefined
      ? `\`enableSystemLogQuery: true\` (and, on kubelets before ${ga}, the feature gate ${gate})`
      : releaseAtLeast(release, ga)
        ? `\`enableSystemLogQuery: true\` (its kubelet, ${release}, has NodeLogQuery on: GA since ${ga}, no feature gate)`
        : `\`enableSystemLogQuery: true\` with the feature gate ${gate} (its kubelet is ${release}; from ${ga} the gate is on)`;
  return `To serve node logs the kubelet needs \`enableSystemLogHandler: true\` (the log folder) and, for --query, ${query} in its configuration; the caller needs RBAC \`get\` on \`nodes/proxy\`.`;
}

export type NodeLogRefusalKind =
  'no-node' | 'forbidden' | 'disabled' | 'query-off' | 'not-found' | 'invalid' | 'unreachable' | 'other';

export interface NodeLogRefusal {
  kind: NodeLogRefusalKind;
  message: string;
}

/**
 * What a refusal of the node log endpoints means, from the answer (through the API server: its
 * Status for 403 and for a kubelet it cannot reach; the kubelet's own text otherwise). `what` is
 * what was asked ("kubelet/kubelet.log", "the log query for kubelet").
 */
export function nodeLogRefusal(
  node: string,
  what: string,
  status: number,
  text: string,
  kubeletVersion?: string,
): NodeLogRefusal {
  const said = firstLine(text);
  const apiStatus = parseStatus(text);
  if (status === 404 && apiStatus?.reason === 'NotFound' && apiStatus.details?.kind === 'nodes')
    return { kind: 'no-node', message: `There is no node "${node}" (404: ${said}).` };
  if (status === 403)
    return {
      kind: 'forbidden',
      message: `You may not read ${what} of ${node} through the API (403: ${said || 'forbidden'}). Reading node logs needs RBAC \`get\` on the \`nodes/proxy\` resource (a ClusterRole rule: apiGroups [""], resources ["nodes/proxy"], verbs ["get"]).`,
    };
  if (status === 405 || /logs endpoint is disabled/i.test(text))
    return {
      kind: 'disabled',
      message: `The kubelet of ${node} does not serve its logs (${said || `HTTP ${status}`}). ${enableNodeLogs(kubeletVersion)}`,
    };
  if (status === 404)
    return { kind: 'not-found', message: `The kubelet of ${node} has no ${what} (404: ${said || 'not found'}).` };
  if (status === 400 || status === 406)
    return { kind: 'invalid', message: `The kubelet of ${node} refused ${what} (${status}: ${said}).` };
  if (
    status === 502 ||
    status === 503 ||
    /error trying to reach service|dial tcp|connection refused|no route to host|i\/o timeout/i.test(text)
  )
    return { kind: 'unreachable', message: `The API server cannot reach the kubelet of ${node} (${status}: ${said}).` };
  return { kind: 'other', message: `Reading ${what} of ${node} failed (${status}${said ? `: ${said}` : ''}).` };
}

/** The kubelet answered a log query with its folder listing: the query is off there. */
export function queryOffRefusal(node: string, kubeletVersion?: string): NodeLogRefusal {
  return {
    kind: 'query-off',
    message: `The kubelet of ${node} ignored the log query and sent its log folder instead: the log query is off there. ${enableNodeLogs(kubeletVersion)}`,
  };
}

/**
 * The kubelet's note "options present and query resolved to log files for [kubelet]": that service logs to a file,
 * which takes no options.
 */
export function fileLoggerRefusal(node: string, service: string, text: string): NodeLogRefusal {
  const files = /log files for \[([^\]]*)\]/.exec(text)?.[1] ?? service;
  return {
    kind: 'invalid',
    message: `On ${node}, ${service} logs to a file (${files}), and the kubelet takes no --tail, --since or --pattern for a file: run the query without them, or read the file with --path (on WMCO nodes: kubelet/kubelet.log).`,
  };
}

function parseStatus(text: string): { kind?: string; reason?: string; details?: { kind?: string } } | undefined {
  try {
    const s = JSON.parse(text) as { kind?: string; reason?: string; details?: { kind?: string } };
    return s && typeof s === 'object' && s.kind === 'Status' ? s : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  let t = text.trim();
  try {
    const s = JSON.parse(t) as { message?: unknown };
    if (typeof s.message === 'string') t = s.message;
  } catch {
    // plain text
  }
  return (t.split(/\r?\n/)[0] ?? '').slice(0, 300);
}
