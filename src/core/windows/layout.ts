// Where kube-windows and WMCO put things on a Windows host: one table for the kubeadm join, the
// mirror push and the node operations. Pure data.

/**
 * Where things go on the host (sig-windows-tools layout: hostprocess/Install-Containerd.ps1,
 * hostprocess/PrepareNode.ps1).
 */
export const LAYOUT = {
  k: 'C:\\k',
  payload: 'C:\\k\\payload',
  kubelet: 'C:\\k\\kubelet.exe',
  kubeadm: 'C:\\k\\kubeadm.exe',
  containerdDir: 'C:\\Program Files\\containerd',
  containerdExe: 'C:\\Program Files\\containerd\\containerd.exe',
  containerdConfig: 'C:\\Program Files\\containerd\\config.toml',
  /** containerd's hosts.toml tree (registry config_path), also used by "Apply mirror config". */
  registryHosts: 'C:\\Program Files\\containerd\\certs.d',
  cniBin: 'C:\\opt\\cni\\bin',
  cniConf: 'C:\\etc\\cni\\net.d',
  kubeletConfig: 'C:\\var\\lib\\kubelet\\config.yaml',
  kubeletKubeconfig: 'C:\\etc\\kubernetes\\kubelet.conf',
  bootstrapKubeconfig: 'C:\\etc\\kubernetes\\bootstrap-kubelet.conf',
  directories: [
    'C:\\k',
    'C:\\k\\payload',
    'C:\\opt\\cni\\bin',
    'C:\\etc\\cni\\net.d',
    'C:\\Program Files\\containerd',
    'C:\\Program Files\\containerd\\certs.d',
    'C:\\var\\log\\kubelet',
    'C:\\var\\lib\\kubelet\\etc\\kubernetes',
    'C:\\var\\lib\\kubelet\\pki',
    'C:\\etc\\kubernetes\\pki',
    'C:\\etc\\kubernetes\\manifests',
  ],
} as const;

/** containerd's CRI endpoint on Windows (a named pipe). */
export const CRI_ENDPOINT = 'npipe:////./pipe/containerd-containerd';
/** The pause image the kubelet's sandboxes use on Windows. */
export const PAUSE_IMAGE = 'mcr.microsoft.com/oss/kubernetes/pause:3.9';

/** Where WMCO writes the tree on its nodes (WMCO pkg/windows/windows.go ContainerdConfigDir). */
export const WMCO_REGISTRY_DIR = 'C:\\k\\containerd\\registries';
