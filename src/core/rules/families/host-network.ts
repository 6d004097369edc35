// Runtime family, host networking: settings that assume a host network mode, which ordinary Windows
// containers do not have (HostProcess containers share the node's network).
import { apiField, deleteFix, hostProcessInfo } from '../helpers';
import type { PodRule } from '../types';
import { WINDOWS_RELEASES } from '../../kubernetes-release';

// The words of each finding, shared with the rule's admission policy (core/policy).
export const win054Message = (field: string): string =>
  `${field}: ClusterFirstWithHostNet is not supported on Windows because host networking is not provided; Windows pods always run on a container network. Use ClusterFirst.`;
export const win055Message = (field: string): string =>
  `${field}: true does nothing for ordinary Windows containers: only HostProcess containers share the node's network. No release changes that (the WindowsHostNetwork feature gate was never on by default, is deprecated since Kubernetes ${WINDOWS_RELEASES.windowsHostNetworkDeprecated}, and its KEP was withdrawn). Delete it, or make the pod a HostProcess pod if it really needs the host network.`;

const WIN054: PodRule = {
  id: 'WIN054',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    'dnsPolicy: ClusterFirstWithHostNet on a Windows pod: not supported, Windows pods always run on a container network.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    if (pod.spec.dnsPolicy !== 'ClusterFirstWithHostNet') return;
    // HostProcess pods share the node's network and resolver; the policy changes nothing there.
    if (hostProcessInfo(pod).any) return;
    const path = [...pod.path, 'dnsPolicy'];
    report({
      path,
      target: 'value',
      message: win054Message(apiField(pod, ['dnsPolicy'])),
      // Without the host's network (never on Windows) the kubelet treats ClusterFirstWithHostNet as ClusterFirst.
      fixes: [
        { title: 'Change dnsPolicy to ClusterFirst', kind: 'safe', ops: [{ op: 'set', path, value: 'ClusterFirst' }] },
      ],
    });
  },
};

const WIN055: PodRule = {
  id: 'WIN055',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  releases: `all releases (the WindowsHostNetwork gate that would have changed it is deprecated since ${WINDOWS_RELEASES.windowsHostNetworkDeprecated} and withdrawn)`,
  title:
    'hostNetwork: true on a Windows pod without HostProcess containers: Windows has no host networking mode for ordinary containers.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    if (pod.spec.hostNetwork !== true || hostProcessInfo(pod).any) return;
    const path = [...pod.path, 'hostNetwork'];
    report({
      path,
      message: win055Message(apiField(pod, ['hostNetwork'])),
      fixes: [deleteFix('Remove hostNetwork', path, pod.path.length)],
    });
  },
};

export const hostNetworkRules: PodRule[] = [WIN054, WIN055];
