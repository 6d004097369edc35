// A real HTTP proxy on loopback for the proxy tests: Debian's tinyproxy (installed by
// scripts/test-env.mjs), started in the foreground with its own config and log, which records every
// request that went through it. Test-only.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TINYPROXY = '/usr/bin/tinyproxy';

export interface RealProxy {
  url: string;
  /** The log lines that name a request (CONNECT host:port, GET http://…). */
  requests(): string[];
  stop(): Promise<void>;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

export interface TinyproxyOptions {
  /** Only CONNECT to these ports (tinyproxy's ConnectPort): another port is refused with 403. */
  connectPorts?: number[];
  /** Proxy credentials (tinyproxy's BasicAuth): without them every request gets 407. */
  basicAuth?: { user: string; password: string };
}

export async function startTinyproxy(o: TinyproxyOptions = {}): Promise<RealProxy> {
  if (!existsSync(TINYPROXY))
    throw new Error(`${TINYPROXY} is missing: run node scripts/test-env.mjs (apt install tinyproxy)`);
  const dir = mkdtempSync(join(tmpdir(), 'kw-tinyproxy-'));
  const port = await freePort();
  const log = join(dir, 'tinyproxy.log');
  // No ConnectPort line unless asked: CONNECT to any port is allowed (the test registry is not on 443).
  writeFileSync(
    join(dir, 'tinyproxy.conf'),
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      `LogFile "${log}"`,
      'LogLevel Info',
      'MaxClients 20',
      'Allow 127.0.0.1',
      ...(o.connectPorts ?? []).map((p) => `ConnectPort ${p}`),
      ...(o.basicAuth ? [`BasicAuth ${o.basicAuth.user} ${o.basicAuth.password}`] : []),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(TINYPROXY, ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: 'ignore' });
  // Ready when it accepts connections.
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.on('connect', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () =>
      (existsSync(log) ? readFileSync(log, 'utf8') : '')
        .split('\n')
        .filter((l) => /Request \(file descriptor|CONNECT|Established connection/.test(l)),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
