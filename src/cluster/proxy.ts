// The cluster-wide egress proxy of an OpenShift cluster: its Proxy object and the trusted CA bundle
// it names (a ConfigMap in openshift-config, key ca-bundle.crt), read into plain facts without
// credentials, plus the certificates' SHA-1 thumbprints, which is how Windows names them in
// Cert:\LocalMachine\Root. The raw URLs (credentials included) are kept apart for the engine, which
// reaches the proxy from a host and never prints them.
import { X509Certificate } from 'node:crypto';
import { proxyFacts, type ClusterProxyFacts, type ProxyObject } from '../core/proxy/settings';
import { PULL_SECRET_NAMESPACE } from '../core/well-known';
import { enc, getOrUndefined } from './api';
import type { KubeClient } from './kube-client';
import { clusterProxy, clusterVersion, configNetwork, infrastructure, mirrorSetObjects } from './openshift';
import type { MirrorSetInput } from '../core/proxy/node-registries';

/** The key of the trusted CA ConfigMap that holds the PEM bundle. */
const TRUSTED_CA_KEY = 'ca-bundle.crt';

const trustedCaPath = (name: string): string => `/api/v1/namespaces/${PULL_SECRET_NAMESPACE}/configmaps/${enc(name)}`;

export interface ClusterProxyRead {
  facts?: ClusterProxyFacts;
  /** spec.httpProxy / spec.httpsProxy as written (may carry credentials: never shown). */
  raw?: { httpProxy?: string; httpsProxy?: string };
  /** SHA-1 thumbprints (upper-case hex) of the trusted CA bundle's certificates. */
  thumbprints: string[];
  /** Why the trusted CA bundle could not be read, in a few words. */
  caProblem?: string;
}

/** SHA-1 thumbprints of the certificates in a PEM bundle (unparsable blocks skipped). */
function pemThumbprints(pem: string): string[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const out: string[] = [];
  for (const b of blocks) {
    try {
      out.push(new X509Certificate(b).fingerprint.replace(/:/g, '').toUpperCase());
    } catch {
      // not a certificate a node could import either
    }
  }
  return out;
}

/** The cluster's proxy (undefined facts: none configured, or not OpenShift). Throws what the Proxy read throws. */
export async function readClusterProxy(kube: KubeClient, signal?: AbortSignal): Promise<ClusterProxyRead> {
  const obj = (await clusterProxy(kube, signal)) as ProxyObject | undefined;
  const facts = proxyFacts(obj);
  if (!facts) return { thumbprints: [] };
  const raw = {
    ...(obj?.status?.httpProxy || obj?.spec?.httpProxy
      ? { httpProxy: (obj?.status?.httpProxy || obj?.spec?.httpProxy) as string }
      : {}),
    ...(obj?.status?.httpsProxy || obj?.spec?.httpsProxy
      ? { httpsProxy: (obj?.status?.httpsProxy || obj?.spec?.httpsProxy) as string }
      : {}),
  };
  if (!facts.trustedCA) return { facts, raw, thumbprints: [] };
  try {
    const cm = await getOrUndefined<{ data?: Record<string, string> }>(kube, trustedCaPath(facts.trustedCA), signal);
    if (!cm)
      return {
        facts,
        raw,
        thumbprints: [],
        caProblem: `ConfigMap ${PULL_SECRET_NAMESPACE}/${facts.trustedCA} not found`,
      };
    const thumbprints = pemThumbprints(cm.data?.[TRUSTED_CA_KEY] ?? '');
    return thumbprints.length > 0
      ? { facts, raw, thumbprints }
      : { facts, raw, thumbprints, caProblem: `no certificate under ${TRUSTED_CA_KEY}` };
  } catch (err) {
    return {
      facts,
      raw,
      thumbprints: [],
      caProblem: `not readable (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
    };
  }
}

/** ImageContentSourcePolicies (operator.openshift.io/v1alpha1), the older form of ImageDigestMirrorSets. */
const ICSP_PATH = '/apis/operator.openshift.io/v1alpha1/imagecontentsourcepolicies';

/** What a join's proxy preflight reads of the cluster (each read may be absent on a cluster without it). */
export interface ProxyPreflightFacts {
  proxy: ClusterProxyRead;
  /** ClusterVersion status.desired.image: the release payload. */
  releaseImage?: string;
  mirrorSets: MirrorSetInput[];
  clusterNetworks: string[];
  serviceNetworks: string[];
  /**
   * The API endpoint a node talks to (the Infrastructure's api-int host; its api host only when there is
   * no internal one): OpenShift puts api-int, not api, in the Proxy's status.noProxy.
   */
  apiHosts: string[];
}

const hostOf = (url: string | undefined): string[] => {
  try {
    return url ? [new URL(url).hostname] : [];
  } catch {
    return [];
  }
};

/** Reads the Proxy, the release image, the mirror sets, the networks and the API endpoints. */
export async function readProxyPreflightFacts(kube: KubeClient, signal?: AbortSignal): Promise<ProxyPreflightFacts> {
  const [proxy, version, sets, icsps, net, infra] = await Promise.all([
    readClusterProxy(kube, signal),
    clusterVersion(kube, signal),
    mirrorSetObjects(kube, signal),
    getOrUndefined<{ items?: { metadata?: { name?: string }; spec?: unknown }[] }>(kube, ICSP_PATH, signal),
    configNetwork(kube, signal),
    infrastructure(kube, signal),
  ]);
  const mirrorSets: MirrorSetInput[] = [
    ...sets.map((s) => ({ kind: s.kind, name: String((s.metadata as { name?: string })?.name ?? ''), spec: s.spec })),
    ...(icsps?.items ?? []).map((i) => ({
      kind: 'ImageContentSourcePolicy' as const,
      name: i.metadata?.name ?? '',
      spec: i.spec,
    })),
  ];
  const releaseImage = version?.status?.desired?.image;
  return {
    proxy,
    ...(releaseImage ? { releaseImage } : {}),
    mirrorSets,
    clusterNetworks: (net?.spec?.clusterNetwork ?? []).map((n) => n.cidr),
    serviceNetworks: net?.spec?.serviceNetwork ?? [],
    apiHosts: hostOf(infra?.status?.apiServerInternalURI ?? infra?.status?.apiServerURL),
  };
}
