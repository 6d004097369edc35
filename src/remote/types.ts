// The contract between the bootstrap engine and a remote host. The engine speaks only to these
// interfaces; src/remote/ssh.ts implements them over ssh2, and tests use a real OpenSSH sshd or the
// simulated Windows host of the test suite. Nothing here imports vscode.
import { UserError } from '../core/user-error';

/** The structured result of one remote command. */
export interface ExecResult {
  /** Exit code; null when the command ended by a signal or the channel closed without one. */
  exitCode: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  signal?: AbortSignal;
  /** Limit for this command; on expiry the channel is closed and CommandTimeoutError thrown. */
  timeoutMs?: number;
  /** Bytes or text written to the command's stdin, then stdin is closed. */
  stdin?: string | Uint8Array;
}

export interface PutOptions {
  signal?: AbortSignal;
  /** Called as bytes are written (bytes sent, total bytes). */
  onProgress?: (sent: number, total: number) => void;
  /** Limit for the whole transfer. */
  timeoutMs?: number;
}

export interface GetOptions {
  signal?: AbortSignal;
  /** Called as bytes arrive (bytes received, total bytes). */
  onProgress?: (received: number, total: number) => void;
  /** Limit for the whole transfer. */
  timeoutMs?: number;
}

/** Where an upload's bytes come from: a local file path or bytes in memory. */
export type UploadSource = { path: string } | { data: Uint8Array };

/**
 * One authenticated connection to a host. `exec` takes an argv that is already safe to send as a
 * command line (for Windows: the fixed `powershell ... -EncodedCommand <base64>` argv); nothing
 * user-supplied is ever joined into it.
 */
export interface HostConnection {
  /** user@host:port, for messages (never contains secrets). */
  readonly label: string;
  exec(argv: readonly string[], options?: ExecOptions): Promise<ExecResult>;
  /** Writes source to remotePath over SFTP (creating or truncating it). Not atomic by itself. */
  sftpPut(source: UploadSource, remotePath: string, options?: PutOptions): Promise<void>;
  /**
   * Reads remotePath over SFTP into localPath: streamed to a temporary sibling, renamed into place
   * when complete (a failed download leaves no partial file). Resolves to the bytes received.
   */
  sftpGet(remotePath: string, localPath: string, options?: GetOptions): Promise<{ bytes: number }>;
  /** Removes a remote file over SFTP; no error when it does not exist. */
  sftpRemove(remotePath: string, options?: { signal?: AbortSignal }): Promise<void>;
  /** true while the connection is usable. */
  readonly connected: boolean;
  close(): void;
}

/** Opens connections to one host; a plan reconnects through it after a reboot or a dropped link. */
export interface HostConnector {
  readonly label: string;
  connect(signal?: AbortSignal): Promise<HostConnection>;
}

/** Base of every remote error; `transient` says whether trying again may help. */
export class RemoteError extends UserError {
  override name = 'RemoteError';
  readonly transient: boolean = false;

  constructor(message: string, options?: ErrorOptions & { transient?: boolean }) {
    super(message, options);
    if (options?.transient) this.transient = true;
  }
}

/** The host presented a key that known_hosts has no entry for, and the user did not accept it. */
export class HostKeyUnknownError extends RemoteError {
  override name = 'HostKeyUnknownError';
  constructor(
    readonly host: string,
    readonly fingerprint: string,
  ) {
    super(`The host key of ${host} (${fingerprint}) is not known and was not accepted; nothing was sent to the host.`);
  }
}

/**
 * The host presented a key different from the one known_hosts pins: possible man-in-the-middle.
 * Worded after OpenSSH's "REMOTE HOST IDENTIFICATION HAS CHANGED"; only public data (fingerprints).
 */
export class HostKeyChangedError extends RemoteError {
  override name = 'HostKeyChangedError';
  constructor(
    readonly host: string,
    readonly fingerprint: string,
    readonly knownHostsFile: string,
    readonly line: number,
    readonly keyType = '',
    readonly pinnedFingerprint = '',
  ) {
    const type = keyType ? `${keyType} ` : '';
    super(
      `WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED for ${host}: it presented the ${type}key ${fingerprint}` +
        `${pinnedFingerprint ? `, but line ${line} of ${knownHostsFile} pins ${pinnedFingerprint}` : ''}. ` +
        `Someone could be intercepting the connection, or the host was reinstalled. Connection refused; nothing was sent to the host. ` +
        `If the change is expected, remove line ${line} of ${knownHostsFile} and run the command again.`,
    );
  }
}

export class AuthenticationError extends RemoteError {
  override name = 'AuthenticationError';
}

export class ConnectTimeoutError extends RemoteError {
  override name = 'ConnectTimeoutError';
  constructor(label: string, ms: number) {
    super(`Could not connect to ${label} within ${Math.round(ms / 1000)} s.`, { transient: true });
  }
}

export class CommandTimeoutError extends RemoteError {
  override name = 'CommandTimeoutError';
  constructor(label: string, ms: number) {
    super(`A command on ${label} did not finish within ${Math.round(ms / 1000)} s and was stopped.`);
  }
}

/** The connection dropped (reset, EOF, keepalive timeout): worth retrying on a new connection. */
export class ConnectionLostError extends RemoteError {
  override name = 'ConnectionLostError';
  constructor(label: string, cause?: unknown) {
    super(
      `The connection to ${label} was lost${cause instanceof Error && cause.message ? `: ${cause.message}` : ''}.`,
      { transient: true, cause },
    );
  }
}

/** A remote command ran and failed (non-zero exit). */
export class RemoteCommandError extends RemoteError {
  override name = 'RemoteCommandError';
  constructor(
    message: string,
    readonly result: ExecResult,
  ) {
    super(message);
  }
}

/** The host presented a key that known_hosts marks @revoked: refused, whatever else is pinned. */
export class HostKeyRevokedError extends RemoteError {
  override name = 'HostKeyRevokedError';
  constructor(
    readonly host: string,
    readonly fingerprint: string,
    readonly knownHostsFile: string,
    readonly line: number,
  ) {
    super(
      `WARNING: the host ${host} presented the key ${fingerprint}, which line ${line} of ${knownHostsFile} marks as REVOKED. ` +
        'Connection refused; nothing was sent to the host.',
    );
  }
}

/** A file transfer did not finish within its time limit; the transfer was stopped. */
export class TransferTimeoutError extends RemoteError {
  override name = 'TransferTimeoutError';
  constructor(label: string, ms: number) {
    super(`A file transfer to ${label} did not finish within ${Math.round(ms / 1000)} s and was stopped.`, {
      transient: true,
    });
  }
}

/**
 * A refused or unknown host key, or a cancel: another channel to the same node (a HostProcess pod)
 * must not be offered then, or a possible attack would be worked around. By name, since errors cross
 * from the engine bundle, where `instanceof` does not hold.
 */
export function isHostKeyRefusalOrCancel(err: unknown): boolean {
  const name = err instanceof Error ? err.name : '';
  return ['HostKeyChangedError', 'HostKeyRevokedError', 'HostKeyUnknownError', 'AbortError'].includes(name);
}
