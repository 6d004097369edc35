// What reaching registries through a proxy from a host means (the join preflights and the kubeadm
// path's check): which answers prove the way through, and the finding for each endpoint that failed,
// named. A registry answers /v2/ with 401 to an anonymous client: that is reached; a 407 is the proxy
// asking for credentials, a 502/503/504 the proxy failing to reach the registry. Pure.
import type { Finding } from '../windows/findings';
import type { ProxyReach } from '../windows/proxy-ops';
import { bypassesProxy } from './no-proxy';
import { redactProxyUrl } from './settings';

/** The URL a registry host answers on without credentials (its API root). */
export const registryProbeUrl = (host: string): string => `https://${host}/v2/`;

/** The registries of image references (the pause image, the probe image …), those NO_PROXY sends direct left out. */
export function registriesThroughProxy(images: readonly string[], noProxy: string | undefined): string[] {
  const hosts = images.map((i) => {
    const first = i.split('/')[0] ?? '';
    return i.includes('/') && /[.:]|^localhost$/.test(first) ? first : 'docker.io';
  });
  return [...new Set(hosts)].filter((h) => !bypassesProxy(h.replace(/:\d+$/, ''), noProxy));
}

const reachedStatus = (s: number): boolean => s < 500 && s !== 407;

/** One finding per endpoint, errors for those not reached through the proxy. */
export function reachFindings(proxy: string, results: readonly ProxyReach[]): Finding[] {
  const via = redactProxyUrl(proxy);
  return results.map((r): Finding => {
    if (r.status !== undefined && reachedStatus(r.status))
      return {
        id: 'proxy-reach',
        severity: 'info',
        title: `The host reaches ${r.url} through the proxy ${via} (HTTP ${r.status})`,
      };
    const why =
      r.status === 407
        ? 'the proxy asks for credentials (407): put the user and password in the proxy URL'
        : r.status !== undefined
          ? `the proxy answered ${r.status}: it could not reach the registry (check the proxy's allow list and the registry's address)`
          : `${r.error ?? 'no answer'}: check that the host reaches the proxy (address, port, firewall)`;
    return {
      id: 'proxy-reach',
      severity: 'error',
      title: `The host does not reach ${r.url} through the proxy ${via}: ${why}`,
      fix: `Make ${new URL(r.url).host} reachable through ${via} from the host, or add it to NO_PROXY if the host reaches it directly.`,
    };
  });
}
