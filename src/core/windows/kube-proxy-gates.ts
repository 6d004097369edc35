// The kube-proxy configuration a kubeadm cluster hands its Windows kube-proxy (the ConfigMap
// kube-system/kube-proxy, key config.conf, which the kubeadm join's kube-proxy-windows DaemonSet
// mounts) against the release: WinDSR and WinOverlay are GA and locked on from Kubernetes 1.34
// (pkg/features/kube_features.go), and kube-proxy refuses to start when either is set to false.
// Before 1.34, WinOverlay false turns off the overlay (VXLAN) networking both supported CNIs use. Pure.

import { load } from 'js-yaml';
import { normalizeRelease, releaseAtLeast, WINDOWS_RELEASES } from '../kubernetes-release';
import { KUBE_PROXY_CONFIGMAP } from '../well-known';
import { ok, type Finding } from './findings';

const GATES = ['WinDSR', 'WinOverlay'] as const;
const WHERE = `the ConfigMap kube-system/${KUBE_PROXY_CONFIGMAP} (config.conf)`;

/** The Windows gates a KubeProxyConfiguration turns off (`featureGates: {WinDSR: false}`); [] when unreadable. */
export function gatesTurnedOff(configText: string): string[] {
  let doc: unknown;
  try {
    doc = load(configText);
  } catch {
    return [];
  }
  const gates = (doc as { featureGates?: unknown } | undefined)?.featureGates;
  if (!gates || typeof gates !== 'object') return [];
  return GATES.filter((g) => {
    const v = (gates as Record<string, unknown>)[g];
    return v === false || (typeof v === 'string' && v.trim().toLowerCase() === 'false');
  });
}

/**
 * The preflight finding on kube-proxy's Windows gates for the cluster's release; undefined when the
 * cluster has no kubeadm kube-proxy configuration to read.
 */
export function kubeProxyGatesFinding(configText: string | undefined, serverVersion: string): Finding | undefined {
  if (configText === undefined) return undefined;
  const off = gatesTurnedOff(configText);
  const locked = WINDOWS_RELEASES.winDsrOverlayLocked;
  const release = normalizeRelease(serverVersion);
  const list = off.map((g) => `${g}: false`).join(' and ');
  if (off.length > 0 && (release === undefined || releaseAtLeast(release, locked)))
    return {
      id: 'kube-proxy-gates',
      severity: 'error',
      title: `kube-proxy's configuration sets ${list} (${WHERE}): WinDSR and WinOverlay are GA and locked on from Kubernetes ${locked}${release ? ` (the cluster runs ${release})` : ''}, and kube-proxy refuses to start with either set to false, so the Windows node would get no Service routing`,
      fix: `Remove ${off.join(' and ')} from featureGates in config.conf (kubectl -n kube-system edit configmap ${KUBE_PROXY_CONFIGMAP}; with kubeadm, from the KubeProxyConfiguration it is generated from), then run the join again.`,
    };
  if (off.includes('WinOverlay'))
    return {
      id: 'kube-proxy-gates',
      severity: 'warning',
      title: `kube-proxy's configuration sets ${list} (${WHERE}): Windows kube-proxy cannot route Services over the overlay (VXLAN) network Calico and Flannel use for Windows nodes`,
      fix: `Remove WinOverlay: false from featureGates in config.conf (kubectl -n kube-system edit configmap ${KUBE_PROXY_CONFIGMAP}); from ${locked} it is locked on.`,
    };
  return ok(
    'kube-proxy-gates',
    off.length > 0
      ? `kube-proxy's configuration sets ${list}; before ${locked} that leaves overlay networking on`
      : "kube-proxy's configuration leaves WinDSR and WinOverlay on",
  );
}
