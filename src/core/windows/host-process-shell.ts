/**
 * The pod behind "Open SSH terminal" when SSH is not possible: a HostProcess pod pinned to the node
 * (it runs as SYSTEM on the host itself, in the host's network), kept alive by a sleeping PowerShell
 * so that the terminal can exec an interactive one into it. Pure: the caller creates and deletes it.
 */
import { buildByNumber, parseBuildLabel } from './builds';
import { BUILD_LABEL } from '../well-known';

const SHELL_POD_COMPONENT = 'node-shell';
/** The container the terminal execs into. */
export const SHELL_CONTAINER = 'shell';
/**
 * The interactive shell exec'd into the pod: the host's Windows PowerShell (a HostProcess container runs on the host).
 */
export const SHELL_COMMAND = ['powershell.exe', '-NoLogo'] as const;
/** A pod left behind (VS Code killed) ends by itself after this long. */
const SHELL_POD_DEADLINE_SECONDS = 8 * 3600;

export interface PowerShellImage {
  image: string;
  /** The LTSC tag token used. */
  ltsc: 'ltsc2019' | 'ltsc2022' | 'ltsc2025';
  /** Why this tag (for the terminal's first line). */
  note: string;
}

/**
 * The PowerShell nanoserver image for a node build label. Since Windows Server 2022 a host runs images
 * of the 2022 floor up to its own build (containerd's compatibility rule), so 23H2 takes ltsc2022;
 * before it the build must match. An unknown or missing label takes ltsc2022 and says so.
 */
export function powershellImageFor(buildLabel: string | undefined): PowerShellImage | { error: string } {
  const parsed = parseBuildLabel(buildLabel);
  const image = (ltsc: PowerShellImage['ltsc'], note: string): PowerShellImage => ({
    image: `mcr.microsoft.com/powershell:lts-nanoserver-${ltsc}`,
    ltsc,
    note,
  });
  if (!parsed) return image('ltsc2022', `the node has no ${BUILD_LABEL} label: assuming Windows Server 2022`);
  const { build } = parsed;
  const name = buildByNumber(build)?.name ?? `build ${build}`;
  if (build >= 26100) return image('ltsc2025', `${name}`);
  if (build >= 20348) return image('ltsc2022', `${name}`);
  if (build === 17763) return image('ltsc2019', `${name}`);
  return {
    error: `${name} has no PowerShell LTS image (Windows Server 2019, 2022 and 2025 only), and HostProcess containers need Windows Server 2019 or later.`,
  };
}

export interface HostProcessShellInput {
  nodeName: string;
  labels?: Record<string, string>;
  namespace: string;
  /** A few random characters for a unique pod name. */
  suffix: string;
}

/** A DNS-1123 label prefix from a node name (lower case, [a-z0-9-], at most `max`). */
function dnsPart(text: string, max: number): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, max)
    .replace(/-+$/, '');
  return s || 'node';
}

export interface HostProcessShellPod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: Record<string, unknown>;
}

export function hostProcessShellPod(
  input: HostProcessShellInput,
): { pod: HostProcessShellPod; image: PowerShellImage } | { error: string } {
  const image = powershellImageFor(input.labels?.[BUILD_LABEL]);
  if ('error' in image) return image;
  const suffix = dnsPart(input.suffix, 8);
  const name = `kube-windows-shell-${dnsPart(input.nodeName, 63 - 'kube-windows-shell-'.length - suffix.length - 1)}-${suffix}`;
  const pod: HostProcessShellPod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: input.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'kube-windows', 'app.kubernetes.io/component': SHELL_POD_COMPONENT },
      annotations: { 'kube-windows.io/node': input.nodeName },
    },
    spec: {
      // Pinned: no scheduler decision, so a cordoned or tainted node still gets its shell.
      nodeName: input.nodeName,
      nodeSelector: { 'kubernetes.io/os': 'windows' },
      hostNetwork: true,
      restartPolicy: 'Never',
      activeDeadlineSeconds: SHELL_POD_DEADLINE_SECONDS,
      terminationGracePeriodSeconds: 5,
      securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } },
      tolerations: [
        { key: 'os', operator: 'Equal', value: 'Windows', effect: 'NoSchedule' },
        { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
        // A node being debugged is often cordoned or NotReady.
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      ],
      containers: [
        {
          name: SHELL_CONTAINER,
          image: image.image,
          imagePullPolicy: 'IfNotPresent',
          // Keeps the pod alive for exec; the deadline ends it if kube-windows never deletes it.
          command: [
            'powershell.exe',
            '-NoLogo',
            '-NoProfile',
            '-Command',
            `Start-Sleep -Seconds ${SHELL_POD_DEADLINE_SECONDS}`,
          ],
          resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { cpu: '1', memory: '512Mi' } },
        },
      ],
    },
  };
  return { pod, image };
}
