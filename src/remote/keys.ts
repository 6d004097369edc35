// Private keys for SSH user authentication. Errors name the key file, never its contents or the
// passphrase: messages end up in logs, notifications and bug reports.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { utils, type ParsedKey } from 'ssh2';
import { AuthenticationError } from './types';

/** Asks the user for the passphrase of an encrypted key; undefined means the user cancelled. */
export type PassphrasePrompt = (keyPath: string, attempt: number) => Promise<string | undefined>;

const MAX_PASSPHRASE_ATTEMPTS = 3;

export interface LoadedKey {
  path: string;
  key: ParsedKey;
  /** Whether the file was encrypted (a passphrase was needed). */
  encrypted: boolean;
}

type ParseOutcome = { key: ParsedKey } | { kind: 'needs-passphrase' | 'bad-passphrase' | 'invalid'; reason: string };

function parse(data: Buffer, passphrase?: string): ParseOutcome {
  let parsed: ParsedKey | ParsedKey[] | Error;
  try {
    parsed = utils.parseKey(data, passphrase) as ParsedKey | ParsedKey[] | Error;
  } catch {
    return { kind: 'invalid', reason: 'the parser rejected it' };
  }
  if (parsed instanceof Error) {
    // ssh2's messages describe the failure only (never key bytes), but we keep our own wording.
    const m = parsed.message;
    if (/no passphrase given/i.test(m)) return { kind: 'needs-passphrase', reason: 'encrypted' };
    if (/bad passphrase/i.test(m)) return { kind: 'bad-passphrase', reason: 'wrong passphrase' };
    if (/^Unsupported/i.test(m)) return { kind: 'invalid', reason: m.replace(/:.*$/, '') };
    return { kind: 'invalid', reason: 'not a private key in a format kube-windows reads (OpenSSH, PEM or PuTTY)' };
  }
  // OpenSSH files can in principle hold several keys; they hold one in practice.
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) return { kind: 'invalid', reason: 'the file holds no key' };
  if (!key.isPrivateKey()) return { kind: 'invalid', reason: 'it holds a public key, not a private key' };
  return { key };
}

/**
 * Loads a private key file. An encrypted key's passphrase is asked through `ask` (up to three tries
 * when it is wrong). Throws AuthenticationError: cancelled, wrong passphrase, unreadable or
 * unsupported file.
 */
export async function loadPrivateKey(path: string, ask?: PassphrasePrompt): Promise<LoadedKey> {
  let data: Buffer;
  try {
    data = await fsp.readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new AuthenticationError(`Cannot read the SSH private key ${path} (${code}).`);
  }
  {
    const first = parse(data);
    if ('key' in first) return { path, key: first.key, encrypted: false };
    if (first.kind !== 'needs-passphrase') {
      throw new AuthenticationError(`The file ${path} is not a usable SSH private key: ${first.reason}.`);
    }
    if (!ask) {
      throw new AuthenticationError(`The SSH private key ${path} is encrypted and no passphrase prompt is available.`);
    }
    for (let attempt = 1; attempt <= MAX_PASSPHRASE_ATTEMPTS; attempt++) {
      const passphrase = await ask(path, attempt);
      if (passphrase === undefined) {
        throw new AuthenticationError(
          `No passphrase was given for the SSH private key ${path}; authentication cancelled.`,
        );
      }
      const next = parse(data, passphrase);
      if ('key' in next) return { path, key: next.key, encrypted: true };
      if (next.kind !== 'bad-passphrase') {
        throw new AuthenticationError(`The file ${path} is not a usable SSH private key: ${next.reason}.`);
      }
    }
    throw new AuthenticationError(
      `Wrong passphrase for the SSH private key ${path} (${MAX_PASSPHRASE_ATTEMPTS} attempts).`,
    );
  }
}

/** The authorized_keys form of a key: "ssh-ed25519 AAAA..." (no comment, no newline). */
export function authorizedKeyLine(key: ParsedKey): string {
  return `${key.type} ${key.getPublicSSH().toString('base64')}`;
}

/**
 * The hash WMCO records for the public key it expects on a host: hex(sha256) of the authorized_keys
 * line "type base64" without a trailing newline.
 */
export function publicKeyHash(authorizedKeyLineText: string): string {
  const line = authorizedKeyLineText.replace(/\r?\n$/, '');
  return createHash('sha256').update(line, 'utf8').digest('hex');
}
