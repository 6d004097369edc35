// A test double of an API server address behind a VPN or firewall that takes connections and never
// answers. Two kinds, as users meet them: 'tcp' accepts the TCP connection and reads, never writing a
// byte (the client's TLS handshake never completes); 'tls' completes the TLS handshake (with a
// certificate the kubeconfig trusts) and reads the HTTP request, never answering it. `answer(port)`
// makes a 'tcp' one start answering: new connections are piped to that port (a real API server), as
// when the network comes back. Test-only.
import * as net from 'node:net';
import * as tls from 'node:tls';
import { generateCerts } from './kube-emulator/certs';

export interface SilentServer {
  kind: 'tcp' | 'tls';
  port: number;
  url: string;
  /** The CA of a 'tls' one's certificate (for the kubeconfig). */
  caPem?: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** From now on, new connections are piped to 127.0.0.1:`port` ('tcp' only). */
  answer(port: number): void;
  stop(): Promise<void>;
}

export async function startSilentServer(kind: 'tcp' | 'tls'): Promise<SilentServer> {
  const held = new Set<net.Socket>();
  let target: number | undefined;
  let accepted = 0;
  const hold = (socket: net.Socket): void => {
    accepted++;
    held.add(socket);
    socket.on('data', () => {}); // read, never write
    socket.on('error', () => {});
    socket.on('close', () => held.delete(socket));
  };
  const certs = kind === 'tls' ? generateCerts() : undefined;
  const server = certs
    ? tls.createServer({ cert: certs.certPem, key: certs.keyPem }, hold)
    : net.createServer((socket) => {
        if (target === undefined) return hold(socket);
        accepted++;
        const upstream = net.connect(target, '127.0.0.1');
        socket.pipe(upstream).pipe(socket);
        const end = () => {
          socket.destroy();
          upstream.destroy();
        };
        socket.on('error', end);
        upstream.on('error', end);
        held.add(socket);
        socket.on('close', () => held.delete(socket));
      });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    kind,
    port,
    url: `https://127.0.0.1:${port}`,
    ...(certs ? { caPem: certs.caPem } : {}),
    get accepted() {
      return accepted;
    },
    answer(to) {
      if (kind !== 'tcp') throw new Error('only a tcp silent server can be made to answer');
      target = to;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of held) s.destroy();
        server.close(() => resolve());
      }),
  };
}
