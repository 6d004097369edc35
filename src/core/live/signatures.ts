// The catalogue of Windows failure signatures: what a live pod's status, its events and its node's
// conditions say when a Windows workload fails, why, and what to do. Each signature has a stable public
// id (WINF001 …), the texts that identify it (regular expressions over the runtime's and the API's own
// words), a cause and a fix in our words, and where the texts were seen. Pure: explain.ts applies it.
import type { Severity } from '../rules/types';

/** Where a text was read from. */
export type TextKind = 'waiting' | 'terminated' | 'event' | 'scheduling' | 'pod' | 'node';

export interface Signature {
  /** Stable public id (WINF001 …). */
  id: string;
  severity: Severity;
  /** One line: what failed (the README table). */
  title: string;
  /** Why it happens, in one or two sentences. */
  cause: string;
  /** What to do, when no fact makes it sharper. */
  fix: string;
  /** Where the texts were seen (an issue tracker thread or the documentation). */
  source: string;
  /** Which kinds of text can carry it. */
  kinds: readonly TextKind[];
  /** Any of these matching a text is the signature. */
  patterns: readonly RegExp[];
  /** Event reasons (or waiting/terminated reasons) the text must come with, when the words alone are too common. */
  reasons?: readonly string[];
  /** Real-looking texts that identify it (tests and docs). */
  examples: readonly string[];
}

const HCS_MISMATCH =
  /0xc0370101|container operating system does not match the host operating system|operating system of the container does not match the operating system of the host/i;

export const SIGNATURES: readonly Signature[] = [
  {
    id: 'WINF001',
    severity: 'error',
    title:
      "Image and node Windows builds differ: HCS refuses the container (0xc0370101, the container's OS does not match the host's)",
    cause:
      'With process isolation a Windows container must run the Windows Server build of its node (from Windows Server 2022 on, an image of 2022 up to the node build); the image was built for another one.',
    fix: 'Use the image tag of the node build (ltsc2019 for 10.0.17763, ltsc2022 for 10.0.20348, ltsc2025 for 10.0.26100), or pin the pod to nodes of the image build with the node.kubernetes.io/windows-build label (or a RuntimeClass that does).',
    source: 'https://github.com/MicrosoftDocs/Virtualization-Documentation/issues/765',
    kinds: ['waiting', 'terminated', 'event'],
    patterns: [HCS_MISMATCH],
    examples: [
      'Error: failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem iis: The container operating system does not match the host operating system.: unknown',
      'failed to start sandbox container for pod "win-webserver": Error response from daemon: container 0238a431 encountered an error during CreateContainer: failure in a Windows system call: The operating system of the container does not match the operating system of the host. (0xc0370101)',
    ],
  },
  {
    id: 'WINF002',
    severity: 'error',
    title: "The image has no manifest for the node's Windows build (no matching manifest for windows/amd64 10.0.x)",
    cause:
      "The image's manifest list has no entry for the node's OS and build: it publishes Linux only, or Windows builds other than the node's.",
    fix: "Use an image (or tag) that publishes a variant for the node's Windows build, or schedule the pod on nodes of a build it publishes (node.kubernetes.io/windows-build).",
    source: 'https://github.com/containerd/containerd/issues/7439',
    kinds: ['waiting', 'event'],
    patterns: [
      /no match(?:ing)? (?:manifest|platform)s? for (?:platform )?\[?windows\/(?:amd64|arm64)[^\]]*?(?:\s(10\.0\.\d{5}))?\]?/i,
    ],
    examples: [
      'Failed to pull image "contoso/api:2.1": no matching manifest for windows/amd64 10.0.20348 in the manifest list entries',
      'no matching manifest for windows/amd64 10.0.17763 in the manifest list entries',
    ],
  },
  {
    id: 'WINF003',
    severity: 'error',
    title: 'A Linux image on a Windows node: the runtime cannot run it',
    cause:
      'Windows nodes run Windows images only; the pod (or its RuntimeClass) lets it land on a Windows node, or it was meant for Linux nodes and has no OS selector.',
    fix: 'Add nodeSelector kubernetes.io/os: linux to a Linux workload (or a Windows image and kubernetes.io/os: windows to a Windows one).',
    source: 'https://github.com/docker/for-win/issues/7132',
    kinds: ['waiting', 'terminated', 'event'],
    patterns: [/image operating system "linux" cannot be used on this platform/i, /is not a valid Win32 application/i],
    examples: [
      'Failed to pull image "redis:7": image operating system "linux" cannot be used on this platform',
      'Error: failed to create containerd task: hcs::CreateProcess app: %1 is not a valid Win32 application.: unknown',
    ],
  },
  {
    id: 'WINF004',
    severity: 'error',
    title: 'Pending: the Windows nodes carry the os=Windows taint and the pod does not tolerate it',
    cause:
      'Windows nodes are usually tainted (os=Windows:NoSchedule, WMCO and most installers) so that Linux pods stay away; a Windows pod must tolerate the taint.',
    fix: 'Add tolerations: [{key: os, operator: Exists, effect: NoSchedule}] to the pod template (it tolerates os=Windows and os=windows alike), or use a RuntimeClass whose scheduling.tolerations carries it.',
    source: 'https://github.com/ROCm/TheRock/issues/2865',
    kinds: ['scheduling', 'event'],
    patterns: [
      /(\d+) node\(s\) had untolerated taint \{(?:os|kubernetes\.io\/os|node\.kubernetes\.io\/os): windows\}/i,
      /(\d+) node\(s\) had taints? \{(?:os|kubernetes\.io\/os|node\.kubernetes\.io\/os): windows\}, that the pod didn't tolerate/i,
    ],
    examples: [
      "0/5 nodes are available: 2 node(s) had untolerated taint {os: Windows}, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
      "0/4 nodes are available: 2 node(s) had taint {os: Windows}, that the pod didn't tolerate, 2 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate.",
    ],
  },
  {
    id: 'WINF005',
    severity: 'error',
    title: "Pending: no Windows node matches the pod's selectors (OS, Windows build or other labels)",
    cause:
      'The scheduler found no node whose labels satisfy the nodeSelector and node affinity; for a Windows pod that is usually a windows-build no node runs, a misspelt OS label or a missing OS selector.',
    fix: "Compare the pod's nodeSelector/affinity with the Windows nodes' labels (kubernetes.io/os=windows, node.kubernetes.io/windows-build); select a build the cluster has.",
    source:
      'https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host',
    kinds: ['scheduling', 'event'],
    patterns: [/(\d+) node\(s\) didn't match (?:Pod's node affinity\/selector|node selector)/i],
    examples: [
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    ],
  },
  {
    id: 'WINF006',
    severity: 'error',
    title: 'The RuntimeClass (or its handler) does not exist: pods are refused or their sandbox cannot start',
    cause:
      'The pod names a RuntimeClass the cluster does not have (admission refuses the pod), or the class names a handler containerd on the node does not configure (runhcs-wcow-process is the Windows default).',
    fix: "Create the RuntimeClass (handler runhcs-wcow-process, scheduling.nodeSelector kubernetes.io/os: windows) or fix runtimeClassName; a handler must be one the node's containerd config lists.",
    source: 'https://github.com/containerd/containerd/issues/4884',
    kinds: ['event', 'waiting', 'pod'],
    patterns: [
      /RuntimeClass "([^"]+)" not found/i,
      /runtimeclass(?:es)?(?:\.node\.k8s\.io)? "([^"]+)" not found/i,
      /RuntimeHandler "([^"]+)" not supported/i,
      /no runtime for "([^"]+)" is configured/i,
    ],
    examples: [
      'Error creating: pods "iis-5d8f7c9b4-" is forbidden: pod rejected: RuntimeClass "windows-2019" not found',
      'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "runhcs-wcow" is configured',
    ],
  },
  {
    id: 'WINF007',
    severity: 'error',
    title:
      'HostProcess pod refused: Pod Security, cluster policy or a pod that mixes HostProcess and ordinary containers',
    cause:
      'HostProcess pods need the privileged Pod Security level in their namespace, an API server that allows privileged pods, hostNetwork: true, and every container HostProcess.',
    fix: 'Label the namespace pod-security.kubernetes.io/enforce=privileged (on OpenShift also grant a privileged SCC), set hostNetwork: true, and make every container HostProcess.',
    source: 'https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/',
    kinds: ['event', 'pod'],
    patterns: [
      /violates PodSecurity "[a-z]+:[^"]*":[^]*hostProcess/i,
      /hostProcess containers are disallowed by cluster policy/i,
      /If pod contains any hostProcess containers then all containers must be HostProcess containers/i,
      /hostNetwork must be true if pod contains any hostProcess containers/i,
      /unable to validate against any security context constraint:[^]*hostProcess/i,
    ],
    examples: [
      'Error creating: pods "csi-proxy-7xk2p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)',
      'Error creating: Pod "logger-abcde" is invalid: spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers',
    ],
  },
  {
    id: 'WINF008',
    severity: 'error',
    title: 'HostProcess container cannot start: its user account or its command path is wrong',
    cause:
      'A HostProcess container runs as a host account (NT AUTHORITY\\SYSTEM, LOCAL SERVICE, NETWORK SERVICE or a local group) and its command runs from the host, with the image under %CONTAINER_SANDBOX_MOUNT_POINT%.',
    fix: 'Set windowsOptions.runAsUserName to a valid host account, and start binaries from the image as $env:CONTAINER_SANDBOX_MOUNT_POINT\\path\\app.exe (or put them on PATH).',
    source: 'https://github.com/kubernetes/website/issues/29924',
    kinds: ['waiting', 'terminated', 'event'],
    patterns: [
      /failed to create user process token/i,
      /failed to get application name from commandline/i,
      /failed to find executable "[^"]*"/i,
    ],
    examples: [
      'Error: failed to start containerd task "win-container": failed to get application name from commandline "/usr/local/bin/azure-cns.exe": failed to find executable "\\\\usr\\\\local\\\\bin\\\\azure-cns.exe": unknown',
      'Error: failed to create containerd task: failed to create shim task: failed to create user process token: failed to logon user: The user name or password is incorrect.: unknown',
    ],
  },
  {
    id: 'WINF009',
    severity: 'error',
    title: 'gMSA: the credential spec is refused, missing or cannot reach the domain',
    cause:
      "gMSA pods need a GMSACredentialSpec resource the pod's service account may `use` (the windows-gmsa webhook checks it), nodes joined to (or able to reach) the domain, and a spec whose contents match the resource.",
    fix: "Create the GMSACredentialSpec, bind a ClusterRole with verb use on it to the pod's service account, set gmsaCredentialSpecName (lowercase), and check the node can reach a domain controller.",
    source: 'https://kubernetes.io/docs/tasks/configure-pod-container/configure-gmsa/',
    kinds: ['event', 'waiting', 'terminated'],
    patterns: [
      /is not authorized to `?use`? GMSA cred spec "([^"]+)"/i,
      /GMSA cred spec contents? for .* does not match the contents of GMSA resource/i,
      /has a GMSA cred spec set, but does not define the name of the corresponding resource/i,
      /cannot find GMSA cred spec|GMSA cred spec "([^"]+)" not found|gmsacredentialspecs?(?:\.windows\.k8s\.io)? "([^"]+)" not found/i,
      /credential ?spec[^]*(?:could not be read|invalid|failed)/i,
      /The specified domain either does not exist or could not be contacted/i,
    ],
    examples: [
      'Error creating: admission webhook "admission.gmsa.windows.k8s.io" denied the request: service account "default" is not authorized to `use` GMSA cred spec "webapp1", reason: ""',
      'Error: failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem web: The specified domain either does not exist or could not be contacted.: unknown',
    ],
  },
  {
    id: 'WINF010',
    severity: 'error',
    title: 'Pod sandbox network failed on the Windows node (HNS or the CNI plugin)',
    cause:
      "The CNI plugin could not create the pod's HNS endpoint: stale HNS state after a restart or upgrade, an HNS network that is missing (the overlay was not set up), or IP exhaustion.",
    fix: "Read the node's CNI and HNS state (Get-HnsNetwork, Get-HnsEndpoint); on OpenShift check the hybrid overlay and WMCO's node services; a node reboot clears stale HNS endpoints.",
    source: 'https://github.com/kubernetes/kubernetes/issues/74766',
    kinds: ['event', 'waiting'],
    reasons: ['FailedCreatePodSandBox', 'FailedKillPod', 'ContainerCreating'],
    patterns: [
      /\bhns\b|\bhcn\w*|HNSEndpoint|hnsCall|HNS failed|NetworkPlugin cni failed|failed to setup network for sandbox|failed to set up sandbox container .* network|plugin type="(?:win-overlay|win-bridge|sdnbridge|sdnoverlay|azure-vnet|calico|flannel|antrea|ovn-k8s-cni-overlay)"/i,
    ],
    examples: [
      'Failed create pod sandbox: rpc error: code = Unknown desc = [failed to set up sandbox container "5a4a06b6" network for pod "shetland": NetworkPlugin cni failed to set up pod "shetland_default" network: error while ProvisionEndpoint(5a4a06b6_l2bridge): failed to create the new HNSEndpoint: hnsCall failed in Win32: The object already exists. (0x1392)',
      'Failed to create pod sandbox: rpc error: code = Unknown desc = NetworkPlugin cni failed to set up pod "dev-api-777f779f74-fhx88_default" network: Failed to create endpoint: HNS failed with error : Element not found.',
    ],
  },
  {
    id: 'WINF011',
    severity: 'error',
    title: "The Windows node's network is not ready (no CNI configuration): no pod can start there",
    cause:
      'The container runtime reports NetworkReady=false: the CNI configuration was not written (on OpenShift WMCO writes it once the hybrid overlay is configured), or the CNI service stopped.',
    fix: 'On OpenShift make sure the Network operator has a hybridOverlayConfig and WMCO finished configuring the node; elsewhere install the CNI plugin for Windows (flannel, Calico, Antrea) and its kube-proxy.',
    source: 'https://github.com/kubernetes-sigs/sig-windows-tools/issues/72',
    kinds: ['node', 'event'],
    patterns: [
      /NetworkPluginNotReady|cni (?:plugin not initialized|config uninitialized)|network is not ready: container runtime network not ready/i,
    ],
    examples: [
      'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
      'network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:docker: network plugin is not ready: cni config uninitialized',
    ],
  },
  {
    id: 'WINF012',
    severity: 'error',
    title: 'CSI on Windows without csi-proxy (or the node plugin): volumes cannot mount',
    cause:
      'CSI node plugins on Windows reach the host through csi-proxy named pipes (\\\\.\\pipe\\csi-proxy-*), or run as HostProcess; without it (or with the wrong API version) every mount fails.',
    fix: "Run csi-proxy on the Windows nodes (a service or the HostProcess DaemonSet) with the API version the driver wants, and the driver's Windows node DaemonSet.",
    source: 'https://github.com/kubernetes-csi/csi-driver-smb/issues/233',
    kinds: ['event', 'waiting', 'terminated'],
    patterns: [
      /\\?\\\.\\+pipe\\+csi-proxy|csi-proxy-(?:filesystem|disk|volume|smb|iscsi|system)-v\w+/i,
      /driver name \S+ not found in the list of registered CSI drivers/i,
    ],
    examples: [
      'MountVolume.MountDevice failed for volume "my-config": rpc error: code = Internal desc = Could not mount target: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing open \\\\.\\pipe\\csi-proxy-filesystem-v1beta1: The system cannot find the file specified."',
      'MountVolume.MountDevice failed for volume "pvc-4069" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name smb.csi.k8s.io not found in the list of registered CSI drivers',
    ],
  },
  {
    id: 'WINF013',
    severity: 'error',
    title: 'A volume or mount path Windows cannot use (drive-letter syntax, an image VOLUME on a drive root)',
    cause:
      "containerd on Windows mounts into a path inside the container's volume; a bare drive (D:), a path with the wrong syntax, or a VOLUME instruction in the image naming a drive root fails.",
    fix: 'Use a mountPath like C:\\data (or /data); mount a directory, not a whole drive letter; remove VOLUME ["D:"] from the Dockerfile.',
    source: 'https://github.com/containerd/containerd/issues/6589',
    kinds: ['waiting', 'terminated', 'event'],
    patterns: [/rootpath on mountPath/i, /The filename, directory name, or volume label syntax is incorrect/i],
    examples: [
      'Error: failed to create containerd container: rootpath on mountPath C:\\Windows\\TEMP\\ctd-volume1950337969\\139, volume D:: CreateFile C:\\Windows\\TEMP\\ctd-volume1950337969\\139\\D:: The filename, directory name, or volume label syntax is incorrect.',
      'Error: failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem test-container-2: The filename, directory name, or volume label syntax is incorrect.: unknown',
    ],
  },
  {
    id: 'WINF014',
    severity: 'error',
    title: 'Image pull went to the source registry although a mirror set covers it (and the source is unreachable)',
    cause:
      "The cluster mirrors this registry (ImageDigestMirrorSet/ImageTagMirrorSet), but the pull went to the source: the reference is a tag and only an ImageDigestMirrorSet covers it, or the node's containerd mirror configuration (hosts.toml) was not pushed.",
    fix: 'Reference the image by digest (IDMS) or add an ImageTagMirrorSet for tags; on Windows nodes make sure WMCO (or kube-windows mirrors apply) wrote hosts.toml for the registry.',
    source:
      'https://docs.openshift.com/container-platform/latest/windows_containers/enabling-windows-container-workloads.html',
    kinds: ['waiting', 'event'],
    reasons: ['ErrImagePull', 'ImagePullBackOff', 'Failed'],
    patterns: [
      /dial tcp|i\/o timeout|no such host|connection refused|TLS handshake timeout|context deadline exceeded|network is unreachable|403 Forbidden|connectex/i,
    ],
    examples: [
      'Failed to pull image "mcr.microsoft.com/windows/servercore:ltsc2022": rpc error: code = Unknown desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:ltsc2022": failed to resolve reference "mcr.microsoft.com/windows/servercore:ltsc2022": failed to do request: Head "https://mcr.microsoft.com/v2/windows/servercore/manifests/ltsc2022": dial tcp 204.79.197.219:443: i/o timeout',
    ],
  },
  {
    id: 'WINF015',
    severity: 'error',
    title: "Kubelet refused the pod: its spec.os or kubernetes.io/os doesn't match the node's OS",
    cause:
      'The pod was bound to a node of another OS (nodeName set by hand, or a scheduler that ignored the OS label); the kubelet checks spec.os.name and the kubernetes.io/os selector against its own OS.',
    fix: 'Do not set nodeName by hand; select the OS with nodeSelector kubernetes.io/os and keep spec.os.name consistent with it.',
    source:
      'https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host',
    kinds: ['pod', 'event'],
    patterns: [
      /PodOSNotSupported|PodOSSelectorNodeLabelDoesNotMatch|Failed to admit pod as the OS field doesn't match node OS|Failed to admit pod as the `kubernetes\.io\/os` label doesn't match node label/i,
    ],
    examples: ["Pod was rejected: Failed to admit pod as the OS field doesn't match node OS"],
  },
  {
    id: 'WINF016',
    severity: 'error',
    title: 'The container command does not exist in the Windows image (a Linux shell or path)',
    cause:
      'Windows images have cmd.exe (and PowerShell in Server Core), no sh or bash; a command copied from a Linux manifest, or a path with forward slashes to a binary that is not there, cannot start.',
    fix: 'Use cmd /c or powershell -Command (pwsh where the image has PowerShell 7) and Windows paths.',
    source: 'https://github.com/Azure/aks-engine/issues/5086',
    kinds: ['waiting', 'terminated', 'event'],
    patterns: [
      /hcs::System::CreateProcess[^]*(?:The system cannot find the file specified|The directory name is invalid)/i,
      /executable file not found in %PATH%|"?(?:\/bin\/)?(?:ba)?sh"?: executable file not found/i,
    ],
    examples: [
      'Error: failed to start containerd task "web": hcs::System::CreateProcess web: The system cannot find the file specified.: unknown',
      'Error: failed to start containerd task "datacacheapi": hcs::System::CreateProcess datacacheapi: The directory name is invalid.: unknown',
    ],
  },
  {
    id: 'WINF017',
    severity: 'warning',
    title: 'The process exited with a Windows NTSTATUS code (a DLL missing from Nano Server, an init failure)',
    cause:
      'Exit codes such as -1073741515 (0xC0000135, a DLL was not found) or -1073741502 (0xC0000142, DLL initialisation failed) come from Windows itself: usually a binary built for Server Core run on Nano Server, which lacks most DLLs.',
    fix: 'Use a Server Core based image (or add the missing runtime), and read the container log for the module name.',
    source: 'https://github.com/microsoft/SDN/issues/298',
    kinds: ['terminated'],
    patterns: [/^exit code (-1073741515|3221225781|-1073741502|3221225794|-1073741819|3221225477)$/],
    examples: ['exit code -1073741515'],
  },
  {
    id: 'WINF018',
    severity: 'warning',
    title:
      'HCS timed out creating or starting the container (0xc0370109): the node is overloaded or the image is too large',
    cause:
      'The host compute service did not answer in time: too many containers starting at once, a slow disk, or (with gMSA) a domain controller that does not answer.',
    fix: "Spread the rollout (maxSurge), give the node more resources, check the node's disk and its domain connectivity.",
    source: 'https://github.com/MicrosoftDocs/Virtualization-Documentation/issues/587',
    kinds: ['waiting', 'terminated', 'event'],
    patterns: [
      /0xc0370109|The operation timed out because a response was not received from the (?:virtual machine|Virtual Machine) hosting the Container/i,
    ],
    examples: [
      'failure in a Windows system call: The operation timed out because a response was not received from the Virtual Machine hosting the Container. (0xc0370109)',
    ],
  },
];

export const SIGNATURES_BY_ID = new Map(SIGNATURES.map((s) => [s.id, s]));
