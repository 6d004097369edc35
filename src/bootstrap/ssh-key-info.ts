// What the join needs to know about a private key without ever printing it: whether it parses,
// whether it has a passphrase, its public authorized_keys line, WMCO's pub-key-hash of it, and
// whether it is weak (WMCO pkg/signer/signer.go ValidatePublicKey: RSA < 2048, any DSA, ECDSA P-224 only warn).

import { utils } from 'ssh2';
import { publicKeyHash } from '../remote/keys';

export interface KeyInfo {
  /** "ssh-ed25519 AAAA..." (no comment). */
  publicKeyLine?: string;
  /** hex(sha256(publicKeyLine)), as WMCO's pub-key-hash annotation. */
  hash?: string;
  encrypted?: boolean;
  /** Why the key could not be read (never contains key material). */
  invalid?: string;
  weak?: string;
}

/** WMCO's pub-key-hash of an authorized_keys line ("type base64", comment dropped). */
export function pubKeyHash(line: string): string {
  const [type, blob] = line.trim().split(/\s+/);
  return publicKeyHash(`${type ?? ''} ${blob ?? ''}`);
}

/** Hashes of the keys of authorized_keys lines (options and comments ignored). */
export function authorizedKeyHashes(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of lines) {
    const parts = raw.trim().split(/\s+/);
    // Lines may start with options (from="...",no-pty ...): the key type is the first part that looks like one.
    const i = parts.findIndex((p) => /^(ssh-|ecdsa-sha2-|sk-)/.test(p));
    if (i >= 0 && parts[i + 1]) out.push(pubKeyHash(`${parts[i]} ${parts[i + 1]}`));
  }
  return out;
}

export function keyInfo(pem: string, passphrase?: string): KeyInfo {
  let parsed: ReturnType<typeof utils.parseKey>;
  try {
    parsed = utils.parseKey(pem, passphrase);
  } catch {
    return { invalid: 'not a private key in a format ssh2 reads' };
  }
  if (parsed instanceof Error) {
    const encrypted = /encrypted|passphrase/i.test(parsed.message);
    return encrypted ? { encrypted: true } : { invalid: 'not a private key in a format ssh2 reads' };
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) return { invalid: 'the file holds no key' };
  if (!key.isPrivateKey()) return { invalid: 'the file holds a public key, not a private key' };
  const blob = key.getPublicSSH();
  const line = `${key.type} ${Buffer.from(blob).toString('base64')}`;
  const info: KeyInfo = { publicKeyLine: line, hash: pubKeyHash(line) };
  const weak = weakness(key.type, Buffer.from(blob));
  if (weak) info.weak = weak;
  return info;
}

function weakness(type: string, blob: Buffer): string | undefined {
  if (type === 'ssh-dss') return 'DSA';
  if (type === 'ecdsa-sha2-nistp224') return 'ECDSA P-224';
  if (type === 'ssh-rsa') {
    // Wire format: string type, mpint e, mpint n.
    let off = 0;
    const next = (): Buffer => {
      const len = blob.readUInt32BE(off);
      const part = blob.subarray(off + 4, off + 4 + len);
      off += 4 + len;
      return part;
    };
    next();
    next();
    const n = next();
    const bits = (n[0] === 0 ? n.length - 1 : n.length) * 8;
    if (bits < 2048) return `RSA ${bits} bits`;
  }
  return undefined;
}
