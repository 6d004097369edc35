// Streaming SFTP upload with several WRITE requests in flight (the round trip, not the bandwidth,
// limits a one-at-a-time writer) and a bounded window, so memory stays flat for any file size.
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { SFTPWrapper } from 'ssh2';
import { RemoteError, TransferTimeoutError, type ConnectionLostError, type PutOptions, type UploadSource } from './types';

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

export class SftpUploader {
  constructor(
    private readonly conn: LossWatcher,
    private readonly sftp: SFTPWrapper,
    private readonly label: string,
  ) {}

  async put(source: UploadSource, remotePath: string, options: PutOptions): Promise<void> {
    const { signal, onProgress, timeoutMs } = options;
    let stopError: unknown;
    let wake: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (wake = resolve));
    const stop = (err: unknown): void => {
      if (stopError !== undefined) return;
      stopError = err;
      wake();
    };
    const onAbort = (): void => stop(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const unwatch = this.conn.watch((err) => stop(err));
    const timer = timeoutMs !== undefined ? setTimeout(() => stop(new TransferTimeoutError(this.label, timeoutMs)), timeoutMs) : undefined;
    let local: FileHandle | undefined;
    let handle: Buffer | undefined;
    try {
      if ('path' in source) local = await fsp.open(source.path, 'r');
      if (signal?.aborted) stop(signal.reason);
      const total = local ? (await local.stat()).size : (source as { data: Uint8Array }).data.byteLength;
      const data = 'data' in source ? Buffer.from(source.data.buffer, source.data.byteOffset, source.data.byteLength) : undefined;
      handle = await this.call<Buffer>(
        stopped,
        () => stopError,
        (cb) => this.sftp.open(remotePath, 'w', cb),
        remotePath,
      );
      let offset = 0;
      let sent = 0;
      const pending = new Set<Promise<void>>();
      const fileHandle = handle;
      while (offset < total && stopError === undefined) {
        const n = Math.min(CHUNK, total - offset);
        let chunk: Buffer;
        if (local) {
          chunk = Buffer.allocUnsafe(n);
          const { bytesRead } = await local.read(chunk, 0, n, offset);
          if (bytesRead !== n) throw new RemoteError(`The local file ${'path' in source ? source.path : ''} changed size during the upload.`);
        } else chunk = data!.subarray(offset, offset + n);
        const at = offset;
        const p: Promise<void> = new Promise<void>((resolve) => {
          this.sftp.write(fileHandle, chunk, 0, n, at, (err) => {
            if (err) stop(new RemoteError(`Writing ${remotePath} on ${this.label} failed: ${err.message}`, { cause: err }));
            else {
              sent += n;
              onProgress?.(sent, total);
            }
            resolve();
          });
        }).finally(() => pending.delete(p));
        pending.add(p);
        offset += n;
        if (pending.size >= WINDOW) await Promise.race([...pending, stopped]);
      }
      await Promise.race([Promise.all(pending), stopped]);
      if (stopError !== undefined) throw stopError;
      if (total === 0) onProgress?.(0, 0);
      const h = handle;
      handle = undefined;
      await this.call<void>(
        stopped,
        () => stopError,
        (cb) => this.sftp.close(h, cb),
        remotePath,
      );
    } catch (err) {
      throw stopError ?? err;
    } finally {
      clearTimeout(timer);
      unwatch();
      signal?.removeEventListener('abort', onAbort);
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

  /** One SFTP request, abandoned as soon as the upload is stopped. */
  private call<T>(stopped: Promise<void>, stopError: () => unknown, start: (cb: (err: Error | null | undefined, value: T) => void) => void, remotePath: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      void stopped.then(() => reject(stopError()));
      start((err, value) => {
        if (err) reject(new RemoteError(`SFTP on ${this.label} failed for ${remotePath}: ${err.message}`, { cause: err }));
        else resolve(value);
      });
    });
  }
}
