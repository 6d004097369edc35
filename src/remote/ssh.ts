// The SSH transport: HostConnector / HostConnection over ssh2. Host keys are checked against
// known_hosts inside the key exchange (before any authentication or command), connection failures
// map to the error classes of ./types, and every operation can be cancelled or time-limited.
import { Client, type ClientChannel, type AuthenticationType, type AnyAuthMethod, type SFTPWrapper } from 'ssh2';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  addKnownHost,
  fingerprintSha256,
  keyTypeOfBlob,
  knownHostsName,
  readKnownHosts,
  type KnownHosts,
} from './known-hosts';
import { loadPrivateKey, type PassphrasePrompt } from './keys';
import { SftpUploader } from './sftp-put';
import { sftpDownload } from './sftp-get';
import {
  AuthenticationError,
  CommandTimeoutError,
  ConnectionLostError,
  ConnectTimeoutError,
  HostKeyChangedError,
  HostKeyRevokedError,
  HostKeyUnknownError,
  RemoteError,
  type ExecOptions,
  type ExecResult,
  type GetOptions,
  type HostConnection,
  type HostConnector,
  type PutOptions,
  type UploadSource,
} from './types';

export interface SshConnectorOptions {
  host: string;
  /** Default 22. */
  port?: number;
  username: string;
  /** Private key file for public-key authentication. */
  privateKeyPath?: string;
  /** Asked when the private key is encrypted; undefined = cancelled. */
  askPassphrase?: PassphrasePrompt;
  /** ssh-agent socket (e.g. SSH_AUTH_SOCK); its keys are tried before privateKeyPath. */
  agent?: string;
  /** Default ~/.ssh/known_hosts. */
  knownHostsPath?: string;
  /**
   * Trust on first use: called when known_hosts has no key for the host. Only an explicit `true`
   * adds the key to known_hosts and continues; anything else refuses before authentication.
   * `otherKnownTypes` lists key types known_hosts already pins for this host (non-empty: the host
   * offered a new key type, which deserves a warning in the prompt).
   */
  confirmUnknownHost?: (
    host: string,
    port: number,
    fingerprint: string,
    keyType: string,
    otherKnownTypes: string[],
  ) => Promise<boolean>;
  /** TCP connect + SSH handshake + authentication, not counting time spent in prompts. Default 20 s. */
  connectTimeoutMs?: number;
  /** Default 10 s. */
  keepaliveIntervalMs?: number;
  /** Unanswered keepalives before the connection counts as lost. Default 3. */
  keepaliveCountMax?: number;
  /** Cap on a command's collected stdout + stderr. Default 16 MiB. */
  maxOutputBytes?: number;
}

const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;

export interface ShellOptions {
  cols: number;
  rows: number;
  /** Aborting closes the channel. */
  signal?: AbortSignal;
  /** TERM sent with the pty request. Default xterm-256color (what VS Code's terminal emulates). */
  term?: string;
  /** Run this command on the pty instead of the host's default shell (fixed text from our code only). */
  command?: string;
}

/** An interactive shell channel: a duplex byte stream with the terminal size forwarded to the host. */
export type ShellStream = ClientChannel & { resize(cols: number, rows: number): void };

// ssh2's default host key algorithms, in its order; used to put the types known_hosts pins first.
const HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/**
 * Host key algorithms with the ones known_hosts pins first, as OpenSSH does, so a pinned RSA key is not reported as
 * unknown.
 */
function hostKeyAlgorithms(pinned: string[]): string[] | undefined {
  if (pinned.length === 0) return undefined;
  const first = pinned
    .flatMap((t) => (t === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [t]))
    .filter((t) => HOST_KEY_ALGORITHMS.includes(t));
  return [...new Set([...first, ...HOST_KEY_ALGORITHMS])];
}

/** A timer that can be paused while the user answers a prompt. */
class PausableTimer {
  private handle: NodeJS.Timeout | undefined;
  private remaining: number;
  private startedAt = 0;

  constructor(
    ms: number,
    private readonly fire: () => void,
  ) {
    this.remaining = ms;
    this.resume();
  }

  pause(): void {
    if (!this.handle) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    this.remaining -= Date.now() - this.startedAt;
  }

  resume(): void {
    if (this.handle) return;
    this.startedAt = Date.now();
    this.handle = setTimeout(this.fire, Math.max(0, this.remaining));
  }

  clear(): void {
    clearTimeout(this.handle);
    this.handle = undefined;
  }
}

interface Ssh2Error extends Error {
  level?: string;
  code?: string;
}

const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/** A socket-level failure while connecting, in words a user can act on. */
function socketError(label: string, port: number, err: Ssh2Error): RemoteError {
  const code = err.code ?? '';
  const why: Record<string, string> = {
    ECONNREFUSED: `connection refused (is the SSH server running and listening on port ${port}?)`,
    ECONNRESET: 'the connection was reset by the host',
    ETIMEDOUT: 'the TCP connection timed out',
    EHOSTUNREACH: 'the host is unreachable (check the address and the network route)',
    ENETUNREACH: 'the network is unreachable',
    ENOTFOUND: 'the host name could not be resolved (check the name or DNS)',
    EAI_AGAIN: 'the host name could not be resolved right now (DNS)',
  };
  const reason = why[code] ?? err.message;
  return new RemoteError(`Could not connect to ${label}: ${reason}.`, {
    cause: err,
    transient: TRANSIENT_CODES.has(code) || code === 'EAI_AGAIN',
  });
}

export class SshConnector implements HostConnector {
  readonly label: string;
  private readonly port: number;
  private readonly knownHostsPath: string;

  constructor(private readonly options: SshConnectorOptions) {
    this.port = options.port ?? 22;
    this.label = `${options.username}@${options.host}:${this.port}`;
    this.knownHostsPath = options.knownHostsPath ?? join(homedir(), '.ssh', 'known_hosts');
  }

  async connect(signal?: AbortSignal): Promise<HostConnection> {
    signal?.throwIfAborted();
    let knownHosts: KnownHosts;
    try {
      knownHosts = await readKnownHosts(this.knownHostsPath);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      throw new RemoteError(
        `Cannot read the known_hosts file ${this.knownHostsPath} (${code}); the host key of ${this.label} cannot be checked.`,
        { cause: e },
      );
    }
    signal?.throwIfAborted();
    return new Promise<HostConnection>((resolve, reject) => this.handshake(knownHosts, signal, resolve, reject));
  }

  private handshake(
    knownHosts: KnownHosts,
    signal: AbortSignal | undefined,
    resolve: (c: HostConnection) => void,
    reject: (e: unknown) => void,
  ): void {
    const o = this.options;
    const { label, port } = this;
    const connectTimeoutMs = o.connectTimeoutMs ?? 20_000;
    const client = new Client();
    let settled = false;
    // A precise error decided by our own code (host key, key file), preferred over ssh2's generic one.
    let decided: Error | undefined;
    const triedKeys: string[] = [];

    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      timer.clear();
      signal?.removeEventListener('abort', onAbort);
      client.removeAllListeners('ready');
      // Keep an error listener: ssh2 may still emit while the socket is torn down.
      client.removeAllListeners('error');
      client.on('error', () => undefined);
      client.destroy();
      reject(err);
    };
    const onAbort = (): void => fail(signal?.reason);
    const timer = new PausableTimer(connectTimeoutMs, () => fail(new ConnectTimeoutError(label, connectTimeoutMs)));
    signal?.addEventListener('abort', onAbort, { once: true });

    // Runs a user prompt with the connect timer stopped, so that reading a dialog is not a timeout.
    const prompting = async <T>(ask: () => Promise<T>): Promise<T> => {
      timer.pause();
      try {
        return await ask();
      } finally {
        if (!settled) timer.resume();
      }
    };

    const verifyHost = async (keyBlob: Buffer): Promise<boolean> => {
      const keyType = keyTypeOfBlob(keyBlob);
      const fingerprint = fingerprintSha256(keyBlob);
      const name = knownHostsName(o.host, port);
      const found = knownHosts.lookup(o.host, port, keyType, keyBlob);
      switch (found.status) {
        case 'match':
          return true;
        case 'revoked':
          throw new HostKeyRevokedError(name, fingerprint, this.knownHostsPath, found.line);
        case 'changed':
          throw new HostKeyChangedError(name, fingerprint, this.knownHostsPath, found.line, keyType, found.pinned);
        case 'unknown':
          break;
      }
      const confirm = o.confirmUnknownHost;
      const accepted = confirm
        ? await prompting(() => confirm(o.host, port, fingerprint, keyType, found.knownTypes))
        : false;
      if (accepted !== true) throw new HostKeyUnknownError(name, fingerprint);
      if (settled) return false;
      await addKnownHost(this.knownHostsPath, o.host, port, keyType, keyBlob);
      return true;
    };

    // Which method to try next: agent keys, then the key file; false ends authentication.
    let step = 0;
    const authHandler = (
      _left: AuthenticationType[],
      _partial: boolean,
      next: (m: AuthenticationType | AnyAuthMethod) => void,
    ): void => {
      const giveUp = (): void => next(false as unknown as AuthenticationType); // ssh2 accepts false: "no more methods"
      const current = step++;
      if (current === 0 && o.agent) {
        triedKeys.push('the keys of the SSH agent');
        next({ type: 'agent', username: o.username, agent: o.agent });
        return;
      }
      if (current <= 1 && o.privateKeyPath) {
        step = 2;
        const keyPath = o.privateKeyPath;
        const ask = o.askPassphrase;
        triedKeys.push(`key ${keyPath}`);
        prompting(() => loadPrivateKey(keyPath, ask)).then(
          (loaded) => next({ type: 'publickey', username: o.username, key: loaded.key }),
          (err: unknown) => {
            decided = err instanceof Error ? err : new AuthenticationError(String(err));
            giveUp();
          },
        );
        return;
      }
      giveUp();
    };

    client.on('ready', () => {
      if (settled) return;
      settled = true;
      timer.clear();
      signal?.removeEventListener('abort', onAbort);
      client.removeAllListeners('error');
      client.removeAllListeners('close');
      // Small request/answer exchanges (one PowerShell op each) must not wait for Nagle's delay.
      client.setNoDelay(true);
      resolve(new SshConnection(client, label, o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT));
    });
    client.on('error', (err: Ssh2Error) => {
      if (err.level === 'agent') return; // agent unavailable: ssh2 goes on with the next method
      if (decided) return fail(decided);
      if (err.level === 'client-authentication') {
        const tried = triedKeys.length ? triedKeys.join(' and ') : 'no key (none configured)';
        return fail(
          new AuthenticationError(
            `Authentication to ${label} failed: the host refused ${tried} for user ${o.username}.`,
            { cause: err },
          ),
        );
      }
      if (err.level === 'client-socket' || err.level === 'client-dns') return fail(socketError(label, port, err));
      // A link lost during the handshake (host rebooting, sshd restarting) is worth another try.
      const lost = /connection lost|ECONNRESET|EPIPE/i.test(err.message);
      fail(new RemoteError(`SSH handshake with ${label} failed: ${err.message}`, { cause: err, transient: lost }));
    });
    client.on('close', () =>
      fail(
        decided ??
          new ConnectionLostError(label, new Error('the host closed the connection before the session was ready')),
      ),
    );

    if (signal?.aborted) return onAbort();
    const serverHostKey = hostKeyAlgorithms(knownHosts.keyTypesFor(o.host, port));
    client.connect({
      host: o.host,
      port,
      username: o.username,
      readyTimeout: 0, // our own timer, which pauses during prompts
      keepaliveInterval: o.keepaliveIntervalMs ?? 10_000,
      keepaliveCountMax: o.keepaliveCountMax ?? 3,
      ...(serverHostKey ? { algorithms: { serverHostKey: serverHostKey as never } } : {}),
      authHandler,
      // Returning nothing selects ssh2's asynchronous form: verify() is called when we know.
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void): void => {
        verifyHost(key).then(verify, (err: unknown) => {
          decided = err instanceof Error ? err : new RemoteError(String(err));
          verify(false);
        });
      },
    });
  }
}

/** One live SSH connection: exec and SFTP. */
export class SshConnection implements HostConnection {
  private alive = true;
  private lostError: ConnectionLostError | undefined;
  /** Called when the connection drops, so that running operations fail at once. */
  private readonly onLost = new Set<(err: ConnectionLostError) => void>();
  private sftpSession: Promise<SFTPWrapper> | undefined;

  constructor(
    private readonly client: Client,
    readonly label: string,
    private readonly maxOutputBytes: number,
  ) {
    let cause: Error | undefined;
    client.on('error', (err: Ssh2Error) => {
      cause = err.level === 'client-timeout' ? new Error('the host stopped answering keepalives') : err;
    });
    client.on('close', () => this.lost(cause ?? new Error('the connection closed')));
  }

  get connected(): boolean {
    return this.alive;
  }

  private lost(cause: Error): void {
    if (!this.alive) return;
    this.alive = false;
    this.lostError = new ConnectionLostError(this.label, cause);
    for (const cb of [...this.onLost]) cb(this.lostError);
    this.onLost.clear();
  }

  private ensureAlive(): void {
    if (!this.alive) throw this.lostError ?? new ConnectionLostError(this.label);
  }

  /** Registers cleanup for one operation; the returned function unregisters it. */
  watch(onLost: (err: ConnectionLostError) => void): () => void {
    this.onLost.add(onLost);
    return () => this.onLost.delete(onLost);
  }

  /**
   * Runs argv joined with single spaces. The argv must come from powershellCommand (or test code):
   * it is sent as one command line, with no quoting added here.
   */
  exec(argv: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const { signal, timeoutMs, stdin } = options;
    return new Promise<ExecResult>((resolve, reject) => {
      signal?.throwIfAborted();
      this.ensureAlive();
      let channel: ClientChannel | undefined;
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const stop = (): void => {
        if (!channel) return;
        // Ask the remote side to end the process (servers may ignore it), then drop the channel.
        try {
          channel.signal('KILL');
        } catch {
          // the channel may already be closing
        }
        channel.close();
      };
      const finish = (err: unknown, result?: ExecResult): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        unwatch();
        signal?.removeEventListener('abort', onAbort);
        if (err !== undefined) {
          stop();
          reject(err);
        } else resolve(result!);
      };
      const onAbort = (): void => finish(signal?.reason);
      const unwatch = this.watch((lostErr) => finish(lostErr));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined)
        timer = setTimeout(() => finish(new CommandTimeoutError(this.label, timeoutMs)), timeoutMs);

      this.client.exec(argv.join(' '), (err, stream) => {
        if (err)
          return finish(
            this.alive
              ? new RemoteError(`Could not start a command on ${this.label}: ${err.message}`, { cause: err })
              : this.lostError,
          );
        channel = stream;
        if (done) return stop();
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let size = 0;
        let exitCode: number | null = null;
        let exitSignal: string | undefined;
        const collect = (into: Buffer[]) => (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxOutputBytes) {
            finish(
              new RemoteError(
                `A command on ${this.label} wrote more than ${Math.round(this.maxOutputBytes / 1048576)} MB of output; it was stopped.`,
              ),
            );
            return;
          }
          into.push(chunk);
        };
        stream.on('data', collect(out));
        stream.stderr.on('data', collect(errOut));
        stream.on('exit', (code: number | null, sig?: string) => {
          exitCode = typeof code === 'number' ? code : null;
          if (sig) exitSignal = sig;
        });
        stream.on('close', () => {
          const result: ExecResult = {
            exitCode,
            stdout: Buffer.concat(out).toString('utf8'),
            stderr: Buffer.concat(errOut).toString('utf8'),
          };
          if (exitSignal) result.signal = exitSignal;
          finish(undefined, result);
        });
        // Always close stdin so that a command reading it does not wait forever.
        if (stdin !== undefined)
          stream.end(typeof stdin === 'string' ? Buffer.from(stdin, 'utf8') : Buffer.from(stdin));
        else stream.end();
      });
    });
  }

  /**
   * An interactive shell (the host's default shell; on Windows OpenSSH with DefaultShell set, PowerShell)
   * on a pseudo-terminal. Not part of HostConnection: only the SSH terminal uses it. The stream closes
   * when the connection drops, when the signal aborts, or when the remote shell exits.
   */
  shell(options: ShellOptions): Promise<ShellStream> {
    const { cols, rows, signal } = options;
    return new Promise<ShellStream>((resolve, reject) => {
      signal?.throwIfAborted();
      this.ensureAlive();
      let settled = false;
      const unwatchOpen = this.watch((e) => {
        settled = true;
        reject(e);
      });
      const pty = { term: options.term ?? 'xterm-256color', cols, rows, width: 0, height: 0 };
      const opened = (err: Error | undefined, channel: ClientChannel): void => {
        unwatchOpen();
        if (settled) {
          channel?.close();
          return;
        }
        if (err)
          return reject(
            this.alive
              ? new RemoteError(`Could not open a shell on ${this.label}: ${err.message}`, { cause: err })
              : this.lostError,
          );
        // ssh2 may not close a channel whose connection went away: end it ourselves so readers see 'close'.
        const unwatch = this.watch(() => channel.destroy());
        const onAbort = (): void => void channel.close();
        signal?.addEventListener('abort', onAbort, { once: true });
        channel.once('close', () => {
          unwatch();
          signal?.removeEventListener('abort', onAbort);
        });
        if (signal?.aborted) onAbort();
        resolve(Object.assign(channel, { resize: (c: number, r: number) => void channel.setWindow(r, c, 0, 0) }));
      };
      // A command on a pty (e.g. powershell.exe) whatever the host's DefaultShell; else the default shell.
      if (options.command) this.client.exec(options.command, { pty }, opened);
      else this.client.shell(pty, opened);
    });
  }

  /** The connection's single SFTP session, opened on first use. */
  sftp(): Promise<SFTPWrapper> {
    this.ensureAlive();
    this.sftpSession ??= new Promise<SFTPWrapper>((resolve, reject) => {
      const unwatch = this.watch((e) => reject(e));
      this.client.sftp((err, sftp) => {
        unwatch();
        if (err) {
          this.sftpSession = undefined;
          reject(
            this.alive
              ? new RemoteError(`Could not open an SFTP session on ${this.label}: ${err.message}`, { cause: err })
              : this.lostError,
          );
          return;
        }
        sftp.on('close', () => {
          this.sftpSession = undefined;
        });
        resolve(sftp);
      });
    });
    return this.sftpSession;
  }

  async sftpPut(source: UploadSource, remotePath: string, options: PutOptions = {}): Promise<void> {
    options.signal?.throwIfAborted();
    const sftp = await this.sftp();
    await new SftpUploader(this, sftp, this.label).put(source, remotePath, options);
  }

  async sftpGet(remotePath: string, localPath: string, options: GetOptions = {}): Promise<{ bytes: number }> {
    options.signal?.throwIfAborted();
    const sftp = await this.sftp();
    return sftpDownload(this, sftp, this.label, remotePath, localPath, options);
  }

  async sftpRemove(remotePath: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    options.signal?.throwIfAborted();
    const sftp = await this.sftp();
    await new Promise<void>((resolve, reject) => {
      const unwatch = this.watch((e) => reject(e));
      const onAbort = (): void => reject(options.signal?.reason);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      sftp.unlink(remotePath, (err) => {
        unwatch();
        options.signal?.removeEventListener('abort', onAbort);
        // SFTP status 2 = SSH_FX_NO_SUCH_FILE: already gone is fine.
        if (err && (err as Error & { code?: number }).code !== 2) {
          reject(new RemoteError(`Could not remove ${remotePath} on ${this.label}: ${err.message}`, { cause: err }));
        } else resolve();
      });
    });
  }

  close(): void {
    this.lost(new Error('closed by kube-windows'));
    this.client.end();
    // end() waits for the server; a silent peer would keep the socket, so destroy it soon after.
    setTimeout(() => this.client.destroy(), 1000).unref();
  }
}
