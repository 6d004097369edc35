// Throw-away ed25519 key pairs for tests. ssh2's generator over-strips leading zero bytes of the
// public key (mscdex/ssh2#1390, #1513), so about one pair in 256 is rejected by ssh2's own parser
// ("Malformed OpenSSH private key"): draw again until both halves parse.
import { utils } from 'ssh2';

export interface SshKeyPair {
  /** OpenSSH private key text. */
  private: string;
  /** `ssh-ed25519 AAAA…` line. */
  public: string;
}

export function sshKeyPair(): SshKeyPair {
  for (let i = 0; i < 50; i++) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error))
      return pair;
  }
  throw new Error('ssh2 produced 50 unparsable ed25519 key pairs in a row');
}
