// The simulated Windows host's SSH front: an ssh2 Server behind our own TCP listener (so a reboot can
// drop every connection and refuse new ones), public-key auth read from the authorized_keys files as
// Windows OpenSSH does, exec of kube-windows ops only, an in-memory SFTP subsystem, and fault injection.
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { Server, utils, type Connection, type ServerChannel, type SFTPWrapper, type Attributes } from 'ssh2';
import { sshKeyPair } from '../ssh-keys';
import { runOp, OpError, type KubeadmExpectation, type OpContext } from './ops';
import { CommandRejected, readCommand } from './script';
import { attachShell } from './shell';
import { createState, normalisePath, parentOf, SimFs, type SimHostInit, type SimHostState } from './state';

export interface SimHostOptions extends SimHostInit {
  /** Loopback address to listen on (several hosts can share one port on 127.0.0.2, 127.0.0.3, ...). Default 127.0.0.1. */
  listenHost?: string;
  /** TCP port; default 0 (a free one). */
  port?: number;
  /** User → authorized public keys (OpenSSH lines). Only these users exist. */
  users: Record<string, string[]>;
  /** Users in the Administrators group (default: all): their keys live in administrators_authorized_keys. */
  administrators?: string[];
  /** What kubeadm join accepts; without it every join fails to reach the API server. */
  expectedJoin?: KubeadmExpectation;
  /** Called when kubeadm join succeeds (tests register the Node in the API emulator here). */
  onKubeadmJoin?: (info: { nodeName: string; build: string }) => void | Promise<void>;
  /** Archive file name → files it unpacks to (relative paths); containerd archives have a default. */
  archiveContents?: Record<string, Record<string, string | Buffer>>;
  /** Delay between restart-computer's answer and the reboot (stands for shutdown /t). Default 200 ms. */
  rebootDelayMs?: number;
  /** How long the host is down. Default 500 ms. */
  rebootDurationMs?: number;
  /** Added before every op answers. Default 0. */
  opLatencyMs?: number;
  /** OpenSSH private host key (to keep the same key across simulator instances); generated otherwise. */
  hostKeyPrivate?: string;
}

/** The host key as a client sees it. */
export interface SimHostKey {
  /** `ssh-ed25519 AAAA...` */
  public: string;
  /** OpenSSH private key text. */
  private: string;
}

export interface FaultOptions {
  /** How many times the fault fires (default 1); 0 removes a fault set before. */
  times?: number;
}

export interface SimHost {
  host: string;
  port: number;
  /** `ssh-ed25519 AAAA...` (the current key: changeHostKey replaces it). */
  readonly hostKeyPublic: string;
  readonly hostKeyPrivate: string;
  /** A known_hosts line for this host (`[127.0.0.1]:port ssh-ed25519 ...`, or the bare host on port 22). */
  knownHostsLine(): string;
  state: SimHostState;
  expectedJoin: KubeadmExpectation | undefined;
  onKubeadmJoin: SimHostOptions['onKubeadmJoin'];
  /** Open SSH connections. */
  readonly connections: number;
  readonly rebooting: boolean;
  /** The op fails (exit 1, message on stderr) before doing anything. */
  failOp(name: string, opts?: FaultOptions & { message?: string }): void;
  /** The connection is destroyed before the op runs, or after it ran but before it answers. */
  dropOnOp(name: string, opts?: FaultOptions & { after?: 'before' | 'after' }): void;
  /** The connection is destroyed once n more bytes have been written over SFTP (the first n land). */
  dropAfterSftpBytes(n: number): void;
  /** The op never answers (its channel stays open until the connection goes). */
  hangOp(name: string, opts?: FaultOptions): void;
  /**
   * The host presents another host key from now on (as after a reinstall, or a machine in the middle):
   * open connections are dropped, new ones get the new key. Returns the old and the new key.
   */
  changeHostKey(): { old: SimHostKey; now: SimHostKey };
  /** changeHostKey right after the op has answered (the client sees the answer, then the drop). */
  changeHostKeyAfterOp(name: string): void;
  /**
   * The host stops answering without closing anything (packets dropped, not reset): from now on no byte of any
   * open connection reaches the host or comes back, the sockets stay open, and new connections are accepted and
   * never answered. Ended by restoreNetwork.
   */
  blackhole(): void;
  /** blackhole() as the op arrives: the command is never answered, as on a host that vanished mid-command. */
  blackholeOnOp(name: string): void;
  /** Ends a blackhole: the silent connections are reset (as the host's stack does with stale ones), new ones served. */
  restoreNetwork(): void;
  /** Whether the host is blackholed now. */
  readonly blackholed: boolean;
  /** Forgets every fail, drop, hang and host-key fault not yet used. */
  clearFaults(): void;
  /** New TCP connections are closed at once for ms. */
  refuseConnections(ms: number): void;
  /** Destroys every open connection now. */
  dropConnections(): void;
  /** Replaces a user's authorized keys (in the file Windows OpenSSH reads for that user). */
  setAuthorizedKeys(user: string, keys: string[]): void;
  /** Resolves when the next reboot in progress (or scheduled) has finished; at once when none is. */
  whenRebooted(): Promise<void>;
  stop(): Promise<void>;
}

const { OPEN_MODE, STATUS_CODE } = utils.sftp;

interface Counted {
  times: number;
}

interface Handle {
  path: string;
  write: boolean;
  dir?: { entries: { name: string; directory: boolean; size: number }[]; done: boolean };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Registers a fault for name; `times: 0` removes it (so that it no longer fires at all). */
function arm<T extends Counted>(faults: Map<string, T>, name: string, fault: T): void {
  if (fault.times > 0) faults.set(name, fault);
  else faults.delete(name);
}

/** Consumes one use of a fault registered for name. */
function take<T extends Counted>(faults: Map<string, T>, name: string): T | undefined {
  const f = faults.get(name);
  if (!f) return undefined;
  f.times -= 1;
  if (f.times <= 0) faults.delete(name);
  return f;
}

export async function startWindowsHostSim(options: SimHostOptions): Promise<SimHost> {
  const users = Object.keys(options.users);
  const admins = new Set((options.administrators ?? users).map((u) => u.toLowerCase()));
  const state = createState(options, users);
  const fs = new SimFs(state);
  const authorizedKeys = new Map(users.map((u) => [u.toLowerCase(), options.users[u] ?? []]));
  // Windows OpenSSH's default sshd_config: administrators' keys are read from ONE machine-wide file.
  const writeKeyFiles = (): void => {
    const lines = (us: string[]): Buffer =>
      Buffer.from(
        us
          .flatMap((u) => authorizedKeys.get(u.toLowerCase()) ?? [])
          .map((k) => k + '\r\n')
          .join(''),
      );
    fs.write(
      'C:\\ProgramData\\ssh\\administrators_authorized_keys',
      lines(users.filter((u) => admins.has(u.toLowerCase()))),
    );
    for (const u of users.filter((x) => !admins.has(x.toLowerCase()))) {
      fs.mkdirp(`C:\\Users\\${u}\\.ssh`);
      fs.write(`C:\\Users\\${u}\\.ssh\\authorized_keys`, lines([u]));
    }
  };
  writeKeyFiles();

  const hostKeyOf = (privateKey: string): SimHostKey => {
    const parsed = utils.parseKey(privateKey);
    if (parsed instanceof Error) throw parsed;
    return { public: `${parsed.type} ${parsed.getPublicSSH().toString('base64')}`, private: privateKey };
  };
  let hostKey = hostKeyOf(options.hostKeyPrivate ?? sshKeyPair().private);

  const failFaults = new Map<string, Counted & { message: string }>();
  const dropFaults = new Map<string, Counted & { after: 'before' | 'after' }>();
  const hangFaults = new Map<string, Counted>();
  const hostKeyChangeAfter = new Set<string>();
  let sftpBudget: number | undefined;
  let silent = false;
  const blackholeOps = new Set<string>();
  const silentSockets = new Set<Socket>();
  let refuseUntil = 0;
  let stopped = false;
  let rebootScheduled = false;
  let rebooting = false;
  let rebootWaiters: (() => void)[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const byPeer = new Map<string, Socket>();
  const rebootDelayMs = options.rebootDelayMs ?? 200;
  const rebootDurationMs = options.rebootDurationMs ?? 500;

  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const dropAll = (): void => {
    for (const s of [...sockets]) s.destroy();
  };

  function reboot(): void {
    rebooting = true;
    refuseUntil = Math.max(refuseUntil, Date.now() + rebootDurationMs);
    dropAll();
    later(rebootDurationMs, () => {
      // What a restart finishes: pending features, reboot flag, and services by start type.
      if (state.containersFeature === 'EnablePending') state.containersFeature = 'Enabled';
      if (state.containersFeature === 'DisablePending') state.containersFeature = 'Disabled';
      state.rebootPending = false;
      state.bootCount += 1;
      state.bootedAt = Date.now();
      for (const [n, s] of state.services) {
        if (s.startType !== 'Auto') s.status = 'Stopped';
        else if (n.toLowerCase() === 'kubelet' && !fs.isFile('C:\\var\\lib\\kubelet\\config.yaml'))
          s.status = 'Stopped';
        else s.status = 'Running';
      }
      rebooting = false;
      rebootScheduled = false;
      const waiters = rebootWaiters;
      rebootWaiters = [];
      for (const w of waiters) w();
    });
  }

  const sim: SimHost = {
    host: options.listenHost ?? '127.0.0.1',
    port: 0,
    get hostKeyPublic() {
      return hostKey.public;
    },
    get hostKeyPrivate() {
      return hostKey.private;
    },
    knownHostsLine: () => `${sim.port === 22 ? sim.host : `[${sim.host}]:${sim.port}`} ${hostKey.public}`,
    state,
    expectedJoin: options.expectedJoin,
    onKubeadmJoin: options.onKubeadmJoin,
    get connections() {
      return sockets.size;
    },
    get rebooting() {
      return rebooting;
    },
    failOp: (name, o = {}) =>
      arm(failFaults, name, { times: o.times ?? 1, message: o.message ?? `${name} failed (injected fault)` }),
    dropOnOp: (name, o = {}) => arm(dropFaults, name, { times: o.times ?? 1, after: o.after ?? 'before' }),
    dropAfterSftpBytes: (n) => void (sftpBudget = n),
    hangOp: (name, o = {}) => arm(hangFaults, name, { times: o.times ?? 1 }),
    changeHostKey() {
      const old = hostKey;
      hostKey = hostKeyOf(sshKeyPair().private);
      ssh = sshServer(hostKey.private);
      // As sshd restarting with the new key: what was already written still reaches the client.
      for (const sock of [...sockets]) sock.end(() => sock.destroy());
      return { old, now: hostKey };
    },
    changeHostKeyAfterOp: (name) => void hostKeyChangeAfter.add(name),
    blackhole() {
      silent = true;
      for (const sock of sockets) silentSockets.add(sock);
    },
    blackholeOnOp: (name) => void blackholeOps.add(name),
    restoreNetwork() {
      silent = false;
      for (const sock of [...silentSockets]) sock.destroy();
      silentSockets.clear();
    },
    get blackholed() {
      return silent;
    },
    clearFaults() {
      blackholeOps.clear();
      for (const faults of [failFaults, dropFaults, hangFaults, hostKeyChangeAfter]) faults.clear();
      sftpBudget = undefined;
    },
    refuseConnections: (ms) => void (refuseUntil = Math.max(refuseUntil, Date.now() + ms)),
    dropConnections: dropAll,
    setAuthorizedKeys(user, keys) {
      if (!users.some((u) => u.toLowerCase() === user.toLowerCase())) users.push(user);
      authorizedKeys.set(user.toLowerCase(), keys);
      writeKeyFiles();
    },
    whenRebooted: () =>
      rebootScheduled || rebooting ? new Promise<void>((r) => rebootWaiters.push(r)) : Promise.resolve(),
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      dropAll();
      for (const w of rebootWaiters) w();
      rebootWaiters = [];
      await new Promise<void>((r) => tcp.close(() => r()));
    },
  };

  function keysFor(user: string): string[] {
    const file = admins.has(user.toLowerCase())
      ? 'C:\\ProgramData\\ssh\\administrators_authorized_keys'
      : `C:\\Users\\${user}\\.ssh\\authorized_keys`;
    if (!fs.isFile(file)) return [];
    return fs
      .read(file)
      .toString('utf8')
      .split(/\r?\n/)
      .filter((l) => l.trim() && !l.startsWith('#'));
  }

  function authorize(
    user: string,
    algo: string,
    data: Buffer,
    signature?: Buffer,
    blob?: Buffer,
    hashAlgo?: string,
  ): 'accept' | 'reject' {
    if (!users.some((u) => u.toLowerCase() === user.toLowerCase())) return 'reject';
    for (const line of keysFor(user)) {
      const key = utils.parseKey(line);
      if (key instanceof Error) continue;
      if (key.type !== algo && !(key.type === 'ssh-rsa' && algo.startsWith('rsa-sha2-'))) continue;
      if (!key.getPublicSSH().equals(data)) continue;
      // No signature: the client only asks whether this key would do.
      if (!signature) return 'accept';
      return blob && key.verify(blob, signature, hashAlgo) === true ? 'accept' : 'reject';
    }
    return 'reject';
  }

  const opContext = (user: string): OpContext => ({
    state,
    user,
    isAdministrator: state.isAdministrator && admins.has(user.toLowerCase()),
    ...(sim.expectedJoin ? { expectedJoin: sim.expectedJoin } : {}),
    ...(sim.onKubeadmJoin ? { onKubeadmJoin: sim.onKubeadmJoin } : {}),
    archiveContents: new Map(Object.entries(options.archiveContents ?? {})),
    scheduleReboot() {
      if (rebootScheduled || rebooting) return false;
      rebootScheduled = true;
      later(rebootDelayMs, reboot);
      return true;
    },
  });

  async function exec(socket: Socket, user: string, ch: ServerChannel, command: string): Promise<void> {
    const finish = (code: number, stdout: string, stderr: string): void => {
      if (ch.destroyed) return;
      if (stdout) ch.write(stdout);
      if (stderr) ch.stderr.write(stderr);
      ch.exit(code);
      ch.end();
    };
    let parsed;
    try {
      parsed = await readCommand(command);
    } catch (e) {
      if (e instanceof CommandRejected) return finish(1, '', e.message + '\r\n');
      throw e;
    }
    const { name, params } = parsed;
    if (options.opLatencyMs) await sleep(options.opLatencyMs);
    if (blackholeOps.delete(name)) {
      state.opLog.push({ name, params, user, at: new Date(), fault: 'blackhole' });
      sim.blackhole();
      return;
    }
    if (take(hangFaults, name)) {
      state.opLog.push({ name, params, user, at: new Date(), fault: 'hang' });
      return;
    }
    const drop = take(dropFaults, name);
    if (drop?.after === 'before') {
      socket.destroy();
      return;
    }
    const fail = take(failFaults, name);
    state.opLog.push({ name, params, user, at: new Date(), ...(fail ? { fault: 'fail' } : {}) });
    if (fail) return finish(1, '', fail.message + '\r\n');
    let result;
    try {
      result = await runOp(opContext(user), name, params);
    } catch (e) {
      if (e instanceof OpError) return finish(1, '', e.message + '\r\n');
      return finish(1, '', `simulator error in ${name}: ${(e as Error).stack ?? String(e)}\r\n`);
    }
    if (drop) {
      socket.destroy();
      return;
    }
    // [Console]::Out.WriteLine on Windows ends the line with CRLF.
    finish(0, `KWRESULT ${JSON.stringify(result)}\r\n`, '');
    if (hostKeyChangeAfter.delete(name)) sim.changeHostKey();
  }

  function sftpSession(socket: Socket, user: string, sftp: SFTPWrapper): void {
    const handles = new Map<number, Handle>();
    let nextHandle = 1;
    const home = `C:\\Users\\${user}`;
    /** SFTP path → Windows path; Windows OpenSSH speaks `/C:/dir/file`. */
    const toWin = (p: string): string | undefined => {
      if (p === '' || p === '.') return home;
      if (/^\/?[A-Za-z]:([\\/]|$)/.test(p)) return normalisePath(p);
      if (p.startsWith('/') || p.startsWith('\\')) return undefined;
      return normalisePath(`${home}\\${p}`);
    };
    const toSftp = (w: string): string =>
      '/' +
      normalisePath(w)
        .replace(/\\/g, '/')
        .replace(/\/$/, (m) => (normalisePath(w).length === 3 ? m : ''));
    const attrsOf = (w: string): Attributes => {
      const now = Math.floor(Date.now() / 1000);
      if (fs.isDir(w)) return { mode: 0o040755, uid: 0, gid: 0, size: 0, atime: now, mtime: now };
      return { mode: 0o100644, uid: 0, gid: 0, size: fs.read(w).length, atime: now, mtime: now };
    };
    const handleOf = (b: Buffer): Handle | undefined => (b.length === 4 ? handles.get(b.readUInt32BE(0)) : undefined);
    const newHandle = (h: Handle): Buffer => {
      const id = nextHandle++;
      handles.set(id, h);
      const b = Buffer.alloc(4);
      b.writeUInt32BE(id, 0);
      return b;
    };
    const parentMissing = (w: string): boolean => {
      const parent = parentOf(w);
      return parent === undefined || !fs.isDir(parent);
    };

    sftp.on('OPEN', (id, filename, flags) => {
      const w = toWin(filename);
      if (!w || parentMissing(w)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      if (fs.isDir(w)) return sftp.status(id, STATUS_CODE.FAILURE, 'Is a directory');
      const exists = fs.isFile(w);
      if (!exists && !(flags & OPEN_MODE.CREAT)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      if (exists && flags & OPEN_MODE.CREAT && flags & OPEN_MODE.EXCL)
        return sftp.status(id, STATUS_CODE.FAILURE, 'File exists');
      if (!exists || flags & OPEN_MODE.TRUNC) fs.write(w, Buffer.alloc(0));
      sftp.handle(id, newHandle({ path: w, write: (flags & (OPEN_MODE.WRITE | OPEN_MODE.APPEND)) !== 0 }));
    });
    sftp.on('WRITE', (id, hb, offset, data) => {
      const h = handleOf(hb);
      if (!h || !h.write || h.dir) return sftp.status(id, STATUS_CODE.FAILURE, 'Bad handle');
      let chunk = data;
      let dropAfter = false;
      if (sftpBudget !== undefined) {
        if (data.length >= sftpBudget) {
          chunk = data.subarray(0, sftpBudget);
          sftpBudget = undefined;
          dropAfter = true;
        } else sftpBudget -= data.length;
      }
      if (!fs.isFile(h.path)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      const cur = fs.read(h.path);
      const end = offset + chunk.length;
      const next = Buffer.alloc(Math.max(cur.length, end));
      cur.copy(next, 0);
      chunk.copy(next, offset);
      fs.write(h.path, next);
      // The bytes that reached the disk stay there: a partial upload is a partial file.
      if (dropAfter) return void socket.destroy();
      sftp.status(id, STATUS_CODE.OK);
    });
    sftp.on('READ', (id, hb, offset, len) => {
      const h = handleOf(hb);
      if (!h || h.dir) return sftp.status(id, STATUS_CODE.FAILURE, 'Bad handle');
      if (!fs.isFile(h.path)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      const data = fs.read(h.path);
      if (offset >= data.length) return sftp.status(id, STATUS_CODE.EOF);
      sftp.data(id, data.subarray(offset, Math.min(data.length, offset + len)));
    });
    sftp.on('FSTAT', (id, hb) => {
      const h = handleOf(hb);
      if (!h || !fs.exists(h.path)) return sftp.status(id, STATUS_CODE.FAILURE, 'Bad handle');
      sftp.attrs(id, attrsOf(h.path));
    });
    sftp.on('FSETSTAT', (id) => sftp.status(id, STATUS_CODE.OK));
    sftp.on('SETSTAT', (id) => sftp.status(id, STATUS_CODE.OK));
    sftp.on('CLOSE', (id, hb) => {
      const known = hb.length === 4 && handles.delete(hb.readUInt32BE(0));
      sftp.status(id, known ? STATUS_CODE.OK : STATUS_CODE.FAILURE);
    });
    const stat = (id: number, p: string): void => {
      const w = toWin(p);
      if (!w || !fs.exists(w)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      sftp.attrs(id, attrsOf(w));
    };
    sftp.on('STAT', stat);
    sftp.on('LSTAT', stat);
    sftp.on('REMOVE', (id, p) => {
      const w = toWin(p);
      if (!w || !fs.exists(w)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      if (fs.isDir(w)) return sftp.status(id, STATUS_CODE.FAILURE, 'Is a directory');
      fs.remove(w);
      sftp.status(id, STATUS_CODE.OK);
    });
    sftp.on('RMDIR', (id, p) => {
      const w = toWin(p);
      if (!w || !fs.isDir(w)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      if (fs.children(w).length > 0) return sftp.status(id, STATUS_CODE.FAILURE, 'The directory is not empty.');
      fs.remove(w);
      sftp.status(id, STATUS_CODE.OK);
    });
    sftp.on('MKDIR', (id, p) => {
      const w = toWin(p);
      if (!w || parentMissing(w)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      if (fs.exists(w)) return sftp.status(id, STATUS_CODE.FAILURE, 'File exists');
      fs.mkdirp(w);
      sftp.status(id, STATUS_CODE.OK);
    });
    sftp.on('RENAME', (id, from, to) => {
      const a = toWin(from);
      const b = toWin(to);
      if (!a || !b || !fs.isFile(a) || parentMissing(b))
        return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      // Windows OpenSSH (plain SSH_FXP_RENAME) does not replace an existing file.
      if (fs.exists(b)) return sftp.status(id, STATUS_CODE.FAILURE, 'File exists');
      fs.move(a, b);
      sftp.status(id, STATUS_CODE.OK);
    });
    sftp.on('REALPATH', (id, p) => {
      const w = toWin(p);
      if (!w) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      const name = toSftp(w);
      sftp.name(id, [
        { filename: name, longname: name, attrs: { mode: 0o040755, uid: 0, gid: 0, size: 0, atime: 0, mtime: 0 } },
      ]);
    });
    sftp.on('OPENDIR', (id, p) => {
      const w = toWin(p);
      if (!w || !fs.isDir(w)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'No such file');
      const entries = fs
        .children(w)
        .map((c) => ({ name: c.name, directory: c.directory, size: c.directory ? 0 : fs.read(c.path).length }));
      sftp.handle(id, newHandle({ path: w, write: false, dir: { entries, done: false } }));
    });
    sftp.on('READDIR', (id, hb) => {
      const h = handleOf(hb);
      if (!h?.dir) return sftp.status(id, STATUS_CODE.FAILURE, 'Bad handle');
      if (h.dir.done) return sftp.status(id, STATUS_CODE.EOF);
      h.dir.done = true;
      const now = Math.floor(Date.now() / 1000);
      sftp.name(
        id,
        h.dir.entries.map((e) => ({
          filename: e.name,
          longname: `${e.directory ? 'd' : '-'}rw-r--r--   1 ${user} ${user} ${e.size} Jan  1 00:00 ${e.name}`,
          attrs: { mode: e.directory ? 0o040755 : 0o100644, uid: 0, gid: 0, size: e.size, atime: now, mtime: now },
        })),
      );
    });
  }

  const onClient = (client: Connection, info: { ip: string; port: number }): void => {
    const socket = byPeer.get(`${info.ip}:${info.port}`);
    client.on('error', () => undefined); // dropped sockets are expected here
    if (!socket) {
      client.end();
      return;
    }
    let user = '';
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
      const verdict = authorize(ctx.username, ctx.key.algo, ctx.key.data, ctx.signature, ctx.blob, ctx.hashAlgo);
      if (verdict === 'reject') return ctx.reject(['publickey']);
      user = users.find((u) => u.toLowerCase() === ctx.username.toLowerCase()) ?? ctx.username;
      ctx.accept();
    });
    client.on('session', (acceptSession) => {
      const session = acceptSession();
      // An interactive PowerShell on a pty, for the SSH terminal (./shell.ts); the engine never asks for one.
      const shellExec = attachShell(session, () => user, state);
      session.on('exec', (accept, _reject, execInfo) => {
        if (shellExec(execInfo.command, accept)) return;
        const ch = accept();
        ch.on('error', () => undefined);
        exec(socket, user, ch, execInfo.command).catch((e: unknown) => {
          if (!ch.destroyed) {
            ch.stderr.write(`simulator error: ${String(e)}\r\n`);
            ch.exit(1);
            ch.end();
          }
        });
      });
      session.on('sftp', (accept) => sftpSession(socket, user, accept()));
    });
  };
  // One server per host key: a key change takes a new one, connections already made keep theirs.
  const sshServer = (key: string): Server => new Server({ hostKeys: [key] }, onClient);
  let ssh = sshServer(hostKey.private);

  /** Drops what a socket receives and what is written to it once its connection is blackholed (it stays open). */
  const muteWhenBlackholed = (socket: Socket): void => {
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) =>
      event === 'data' && silentSockets.has(socket) ? true : emit(event, ...args)) as Socket['emit'];
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      if (!silentSockets.has(socket)) return write(...args);
      const done = args.find((a) => typeof a === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as Socket['write'];
  };

  const tcp: NetServer = createServer((socket) => {
    if (stopped || Date.now() < refuseUntil) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => silentSockets.delete(socket));
    if (silent) {
      // Accepted by the kernel, never answered: what a client sees of a host whose packets are dropped.
      silentSockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      return;
    }
    muteWhenBlackholed(socket);
    // Small SSH packets otherwise wait on delayed ACKs (~40 ms per round trip on Linux).
    socket.setNoDelay(true);
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    byPeer.set(peer, socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      byPeer.delete(peer);
    });
    ssh.injectSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(options.port ?? 0, sim.host, () => resolve());
  });
  sim.port = (tcp.address() as { port: number }).port;
  return sim;
}
