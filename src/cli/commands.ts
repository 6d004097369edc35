// Every kube-windows command, declared once: usage lines, options (type, value name, help, which actions
// take them) and actions. The parser, the per-action checks, each `--help`, the top-level help and the
// README's usage block are made from these (./declare); test/unit/cli-commands.test.ts keeps the README
// equal to them. Defaults owned by the engine's modules appear as `{fact}` and are filled by the
// command's module, so that this file loads nothing heavy (main.ts reads it for the top-level help).

import { POD_LIST_OPTIONS, WATCH_OPTIONS } from './list-options';
import { LANGUAGE_SERVER_OPTIONS } from '../shared/language-server-command';
import { POLICY_COMMAND } from './policy-command';
import { command, forActions, usageLines } from './declare';
import {
  CLUSTER_OPTIONS,
  DRY_RUN_OPTION,
  HELP_OPTION,
  PLAN_COMMAND_OPTIONS,
  POLL_OPTION,
  SSH_OPTIONS,
  WMCO_OPTIONS,
  YES_OPTION,
} from './kit';

/** The options of the live check, listed under one heading. */
const LIVE =
  'What is deployed (no paths): the live objects of a cluster, located by object and field path, and\nthe failing Windows pods explained (failure signatures WINF001 ...):';

export const CHECK_COMMAND = command({
  name: 'check',
  usage: [
    'check [options] [paths | globs | -]...',
    'check --context C [--kubeconfig F] [-n NS | -A] [--format text|json|sarif]',
    'check --context C [-n NS | -A] --write-reports [--report-api wgpolicyk8s|openreports]',
    'check --context C [-n NS | -A] --format policyreport [--report-api wgpolicyk8s|openreports]',
    'check --snapshot facts.json [options] [paths | globs | -]...',
  ],
  options: {
    ...HELP_OPTION,
    format: {
      type: 'string',
      value: 'text|json|sarif',
      help: 'output format (default text); with --context also policyreport: the\nreports --write-reports would write, as YAML',
    },
    'min-severity': {
      type: 'string',
      value: 'LEVEL',
      help: 'report only findings at or above info|warning|error (default info)',
    },
    'fail-on': {
      type: 'string',
      value: 'LEVEL',
      help: 'exit code 1 when a reported finding is at or above error|warning|info;\nnever: exit code 0 whatever is found (default warning: info findings\nnever fail a build)',
    },
    enable: { type: 'string', multiple: true, value: 'RULE[,RULE]', help: 'run only these rules (repeatable)' },
    disable: { type: 'string', multiple: true, value: 'RULE[,RULE]', help: 'do not run these rules (repeatable)' },
    flavour: {
      type: 'string',
      value: 'auto|openshift|kubernetes',
      help: 'cluster flavour for OpenShift-only rules (default auto)',
    },
    'openshift-version': {
      type: 'string',
      value: '4.N',
      help: "check against this OpenShift release's Windows support (platforms,\nWindows Server versions); implies --flavour openshift",
    },
    'kubernetes-version': {
      type: 'string',
      value: '1.N',
      help: "decide by this Kubernetes release's rules (what its API server rejects\nor drops); default: the cluster's (--context, --snapshot), else\n{kubernetesRelease}, the newest release kube-windows is tested against",
    },
    fix: {
      type: 'boolean',
      default: false,
      value: '[=all]',
      help: "apply in place (atomically) the fixes that keep the object's meaning\n(a field removed that the API server or the kubelet ignores or rejects, a\nwrongly cased value or key corrected), then report what is left; --fix=all\nalso applies those that change the object (another image tag, a field\nadded, DeploymentConfig converted to a Deployment)",
    },
    'dry-run': {
      type: 'boolean',
      help: 'with --fix: print the changes as a unified diff and write nothing',
    },
    // `--fix=all` arrives here (see check.ts): parseArgs gives a boolean option no value.
    'fix-scope': { type: 'string' },
    'exact-api': {
      type: 'boolean',
      value: '[=1.N]',
      help: "also ask the API server's own validation (compiled to WebAssembly, offline)\nfor every workload: each refusal in its exact words (API001-API003, or\nmerged into the rule of ours that says it); default release: the one the\nrules decide by. Needs the validator module (docs/exact-api.md)",
    },
    // `--exact-api=1.N` arrives here, as --fix=all does.
    'exact-api-release': { type: 'string' },
    validator: {
      type: 'string',
      value: 'PATH',
      help: 'with --exact-api: a validator module file, or a folder of them (default:\nKUBE_WINDOWS_VALIDATOR, then ~/.local/share/kube-windows/validator)',
    },
    'max-file-size': { type: 'string', value: 'MIB', help: 'skip files larger than this (default {maxFileSize})' },
    jobs: {
      type: 'string',
      short: 'j',
      value: 'N',
      help: 'threads to check files on (default one per 1.5 CPU cores: one on 2 cores; 1 checks on one thread);\nthe output is the same whatever the number',
    },
    color: { type: 'boolean' },
    'no-color': { type: 'boolean', help: 'plain text output' },
    'helm-values': {
      type: 'string',
      multiple: true,
      value: 'FILE',
      help: "values for Helm chart templates, over the chart's values.yaml\n(repeatable; later files win, as with helm -f)",
    },
    snapshot: {
      type: 'string',
      value: 'FILE',
      help: 'check the files against a cluster\'s facts saved by "kube-windows snapshot"\n(node builds, taints, RuntimeClasses, OpenShift or not), offline',
    },
    context: {
      type: 'string',
      value: 'C',
      section: LIVE,
      help: "the kubeconfig context of the cluster (with paths: check the files\nagainst that cluster's facts instead)",
    },
    kubeconfig: { type: 'string', value: 'FILE', section: LIVE, help: 'default: KUBECONFIG, then ~/.kube/config' },
    namespace: {
      type: 'string',
      short: 'n',
      value: 'NS',
      section: LIVE,
      help: "one namespace (default: the context's namespace, else default)",
    },
    'all-namespaces': { type: 'boolean', short: 'A', section: LIVE, help: 'every namespace' },
    'chunk-size': {
      type: 'string',
      value: 'N',
      section: LIVE,
      help: 'objects per list page (default 500, as kubectl)',
    },
    'write-reports': {
      type: 'boolean',
      section: LIVE,
      help: 'write the findings to the cluster as policy reports, one per namespace\n(a re-run replaces them; see docs/policy-reports.md)',
    },
    'report-api': {
      type: 'string',
      value: 'wgpolicyk8s|openreports',
      section: LIVE,
      help: 'the report API: PolicyReport (wgpolicyk8s.io/v1alpha2, the default) or\nReport (openreports.io/v1alpha1)',
    },
  },
  notes: `Directories are walked for *.yaml and *.yml, and *.tpl under a chart's templates/ (node_modules and
.git skipped); "-" reads standard input. YAML that is not Kubernetes (GitHub workflows, docker-compose,
Ansible, OpenAPI, pre-commit, mkdocs ...) is skipped and counted as "not Kubernetes"; a named file that is
not YAML (README.md) is refused. A path that does not exist, a glob that matches no YAML file or a file
that cannot be read is named in the summary and makes the exit code 2.
A file under a chart's templates/ folder (beside Chart.yaml) is checked with its template actions set
aside; values a template action computes are not checked.`,
});

export const SNAPSHOT_COMMAND = command({
  name: 'snapshot',
  usage: ['snapshot --context C [--kubeconfig F] > facts.json'],
  intro: `Writes the cluster's facts as JSON: Windows nodes (build, taints), the RuntimeClasses that schedule
onto Windows, OpenShift or not (and on OpenShift its version, platform, network and WMCO facts),
the StorageClasses and the CSI drivers registered on each Windows node (CSINode).
"kube-windows check --snapshot facts.json FILES" then checks manifests against them without cluster
access.`,
  options: { ...HELP_OPTION, ...CLUSTER_OPTIONS },
});

export const RULES_COMMAND = command({
  name: 'rules',
  usage: ['rules [--format text|json] [--failures]'],
  intro:
    'Lists every rule: id, default severity, whether "kube-windows policy" enforces it at admission (yes,\nor why not), title (json adds the family and the reason in words). With --failures, the failure\nsignatures the live check explains pods with (json adds cause, fix, source and recorded texts).',
  options: {
    ...HELP_OPTION,
    format: { type: 'string', value: 'text|json', help: 'output format (default text)' },
    failures: { type: 'boolean', help: 'the failure signatures (WINF...) instead of the rules' },
  },
});

const BYOH = 'BYOH options:';
const KUBEADM = 'kubeadm options:';

export const JOIN_COMMAND = command({
  name: 'join',
  usage: [
    'join --context C --address A [--address B ...] [--user U] [--key FILE] [--via byoh|kubeadm] [options] [--dry-run]',
  ],
  options: {
    address: { type: 'string', multiple: true, value: 'A', help: 'the host to join (repeat it to join several)' },
    via: {
      type: 'string',
      value: 'byoh|kubeadm',
      help: 'how to join (default: byoh on OpenShift/OKD, kubeadm elsewhere)',
    },
    concurrency: { type: 'string', value: 'N', help: 'hosts joined at once (default {concurrency})' },
    ...PLAN_COMMAND_OPTIONS,
    'install-wmco': {
      type: 'string',
      value: 'Automatic|Manual',
      section: BYOH,
      help: 'install WMCO first when it is missing',
    },
    'create-key-secret': {
      type: 'string',
      value: 'FILE',
      section: BYOH,
      help: 'create cloud-private-key from FILE when it is missing',
    },
    ...WMCO_OPTIONS,
    payload: {
      type: 'string',
      value: 'DIR',
      section: KUBEADM,
      help: 'folder with containerd-<v>-windows-amd64.tar.gz, kubelet.exe, kubeadm.exe',
    },
    'payload-url': {
      type: 'string',
      multiple: true,
      value: 'NAME=URL#sha256=HEX',
      section: KUBEADM,
      help: 'the host downloads NAME (containerd, kubelet, kubeadm) from URL and checks it',
    },
    taint: {
      type: 'boolean',
      default: false,
      section: KUBEADM,
      help: 'taint the node os=windows:NoSchedule (the kubelet registers with it)',
    },
    'runtime-class': {
      type: 'boolean',
      default: false,
      section: KUBEADM,
      help: "create the RuntimeClass of the node's build (windows-2019,\nwindows-2022 or windows-2025) when it is missing",
    },
    cni: {
      type: 'string',
      value: 'calico|flannel|auto',
      section: KUBEADM,
      help: 'the CNI Windows nodes use (default auto: the one the cluster runs)',
    },
    'kube-reserved': {
      type: 'string',
      value: 'R',
      section: KUBEADM,
      help: "the kubelet's --kube-reserved, such as cpu=500m,memory=1Gi",
    },
    'system-reserved': {
      type: 'string',
      value: 'R',
      section: KUBEADM,
      help: "the kubelet's --system-reserved, such as cpu=500m,memory=1Gi\n(default: memory=2Gi; eviction at memory.available<500Mi)",
    },
    proxy: {
      type: 'string',
      value: 'URL',
      section: KUBEADM,
      help: "an HTTP proxy for containerd and the kubelet (their service environment), such as\nhttp://proxy.corp:3128; checked by reaching the probe image's registry through it",
    },
    'no-proxy': {
      type: 'string',
      value: 'LIST',
      section: KUBEADM,
      help: "more NO_PROXY entries (comma separated); the cluster's Service and Pod networks, its\ndomains, the API endpoint and the node are always in it",
    },
    'kubernetes-version': {
      type: 'string',
      value: 'vX.Y.Z',
      section: KUBEADM,
      help: "the kubelet/kubeadm version to install (default: the API server's);\nthe version skew policy applies, and binaries that report\nanother version are refused",
    },
  },
  notes:
    'With --dry-run, a kubeadm join first runs its cluster preflight (it only reads) and prints the\nfindings above the plan; exit code 1 when one of them blocks.',
});

export const REMOVE_COMMAND = command({
  name: 'remove',
  usage: ['remove --context C --address A [--node NAME] [--via byoh|kubeadm] [--key FILE] [--user U] [--dry-run]'],
  options: {
    address: { type: 'string', value: 'A', help: "the host's address (its windows-instances entry for BYOH)" },
    node: { type: 'string', value: 'NAME', help: "the node's name, when it cannot be found by its address" },
    via: {
      type: 'string',
      value: 'byoh|kubeadm',
      help: 'as for join; with kubeadm, --key or --user first runs kubeadm reset on the host',
    },
    ...PLAN_COMMAND_OPTIONS,
    ...WMCO_OPTIONS,
  },
});

const NODE_SSH = ['reboot', 'logs', 'services', 'proxy'] as const;
const SCHEDULING = ['cordon', 'uncordon', 'drain'] as const;

export const NODES_COMMAND = command({
  name: 'nodes',
  usage: [
    'nodes [list] --context C [--kubeconfig F] [-o wide|json|yaml|name] [-w [--output-watch-events]]',
    'nodes reboot NODE --context C [ssh options] [--delete-emptydir-data] [--disable-eviction] [--timeout MIN] [--dry-run]',
    'nodes logs NODE --context C --path kubelet/kubelet.log',
    'nodes logs NODE --context C --query kubelet [--tail N] [--since 1h] [--pattern RE]',
    'nodes logs NODE --context C [ssh options] [--out DIR] [--max-size MB]',
    'nodes services NODE --context C [ssh options] [--restart NAME] [--yes]',
    'nodes proxy NODE --context C [ssh options]',
    'nodes cordon|uncordon NODE --context C',
    'nodes drain NODE --context C [--delete-emptydir-data] [--timeout MIN] [--yes]',
    'nodes events NODE --context C',
    'nodes taints NODE --context C [--set "key=value:Effect,..." [--yes]]',
  ],
  operand: 'node name',
  noOperand: ['list'],
  actions: {
    list: "the Windows nodes (kubernetes.io/os=windows): kubectl's columns with the Windows release;\n-o json|yaml prints them as a v1 List, as kubectl does (the default action)",
    reboot:
      'cordon, drain (Eviction API, PodDisruptionBudgets honoured, DaemonSet pods left), Restart-Computer,\nwait for NotReady, on AWS re-add the 169.254.169.254 route, wait for Ready, uncordon, verify.\nRun it again to resume after a failure or Ctrl-C.',
    logs: "without SSH, through the API server's node proxy to the kubelet (GET /api/v1/nodes/NODE/proxy/logs/...)\nwith --path or --query; the whole log folder with --out",
    services: 'the state of {services}',
    proxy:
      "the node's effective HTTP_PROXY, HTTPS_PROXY and NO_PROXY (machine and per service), its trusted CA\nbundle, and what the cluster expects; drift is named, with when it was last seen equal;\nwithout an SSH key or agent, read through a HostProcess pod pinned to the node",
    cordon: 'mark the node unschedulable (spec.unschedulable)',
    uncordon: 'schedulable again',
    drain:
      'cordon, then evict its pods as reboot does (Eviction API, PodDisruptionBudgets honoured, DaemonSet and\nmirror pods left); asks first, naming the pods whose emptyDir data is lost; the node stays cordoned',
    events: "the node's events, oldest first",
    taints:
      'the node\'s taints; --set replaces them (validated as the API server validates taints;\nwritten with the resourceVersion read, so a crossing change is refused); --set "" removes all',
  },
  options: {
    ...HELP_OPTION,
    ...CLUSTER_OPTIONS,
    ...forActions(SSH_OPTIONS, NODE_SSH, SCHEDULING),
    address: {
      type: 'string',
      value: 'A',
      section: 'SSH options:',
      help: "SSH to A instead of the node's InternalIP, else its ExternalIP",
      actions: NODE_SSH,
      ignoredBy: SCHEDULING,
    },
    'delete-emptydir-data': {
      type: 'boolean',
      default: false,
      help: 'evict pods with emptyDir volumes too (their emptyDir data is lost)',
      actions: ['reboot', 'drain'],
    },
    'disable-eviction': {
      type: 'boolean',
      default: false,
      help: 'delete pods directly, bypassing PodDisruptionBudgets (asks for confirmation)',
      actions: ['reboot'],
      ignoredBy: ['logs', 'services'],
    },
    timeout: {
      type: 'string',
      value: 'MIN',
      help: 'reboot: wait for the host and for NotReady/Ready at most MIN minutes each (default {rebootTimeout});\ndrain: wait at most MIN minutes for the evicted pods to go (default 10)',
      actions: ['reboot', 'drain'],
      ignoredBy: ['logs', 'services'],
    },
    'eviction-retry': {
      type: 'string',
      value: 'SEC',
      help: 'retry evictions refused by a PodDisruptionBudget for SEC seconds (default 60)',
      actions: ['reboot', 'drain'],
      ignoredBy: ['logs', 'services'],
    },
    'dry-run': {
      ...DRY_RUN_OPTION['dry-run'],
      actions: ['reboot'],
      refusal: '--dry-run goes with nodes reboot; nodes {action} has no plan to show',
    },
    path: {
      type: 'string',
      value: 'P',
      help: "a file of the node's log folder (C:\\var\\log on Windows) to standard output; P/ lists a folder",
      actions: ['logs'],
    },
    query: {
      type: 'string',
      value: 'SERVICE',
      help: "the kubelet's log query (enableSystemLogQuery; kubelets before 1.36 also\nneed the feature gate NodeLogQuery) for a service: kubelet, containerd,\nkube-proxy ...",
      actions: ['logs'],
    },
    tail: {
      type: 'string',
      value: 'N',
      help: 'with --query: its last N lines (tailLines, at most 100000)',
      actions: ['logs'],
    },
    since: {
      type: 'string',
      value: 'D',
      help: 'with --query: since a duration ago (30s, 15m, 1h, 2h30m, 1d) or an RFC 3339 time (sinceTime)',
      actions: ['logs'],
    },
    pattern: {
      type: 'string',
      value: 'RE',
      help: 'with --query: only the lines that match RE (pattern)',
      actions: ['logs'],
    },
    out: {
      type: 'string',
      value: 'DIR',
      help: 'the whole log folder into DIR/<node>-<time>/ (default: the current folder): through the API\nwhen the kubelet serves it, else over SSH (C:\\var\\log and C:\\k\\log over SFTP, service states\nand System event log errors)',
      actions: ['logs'],
    },
    'max-size': {
      type: 'string',
      value: 'MB',
      help: 'download at most MB megabytes of log files (default {maxSize})',
      actions: ['logs'],
    },
    output: {
      type: 'string',
      short: 'o',
      value: 'wide|json|yaml|name',
      help: 'wide: more columns; name: node/NAME lines; json, yaml: a v1 List',
      actions: ['list'],
    },
    ...WATCH_OPTIONS,
    restart: { type: 'string', value: 'NAME', help: 'restart one of them (asks first)', actions: ['services'] },
    set: {
      type: 'string',
      value: '"key=value:Effect,..."',
      help: 'replace the taints (asks first)',
      actions: ['taints'],
    },
    ...YES_OPTION,
    ...forActions(POLL_OPTION, [...NODE_SSH, ...SCHEDULING]),
  },
});

const POD_LOGS = ['logs'] as const;

export const PODS_COMMAND = command({
  name: 'pods',
  usage: [
    'pods [list] [-n NS | -A] [--node NODE] --context C [-o wide|json|yaml|name] [-w [--output-watch-events]]',
    'pods logs POD [-n NS] [-c CONTAINER] --context C [--follow] [--previous] [--tail N]',
    'pods describe POD [-n NS] --context C',
    'pods restart POD [-n NS] --context C [--yes]',
    'pods delete POD [-n NS] --context C [--yes]',
  ],
  operand: 'pod name',
  noOperand: ['list'],
  actions: {
    list: "the Windows pods (on Windows nodes, or unscheduled and asking for Windows; with --node, every pod\nof that node): kubectl's columns; -o json|yaml prints them as a v1 List (the default action)",
    logs: "a container's log (pods/log): the only container, else -c (the pod's containers are listed)",
    describe: "the pod's failure explanation (WINF signatures), status, conditions, containers and events",
    restart:
      'rollout restart of the workload that owns the pod (Deployment through its ReplicaSet,\nDaemonSet, StatefulSet): a new kubectl.kubernetes.io/restartedAt on its pod template;\nbare pods and Jobs are refused',
    delete: 'delete the pod (its controller, if any, creates a new one)',
  },
  options: {
    ...HELP_OPTION,
    ...CLUSTER_OPTIONS,
    container: { type: 'string', short: 'c', value: 'CONTAINER', help: 'the container', actions: POD_LOGS },
    follow: {
      type: 'boolean',
      short: 'f',
      default: false,
      help: 'keep following until the container stops (Ctrl-C ends it)',
      actions: POD_LOGS,
    },
    previous: {
      type: 'boolean',
      short: 'p',
      default: false,
      help: 'the instance before the last restart',
      actions: POD_LOGS,
    },
    tail: { type: 'string', value: 'N', help: 'only the last N lines', actions: POD_LOGS },
    namespace: {
      type: 'string',
      short: 'n',
      value: 'NS',
      help: "the pod's namespace (default: the context's, else default)",
    },
    ...POD_LIST_OPTIONS,
    ...YES_OPTION,
  },
});

export const SHELL_COMMAND = command({
  name: 'shell',
  usage: ['shell POD [-n NS] [-c CONTAINER] --context C [--kubeconfig F] [--shell cmd|powershell|pwsh|sh]'],
  intro: `An interactive shell in a running container, over the API (pods/exec, WebSocket): no SSH, no kubectl.
The shell is the one the container can run: cmd.exe in Nano Server images (they have no PowerShell),
powershell.exe in Server Core, Server and Windows images, pwsh where the image has PowerShell 7
(mcr.microsoft.com/powershell, the .NET SDK images), sh on Linux. The container's OS is the pod's
spec.os, else its node's kubernetes.io/os label, else what the image says.
Without a terminal (stdin a pipe or a file) the shell reads its commands from stdin and ends with it.`,
  options: {
    ...HELP_OPTION,
    ...CLUSTER_OPTIONS,
    namespace: {
      type: 'string',
      short: 'n',
      value: 'NS',
      help: "the pod's namespace (default: the context's, else default)",
    },
    container: {
      type: 'string',
      short: 'c',
      value: 'NAME',
      help: 'the container (default: the kubectl.kubernetes.io/default-container annotation, else the first)',
    },
    shell: { type: 'string', value: 'SHELL', help: 'cmd, powershell, pwsh or sh, whatever the image' },
  },
  notes: "The exit code is the shell's when it exits; otherwise the codes below.",
});

export const MIRRORS_RENDER_COMMAND = command({
  name: 'mirrors render',
  usage: ['mirrors render [--mode ordered|wmco] [--pull-secret FILE] --out DIR FILES...'],
  intro: `render turns the ImageDigestMirrorSet / ImageTagMirrorSet objects in FILES (YAML, several
documents per file; directories are walked, "-" reads standard input) into one
DIR/<registry>/hosts.toml per source registry, as containerd on Windows reads them.
"kube-windows mirrors diff --help" and "mirrors apply --help" list the options of diff and apply.`,
  options: {
    ...HELP_OPTION,
    mode: {
      type: 'string',
      value: 'ordered|wmco',
      help: 'ordered (default): mirror priority as written, host:port written as host_port_, wildcard\nsources refused; for nodes kube-windows manages. wmco: exactly what the Windows Machine Config\nOperator writes (sorted mirrors, host:port and wildcard directory names as is); to preview WMCO nodes',
    },
    out: { type: 'string', value: 'DIR', help: 'where the <registry>/hosts.toml files go (required)' },
    'pull-secret': {
      type: 'string',
      value: 'FILE',
      help: 'docker config.json (or a kubernetes.io/dockerconfigjson Secret) whose\ncredentials become authorization headers for matching mirrors',
    },
  },
});

const MIRRORS_APPLY_OPTIONS = {
  ...HELP_OPTION,
  mode: {
    type: 'string',
    value: 'wmco|ordered',
    help: 'rendering (default: wmco on WMCO clusters, ordered elsewhere)',
  },
  concurrency: { type: 'string', value: 'N', help: 'nodes at once (default {concurrency})' },
  node: { type: 'string', multiple: true, value: 'NAME', help: 'only this node (repeatable; a name or an address)' },
  wait: {
    type: 'string',
    value: 'SECONDS',
    help: 'WMCO clusters: wait this long for the nodes to converge (default 0)',
  },
  'dry-run': { type: 'boolean' },
  ...CLUSTER_OPTIONS,
  ...SSH_OPTIONS,
  ...YES_OPTION,
} as const;

const MIRRORS_APPLY_INTRO = `FILES hold ImageDigestMirrorSet / ImageTagMirrorSet objects (YAML); without them the cluster's own
IDMS/ITMS are used. On OpenShift with WMCO, apply creates or updates those objects through the API
(WMCO writes the nodes' files) and then compares each node's C:\\k\\containerd\\registries with what
WMCO should have written (when a key is given); elsewhere it pushes the hosts.toml tree to every
Windows node over SSH (staged, hash-checked, swapped atomically, previous tree kept as a backup,
rolled back on failure) and points containerd's config_path at it.`;

export const MIRRORS_DIFF_COMMAND = command({
  name: 'mirrors diff',
  usage: ['mirrors diff --context C [--mode wmco|ordered] [--key FILE] [--user U] [FILES...]'],
  intro: MIRRORS_APPLY_INTRO,
  options: MIRRORS_APPLY_OPTIONS,
  notes: 'diff exits 1 when there are changes to make (it is the dry run of apply).',
});

export const MIRRORS_APPLY_COMMAND = command({
  name: 'mirrors apply',
  usage: ['mirrors apply --context C [--concurrency N] [--key FILE] [--user U] [FILES...]'],
  intro: MIRRORS_APPLY_INTRO,
  options: MIRRORS_APPLY_OPTIONS,
  notes: 'apply has no --dry-run: diff shows what it would change. apply exits 1 when a node failed or drifted.',
});

const CREATE = ['create'] as const;

export const MACHINESET_COMMAND = command({
  name: 'machineset',
  usage: [
    'machineset create --context C [--kubeconfig F] --image IMAGE [--from LINUX_MACHINESET] [--name N] [--replicas N] [--dry-run] [--yes] [--timeout MIN]',
    'machineset follow NAME --context C [--kubeconfig F] [--timeout MIN]',
    'machineset scale NAME --replicas N --context C [--kubeconfig F] [--yes]',
    'machineset delete-machine NAME --context C [--kubeconfig F] [--yes]',
  ],
  actions: {
    create: `a Windows MachineSet (OpenShift on AWS, Azure, GCP, vSphere or Nutanix) made from the
cluster's Linux worker MachineSet: its network, credentials, zone and size, with the
Windows image, the os-id and worker labels and WMCO's windows-user-data secret. Prints
it as YAML, asks, creates it (server-side dry run first) and follows its Machines:
Provisioning, Provisioned, Running, node registered, WMCO configured, node Ready.
Refused when WMCO is not installed or secret cloud-private-key is missing.`,
    follow: 'follow the Machines of a MachineSet to Ready nodes (again, after Ctrl-C)',
    scale: "set a MachineSet's replicas through its scale subresource (asks first)",
    'delete-machine':
      'delete one Machine: the machine controller drains its node and deletes the VM, and\nthe MachineSet makes a new Machine while its replicas stay (asks first)',
  },
  options: {
    ...HELP_OPTION,
    image: {
      type: 'string',
      value: 'IMAGE',
      actions: CREATE,
      help: "the Windows Server image in the platform's own form: an AMI id (AWS), a URN\npublisher:offer:sku:version (Azure, as az vm image list writes it), an image\npath (GCP, e.g. projects/windows-cloud/global/images/family/windows-2022-core),\na VM template name (vSphere), an image name (Nutanix)",
    },
    from: {
      type: 'string',
      value: 'NAME',
      actions: CREATE,
      help: 'the Linux worker MachineSet to start from (default: the first one by name)',
    },
    name: {
      type: 'string',
      value: 'N',
      actions: CREATE,
      help: 'default <infrastructure>-windows-worker-<zone>, on Azure and vSphere\nwinworker (Windows machine names have 15 characters at most there, so\nMachineSet names 9)',
    },
    replicas: {
      type: 'string',
      value: 'N',
      actions: ['create', 'scale'],
      refusal: '--replicas goes with machineset create and scale',
      help: 'create: default 1; scale: 0 or more',
    },
    'dry-run': {
      type: 'boolean',
      default: false,
      actions: CREATE,
      help: 'print only the MachineSet YAML on standard output and change nothing\n(what would refuse the creation is said on standard error)',
    },
    timeout: {
      type: 'string',
      value: 'MIN',
      actions: ['create', 'follow'],
      ignoredBy: ['scale', 'delete-machine'],
      help: 'create, follow: how long each stage may take before saying why it stalled\n(default: 5 to 30 minutes by stage)',
    },
    'wmco-namespace': { type: 'string' },
    ...YES_OPTION,
    ...CLUSTER_OPTIONS,
    // For tests, not in the help: how often the follow polls, in milliseconds.
    ...POLL_OPTION,
  },
});

export const LSP_COMMAND = command({
  name: 'lsp',
  usage: ['lsp --stdio | --socket=PORT | --pipe=NAME'],
  intro: `Runs the language server for editors other than VS Code (Neovim, Emacs, Vim, Helix, Zed: see
docs/editors/); the same as the kube-windows-language-server command. Settings come from the editor
(the kubeWindows section, in initializationOptions or workspace/configuration); none is needed.`,
  options: { ...HELP_OPTION, ...LANGUAGE_SERVER_OPTIONS },
});

/** Every command, in the order of the top-level help and the README. */
export const COMMANDS = [
  CHECK_COMMAND,
  SNAPSHOT_COMMAND,
  RULES_COMMAND,
  JOIN_COMMAND,
  REMOVE_COMMAND,
  NODES_COMMAND,
  SHELL_COMMAND,
  PODS_COMMAND,
  MIRRORS_RENDER_COMMAND,
  MIRRORS_DIFF_COMMAND,
  MIRRORS_APPLY_COMMAND,
  LSP_COMMAND,
  MACHINESET_COMMAND,
  POLICY_COMMAND,
] as const;

/** The usage lines of every command, as the top-level help and the README show them. */
export function allUsage(): string {
  return COMMANDS.map(usageLines).join('\n');
}
