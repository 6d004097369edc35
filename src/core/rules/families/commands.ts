// Runtime family, commands: programs an exec command, probe or lifecycle hook starts that do not
// exist in Windows images (a POSIX shell, Windows PowerShell on Nano Server).
import { getAt, type Path } from '../../manifest/path';
import type { ContainerView } from '../../manifest/workloads';
import { preview } from '../../manifest/text';
import { isNanoServer, parseImage } from '../../windows/builds';
import { containerField, hostProcessInfo } from '../helpers';
import type { PodRule } from '../types';

/** Places where a container runs a program by exec: its command, exec probes, exec lifecycle hooks. */
interface ExecSite {
  /** Path of the command list relative to the container. */
  rel: Path;
  what: string;
  /** What happens when the program does not exist. */
  outcome: string;
  program: string;
}

export const EXEC_PLACES: { rel: string[]; what: string; outcome: string }[] = [
  { rel: ['command'], what: 'command', outcome: 'the container cannot start' },
  {
    rel: ['livenessProbe', 'exec', 'command'],
    what: 'liveness probe',
    outcome: 'the probe always fails and the kubelet keeps restarting the container',
  },
  {
    rel: ['readinessProbe', 'exec', 'command'],
    what: 'readiness probe',
    outcome: 'the probe always fails and the pod never becomes Ready',
  },
  {
    rel: ['startupProbe', 'exec', 'command'],
    what: 'startup probe',
    outcome: 'the probe always fails and the container is restarted',
  },
  {
    rel: ['lifecycle', 'postStart', 'exec', 'command'],
    what: 'postStart hook',
    outcome: 'the hook fails and the container is killed',
  },
  {
    rel: ['lifecycle', 'preStop', 'exec', 'command'],
    what: 'preStop hook',
    outcome: 'the hook fails and the shutdown steps it holds never run',
  },
];

function execSites(c: ContainerView): ExecSite[] {
  const out: ExecSite[] = [];
  for (const place of EXEC_PLACES) {
    const list = getAt(c.value, place.rel);
    if (!Array.isArray(list) || typeof list[0] !== 'string') continue;
    out.push({ rel: place.rel, what: place.what, outcome: place.outcome, program: list[0] });
  }
  return out;
}

/** The program name an exec command starts: first word, without directories, lower case. */
function programName(program: string): string {
  const first = program.trim().split(/\s+/)[0] ?? '';
  const base = first.split(/[\\/]/).pop() ?? first;
  return base.toLowerCase();
}

export const POSIX_SHELLS = ['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh'];

/** The directories of a program under /bin, /sbin, /usr/bin, /usr/local/bin … (lower case; RE2 and JS alike). */
export const POSIX_DIRS = '/(usr/(local/)?)?s?bin/';
const POSIX_PATH = new RegExp(`^${POSIX_DIRS}.`);

/** `sh`, `bash`, `/bin/…`, `/usr/bin/…`: programs that exist in Linux images only. */
function isPosixProgram(program: string): boolean {
  const first = (program.trim().split(/\s+/)[0] ?? '').toLowerCase();
  if (POSIX_SHELLS.includes(first)) return true;
  return POSIX_PATH.test(first);
}

/** Windows builds of busybox (Kubernetes e2e test images) do ship `sh` and `/bin/*`. */
export const BUSYBOX = 'busybox';

function isBusybox(image: string | undefined): boolean {
  if (!image) return false;
  const repo = parseImage(image).repository;
  return (repo.split('/').pop() ?? '') === BUSYBOX;
}

/** Program names (lower case, without directories) of Windows PowerShell, and of PowerShell 7. */
export const WINDOWS_POWERSHELL = ['powershell', 'powershell.exe'];
export const PWSH = ['pwsh', 'pwsh.exe'];

/** The bare Nano Server base images (registry, repository): no PowerShell of any kind inside. */
export const BARE_NANO_SERVER = [
  { registry: 'mcr.microsoft.com', repository: 'windows/nanoserver' },
  { registry: 'docker.io', repository: 'microsoft/nanoserver' },
];

function isBareNanoServer(image: string): boolean {
  const ref = parseImage(image);
  return BARE_NANO_SERVER.some((b) => ref.registry === b.registry && ref.repository === b.repository);
}

/** The PowerShell images; the Nano Server based ones (a tag naming nanoserver) have pwsh only, no Windows PowerShell. */
export const POWERSHELL_IMAGE = { registry: 'mcr.microsoft.com', repository: 'powershell', nanoTag: 'nanoserver' };

function isPowerShellNanoImage(image: string): boolean {
  const ref = parseImage(image);
  return (
    ref.registry === POWERSHELL_IMAGE.registry &&
    ref.repository === POWERSHELL_IMAGE.repository &&
    (ref.tag ?? '').toLowerCase().includes(POWERSHELL_IMAGE.nanoTag)
  );
}

// WIN060's words, shared with its admission policy (core/policy): `shown` is the program as preview quotes it.
export const WIN060_INSTEAD = {
  nano: 'Use cmd /c … (Nano Server has no PowerShell)',
  other: 'Use cmd /c … or powershell -Command …',
};
export const win060Message = (field: string, shown: string, outcome: string, instead: string): string =>
  `${field}: ${shown} is a Linux program and Windows has no POSIX shell, so ${outcome}. ${instead} instead.`;

const WIN060: PodRule = {
  id: 'WIN060',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    'Exec command, probe or lifecycle hook runs sh, bash or a /bin/ path in a Windows container: there is no POSIX shell on Windows.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    for (const c of pod.containers) {
      if (isBusybox(c.image)) continue;
      const nano = c.image !== undefined && isNanoServer(c.image);
      for (const site of execSites(c)) {
        if (!isPosixProgram(site.program)) continue;
        const rel = [...site.rel, 0];
        report({
          path: [...c.path, ...rel],
          target: 'value',
          message: win060Message(
            containerField(pod, c, rel),
            preview(site.program, 40),
            site.outcome,
            nano ? WIN060_INSTEAD.nano : WIN060_INSTEAD.other,
          ),
        });
      }
    }
  },
};

// WIN061's words, shared with its admission policy (core/policy): `shown` is the image as preview quotes it.
export const WIN061_MISSING = {
  powerShellImage: 'this PowerShell image is Nano Server based and has PowerShell 7 (pwsh), not Windows PowerShell',
  windowsPowerShell: 'Nano Server images have no Windows PowerShell',
  any: 'the Nano Server base image has no PowerShell at all',
};
export const WIN061_INSTEAD = {
  powerShellImage: 'Use pwsh instead.',
  other: 'Use cmd /c …, or pwsh on an mcr.microsoft.com/powershell nanoserver image.',
};
export const win061Message = (
  field: string,
  missing: string,
  shown: string,
  outcome: string,
  instead: string,
): string => `${field}: ${missing} (image ${shown}), so ${outcome}. ${instead}`;

const WIN061: PodRule = {
  id: 'WIN061',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title: 'powershell used as the program on a Nano Server image: Nano Server has no Windows PowerShell.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const hp = hostProcessInfo(pod);
    for (const c of pod.containers) {
      // HostProcess containers run the host's programs, and the host has Windows PowerShell.
      if (!c.image || hp.is(c)) continue;
      const psImage = isPowerShellNanoImage(c.image);
      if (!psImage && !isNanoServer(c.image)) continue;
      for (const site of execSites(c)) {
        const name = programName(site.program);
        const windowsPowerShell = WINDOWS_POWERSHELL.includes(name);
        const pwshOnBareNano = PWSH.includes(name) && isBareNanoServer(c.image);
        if (!windowsPowerShell && !pwshOnBareNano) continue;
        const rel = [...site.rel, 0];
        const missing = psImage
          ? WIN061_MISSING.powerShellImage
          : windowsPowerShell
            ? WIN061_MISSING.windowsPowerShell
            : WIN061_MISSING.any;
        report({
          path: [...c.path, ...rel],
          target: 'value',
          message: win061Message(
            containerField(pod, c, rel),
            missing,
            preview(c.image, 60),
            site.outcome,
            psImage ? WIN061_INSTEAD.powerShellImage : WIN061_INSTEAD.other,
          ),
        });
      }
    }
  },
};

export const commandRules: PodRule[] = [WIN060, WIN061];
