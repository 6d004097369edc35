// A real OpenSSH sshd on loopback (its own config, host key and port; no system service) for transport tests,
// plus a TCP proxy the tests can cut or freeze to simulate dropped and silent links.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import { createServer, connect as netConnect, type Server, type Socket, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const SSHD_PATH = '/usr/sbin/sshd';

/**
 * Whether sshd tests can run. Missing sshd as root is a broken environment (scripts/test-env.mjs
 * installs it) and must fail; without root sshd cannot run its privilege separation, so skip.
 */
export function sshdAvailability(): { ok: true } | { ok: false; skip: boolean; reason: string } {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root) return { ok: false, skip: true, reason: 'sshd tests need root (sshd privilege separation)' };
  if (!existsSync(SSHD_PATH)) {
    return {
      ok: false,
      skip: false,
      reason: `${SSHD_PATH} is missing: run \`node scripts/test-env.mjs\` (npm test does) to install openssh-server`,
    };
  }
  return { ok: true };
}

export interface UserKeys {
  /** ed25519, authorized. */
  ed25519: string;
  /** ed25519 encrypted with `passphrase`, authorized. */
  encrypted: string;
  passphrase: string;
  /** RSA 2048, authorized. */
  rsa: string;
  /** ed25519, NOT authorized. */
  unauthorized: string;
}

export interface Sshd {
  host: '127.0.0.1';
  port: number;
  user: string;
  dir: string;
  keys: UserKeys;
  /** "ssh-ed25519 AAAA..." of the host key. */
  hostKeyPub: string;
  /** Public line of another ed25519 key (for "changed host key" tests). */
  otherHostKeyPub: string;
  /** known_hosts line for this server at `port` (default: sshd's own port). */
  knownHostsLine(port?: number): string;
  /** Kills the per-connection sshd processes: every live connection drops. */
  dropConnections(): Promise<void>;
  stop(): Promise<void>;
}

async function keygen(path: string, type: 'ed25519' | 'rsa', passphrase = ''): Promise<void> {
  const args = ['-q', '-t', type, '-N', passphrase, '-C', 'kw-test', '-f', path];
  if (type === 'rsa') args.push('-b', '2048');
  await run('ssh-keygen', args);
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Resolves once something on host:port accepts a connection and sends an SSH banner. */
async function waitForBanner(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = netConnect(port, '127.0.0.1');
      const t = setTimeout(() => (s.destroy(), resolve(false)), 500);
      s.once('data', (d) => {
        clearTimeout(t);
        s.destroy();
        resolve(d.toString('latin1').startsWith('SSH-'));
      });
      s.once('error', () => (clearTimeout(t), resolve(false)));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`sshd did not answer on port ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startSshd(): Promise<Sshd> {
  const avail = sshdAvailability();
  if (!avail.ok) throw new Error(avail.reason);
  const dir = await fsp.mkdtemp(join(tmpdir(), 'kw-sshd-'));
  const passphrase = 'correct horse battery staple';
  const keys: UserKeys = {
    ed25519: join(dir, 'id_ed25519'),
    encrypted: join(dir, 'id_encrypted'),
    passphrase,
    rsa: join(dir, 'id_rsa'),
    unauthorized: join(dir, 'id_unauthorized'),
  };
  await Promise.all([
    keygen(join(dir, 'hostkey'), 'ed25519'),
    keygen(join(dir, 'otherhostkey'), 'ed25519'),
    keygen(keys.ed25519, 'ed25519'),
    keygen(keys.encrypted, 'ed25519', passphrase),
    keygen(keys.rsa, 'rsa'),
    keygen(keys.unauthorized, 'ed25519'),
  ]);
  const pub = async (p: string): Promise<string> =>
    (await fsp.readFile(`${p}.pub`, 'utf8')).trim().split(/\s+/).slice(0, 2).join(' ');
  const authorized = await Promise.all([keys.ed25519, keys.encrypted, keys.rsa].map(pub));
  await fsp.writeFile(join(dir, 'authorized_keys'), authorized.join('\n') + '\n', { mode: 0o600 });
  const hostKeyPub = await pub(join(dir, 'hostkey'));
  const otherHostKeyPub = await pub(join(dir, 'otherhostkey'));
  const user = userInfo().username;
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  await fsp.writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'hostkey')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `PidFile ${join(dir, 'sshd.pid')}`,
      'Subsystem sftp internal-sftp',
      'StrictModes no',
      'UsePAM no',
      `AllowUsers ${user}`,
      'PermitRootLogin prohibit-password',
      'LogLevel VERBOSE',
      // Clients of these tests must do their own keepalives; sshd's would mask what we test.
      'ClientAliveInterval 0',
      'MaxStartups 100',
      '',
    ].join('\n'),
  );
  await fsp.mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const log = join(dir, 'sshd.log');
  const child: ChildProcess = spawn(SSHD_PATH, ['-D', '-f', config, '-E', log], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    await waitForBanner(port, 5000);
  } catch (e) {
    child.kill('SIGKILL');
    const text = await fsp.readFile(log, 'utf8').catch(() => '');
    throw new Error(`${(e as Error).message}; sshd log:\n${text}`);
  }

  const childPids = async (): Promise<number[]> => {
    if (child.pid === undefined) return [];
    try {
      const { stdout } = await run('pgrep', ['-P', String(child.pid)]);
      return stdout.split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return []; // pgrep exits 1 when there is none
    }
  };

  return {
    host: '127.0.0.1',
    port,
    user,
    dir,
    keys,
    hostKeyPub,
    otherHostKeyPub,
    knownHostsLine: (p = port) => `${p === 22 ? '127.0.0.1' : `[127.0.0.1]:${p}`} ${hostKeyPub}`,
    async dropConnections() {
      for (const pid of await childPids()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
    async stop() {
      for (const pid of await childPids()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      if (!exited) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))]);
        if (!exited) child.kill('SIGKILL');
      }
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}

export interface TcpProxy {
  port: number;
  /** Destroys every proxied connection (the client sees a reset / EOF). */
  cut(): void;
  /** Stops forwarding in both directions without closing anything: a silent peer. */
  freeze(): void;
  /** Bytes forwarded client -> server so far (to cut at a chosen point of an upload). */
  readonly upstreamBytes: number;
  close(): Promise<void>;
}

/** A TCP proxy on loopback to targetPort, which the test can cut or freeze. */
export async function startProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let frozen = false;
  let upstreamBytes = 0;
  const server: Server = createServer((client) => {
    const upstream = netConnect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (d: Buffer) => {
      if (frozen) return; // swallow: nothing reaches the server, nothing comes back
      upstreamBytes += d.length;
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      if (!frozen) client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      for (const s of sockets) s.destroy();
    },
    freeze() {
      frozen = true;
    },
    get upstreamBytes() {
      return upstreamBytes;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server that accepts TCP connections and never says anything (for connect timeouts). */
export async function startSilentServer(): Promise<{ port: number; readonly open: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
    // Read and drop what arrives (never answered): a paused socket would not see the client close it.
    s.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Connections the peer holds now (a client that gave up must have closed its socket). */
    get open() {
      return sockets.size;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
