// An interactive session over an SSH shell channel (the pod exec carrier is src/cluster/pod-shell.ts;
// both build on src/core/interactive-session.ts). No vscode here: it lives in the engine bundle.
import { SshConnection, SshConnector, type ShellStream, type SshConnectorOptions } from './ssh';
import { sessionHub, type InteractiveSession } from '../core/interactive-session';

export type { SessionEnd, InteractiveSession } from '../core/interactive-session';

/** An InteractiveSession over an ssh2 shell channel; `release` runs once at the end (closes the connection). */
function sshSession(label: string, stream: ShellStream, release: () => void): InteractiveSession {
  let exitCode: number | undefined;
  const hub = sessionHub(label, release);
  stream.on('data', hub.output);
  stream.stderr.on('data', hub.output);
  stream.on('exit', (code: number | null) => {
    if (typeof code === 'number') exitCode = code;
  });
  stream.on('error', () => undefined);
  stream.on('close', () => hub.end(exitCode, `the connection to ${label} was lost`));
  return hub.session({
    write: (data) => stream.write(data),
    resize: (cols, rows) => stream.resize(cols, rows),
    close: () => stream.close(),
  });
}

/** Connects and opens an interactive shell with a pty; the connection closes with the session. */
export async function openSshSession(
  options: SshConnectorOptions & { cols: number; rows: number; signal?: AbortSignal },
): Promise<InteractiveSession> {
  const { cols, rows, signal, ...ssh } = options;
  const conn = await new SshConnector(ssh).connect(signal);
  if (!(conn instanceof SshConnection)) throw new Error('an SSH connection was expected');
  try {
    // PowerShell whatever the host's DefaultShell (Windows OpenSSH defaults to cmd.exe).
    const stream = await conn.shell({ cols, rows, command: 'powershell.exe -NoLogo', ...(signal ? { signal } : {}) });
    return sshSession(conn.label, stream, () => conn.close());
  } catch (err) {
    conn.close();
    throw err;
  }
}
