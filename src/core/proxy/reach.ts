// What reaching registries through a proxy from a host means (the join preflights and the kubeadm
// path's check): which answers prove the way through, and one finding per endpoint that failed,
// named by where it failed. The host's probe (core/windows/proxy-ops' reachThroughProxy) goes in
// stages: a TCP connection to the proxy (fails: the proxy is unreachable), CONNECT host:port for an
// https URL (407: the proxy wants credentials; another 4xx: it refuses the tunnel; 5xx: it could not
// reach the registry), TLS through the tunnel, then a HEAD of the registry's /v2/, which answers 401
// to an anonymous client: that is reached. Pure.
import type { Finding } from '../windows/findings';
import { bypassesProxy } from './no-proxy';
import { redactProxyUrl } from './settings';

/** One URL reached through the proxy: how far the host got, and what answered. */
export interface ProxyReach {
  url: string;
  /** Where it stopped: the proxy itself, its answer to CONNECT, TLS through the tunnel, or the request. */
  stage?: 'proxy' | 'connect' | 'tls' | 'request';
  /** The proxy's answer to CONNECT when it was not 200. */
  connectStatus?: number;
  /** The HTTP status the URL answered through the proxy. */
  status?: number;
  error?: string;
}

/** The URL a registry host answers on without credentials (its API root). */
export const registryProbeUrl = (host: string): string => `https://${host}/v2/`;

/** The registry host of an image reference (`docker.io` when the first part is not a host). */
export function registryOf(image: string): string {
  const first = image.split('/')[0] ?? '';
  return image.includes('/') && /[.:]|^localhost$/.test(first) ? first : 'docker.io';
}

/** The registries of image references (the pause image, the probe image …), those NO_PROXY sends direct left out. */
export function registriesThroughProxy(images: readonly string[], noProxy: string | undefined): string[] {
  return [...new Set(images.map(registryOf))].filter((h) => !bypassesProxy(h.replace(/:\d+$/, ''), noProxy));
}

const reachedStatus = (s: number): boolean => s < 500 && s !== 407;

export interface ReachWording {
  /** Where the proxy's credentials are given, for the 407 finding's fix (default: in the proxy URL). */
  credentialsWhere?: string;
  /** The trusted CA bundle's ConfigMap WMCO imports into the node: a TLS failure is then a warning. */
  trustedCA?: string;
}

const hostPort = (url: string): string => {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
};

/** One finding per endpoint: the proxy unreachable (once), or each registry reached or not, and why. */
export function reachFindings(proxy: string, results: readonly ProxyReach[], o: ReachWording = {}): Finding[] {
  const via = redactProxyUrl(proxy);
  const down = results.filter((r) => r.stage === 'proxy' || (r.stage === undefined && r.status === undefined));
  if (down.length > 0) {
    const proxyAt = hostPort(proxy);
    return [
      {
        id: 'proxy-unreachable',
        severity: 'error',
        title: `The host does not reach the proxy ${via} (${down[0]?.error ?? 'no answer'})`,
        fix: `Check the proxy's address and port, and that the host's firewall and routes let it connect to ${proxyAt}; not checked through it: ${results.map((r) => r.url).join(', ')}.`,
      },
    ];
  }
  return results.map((r) => reachFinding(via, r, o));
}

function reachFinding(via: string, r: ProxyReach, o: ReachWording): Finding {
  const target = hostPort(r.url);
  const host = new URL(r.url).hostname;
  const code = r.connectStatus ?? r.status;
  if (code === 407)
    return {
      id: 'proxy-credentials',
      severity: 'error',
      title: `The proxy ${via} asks for credentials (407 Proxy Authentication Required) to reach ${target}`,
      fix: o.credentialsWhere ?? 'Give the user and password in the proxy URL (http://user:password@proxy:port).',
    };
  if (r.stage === 'connect' && code !== undefined && code >= 400 && code < 500)
    return {
      id: 'proxy-connect-refused',
      severity: 'error',
      title: `The proxy ${via} refused CONNECT to ${target} (HTTP ${code})`,
      fix: `Allow CONNECT to ${target} in the proxy's rules (its ACL, allowed CONNECT ports or allow list).`,
    };
  const unreachable = (why: string): Finding => ({
    id: 'registry-unreachable',
    severity: 'error',
    title: `The host does not reach ${r.url} through the proxy ${via}: ${why}`,
    fix: `Check that the proxy reaches ${host} (its DNS, firewall and allow list), or put ${host} in NO_PROXY if the host reaches it directly.`,
  });
  if (r.stage === 'connect')
    return unreachable(
      code ? `the proxy could not open a tunnel to ${target} (it answered CONNECT with HTTP ${code})` : 'no answer',
    );
  if (r.stage === 'tls')
    return {
      id: 'registry-tls',
      severity: o.trustedCA ? 'warning' : 'error',
      title: `TLS with ${target} through the proxy ${via} failed (${r.error ?? 'no detail'})`,
      fix: o.trustedCA
        ? `If the proxy inspects TLS, WMCO imports its CA (ConfigMap openshift-config/${o.trustedCA}) into LocalMachine\\Root when it configures the node, so pulls work after the join; otherwise check ${host}'s certificate.`
        : `If the proxy inspects TLS, import its CA into LocalMachine\\Root on the host; otherwise check ${host}'s certificate.`,
    };
  if (r.status !== undefined && reachedStatus(r.status))
    return {
      id: 'registry-reached',
      severity: 'info',
      title: `The host reaches ${r.url} through the proxy ${via} (HTTP ${r.status})`,
    };
  return unreachable(
    r.status !== undefined
      ? `the proxy answered HTTP ${r.status} (it could not reach the registry)`
      : `${r.error ?? 'no answer'} after the proxy let the host through`,
  );
}
