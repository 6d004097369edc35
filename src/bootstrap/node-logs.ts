// Collects the logs of a Windows node into a local timestamped folder: the files under C:\var\log
// and C:\k\log (kubelet, containerd, kube-proxy, hybrid-overlay, WICD, csi-proxy, windows_exporter)
// over SFTP, the state of the node services and the recent System event log errors. The size cap is
// checked on the host's listing BEFORE anything is downloaded; what does not fit is named.

import { createWriteStream, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { KubeClient } from '../cluster/kube-client';
import { listNodeLogFolder, openNodeLogFile } from '../cluster/node-logs';
import { listLogFiles, NODE_LOG_DIRS, systemEventErrors, type LogFileEntry } from '../core/windows/node-ops';
import type { WindowsHost } from '../remote/windows-host';
import { nodeServices, servicesTable } from './node-services';
import { counted } from '../core/plural';

export const DEFAULT_LOG_CAP_BYTES = 200 * 1024 * 1024;

export interface CollectLogsOptions {
  host: WindowsHost;
  nodeName: string;
  /** Local folder under which `<node>-<yyyymmdd-hhmmss>/` is created. */
  dir: string;
  /** Total bytes of log files to download (default 200 MB); larger files are skipped first. */
  maxBytes?: number;
  /** System event log errors to read (default 200). */
  maxEvents?: number;
  signal?: AbortSignal;
  onProgress?: (message: string, fraction?: number) => void;
  /** For the folder name (default: now, local time). */
  now?: Date;
}

export interface CollectedFile {
  remote: string;
  local: string;
  bytes: number;
}

export interface SkippedFile {
  remote: string;
  size: number;
  reason: string;
}

export interface CollectLogsResult {
  folder: string;
  files: CollectedFile[];
  skipped: SkippedFile[];
  totalBytes: number;
  /** What was collected and, when something was skipped, what and why. */
  message: string;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** yyyymmdd-hhmmss in local time. */
export function stamp(d: Date): string {
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
}

const mb = (n: number): string =>
  n < 1048576 ? `${Math.ceil(n / 1024)} KB` : `${(n / 1048576).toFixed(n < 10 * 1048576 ? 1 : 0)} MB`;

/**
 * Where a host file goes in the folder: `C:\var\log\kubelet\kubelet.log` -> `var/log/kubelet/kubelet.log`.
 * The path comes from the host, so it is confined to the folder (no `..`, no absolute part).
 */
export function localPathFor(folder: string, remote: string): string | undefined {
  const parts = remote
    .replace(/^[A-Za-z]:/, '')
    .split(/[\\/]+/)
    .filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.some((p) => p === '..')) return undefined;
  const safe = parts.map((p) => p.replace(/[<>:"|?*\x00-\x1f]/g, '_'));
  const out = resolve(folder, ...safe);
  return out.startsWith(resolve(folder) + sep) ? out : undefined;
}

/** Splits a listing into what fits under the cap (smallest first, so the most files fit) and what does not. */
export function planDownloads(
  files: readonly LogFileEntry[],
  maxBytes: number,
): { take: LogFileEntry[]; skip: LogFileEntry[] } {
  const sorted = [...files].sort((a, b) => a.size - b.size || a.path.localeCompare(b.path));
  const take: LogFileEntry[] = [];
  const skip: LogFileEntry[] = [];
  let used = 0;
  for (const f of sorted) {
    if (used + f.size <= maxBytes) {
      take.push(f);
      used += f.size;
    } else skip.push(f);
  }
  return { take, skip };
}

/** The local folder of one collection: DIR/<node>-<yyyymmdd-hhmmss>. */
function collectionFolder(dir: string, nodeName: string, now: Date | undefined): string {
  return join(dir, `${nodeName.replace(/[^A-Za-z0-9._-]/g, '_')}-${stamp(now ?? new Date())}`);
}

/** What was collected and, when something was skipped, what and why (also written to SKIPPED.txt). */
function collectionMessage(
  folder: string,
  files: CollectedFile[],
  skipped: SkippedFile[],
  cap: number,
  extra: string,
): string {
  const totalBytes = files.reduce((n, f) => n + f.bytes, 0);
  let message = `Collected ${counted(files.length, 'log file')} (${mb(totalBytes)})${extra} into ${folder}.`;
  if (skipped.length > 0) {
    const over = skipped.filter((s) => s.reason.startsWith('over'));
    const other = skipped.filter((s) => !s.reason.startsWith('over'));
    if (over.length > 0)
      message += ` Skipped ${counted(over.length, 'file')} (${mb(over.reduce((n, s) => n + s.size, 0))}) that did not fit under the ${mb(cap)} cap (raise it to get them): ${over.map((s) => `${s.remote} (${mb(s.size)})`).join(', ')}.`;
    if (other.length > 0) message += ` Not collected: ${other.map((s) => `${s.remote} (${s.reason})`).join(', ')}.`;
    writeFileSync(
      join(folder, 'SKIPPED.txt'),
      skipped.map((s) => `${s.remote}\t${s.size}\t${s.reason}`).join('\n') + '\n',
    );
  }
  return message;
}

export async function collectNodeLogs(o: CollectLogsOptions): Promise<CollectLogsResult> {
  const cap = o.maxBytes ?? DEFAULT_LOG_CAP_BYTES;
  const report = o.onProgress ?? (() => undefined);
  const folder = collectionFolder(o.dir, o.nodeName, o.now);
  mkdirSync(folder, { recursive: true });

  report('listing the log files');
  const { files: listing } = await o.host.run(listLogFiles(NODE_LOG_DIRS), o.signal);
  const { take, skip } = planDownloads(listing, cap);
  const skipped: SkippedFile[] = skip.map((f) => ({ remote: f.path, size: f.size, reason: `over the ${mb(cap)} cap` }));
  const total = take.reduce((n, f) => n + f.size, 0);

  report('reading the node services');
  const services = await nodeServices(o.host, o.signal);
  writeFileSync(join(folder, 'services.txt'), servicesTable(services));
  report('reading the System event log errors');
  const { events } = await o.host.run(systemEventErrors(o.maxEvents ?? 200), o.signal);
  writeFileSync(
    join(folder, 'system-errors.txt'),
    events.map((e) => `${e.time}  ${e.provider}  id ${e.id}\n  ${e.message.replace(/\r?\n/g, '\n  ')}\n`).join('\n') ||
      'No error in the System event log.\n',
  );

  const files: CollectedFile[] = [];
  let done = 0;
  for (const f of take) {
    o.signal?.throwIfAborted();
    const local = localPathFor(folder, f.path);
    if (!local) {
      skipped.push({ remote: f.path, size: f.size, reason: 'its path cannot be stored safely' });
      continue;
    }
    mkdirSync(join(local, '..'), { recursive: true });
    try {
      const r = await o.host.get(f.path, local, o.signal, (got) =>
        report(`${f.path}`, total ? (done + got) / total : undefined),
      );
      files.push({ remote: f.path, local, bytes: r.bytes });
      done += f.size;
    } catch (err) {
      if (o.signal?.aborted) throw err;
      // One unreadable file (locked, removed by rotation) must not lose the others.
      skipped.push({ remote: f.path, size: f.size, reason: `could not be read: ${(err as Error).message}` });
    }
  }
  const totalBytes = files.reduce((n, f) => n + f.bytes, 0);
  const message = collectionMessage(
    folder,
    files,
    skipped,
    cap,
    `, the service states and ${counted(events.length, 'System event log error')}`,
  );
  return { folder, files, skipped, totalBytes, message };
}

// ---------------------------------------------------------------------------------------------
// The same folder over the API: the kubelet's log folder through the node proxy, no SSH

export interface CollectApiLogsOptions {
  kube: KubeClient;
  nodeName: string;
  dir: string;
  /** Total bytes of log files to download (default 200 MB); a file that does not fit is skipped. */
  maxBytes?: number;
  signal?: AbortSignal;
  onProgress?: (message: string, fraction?: number) => void;
  now?: Date;
  /** How deep into sub-folders (default 4) and how many entries in all (default 2000). */
  maxDepth?: number;
  maxEntries?: number;
}

/**
 * Collects the files of the node's log folder as the kubelet serves it (`/logs/`, the folder
 * listing, then each file), keeping the folder's shape. Names come from the node, so each is
 * confined to the folder (localPathFor); every file is written to a temporary name and renamed
 * when complete; a file whose size (or what arrived of it) passes the cap is skipped and named.
 * The first listing failing is thrown as NodeLogRefusedError (the caller may fall back to SSH).
 */
export async function collectNodeLogsOverApi(o: CollectApiLogsOptions): Promise<CollectLogsResult> {
  const cap = o.maxBytes ?? DEFAULT_LOG_CAP_BYTES;
  const report = o.onProgress ?? (() => undefined);
  const maxDepth = o.maxDepth ?? 4;
  let budget = o.maxEntries ?? 2000;
  report('listing the log folder through the API (node proxy)');
  const top = await listNodeLogFolder(o.kube, o.nodeName, '', o.signal);
  const folder = collectionFolder(o.dir, o.nodeName, o.now);
  mkdirSync(folder, { recursive: true });
  const files: CollectedFile[] = [];
  const skipped: SkippedFile[] = [];
  let used = 0;

  const walk = async (prefix: string, names: string[], depth: number): Promise<void> => {
    for (const name of names) {
      o.signal?.throwIfAborted();
      if (budget-- <= 0) {
        skipped.push({ remote: prefix + name, size: 0, reason: 'the folder has more entries than are collected' });
        return;
      }
      const remote = prefix + name;
      if (name.endsWith('/')) {
        if (depth >= maxDepth) skipped.push({ remote, size: 0, reason: 'too deep' });
        else {
          try {
            await walk(remote, await listNodeLogFolder(o.kube, o.nodeName, remote, o.signal), depth + 1);
          } catch (err) {
            if (o.signal?.aborted) throw err;
            skipped.push({ remote, size: 0, reason: `could not be listed: ${(err as Error).message}` });
          }
        }
        continue;
      }
      const local = localPathFor(folder, remote);
      if (!local) {
        skipped.push({ remote, size: 0, reason: 'its path cannot be stored safely' });
        continue;
      }
      report(remote);
      try {
        const bytes = await download(o, remote, local, cap - used);
        if (typeof bytes === 'number') {
          files.push({ remote, local, bytes });
          used += bytes;
        } else skipped.push({ remote, size: bytes.over, reason: `over the ${mb(cap)} cap` });
      } catch (err) {
        if (o.signal?.aborted) throw err;
        skipped.push({ remote, size: 0, reason: `could not be read: ${(err as Error).message}` });
      }
    }
  };
  await walk('', top, 0);
  const totalBytes = files.reduce((n, f) => n + f.bytes, 0);
  const message = collectionMessage(folder, files, skipped, cap, ' through the API (node proxy, no SSH)');
  return { folder, files, skipped, totalBytes, message };
}

/** One file to `local` (through a temporary name); `{ over }` when it does not fit in `room` bytes. */
async function download(
  o: CollectApiLogsOptions,
  remote: string,
  local: string,
  room: number,
): Promise<number | { over: number }> {
  const { size, body } = await openNodeLogFile(o.kube, o.nodeName, remote, o.signal);
  if (size !== undefined && size > room) {
    body.destroy();
    return { over: size };
  }
  mkdirSync(join(local, '..'), { recursive: true });
  const tmp = `${local}.part`;
  const outStream = createWriteStream(tmp);
  let got = 0;
  try {
    for await (const chunk of body) {
      got += (chunk as Buffer).length;
      if (got > room) {
        body.destroy();
        break;
      }
      if (!outStream.write(chunk)) await new Promise<void>((r) => outStream.once('drain', () => r()));
    }
    await new Promise<void>((res, rej) => outStream.end((err?: Error | null) => (err ? rej(err) : res())));
  } catch (err) {
    outStream.destroy();
    rmSync(tmp, { force: true });
    throw err;
  }
  if (got > room) {
    rmSync(tmp, { force: true });
    return { over: got };
  }
  renameSync(tmp, local);
  return got;
}
