// The SSH transport against a real OpenSSH sshd on loopback: authentication, host keys, exec,
// atomic SFTP uploads, and the failure modes (drops, timeouts, cancels, silent peers).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SshConnector, type SshConnectorOptions } from '../../src/remote/ssh';
import { uploadAtomically, type UploadCommit } from '../../src/remote/upload';
import {
  AuthenticationError,
  CommandTimeoutError,
  ConnectionLostError,
  ConnectTimeoutError,
  HostKeyChangedError,
  HostKeyRevokedError,
  HostKeyUnknownError,
  RemoteError,
  type HostConnection,
} from '../../src/remote/types';
import { freePort, sshdAvailability, startProxy, startSilentServer, startSshd, type Sshd } from '../support/sshd';

const run = promisify(execFile);
const avail = sshdAvailability();
const BIG = 50 * 1024 * 1024;

/** POSIX single-quoted word: the remote login shell sees exactly `s`. */
function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The Linux stand-in for the Windows commit op: check the hash, then move over the final path. */
function linuxCommit(conn: HostConnection, finalPath: string): UploadCommit {
  return async (tempPath, sha256, signal) => {
    const script = 'printf "%s  %s\\n" "$3" "$1" | sha256sum -c --quiet - >/dev/null && mv -f -- "$1" "$2"';
    const r = await conn.exec(['sh', '-c', shq(script), 'sh', shq(tempPath), shq(finalPath), shq(sha256)], {
      signal,
      timeoutMs: 30_000,
    });
    if (r.exitCode !== 0) throw new Error(`commit failed (${r.exitCode}): ${r.stderr}`);
  };
}

async function sha256File(path: string): Promise<string> {
  return createHash('sha256')
    .update(await fsp.readFile(path))
    .digest('hex');
}

/**
 * The rejection of `p` and how long it took. `ceilingMs`, when given, is a generous bound far from every
 * configured timeout (a failure that waited one out, or a hang, still cannot pass); the error's kind is
 * what proves the cause, never a tight wall-clock bound (the machine may be loaded).
 */
async function rejection<T>(p: Promise<T>, ceilingMs?: number): Promise<{ err: unknown; elapsed: number }> {
  const start = Date.now();
  try {
    await p;
  } catch (err) {
    const elapsed = Date.now() - start;
    if (ceilingMs !== undefined)
      assert.ok(elapsed < ceilingMs, `rejected after ${elapsed} ms, expected < ${ceilingMs} ms`);
    return { err, elapsed };
  }
  assert.fail('expected a rejection');
}

/** Polls `done` until it holds; the test's own timeout bounds it (no wall-clock bound of its own). */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 20));
}

/** Whether a local process (sshd runs on loopback: the remote command's process is ours to see) still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// A hang still fails, at this suite's timeout (generous: the machine may be loaded).
describe(
  'SSH transport against a real sshd',
  { skip: !avail.ok && avail.skip ? avail.reason : false, timeout: 300_000 },
  () => {
    let sshd: Sshd;
    let work: string;
    let knownHosts: string;
    let bigFile: string;
    let bigSha: string;

    before(async () => {
      if (!avail.ok) throw new Error(avail.reason);
      sshd = await startSshd();
      work = await fsp.mkdtemp(join(sshd.dir, 'work-'));
      knownHosts = join(work, 'known_hosts');
      await fsp.writeFile(knownHosts, `${sshd.knownHostsLine()}\n`);
      bigFile = join(work, 'big.bin');
      const data = randomBytes(BIG);
      bigSha = createHash('sha256').update(data).digest('hex');
      await fsp.writeFile(bigFile, data);
    });

    after(async () => {
      await sshd?.stop();
    });

    const connector = (extra: Partial<SshConnectorOptions> = {}): SshConnector =>
      new SshConnector({
        host: sshd.host,
        port: sshd.port,
        username: sshd.user,
        privateKeyPath: sshd.keys.ed25519,
        knownHostsPath: knownHosts,
        confirmUnknownHost: () => Promise.reject(new Error('must not be asked')),
        connectTimeoutMs: 60_000, // far above the bounds below: a failure that waited it out cannot pass
        ...extra,
      });

    describe('authentication', () => {
      it('connects with a plain ed25519 key and with an RSA key', async () => {
        for (const key of [sshd.keys.ed25519, sshd.keys.rsa]) {
          const conn = await connector({ privateKeyPath: key }).connect();
          try {
            const r = await conn.exec(['echo', 'hello'], { timeoutMs: 5000 });
            assert.deepEqual(r, { exitCode: 0, stdout: 'hello\n', stderr: '' });
            assert.equal(conn.connected, true);
            assert.equal(conn.label, `${sshd.user}@127.0.0.1:${sshd.port}`);
          } finally {
            conn.close();
          }
          assert.equal(conn.connected, false);
        }
      });

      it('asks for the passphrase of an encrypted key, and again after a wrong one', async () => {
        const asked: number[] = [];
        const conn = await connector({
          privateKeyPath: sshd.keys.encrypted,
          askPassphrase: (path, attempt) => {
            assert.equal(path, sshd.keys.encrypted);
            asked.push(attempt);
            return Promise.resolve(attempt === 1 ? 'wrong' : sshd.keys.passphrase);
          },
        }).connect();
        conn.close();
        assert.deepEqual(asked, [1, 2]);
      });

      it('gives up after three wrong passphrases with a clear error that holds no secret', async () => {
        let calls = 0;
        const secret = 'hunter2-not-the-passphrase';
        const { err } = await rejection(
          connector({
            privateKeyPath: sshd.keys.encrypted,
            askPassphrase: () => (calls++, Promise.resolve(secret)),
          }).connect(),
          30_000,
        );
        assert.ok(err instanceof AuthenticationError, String(err));
        assert.equal(calls, 3);
        assert.match(err.message, /Wrong passphrase/);
        assert.ok(err.message.includes(sshd.keys.encrypted));
        const keyBody = (await fsp.readFile(sshd.keys.encrypted, 'utf8')).split('\n')[1]!;
        for (const text of [err.message, String(err), err.stack ?? '']) {
          assert.ok(!text.includes(secret) && !text.includes(sshd.keys.passphrase) && !text.includes(keyBody));
        }
      });

      it('reports a cancelled passphrase prompt as an AuthenticationError', async () => {
        const { err } = await rejection(
          connector({ privateKeyPath: sshd.keys.encrypted, askPassphrase: () => Promise.resolve(undefined) }).connect(),
          30_000,
        );
        assert.ok(err instanceof AuthenticationError);
        assert.match(err.message, /cancelled/);
      });

      it('names the refused key file (not its contents) when the host refuses the key', async () => {
        const { err } = await rejection(connector({ privateKeyPath: sshd.keys.unauthorized }).connect(), 30_000);
        assert.ok(err instanceof AuthenticationError, String(err));
        assert.ok(err.message.includes(`key ${sshd.keys.unauthorized}`), err.message);
        assert.ok(err.message.includes(`user ${sshd.user}`), err.message);
        assert.ok(!err.message.includes('PRIVATE KEY'));
      });

      it('authenticates with a key held by ssh-agent', async () => {
        const sock = join(work, 'agent.sock');
        const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
        try {
          for (let i = 0; i < 100 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 20));
          await run('ssh-add', ['-q', sshd.keys.rsa], { env: { ...process.env, SSH_AUTH_SOCK: sock } });
          const conn = await connector({ agent: sock, privateKeyPath: undefined }).connect();
          assert.equal((await conn.exec(['echo', 'via agent'], { timeoutMs: 5000 })).stdout, 'via agent\n');
          conn.close();
        } finally {
          agent.kill();
        }
      });

      it('tries agent keys first and goes on to the key file when the agent is unreachable', async () => {
        const conn = await connector({ agent: join(work, 'no-such-agent.sock') }).connect();
        conn.close();
      });
    });

    describe('host keys', () => {
      it('refuses an unknown host key when not confirmed, before authenticating', async () => {
        const file = join(work, 'kh-unknown', 'known_hosts');
        let asked = 0;
        let prompted = 0;
        const { err } = await rejection(
          connector({
            knownHostsPath: file,
            privateKeyPath: sshd.keys.encrypted,
            askPassphrase: () => (prompted++, Promise.resolve(sshd.keys.passphrase)),
            confirmUnknownHost: (host, port, fp, type) => {
              asked++;
              assert.equal(host, '127.0.0.1');
              assert.equal(port, sshd.port);
              assert.equal(type, 'ssh-ed25519');
              assert.match(fp, /^SHA256:[A-Za-z0-9+/]{43}$/);
              return Promise.resolve(false);
            },
          }).connect(),
          30_000,
        );
        assert.ok(err instanceof HostKeyUnknownError, String(err));
        assert.equal(asked, 1);
        assert.equal(prompted, 0, 'authentication must not start');
        assert.equal(existsSync(file), false);
      });

      it('trusts a confirmed key on first use and does not ask again', async () => {
        const dir = join(work, 'kh-tofu', '.ssh');
        const file = join(dir, 'known_hosts');
        let asked = 0;
        const c = connector({ knownHostsPath: file, confirmUnknownHost: () => (asked++, Promise.resolve(true)) });
        (await c.connect()).close();
        assert.equal(asked, 1);
        assert.equal(await fsp.readFile(file, 'utf8'), `${sshd.knownHostsLine()}\n`);
        assert.equal((await fsp.stat(file)).mode & 0o777, 0o600);
        assert.equal((await fsp.stat(dir)).mode & 0o777, 0o700);
        (await c.connect()).close();
        assert.equal(asked, 1);
      });

      it('refuses a changed host key loudly, naming the file and line', async () => {
        const file = join(work, 'kh-changed');
        await fsp.writeFile(
          file,
          `# pinned\nother.example ${sshd.hostKeyPub}\n[127.0.0.1]:${sshd.port} ${sshd.otherHostKeyPub}\n`,
        );
        const { err } = await rejection(connector({ knownHostsPath: file }).connect(), 30_000);
        assert.ok(err instanceof HostKeyChangedError, String(err));
        assert.equal(err.line, 3);
        assert.ok(err.message.includes(file) && err.message.includes('line 3'), err.message);
        assert.match(err.message, /CHANGED/);
      });

      it('refuses a revoked host key even when another line accepts it', async () => {
        const file = join(work, 'kh-revoked');
        await fsp.writeFile(file, `${sshd.knownHostsLine()}\n@revoked * ${sshd.hostKeyPub}\n`);
        const { err } = await rejection(connector({ knownHostsPath: file }).connect(), 30_000);
        assert.ok(err instanceof HostKeyRevokedError, String(err));
        assert.equal(err.line, 2);
      });

      it('matches a hashed known_hosts entry (ssh-keygen -H)', async () => {
        const file = join(work, 'kh-hashed');
        await fsp.writeFile(file, `${sshd.knownHostsLine()}\n`);
        await run('ssh-keygen', ['-H', '-f', file]);
        const text = await fsp.readFile(file, 'utf8');
        assert.match(text, /^\|1\|/);
        (await connector({ knownHostsPath: file }).connect()).close();
      });
    });

    describe('exec', () => {
      let conn: HostConnection;
      before(async () => {
        conn = await connector().connect();
      });
      after(() => conn?.close());

      it('returns stdout, stderr and the exit code, and feeds stdin', async () => {
        const r = await conn.exec(['sh', '-c', shq('echo out; echo err >&2; exit 3')], { timeoutMs: 5000 });
        assert.deepEqual(r, { exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
        const utf8 = 'héllo wörld ✓\n';
        assert.equal((await conn.exec(['cat'], { stdin: utf8, timeoutMs: 5000 })).stdout, utf8);
        assert.equal(
          (await conn.exec(['wc', '-c'], { stdin: new Uint8Array(1000), timeoutMs: 5000 })).stdout.trim(),
          '1000',
        );
        // stdin is closed even when none is given: `cat` ends at once.
        assert.equal((await conn.exec(['cat'], { timeoutMs: 5000 })).stdout, '');
      });

      /**
       * A command that says its process id, then writes a line to its channel 5 times a second for 10 minutes
       * (far beyond any bound here). sshd does not kill a command whose channel closes, but it closes the pipes:
       * the next write fails and the loop ends, so the process ending is what shows the channel was closed.
       */
      const ticker = async (options: {
        timeoutMs?: number;
        signal?: AbortSignal;
      }): Promise<{ pid: number; started: number; done: Promise<unknown> }> => {
        const pidFile = join(work, `ticker-${randomBytes(4).toString('hex')}.pid`);
        const started = Date.now();
        const script = `echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; i=0; while [ $i -lt 3000 ] && echo tick; do i=$((i+1)); sleep 0.2; done`;
        const done = conn.exec(['sh', '-c', shq(script)], options);
        done.catch(() => undefined);
        await until(() => existsSync(pidFile));
        return { pid: Number(await fsp.readFile(pidFile, 'utf8')), started, done };
      };

      it('stops a command at its timeout: CommandTimeoutError, its channel closed, the connection usable', async () => {
        const { pid, started, done } = await ticker({ timeoutMs: 500 });
        // The kind says the timeout fired (the command itself runs 10 minutes); the ceiling is far from 500 ms.
        const { err } = await rejection(done, 30_000);
        assert.ok(err instanceof CommandTimeoutError, String(err));
        const elapsed = Date.now() - started;
        assert.ok(elapsed >= 450, `not before its timeout: ${elapsed} ms`);
        await until(() => !alive(pid));
        assert.equal(conn.connected, true);
        assert.equal((await conn.exec(['echo', 'still here'], { timeoutMs: 5000 })).stdout, 'still here\n');
      });

      it('stops a command when cancelled: the abort reason, its channel closed, the connection usable', async () => {
        const ac = new AbortController();
        const reason = new Error('user cancelled');
        const { pid, done } = await ticker({ signal: ac.signal });
        assert.ok(alive(pid), 'the command runs until the cancel');
        ac.abort(reason);
        const { err } = await rejection(done, 30_000);
        assert.equal(err, reason);
        await until(() => !alive(pid));
        assert.equal(conn.connected, true);
        assert.equal((await conn.exec(['echo', 'still here'], { timeoutMs: 5000 })).stdout, 'still here\n');
      });

      it('caps the collected output', async () => {
        const small = await connector({ maxOutputBytes: 1024 * 1024 }).connect();
        try {
          const { err } = await rejection(
            small.exec(['head', '-c', '3000000', '/dev/zero'], { timeoutMs: 60_000 }),
            30_000,
          );
          assert.ok(err instanceof RemoteError && /more than 1 MB/.test(err.message), String(err));
        } finally {
          small.close();
        }
      });

      it('reports a connection dropped during a command as ConnectionLostError', async () => {
        const c = await connector().connect();
        const p = c.exec(['sleep', '30'], { timeoutMs: 10_000 });
        setTimeout(() => void sshd.dropConnections(), 300);
        const { err } = await rejection(p);
        assert.ok(err instanceof ConnectionLostError, String(err));
        assert.equal(err.transient, true);
        assert.equal(c.connected, false);
        // Dropping killed our shared connection too: reconnect for the tests after this one.
        conn = await connector().connect();
      });
    });

    describe('SFTP uploads', () => {
      it('uploads 50 MB atomically with a hash check', async (t) => {
        const conn = await connector().connect();
        try {
          const final = join(work, 'up-50.bin');
          let last = 0;
          const start = process.hrtime.bigint();
          const r = await uploadAtomically(conn, { path: bigFile }, final, linuxCommit(conn, final), {
            onProgress: (sent) => (last = sent),
            timeoutMs: 30_000,
          });
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          t.diagnostic(`50 MB upload + remote sha256 + mv: ${ms.toFixed(0)} ms, ${(50 / (ms / 1000)).toFixed(1)} MB/s`);
          assert.equal(r.sha256, bigSha);
          assert.equal(last, BIG);
          assert.equal(await sha256File(final), bigSha);
          assert.equal(existsSync(r.tempPath), false);
          // The transfer alone (the figure above adds hashing on both sides and the move).
          const rawStart = process.hrtime.bigint();
          await conn.sftpPut({ path: bigFile }, join(work, 'up-raw.bin'), { timeoutMs: 30_000 });
          const rawMs = Number(process.hrtime.bigint() - rawStart) / 1e6;
          t.diagnostic(`50 MB sftpPut alone: ${rawMs.toFixed(0)} ms, ${(50 / (rawMs / 1000)).toFixed(1)} MB/s`);
          assert.equal(await sha256File(join(work, 'up-raw.bin')), bigSha);
          // Bytes in memory too, and an empty file.
          const small = join(work, 'up-small.bin');
          await uploadAtomically(conn, { data: Buffer.from('abc') }, small, linuxCommit(conn, small));
          assert.equal(await fsp.readFile(small, 'utf8'), 'abc');
          const empty = join(work, 'up-empty.bin');
          await uploadAtomically(conn, { data: new Uint8Array(0) }, empty, linuxCommit(conn, empty));
          assert.equal((await fsp.stat(empty)).size, 0);
          await conn.sftpRemove(join(work, 'no-such-file'));
        } finally {
          conn.close();
        }
      });

      it('survives a connection dropped mid-upload by retrying on a new connection', async () => {
        const proxy = await startProxy(sshd.port);
        try {
          await fsp.appendFile(knownHosts, `${sshd.knownHostsLine(proxy.port)}\n`);
          const viaProxy = connector({ port: proxy.port });
          const final = join(work, 'up-drop.bin');
          const first = await viaProxy.connect();
          let cut = false;
          const { err } = await rejection(
            uploadAtomically(first, { path: bigFile }, final, linuxCommit(first, final), {
              onProgress: (sent) => {
                if (!cut && sent > 10 * 1024 * 1024) {
                  cut = true;
                  proxy.cut();
                }
              },
            }),
            30_000,
          );
          assert.ok(err instanceof ConnectionLostError, String(err));
          assert.equal(existsSync(final), false, 'nothing may appear at the final path');
          const second = await viaProxy.connect();
          try {
            await uploadAtomically(second, { path: bigFile }, final, linuxCommit(second, final));
          } finally {
            second.close();
          }
          assert.equal(await sha256File(final), bigSha);
          const leftovers = (await fsp.readdir(work)).filter((n) => n.startsWith('up-drop.bin.kw-'));
          assert.ok(leftovers.length <= 1, `at most the interrupted temp remains: ${leftovers.join(', ')}`);
        } finally {
          await proxy.close();
        }
      });

      it('stops when cancelled, before the rest of the file is sent, and removes the temporary file', async () => {
        const conn = await connector().connect();
        try {
          const final = join(work, 'up-cancel.bin');
          const ac = new AbortController();
          const reason = new Error('cancelled by test');
          let sentMost = 0;
          const { err } = await rejection(
            uploadAtomically(conn, { path: bigFile }, final, linuxCommit(conn, final), {
              signal: ac.signal,
              sha256: bigSha,
              onProgress: (sent) => {
                sentMost = Math.max(sentMost, sent);
                if (sent > 5 * 1024 * 1024) ac.abort(reason);
              },
            }),
          );
          assert.equal(err, reason);
          // Stopped by the cancel, not at the end of the transfer: most of the 50 MB was never sent.
          assert.ok(sentMost < BIG / 2, `${sentMost} bytes sent after a cancel at 5 MB`);
          assert.equal(conn.connected, true);
          assert.equal(existsSync(final), false);
          assert.deepEqual(
            (await fsp.readdir(work)).filter((n) => n.startsWith('up-cancel.bin')),
            [],
          );
        } finally {
          conn.close();
        }
      });

      it('stops at the transfer time limit', async () => {
        const conn = await connector().connect();
        try {
          const { err } = await rejection(
            conn.sftpPut({ path: bigFile }, join(work, 'up-timeout.bin'), { timeoutMs: 20 }),
          );
          assert.ok(err instanceof RemoteError && err.name === 'TransferTimeoutError', String(err));
        } finally {
          conn.close();
        }
      });
    });

    describe('connection failures', () => {
      it('reports a closed port as a transient, clear error', async () => {
        const port = await freePort();
        const { err } = await rejection(connector({ port }).connect());
        assert.ok(err instanceof RemoteError, String(err));
        assert.equal(err.transient, true);
        assert.match(err.message, /connection refused/);
        assert.ok(err.message.includes(`127.0.0.1:${port}`));
      });

      it('times out on a peer that accepts TCP and never speaks', async () => {
        const silent = await startSilentServer();
        try {
          const { err, elapsed } = await rejection(
            connector({ port: silent.port, connectTimeoutMs: 500 }).connect(),
            30_000, // far from both the 500 ms asked and the 60 s default: it was this timeout that fired
          );
          assert.ok(err instanceof ConnectTimeoutError, String(err));
          assert.ok(elapsed >= 450, `not before its timeout: ${elapsed} ms`);
          await until(() => silent.open === 0); // the abandoned socket is closed, not left to the peer
        } finally {
          await silent.close();
        }
      });

      it('cancels a connection attempt promptly', async () => {
        const silent = await startSilentServer();
        try {
          const ac = new AbortController();
          const reason = new Error('stop connecting');
          const attempt = connector({ port: silent.port }).connect(ac.signal);
          // Cancelled once the peer holds the connection (the 60 s connect timeout is far away).
          await until(() => silent.open === 1);
          ac.abort(reason);
          const { err } = await rejection(attempt);
          assert.equal(err, reason);
          await until(() => silent.open === 0);
        } finally {
          await silent.close();
        }
      });

      it('detects a silent peer through keepalives', async () => {
        const proxy = await startProxy(sshd.port);
        try {
          await fsp.appendFile(knownHosts, `${sshd.knownHostsLine(proxy.port)}\n`);
          const conn = await connector({ port: proxy.port, keepaliveIntervalMs: 200, keepaliveCountMax: 2 }).connect();
          proxy.freeze();
          // No command timeout: only the keepalives can end this (the test's own timeout catches a hang).
          const { err } = await rejection(conn.exec(['sleep', '600']));
          assert.ok(err instanceof ConnectionLostError, String(err));
          assert.match(err.message, /keepalive/);
          assert.equal(conn.connected, false);
        } finally {
          await proxy.close();
        }
      });
    });
  },
);
