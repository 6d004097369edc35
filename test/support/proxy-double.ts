// A stand-in for a corporate HTTP proxy in the sandbox and the real-VS-Code tests, where nothing may
// reach the internet: it listens on loopback and answers as a proxy would, but every tunnel
// (CONNECT host:port) ends at its own TLS registry stand-in and every plain request is answered by
// it, with a registry's anonymous answer (401 with a Bearer challenge). A simulated host that checks
// "can I reach mcr.microsoft.com through the proxy?" gets an honest yes. Its certificate (made with
// openssl at start) is the one a cluster's trusted CA bundle names. Test double only.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

export interface ProxyDouble {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The PEM certificate the registry stand-in presents (a self-signed CA). */
  caPem: string;
  /** What went through it: `CONNECT host:port` or `GET http://…`. */
  requests: string[];
  stop(): Promise<void>;
}

const REGISTRY_ANSWER =
  'HTTP/1.1 401 Unauthorized\r\nWww-Authenticate: Bearer realm="https://registry.invalid/token"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';

function selfSigned(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kw-proxy-double-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '30'].concat([
        '-subj',
        '/CN=kube-windows sandbox proxy CA',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startProxyDouble(): Promise<ProxyDouble> {
  const { key, cert } = selfSigned();
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  // The registry behind every tunnel: reads one request head, answers like a registry's /v2/.
  const registry = createTlsServer({ key, cert }, (tls) => {
    let head = '';
    tls.on('data', (d: Buffer) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) tls.end(REGISTRY_ANSWER);
    });
    tls.on('error', () => undefined);
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  const registryPort = (registry.address() as { port: number }).port;
  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(401, { 'Www-Authenticate': 'Bearer realm="https://registry.invalid/token"' }).end();
  });
  proxy.on('connect', (req: IncomingMessage, client: Socket, first: Buffer) => {
    requests.push(`CONNECT ${req.url}`);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const upstream = connect(registryPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (first.length > 0) upstream.write(first);
      client.pipe(upstream).pipe(client);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    caPem: cert,
    requests,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => registry.close(r))]);
    },
  };
}
