// Failures become model items with a message a user can act on, and userMessage gives the CLI and
// VS Code the same words for the same failure. Nothing here throws, and no message carries a token, a
// key or a password.
import { ownWords } from '../core/user-error';

export type ClusterErrorKind =
  | 'unreachable'
  | 'timeout'
  | 'unauthorized'
  | 'forbidden'
  | 'exec'
  | 'tls'
  | 'notFound'
  | 'server'
  | 'config'
  | 'other';

export interface Permission {
  verb: string;
  resource: string;
  group?: string;
  /** Undefined means cluster scope. */
  namespace?: string;
}

export interface ClusterErrorItem {
  kind: 'error';
  reason: ClusterErrorKind;
  /** One or two sentences: what happened, why, what to do. */
  message: string;
  status?: number;
  permission?: Permission;
  /** What was being read when it failed (e.g. "Windows nodes"). */
  what?: string;
  /** The cause in a few words, for a row's label ("timeout after 15 s", "the CA does not match"). */
  cause?: string;
  /** A watch's failure, retried by itself (list-watch.ts): the view says it is reconnecting. */
  reconnecting?: boolean;
}

/** An HTTP answer other than 2xx, with the Kubernetes Status body when there was one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly statusMessage: string,
    readonly path: string,
    readonly body?: { message?: string; reason?: string; details?: { kind?: string; group?: string; name?: string } },
    /** The server's Retry-After (429, 503), in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(`${status} ${body?.message ?? statusMessage}`);
    this.name = 'ApiError';
  }
}

/** The exec credential plugin could not run or failed. */
export class ExecPluginError extends Error {
  constructor(
    readonly command: string,
    override readonly cause: unknown,
  ) {
    super(`exec credential plugin "${command}" failed`);
    this.name = 'ExecPluginError';
  }
}

/** A request that got no answer in time. */
export class RequestTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`no answer from ${url} within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** A 2xx answer whose body is not the JSON it should be (cut short by a proxy, a reset, a load balancer page). */
export class MalformedAnswerError extends Error {
  constructor(
    readonly url: string,
    readonly path: string,
  ) {
    super(`the answer from ${url} to ${path} is not valid JSON (cut short or not from the API server)`);
    this.name = 'MalformedAnswerError';
  }
}

export interface ErrorContext {
  /** Context (cluster) name as the user knows it. */
  context?: string;
  server?: string;
  what?: string;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
]);
const TIMEOUT = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
/** The server's certificate does not chain to the CA the kubeconfig trusts. */
const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
]);
const TLS_CODES =
  /^(UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_|ERR_TLS_|ERR_SSL_|EPROTO$|ERR_OSSL_|HOSTNAME_MISMATCH|INVALID_CA|INVALID_PURPOSE|UNSUPPORTED_CERTIFICATE)/;

export function classifyError(err: unknown, ctx: ErrorContext = {}): ClusterErrorItem {
  const cluster = ctx.context ? `cluster "${ctx.context}"` : 'the cluster';
  const at = ctx.server ? ` at ${ctx.server}` : '';
  const item = (reason: ClusterErrorKind, message: string, extra: Partial<ClusterErrorItem> = {}): ClusterErrorItem => {
    const out: ClusterErrorItem = { kind: 'error', reason, message: redact(message), ...extra };
    if (ctx.what) out.what = ctx.what;
    return out;
  };

  if (err instanceof ExecPluginError) return item('exec', execMessage(err, cluster));

  if (err instanceof ApiError) {
    const statusText = err.body?.message ?? err.statusMessage;
    switch (err.status) {
      case 401:
        return item(
          'unauthorized',
          `The credentials for ${cluster} are expired or invalid (401 Unauthorized). Log in again (for example \`oc login\` or your cloud CLI) to refresh the kubeconfig.`,
          { status: 401, cause: 'credentials expired or rejected (401)' },
        );
      case 403: {
        const permission = parseForbidden(statusText);
        const what = permission ? describePermission(permission) : statusText;
        return item(
          'forbidden',
          `You are not allowed to ${what} on ${cluster} (403 Forbidden). Ask a cluster administrator for this permission.`,
          { status: 403, permission },
        );
      }
      case 404:
        return item('notFound', `Not found on ${cluster}: ${statusText}.`, { status: 404 });
      default:
        return item(
          err.status >= 500 ? 'server' : 'other',
          `${cluster} answered ${err.status}${err.statusMessage ? ` ${err.statusMessage}` : ''}: ${statusText}`,
          { status: err.status },
        );
    }
  }

  if (err instanceof MalformedAnswerError) {
    return item(
      'server',
      `${capital(cluster)} sent an incomplete or garbled answer (${err.path}): a proxy, a load balancer or a dropped connection cut it. Run the command again; if it persists, check what sits between you and the API server.`,
    );
  }

  const code = errorCode(err);
  const msg = err instanceof Error ? err.message : String(err);
  if (
    err instanceof RequestTimeoutError ||
    (code && TIMEOUT.has(code)) ||
    (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
  ) {
    // (under a second only in tests and for callers that give up sooner)
    const wait =
      err instanceof RequestTimeoutError
        ? err.timeoutMs < 1000
          ? `${err.timeoutMs} ms`
          : `${Math.round(err.timeoutMs / 1000)} s`
        : undefined;
    return item(
      'timeout',
      `${capital(cluster)} does not answer${at || ` (${ctx.server ?? 'unknown server'})`}: no response ${wait !== undefined ? `within ${wait}` : 'in time'}. Check the network, VPN or proxy, and that the cluster is running.`,
      { cause: wait !== undefined ? `no answer: timeout after ${wait}` : 'no answer in time' },
    );
  }
  if (code && UNREACHABLE.has(code)) {
    return item(
      'unreachable',
      `${capital(cluster)} does not answer${at} (${code}). Check the network, VPN or proxy, and that the cluster is running.`,
      { cause: code === 'ECONNREFUSED' ? 'unreachable: connection refused' : `unreachable (${code})` },
    );
  }
  if (code && UNTRUSTED_CODES.has(code)) {
    return item(
      'tls',
      `The certificate of ${cluster}${at} is not trusted: the CA in the kubeconfig does not match the server's certificate (${code}). Check certificate-authority-data in the kubeconfig, or that you reach the right server.`,
      { cause: 'certificate not trusted: the CA does not match' },
    );
  }
  if ((code && TLS_CODES.test(code)) || /certificate|self[- ]signed|SSL routines|TLS/i.test(msg)) {
    return item(
      'tls',
      `The TLS connection to ${cluster}${at} failed: ${msg}${code && !msg.includes(code) ? ` (${code})` : ''}. Check certificate-authority-data in the kubeconfig, or that you reach the right server.`,
      { cause: code === 'CERT_HAS_EXPIRED' ? "the server's certificate expired" : 'TLS failed' },
    );
  }
  if (/No currently active cluster|No active cluster|Cannot read|Invalid URL/i.test(msg)) {
    return item('config', `The kubeconfig entry for ${cluster} is incomplete: ${msg}.`);
  }
  return item('other', `Reading ${ctx.what ?? 'from'} ${cluster} failed: ${msg}`);
}

/**
 * The words a user sees for a failure, in the CLI and in VS Code alike: a UserError's own message; a
 * plain Error's own words (the plans' steps throw those, written for users; Node's and the network's
 * errors carry a code, the API's a status); else the classified wording of an API or network failure.
 */
export function userMessage(err: unknown, context: string): string {
  return ownWords(err) ?? classifyError(err, { context }).message;
}

function execMessage(err: ExecPluginError, cluster: string): string {
  const cause = err.cause;
  const code = errorCode(cause);
  const cmd = err.command;
  if (code === 'ENOENT') {
    return `The credential plugin "${cmd}" for ${cluster} was not found. VS Code may not have your shell's PATH: put the full path of "${cmd}" in the kubeconfig (users[].user.exec.command), or start VS Code from a terminal where "${cmd}" works.`;
  }
  if (code === 'EACCES')
    return `The credential plugin "${cmd}" for ${cluster} cannot be run (permission denied). Make it executable.`;
  const raw = cause instanceof Error ? cause.message : String(cause);
  const stderr = raw.trim().split('\n').slice(-5).join(' ').trim();
  return `The credential plugin "${cmd}" for ${cluster} failed${stderr ? `: ${stderr}` : ''}. Run it in a terminal to see why, then log in again.`;
}

/** Reads `User "x" cannot list resource "nodes" in API group "" in the namespace "y"` (or at the cluster scope). */
export function parseForbidden(message: string | undefined): Permission | undefined {
  if (!message) return undefined;
  const m = /cannot (\S+) resource "([^"]+)" in API group "([^"]*)"(?: in the namespace "([^"]+)")?/.exec(message);
  if (!m) return undefined;
  const p: Permission = { verb: m[1], resource: m[2] };
  if (m[3]) p.group = m[3];
  if (m[4]) p.namespace = m[4];
  return p;
}

function describePermission(p: Permission): string {
  const resource = p.group ? `${p.resource}.${p.group}` : p.resource;
  return `${p.verb} ${resource} ${p.namespace ? `in namespace "${p.namespace}"` : 'cluster-wide'}`;
}

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Removes bearer tokens, JWTs, PEM blocks and `token=`/`password=` values from a text. */
export function redact(text: string): string {
  return text
    .replace(/-----BEGIN [^-]+-----[\s\S]*?(-----END [^-]+-----|$)/g, '[redacted key]')
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]')
    .replace(/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[redacted token]')
    .replace(/\bsha256~[A-Za-z0-9_-]{20,}/g, '[redacted token]')
    .replace(
      /\b(token|password|passwd|secret|client-key-data|access[_-]?token)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi,
      '$1$2[redacted]',
    );
}
