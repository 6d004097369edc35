// Streaming SFTP download to a local file: several READ requests in flight (the round trip limits a
// one-at-a-time reader), bytes written at their offsets to `<local>.kw-<random>.part`, renamed over
// the final name only when complete, so a cancelled or failed download never leaves a partial file.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { SFTPWrapper } from 'ssh2';
import { TransferStop, type LossWatcher } from './sftp-put';
import type { GetOptions } from './types';

const CHUNK = 64 * 1024;
const WINDOW = 8;

export async function sftpDownload(
  conn: LossWatcher,
  sftp: SFTPWrapper,
  label: string,
  remotePath: string,
  localPath: string,
  options: GetOptions = {},
): Promise<{ bytes: number }> {
  const { signal, onProgress } = options;
  const t = new TransferStop(conn, label, options);
  if (signal?.aborted) t.stop(signal.reason);
  const temp = `${localPath}.kw-${randomBytes(6).toString('hex')}.part`;
  let local: FileHandle | undefined;
  let handle: Buffer | undefined;
  const call = <T>(start: (cb: (err: Error | null | undefined, value: T) => void) => void): Promise<T> =>
    t.call(remotePath, start);
  try {
    handle = await call<Buffer>((cb) => sftp.open(remotePath, 'r', cb));
    const h = handle;
    const total = (await call<{ size?: number }>((cb) => sftp.fstat(h, cb))).size ?? 0;
    local = await fsp.open(temp, 'wx', 0o600);
    const file = local;
    let received = 0;
    // Reads one range completely (a server may answer a READ with fewer bytes than asked).
    const readRange = async (start: number, length: number): Promise<void> => {
      let at = start;
      const end = start + length;
      while (at < end && t.error === undefined) {
        const buf = Buffer.allocUnsafe(end - at);
        const n = await call<number>((cb) =>
          sftp.read(h, buf, 0, end - at, at, (err, bytesRead) => cb(err, bytesRead)),
        );
        if (n <= 0) break; // EOF: the file shrank while we read it (a rotated log); keep what we have
        await file.write(buf, 0, n, at);
        at += n;
        received += n;
        onProgress?.(received, total);
      }
    };
    const ranges: [number, number][] = [];
    for (let off = 0; off < total; off += CHUNK) ranges.push([off, Math.min(CHUNK, total - off)]);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ranges.length && t.error === undefined) {
        const [s, l] = ranges[next++] as [number, number];
        await readRange(s, l);
      }
    };
    await Promise.race([
      Promise.all(Array.from({ length: Math.min(WINDOW, Math.max(1, ranges.length)) }, worker)),
      t.stopped,
    ]);
    if (t.error !== undefined) throw t.error;
    handle = undefined;
    await call<void>((cb) => sftp.close(h, cb));
    await file.close();
    local = undefined;
    await fsp.rename(temp, localPath);
    return { bytes: received };
  } catch (err) {
    throw t.error ?? err;
  } finally {
    t.end();
    if (local) {
      await local.close().catch(() => undefined);
    }
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    if (handle) {
      try {
        sftp.close(handle, () => undefined);
      } catch {
        // the channel is already gone, and the handle with it
      }
    }
  }
}
