// An interactive terminal session, whatever carries it: an SSH shell channel (below) or a pod exec
// over the API (src/cluster/pod-shell.ts). The VS Code terminal (src/extension/terminal.ts) speaks
// only to this. No vscode here: it lives in the engine bundle.
import { SshConnection, SshConnector, type ShellStream, type SshConnectorOptions } from './ssh';

export interface SessionEnd {
  /** The remote shell's exit code, when it exited (e.g. `exit`). */
  exitCode?: number;
  /** Set when the session ended without the shell exiting: the connection dropped or failed. */
  lost?: string;
}

export interface InteractiveSession {
  /** user@host:port or pod name, for messages. */
  readonly label: string;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  onData(listener: (text: string) => void): void;
  /** Called once, when the session ends for any reason (including close()). */
  onEnd(listener: (end: SessionEnd) => void): void;
  /** Ends the session (closes the channel; a pod session also deletes its pod). */
  close(): void;
}

/** An InteractiveSession over an ssh2 shell channel; `release` runs once at the end (closes the connection). */
function sshSession(label: string, stream: ShellStream, release: () => void): InteractiveSession {
  let exitCode: number | undefined;
  let closedByUs = false;
  let ended: SessionEnd | undefined;
  const endListeners: ((e: SessionEnd) => void)[] = [];
  const decoder = new TextDecoder('utf-8'); // a multi-byte character may straddle two packets
  const dataListeners: ((t: string) => void)[] = [];
  const emit = (buf: Buffer) => {
    const text = decoder.decode(buf, { stream: true });
    if (text) for (const l of dataListeners) l(text);
  };
  stream.on('data', emit);
  stream.stderr.on('data', emit);
  stream.on('exit', (code: number | null) => {
    if (typeof code === 'number') exitCode = code;
  });
  stream.on('error', () => undefined);
  stream.on('close', () => {
    ended = exitCode !== undefined ? { exitCode } : closedByUs ? {} : { lost: `the connection to ${label} was lost` };
    release();
    for (const l of endListeners.splice(0)) l(ended);
  });
  return {
    label,
    write: (data) => {
      if (!ended) stream.write(data);
    },
    resize: (cols, rows) => {
      if (!ended) stream.resize(cols, rows);
    },
    onData: (l) => void dataListeners.push(l),
    onEnd: (l) => {
      if (ended) l(ended);
      else endListeners.push(l);
    },
    close: () => {
      if (ended) return;
      closedByUs = true;
      stream.close();
    },
  };
}

/** Connects and opens an interactive shell with a pty; the connection closes with the session. */
export async function openSshSession(options: SshConnectorOptions & { cols: number; rows: number; signal?: AbortSignal }): Promise<InteractiveSession> {
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
