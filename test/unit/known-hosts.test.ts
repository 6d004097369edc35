// known_hosts parsing and matching, fingerprints, the atomic append, and key loading (including
// that no secret ever reaches an error message).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  addKnownHost,
  fingerprintSha256,
  keyTypeOfBlob,
  KnownHosts,
  knownHostsLine,
} from '../../src/remote/known-hosts';
import { authorizedKeyLine, loadPrivateKey, publicKeyHash } from '../../src/remote/keys';
import { sftpPathOf, sha256OfSource } from '../../src/remote/upload';
import { AuthenticationError } from '../../src/remote/types';

const run = promisify(execFile);

let dir: string;
const blobOf = (pubLine: string): Buffer => Buffer.from(pubLine.split(' ')[1]!, 'base64');

async function keygen(
  name: string,
  type: 'ed25519' | 'rsa' | 'ecdsa',
  passphrase = '',
): Promise<{ path: string; pub: string }> {
  const path = join(dir, name);
  await run('ssh-keygen', [
    '-q',
    '-t',
    type,
    ...(type === 'rsa' ? ['-b', '2048'] : []),
    '-N',
    passphrase,
    '-C',
    'c',
    '-f',
    path,
  ]);
  const pub = (await fsp.readFile(`${path}.pub`, 'utf8')).trim().split(' ').slice(0, 2).join(' ');
  return { path, pub };
}

let a: { path: string; pub: string };
let b: { path: string; pub: string };
let rsa: { path: string; pub: string };

before(async () => {
  dir = await fsp.mkdtemp(join(tmpdir(), 'kw-kh-'));
  [a, b, rsa] = await Promise.all([keygen('a', 'ed25519'), keygen('b', 'ed25519'), keygen('r', 'rsa')]);
});
after(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

describe('known_hosts lookup', () => {
  it('matches plain names, comma lists and [host]:port for non-22 ports', () => {
    const kh = KnownHosts.parse(`# comment\n\nweb1,web2.example.com ${a.pub}\n[web3]:2222 ${a.pub} trailing comment\n`);
    const key = blobOf(a.pub);
    assert.deepEqual(kh.lookup('web1', 22, 'ssh-ed25519', key), { status: 'match', line: 3 });
    assert.deepEqual(kh.lookup('WEB2.example.com', 22, 'ssh-ed25519', key), { status: 'match', line: 3 });
    assert.deepEqual(kh.lookup('web3', 2222, 'ssh-ed25519', key), { status: 'match', line: 4 });
    // The same host on another port is another entry.
    assert.deepEqual(kh.lookup('web3', 22, 'ssh-ed25519', key), { status: 'unknown', knownTypes: [] });
    assert.deepEqual(kh.lookup('web1', 2222, 'ssh-ed25519', key), { status: 'unknown', knownTypes: [] });
  });

  it('reports a different key of the same type as changed, with its line', () => {
    const kh = KnownHosts.parse(`other ${b.pub}\nweb1 ${a.pub}\n`);
    assert.deepEqual(kh.lookup('web1', 22, 'ssh-ed25519', blobOf(b.pub)), {
      status: 'changed',
      line: 2,
      pinned: fingerprintSha256(blobOf(a.pub)),
    });
    // A key of another type is unknown (OpenSSH asks), but the pinned types are reported.
    assert.deepEqual(kh.lookup('web1', 22, 'ssh-rsa', blobOf(rsa.pub)), {
      status: 'unknown',
      knownTypes: ['ssh-ed25519'],
    });
    assert.deepEqual(kh.keyTypesFor('web1', 22), ['ssh-ed25519']);
  });

  it('matches hashed entries written by ssh-keygen -H, on port 22 and others', async () => {
    const file = join(dir, 'hashed');
    await fsp.writeFile(file, `web1 ${a.pub}\n[10.0.0.5]:2222 ${rsa.pub}\n`);
    await run('ssh-keygen', ['-H', '-f', file]);
    const text = await fsp.readFile(file, 'utf8');
    assert.ok(!text.includes('web1') && !text.includes('10.0.0.5'));
    const kh = KnownHosts.parse(text);
    assert.equal(kh.lookup('web1', 22, 'ssh-ed25519', blobOf(a.pub)).status, 'match');
    assert.equal(kh.lookup('10.0.0.5', 2222, 'ssh-rsa', blobOf(rsa.pub)).status, 'match');
    assert.equal(kh.lookup('web2', 22, 'ssh-ed25519', blobOf(a.pub)).status, 'unknown');
    assert.equal(kh.lookup('web1', 22, 'ssh-ed25519', blobOf(b.pub)).status, 'changed');
    // Our own HMAC-SHA1 computation agrees with the format.
    const salt = randomBytes(20);
    const own = `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update('[h]:2200').digest('base64')} ${a.pub}`;
    assert.equal(KnownHosts.parse(own).lookup('h', 2200, 'ssh-ed25519', blobOf(a.pub)).status, 'match');
  });

  it('applies * and ? wildcards and lets a negation win', () => {
    const kh = KnownHosts.parse(`*.example.com,!bad.example.com ${a.pub}\nnode-? ${b.pub}\n[*.lab]:* ${a.pub}\n`);
    const ka = blobOf(a.pub);
    assert.equal(kh.lookup('x.example.com', 22, 'ssh-ed25519', ka).status, 'match');
    assert.equal(kh.lookup('bad.example.com', 22, 'ssh-ed25519', ka).status, 'unknown');
    assert.equal(kh.lookup('example.com', 22, 'ssh-ed25519', ka).status, 'unknown');
    assert.equal(kh.lookup('node-1', 22, 'ssh-ed25519', blobOf(b.pub)).status, 'match');
    assert.equal(kh.lookup('node-12', 22, 'ssh-ed25519', blobOf(b.pub)).status, 'unknown');
    assert.equal(kh.lookup('win.lab', 2222, 'ssh-ed25519', ka).status, 'match');
  });

  it('refuses a @revoked key even when another line pins it, and ignores @cert-authority lines', () => {
    const kh = KnownHosts.parse(
      `web1 ${a.pub}\n@revoked * ${a.pub}\n@cert-authority * ${b.pub}\n@bogus web1 ${b.pub}\n`,
    );
    assert.deepEqual(kh.lookup('web1', 22, 'ssh-ed25519', blobOf(a.pub)), { status: 'revoked', line: 2 });
    // The CA key is not a host key for web1; the pinned key a makes b "changed".
    assert.deepEqual(kh.lookup('web1', 22, 'ssh-ed25519', blobOf(b.pub)), {
      status: 'changed',
      line: 1,
      pinned: fingerprintSha256(blobOf(a.pub)),
    });
    assert.deepEqual(kh.lookup('web2', 22, 'ssh-ed25519', blobOf(b.pub)), { status: 'unknown', knownTypes: [] });
  });

  it('skips malformed lines', () => {
    const kh = KnownHosts.parse(`garbage\nweb1 ssh-ed25519\n\t \nweb1 ${a.pub}\r\n`);
    assert.deepEqual(kh.lookup('web1', 22, 'ssh-ed25519', blobOf(a.pub)), { status: 'match', line: 4 });
  });
});

describe('fingerprints and key blobs', () => {
  it('prints SHA256 fingerprints exactly as ssh-keygen -lf', async () => {
    for (const k of [a, b, rsa]) {
      const { stdout } = await run('ssh-keygen', ['-lf', `${k.path}.pub`]);
      assert.equal(fingerprintSha256(blobOf(k.pub)), stdout.split(' ')[1]);
    }
  });

  it('reads the key type from a blob', () => {
    assert.equal(keyTypeOfBlob(blobOf(a.pub)), 'ssh-ed25519');
    assert.equal(keyTypeOfBlob(blobOf(rsa.pub)), 'ssh-rsa');
    assert.throws(() => keyTypeOfBlob(Buffer.from([0, 0])), /malformed/);
  });
});

describe('addKnownHost', () => {
  it('creates ~/.ssh (0700) and the file (0600), with [host]:port off port 22', async () => {
    const sshDir = join(dir, 'home1', '.ssh');
    const file = join(sshDir, 'known_hosts');
    await addKnownHost(file, 'win1', 2222, 'ssh-ed25519', blobOf(a.pub));
    await addKnownHost(file, 'win2', 22, 'ssh-rsa', blobOf(rsa.pub));
    assert.equal(await fsp.readFile(file, 'utf8'), `[win1]:2222 ${a.pub}\nwin2 ${rsa.pub}\n`);
    assert.equal((await fsp.stat(file)).mode & 0o777, 0o600);
    assert.equal((await fsp.stat(sshDir)).mode & 0o777, 0o700);
    assert.deepEqual(await fsp.readdir(sshDir), ['known_hosts'], 'no temporary file left');
  });

  it('keeps every other line, including a last line without newline', async () => {
    const file = join(dir, 'kh-keep');
    const before = `# mine\n|1|abc|def ssh-ed25519 AAAA\n@revoked * ${b.pub}`;
    await fsp.writeFile(file, before);
    await addKnownHost(file, 'h', 22, 'ssh-ed25519', blobOf(a.pub));
    assert.equal(
      await fsp.readFile(file, 'utf8'),
      `${before}\n${knownHostsLine('h', 22, 'ssh-ed25519', blobOf(a.pub))}\n`,
    );
  });
});

describe('private keys', () => {
  it('loads a plain key and gives its authorized_keys line and WMCO hash', async () => {
    const loaded = await loadPrivateKey(a.path);
    assert.equal(loaded.encrypted, false);
    assert.equal(authorizedKeyLine(loaded.key), a.pub);
    const want = createHash('sha256').update(a.pub).digest('hex');
    assert.equal(publicKeyHash(a.pub), want);
    assert.equal(publicKeyHash(`${a.pub}\n`), want);
    assert.equal(authorizedKeyLine((await loadPrivateKey(rsa.path)).key), rsa.pub);
  });

  it('asks for a passphrase, retries a wrong one, and never puts secrets in errors', async () => {
    const pass = 'S3cret passphrase!';
    const enc = await keygen('enc', 'ed25519', pass);
    const keyText = await fsp.readFile(enc.path, 'utf8');
    const body = keyText.split('\n')[1]!;
    const attempts: number[] = [];
    const ok = await loadPrivateKey(
      enc.path,
      (p, n) => (assert.equal(p, enc.path), attempts.push(n), Promise.resolve(n < 3 ? 'nope' : pass)),
    );
    assert.deepEqual(attempts, [1, 2, 3]);
    assert.equal(ok.encrypted, true);
    assert.equal(authorizedKeyLine(ok.key), enc.pub);

    const wrong = 'wrong-Passphrase-42';
    const errors: unknown[] = [];
    for (const ask of [() => Promise.resolve(wrong), () => Promise.resolve(undefined), undefined]) {
      await loadPrivateKey(enc.path, ask).then(
        () => assert.fail('expected a failure'),
        (e: unknown) => errors.push(e),
      );
    }
    const messages = errors.map((e) => {
      assert.ok(e instanceof AuthenticationError);
      assert.ok(e.message.includes(enc.path));
      return [e.message, String(e), e.stack ?? ''].join('\n');
    });
    assert.match(messages[0]!, /Wrong passphrase .* \(3 attempts\)/);
    assert.match(messages[1]!, /cancelled/);
    assert.match(messages[2]!, /encrypted/);
    for (const m of messages) {
      for (const secret of [wrong, pass, body, body.slice(0, 20)]) assert.ok(!m.includes(secret), 'secret in message');
    }
  });

  it('names an unusable file without echoing its contents', async () => {
    const garbled = join(dir, 'garbled');
    const content =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nTOPSECRETbase64materialxyz\n-----END OPENSSH PRIVATE KEY-----\n';
    await fsp.writeFile(garbled, content);
    const cases: [string, RegExp][] = [
      [garbled, /not a usable SSH private key/],
      [`${a.path}.pub`, /public key, not a private key/],
      [join(dir, 'missing'), /Cannot read .*ENOENT/],
    ];
    for (const [path, re] of cases) {
      const err = await loadPrivateKey(path).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof AuthenticationError, String(err));
      assert.match(err.message, re);
      assert.ok(err.message.includes(path));
      assert.ok(!String(err).includes('TOPSECRET') && !String(err).includes(a.pub.split(' ')[1]!));
    }
  });
});

describe('upload helpers', () => {
  it('maps Windows paths to the SFTP form and leaves POSIX paths alone', () => {
    assert.equal(sftpPathOf('C:\\k\\x.exe'), '/C:/k/x.exe');
    assert.equal(sftpPathOf('c:/k/sub dir/x.exe'), '/C:/k/sub dir/x.exe');
    assert.equal(sftpPathOf('/var/tmp/x'), '/var/tmp/x');
    assert.equal(sftpPathOf('relative/x'), 'relative/x');
  });

  it('hashes files by streaming and bytes in memory alike', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 7);
    const file = join(dir, 'data.bin');
    await fsp.writeFile(file, data);
    const want = createHash('sha256').update(data).digest('hex');
    assert.deepEqual(await sha256OfSource({ path: file }), { sha256: want, bytes: data.length });
    assert.deepEqual(await sha256OfSource({ data }), { sha256: want, bytes: data.length });
  });
});
