// Atomic uploads: bytes go to a temporary sibling, the host checks their SHA-256 and moves them
// over the final name. A reader of the final path never sees a half-written file.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import type { HostConnection, PutOptions, UploadSource } from './types';

/** SHA-256 (lowercase hex) and size of an upload source; files are streamed, never read whole. */
export async function sha256OfSource(source: UploadSource): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  if ('data' in source) {
    hash.update(source.data);
    return { sha256: hash.digest('hex'), bytes: source.data.byteLength };
  }
  let bytes = 0;
  for await (const chunk of createReadStream(source.path, { highWaterMark: 1024 * 1024 })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/**
 * The path SFTP uses for a Windows path: Windows OpenSSH's SFTP server takes `/C:/dir/file`.
 * POSIX paths are returned as they are.
 */
export function sftpPathOf(path: string): string {
  const drive = /^([A-Za-z]):[\\/]/.exec(path);
  if (!drive) return path;
  return `/${drive[1]!.toUpperCase()}:/${path.slice(3).replace(/\\/g, '/')}`;
}

/** The temporary sibling an upload is written to before it is moved over `finalPath`. */
function tempSiblingOf(finalPath: string): string {
  return `${finalPath}.kw-${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Checks on the host that tempPath has the given SHA-256 and moves it over the final path; throws
 * when the hash differs or the move fails. Windows: a PowerShell op (Get-FileHash + Move-Item).
 */
export type UploadCommit = (tempPath: string, sha256: string, signal?: AbortSignal) => Promise<void>;

export interface AtomicUploadOptions extends PutOptions {
  /** Known SHA-256 of the source (lowercase hex), to skip hashing it again. */
  sha256?: string;
}

const CLEANUP_TIMEOUT_MS = 5000;

/**
 * Uploads source to `<final>.kw-<random>.tmp` and commits it over finalPath. On failure the
 * temporary file is removed when the connection still allows it (best effort: a dropped
 * connection leaves it, under a name no reader uses).
 */
export async function uploadAtomically(
  conn: HostConnection,
  source: UploadSource,
  finalPath: string,
  commit: UploadCommit,
  options: AtomicUploadOptions = {},
): Promise<{ sha256: string; bytes: number; tempPath: string }> {
  const { sha256: known, ...put } = options;
  const { sha256, bytes } = known
    ? { sha256: known, bytes: 'data' in source ? source.data.byteLength : (await fsp.stat(source.path)).size }
    : await sha256OfSource(source);
  const tempPath = tempSiblingOf(finalPath);
  try {
    await conn.sftpPut(source, sftpPathOf(tempPath), put);
    await commit(tempPath, sha256, options.signal);
  } catch (err) {
    if (conn.connected) await removeQuietly(conn, sftpPathOf(tempPath));
    throw err;
  }
  return { sha256, bytes, tempPath };
}

async function removeQuietly(conn: HostConnection, remotePath: string): Promise<void> {
  // Not tied to the caller's signal: cleanup after a cancel is still wanted, but only briefly.
  const signal = AbortSignal.timeout(CLEANUP_TIMEOUT_MS);
  try {
    await conn.sftpRemove(remotePath, { signal });
  } catch {
    // best effort: the temp name is never read by anyone
  }
}
