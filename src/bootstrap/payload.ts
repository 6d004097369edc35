// The files a kubeadm join installs on the host (containerd release archive, kubelet.exe,
// kubeadm.exe), from a local folder (uploaded over SFTP) or from URLs with SHA-256 checksums
// (downloaded by the host). Resolved and hashed before the plan runs, so the dry-run shows them.

import { promises as fsp } from 'node:fs';
import { basename, join } from 'node:path';
import { sha256OfSource } from '../remote/upload';
import { UserError } from '../core/user-error';

export type PayloadSource =
  | { kind: 'file'; name: string; path: string; sha256: string; bytes: number }
  | { kind: 'url'; name: string; url: string; sha256: string };

export interface Payload {
  containerd: PayloadSource;
  kubelet: PayloadSource;
  kubeadm: PayloadSource;
}

export interface PayloadSettings {
  /** A folder holding containerd-<version>-windows-amd64.tar.gz, kubelet.exe and kubeadm.exe. */
  folder?: string;
  /** Per file: an https URL and its SHA-256 (used for the files the folder does not have). */
  urls?: Partial<Record<keyof Payload, { url: string; sha256: string }>>;
}

const CONTAINERD_ARCHIVE = /^containerd-\d+\.\d+\.\d+.*windows-amd64\.tar\.gz$/;

class PayloadError extends UserError {
  override name = 'PayloadError';
}

export async function resolvePayload(settings: PayloadSettings): Promise<Payload> {
  const found: Partial<Payload> = {};
  if (settings.folder) {
    let names: string[];
    try {
      names = await fsp.readdir(settings.folder);
    } catch (err) {
      throw new PayloadError(
        `Cannot read the payload folder ${settings.folder}: ${(err as NodeJS.ErrnoException).code ?? 'error'}.`,
      );
    }
    const archives = names.filter((n) => CONTAINERD_ARCHIVE.test(n)).sort();
    const pick: Record<keyof Payload, string | undefined> = {
      containerd: archives.at(-1),
      kubelet: names.find((n) => n.toLowerCase() === 'kubelet.exe'),
      kubeadm: names.find((n) => n.toLowerCase() === 'kubeadm.exe'),
    };
    for (const key of Object.keys(pick) as (keyof Payload)[]) {
      const name = pick[key];
      if (!name) continue;
      const path = join(settings.folder, name);
      const { sha256, bytes } = await sha256OfSource({ path });
      found[key] = { kind: 'file', name, path, sha256, bytes };
    }
  }
  for (const [key, entry] of Object.entries(settings.urls ?? {}) as [
    keyof Payload,
    { url: string; sha256: string },
  ][]) {
    if (found[key] || !entry) continue;
    let url: URL;
    try {
      url = new URL(entry.url);
    } catch {
      throw new PayloadError(`The ${key} URL is not a valid URL.`);
    }
    if (url.protocol !== 'https:') throw new PayloadError(`The ${key} URL must use https (got ${url.protocol}).`);
    if (!/^[0-9a-fA-F]{64}$/.test(entry.sha256 ?? ''))
      throw new PayloadError(`The ${key} URL needs its SHA-256 (64 hex digits) so the host can check the download.`);
    found[key] = { kind: 'url', name: basename(url.pathname), url: url.href, sha256: entry.sha256.toLowerCase() };
  }
  const missing = (['containerd', 'kubelet', 'kubeadm'] as const).filter((k) => !found[k]);
  if (missing.length > 0) {
    throw new PayloadError(
      `The kubeadm join needs ${missing.join(', ')}: put containerd-<version>-windows-amd64.tar.gz, kubelet.exe and kubeadm.exe in the payload folder (setting kubeWindows.join.payloadFolder, CLI --payload), or give https URLs with SHA-256 checksums.`,
    );
  }
  return found as Payload;
}
