// The simulated host's side of the proxy ops (src/core/windows/proxy-ops.ts): a machine environment
// (the Session Manager\Environment key), each service's own `Environment` REG_MULTI_SZ value, the
// LocalMachine\Root store's thumbprints, and reaching URLs through a proxy, which this double does for
// real from the test process (so a real proxy on loopback sees the requests). Tests set and drift
// the environment through simProxy(state). Test double only.
import { request as httpRequest } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import { OpError, registerSimOp } from './ops';
import { findService, type SimHostState } from './state';
import type { PsLiteral } from './script';

export interface SimProxyState {
  /** Machine environment variables (names compare case-insensitively, as Windows does). */
  machineEnv: Map<string, string>;
  /** Lower-cased service name -> its `Environment` entries (NAME=value), when the value exists. */
  serviceEnv: Map<string, string[]>;
  /** Upper-case SHA-1 thumbprints in Cert:\LocalMachine\Root. */
  rootStore: Set<string>;
  /** URLs the host reached (or tried to) through a proxy, with the proxy used. */
  reached: { url: string; proxy: string }[];
}

const PROXIES = new WeakMap<SimHostState, SimProxyState>();

/** The proxy state of a simulated host (created on first use). */
export function simProxy(state: SimHostState): SimProxyState {
  let p = PROXIES.get(state);
  if (!p) {
    p = { machineEnv: new Map(), serviceEnv: new Map(), rootStore: new Set(), reached: [] };
    PROXIES.set(state, p);
  }
  return p;
}

/** Sets a machine variable as WMCO's daemon would (undefined removes it). */
export function setMachineEnv(state: SimHostState, name: string, value: string | undefined): void {
  const env = simProxy(state).machineEnv;
  for (const k of [...env.keys()]) if (k.toLowerCase() === name.toLowerCase()) env.delete(k);
  if (value !== undefined) env.set(name, value);
}

const list = (p: Record<string, PsLiteral>, name: string): string[] => {
  const v = p[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
};
const str = (p: Record<string, PsLiteral>, name: string): string => {
  const v = p[name];
  if (typeof v !== 'string')
    throw new OpError(`The variable '$${name}' cannot be retrieved because it has not been set.`);
  return v;
};

registerSimOp('node-proxy-environment', (ctx, _fs, p) => {
  const s = simProxy(ctx.state);
  const machine: Record<string, string> = {};
  for (const n of list(p, 'Names')) {
    const hit = [...s.machineEnv].find(([k]) => k.toLowerCase() === n.toLowerCase());
    if (hit) machine[n] = hit[1];
  }
  const services = list(p, 'Services').map((name) => {
    const found = findService(ctx.state, name);
    return found
      ? { name, exists: true, environment: [...(s.serviceEnv.get(found[0].toLowerCase()) ?? [])] }
      : { name, exists: false, environment: [] };
  });
  const certificates: Record<string, boolean> = {};
  for (const t of list(p, 'Thumbprints')) certificates[t] = s.rootStore.has(t.toUpperCase());
  return { machine, services, certificates };
});

registerSimOp('set-service-proxy-environment', (ctx, _fs, p) => {
  const service = str(p, 'Service');
  const found = findService(ctx.state, service);
  if (!found) throw new OpError(`Cannot find any service with service name '${service}'.`);
  const names = list(p, 'Names').map((n) => n.toUpperCase());
  const s = simProxy(ctx.state);
  const key = found[0].toLowerCase();
  const old = s.serviceEnv.get(key) ?? [];
  const kept = old.filter((e) => !names.includes((e.split('=', 1)[0] ?? '').toUpperCase()));
  const next = [...kept, ...list(p, 'Entries')].filter(Boolean);
  const changed = old.join('\n') !== next.join('\n');
  if (changed) {
    if (next.length > 0) s.serviceEnv.set(key, next);
    else s.serviceEnv.delete(key);
  }
  return { changed };
});

type Reach =
  { status: number } | { stage: 'proxy' | 'connect' | 'tls' | 'request'; connectStatus?: number; error?: string };

/**
 * The op's stages, done for real from the test process: a TCP connection to the proxy, CONNECT for an
 * https URL (any answer but 200 ends there), TLS through the tunnel, then a HEAD. Any HTTP answer counts.
 */
function headThrough(proxy: string, url: string): Promise<Reach> {
  const via = new URL(proxy);
  const target = new URL(url);
  const auth = via.username
    ? {
        'Proxy-Authorization': `Basic ${Buffer.from(`${decodeURIComponent(via.username)}:${decodeURIComponent(via.password)}`).toString('base64')}`,
      }
    : {};
  const proxyAt = { host: via.hostname, port: Number(via.port || 80) };
  return new Promise((resolve) => {
    // Before any byte came back from the proxy, a failure is the proxy's (connection refused, timed out).
    let proxyAnswered = false;
    const fail = (err: Error): void =>
      resolve({
        stage: proxyAnswered ? 'request' : 'proxy',
        error: `Unable to connect to the remote server (${err.message})`,
      });
    if (target.protocol === 'http:') {
      const req = httpRequest(
        { ...proxyAt, method: 'HEAD', path: url, headers: { Host: target.host, ...auth } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0 });
        },
      );
      req.on('socket', (s) => s.once('connect', () => (proxyAnswered = true)));
      req.setTimeout(20_000, () => req.destroy(new Error('The operation has timed out.')));
      req.on('error', fail).end();
      return;
    }
    const port = Number(target.port || 443);
    const req = httpRequest({ ...proxyAt, method: 'CONNECT', path: `${target.hostname}:${port}`, headers: auth });
    req.on('socket', (s) => s.once('connect', () => (proxyAnswered = true)));
    req.setTimeout(20_000, () => req.destroy(new Error('The operation has timed out.')));
    req.on('error', fail);
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        resolve({ stage: 'connect', connectStatus: res.statusCode ?? 0 });
        return;
      }
      // The double trusts any certificate: what is tested is the path through the proxy.
      const tls = tlsConnect({ socket, servername: target.hostname, rejectUnauthorized: false }, () => {
        tls.write(
          `HEAD ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: close\r\n\r\n`,
        );
      });
      let head = '';
      let secure = false;
      tls.once('secureConnect', () => (secure = true));
      tls.on('data', (d: Buffer) => {
        head += d.toString('latin1');
        const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
        if (m) {
          tls.destroy();
          resolve({ status: Number(m[1]) });
        }
      });
      tls.on('error', (err) => resolve({ stage: secure ? 'request' : 'tls', error: err.message }));
      tls.on('close', () => resolve({ stage: 'request', error: 'The underlying connection was closed.' }));
    });
    req.end();
  });
}

registerSimOp('reach-through-proxy', async (ctx, _fs, p) => {
  const proxy = str(p, 'Proxy');
  const results = [];
  for (const url of list(p, 'Urls')) {
    simProxy(ctx.state).reached.push({ url, proxy });
    results.push({ url, ...(await headThrough(proxy, url)) });
  }
  return { results };
});
