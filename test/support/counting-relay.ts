// A TCP relay in front of a server (the real kube-apiserver) that counts the connections made through it,
// and those open now: what a test of kept connections asserts on, with TLS passing through untouched (the
// server's certificate names 127.0.0.1, which the relay listens on too). Test-only.
import * as net from 'node:net';

export interface CountingRelay {
  url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  stop(): Promise<void>;
}

export async function startCountingRelay(target: URL): Promise<CountingRelay> {
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get open() {
      return sockets.size;
    },
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
