// Where a cluster's first rows spend their time on the wire, seen from the client (node:diagnostics_channel,
// no change to the code measured): every HTTP request, whether it went out on a new connection or a reused
// one, each new connection's TCP+TLS handshake time and whether TLS resumed a session, and the time spent
// applying the kubeconfig (credentials, CA, agent) before each request. Bench-only.
import { channel, type Channel } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';

export interface HostTally {
  requests: number;
  reused: number;
  connections: number;
  fullHandshakes: number;
  resumed: number;
  handshakeMs: number[];
}

export interface WireTally {
  /** By host:port. */
  hosts: Map<string, HostTally>;
  kubeconfigMs: number;
  kubeconfigCalls: number;
  channel?: Channel;
  reset(): void;
}

export function tallyWire(): WireTally {
  const tally: WireTally = {
    hosts: new Map(),
    kubeconfigMs: 0,
    kubeconfigCalls: 0,
    reset() {
      tally.hosts.clear();
      tally.kubeconfigMs = 0;
      tally.kubeconfigCalls = 0;
    },
  };
  const host = (key: string): HostTally => {
    let h = tally.hosts.get(key);
    if (!h) tally.hosts.set(key, (h = { requests: 0, reused: 0, connections: 0, fullHandshakes: 0, resumed: 0, handshakeMs: [] }));
    return h;
  };
  // Held by the tally: a channel nobody references may be collected with its subscribers.
  const started = (tally.channel = channel('http.client.request.start'));
  started.subscribe((message: unknown) => {
    // Published once the request is on its socket (a new one is still connecting then).
    const req = (message as { request: ClientRequest }).request;
    const h = host(String(req.getHeader('host') ?? req.host));
    h.requests++;
    if (req.reusedSocket) {
      h.reused++;
      return;
    }
    h.connections++;
    const socket = req.socket as TLSSocket | null;
    if (!socket || typeof socket.isSessionReused !== 'function') return;
    const t0 = performance.now();
    socket.once('secureConnect', () => {
      h.handshakeMs.push(performance.now() - t0);
      if (socket.isSessionReused()) h.resumed++;
      else h.fullHandshakes++;
    });
  });
  // The kubeconfig's options applied per request (files read, the agent made), timed.
  const proto = KubeConfig.prototype as unknown as { applyToHTTPSOptions(o: unknown): Promise<void> };
  const original = proto.applyToHTTPSOptions;
  proto.applyToHTTPSOptions = async function (this: unknown, o: unknown) {
    const t0 = performance.now();
    try {
      await original.call(this, o);
    } finally {
      tally.kubeconfigMs += performance.now() - t0;
      tally.kubeconfigCalls++;
    }
  };
  return tally;
}
