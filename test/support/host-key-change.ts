// What a refusal of a changed host key must say, checked the same way for the join, the reboot, the
// mirror push and the CLI: OpenSSH's warning, the host, the key type, the pinned and the presented
// fingerprints, and nothing secret (no private key, of the host or of the user).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SimHost, SimHostKey } from './windows-host-sim';

/** `SHA256:...` of an OpenSSH public key line, as ssh-keygen -lf prints it. */
export function fingerprintOf(publicLine: string): string {
  return `SHA256:${createHash('sha256')
    .update(Buffer.from(publicLine.split(' ')[1] ?? '', 'base64'))
    .digest('base64')
    .replace(/=+$/, '')}`;
}

/** The private key's base64 body lines, which must never appear in any output. */
const secretLines = (privateKeyText: string): string[] =>
  privateKeyText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('-----'));

export function assertHostKeyRefusal(
  text: string,
  sim: SimHost,
  change: { old: SimHostKey; now: SimHostKey },
  userKeyPath: string,
  what: string,
): void {
  assert.match(text, /REMOTE HOST IDENTIFICATION HAS CHANGED/, `${what}: OpenSSH's warning`);
  assert.ok(text.includes(`[${sim.host}]:${sim.port}`), `${what}: names the host: ${text}`);
  assert.ok(text.includes('ssh-ed25519'), `${what}: names the key type`);
  assert.ok(text.includes(fingerprintOf(change.old.public)), `${what}: the pinned fingerprint`);
  assert.ok(text.includes(fingerprintOf(change.now.public)), `${what}: the presented fingerprint`);
  assert.match(text, /nothing was sent to the host/, `${what}: says nothing was done`);
  assert.doesNotMatch(text, /PRIVATE KEY/, `${what}: no key material`);
  for (const line of [
    ...secretLines(change.old.private),
    ...secretLines(change.now.private),
    ...secretLines(readFileSync(userKeyPath, 'utf8')),
  ]) {
    assert.ok(!text.includes(line), `${what}: a private key line leaked`);
  }
}
