// A cluster-wide egress proxy as kube-windows reads it: OpenShift's `proxies.config.openshift.io/cluster`
// (its status is what the cluster's operators, WMCO included, apply; its spec what was asked) and the
// variables a node or a container carries for it. Credentials in a proxy URL are a secret: they are
// taken out before anything is shown, sent to the language server or offered as a fix. Pure.

/** The proxy variables WMCO reconciles on Windows nodes, in the order they are shown. */
export const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'] as const;
export type ProxyVariable = (typeof PROXY_VARIABLES)[number];

/** The cluster's proxy, without credentials. */
export interface ClusterProxyFacts {
  httpProxy?: string;
  httpsProxy?: string;
  /** The effective NO_PROXY list (status: the cluster adds its own networks and domains to what was asked). */
  noProxy?: string;
  /** spec.trustedCA.name: the ConfigMap in openshift-config whose `ca-bundle.crt` the proxy's CA is in. */
  trustedCA?: string;
  /** A proxy URL carried a user or password, taken out here. */
  credentials?: boolean;
}

/** The fields of a Proxy object this module reads. */
export interface ProxyObject {
  spec?: { httpProxy?: string; httpsProxy?: string; noProxy?: string; trustedCA?: { name?: string } };
  status?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
}

/** A URL without its user and password (`http://user:pw@proxy:3128` -> `http://proxy:3128`); other text as it is. */
export function withoutCredentials(url: string): { url: string; had: boolean } {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/@\s]*)@/i.exec(url);
  if (!m) return { url, had: false };
  return { url: (m[1] as string) + url.slice(m[0].length), had: true };
}

/** A proxy URL as it may be shown: the password replaced by •••, the user kept (it tells which account). */
export function redactProxyUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/:@\s]*):([^/@\s]*)@/i, '$1$2:•••@');
}

const nonEmpty = (s: string | undefined): string | undefined => (s && s.trim() ? s.trim() : undefined);

/** The cluster's proxy from its Proxy object (status first, else spec); undefined when none is set. */
export function proxyFacts(obj: ProxyObject | undefined): ClusterProxyFacts | undefined {
  if (!obj) return undefined;
  const pick = (k: 'httpProxy' | 'httpsProxy' | 'noProxy') => nonEmpty(obj.status?.[k]) ?? nonEmpty(obj.spec?.[k]);
  const out: ClusterProxyFacts = {};
  let credentials = false;
  for (const k of ['httpProxy', 'httpsProxy'] as const) {
    const v = pick(k);
    if (!v) continue;
    const clean = withoutCredentials(v);
    out[k] = clean.url;
    credentials ||= clean.had;
  }
  if (!out.httpProxy && !out.httpsProxy) return undefined;
  const noProxy = pick('noProxy');
  if (noProxy) out.noProxy = noProxy;
  const ca = nonEmpty(obj.spec?.trustedCA?.name);
  if (ca) out.trustedCA = ca;
  if (credentials) out.credentials = true;
  return out;
}

/** The variables the cluster's proxy means for a node or a container, unset ones left out. */
export function proxyVariables(p: ClusterProxyFacts): Partial<Record<ProxyVariable, string>> {
  const out: Partial<Record<ProxyVariable, string>> = {};
  if (p.httpProxy) out.HTTP_PROXY = p.httpProxy;
  if (p.httpsProxy) out.HTTPS_PROXY = p.httpsProxy;
  if (p.noProxy) out.NO_PROXY = p.noProxy;
  return out;
}

/** The entries of a NO_PROXY list (comma separated; spaces ignored). */
export function noProxyEntries(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** One line for the cluster row: where traffic goes and what bypasses it. */
export function proxySummary(p: ClusterProxyFacts): string {
  const same = p.httpProxy && p.httpsProxy && p.httpProxy === p.httpsProxy;
  const where = same
    ? `proxy ${p.httpProxy}`
    : [p.httpProxy && `HTTP ${p.httpProxy}`, p.httpsProxy && `HTTPS ${p.httpsProxy}`].filter(Boolean).join(', ');
  return same ? where : `proxy ${where}`;
}

/** On a Node joined by kube-windows with kubeadm and a proxy: the proxy it set (JSON, without credentials). */
export const PROXY_ANNOTATION = 'kube-windows.io/proxy';

/** The annotation's value for a proxy (credentials taken out). */
export function proxyAnnotation(p: { httpProxy?: string; httpsProxy?: string; noProxy?: string }): string {
  const out: ClusterProxyFacts = {};
  if (p.httpProxy) out.httpProxy = withoutCredentials(p.httpProxy).url;
  if (p.httpsProxy) out.httpsProxy = withoutCredentials(p.httpsProxy).url;
  if (p.noProxy) out.noProxy = p.noProxy;
  return JSON.stringify(out);
}

/** The proxy an annotation holds, or undefined when it is absent or not ours. */
export function readProxyAnnotation(text: string | undefined): ClusterProxyFacts | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const out: ClusterProxyFacts = {};
    for (const k of ['httpProxy', 'httpsProxy', 'noProxy'] as const) if (typeof v[k] === 'string') out[k] = v[k];
    return out.httpProxy || out.httpsProxy ? out : undefined;
  } catch {
    return undefined;
  }
}
