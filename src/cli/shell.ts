// `kube-windows shell POD`: an interactive shell in a running container over the API (pods/exec over
// WebSocket), the shell being the one the container can run (cmd.exe in Nano Server, powershell.exe
// in Server Core, pwsh where PowerShell 7 is, sh on Linux: core/windows/container-shell.ts). With a
// terminal: raw keys, resize, the exit code shown; without one (a pipe) stdin goes to the shell and
// ends it. The shell's exit code is the command's.
import { ContainerShellError, openContainerShell } from '../cluster/pod-exec';
import { SHELLS, type ShellKind } from '../core/windows/container-shell';
import { EXIT, oneOf, UsageError, userMessage, warn } from './kit';
import { commandHelp, parseCommand } from './declare';
import { SHELL_COMMAND } from './commands';
import { clusterFor } from './kit-remote';

export async function runShell(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(SHELL_COMMAND, args);
  if (values.help) {
    process.stdout.write(commandHelp(SHELL_COMMAND));
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
  if (tty)
    process.stderr.write(
      `kube-windows: ${t.command.join(' ')} in ${t.namespace}/${t.pod} container ${t.container} (${t.choice.why})\n`,
    );

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
