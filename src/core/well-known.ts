// Names that Kubernetes, OpenShift and WMCO give meaning to, in one place: labels, annotations,
// namespaces, ConfigMaps and Secrets that rules, the cluster model, the plans and the CLI all refer to.
// Pure data: core/ and everything above it import from here instead of spelling the names again.

// ---- Kubernetes node labels --------------------------------------------------------------------

/** The OS label every kubelet sets (`windows` / `linux`). */
export const OS_LABEL = 'kubernetes.io/os';
/** Its deprecated predecessor, still seen in old manifests. */
export const BETA_OS_LABEL = 'beta.kubernetes.io/os';
/** The Windows build (e.g. 10.0.20348) kubelets on Windows set on their Node. */
export const BUILD_LABEL = 'node.kubernetes.io/windows-build';
/** The label selector of Windows nodes, as sent to the API server. */
export const WINDOWS_SELECTOR = `${OS_LABEL}=windows`;

// ---- WMCO (Windows Machine Config Operator) ----------------------------------------------------

/** WMCO's default namespace (the documented install; clusters may use another: see the settings). */
export const WMCO_NAMESPACE = 'openshift-windows-machine-config-operator';
/** The OLM package, and the prefix of its ClusterServiceVersions. */
export const WMCO_PACKAGE = 'windows-machine-config-operator';
/** The Bring-Your-Own-Host ConfigMap: keys are addresses, values `username=<user>`. */
export const INSTANCES_CONFIGMAP = 'windows-instances';
/** The Secret with the private key WMCO uses to reach Windows hosts, and its data key. */
export const KEY_SECRET = 'cloud-private-key';
export const KEY_SECRET_KEY = 'private-key.pem';
/** OLM defaults for installing WMCO: catalog (OpenShift; OKD uses community-operators), its namespace, channel. */
export const WMCO_CATALOG_SOURCE = 'redhat-operators';
export const WMCO_OKD_CATALOG_SOURCE = 'community-operators';
export const CATALOG_SOURCE_NAMESPACE = 'openshift-marketplace';
export const WMCO_CHANNEL = 'stable';

/** Node labels and annotations WMCO sets. */
export const BYOH_LABEL = 'windowsmachineconfig.openshift.io/byoh';
export const WMCO_UPGRADING_LABEL = 'windowsmachineconfig.openshift.io/upgrading';
export const WMCO_VERSION_ANNOTATION = 'windowsmachineconfig.openshift.io/version';
export const WMCO_DESIRED_VERSION_ANNOTATION = 'windowsmachineconfig.openshift.io/desired-version';
export const REBOOT_REQUIRED_ANNOTATION = 'windowsmachineconfig.openshift.io/reboot-required';

// ---- OpenShift ---------------------------------------------------------------------------------

/** The API group whose presence makes a cluster OpenShift or OKD (served by both, by nothing else). */
const OPENSHIFT_CONFIG_GROUP = 'config.openshift.io';
/** The cluster-wide pull secret. */
export const PULL_SECRET_NAMESPACE = 'openshift-config';
export const PULL_SECRET = 'pull-secret';
/** The namespace label that lets cluster monitoring scrape an operator's namespace. */
export const CLUSTER_MONITORING_LABEL = 'openshift.io/cluster-monitoring';

// ---- OpenShift Machine API (Windows MachineSets) ----------------------------------------------

/** The namespace of MachineSets, Machines and their user-data secrets. */
export const MACHINE_API_NAMESPACE = 'openshift-machine-api';
/** The API group and version MachineSets and Machines are served at. */
export const MACHINE_API_VERSION = 'machine.openshift.io/v1beta1';
/** On a MachineSet, its selector and its Machines: the cluster's infrastructure name. */
export const MACHINE_CLUSTER_LABEL = 'machine.openshift.io/cluster-api-cluster';
/** On a MachineSet's selector and its Machines: the MachineSet's name. */
export const MACHINESET_LABEL = 'machine.openshift.io/cluster-api-machineset';
/** On a Machine template: the role and type (`worker`, `infra`, `master`). */
export const MACHINE_ROLE_LABEL = 'machine.openshift.io/cluster-api-machine-role';
export const MACHINE_TYPE_LABEL = 'machine.openshift.io/cluster-api-machine-type';
/** On a Machine template: `Windows` (exactly) makes WMCO configure the Machines. */
export const MACHINE_OS_ID_LABEL = 'machine.openshift.io/os-id';
export const MACHINE_OS_ID_WINDOWS = 'Windows';
/** The node role label a worker Machine's spec.metadata.labels gives its Node. */
export const WORKER_ROLE_LABEL = 'node-role.kubernetes.io/worker';
/** The user-data secret WMCO writes for Windows Machines, and the Linux workers' one (the classic copy mistake). */
export const WINDOWS_USER_DATA_SECRET = 'windows-user-data';
export const WORKER_USER_DATA_SECRET = 'worker-user-data';

// ---- kubeadm -----------------------------------------------------------------------------------

/** Where `kubeadm join` discovers the API endpoint and CA: kube-public/cluster-info. */
export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_CONFIGMAP = 'cluster-info';
/** Bootstrap token Secrets live in kube-system as bootstrap-token-<id>. */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
/** kubeadm's ClusterConfiguration (networking.serviceSubnet …): kube-system/kubeadm-config. */
export const KUBEADM_CONFIG_NAMESPACE = 'kube-system';
export const KUBEADM_CONFIGMAP = 'kubeadm-config';
/** kubeadm labels control-plane nodes with this (empty value). */
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';
/** kubeadm's kube-proxy ConfigMap (config.conf, kubeconfig.conf) and ServiceAccount, in kube-system. */
export const KUBE_PROXY_CONFIGMAP = 'kube-proxy';
export const KUBE_PROXY_SERVICE_ACCOUNT = 'kube-proxy';

// ---- Windows networking (CNI) on kubeadm clusters ----------------------------------------------

/** Where Calico runs: kube-system (manifest install) or calico-system (operator install). */
export const CALICO_NAMESPACES: readonly string[] = ['kube-system', 'calico-system'];
/** Calico's operator API: operator.tigera.io/v1 Installation (usually named default). */
export const CALICO_INSTALLATIONS_PATH = '/apis/operator.tigera.io/v1/installations';
/** Where flannel runs: kube-flannel (current manifest) or kube-system (older manifests). */
export const FLANNEL_NAMESPACES: readonly string[] = ['kube-flannel', 'kube-system'];
/** flannel's ConfigMap, holding net-conf.json (and cni-conf.json). */
export const FLANNEL_CONFIGMAP = 'kube-flannel-cfg';
export const FLANNEL_NET_CONF_KEY = 'net-conf.json';
/** The Windows networking DaemonSets (sig-windows-tools hostprocess names; Calico's Windows manifest name). */
export const KUBE_PROXY_WINDOWS_DAEMONSET = 'kube-proxy-windows';
export const CALICO_WINDOWS_DAEMONSET = 'calico-node-windows';
export const CALICO_WINDOWS_CONFIGMAP = 'calico-windows-config';
export const FLANNEL_WINDOWS_DAEMONSET = 'kube-flannel-ds-windows-amd64';
export const FLANNEL_WINDOWS_CONFIGMAP = 'kube-flannel-windows-cfg';
/** The RuntimeClass handler of process-isolated Windows containers (containerd's runhcs runtime). */
export const WINDOWS_RUNTIME_HANDLER = 'runhcs-wcow-process';

// ---- kube-windows' own -------------------------------------------------------------------------

/** On a Node joined by kube-windows with kubeadm: when its probe pod succeeded (the node runs Windows pods). */
export const PROBED_ANNOTATION = 'kube-windows.io/probe-succeeded';
/** On a Node being rebooted by kube-windows: the boot time before the restart. */
export const BOOT_ANNOTATION = 'kube-windows.io/reboot-from-boot';

/** Whether the discovery answer (`GET /apis` group names) is an OpenShift/OKD cluster's. */
export function isOpenShiftGroups(groupNames: readonly string[]): boolean {
  return groupNames.includes(OPENSHIFT_CONFIG_GROUP);
}
