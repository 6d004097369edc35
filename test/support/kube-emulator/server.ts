// The HTTPS front of the emulator: auth, discovery, REST verbs, watch streams, latency and fault injection.
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { Duplex } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCerts } from './certs';
import { jsonPatch, mergePatch, PatchError } from './patch';
import {
  apiGroups,
  apiResourceList,
  apiVersionOf,
  resourceByKind,
  resourceByPath,
  resourceId,
  RESOURCES,
  type ResourceInfo,
} from './resources';
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector, SelectorError } from './selectors';
import { compareKeys, listKey, notFound, Store, StoreError, type StoreEvent } from './store';
import type {
  DenyRule,
  Emulator,
  EmulatorEvent,
  EmulatorOptions,
  ExecRecord,
  ExecSession,
  Fault,
  KubeObject,
  RequestLogEntry,
} from './types';
import { scriptedShell } from './node-io';
import { acceptUpgrade, refuseUpgrade } from './websocket';

/** The exec subprotocols the API server speaks, in its order of preference (remotecommand). */
const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

type PodLike = {
  spec?: { nodeName?: string; containers?: { name: string; image?: string }[] };
  status?: {
    phase?: string;
    containerStatuses?: {
      name: string;
      state?: { running?: object; waiting?: { reason?: string } };
      lastState?: { terminated?: object };
    }[];
    initContainerStatuses?: {
      name: string;
      state?: { waiting?: { reason?: string } };
      lastState?: { terminated?: object };
    }[];
  };
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const KUBE_VERSION = {
  major: '1',
  minor: '31',
  gitVersion: 'v1.31.3',
  gitCommit: 'c83cbee114ec3a9eb86c9d6c7e2e0f8e9b4a1d2f',
  gitTreeState: 'clean',
  buildDate: '2024-11-20T14:12:03Z',
  goVersion: 'go1.22.9',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function statusObject(
  code: number,
  message: string,
  reason?: string,
  details?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: code < 400 ? 'Success' : 'Failure',
    message,
    reason: reason ?? REASONS[code] ?? '',
    ...(details ? { details } : {}),
    code,
  };
}

class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

interface Caller {
  user: string;
  deny: DenyRule[];
}

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  log: RequestLogEntry;
  caller: Caller;
  query: URLSearchParams;
  /** An injected fault that spoils the body of an otherwise normal answer. */
  spoil?: { truncate?: boolean; slowMs?: number };
}

type LabelSelectorObject = {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
};

/** A metav1.LabelSelector against labels; a missing selector matches nothing, an empty one everything (policy/v1). */
function selectorMatches(sel: LabelSelectorObject | undefined, labels: Record<string, string>): boolean {
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const inValues = has && (e.values ?? []).includes(labels[e.key] as string);
    if (e.operator === 'In' && !inValues) return false;
    if (e.operator === 'NotIn' && inValues) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Strip apiVersion/kind from list items of built-in kinds, as the real server's typed lists do. */
function listItem(r: ResourceInfo, o: KubeObject): Record<string, unknown> {
  if (r.crd) return o;
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/** Writes `buf` in about twenty pieces spread over `ms` (a slow link or a loaded server). */
function trickle(res: ServerResponse, buf: Buffer, ms: number): void {
  const step = Math.max(1, Math.ceil(buf.length / 20));
  let at = 0;
  const next = (): void => {
    if (res.destroyed) return;
    if (at >= buf.length) return void res.end();
    res.write(buf.subarray(at, at + step));
    at += step;
    setTimeout(next, ms / 20);
  };
  next();
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const certs = generateCerts();
  const store = new Store();
  const openshift =
    options.openshift ??
    (options.objects ?? []).some((o) =>
      RESOURCES.some((r) => r.openshift && r.kind === o.kind && apiVersionOf(r) === o.apiVersion),
    );
  for (const o of options.objects ?? []) store.apply(o);
  // Calico's operator CRDs are served once the operator is there: asked for, or an Installation exists.
  const serving = () => ({
    openshift,
    tigera: options.tigera === true || store.list(resourceByKind('Installation')).length > 0,
  });
  let version = { ...KUBE_VERSION };
  const adminToken = randomBytes(24).toString('hex');
  const tokens = new Map<string, Caller>([[adminToken, { user: 'system:admin', deny: [] }]]);
  for (const [t, v] of Object.entries(options.tokens ?? {})) tokens.set(t, { user: v.user, deny: v.deny ?? [] });
  let latencyMs = options.latencyMs ?? 0;
  let fault: Fault | undefined;
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 5000;
  const requests: RequestLogEntry[] = [];
  const execs: ExecRecord[] = [];
  const podLogs = new Map<string, string>();
  /** Open `follow=true` log reads, by namespace/pod/container. */
  const logFollowers = new Map<string, Set<(text: string) => void>>();
  const streams = new Set<() => void>();
  /** The open watch streams (a subset of `streams`), each with its close. */
  const watches = new Set<() => void>();
  let tmpDir: string | undefined;

  function send(ctx: Ctx, code: number, body: unknown, headers: Record<string, string> = {}): void {
    if (ctx.res.headersSent || ctx.res.destroyed) return;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const buf = Buffer.from(text);
    ctx.log.status = code;
    ctx.log.bytes += buf.length;
    ctx.res.writeHead(code, {
      'Content-Type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
      'Content-Length': String(buf.length),
      'Cache-Control': 'no-cache, private',
      ...headers,
    });
    if (ctx.spoil?.truncate) {
      ctx.res.write(buf.subarray(0, Math.floor(buf.length / 2)), () => ctx.res.socket?.destroy());
      return;
    }
    if (ctx.spoil?.slowMs) return void trickle(ctx.res, buf, ctx.spoil.slowMs);
    ctx.res.end(buf);
  }

  // 429 always carries Retry-After (1 s, the real server's default); a 503 only when a fault sets one.
  const sendStatus = (ctx: Ctx, e: HttpError, retryAfter?: number): void => {
    const seconds = e.code === 429 ? (retryAfter ?? 1) : e.code === 503 ? retryAfter : undefined;
    send(
      ctx,
      e.code,
      statusObject(e.code, e.message, e.reason, e.details),
      seconds === undefined ? {} : { 'Retry-After': String(seconds) },
    );
  };

  async function readBody(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new HttpError(
        400,
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (${(e as Error).message})`,
      );
    }
  }

  function authorize(
    caller: Caller,
    verb: string,
    r: ResourceInfo,
    sub: string | undefined,
    namespace: string | undefined,
    name: string | undefined,
  ): void {
    const resource = sub ? `${r.plural}/${sub}` : r.plural;
    const denied = caller.deny.some(
      (d) =>
        (d.verb === '*' || d.verb === verb) &&
        (d.resource === '*' || d.resource === resource || d.resource === r.plural) &&
        (d.namespace === undefined || d.namespace === namespace),
    );
    if (!denied) return;
    const what = name
      ? `${r.plural}${r.group ? '.' + r.group : ''} "${name}"`
      : `${r.plural}${r.group ? '.' + r.group : ''}`;
    const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
    throw new HttpError(
      403,
      `${what} is forbidden: User "${caller.user}" cannot ${verb} resource "${resource}" in API group "${r.group}" ${scope}`,
      'Forbidden',
      {
        ...(name ? { name } : {}),
        group: r.group,
        kind: r.plural,
      },
    );
  }

  function discovery(ctx: Ctx, path: string): boolean {
    if (ctx.req.method !== 'GET') return false;
    if (path === '/version') return (send(ctx, 200, version), true);
    if (path === '/healthz' || path === '/readyz' || path === '/livez') return (send(ctx, 200, 'ok'), true);
    if (path === '/api')
      return (
        send(ctx, 200, {
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }],
        }),
        true
      );
    if (path === '/apis')
      return (send(ctx, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: apiGroups(serving()) }), true);
    if (path === '/api/v1') return (send(ctx, 200, apiResourceList('', 'v1', serving())), true);
    const m = path.match(/^\/apis\/([^/]+)(?:\/([^/]+))?$/);
    if (m) {
      const g = apiGroups(serving()).find((x) => x.name === m[1]);
      if (!g) return false;
      if (!m[2]) return (send(ctx, 200, { kind: 'APIGroup', apiVersion: 'v1', ...g }), true);
      const list = apiResourceList(m[1], m[2], serving());
      if (!list) return false;
      return (send(ctx, 200, list), true);
    }
    return false;
  }

  function selectorMatcher(q: URLSearchParams): (o: KubeObject) => boolean {
    try {
      const ls = parseLabelSelector(q.get('labelSelector') ?? '');
      const fs = parseFieldSelector(q.get('fieldSelector') ?? '');
      return (o) => matchLabels(ls, o.metadata.labels) && matchFields(fs, o);
    } catch (e) {
      if (e instanceof SelectorError) throw new HttpError(400, e.message);
      throw e;
    }
  }

  // A paged list asks for the same list page after page: keep the filtered, sorted list while nothing
  // changed (50,000 pods in 100 pages would otherwise be filtered and sorted 100 times).
  let listCache: { key: string; rv: number; items: KubeObject[] } | undefined;

  function list(ctx: Ctx, r: ResourceInfo, namespace: string | undefined): void {
    const cacheKey = [
      resourceId(r),
      namespace ?? '',
      ctx.query.get('labelSelector') ?? '',
      ctx.query.get('fieldSelector') ?? '',
    ].join('\u0000');
    let items: KubeObject[];
    if (listCache && listCache.key === cacheKey && listCache.rv === store.rv) items = listCache.items;
    else {
      items = store.list(r, namespace, selectorMatcher(ctx.query));
      listCache = { key: cacheKey, rv: store.rv, items };
    }
    let listRv = store.rv;
    const cont = ctx.query.get('continue');
    if (cont) {
      let token: { rv: number; start: string };
      try {
        token = JSON.parse(Buffer.from(cont, 'base64').toString('utf8')) as { rv: number; start: string };
      } catch {
        throw new HttpError(400, 'continue key is not valid: illegal base64 data');
      }
      if (token.rv < store.compactedRv) {
        throw new HttpError(
          410,
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
          'Expired',
        );
      }
      listRv = token.rv;
      // The first item after the token's key (the list is in key order): a binary search.
      let lo = 0;
      let hi = items.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compareKeys(listKey(items[mid]), token.start) <= 0) lo = mid + 1;
        else hi = mid;
      }
      items = items.slice(lo);
    }
    const limit = Number(ctx.query.get('limit') ?? '0');
    const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
    if (limit > 0 && items.length > limit) {
      const last = items[limit - 1];
      metadata.continue = Buffer.from(JSON.stringify({ rv: listRv, start: listKey(last) })).toString('base64');
      if (!ctx.query.get('labelSelector') && !ctx.query.get('fieldSelector'))
        metadata.remainingItemCount = items.length - limit;
      items = items.slice(0, limit);
    }
    send(ctx, 200, {
      kind: `${r.kind}List`,
      apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
      metadata,
      items: items.map((o) => listItem(r, o)),
    });
  }

  function watch(ctx: Ctx, r: ResourceInfo, namespace: string | undefined, name: string | undefined): void {
    const sel = selectorMatcher(ctx.query);
    const match = (o: KubeObject): boolean =>
      (namespace === undefined || o.metadata.namespace === namespace) &&
      (name === undefined || o.metadata.name === name) &&
      sel(o);
    const { res } = ctx;
    ctx.log.status = 200;
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    });
    res.flushHeaders();
    const write = (type: string, object: unknown): void => {
      if (res.destroyed || res.writableEnded) return;
      const line = JSON.stringify({ type, object }) + '\n';
      ctx.log.bytes += Buffer.byteLength(line);
      res.write(line);
    };
    const rvParam = ctx.query.get('resourceVersion') ?? '';
    if (rvParam !== '' && rvParam !== '0') {
      const from = Number(rvParam);
      if (!Number.isFinite(from) || from < store.compactedRv) {
        write('ERROR', statusObject(410, `too old resource version: ${rvParam} (${store.compactedRv})`, 'Expired'));
        res.end();
        return;
      }
    }
    const onEvent = (ev: StoreEvent): void => {
      if (ev.kind !== r.kind || ev.group !== r.group) return;
      const now = match(ev.object);
      if (ev.type === 'MODIFIED') {
        const before = ev.old ? match(ev.old) : false;
        if (now && before) write('MODIFIED', ev.object);
        else if (now) write('ADDED', ev.object);
        else if (before) write('DELETED', ev.object);
      } else if (now) write(ev.type, ev.object);
    };
    if (rvParam === '' || rvParam === '0') {
      for (const o of store.list(r, namespace)) if (match(o)) write('ADDED', o);
    } else {
      const from = Number(rvParam);
      for (const ev of store.history) if (ev.rv > from) onEvent(ev);
    }
    store.listeners.add(onEvent);
    const bookmarks = ctx.query.get('allowWatchBookmarks') === 'true' || ctx.query.get('allowWatchBookmarks') === '1';
    const bookmark = (): void =>
      write('BOOKMARK', {
        kind: r.kind,
        apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
        metadata: { resourceVersion: String(store.rv) },
      });
    const timers: NodeJS.Timeout[] = [];
    if (bookmarks) timers.push(setInterval(bookmark, bookmarkIntervalMs));
    const timeoutSeconds = Number(ctx.query.get('timeoutSeconds') ?? '0');
    const close = (): void => {
      store.listeners.delete(onEvent);
      for (const t of timers) clearInterval(t);
      streams.delete(close);
      watches.delete(close);
      if (!res.writableEnded) res.end();
    };
    if (timeoutSeconds > 0) {
      timers.push(
        setTimeout(() => {
          if (bookmarks) bookmark();
          close();
        }, timeoutSeconds * 1000),
      );
    }
    streams.add(close);
    watches.add(close);
    ctx.req.on('close', close);
    res.on('close', close);
  }

  /** Keep status (main resource) or everything but status (status subresource), as the API server does. */
  function restrict(r: ResourceInfo, sub: string | undefined, old: KubeObject, next: KubeObject): KubeObject {
    if (sub === 'status') return { ...old, status: next.status, metadata: { ...old.metadata } };
    if (sub === 'approval') {
      const oldStatus = (old.status as Record<string, unknown> | undefined) ?? {};
      const conditions = ((next.status as Record<string, unknown> | undefined)?.conditions ?? []) as Record<
        string,
        unknown
      >[];
      for (const c of conditions) {
        if (c.type !== 'Approved' && c.type !== 'Denied' && c.type !== 'Failed') {
          throw new HttpError(
            422,
            `${r.kind} "${old.metadata.name}" is invalid: status.conditions[0].type: Unsupported value: "${String(c.type)}"`,
          );
        }
        c.status ??= 'True';
        c.lastUpdateTime ??= new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
        c.lastTransitionTime ??= c.lastUpdateTime;
      }
      return { ...old, status: { ...oldStatus, conditions }, metadata: { ...old.metadata } };
    }
    if (r.subresources.includes('status')) {
      const out: KubeObject = { ...next, metadata: { ...next.metadata } };
      if (old.status !== undefined) out.status = old.status;
      else delete out.status;
      return out;
    }
    return next;
  }

  /**
   * What the eviction subresource checks (pkg/registry/core/pod/storage/eviction.go): a pod that is
   * not running (or already terminating) ignores budgets; more than one matching budget is refused;
   * a budget not yet processed or with no disruption allowed answers 429 with the budget named in
   * details.causes; an allowed eviction uses up one disruption.
   */
  function checkDisruptionBudget(pod: KubeObject): void {
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp) return;
    const pdbs = store
      .list('PodDisruptionBudget', pod.metadata.namespace)
      .filter((b) =>
        selectorMatches(
          (b.spec as { selector?: LabelSelectorObject } | undefined)?.selector,
          pod.metadata.labels ?? {},
        ),
      );
    if (pdbs.length === 0) return;
    if (pdbs.length > 1)
      throw new HttpError(
        500,
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    const pdb = pdbs[0]!;
    const st = pdb.status as
      | { disruptionsAllowed?: number; desiredHealthy?: number; currentHealthy?: number; observedGeneration?: number }
      | undefined;
    const blocked = (message: string): HttpError =>
      new HttpError(429, "Cannot evict pod as it would violate the pod's disruption budget.", 'TooManyRequests', {
        causes: [{ reason: 'DisruptionBudget', message }],
      });
    if (!st || st.disruptionsAllowed === undefined)
      throw blocked(`The disruption budget ${pdb.metadata.name} is still being processed by the server.`);
    if (st.disruptionsAllowed < 0) throw new HttpError(403, 'pdb disruptions allowed is negative', 'Forbidden');
    if (st.disruptionsAllowed === 0)
      throw blocked(
        `The disruption budget ${pdb.metadata.name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`,
      );
    store.update({ ...pdb, status: { ...st, disruptionsAllowed: st.disruptionsAllowed - 1 } });
  }

  /** An object's scale subresource as an autoscaling/v1 Scale (the CRD's scale paths: spec.replicas, status.replicas, status.labelSelector). */
  function scaleOf(o: KubeObject): Record<string, unknown> {
    const spec = (o.spec ?? {}) as { replicas?: number };
    const status = (o.status ?? {}) as { replicas?: number; labelSelector?: string };
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: o.metadata.name,
        namespace: o.metadata.namespace,
        uid: o.metadata.uid,
        resourceVersion: o.metadata.resourceVersion,
        creationTimestamp: o.metadata.creationTimestamp,
      },
      spec: { replicas: spec.replicas ?? 0 },
      status: { replicas: status.replicas ?? 0, ...(status.labelSelector ? { selector: status.labelSelector } : {}) },
    };
  }

  /** `?dryRun=All`: the request is checked as usual and answered, and nothing is stored. */
  function isDryRun(ctx: Ctx): boolean {
    const v = ctx.query.getAll('dryRun');
    if (v.some((x) => x !== 'All'))
      throw new HttpError(400, `Invalid dry run value: ${v.join(', ')}. Only "All" is supported.`);
    return v.length > 0;
  }

  async function resource(ctx: Ctx, path: string): Promise<void> {
    const m = path.match(/^\/api\/v1(?:\/(.*))?$/) ?? path.match(/^\/apis\/([^/]+)\/([^/]+)(?:\/(.*))?$/);
    if (!m) throw new HttpError(404, 'the server could not find the requested resource', 'NotFound', {});
    const [group, version, rest] = path.startsWith('/api/') ? ['', 'v1', m[1]] : [m[1], m[2], m[3]];
    const segs = (rest ?? '')
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
    let namespace: string | undefined;
    if (segs[0] === 'namespaces' && segs.length >= 3 && !['status', 'finalize'].includes(segs[2])) {
      namespace = segs[1];
      segs.splice(0, 2);
    }
    const [plural, name, sub, ...extra] = segs;
    const r = plural ? resourceByPath(group, version, plural, serving()) : undefined;
    if (
      !r ||
      extra.length > 0 ||
      (sub !== undefined && !r.subresources.includes(sub)) ||
      (namespace !== undefined && !r.namespaced)
    ) {
      throw new HttpError(404, 'the server could not find the requested resource', 'NotFound', {});
    }
    if (r.namespaced && namespace === undefined && name !== undefined)
      throw new HttpError(404, 'the server could not find the requested resource', 'NotFound', {});
    const method = ctx.req.method ?? 'GET';
    const isWatch = ['1', 'true'].includes(ctx.query.get('watch') ?? '');
    const verb =
      method === 'GET'
        ? isWatch
          ? 'watch'
          : name
            ? 'get'
            : 'list'
        : method === 'POST'
          ? 'create'
          : method === 'PUT'
            ? 'update'
            : method === 'PATCH'
              ? 'patch'
              : method === 'DELETE'
                ? name
                  ? 'delete'
                  : 'deletecollection'
                : '';
    if (sub === 'exec') {
      authorize(ctx.caller, 'create', r, sub, namespace, name);
      throw new HttpError(400, 'Upgrade request required', 'BadRequest');
    }
    if (sub === 'log' && verb === 'get') {
      authorize(ctx.caller, 'get', r, sub, namespace, name);
      return podLog(ctx, namespace!, name!);
    }
    if (
      !verb ||
      (verb === 'create' && name && sub !== 'eviction') ||
      (verb !== 'create' && sub === 'eviction') ||
      ((verb === 'update' || verb === 'patch') && !name)
    ) {
      throw new HttpError(
        405,
        `the server does not allow this method on the requested resource`,
        'MethodNotAllowed',
        {},
      );
    }
    authorize(ctx.caller, verb, r, sub, namespace, name);

    if (verb === 'watch') return watch(ctx, r, namespace, name);
    if (verb === 'list') return list(ctx, r, namespace);
    if (verb === 'get') {
      const o = store.get(r, namespace, name!);
      if (!o) throw notFound(r, name!);
      return send(ctx, 200, sub === 'scale' ? scaleOf(o) : o);
    }
    if (verb === 'create') {
      const body = (await readBody(ctx.req)) as KubeObject | undefined;
      if (!body || typeof body !== 'object' || !body.metadata)
        throw new HttpError(400, 'the body of the request is not a valid object');
      if (sub === 'eviction') {
        if (body.kind !== 'Eviction') throw new HttpError(400, `expected Eviction, got ${String(body.kind)}`);
        if (body.metadata.name && body.metadata.name !== name)
          throw new HttpError(400, `name in URL does not match name in Eviction object`);
        const pod = store.get('Pod', namespace, name!);
        if (!pod) throw notFound(r, name!);
        checkDisruptionBudget(pod);
        store.delete('Pod', namespace, name!);
        return send(ctx, 201, statusObject(201, '', ''));
      }
      if (body.kind && body.kind !== r.kind)
        throw new HttpError(
          400,
          `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${r.group ? r.group + '/' : ''}${r.version}) or kind ${String(body.kind)} does not match ${r.kind}`,
        );
      if (r.namespaced) {
        if (body.metadata.namespace && body.metadata.namespace !== namespace)
          throw new HttpError(
            400,
            'the namespace of the provided object does not match the namespace sent on the request',
          );
        if (!store.get('Namespace', undefined, namespace!))
          throw new HttpError(404, `namespaces "${namespace}" not found`, 'NotFound', {
            name: namespace,
            kind: 'namespaces',
          });
        body.metadata.namespace = namespace;
      }
      if (!body.metadata.name) {
        const gen = body.metadata.generateName;
        if (typeof gen !== 'string' || gen === '')
          throw new HttpError(
            422,
            `${r.kind} "" is invalid: metadata.name: Required value: name or generateName is required`,
          );
        body.metadata.name = gen + randomBytes(3).toString('hex').slice(0, 5);
      }
      delete body.metadata.resourceVersion;
      delete body.metadata.uid;
      body.kind = r.kind;
      body.apiVersion = apiVersionOf(r);
      if (isDryRun(ctx)) {
        if (store.get(r, namespace, body.metadata.name))
          throw new HttpError(
            409,
            `${r.plural}${r.group ? '.' + r.group : ''} "${body.metadata.name}" already exists`,
            'AlreadyExists',
          );
        return send(ctx, 201, {
          ...body,
          metadata: {
            ...body.metadata,
            uid: randomUUID(),
            creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          },
        });
      }
      return send(ctx, 201, store.create(body));
    }
    if (verb === 'deletecollection') {
      const match = selectorMatcher(ctx.query);
      const gone = store
        .list(r, namespace)
        .filter(match)
        .map((o) => store.delete(r, o.metadata.namespace, o.metadata.name));
      return send(ctx, 200, {
        kind: `${r.kind}List`,
        apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
        metadata: { resourceVersion: String(store.rv) },
        items: gone.map((o) => listItem(r, o)),
      });
    }
    const old = store.get(r, namespace, name!);
    if (!old) throw notFound(r, name!);
    if (verb === 'delete') return send(ctx, 200, isDryRun(ctx) ? old : store.delete(r, namespace, name!));
    const body = await readBody(ctx.req);
    if (sub === 'scale') {
      const current = scaleOf(old);
      let wanted: { spec?: { replicas?: unknown }; metadata?: { resourceVersion?: string } } | undefined;
      const type = (ctx.req.headers['content-type'] ?? '').split(';')[0].trim();
      if (verb === 'update') wanted = body as typeof wanted;
      else if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json')
        wanted = mergePatch(current, body) as typeof wanted;
      else if (type === 'application/json-patch+json') wanted = jsonPatch(current, body) as typeof wanted;
      else
        throw new HttpError(
          415,
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json`,
        );
      const replicas = wanted?.spec?.replicas;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
        throw new HttpError(
          422,
          `Scale.autoscaling "${old.metadata.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
        );
      if (
        verb === 'update' &&
        wanted?.metadata?.resourceVersion &&
        wanted.metadata.resourceVersion !== old.metadata.resourceVersion
      ) {
        throw new HttpError(
          409,
          `Operation cannot be fulfilled on ${r.plural}.${r.group} "${old.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
          'Conflict',
        );
      }
      if (isDryRun(ctx)) return send(ctx, 200, { ...current, spec: { replicas } });
      const next = structuredClone(old);
      next.spec = { ...((next.spec as Record<string, unknown> | undefined) ?? {}), replicas };
      return send(ctx, 200, scaleOf(store.update(next)));
    }
    let next: KubeObject;
    if (verb === 'update') {
      const b = body as KubeObject | undefined;
      if (!b || typeof b !== 'object' || !b.metadata)
        throw new HttpError(400, 'the body of the request is not a valid object');
      if (b.metadata.name !== name)
        throw new HttpError(
          400,
          `the name of the object (${b.metadata.name}) does not match the name on the URL (${name})`,
        );
      next = b;
    } else {
      const type = (ctx.req.headers['content-type'] ?? '').split(';')[0].trim();
      try {
        if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json')
          next = mergePatch(old, body) as KubeObject;
        else if (type === 'application/json-patch+json') next = jsonPatch(old, body) as KubeObject;
        else
          throw new HttpError(
            415,
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`,
          );
      } catch (e) {
        if (e instanceof PatchError) throw new HttpError(422, e.message);
        throw e;
      }
      if (next.metadata?.resourceVersion === old.metadata.resourceVersion) delete next.metadata.resourceVersion;
    }
    next = restrict(r, sub, old, next);
    next.kind = r.kind;
    next.apiVersion = apiVersionOf(r);
    next.metadata.name = old.metadata.name;
    next.metadata.namespace = old.metadata.namespace;
    if (isDryRun(ctx)) return send(ctx, 200, next);
    return send(ctx, 200, store.update(next, { checkRv: true }));
  }

  /**
   * pods/log: the container's log text (setPodLog), with container, tailLines, previous and follow as
   * the API server and the kubelet answer them: previous needs a terminated last state of the
   * container ("previous terminated container … not found" otherwise), a container waiting to start
   * with no earlier instance has no log ("… is waiting to start: <reason>"); follow keeps the answer open
   * and passes on what appendPodLog adds, until the pod is deleted.
   */
  function podLog(ctx: Ctx, namespace: string, name: string): void {
    const pod = store.get('Pod', namespace, name) as (KubeObject & PodLike) | undefined;
    if (!pod) throw notFound(resourceByKind('Pod'), name);
    const containers = pod.spec?.containers ?? [];
    const container = ctx.query.get('container') ?? (containers.length === 1 ? containers[0]!.name : undefined);
    if (!container)
      throw new HttpError(
        400,
        `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`,
        'BadRequest',
      );
    if (!containers.some((c) => c.name === container))
      throw new HttpError(400, `container ${container} is not valid for pod ${name}`, 'BadRequest');
    const previous = ctx.query.get('previous') === 'true';
    const key = `${namespace}/${name}/${container}`;
    const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
    const status = statuses.find((c) => c.name === container);
    if (previous && !status?.lastState?.terminated)
      throw new HttpError(400, `previous terminated container "${container}" in pod "${name}" not found`, 'BadRequest');
    // The kubelet has no log of a container that never started (no earlier instance either).
    const waiting = status?.state?.waiting;
    if (!previous && waiting && !status?.lastState?.terminated) {
      const why =
        waiting.reason === 'ErrImagePull'
          ? "image can't be pulled"
          : waiting.reason === 'ImagePullBackOff'
            ? 'trying and failing to pull image'
            : (waiting.reason ?? '');
      throw new HttpError(400, `container "${container}" in pod "${name}" is waiting to start: ${why}`, 'BadRequest');
    }
    let lines = (podLogs.get(previous ? `${key}#previous` : key) ?? '').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const tail = ctx.query.get('tailLines');
    if (tail !== null) lines = Number(tail) === 0 ? [] : lines.slice(-Number(tail));
    const text = lines.map((l) => `${l}\n`).join('');
    if (previous || ctx.query.get('follow') !== 'true') return send(ctx, 200, text);
    const res = ctx.res;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
    ctx.log.status = 200;
    const write = (t: string): void => {
      ctx.log.bytes += Buffer.byteLength(t);
      res.write(t);
    };
    write(text);
    const followers = logFollowers.get(key) ?? new Set<(t: string) => void>();
    logFollowers.set(key, followers);
    followers.add(write);
    const onEvent = (ev: StoreEvent): void => {
      if (
        ev.type === 'DELETED' &&
        ev.object.kind === 'Pod' &&
        ev.object.metadata.name === name &&
        ev.object.metadata.namespace === namespace
      )
        close();
    };
    const close = (): void => {
      followers.delete(write);
      store.listeners.delete(onEvent);
      streams.delete(close);
      if (!res.writableEnded) res.end();
    };
    store.listeners.add(onEvent);
    streams.add(close);
    ctx.req.on('close', close);
    res.on('close', close);
  }

  /**
   * The node proxy (pkg/registry/core/node/rest/proxy.go): authorised as `get` (any verb) on
   * nodes/proxy, then the request goes to the kubelet at the node's InternalIP and
   * daemonEndpoints.kubeletEndpoint.Port over HTTPS (its certificate not checked, as without
   * --kubelet-certificate-authority), status, headers and body passed back as they come. A
   * kubelet that cannot be reached is 503 "error trying to reach service". Unlike the real
   * server, a loopback address is allowed (the tests' kubelet double listens there).
   */
  async function nodeProxy(ctx: Ctx, node: string, rest: string, search: string): Promise<void> {
    const verb =
      { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[
        ctx.req.method ?? 'GET'
      ] ?? 'get';
    authorize(ctx.caller, verb, resourceByKind('Node'), 'proxy', undefined, node);
    const n = store.get('Node', undefined, node) as
      | (KubeObject & {
          status?: {
            addresses?: { type: string; address: string }[];
            daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
          };
        })
      | undefined;
    if (!n) throw notFound(resourceByKind('Node'), node);
    const addresses = n.status?.addresses ?? [];
    const host = (addresses.find((a) => a.type === 'InternalIP') ?? addresses.find((a) => a.type === 'ExternalIP'))
      ?.address;
    if (!host)
      throw new HttpError(
        500,
        `no preferred addresses found; known addresses: [${addresses.map((a) => `{${a.type} ${a.address}}`).join(' ')}]`,
      );
    const port = n.status?.daemonEndpoints?.kubeletEndpoint?.Port || 10250;
    await new Promise<void>((resolveP) => {
      const out = httpsRequest(
        {
          host,
          port,
          path: rest + search,
          method: ctx.req.method,
          rejectUnauthorized: false,
          timeout: 2000,
          headers: { accept: ctx.req.headers.accept ?? '*/*' },
        },
        (kres) => {
          ctx.log.status = kres.statusCode ?? 502;
          const headers: Record<string, string> = {};
          for (const h of [
            'content-type',
            'content-length',
            'content-encoding',
            'location',
            'last-modified',
            'x-content-type-options',
          ])
            if (kres.headers[h] !== undefined) headers[h] = String(kres.headers[h]);
          ctx.res.writeHead(kres.statusCode ?? 502, headers);
          kres.on('data', (c: Buffer) => (ctx.log.bytes += c.length));
          kres.pipe(ctx.res);
          kres.on('end', () => resolveP());
          kres.on('error', () => resolveP());
        },
      );
      const fail = (why: string): void => {
        sendStatus(
          ctx,
          new HttpError(503, `error trying to reach service: dial tcp ${host}:${port}: ${why}`, 'ServiceUnavailable'),
        );
        resolveP();
      };
      out.on('timeout', () => out.destroy(new Error('i/o timeout')));
      out.on('error', (e: NodeJS.ErrnoException) =>
        fail(e.code === 'ECONNREFUSED' ? 'connect: connection refused' : e.message),
      );
      ctx.req.pipe(out);
    });
  }

  /**
   * pods/exec (pkg/registry/core/pod/rest/subresources.go, then the kubelet): authorised as
   * `create` on pods/exec; the pod must exist, be on a node, have the container and the container
   * must run; then the WebSocket handshake (the first of v5/v4.channel.k8s.io the client offers)
   * and the command runs (EmulatorOptions.exec, else the scripted shell), channels 0-4 (and 255,
   * v5's close) as remotecommand speaks them.
   */
  function execUpgrade(req: IncomingMessage, socket: Duplex): void {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(url.pathname);
    const log: RequestLogEntry = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search.replace(/^\?/, ''),
      status: 0,
      bytes: 0,
    };
    requests.push(log);
    const refuse = (e: HttpError): void => {
      log.status = e.code;
      refuseUpgrade(socket, e.code, REASONS[e.code] ?? 'Error', statusObject(e.code, e.message, e.reason, e.details));
    };
    try {
      if (!m) throw new HttpError(404, 'the server could not find the requested resource', 'NotFound', {});
      const auth = req.headers.authorization ?? '';
      const caller = auth.startsWith('Bearer ') ? tokens.get(auth.slice(7).trim()) : undefined;
      if (!caller) throw new HttpError(401, 'Unauthorized', 'Unauthorized');
      log.user = caller.user;
      const [namespace, name] = [decodeURIComponent(m[1]!), decodeURIComponent(m[2]!)];
      const r = resourceByKind('Pod');
      authorize(caller, 'create', r, 'exec', namespace, name);
      const pod = store.get('Pod', namespace, name) as (KubeObject & PodLike) | undefined;
      if (!pod) throw notFound(r, name);
      const q = url.searchParams;
      const containers = pod.spec?.containers ?? [];
      const container = q.get('container') ?? (containers.length === 1 ? containers[0]!.name : '');
      if (!container)
        throw new HttpError(
          400,
          `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`,
          'BadRequest',
        );
      const spec = containers.find((c) => c.name === container);
      if (!spec) throw new HttpError(400, `container ${container} is not valid for pod ${name}`, 'BadRequest');
      if (!pod.spec?.nodeName) throw new HttpError(400, `pod ${name} does not have a host assigned`, 'BadRequest');
      if (!pod.status?.containerStatuses?.find((c) => c.name === container)?.state?.running)
        throw new HttpError(400, `unable to upgrade connection: container not found ("${container}")`, 'BadRequest');
      const command = q.getAll('command');
      if (command.length === 0) throw new HttpError(400, 'you must specify at least 1 command', 'BadRequest');
      const flag = (k: string): boolean => q.get(k) === 'true' || q.get(k) === '1';
      const offered = String(req.headers['sec-websocket-protocol'] ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const ws = acceptUpgrade(req, socket, EXEC_PROTOCOLS);
      if (!ws) {
        log.status = 400;
        return;
      }
      log.status = 101;
      const record: ExecRecord = {
        path: url.pathname,
        query: log.query,
        protocol: ws.protocol,
        offered,
        namespace,
        pod: name,
        container,
        command,
        tty: flag('tty'),
        stdin: flag('stdin'),
        stdout: flag('stdout'),
        stderr: flag('stderr'),
        input: '',
        resizes: [],
        stdinClosed: false,
      };
      execs.push(record);
      const inputListeners: ((t: string) => void)[] = [];
      const closedListeners: (() => void)[] = [];
      let ended = false;
      const channel = (n: number, text: string): void =>
        ws.send(Buffer.concat([Buffer.from([n]), Buffer.from(text, 'utf8')]));
      const end = (status: Record<string, unknown>): void => {
        if (ended) return;
        ended = true;
        channel(3, JSON.stringify(status));
        setTimeout(() => ws.close(), 10);
      };
      const decoder = new TextDecoder();
      ws.onMessage((data) => {
        const ch = data[0];
        const body = data.subarray(1);
        if (ch === 0) {
          const text = decoder.decode(body, { stream: true });
          record.input += text;
          for (const l of inputListeners) l(text);
        } else if (ch === 4) {
          // TerminalSize, decoded as Go's encoding/json does: field names match whatever their case.
          const size = JSON.parse(body.toString('utf8')) as Record<string, number>;
          const field = (n: string): number => Object.entries(size).find(([k]) => k.toLowerCase() === n)?.[1] ?? 0;
          record.resizes.push({ Width: field('width'), Height: field('height') });
        } else if (ch === 255 && body[0] === 0 && ws.protocol === 'v5.channel.k8s.io') {
          record.stdinClosed = true;
          for (const l of closedListeners) l();
        }
      });
      ws.onClose(() => {
        if (!record.stdinClosed) for (const l of closedListeners) l();
      });
      const session: ExecSession = {
        record,
        image: spec.image ?? '',
        stdout: (t) => channel(1, t),
        stderr: (t) => channel(record.tty ? 1 : 2, t),
        exit: (code) => {
          record.exitCode = code;
          end(
            code === 0
              ? { metadata: {}, status: 'Success' }
              : {
                  metadata: {},
                  status: 'Failure',
                  message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
                  reason: 'NonZeroExitCode',
                  details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
                },
          );
        },
        fail: (message) =>
          end({
            metadata: {},
            status: 'Failure',
            message,
            reason: 'InternalError',
            details: { causes: [{ message }] },
            code: 500,
          }),
        onInput: (l) => void inputListeners.push(l),
        onStdinClosed: (l) => void closedListeners.push(l),
      };
      (options.exec ?? scriptedShell)(session);
    } catch (e) {
      if (e instanceof HttpError) return refuse(e);
      if (e instanceof StoreError) return refuse(new HttpError(e.code, e.message, e.reason, e.details));
      refuse(new HttpError(500, `Internal error occurred: ${(e as Error).message}`));
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const log: RequestLogEntry = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search.replace(/^\?/, ''),
      status: 0,
      bytes: 0,
    };
    requests.push(log);
    const ctx: Ctx = { req, res, log, caller: { user: '', deny: [] }, query: url.searchParams };
    let retryAfter: number | undefined;
    try {
      if (latencyMs > 0) await sleep(latencyMs);
      const f = fault;
      if (
        f &&
        (!f.path || f.path.test(url.pathname) || f.path.test(url.pathname + url.search)) &&
        (f.times === undefined || f.times > 0)
      ) {
        if (f.times !== undefined) f.times--;
        if (f.hangMs) await sleep(f.hangMs);
        if (f.dropConnection) {
          req.socket.destroy();
          return;
        }
        if (f.status) {
          retryAfter = f.retryAfterSeconds;
          throw new HttpError(
            f.status,
            f.status >= 500
              ? `Internal error occurred: injected fault (HTTP ${f.status})`
              : `injected fault (HTTP ${f.status})`,
          );
        }
        if (f.silentWatch && ['1', 'true'].includes(url.searchParams.get('watch') ?? '')) {
          res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
          res.flushHeaders();
          const close = (): void => void res.destroy();
          streams.add(close);
          res.on('close', () => streams.delete(close));
          return;
        }
        if (f.truncateBody || f.slowBodyMs) ctx.spoil = { truncate: f.truncateBody, slowMs: f.slowBodyMs };
      }
      const auth = req.headers.authorization ?? '';
      const caller = auth.startsWith('Bearer ') ? tokens.get(auth.slice(7).trim()) : undefined;
      if (!caller) throw new HttpError(401, 'Unauthorized', 'Unauthorized');
      ctx.caller = caller;
      log.user = caller.user;
      if (discovery(ctx, url.pathname)) return;
      const proxy = /^\/api\/v1\/nodes\/([^/]+)\/proxy(\/.*)?$/.exec(url.pathname);
      if (proxy) return await nodeProxy(ctx, decodeURIComponent(proxy[1]!), proxy[2] ?? '/', url.search);
      await resource(ctx, url.pathname);
    } catch (e) {
      if (e instanceof HttpError) return sendStatus(ctx, e, retryAfter);
      if (e instanceof StoreError) return sendStatus(ctx, new HttpError(e.code, e.message, e.reason, e.details));
      sendStatus(ctx, new HttpError(500, `Internal error occurred: ${(e as Error).message}`));
    }
  }

  const server: Server = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => void handle(req, res));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => execUpgrade(req, socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const url = `https://127.0.0.1:${port}`;

  return {
    url,
    caPem: certs.caPem,
    token: adminToken,
    requests,
    execs,
    setPodLog: (namespace, pod, container, text, previous) =>
      void podLogs.set(`${namespace}/${pod}/${container}${previous ? '#previous' : ''}`, text),
    appendPodLog(namespace, pod, container, text) {
      const key = `${namespace}/${pod}/${container}`;
      podLogs.set(key, (podLogs.get(key) ?? '') + text);
      for (const f of logFollowers.get(key) ?? []) f(text);
    },
    kubeconfig(opts = {}) {
      const context = opts.context ?? 'emulator';
      const yaml = [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: emulator',
        '  cluster:',
        `    server: ${url}`,
        `    certificate-authority-data: ${Buffer.from(certs.caPem).toString('base64')}`,
        'contexts:',
        `- name: ${JSON.stringify(context)}`,
        '  context:',
        '    cluster: emulator',
        '    user: emulator-user',
        '    namespace: default',
        `current-context: ${JSON.stringify(context)}`,
        'users:',
        '- name: emulator-user',
        '  user:',
        `    token: ${JSON.stringify(opts.token ?? adminToken)}`,
        'preferences: {}',
        '',
      ].join('\n');
      let file = opts.file;
      if (!file) {
        tmpDir ??= mkdtempSync(join(tmpdir(), 'kube-emulator-'));
        file = join(tmpDir, `kubeconfig-${randomBytes(4).toString('hex')}.yaml`);
      }
      writeFileSync(file, yaml, { mode: 0o600 });
      return file;
    },
    apply: (obj) => store.apply(obj),
    setVersion(gitVersion) {
      const m = /^v(\d+)\.(\d+)\./.exec(gitVersion);
      version = { ...KUBE_VERSION, gitVersion, major: m?.[1] ?? '1', minor: m?.[2] ?? '0' };
    },
    get: (kind, name, namespace) => {
      const r = resourceByKind(kind);
      const o = store.get(r, r.namespaced ? namespace || 'default' : undefined, name);
      return o ? structuredClone(o) : undefined;
    },
    patch: (kind, name, namespace, p) => store.mergePatch(kind, name, namespace, p),
    remove: (kind, name, namespace) => void store.delete(kind, namespace, name),
    list: (kind) => store.list(resourceByKind(kind)).map((o) => structuredClone(o)),
    onChange(listener) {
      // Delivered after the change is complete and in order, on a microtask, with copies: a listener
      // may then write to the emulator without re-entering the store mid-event.
      let active = true;
      const l = (ev: StoreEvent): void => {
        const event: EmulatorEvent = {
          type: ev.type,
          object: structuredClone(ev.object),
          ...(ev.old ? { old: structuredClone(ev.old) } : {}),
        };
        queueMicrotask(() => {
          if (active) listener(event);
        });
      };
      store.listeners.add(l);
      return () => {
        active = false;
        store.listeners.delete(l);
      };
    },
    setFault: (f) => void (fault = f),
    setLatency: (ms) => void (latencyMs = ms),
    compact: () => store.compact(),
    openWatches: () => watches.size,
    endWatches() {
      const open = [...watches];
      for (const close of open) close();
      return open.length;
    },
    async stop() {
      for (const close of [...streams]) close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}
