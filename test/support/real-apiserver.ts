// The real Kubernetes API server for the suites under test/apiserver-suites: the one that
// scripts/with-apiserver.mjs started for the whole `node --test` run (its kubeconfig in
// KW_APISERVER_KUBECONFIG, the OpenShift and OLM CRDs installed), or, when a file runs on its own or
// needs a server configured its own way, one started here through scripts/apiserver.mjs (loaded at
// run time, so the harness never enters a bundle). Test-only.
import { KubeConfig } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { networkInterfaces } from 'node:os';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root: test files run from out/test/<dir>/, the real-VS-Code ones from out/e2e/. */
export const ROOT =
  [resolve(__dirname, '..', '..', '..'), resolve(__dirname, '..', '..')].find((d) =>
    existsSync(join(d, 'scripts', 'apiserver.mjs')),
  ) ?? resolve(__dirname, '..', '..', '..');

export const CONTEXT_ADMIN = 'kube-windows-apiserver';
export const CONTEXT_RESTRICTED = 'kube-windows-apiserver-restricted';
const ADMIN_USER = 'kube-windows-admin';
const RESTRICTED_USER = 'kube-windows-restricted';

export interface ApiResponse<T = unknown> {
  status: number;
  /** Parsed JSON (a Status object for errors), or the text when it is not JSON. */
  body: T;
  /** The server's Warning headers (field validation, PodSecurity "would violate" …), without the `299 - ` and the quotes. */
  warnings: string[];
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Defaults to the admin's token. */
  token?: string;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
}

/** A Status object as the API server sends it for errors. */
export interface Status {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

export interface RealApiServer {
  kubeconfigPath: string;
  server: string;
  ca: Buffer;
  adminToken: string;
  restrictedToken: string;
  /** The server the runner shares between test files (stop() leaves it running). */
  shared: boolean;
  /** Whether the OpenShift and OLM CRDs are installed. */
  openshift: boolean;
  request<T = unknown>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
  /** Own servers only: shuts the process down gracefully, as an upgrade does (the port stays ours). */
  halt?(): Promise<void>;
  /** Own servers only: starts it again on the same address and credentials, with its etcd data or a fresh one. */
  resume?(options?: { freshData?: boolean }): Promise<void>;
}

export interface UseOptions {
  /** Always start a server of this file's own (for a configuration the shared one does not have). */
  own?: boolean;
  /**
   * The Kubernetes release ("1.37"): one of scripts/apiserver.mjs's releases (test/apiserver-1.N). Another
   * release than the default starts a server of this file's own, from the binary the runner built.
   */
  release?: string;
  /** Install the OpenShift and OLM CRDs (default true, as the shared server has them). False starts a plain Kubernetes server of its own. */
  openshift?: boolean;
  /** --etcd-compaction-interval (own servers only). */
  compactionInterval?: string;
  /** More kube-apiserver flags (own servers only). */
  extraArgs?: string[];
}

interface Harness {
  defaultRelease(): string;
  releases(): string[];
  startApiServer(options: {
    release?: string;
    compactionInterval?: string;
    extraArgs?: string[];
    log?: (line: string) => void;
  }): Promise<{
    kubeconfigPath: string;
    server: string;
    adminToken: string;
    restrictedToken: string;
    caPath: string;
    stop(): Promise<void>;
    halt(): Promise<void>;
    resume(options?: { freshData?: boolean }): Promise<void>;
  }>;
}
interface CrdInstaller {
  installCrds(
    api: { server: string; adminToken: string; caPath: string },
    options?: { log?: (line: string) => void },
  ): Promise<{ count: number; names: string[]; ms: number }>;
}

// Loaded from the repository at run time: the scripts stay scripts, outside every bundle.
const loadScript = <T>(name: string): Promise<T> =>
  import(pathToFileURL(join(ROOT, 'scripts', name)).href) as Promise<T>;

let sharedServer: Promise<RealApiServer> | undefined;

/**
 * The API server a suite runs against. Fails (never skips) when the runner could not start one:
 * the reason is in KW_APISERVER_UNAVAILABLE (KW_APISERVER_UNAVAILABLE_1_37 for another release).
 */
export async function useApiServer(options: UseOptions = {}): Promise<RealApiServer> {
  const unavailable =
    (options.release && process.env[`KW_APISERVER_UNAVAILABLE_${options.release.replace('.', '_')}`]) ||
    process.env.KW_APISERVER_UNAVAILABLE;
  if (unavailable)
    throw new Error(
      `The real API server${options.release ? ` ${options.release}` : ''} is not available: ${unavailable}`,
    );
  const openshift = options.openshift ?? true;
  const otherRelease =
    options.release !== undefined && options.release !== (await loadScript<Harness>('apiserver.mjs')).defaultRelease();
  const own =
    options.own ||
    otherRelease ||
    !openshift ||
    options.compactionInterval !== undefined ||
    (options.extraArgs?.length ?? 0) > 0;
  const fromRunner = process.env.KW_APISERVER_KUBECONFIG;
  if (!own && fromRunner) {
    sharedServer ??= Promise.resolve(fromKubeconfig(fromRunner));
    return sharedServer;
  }
  return startOwn({ ...options, openshift });
}

async function startOwn(options: UseOptions & { openshift: boolean }): Promise<RealApiServer> {
  const harness = await loadScript<Harness>('apiserver.mjs');
  const quiet = (line: string) => {
    if (/building|waiting|built in/.test(line)) console.error(line);
  };
  if (options.release !== undefined && !harness.releases().includes(options.release))
    throw new Error(
      `The API server harness builds no Kubernetes ${options.release} (releases: ${harness.releases().join(', ')}).`,
    );
  const started = await harness.startApiServer({
    release: options.release,
    compactionInterval: options.compactionInterval,
    extraArgs: options.extraArgs,
    log: quiet,
  });
  try {
    if (options.openshift) await (await loadScript<CrdInstaller>('apiserver-crds.mjs')).installCrds(started);
  } catch (e) {
    await started.stop();
    throw e;
  }
  const api = fromKubeconfig(started.kubeconfigPath, false, options.openshift);
  api.stop = () => started.stop();
  api.halt = () => started.halt();
  api.resume = async (o) => {
    await started.resume(o);
    // A fresh etcd has no CRDs: the server comes back as the same kind of cluster it was started as.
    if (o?.freshData && options.openshift)
      await (await loadScript<CrdInstaller>('apiserver-crds.mjs')).installCrds(started);
  };
  return api;
}

/** Reads server, CA and both users' tokens from a kubeconfig written by scripts/apiserver.mjs. */
export function fromKubeconfig(path: string, shared = true, openshift = true): RealApiServer {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  const cluster = kc.getCluster(CONTEXT_ADMIN);
  const admin = kc.getUser(ADMIN_USER)?.token;
  const restricted = kc.getUser(RESTRICTED_USER)?.token;
  if (!cluster?.caData || !admin || !restricted)
    throw new Error(
      `${path} is not a kubeconfig written by scripts/apiserver.mjs (cluster ${CONTEXT_ADMIN}, users ${ADMIN_USER} and ${RESTRICTED_USER}).`,
    );
  const ca = Buffer.from(cluster.caData, 'base64');
  const api: RealApiServer = {
    kubeconfigPath: path,
    server: cluster.server,
    ca,
    adminToken: admin,
    restrictedToken: restricted,
    shared,
    openshift,
    request: (p, o) => apiCall(api, p, o),
    stop: async () => {},
  };
  return api;
}

function apiCall<T>(api: RealApiServer, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const url = new URL(api.server + path);
  for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const payload =
    options.body === undefined
      ? undefined
      : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body), 'utf8');
  const headers: Record<string, string | number> = {
    Authorization: `Bearer ${options.token ?? api.adminToken}`,
    Accept: 'application/json',
  };
  if (payload) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    headers['Content-Length'] = payload.length;
  }
  return new Promise((resolveP, reject) => {
    const req = request(
      url,
      { method: options.method ?? (payload ? 'POST' : 'GET'), ca: api.ca, headers, timeout: 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          const raw = res.headers.warning;
          const warnings = (Array.isArray(raw) ? raw : raw ? [raw] : []).flatMap(splitWarnings);
          resolveP({ status: res.statusCode ?? 0, body: body as T, warnings });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${path}: no answer within 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** `299 - "a", 299 - "b"` → ['a', 'b'] (RFC 7234 warn-text is a quoted string). */
function splitWarnings(header: string): string[] {
  const out: string[] = [];
  const re = /\d{3} \S+ "((?:[^"\\]|\\.)*)"/g;
  let m: RegExpExecArray | null;
  // Node reads header bytes as Latin-1; the API server writes the text as UTF-8 (a rule's "…").
  while ((m = re.exec(header))) out.push(Buffer.from(m[1], 'latin1').toString('utf8').replace(/\\(.)/g, '$1'));
  return out;
}

/** A name no other test file or earlier run uses: `<prefix>-<8 hex>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/**
 * Creates a namespace (with labels) and its `default` ServiceAccount: there is no controller-manager
 * to make it, and the ServiceAccount admission plugin refuses pods whose account is missing.
 */
export async function ensureNamespace(
  api: RealApiServer,
  name: string,
  labels: Record<string, string> = {},
): Promise<void> {
  const ns = await api.request<Status>('/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } },
  });
  if (ns.status !== 201 && ns.status !== 409)
    throw new Error(`creating namespace ${name}: HTTP ${ns.status} ${ns.body.message}`);
  const sa = await api.request<Status>(`/api/v1/namespaces/${name}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: name } },
  });
  if (sa.status !== 201 && sa.status !== 409)
    throw new Error(`creating ServiceAccount ${name}/default: HTTP ${sa.status} ${sa.body.message}`);
}

/** Throws with the server's message unless the status is one of `ok`. */
export function expectStatus<T>(r: ApiResponse<T>, ok: number[], what: string): T {
  if (!ok.includes(r.status)) {
    const body = r.body as Status | string;
    throw new Error(
      `${what}: HTTP ${r.status} ${typeof body === 'string' ? body.slice(0, 500) : (body.message ?? JSON.stringify(body).slice(0, 500))}`,
    );
  }
  return r.body;
}

interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
}
const discovery = new WeakMap<RealApiServer, Map<string, Promise<DiscoveredResource[] | undefined>>>();

export interface ResourceInfo {
  /** The collection: `/api/v1/namespaces/ns/pods`, `/api/v1/nodes`. */
  path: string;
  namespaced: boolean;
  /** The resource has a status subresource (`nodes/status`). */
  status: boolean;
}

/** Where objects of `apiVersion`/`kind` live (from the server's own discovery), or undefined when that version is not served. */
export async function resourceInfo(
  api: RealApiServer,
  apiVersion: string,
  kind: string,
  namespace = 'default',
): Promise<ResourceInfo | undefined> {
  let cache = discovery.get(api);
  if (!cache) discovery.set(api, (cache = new Map()));
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  let list = cache.get(base);
  if (!list) {
    list = api
      .request<{ resources?: DiscoveredResource[] }>(base)
      .then((r) => (r.status === 200 ? (r.body.resources ?? []) : undefined));
    cache.set(base, list);
  }
  const resources = await list;
  const res = resources?.find((r) => r.kind === kind && !r.name.includes('/'));
  if (!resources || !res) return undefined;
  return {
    path: res.namespaced ? `${base}/namespaces/${encodeURIComponent(namespace)}/${res.name}` : `${base}/${res.name}`,
    namespaced: res.namespaced,
    status: resources.some((r) => r.name === `${res.name}/status`),
  };
}

/** The collection path for objects of `apiVersion`/`kind`, or undefined when the server does not serve that version. */
export async function collectionPath(
  api: RealApiServer,
  apiVersion: string,
  kind: string,
  namespace = 'default',
): Promise<string | undefined> {
  return (await resourceInfo(api, apiVersion, kind, namespace))?.path;
}

/** An object to create, in the shape of the emulator's seed objects (test/support/kube-seed.ts). */
export interface SeedObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  status?: unknown;
  [k: string]: unknown;
}

/**
 * Creates objects on the real server as a cluster would hold them: namespaces (with their default
 * ServiceAccount) first, then each object, then its status through the status subresource (Nodes,
 * Pods, custom resources whose CRD has one), since a create ignores status. Fields only the server
 * may set (uid, creationTimestamp, resourceVersion, generation) are dropped. Returns the objects as
 * the server holds them.
 */
export async function seed(api: RealApiServer, objects: SeedObject[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const obj of objects) {
    const o = structuredClone(obj);
    for (const k of ['uid', 'creationTimestamp', 'resourceVersion', 'generation']) delete o.metadata[k];
    if (o.kind === 'Namespace') {
      await ensureNamespace(api, o.metadata.name, o.metadata.labels ?? {});
      continue;
    }
    const ns = o.metadata.namespace;
    if (ns) await ensureNamespace(api, ns);
    const info = await resourceInfo(api, o.apiVersion, o.kind, ns);
    if (!info) throw new Error(`the API server does not serve ${o.apiVersion} ${o.kind}`);
    const status = o.status;
    delete o.status;
    let created = expectStatus(
      await api.request<Record<string, unknown>>(info.path, { body: o }),
      [201],
      `creating ${o.kind} ${ns ? `${ns}/` : ''}${o.metadata.name}`,
    );
    if (status !== undefined && info.status) {
      created = expectStatus(
        await api.request<Record<string, unknown>>(`${info.path}/${encodeURIComponent(o.metadata.name)}/status`, {
          method: 'PUT',
          body: { ...created, status },
        }),
        [200],
        `setting the status of ${o.kind} ${o.metadata.name}`,
      );
    }
    out.push(created);
  }
  return out;
}

/**
 * The emulator's seed objects (test/support/kube-seed.ts), changed where the real server refuses
 * them; the emulator validates none of this, the real server and the published CRD schemas do:
 * - WMCO's Subscription and CSV carry the label `operators.coreos.com/<package>.<namespace>`, whose
 *   name part (72 bytes) is longer than a label key may be (63): dropped.
 * - The Subscription's status lacks `lastUpdated`, which the OLM schema requires.
 * - The CSV's install deployment has no `spec` (a DeploymentSpec), which the OLM schema requires.
 * - The ClusterVersion's status lacks `observedGeneration` and `versionHash`, which the
 *   config.openshift.io schema requires.
 */
export function fromEmulatorSeed(objects: SeedObject[]): SeedObject[] {
  return objects.map((obj) => {
    const o = structuredClone(obj);
    for (const key of Object.keys(o.metadata.labels ?? {}))
      if ((key.split('/').pop() ?? '').length > 63) delete o.metadata.labels?.[key];
    const status = o.status && typeof o.status === 'object' ? (o.status as Record<string, unknown>) : undefined;
    if (o.kind === 'Subscription' && status) o.status = { lastUpdated: '2026-10-02T07:40:00Z', ...status };
    if (o.kind === 'ClusterVersion' && status)
      o.status = { observedGeneration: 1, versionHash: 'Zm9yLXRlc3Rz', ...status };
    if (o.kind === 'ClusterServiceVersion') {
      const deployments =
        (o.spec as { install?: { spec?: { deployments?: Record<string, unknown>[] } } } | undefined)?.install?.spec
          ?.deployments ?? [];
      for (const d of deployments) {
        d.spec ??= {
          selector: { matchLabels: { name: String(d.name) } },
          template: {
            metadata: { labels: { name: String(d.name) } },
            spec: {
              containers: [
                {
                  name: 'manager',
                  image: 'registry.redhat.io/openshift4-wincw/windows-machine-config-rhel9-operator:v10.18.0',
                },
              ],
            },
          },
        };
      }
    }
    return o;
  });
}

/** A merge patch of an object's status (the status subresource), e.g. a node's conditions. */
export async function patchStatus(
  api: RealApiServer,
  collection: string,
  name: string,
  status: unknown,
): Promise<void> {
  expectStatus(
    await api.request(`${collection}/${encodeURIComponent(name)}/status`, {
      method: 'PATCH',
      body: { status },
      contentType: 'application/merge-patch+json',
    }),
    [200],
    `patching the status of ${name}`,
  );
}

/**
 * An IPv4 address of this machine the API server will proxy to (global unicast, not loopback): it
 * refuses loopback and link-local node addresses (isProxyableHostname), so a kubelet double a Node
 * points to listens here.
 */
export function proxyableAddress(): string {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? [])
      if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
  throw new Error(
    'This machine has no non-loopback IPv4 address: the API server proxies to nodes only at global unicast addresses, so the kubelet double cannot be reached.',
  );
}
