// OpenSSH known_hosts: parsing, lookup with OpenSSH's matching rules, SHA256 fingerprints, and an
// atomic append for trust-on-first-use. Only public data lives here (host names and public keys).
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { dirname, basename, join } from 'node:path';

export type KnownHostsLookup =
  | { status: 'match'; line: number }
  /** No line pins a key of this type. `knownTypes`: other key types pinned for the host, if any. */
  | { status: 'unknown'; knownTypes: string[] }
  /**
   * A line pins another key of the same type for this host: possible man-in-the-middle. `pinned`: that key's
   * fingerprint.
   */
  | { status: 'changed'; line: number; pinned: string }
  /** The key is marked @revoked: never accept it. */
  | { status: 'revoked'; line: number };

interface Entry {
  /** 1-based line number in the file, for messages. */
  line: number;
  marker: 'revoked' | 'cert-authority' | undefined;
  patterns: string;
  keyType: string;
  keyBlob: Buffer;
}

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** One known_hosts line (no newline) pinning keyBlob for host:port. */
export function knownHostsLine(host: string, port: number, keyType: string, keyBlob: Uint8Array): string {
  // A host with a space, a comma or a line break would add patterns or lines to the file: never written.
  if (/[\s,#*?!]|[\x00-\x1f\x7f]/.test(host) || host === '')
    throw new Error(`${JSON.stringify(host)} is not a host name or address; its key is not recorded`);
  return `${knownHostsName(host, port)} ${keyType} ${Buffer.from(keyBlob).toString('base64')}`;
}

/** `SHA256:<base64 without padding>`, exactly as `ssh-keygen -lf` prints it. */
export function fingerprintSha256(keyBlob: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside an SSH public key blob (its first string), e.g. `ssh-ed25519`. */
export function keyTypeOfBlob(keyBlob: Uint8Array): string {
  const buf = Buffer.from(keyBlob);
  if (buf.length < 4) throw new Error('malformed SSH public key blob');
  const len = buf.readUInt32BE(0);
  if (len === 0 || len > 64 || 4 + len > buf.length) throw new Error('malformed SSH public key blob');
  return buf.subarray(4, 4 + len).toString('latin1');
}

/** OpenSSH's match_pattern: `*` any run, `?` one character; host names compare case-insensitively. */
function wildcardMatch(name: string, pattern: string): boolean {
  let n = 0;
  let p = 0;
  let starP = -1;
  let starN = 0;
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === name[n])) {
      n++;
      p++;
    } else if (p < pattern.length && pattern[p] === '*') {
      starP = p++;
      starN = n;
    } else if (starP >= 0) {
      p = starP + 1;
      n = ++starN;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

function hashedMatch(name: string, field: string): boolean {
  // |1|base64(salt)|base64(HMAC-SHA1(salt, name))
  const parts = field.split('|');
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2]!, 'base64');
  const want = Buffer.from(parts[3]!, 'base64');
  if (salt.length === 0 || want.length !== 20) return false;
  return createHmac('sha1', salt).update(name).digest().equals(want);
}

/** Whether the host-pattern field of a line covers `name` (negations win, as in OpenSSH). */
function patternsMatch(name: string, field: string): boolean {
  if (field.startsWith('|')) return hashedMatch(name, field);
  const lower = name.toLowerCase();
  let matched = false;
  for (const raw of field.split(',')) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).toLowerCase();
    if (pattern === '' || !wildcardMatch(lower, pattern)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

export class KnownHosts {
  private constructor(private readonly entries: readonly Entry[]) {}

  /** Parses known_hosts text; malformed and comment lines are skipped, as ssh does. */
  static parse(text: string): KnownHosts {
    const entries: Entry[] = [];
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const fields = lines[i]!.trim().split(/[ \t]+/);
      if (fields[0] === '' || fields[0]!.startsWith('#')) continue;
      let marker: Entry['marker'];
      if (fields[0]!.startsWith('@')) {
        const m = fields.shift();
        if (m === '@revoked') marker = 'revoked';
        else if (m === '@cert-authority') marker = 'cert-authority';
        else continue; // unknown marker: ssh ignores the line
      }
      if (fields.length < 3) continue;
      const keyBlob = Buffer.from(fields[2]!, 'base64');
      if (keyBlob.length === 0) continue;
      entries.push({ line: i + 1, marker, patterns: fields[0]!, keyType: fields[1]!, keyBlob });
    }
    return new KnownHosts(entries);
  }

  lookup(host: string, port: number, keyType: string, keyBlob: Uint8Array): KnownHostsLookup {
    const name = knownHostsName(host, port);
    const blob = Buffer.from(keyBlob);
    let match: number | undefined;
    let changed: Entry | undefined;
    const knownTypes = new Set<string>();
    for (const e of this.entries) {
      // CA lines certify other keys; we do not use host certificates, so they pin nothing here.
      if (e.marker === 'cert-authority') continue;
      if (!patternsMatch(name, e.patterns)) continue;
      const same = e.keyBlob.equals(blob);
      // A revoked key is refused whatever other line might accept it.
      if (e.marker === 'revoked') {
        if (same) return { status: 'revoked', line: e.line };
        continue;
      }
      if (same) match ??= e.line;
      else if (e.keyType === keyType) changed ??= e;
      knownTypes.add(e.keyType);
    }
    if (match !== undefined) return { status: 'match', line: match };
    if (changed !== undefined)
      return { status: 'changed', line: changed.line, pinned: fingerprintSha256(changed.keyBlob) };
    return { status: 'unknown', knownTypes: [...knownTypes] };
  }

  /** Key types pinned for host:port, so that the client can ask the server for one of those first. */
  keyTypesFor(host: string, port: number): string[] {
    const name = knownHostsName(host, port);
    const types = new Set<string>();
    for (const e of this.entries) {
      if (e.marker === undefined && patternsMatch(name, e.patterns)) types.add(e.keyType);
    }
    return [...types];
  }
}

/** Reads and parses a known_hosts file; a missing file is an empty one. */
export async function readKnownHosts(path: string): Promise<KnownHosts> {
  try {
    return KnownHosts.parse(await fsp.readFile(path, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return KnownHosts.parse('');
    throw e;
  }
}

/**
 * Appends a line pinning keyBlob for host:port. Atomic: the new content goes to a temporary file in
 * the same directory which then replaces the old one, so a crash never leaves a truncated file.
 * Creates the directory (0700) when missing; the file ends up 0600.
 */
export async function addKnownHost(
  path: string,
  host: string,
  port: number,
  keyType: string,
  keyBlob: Uint8Array,
): Promise<void> {
  const dir = dirname(path);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  let existing = '';
  try {
    existing = await fsp.readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const sep = existing === '' || existing.endsWith('\n') ? '' : '\n';
  const content = `${existing}${sep}${knownHostsLine(host, port, keyType, keyBlob)}\n`;
  const tmp = join(dir, `.${basename(path)}.kw-${randomBytes(6).toString('hex')}.tmp`);
  const fh = await fsp.open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(content, 'utf8');
    await fh.sync();
  } catch (e) {
    await fh.close();
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  try {
    await fsp.rename(tmp, path);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}
