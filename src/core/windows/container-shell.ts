// Which shell a container can run, from what the API tells about it: the OS of its node (the pod's
// spec.os, else the node's kubernetes.io/os label) and its image. Nano Server has no PowerShell
// (cmd.exe is the one shell it has); Server Core, Server and the full Windows image carry Windows
// PowerShell (powershell.exe); the PowerShell images (mcr.microsoft.com/powershell) and the .NET SDK
// images carry PowerShell 7 (pwsh); Linux containers get sh. Also what the exec status on channel 3
// says about the shell's exit code. Pure: src/cluster/pod-exec.ts and the CLI call it.

export const SHELLS = ['cmd', 'powershell', 'pwsh', 'sh'] as const;
export type ShellKind = (typeof SHELLS)[number];

export interface ShellChoice {
  shell: ShellKind;
  /** The command exec'd in the container. */
  command: string[];
  /** Why this shell, in a few words (shown before the session starts). */
  why: string;
}

export interface ShellInput {
  /** `windows`, `linux`, or undefined when neither spec.os nor the node's label says it. */
  os?: string;
  /** The container's image reference as in the pod spec (or its status). */
  image: string;
  /** --shell: the user's choice wins. */
  override?: ShellKind;
  /** With a terminal the shells run interactively; without one they read commands from stdin. */
  tty: boolean;
}

/**
 * The repository path and tag of an image reference, lowercased: `mcr.microsoft.com/windows/nanoserver`, `ltsc2022`.
 */
function splitImage(image: string): { repo: string; tag: string } {
  const noDigest = image.toLowerCase().split('@')[0] ?? '';
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash
    ? { repo: noDigest.slice(0, colon), tag: noDigest.slice(colon + 1) }
    : { repo: noDigest, tag: '' };
}

/** What the image tells: a Windows base it is built on, and whether it carries PowerShell 7. */
function imageFacts(image: string): { base?: 'nanoserver' | 'servercore' | 'server' | 'windows'; pwsh: boolean } {
  const { repo, tag } = splitImage(image);
  const name = repo.split('/').pop() ?? '';
  const pwsh = /(^|\/)powershell(\/|$)/.test(repo) || /(^|\/)dotnet\/(nightly\/)?sdk$/.test(repo);
  const words = `${name} ${tag}`;
  if (/nanoserver/.test(words)) return { base: 'nanoserver', pwsh };
  if (/servercore/.test(words)) return { base: 'servercore', pwsh };
  if (/^mcr\.microsoft\.com\/windows\/server$/.test(repo)) return { base: 'server', pwsh };
  if (/^mcr\.microsoft\.com\/windows$/.test(repo) || /(^|\/)windows\/(server|servercore|nanoserver)$/.test(repo))
    return { base: 'windows', pwsh };
  return { pwsh };
}

const COMMANDS: Record<ShellKind, { windows: string[]; linux: string[]; pipe?: string[] }> = {
  cmd: { windows: ['cmd.exe'], linux: ['cmd.exe'] },
  // Without a terminal PowerShell reads its commands from stdin only with -Command -.
  powershell: {
    windows: ['powershell.exe', '-NoLogo'],
    linux: ['powershell.exe', '-NoLogo'],
    pipe: ['-NoProfile', '-Command', '-'],
  },
  pwsh: { windows: ['pwsh.exe', '-NoLogo'], linux: ['pwsh', '-NoLogo'], pipe: ['-NoProfile', '-Command', '-'] },
  sh: { windows: ['sh'], linux: ['sh'] },
};

function commandFor(shell: ShellKind, windows: boolean, tty: boolean): string[] {
  const c = COMMANDS[shell];
  return [...(windows ? c.windows : c.linux), ...(!tty && c.pipe ? c.pipe : [])];
}

/** The OS a container runs: the given one, else what its image says (a Windows base), else Linux. */
export function containerOs(os: string | undefined, image: string): 'windows' | 'linux' {
  if (os === 'windows' || os === 'linux') return os;
  return imageFacts(image).base ? 'windows' : 'linux';
}

/** The shell to exec in a container (see the top of this file). */
export function chooseShell(input: ShellInput): ShellChoice {
  const windows = containerOs(input.os, input.image) === 'windows';
  const facts = imageFacts(input.image);
  const pick = (shell: ShellKind, why: string): ShellChoice => ({
    shell,
    command: commandFor(shell, windows, input.tty),
    why,
  });
  if (input.override) return pick(input.override, '--shell');
  if (!windows) return facts.pwsh ? pick('pwsh', 'the image carries PowerShell 7') : pick('sh', 'a Linux container');
  if (facts.pwsh) return pick('pwsh', 'the image carries PowerShell 7');
  if (facts.base === 'nanoserver') return pick('cmd', 'a Nano Server image has no PowerShell');
  if (facts.base)
    return pick(
      'powershell',
      `a ${facts.base === 'servercore' ? 'Server Core' : facts.base === 'server' ? 'Windows Server' : 'Windows'} image carries Windows PowerShell`,
    );
  return pick('powershell', 'a Windows container (if its image is built on Nano Server, use --shell cmd)');
}

/** The exec status sent on channel 3 when the command ends. */
export interface ExecStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
}

/**
 * The shell's exit code from the exec status: 0 for Success; the ExitCode cause for
 * NonZeroExitCode ("command terminated with non-zero exit code ... exit code 3"); undefined when
 * the exec itself failed (the status then says why in `message`).
 */
export function execExitCode(status: ExecStatus): number | undefined {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const n = cause?.message !== undefined ? Number(cause.message) : NaN;
  if (Number.isInteger(n)) return n;
  return status.reason === 'NonZeroExitCode' ? 1 : undefined;
}
