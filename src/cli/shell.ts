// `kube-windows shell POD`: an interactive shell in a running container over the API (pods/exec over
// WebSocket), the shell being the one the container can run (cmd.exe in Nano Server, powershell.exe
// in Server Core, pwsh where PowerShell 7 is, sh on Linux: core/windows/container-shell.ts). With a
// terminal: raw keys, resize, the exit code shown; without one (a pipe) stdin goes to the shell and
// ends it. The shell's exit code is the command's.
import { ContainerShellError, openContainerShell } from '../cluster/pod-exec';
import { SHELLS, type ShellKind } from '../core/windows/container-shell';
import { CLUSTER_HELP, CLUSTER_OPTIONS, EXIT, EXIT_CODES_HELP, HELP_OPTION, oneOf, parse, UsageError, userMessage, warn } from './kit';
import { clusterFor } from './kit-remote';

const SHELL_HELP = `Usage:
  kube-windows shell POD [-n NS] [-c CONTAINER] --context C [--kubeconfig F] [--shell cmd|powershell|pwsh|sh]

An interactive shell in a running container, over the API (pods/exec, WebSocket): no SSH, no kubectl.
The shell is the one the container can run: cmd.exe in Nano Server images (they have no PowerShell),
powershell.exe in Server Core, Server and Windows images, pwsh where the image has PowerShell 7
(mcr.microsoft.com/powershell, the .NET SDK images), sh on Linux. The container's OS is the pod's
spec.os, else its node's kubernetes.io/os label, else what the image says.
Without a terminal (stdin a pipe or a file) the shell reads its commands from stdin and ends with it.

  -n, --namespace NS        the pod's namespace (default: the context's, else default)
  -c, --container NAME      the container (default: the kubectl.kubernetes.io/default-container annotation, else the first)
  --shell SHELL             cmd, powershell, pwsh or sh, whatever the image
${CLUSTER_HELP}

The exit code is the shell's when it exits; otherwise:
${EXIT_CODES_HELP.split('\n').slice(1).join('\n')}`;

export async function runShell(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...CLUSTER_OPTIONS, ...HELP_OPTION, namespace: { type: 'string', short: 'n' }, container: { type: 'string', short: 'c' }, shell: { type: 'string' } },
    true,
  );
  if (values.help) {
    process.stdout.write(SHELL_HELP);
    return EXIT.OK;
  }
  const [podName, ...extra] = positionals;
  if (!podName) throw new UsageError('shell needs the pod name: kube-windows shell POD --context C');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}" (the command is chosen by --shell)`);
  const shell = oneOf<ShellKind>('shell', values.shell, SHELLS);
  const cluster = clusterFor(values);
  const namespace = values.namespace ?? cluster.kube.contextNamespace ?? 'default';
  const tty = Boolean(process.stdin.isTTY && process.stdout.isTTY);

  let session;
  try {
    session = await openContainerShell({
      kube: cluster.kube,
      config: cluster.kube.kubeConfig,
      namespace,
      pod: podName,
      tty,
      cols: process.stdout.columns || 80,
      rows: process.stdout.rows || 24,
      stderr: (chunk) => process.stderr.write(chunk),
      ...(values.container ? { container: values.container } : {}),
      ...(shell ? { shell } : {}),
    });
  } catch (err) {
    if (err instanceof ContainerShellError) {
      warn(err.message);
      return err.kind === 'not-running' ? EXIT.FAILED : EXIT.USAGE;
    }
    warn(userMessage(err, cluster.context));
    return /^You may not/.test((err as Error).message) ? EXIT.USAGE : EXIT.FAILED;
  }
  const t = session.target;
  if (tty) process.stderr.write(`kube-windows: ${t.command.join(' ')} in ${t.namespace}/${t.pod} container ${t.container} (${t.choice.why})\n`);

  return new Promise<number>((resolveP) => {
    const stdin = process.stdin;
    const onData = (d: Buffer): void => session.write(d.toString('utf8'));
    const onEnd = (): void => session.endInput?.();
    const onResize = (): void => session.resize(process.stdout.columns || 80, process.stdout.rows || 24);
    session.onData((text) => process.stdout.write(text));
    session.onEnd((end) => {
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      process.stdout.removeListener('resize', onResize);
      if (tty) stdin.setRawMode(false);
      stdin.pause();
      if (end.lost) {
        warn(
          `${end.lost}${/executable file not found|not recognized|cannot find the file|no such file/i.test(end.lost) ? ` (the image may not have ${t.command[0]}; choose another with --shell)` : ''}`,
        );
        resolveP(EXIT.FAILED);
        return;
      }
      const code = end.exitCode ?? 0;
      process.stderr.write(`kube-windows: ${t.command[0]} exited with code ${code}\n`);
      resolveP(code);
    });
    if (tty) {
      stdin.setRawMode(true);
      process.stdout.on('resize', onResize);
    }
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}
