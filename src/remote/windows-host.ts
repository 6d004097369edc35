// A Windows host as the bootstrap engine sees it: runs the PowerShell ops of
// src/core/windows/host-ops.ts and uploads files atomically, over any HostConnector (ssh2 in the
// product, the simulated host in tests). Reconnects and retries after a lost connection, for ops
// that are safe to repeat; every other failure is reported at once.

import { commitUpload, ensureDirectories, fileHash, type HostOp } from '../core/windows/host-ops';
import { powershellCommand } from '../core/windows/powershell';
import {
  isHostKeyRefusalOrCancel,
  RemoteCommandError,
  RemoteError,
  type HostConnection,
  type HostConnector,
  type UploadSource,
} from './types';
import { sftpPathOf, sha256OfSource, uploadAtomically } from './upload';
import { delay } from '../core/delay';

export interface WindowsHostOptions {
  /** Extra attempts after a lost connection (default 2). */
  retries?: number;
  /** First delay before a retry, doubled each time (default 1000 ms). */
  backoffMs?: number;
  /** Debug lines (op names, timings); never carries parameter values. */
  onLog?: (line: string) => void;
}

export interface PutResult {
  sha256: string;
  /** false when the file already had this content and nothing was sent. */
  changed: boolean;
  bytes: number;
}

export class WindowsHost {
  private connection: HostConnection | undefined;
  private connecting: Promise<HostConnection> | undefined;
  private readonly retries: number;
  private readonly backoffMs: number;
  /** The host stopped answering (HostSilentError) and no connection has succeeded since. */
  private silent = false;

  constructor(
    readonly connector: HostConnector,
    private readonly options: WindowsHostOptions = {},
  ) {
    this.retries = options.retries ?? 2;
    this.backoffMs = options.backoffMs ?? 1000;
  }

  get label(): string {
    return this.connector.label;
  }

  /** Runs one op and returns its parsed result; a non-zero exit becomes RemoteCommandError. */
  async run<R>(op: HostOp<R>, signal?: AbortSignal): Promise<R> {
    return this.withRetry(op.name, op.retryable, signal, async (conn) => {
      const started = Date.now();
      const result = await conn.exec(powershellCommand(op.script), { signal, timeoutMs: op.timeoutMs });
      this.options.onLog?.(
        `${op.name} on ${this.label}: exit ${String(result.exitCode)} in ${Date.now() - started} ms`,
      );
      if (result.exitCode !== 0) {
        const detail = scrub(firstLines(result.stderr || result.stdout), op.secrets);
        throw new RemoteCommandError(
          `${op.name} failed on ${this.label}: ${detail || `exit code ${String(result.exitCode)}`}`,
          result,
        );
      }
      try {
        return op.parse(result.stdout);
      } catch (err) {
        throw new RemoteError(`${op.name} on ${this.label}: ${(err as Error).message}`);
      }
    });
  }

  /**
   * Puts a file at `path` so that it is never half-written there: skipped when the file already
   * has the same SHA-256; otherwise written over SFTP to `<path>.kw-<random>.tmp` in the same
   * directory, checked with Get-FileHash on the host, and moved into place. A lost connection
   * restarts the upload on a new connection; leftovers of interrupted attempts are removed.
   */
  async put(
    source: UploadSource,
    path: string,
    signal?: AbortSignal,
    onProgress?: (sent: number, total: number) => void,
  ): Promise<PutResult> {
    const { sha256, bytes } = await sha256OfSource(source);
    const current = await this.run(fileHash(path), signal);
    if (current.exists && current.sha256 === sha256) return { sha256, changed: false, bytes };
    const dir = parentOf(path);
    if (dir) await this.run(ensureDirectories([dir]), signal);
    await this.withRetry('upload', true, signal, async (conn) => {
      // The commit runs on the same connection as the upload: its answer says whether the move happened.
      const commit = async (temp: string, hash: string, commitSignal?: AbortSignal) => {
        const result = await conn.exec(powershellCommand(commitUpload(temp, path, hash).script), {
          signal: commitSignal,
          timeoutMs: 120_000,
        });
        if (result.exitCode !== 0)
          throw new RemoteCommandError(`Could not put ${path} on ${this.label}: ${firstLines(result.stderr)}`, result);
      };
      await uploadAtomically(conn, source, path, commit, { sha256, signal, onProgress });
    });
    return { sha256, changed: true, bytes };
  }

  /**
   * Copies a file of the host to localPath over SFTP (to a temporary sibling, renamed when complete);
   * a lost connection restarts the download on a new connection.
   */
  async get(
    path: string,
    localPath: string,
    signal?: AbortSignal,
    onProgress?: (received: number, total: number) => void,
  ): Promise<{ bytes: number }> {
    return this.withRetry('download', true, signal, (conn) =>
      conn.sftpGet(sftpPathOf(path), localPath, {
        ...(signal ? { signal } : {}),
        ...(onProgress ? { onProgress } : {}),
      }),
    );
  }

  /**
   * After a restart was scheduled: waits until the host has gone down (the open connection drops
   * or new connections fail) and come back (a connection succeeds again), within timeoutMs.
   */
  async waitForRestart(signal: AbortSignal | undefined, timeoutMs: number, pollMs = 2000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const conn = this.connection;
    // Phase 1: the host goes down. Our connection is the witness: it drops when sshd stops.
    while (conn?.connected && Date.now() < deadline) await delay(Math.min(pollMs, 250), signal);
    this.drop();
    // Phase 2: the host comes back and accepts a connection.
    let lastError: unknown;
    while (Date.now() < deadline) {
      signal?.throwIfAborted();
      try {
        await this.connect(signal);
        return;
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        // A host that came back with another key (or a refused one) is not waited for: the user must act.
        if (isHostKeyRefusalOrCancel(err)) throw err;
        lastError = err;
        await delay(pollMs, signal);
      }
    }
    const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
    throw new RemoteError(
      `${this.label} did not come back within ${Math.round(timeoutMs / 1000)} s after the restart${why}.`,
    );
  }

  close(): void {
    this.drop();
  }

  private async withRetry<T>(
    what: string,
    retryable: boolean,
    signal: AbortSignal | undefined,
    fn: (conn: HostConnection) => Promise<T>,
  ): Promise<T> {
    let wait = this.backoffMs;
    // The host stopped answering keepalives: a reconnect that gets no answer either means it is gone, not flaky.
    // Known silent already (a clean-up after the op that found it): one unanswered connect says so, no retries.
    let silent = this.silent;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      try {
        const conn = await this.connect(signal);
        return await fn(conn);
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        if (silent && err instanceof RemoteError && err.name === 'ConnectTimeoutError') {
          this.silent = true;
          throw new HostSilentError(this.label, err.message, { cause: err });
        }
        silent ||= isKeepaliveLoss(err);
        const transient = err instanceof RemoteError && err.transient;
        if (transient) this.drop();
        if (!transient || !retryable || attempt >= this.retries) throw err;
        this.options.onLog?.(`${what} on ${this.label}: ${(err as Error).message}; retrying in ${wait} ms`);
        await delay(wait, signal);
        wait *= 2;
      }
    }
  }

  private async connect(signal?: AbortSignal): Promise<HostConnection> {
    if (this.connection?.connected) return this.connection;
    this.drop();
    this.connecting ??= this.connector.connect(signal).finally(() => {
      this.connecting = undefined;
    });
    this.connection = await this.connecting;
    this.silent = false;
    return this.connection;
  }

  private drop(): void {
    this.connection?.close();
    this.connection = undefined;
  }
}

/** A connection lost because the host stopped answering SSH keepalives (not reset, not closed). */
function isKeepaliveLoss(err: unknown): boolean {
  return err instanceof Error && err.name === 'ConnectionLostError' && /keepalives/.test(err.message);
}

/** The host stopped answering in the middle of an operation and does not take a new connection either. */
class HostSilentError extends RemoteError {
  override name = 'HostSilentError';
  constructor(label: string, connectError: string, options?: ErrorOptions) {
    super(
      `${label} stopped answering: no reply to SSH keepalives on the open connection, and a new one got none either (${connectError.replace(/\.$/, '')}). The host is down or the network to it drops packets.`,
      options,
    );
  }
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('\\');
  return i > 2 ? path.slice(0, i) : '';
}

function firstLines(text: string, max = 5): string {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, max)
    .join(' ');
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('•••');
  return out;
}
