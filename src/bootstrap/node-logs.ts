// Collects the logs of a Windows node into a local timestamped folder: the files under C:\var\log
// and C:\k\log (kubelet, containerd, kube-proxy, hybrid-overlay, WICD, csi-proxy, windows_exporter)
// over SFTP, the state of the node services and the recent System event log errors. The size cap is
// checked on the host's listing BEFORE anything is downloaded; what does not fit is named.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { listLogFiles, NODE_LOG_DIRS, systemEventErrors, type LogFileEntry } from '../core/windows/node-ops';
import type { WindowsHost } from '../remote/windows-host';
import { nodeServices, servicesTable } from './node-services';

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

const mb = (n: number): string => (n < 1048576 ? `${Math.ceil(n / 1024)} KB` : `${(n / 1048576).toFixed(n < 10 * 1048576 ? 1 : 0)} MB`);

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
export function planDownloads(files: readonly LogFileEntry[], maxBytes: number): { take: LogFileEntry[]; skip: LogFileEntry[] } {
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

export async function collectNodeLogs(o: CollectLogsOptions): Promise<CollectLogsResult> {
  const cap = o.maxBytes ?? DEFAULT_LOG_CAP_BYTES;
  const report = o.onProgress ?? (() => undefined);
  const folder = join(o.dir, `${o.nodeName.replace(/[^A-Za-z0-9._-]/g, '_')}-${stamp(o.now ?? new Date())}`);
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
    events.map((e) => `${e.time}  ${e.provider}  id ${e.id}\n  ${e.message.replace(/\r?\n/g, '\n  ')}\n`).join('\n') || 'No error in the System event log.\n',
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
      const r = await o.host.get(f.path, local, o.signal, (got) => report(`${f.path}`, total ? (done + got) / total : undefined));
      files.push({ remote: f.path, local, bytes: r.bytes });
      done += f.size;
    } catch (err) {
      if (o.signal?.aborted) throw err;
      // One unreadable file (locked, removed by rotation) must not lose the others.
      skipped.push({ remote: f.path, size: f.size, reason: `could not be read: ${(err as Error).message}` });
    }
  }
  const totalBytes = files.reduce((n, f) => n + f.bytes, 0);
  let message = `Collected ${files.length} log file(s) (${mb(totalBytes)}), the service states and ${events.length} System event log error(s) into ${folder}.`;
  if (skipped.length > 0) {
    const over = skipped.filter((s) => s.reason.startsWith('over'));
    const other = skipped.filter((s) => !s.reason.startsWith('over'));
    if (over.length > 0)
      message += ` Skipped ${over.length} file(s) (${mb(over.reduce((n, s) => n + s.size, 0))}) that did not fit under the ${mb(cap)} cap (raise it to get them): ${over.map((s) => `${s.remote} (${mb(s.size)})`).join(', ')}.`;
    if (other.length > 0) message += ` Not collected: ${other.map((s) => `${s.remote} (${s.reason})`).join(', ')}.`;
    writeFileSync(join(folder, 'SKIPPED.txt'), skipped.map((s) => `${s.remote}\t${s.size}\t${s.reason}`).join('\n') + '\n');
  }
  return { folder, files, skipped, totalBytes, message };
}
