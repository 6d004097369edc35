// The in-memory Windows machine behind the simulated host: registry facts, services, an NTFS-like
// file system (case-insensitive, case-preserving), DNS, firewall rules and a log of the ops run.
// A test double: never import from src/.
import { createHash } from 'node:crypto';
import type { PsLiteral } from './script';

export interface SimService {
  /** Get-Service Status / Win32_Service State: 'Running', 'Stopped', ... */
  status: string;
  /** Win32_Service StartMode: 'Auto', 'Manual', 'Disabled'. */
  startType: string;
  binaryPathName: string;
  dependsOn: string[];
  description: string;
  displayName?: string;
}

export interface SimFile {
  data: Buffer;
}

export interface SimOpRecord {
  name: string;
  /** Parameters as the script carried them (secrets included: this is the host's view). */
  params: Record<string, PsLiteral>;
  user: string;
  at: Date;
  /** Set when an injected fault hit this op. */
  fault?: 'fail' | 'hang' | 'blackhole';
}

export interface SimHostState {
  hostname: string;
  /** Primary DNS suffix ('' when the host is in no domain). */
  domain: string;
  build: number;
  ubr: number;
  productName: string;
  /** Containers optional feature: 'Disabled', 'Enabled', 'EnablePending', ... */
  containersFeature: string;
  rebootPending: boolean;
  isAdministrator: boolean;
  adapters: { name: string; ipv4: string[] }[];
  defaultRouteIPv4: string;
  /** Service name (as created) → service; names compare case-insensitively, as the SCM does. */
  services: Map<string, SimService>;
  /** Name → IPv4 addresses, for resolve-name (names compare case-insensitively). */
  dns: Map<string, string[]>;
  /** Lower-cased normalised path → file (and its path as created, for listings). */
  files: Map<string, SimFile & { path: string }>;
  /** Lower-cased normalised path → directory path as created. */
  directories: Map<string, string>;
  firewallRules: Map<string, { port: number }>;
  /** URL → body, for download-file. */
  urls: Map<string, Buffer>;
  bootCount: number;
  /** When the last restart finished (ms since the epoch): the host's LastBootUpTime from then on. */
  bootedAt?: number;
  opLog: SimOpRecord[];
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/**
 * A Windows path in one canonical form: backslashes, no repeated or trailing separators, upper-case
 * drive letter. Accepts the SFTP forms of Windows OpenSSH (`/C:/k/x.exe`) and forward slashes.
 */
export function normalisePath(p: string): string {
  let s = p.replace(/\//g, '\\');
  if (/^\\[A-Za-z]:/.test(s)) s = s.slice(1);
  s = s.replace(/\\{2,}/g, '\\');
  if (/^[A-Za-z]:$/.test(s)) s += '\\';
  if (s.length > 3 && s.endsWith('\\')) s = s.slice(0, -1);
  if (/^[a-z]:/.test(s)) s = s[0]!.toUpperCase() + s.slice(1);
  return s;
}

const key = (p: string): string => normalisePath(p).toLowerCase();

export function parentOf(p: string): string | undefined {
  const n = normalisePath(p);
  if (/^[A-Z]:\\$/.test(n)) return undefined;
  const i = n.lastIndexOf('\\');
  if (i < 0) return undefined;
  return i === 2 ? n.slice(0, 3) : n.slice(0, i);
}

export const leafOf = (p: string): string => {
  const n = normalisePath(p);
  return n.slice(n.lastIndexOf('\\') + 1);
};

export function joinPath(dir: string, leaf: string): string {
  const d = normalisePath(dir);
  return normalisePath(d.endsWith('\\') ? d + leaf : `${d}\\${leaf}`);
}

/** File-system operations with the failures Windows gives, as thrown PowerShell-like messages. */
export class SimFs {
  constructor(private readonly state: SimHostState) {}

  isFile(p: string): boolean {
    return this.state.files.has(key(p));
  }

  isDir(p: string): boolean {
    return this.state.directories.has(key(p));
  }

  exists(p: string): boolean {
    return this.isFile(p) || this.isDir(p);
  }

  read(p: string): Buffer {
    const f = this.state.files.get(key(p));
    if (!f) throw new Error(`Cannot find path '${normalisePath(p)}' because it does not exist.`);
    return f.data;
  }

  /** Writes a file; the parent directory must exist, as for any Windows API. */
  write(p: string, data: Buffer): void {
    const parent = parentOf(p);
    if (parent === undefined || !this.isDir(parent))
      throw new Error(`Could not find a part of the path '${normalisePath(p)}'.`);
    if (this.isDir(p)) throw new Error(`Access to the path '${normalisePath(p)}' is denied.`);
    const existing = this.state.files.get(key(p));
    this.state.files.set(key(p), { path: existing?.path ?? normalisePath(p), data });
  }

  /** New-Item -ItemType Directory -Force: creates missing parents; fails on a file in the way. */
  mkdirp(p: string): boolean {
    const n = normalisePath(p);
    if (this.isDir(n)) return false;
    if (this.isFile(n)) throw new Error(`An item with the specified name ${n} already exists.`);
    const parent = parentOf(n);
    if (parent !== undefined) this.mkdirp(parent);
    this.state.directories.set(key(n), n);
    return true;
  }

  /** Remove-Item -Recurse -Force. */
  remove(p: string): boolean {
    const k = key(p);
    if (this.state.files.delete(k)) return true;
    if (!this.state.directories.has(k)) return false;
    const prefix = k.endsWith('\\') ? k : k + '\\';
    for (const f of [...this.state.files.keys()]) if (f.startsWith(prefix)) this.state.files.delete(f);
    for (const d of [...this.state.directories.keys()]) if (d.startsWith(prefix)) this.state.directories.delete(d);
    this.state.directories.delete(k);
    return true;
  }

  /** Move-Item -Force within a volume: replaces the destination file. */
  move(from: string, to: string): void {
    const f = this.state.files.get(key(from));
    if (!f) throw new Error(`Cannot find path '${normalisePath(from)}' because it does not exist.`);
    const parent = parentOf(to);
    if (parent === undefined || !this.isDir(parent))
      throw new Error(`Could not find a part of the path '${normalisePath(to)}'.`);
    if (this.isDir(to)) throw new Error(`Cannot create a file when that file already exists.`);
    this.state.files.delete(key(from));
    this.state.files.set(key(to), { path: normalisePath(to), data: f.data });
  }

  /** Names of the files and directories directly inside a directory. */
  children(dir: string): { name: string; path: string; directory: boolean }[] {
    const d = key(dir);
    const prefix = d.endsWith('\\') ? d : d + '\\';
    const out: { name: string; path: string; directory: boolean }[] = [];
    const direct = (k: string): boolean =>
      k.startsWith(prefix) && k.length > prefix.length && !k.slice(prefix.length).includes('\\');
    for (const [k, path] of this.state.directories)
      if (direct(k)) out.push({ name: leafOf(path), path, directory: true });
    for (const [k, f] of this.state.files)
      if (direct(k)) out.push({ name: leafOf(f.path), path: f.path, directory: false });
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }
}

export function findService(state: SimHostState, name: string): [string, SimService] | undefined {
  for (const [n, s] of state.services) if (n.toLowerCase() === name.toLowerCase()) return [n, s];
  return undefined;
}

export interface SimHostInit {
  hostname?: string;
  domain?: string;
  build?: number;
  ubr?: number;
  productName?: string;
  containersFeature?: string;
  rebootPending?: boolean;
  isAdministrator?: boolean;
  adapters?: { name: string; ipv4: string[] }[];
  defaultRouteIPv4?: string;
  services?: Record<string, Partial<SimService> & { status: string }>;
  dns?: Record<string, string[]>;
  /** Extra files: path → content. */
  files?: Record<string, string | Buffer>;
  directories?: string[];
  urls?: Record<string, string | Buffer>;
}

/** A Windows Server 2022 host with OpenSSH, no container runtime and the Containers feature off. */
export function createState(init: SimHostInit, users: string[]): SimHostState {
  const ip = init.defaultRouteIPv4 ?? init.adapters?.[0]?.ipv4[0] ?? '10.0.140.25';
  const state: SimHostState = {
    hostname: init.hostname ?? 'WIN-BYOH-01',
    domain: init.domain ?? '',
    build: init.build ?? 20348,
    ubr: init.ubr ?? 2849,
    productName: init.productName ?? 'Windows Server 2022 Datacenter',
    containersFeature: init.containersFeature ?? 'Disabled',
    rebootPending: init.rebootPending ?? false,
    isAdministrator: init.isAdministrator ?? true,
    adapters: init.adapters ?? [{ name: 'Ethernet0', ipv4: [ip] }],
    defaultRouteIPv4: ip,
    services: new Map(),
    dns: new Map(),
    files: new Map(),
    directories: new Map(),
    firewallRules: new Map(),
    urls: new Map(),
    bootCount: 0,
    opLog: [],
  };
  const defaults: Record<string, SimService> = {
    sshd: {
      status: 'Running',
      startType: 'Auto',
      binaryPathName: 'C:\\Windows\\System32\\OpenSSH\\sshd.exe',
      dependsOn: [],
      description:
        'SSH protocol based service to provide secure encrypted communications between two untrusted hosts over unsecure networks.',
    },
    hns: {
      status: 'Running',
      startType: 'Manual',
      binaryPathName: 'C:\\Windows\\system32\\svchost.exe -k NetSvcs -p',
      dependsOn: [],
      description: 'Host Network Service',
    },
  };
  for (const [n, s] of Object.entries(defaults)) state.services.set(n, s);
  for (const [n, s] of Object.entries(init.services ?? {})) {
    state.services.set(n, {
      startType: 'Auto',
      binaryPathName: `C:\\Program Files\\${n}\\${n}.exe`,
      dependsOn: [],
      description: '',
      ...s,
    });
  }
  for (const [n, a] of Object.entries(init.dns ?? {})) state.dns.set(n.toLowerCase(), a);
  const fs = new SimFs(state);
  for (const d of [
    'C:\\',
    'C:\\Windows\\System32\\OpenSSH',
    'C:\\ProgramData\\ssh',
    'C:\\Program Files',
    'C:\\Temp',
    ...users.map((u) => `C:\\Users\\${u}\\.ssh`),
    ...(init.directories ?? []),
  ])
    fs.mkdirp(d);
  fs.write('C:\\Windows\\System32\\OpenSSH\\sshd.exe', Buffer.from('MZ sshd'));
  for (const [p, c] of Object.entries(init.files ?? {})) {
    const parent = parentOf(p);
    if (parent) fs.mkdirp(parent);
    fs.write(p, Buffer.isBuffer(c) ? c : Buffer.from(c));
  }
  for (const [u, c] of Object.entries(init.urls ?? {})) state.urls.set(u, Buffer.isBuffer(c) ? c : Buffer.from(c));
  return state;
}
