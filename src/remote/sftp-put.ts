// Streaming SFTP upload with several WRITE requests in flight (the round trip, not the bandwidth,
// limits a one-at-a-time writer) and a bounded window, so memory stays flat for any file size.
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { SFTPWrapper } from 'ssh2';
import {
  RemoteError,
  TransferTimeoutError,
  type ConnectionLostError,
  type PutOptions,
  type UploadSource,
} from './types';

/**
 * Bytes per WRITE request. Below OpenSSH's 256 KiB limit; ssh2 splits a write into several
 * requests for servers with smaller limits. 128 KiB x 8 in flight measured fastest on loopback
 * (~150 MB/s vs ~70 MB/s for 32 KiB x 32) while buffering 1 MiB at most.
 */
const CHUNK = 128 * 1024;
/** WRITE requests in flight. */
const WINDOW = 8;

export interface LossWatcher {
  watch(onLost: (err: ConnectionLostError) => void): () => void;
}

/**
 * Ends an SFTP transfer (upload or download) at the first of: the signal aborting, the connection
 * being lost, the time limit passing. `stopped` resolves then and `error` says why; `call` makes one
 * SFTP request that is abandoned at that moment rather than waited for. `end()` when done.
 */
export class TransferStop {
  error: unknown;
  readonly stopped: Promise<void>;
  private wake: () => void = () => undefined;
  private readonly release: () => void;

  constructor(
    conn: LossWatcher,
    private readonly label: string,
    { signal, timeoutMs }: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined },
  ) {
    this.stopped = new Promise<void>((resolve) => (this.wake = resolve));
    const onAbort = (): void => this.stop(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const unwatch = conn.watch((err) => this.stop(err));
    const timer =
      timeoutMs !== undefined
        ? setTimeout(() => this.stop(new TransferTimeoutError(label, timeoutMs)), timeoutMs)
        : undefined;
    this.release = () => {
      clearTimeout(timer);
      unwatch();
      signal?.removeEventListener('abort', onAbort);
    };
  }

  stop(err: unknown): void {
    if (this.error !== undefined) return;
    this.error = err;
    this.wake();
  }

  /** One SFTP request, abandoned as soon as the transfer is stopped. */
  call<T>(remotePath: string, start: (cb: (err: Error | null | undefined, value: T) => void) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      void this.stopped.then(() => reject(this.error));
      start((err, value) => {
        if (err)
          reject(new RemoteError(`SFTP on ${this.label} failed for ${remotePath}: ${err.message}`, { cause: err }));
        else resolve(value);
      });
    });
  }

  end(): void {
    this.release();
  }
}

export class SftpUploader {
  constructor(
    private readonly conn: LossWatcher,
    private readonly sftp: SFTPWrapper,
    private readonly label: string,
  ) {}

  async put(source: UploadSource, remotePath: string, options: PutOptions): Promise<void> {
    const { signal, onProgress } = options;
    const t = new TransferStop(this.conn, this.label, options);
    let local: FileHandle | undefined;
    let handle: Buffer | undefined;
    try {
      if ('path' in source) local = await fsp.open(source.path, 'r');
      if (signal?.aborted) t.stop(signal.reason);
      const total = local ? (await local.stat()).size : (source as { data: Uint8Array }).data.byteLength;
      const data =
        'data' in source ? Buffer.from(source.data.buffer, source.data.byteOffset, source.data.byteLength) : undefined;
      handle = await t.call<Buffer>(remotePath, (cb) => this.sftp.open(remotePath, 'w', cb));
      let offset = 0;
      let sent = 0;
      const pending = new Set<Promise<void>>();
      const fileHandle = handle;
      while (offset < total && t.error === undefined) {
        const n = Math.min(CHUNK, total - offset);
        let chunk: Buffer;
        if (local) {
          chunk = Buffer.allocUnsafe(n);
          const { bytesRead } = await local.read(chunk, 0, n, offset);
          if (bytesRead !== n)
            throw new RemoteError(
              `The local file ${'path' in source ? source.path : ''} changed size during the upload.`,
            );
        } else chunk = data!.subarray(offset, offset + n);
        const at = offset;
        const p: Promise<void> = new Promise<void>((resolve) => {
          this.sftp.write(fileHandle, chunk, 0, n, at, (err) => {
            if (err)
              t.stop(new RemoteError(`Writing ${remotePath} on ${this.label} failed: ${err.message}`, { cause: err }));
            else {
              sent += n;
              onProgress?.(sent, total);
            }
            resolve();
          });
        }).finally(() => pending.delete(p));
        pending.add(p);
        offset += n;
        if (pending.size >= WINDOW) await Promise.race([...pending, t.stopped]);
      }
      await Promise.race([Promise.all(pending), t.stopped]);
      if (t.error !== undefined) throw t.error;
      if (total === 0) onProgress?.(0, 0);
      const h = handle;
      handle = undefined;
      await t.call<void>(remotePath, (cb) => this.sftp.close(h, cb));
    } catch (err) {
      throw t.error ?? err;
    } finally {
      t.end();
      await local?.close();
      // Stopped midway: release the remote handle so the server does not keep the file open.
      if (handle) {
        try {
          this.sftp.close(handle, () => undefined);
        } catch {
          // the channel is already gone, and the handle with it
        }
      }
    }
  }
}
