// Kept connections, counted by the server (the API emulator counts TLS handshakes, resumed ones and open
// connections; a small TLS double resets a kept connection): expanding a cluster pays one full TLS handshake,
// the rest of its requests ride on kept connections or resume that session; refreshing an expanded cluster
// (every row asked again, every watch ended by the server and resumed) opens no connection at all; the
// Refresh command's new sessions resume nothing from the old ones but still pay one full handshake each;
// closing the view closes every connection; a CA file that changes is a new connection; a kept connection
// the server closed meanwhile is sent again on a new one, never shown as an error (a write is not repeated).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { startEmulator, type Emulator } from '../support/kube-api-emulator';
import { generateCerts } from '../support/kube-emulator/certs';
import { mixedCluster } from '../support/kube-seed';
import { ClusterTree } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import { KubeClient } from '../../src/cluster/kube-client';
import { ask, waitFor } from '../support/tree-view';

let emu: Emulator;
let tmp: string;

before(async () => {
  emu = await startEmulator({ objects: mixedCluster(), openshift: true });
  tmp = mkdtempSync(join(tmpdir(), 'kw-reuse-'));
});

after(async () => {
  await emu.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** Every row the view shows with everything expanded (groups, nodes, their pods), read as VS Code reads them. */
async function expandAll(t: ClusterTree, parent?: TreeNode, depth = 0): Promise<number> {
  const rows = await ask(t, parent);
  let n = rows.length;
  for (const r of rows)
    if (r.collapsible !== 'none' && depth < 4 && !r.id.endsWith('/yaml')) n += await expandAll(t, r, depth + 1);
  return n;
}

/** Until no request came for a while: every watch the view starts is open (not a bound on anything). */
async function quiet(): Promise<void> {
  for (let n = -1; n !== emu.requests.length;) {
    n = emu.requests.length;
    await new Promise((r) => setTimeout(r, 500));
  }
}

const since = (before: ReturnType<Emulator['connections']>) => {
  const now = emu.connections();
  return { handshakes: now.handshakes - before.handshakes, resumed: now.resumed - before.resumed };
};

describe('kept connections to a cluster', () => {
  test('expanding, refreshing and closing an expanded cluster, counted by the server', async () => {
    const t = new ClusterTree({
      locate: { explicit: emu.kubeconfig({ context: 'reuse', file: join(tmp, 'reuse') }) },
      watchKubeconfig: false,
      session: { timeoutMs: 10_000, retryMs: 100 },
      loadingAfterMs: 60_000,
    });
    try {
      const start = emu.connections();
      const requests0 = emu.requests.length;
      const rows = await expandAll(t);
      const expanded = since(start);
      const requests = emu.requests.length - requests0;
      assert.ok(rows > 15, `the expanded cluster shows ${rows} rows`);
      assert.ok(requests >= 10, `expanding made ${requests} requests`);
      // Without kept connections, every request is a connection of its own with a full handshake.
      assert.equal(expanded.handshakes - expanded.resumed, 1, 'one full TLS handshake for the whole cluster');
      assert.ok(expanded.handshakes < requests, `${expanded.handshakes} connections for ${requests} requests`);

      // The view refreshed: every shown row asked again, and every watch ended by the server and resumed.
      await quiet();
      const watches = emu.openWatches();
      assert.ok(watches >= 3, `${watches} watches open`);
      const before = emu.connections();
      const requests1 = emu.requests.length;
      assert.equal(emu.endWatches(), watches);
      await waitFor(
        'every watch resumed',
        () => emu.openWatches() >= watches && emu.requests.length > requests1,
        10_000,
      ).catch((e: Error) => {
        throw new Error(
          `${e.message}: ${emu.openWatches()} of ${watches} open, ${emu.requests.length - requests1} requests`,
        );
      });
      await expandAll(t);
      await quiet();
      const refreshed = since(before);
      assert.ok(emu.requests.length - requests1 >= watches, 'the watches were opened again');
      assert.deepEqual(refreshed, { handshakes: 0, resumed: 0 }, 'a refresh opens no connection');

      // The Refresh command: new sessions, new connections, one full handshake again.
      const beforeRefresh = emu.connections();
      t.refresh();
      await expandAll(t);
      const fresh = since(beforeRefresh);
      assert.equal(fresh.handshakes - fresh.resumed, 1, 'one full TLS handshake after Refresh');
      await waitFor('the old sessions closed their connections', () => emu.connections().open <= watches + 8);
    } finally {
      t.dispose();
    }
    await waitFor('every connection closed with the view', () => emu.connections().open === 0);
  });

  test('a CA file that changes is a new connection, and the old one is closed', async () => {
    const caFile = join(tmp, 'ca.pem');
    writeFileSync(caFile, emu.caPem);
    const kubeconfig = readFileSync(emu.kubeconfig({ file: join(tmp, 'ca-file') }), 'utf8').replace(
      /certificate-authority-data: .*/,
      `certificate-authority: ${caFile}`,
    );
    writeFileSync(join(tmp, 'ca-file'), kubeconfig);
    const load = loadKubeconfig({ explicit: join(tmp, 'ca-file') });
    assert.ok(load.ok);
    const client = new KubeClient(load.config, { timeoutMs: 10_000 });
    try {
      const start = emu.connections();
      await client.get('/version');
      await client.get('/api/v1/nodes');
      assert.equal(since(start).handshakes, 1, 'two requests, one connection');
      // The bundle gains a second CA (a rotation in progress): the server is still trusted, by a new connection.
      writeFileSync(caFile, emu.caPem + generateCerts().caPem);
      await client.get('/version');
      assert.deepEqual(since(start), { handshakes: 2, resumed: 0 });
      await waitFor('the connection of the old CA closed', () => client.openSockets.short === 1);
    } finally {
      client.close();
    }
  });

  test('a reconnect lets a request under way finish, and the next request opens a new connection', async () => {
    const load = loadKubeconfig({ explicit: emu.kubeconfig({ file: join(tmp, 'reconnect') }) });
    assert.ok(load.ok);
    const client = new KubeClient(load.config, { timeoutMs: 30_000 });
    try {
      await client.get('/version');
      const start = emu.connections();
      emu.setLatency(1500);
      const requests = emu.requests.length;
      const underway = client.get<{ items: unknown[] }>('/api/v1/nodes');
      // The emulator logs a request as it answers it: wait until it is on the wire instead.
      await waitFor(
        'the request on its kept connection',
        () => client.openSockets.short === 1 && emu.requests.length === requests,
      );
      await new Promise((r) => setTimeout(r, 200));
      client.resetConnections();
      assert.ok((await underway).items.length > 0, 'the answer of the request under way');
      emu.setLatency(0);
      await client.get('/version');
      assert.equal(since(start).handshakes, 1, 'the next request on a new connection');
      await waitFor('the old connection closed', () => emu.connections().open === 1);
    } finally {
      emu.setLatency(0);
      client.close();
    }
  });
});

/**
 * A test double of a server behind a balancer that closes idle connections: each connection answers its first
 * request and resets on the second, as a connection the server closed while the client kept it.
 */
async function resettingServer(): Promise<{ url: string; caPem: string; connections: () => number; stop(): void }> {
  const certs = generateCerts();
  let connections = 0;
  const secureContext = tls.createSecureContext({ key: certs.keyPem, cert: certs.certPem });
  // TLS over a socket of our own, so that the TCP connection itself can be reset.
  const server = net.createServer((raw) => {
    connections++;
    const socket = new tls.TLSSocket(raw, { isServer: true, secureContext });
    let answered = false;
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      if (answered) return void raw.resetAndDestroy();
      answered = true;
      head = '';
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    });
    socket.on('error', () => undefined);
    raw.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: certs.caPem,
    connections: () => connections,
    stop: () => void server.close(),
  };
}

test('a kept connection the server closed is sent again on a new one; a write is not', async () => {
  const server = await resettingServer();
  const file = join(tmp, 'resetting');
  writeFileSync(
    file,
    readFileSync(emu.kubeconfig({ file }), 'utf8')
      .replace(/server: .*/, `server: ${server.url}`)
      .replace(
        /certificate-authority-data: .*/,
        `certificate-authority-data: ${Buffer.from(server.caPem).toString('base64')}`,
      ),
  );
  const load = loadKubeconfig({ explicit: file });
  assert.ok(load.ok);
  const client = new KubeClient(load.config, { timeoutMs: 10_000, retries: 0 });
  try {
    assert.deepEqual(await client.get('/version'), {});
    assert.deepEqual(await client.get('/version'), {}, 'the reset kept connection is not an error');
    assert.equal(server.connections(), 2);
    await assert.rejects(client.create('/api/v1/namespaces', { metadata: { name: 'x' } }), /ECONNRESET|socket hang up/);
    assert.equal(server.connections(), 2, 'a POST is not sent again');
  } finally {
    client.close();
    server.stop();
  }
});
