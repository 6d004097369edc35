// A node's logs through the API server's node proxy, without SSH: a file or folder of the kubelet's
// log folder (`GET /api/v1/nodes/NODE/proxy/logs/<path>`) and the kubelet's log query
// (`GET /api/v1/nodes/NODE/proxy/logs/?query=...`). What the paths, parameters and refusals mean
// is pure, in core/node-log-query.ts.
import type { IncomingMessage } from 'node:http';
import { bodyText } from './response-body';
import {
  fileLoggerRefusal,
  isLogListing,
  logPathSegments,
  logQuery,
  nodeLogRefusal,
  parseLogListing,
  queryOffRefusal,
  type LogQueryInput,
  type NodeLogRefusal,
} from '../core/node-log-query';
import { enc, type ApiCall } from './api';
import { nodePath } from './nodes';
import type { KubeClient } from './kube-client';
import { UserError } from '../core/user-error';

/** The proxy path of a node's log folder, or of a path under it (segments already encoded). */
const nodeLogsPath = (node: string, segments = ''): string => `/api/v1/nodes/${enc(node)}/proxy/logs/${segments}`;

/** The call a log read makes, for messages and previews. */
export function nodeLogCall(node: string, request: NodeLogRequest, now = new Date()): ApiCall {
  const { path, query } = resolveRequest(node, request, now);
  const qs = query ? `?${new URLSearchParams(query).toString()}` : '';
  return { verb: 'GET', path: `${path}${qs}` };
}

/** A file or folder under the log folder, or a log query. */
export type NodeLogRequest = { path: string } | Omit<LogQueryInput, 'now'>;

/** Thrown when the node (or the API server for it) refuses; `refusal.kind` says why, its message what to do. */
export class NodeLogRefusedError extends UserError {
  override readonly name = 'NodeLogRefusedError';
  constructor(readonly refusal: NodeLogRefusal) {
    super(refusal.message);
  }
}

/**
 * The node's kubelet version, read only to word a refusal (whether the NodeLogQuery gate is needed);
 * undefined when the node cannot be read.
 */
async function kubeletVersion(kube: KubeClient, node: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const n = await kube.get<{ status?: { nodeInfo?: { kubeletVersion?: string } } }>(
      nodePath(node),
      undefined,
      signal,
    );
    return n.status?.nodeInfo?.kubeletVersion;
  } catch {
    return undefined;
  }
}

function resolveRequest(
  node: string,
  request: NodeLogRequest,
  now: Date,
): { path: string; query?: Record<string, string>; what: string } {
  if ('path' in request)
    return { path: nodeLogsPath(node, logPathSegments(request.path)), what: request.path || 'the log folder' };
  return { path: nodeLogsPath(node), query: logQuery({ ...request, now }), what: `the log query for ${request.query}` };
}

/**
 * Reads a node log and passes its text on as it arrives (never held whole). A folder (a path
 * ending in /, or the listing the kubelet sends) is passed on as its names, one a line. A log
 * query answered with the folder listing means the query is off on that node: refused.
 */
export async function streamNodeLog(
  kube: KubeClient,
  node: string,
  request: NodeLogRequest,
  sink: (chunk: Buffer) => void,
  signal?: AbortSignal,
  now = new Date(),
): Promise<void> {
  const { path, query, what } = resolveRequest(node, request, now);
  const res = await kube.stream(path, query, signal);
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    const text = await bodyText(res);
    throw new NodeLogRefusedError(nodeLogRefusal(node, what, status, text, await kubeletVersion(kube, node, signal)));
  }
  if (/text\/html/i.test(res.headers['content-type'] ?? '')) {
    const text = await bodyText(res, 16 * 1024 * 1024);
    if (isLogListing(res.headers['content-type'], text)) {
      if (query) throw new NodeLogRefusedError(queryOffRefusal(node, await kubeletVersion(kube, node, signal)));
      sink(Buffer.from(parseLogListing(text).join('\n') + '\n'));
      return;
    }
    sink(Buffer.from(text));
    return;
  }
  if (!query) {
    for await (const c of res) sink(c as Buffer);
    return;
  }
  // The kubelet answers 200 with a note when the service logs to a file and options were given:
  // the beginning is held back until it is known not to be that note.
  let head: Buffer | undefined = Buffer.alloc(0);
  for await (const c of res) {
    if (!head) {
      sink(c as Buffer);
      continue;
    }
    head = Buffer.concat([head, c as Buffer]);
    if (head.length >= 512) {
      const h: Buffer = head;
      head = undefined;
      passOn(node, request, h, sink);
    }
  }
  if (head) passOn(node, request, head, sink);
}

function passOn(node: string, request: NodeLogRequest, head: Buffer, sink: (chunk: Buffer) => void): void {
  const text = head.toString('utf8');
  if (/^\s*options present and query resolved to log files/.test(text))
    throw new NodeLogRefusedError(fileLoggerRefusal(node, 'query' in request ? request.query : '', text));
  if (head.length > 0) sink(head);
}

/** The names in a folder of the node's logs (folders end with /); refused as streamNodeLog is. */
export async function listNodeLogFolder(
  kube: KubeClient,
  node: string,
  folder: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const segments = logPathSegments(folder);
  const res = await kube.stream(
    nodeLogsPath(node, segments && !segments.endsWith('/') ? `${segments}/` : segments),
    undefined,
    signal,
  );
  const status = res.statusCode ?? 0;
  const text = await bodyText(res, 16 * 1024 * 1024);
  if (status < 200 || status >= 300)
    throw new NodeLogRefusedError(
      nodeLogRefusal(node, folder ? `the log folder ${folder}` : 'the log folder', status, text),
    );
  if (!isLogListing(res.headers['content-type'], text))
    throw new NodeLogRefusedError({
      kind: 'other',
      message: `The kubelet of ${node} did not answer with a folder listing for ${folder || 'its log folder'}.`,
    });
  return parseLogListing(text);
}

/**
 * Opens one file of the node's logs: its size when the kubelet says it (Content-Length) and its body; refused as
 * streamNodeLog is.
 */
export async function openNodeLogFile(
  kube: KubeClient,
  node: string,
  path: string,
  signal?: AbortSignal,
): Promise<{ size?: number; body: IncomingMessage }> {
  const res = await kube.stream(nodeLogsPath(node, logPathSegments(path)), undefined, signal);
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300)
    throw new NodeLogRefusedError(nodeLogRefusal(node, path, status, await bodyText(res)));
  const length = Number(res.headers['content-length']);
  return {
    ...(Number.isFinite(length) && res.headers['content-length'] !== undefined ? { size: length } : {}),
    body: res,
  };
}
