// kubeadm clusters' networking as the API server holds it, for the API emulator and the real API
// server: a Linux control-plane node, kubeadm's kube-proxy (DaemonSet, ConfigMap, ServiceAccount),
// and the CNI: Calico from its manifest (kube-system/calico-node) or its operator (an Installation
// and calico-system/calico-node), Flannel (kube-flannel/kube-flannel-ds with its kube-flannel-cfg),
// or Cilium (not supported for Windows). Shapes follow the objects those installers create
// (kubeadm's addon phase, calico.yaml, tigera-operator + custom-resources.yaml, kube-flannel.yml).
// Test double data only: never import from src/.
import type { KubeObject } from './kube-emulator/types';

const CREATED = '2026-10-02T08:14:51Z';

function daemonSet(
  namespace: string,
  name: string,
  labels: Record<string, string>,
  containers: { name: string; image: string }[],
  init: { name: string; image: string }[] = [],
  serviceAccount?: string,
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace, labels, creationTimestamp: CREATED },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          ...(serviceAccount ? { serviceAccountName: serviceAccount } : {}),
          hostNetwork: true,
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ operator: 'Exists' }],
          ...(init.length ? { initContainers: init } : {}),
          containers,
        },
      },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    },
    status: {
      currentNumberScheduled: 1,
      desiredNumberScheduled: 1,
      numberAvailable: 1,
      numberMisscheduled: 0,
      numberReady: 1,
      observedGeneration: 1,
      updatedNumberScheduled: 1,
    },
  };
}

const ns = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
});
const sa = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace },
});

/** A kubeadm control-plane node (Linux, tainted as kubeadm init leaves it). */
export function controlPlaneNode(name = 'cp-1', os = 'linux'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      creationTimestamp: CREATED,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': os,
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': os,
        'node-role.kubernetes.io/control-plane': '',
        'node.kubernetes.io/exclude-from-external-load-balancers': '',
      },
      annotations: {
        'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///var/run/containerd/containerd.sock',
        'node.alpha.kubernetes.io/ttl': '0',
      },
    },
    spec: {
      podCIDR: '10.244.0.0/24',
      podCIDRs: ['10.244.0.0/24'],
      taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.10' },
        { type: 'Hostname', address: name },
      ],
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.31.3',
        osImage: 'Ubuntu 24.04.1 LTS',
        containerRuntimeVersion: 'containerd://1.7.22',
        operatingSystem: os,
        architecture: 'amd64',
      },
    },
  };
}

/** kubeadm's kube-proxy addon: DaemonSet, ConfigMap (config.conf, kubeconfig.conf), ServiceAccount. */
export function kubeadmKubeProxy(server: string, version = 'v1.31.3'): KubeObject[] {
  return [
    sa('kube-system', 'kube-proxy'),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-proxy', namespace: 'kube-system', labels: { app: 'kube-proxy' } },
      data: {
        'config.conf':
          'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.244.0.0/16\nmode: ""\n',
        'kubeconfig.conf': [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          '- cluster:',
          '    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
          `    server: ${server}`,
          '  name: default',
          'contexts:',
          '- context:',
          '    cluster: default',
          '    namespace: default',
          '    user: default',
          '  name: default',
          'current-context: default',
          'users:',
          '- name: default',
          '  user:',
          '    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token',
          '',
        ].join('\n'),
      },
    },
    daemonSet(
      'kube-system',
      'kube-proxy',
      { 'k8s-app': 'kube-proxy' },
      [{ name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${version}` }],
      [],
      'kube-proxy',
    ),
  ];
}

/** Calico installed from calico.yaml: kube-system/calico-node (and its ServiceAccount). */
export function calicoManifest(version = 'v3.28.2'): KubeObject[] {
  return [
    sa('kube-system', 'calico-node'),
    daemonSet(
      'kube-system',
      'calico-node',
      { 'k8s-app': 'calico-node' },
      [{ name: 'calico-node', image: `docker.io/calico/node:${version}` }],
      [
        { name: 'upgrade-ipam', image: `docker.io/calico/cni:${version}` },
        { name: 'install-cni', image: `docker.io/calico/cni:${version}` },
      ],
      'calico-node',
    ),
  ];
}

/**
 * Calico installed by its operator: the Installation `default` and calico-system/calico-node. With
 * windowsDataplane HNS the operator also runs calico-system/calico-node-windows (as it does).
 */
export function calicoOperator(windowsDataplane?: 'HNS' | 'Disabled', version = 'v3.28.2'): KubeObject[] {
  const out: KubeObject[] = [
    ns('calico-system'),
    {
      apiVersion: 'operator.tigera.io/v1',
      kind: 'Installation',
      metadata: { name: 'default', creationTimestamp: CREATED },
      spec: {
        variant: 'Calico',
        cni: { type: 'Calico', ipam: { type: 'Calico' } },
        calicoNetwork: {
          bgp: 'Disabled',
          ipPools: [
            {
              name: 'default-ipv4-ippool',
              cidr: '10.244.0.0/16',
              encapsulation: 'VXLAN',
              natOutgoing: 'Enabled',
              nodeSelector: 'all()',
              blockSize: 26,
            },
          ],
          ...(windowsDataplane ? { windowsDataplane } : {}),
        },
      },
      status: {
        variant: 'Calico',
        calicoVersion: version,
        conditions: [
          { type: 'Ready', status: 'True', reason: 'AllObjectsAvailable', message: 'All Objects Available' },
        ],
      },
    },
    sa('calico-system', 'calico-node'),
    daemonSet(
      'calico-system',
      'calico-node',
      { 'k8s-app': 'calico-node' },
      [{ name: 'calico-node', image: `docker.io/calico/node:${version}` }],
      [{ name: 'install-cni', image: `docker.io/calico/cni:${version}` }],
      'calico-node',
    ),
  ];
  if (windowsDataplane === 'HNS') {
    const win = daemonSet(
      'calico-system',
      'calico-node-windows',
      { 'k8s-app': 'calico-node-windows' },
      [
        { name: 'felix', image: `docker.io/calico/node-windows:${version}` },
        { name: 'node', image: `docker.io/calico/node-windows:${version}` },
      ],
      [{ name: 'install-cni', image: `docker.io/calico/cni-windows:${version}` }],
      'calico-node',
    );
    (win.spec as { template: { spec: { nodeSelector: Record<string, string> } } }).template.spec.nodeSelector = {
      'kubernetes.io/os': 'windows',
    };
    out.push(win);
  }
  return out;
}

/** Flannel from kube-flannel.yml, with the given net-conf.json backend. */
export function flannel(
  backend: Record<string, unknown> = { Type: 'vxlan', VNI: 4096, Port: 4789 },
  namespace = 'kube-flannel',
): KubeObject[] {
  return [
    ns(namespace),
    sa(namespace, 'flannel'),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-flannel-cfg', namespace, labels: { app: 'flannel', 'k8s-app': 'flannel', tier: 'node' } },
      data: {
        'cni-conf.json': JSON.stringify(
          {
            name: 'cbr0',
            cniVersion: '0.3.1',
            plugins: [
              { type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } },
              { type: 'portmap', capabilities: { portMappings: true } },
            ],
          },
          null,
          2,
        ),
        'net-conf.json': JSON.stringify({ Network: '10.244.0.0/16', EnableNFTables: false, Backend: backend }, null, 2),
      },
    },
    daemonSet(
      namespace,
      'kube-flannel-ds',
      { app: 'flannel', 'k8s-app': 'flannel', tier: 'node' },
      [{ name: 'kube-flannel', image: 'docker.io/flannel/flannel:v0.25.6' }],
      [
        { name: 'install-cni-plugin', image: 'docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2' },
        { name: 'install-cni', image: 'docker.io/flannel/flannel:v0.25.6' },
      ],
      'flannel',
    ),
  ];
}

/** Cilium (kube-system/cilium): a CNI kube-windows does not support for Windows nodes. */
export function cilium(): KubeObject[] {
  return [
    sa('kube-system', 'cilium'),
    daemonSet(
      'kube-system',
      'cilium',
      { 'k8s-app': 'cilium' },
      [{ name: 'cilium-agent', image: 'quay.io/cilium/cilium:v1.16.3' }],
      [],
      'cilium',
    ),
  ];
}
