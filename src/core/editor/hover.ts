/**
 * Field hovers for Windows workloads: what a key or value under the cursor means on Windows, in a few
 * sentences and a link to the Kubernetes documentation. Findings are not described here: the server
 * merges its diagnostics' text with these.
 */
import { getAt, isObj, type Obj } from '../manifest/path';
import type { Span } from '../manifest/text';
import { CONTAINER_GROUPS, objectsOf, podSpecOf, type PodSpecView } from '../manifest/workloads';
import { hostProcessInfo } from '../rules/helpers';
import {
  WINDOWS_BUILDS,
  buildByNumber,
  imageBuild,
  isImageCompatible,
  isNanoServer,
  isServerCoreFamily,
  parseBuildLabel,
  parseImage,
  windowsImageEvidence,
  type WindowsBuild,
} from '../windows/builds';
import type { Segment } from './context';
import { DOCS } from './docs';
import { nodeAt, type NodeAt } from './node-at';
import { BETA_OS_LABEL, BUILD_LABEL, OS_LABEL } from '../well-known';

export interface FieldHover {
  markdown: string;
  /** File offsets of the key or value the hover is about. */
  range: Span;
}

const WINDOWS_OPTION_FIELDS = new Set(['hostProcess', 'runAsUserName', 'gmsaCredentialSpecName', 'gmsaCredentialSpec']);

/** What the field (key or value) at `offset` means on Windows, or undefined when it is not a Windows-relevant field. */
export function hoverAt(text: string, offset: number): FieldHover | undefined {
  try {
    const node = nodeAt(text, offset);
    if (!node) return undefined;
    const markdown = describe(node);
    return markdown ? { markdown, range: node.span } : undefined;
  } catch {
    return undefined;
  }
}

function md(title: string, sentences: string[], url: string): string {
  return `**${title}**\n\n${sentences.join(' ')}\n\n[Learn more](${url})`;
}

function code(s: string): string {
  return `\`${s.replace(/`/g, "'")}\``;
}

interface PodHit {
  /** Path relative to the pod spec. */
  rel: Segment[];
  spec: Obj;
  view: PodSpecView;
}

/** The pod spec holding the path, if any: the path relative to it, and the spec. */
function inPodSpec(node: NodeAt): PodHit | undefined {
  for (const object of objectsOf(node.document.value)) {
    const pod = podSpecOf(object);
    if (!pod) continue;
    if (pod.path.length <= node.path.length && pod.path.every((seg, i) => node.path[i] === seg)) {
      return { rel: node.path.slice(pod.path.length), spec: pod.spec, view: pod };
    }
  }
  return undefined;
}

function describe(node: NodeAt): string | undefined {
  const path = node.path;
  const last = path[path.length - 1];
  const pod = inPodSpec(node);
  const rel = pod?.rel;

  // spec.os and spec.os.name
  if (rel && rel.length === 1 && last === 'os' && node.target === 'key') return osHover();
  if (rel && rel.length === 2 && rel[0] === 'os' && last === 'name')
    return osNameHover(node.target === 'value' ? node.value : undefined);

  // securityContext.windowsOptions and its fields
  if (last === 'windowsOptions' && path[path.length - 2] === 'securityContext' && node.target === 'key') {
    return windowsOptionsHover(rel !== undefined && rel.length === 2);
  }
  if (typeof last === 'string' && WINDOWS_OPTION_FIELDS.has(last) && path[path.length - 2] === 'windowsOptions') {
    return windowsOptionFieldHover(last, node);
  }

  // Node labels: as nodeSelector (or labels) keys, and as the `key:` of a match expression.
  if (node.target === 'key' && (last === OS_LABEL || last === BETA_OS_LABEL)) return osLabelHover(last);
  if (node.target === 'key' && last === BUILD_LABEL) return buildLabelHover();
  if (node.target === 'value' && last === 'key' && typeof node.value === 'string') {
    if (node.value === OS_LABEL || node.value === BETA_OS_LABEL) return osLabelHover(node.value);
    if (node.value === BUILD_LABEL) return buildLabelHover();
  }
  if (node.target === 'value' && last === BUILD_LABEL) return buildValueHover(node.value);
  if (node.target === 'value' && typeof last === 'number' && path[path.length - 2] === 'values') {
    const expr = getAt(node.document.value, path.slice(0, -2));
    if (isObj(expr) && expr.key === BUILD_LABEL) return buildValueHover(node.value);
  }

  if (last === 'runtimeClassName') return runtimeClassHover();

  // Container images whose tag names a Windows build.
  if (node.target === 'value' && last === 'image' && typeof node.value === 'string' && isContainerPath(path))
    return imageHover(node.value);

  // hostNetwork, where the pod is a Windows pod.
  if (rel && rel.length === 1 && last === 'hostNetwork' && pod && windowsPod(pod.spec))
    return hostNetworkHover(pod.view);
  return undefined;
}

function isContainerPath(path: Segment[]): boolean {
  const group = path[path.length - 3];
  return (
    typeof path[path.length - 2] === 'number' &&
    typeof group === 'string' &&
    (CONTAINER_GROUPS as string[]).includes(group)
  );
}

// ---------------------------------------------------------------------------------------------
// Texts

function osHover(): string {
  return md(
    'spec.os: the pod operating system',
    [
      'With `os.name: windows` the API server validates the pod as a Windows pod: Linux-only fields such as `runAsUser`, `seLinuxOptions`, `seccompProfile`, `privileged` or `capabilities` are rejected.',
      'The kubelet refuses to run the pod on a node of another operating system.',
      'The scheduler does not read this field: still select Windows nodes with a `kubernetes.io/os: windows` nodeSelector and tolerate their taint.',
    ],
    DOCS.userGuide,
  );
}

function osNameHover(value: unknown): string {
  const sentences = [
    '`windows` or `linux`, in lowercase: the API server rejects any other value, `Windows` included.',
    '`windows` turns on Windows validation of the pod spec, and the kubelet admits the pod only on a Windows node.',
    'It does not steer scheduling: pair it with a `kubernetes.io/os: windows` nodeSelector.',
  ];
  if (typeof value === 'string' && value !== 'windows' && value !== 'linux') {
    sentences.unshift(
      `${code(value)} is not a valid value${value.toLowerCase() === 'windows' ? ': write `windows`' : ''}.`,
    );
  }
  return md('spec.os.name', sentences, DOCS.userGuide);
}

function windowsOptionsHover(podLevel: boolean): string {
  return md(
    podLevel ? 'securityContext.windowsOptions (pod)' : 'securityContext.windowsOptions (container)',
    [
      podLevel
        ? 'Windows settings for every container of the pod; a container\u2019s own `windowsOptions` override them field by field.'
        : 'Windows settings for this container; they override the pod-level `windowsOptions` field by field.',
      'They hold `runAsUserName`, `hostProcess` and the gMSA fields `gmsaCredentialSpecName` and `gmsaCredentialSpec`.',
      'Linux nodes ignore them, and the API server rejects them in a pod with `os.name: linux`.',
    ],
    DOCS.intro,
  );
}

const ACCOUNTS: Record<string, string> = {
  containeruser:
    '`ContainerUser` is the unprivileged account of Windows base images (the default user of Nano Server images).',
  containeradministrator:
    '`ContainerAdministrator` is the container\u2019s administrator (what Server Core images run as: they declare no user). `runAsNonRoot: true` refuses it when `runAsUserName` names it, and cannot see it when it is only the image\u2019s default.',
  'nt authority\\system':
    '`NT AUTHORITY\\SYSTEM` (LocalSystem) has full control of the host: for HostProcess containers, and only when a lesser account will not do.',
  'nt authority\\local service':
    '`NT AUTHORITY\\Local service` is the least privileged host account, the recommended one for HostProcess containers.',
  'nt authority\\localservice':
    '`NT AUTHORITY\\LocalService` is the least privileged host account, the recommended one for HostProcess containers.',
  'nt authority\\networkservice':
    '`NT AUTHORITY\\NetworkService` is a host account that uses the computer\u2019s credentials on the network, for HostProcess containers.',
  'nt authority\\network service':
    '`NT AUTHORITY\\Network service` is a host account that uses the computer\u2019s credentials on the network, for HostProcess containers.',
};

function windowsOptionFieldHover(field: string, node: NodeAt): string {
  switch (field) {
    case 'hostProcess':
      return md(
        'windowsOptions.hostProcess',
        [
          '`true` runs the container as a HostProcess container: a process on the Windows host itself, with the host\u2019s network, file system and devices (for node agents, CNI, CSI, log collectors).',
          'If one container is HostProcess, all containers of the pod must be, and `hostNetwork: true` is required.',
          'Set `runAsUserName` to `NT AUTHORITY\\Local service` (least privilege), `NetworkService` or `SYSTEM`; Pod Security baseline and restricted forbid HostProcess, so the namespace must be privileged.',
        ],
        DOCS.hostProcess,
      );
    case 'runAsUserName': {
      const sentences = [
        'The Windows user the container\u2019s processes run as: `USER` or `DOMAIN\\USER` with exactly one backslash (YAML: `\'NT AUTHORITY\\SYSTEM\'` in single quotes, or `"NT AUTHORITY\\\\SYSTEM"` in double quotes).',
        'Usual values are `ContainerUser` and `ContainerAdministrator`; HostProcess containers use `NT AUTHORITY\\\u2026` accounts or a local group.',
        'The Linux `runAsUser` has no effect on Windows.',
      ];
      if (node.target === 'value' && typeof node.value === 'string') {
        const account = ACCOUNTS[node.value.trim().toLowerCase()];
        if (account) sentences.splice(1, 1, account);
        else if ((node.value.match(/\\/g) ?? []).length > 1)
          sentences.splice(
            1,
            1,
            `This value holds ${(node.value.match(/\\/g) ?? []).length} backslashes once YAML has read it; the API server rejects more than one.`,
          );
      }
      return md('windowsOptions.runAsUserName', sentences, DOCS.runAsUserName);
    }
    case 'gmsaCredentialSpecName':
      return md(
        'windowsOptions.gmsaCredentialSpecName',
        [
          'The name of a `GMSACredentialSpec` resource (windows.k8s.io) that gives the container the identity of a group Managed Service Account in Active Directory.',
          'The gMSA admission webhook fills `gmsaCredentialSpec` from it and checks that the pod\u2019s service account may `use` that resource.',
          'It must be a lowercase DNS subdomain name.',
        ],
        DOCS.gmsa,
      );
    default:
      return md(
        'windowsOptions.gmsaCredentialSpec',
        [
          'The full gMSA credential spec (JSON) handed to the container runtime.',
          'It is normally not written by hand: the gMSA webhook fills it from `gmsaCredentialSpecName` and rejects contents that do not match that resource.',
          'It must not be empty and must be under 64 KiB.',
        ],
        DOCS.gmsa,
      );
  }
}

function osLabelHover(label: string): string {
  const beta = label === BETA_OS_LABEL;
  return md(
    label,
    [
      beta
        ? 'Deprecated node label, replaced by `kubernetes.io/os`: select on `kubernetes.io/os` instead.'
        : 'Node label the kubelet sets to the node\u2019s operating system: `windows` or `linux`, in lowercase (label values are case-sensitive, so `Windows` matches no node).',
      'Selecting `windows` is what keeps a Windows pod off Linux nodes: the scheduler does not read `spec.os.name`.',
      'In mixed clusters, give Linux workloads `kubernetes.io/os: linux` too.',
    ],
    DOCS.userGuide,
  );
}

const LTSC_EXAMPLES = WINDOWS_BUILDS.filter((b) => b.ltsc && !b.eol)
  .map((b) => `${code(b.label)} ${b.name.replace(/ \(.*\)$/, '')}`)
  .join(', ');

function buildLabelHover(): string {
  return md(
    BUILD_LABEL,
    [
      `Node label the kubelet sets on Windows nodes to their build, \`10.0.<build>\`: ${LTSC_EXAMPLES}.`,
      'Process-isolated containers only run on a host whose build suits their image, so selecting this label keeps pods on nodes that can run their images.',
      'A RuntimeClass per Windows version often carries it.',
    ],
    DOCS.userGuide,
  );
}

/** The tags that name builds: `ltsc2022`, `1809`. */
function tagsOf(b: WindowsBuild): string {
  return b.tokens.map(code).join('/');
}

function buildValueHover(value: unknown): string {
  const parsed = parseBuildLabel(value);
  if (!parsed) {
    return md(
      `${BUILD_LABEL}: ${typeof value === 'string' ? value : String(value)}`,
      [
        'Not a Windows build: the kubelet sets this label to `10.0.<build>` (a string; quote it in YAML), e.g. `"10.0.20348"`, so this value matches no node.',
      ],
      DOCS.userGuide,
    );
  }
  const label = `${parsed.major}.${parsed.minor}.${parsed.build}`;
  const b = buildByNumber(parsed.build);
  if (!b || parsed.major !== 10 || parsed.minor !== 0) {
    return md(
      `${BUILD_LABEL}: ${label}`,
      [
        'Not a Windows Server build this extension knows; Windows nodes carry e.g. `10.0.17763` (2019), `10.0.20348` (2022) or `10.0.26100` (2025).',
      ],
      DOCS.userGuide,
    );
  }
  const runs = WINDOWS_BUILDS.filter((img) => isImageCompatible(b.build, img.build));
  const sentences = [`Nodes running ${b.name} carry this value.`];
  sentences.push(
    b.build < 20348
      ? `Nodes of this build run only images built for it (${tagsOf(b)}): before Windows Server 2022, containerd requires the image build to match the host exactly.`
      : `By containerd\u2019s rule (from Windows Server 2022 on, a host runs images from build 20348 up to its own), these nodes run images tagged ${runs.map(tagsOf).join(', ')}.`,
  );
  if (b.eol)
    sentences.push('This Windows release is out of support: move to an LTSC release (Windows Server 2022 or 2025).');
  else if (!b.ltsc) sentences.push('This is an annual-channel release, not a long-term servicing one.');
  return md(`${BUILD_LABEL}: ${label}`, sentences, DOCS.userGuide);
}

function runtimeClassHover(): string {
  return md(
    'runtimeClassName',
    [
      'Selects a RuntimeClass; on Windows its `handler` (`runhcs-wcow-process` for process isolation with containerd) picks how containers run.',
      'Its `scheduling.nodeSelector` and `tolerations` are merged into the pod, a common way to send pods to Windows nodes of one build (`node.kubernetes.io/windows-build`).',
      'Hyper-V isolation (`runhcs-wcow-hypervisor`, or with the build of its utility VM: `runhcs-wcow-hypervisor-17763`) is experimental and not supported by Kubernetes.',
    ],
    DOCS.runtimeClass,
  );
}

function imageHover(raw: string): string | undefined {
  const image = parseImage(raw);
  const named = imageBuild(image);
  if (!named) return undefined;
  const b = buildByNumber(named.build);
  const name = b ? b.name : `build 10.0.${named.build}`;
  const sentences = [`The tag ${code(named.token)} names Windows build 10.0.${named.build}, ${name}.`];
  if (named.build < 20348) {
    sentences.push(
      `It runs only on Windows nodes of that exact build (\`${BUILD_LABEL}: "10.0.${named.build}"\`): process isolation needs the image to match the host.`,
    );
  } else {
    const hosts = WINDOWS_BUILDS.filter((h) => !h.eol && isImageCompatible(h.build, named.build)).map((h) =>
      h.name.replace(/ \(.*\)$/, ''),
    );
    sentences.push(
      `It runs on Windows nodes of build 10.0.${named.build} or newer${hosts.length ? ` (${hosts.join(', ')})` : ''}: from Windows Server 2022 on, containerd runs images from build 20348 up to the host\u2019s build.`,
    );
  }
  if (b?.eol)
    sentences.push('This Windows release is out of support: rebuild on an LTSC base such as `ltsc2022` or `ltsc2025`.');
  if (isNanoServer(raw))
    sentences.push('Nano Server base: small, with `cmd.exe` but no PowerShell, and `ContainerUser` as default user.');
  else if (isServerCoreFamily(raw))
    sentences.push(
      'Server Core base: larger, with Windows PowerShell (`powershell.exe`), and `ContainerAdministrator` as default user.',
    );
  return md(`Windows image: ${name}`, sentences, DOCS.userGuide);
}

function hostNetworkHover(pod: PodSpecView): string {
  const hostProcess = hostProcessInfo(pod).any;
  return md(
    'hostNetwork on Windows',
    [
      'On Windows, host networking takes effect for HostProcess pods, which require `hostNetwork: true`.',
      hostProcess
        ? 'This pod has HostProcess containers, so it needs `hostNetwork: true`.'
        : 'For ordinary Windows containers it does nothing: the pod keeps its container network. No Kubernetes release gives them the node\u2019s network (the `WindowsHostNetwork` feature gate was never on by default, is deprecated since 1.33, and its KEP was withdrawn); a pod that needs the host network must be a HostProcess pod.',
      'Pod Security baseline and restricted forbid `hostNetwork: true`.',
    ],
    DOCS.networking,
  );
}

// ---------------------------------------------------------------------------------------------
// Is this a Windows pod?

function windowsOptionsOf(sc: unknown): Obj | undefined {
  return isObj(sc) && isObj(sc.windowsOptions) ? sc.windowsOptions : undefined;
}

function containersOf(spec: Obj): Obj[] {
  const out: Obj[] = [];
  for (const group of CONTAINER_GROUPS) {
    const list = spec[group];
    if (Array.isArray(list)) for (const c of list) if (isObj(c)) out.push(c);
  }
  return out;
}

/** The pod declares or selects Windows, or sets Windows-only options, or runs a Windows image. */
function windowsPod(spec: Obj): boolean {
  if (isObj(spec.os) && spec.os.name === 'windows') return true;
  if (
    isObj(spec.nodeSelector) &&
    (spec.nodeSelector[OS_LABEL] === 'windows' ||
      spec.nodeSelector[BETA_OS_LABEL] === 'windows' ||
      spec.nodeSelector[BUILD_LABEL] !== undefined)
  )
    return true;
  if (windowsOptionsOf(spec.securityContext)) return true;
  const terms = getAt(spec, [
    'affinity',
    'nodeAffinity',
    'requiredDuringSchedulingIgnoredDuringExecution',
    'nodeSelectorTerms',
  ]);
  if (Array.isArray(terms)) {
    for (const term of terms) {
      const exprs = isObj(term) ? term.matchExpressions : undefined;
      if (!Array.isArray(exprs)) continue;
      for (const e of exprs) {
        if (!isObj(e)) continue;
        if ((e.key === OS_LABEL || e.key === BETA_OS_LABEL) && Array.isArray(e.values) && e.values.includes('windows'))
          return true;
        if (e.key === BUILD_LABEL) return true;
      }
    }
  }
  return containersOf(spec).some(
    (c) =>
      windowsOptionsOf(c.securityContext) !== undefined ||
      (typeof c.image === 'string' && windowsImageEvidence(c.image) !== undefined),
  );
}
