// Kept connections on the real kube-apiserver, counted by a TCP relay in front of it
// (test/support/counting-relay.ts) and, on the client, by the requests sent (node:diagnostics_channel):
// expanding a cluster sends more requests than it opens connections, and never more connections at once than
// the short budget plus one per watch; asking every shown row again opens none; a burst of reads shares a few
// connections; closing the view closes every one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { channel } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useApiServer, type RealApiServer } from '../support/real-apiserver';
import { startCountingRelay, type CountingRelay } from '../support/counting-relay';
import { ClusterTree } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import { KubeClient } from '../../src/cluster/kube-client';
import { ask, waitFor } from '../support/tree-view';

let api: RealApiServer;
let relay: CountingRelay;
let dir: string;
let kubeconfig: string;
let sent = 0;
const started = channel('http.client.request.start');
const countSent = (message: unknown): void => {
  const req = (message as { request: ClientRequest }).request;
  if (String(req.getHeader('host')) === new URL(relay.url).host) sent++;
};

before(async () => {
  api = await useApiServer();
  relay = await startCountingRelay(new URL(api.server));
  dir = mkdtempSync(join(tmpdir(), 'kw-reuse-real-'));
  kubeconfig = join(dir, 'kubeconfig');
  const b64 = (b: string | Buffer) => Buffer.from(b).toString('base64');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'real', cluster: { server: relay.url, 'certificate-authority-data': b64(api.ca) } }],
      users: [{ name: 'admin', user: { token: api.adminToken } }],
      contexts: [{ name: 'real', context: { cluster: 'real', user: 'admin' } }],
      'current-context': 'real',
    }),
    { mode: 0o600 },
  );
  started.subscribe(countSent);
});

after(async () => {
  started.unsubscribe(countSent);
  await relay?.stop();
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function expandAll(t: ClusterTree, parent?: TreeNode, depth = 0): Promise<number> {
  const rows = await ask(t, parent);
  let n = rows.length;
  for (const r of rows)
    if (r.collapsible !== 'none' && depth < 4 && !r.id.endsWith('/yaml')) n += await expandAll(t, r, depth + 1);
  return n;
}

/** Until nothing was sent for a while: every watch the view starts is open (not a bound on anything). */
async function quiet(): Promise<void> {
  for (let n = -1; n !== sent;) {
    n = sent;
    await new Promise((r) => setTimeout(r, 500));
  }
}

test('an expanded cluster on the real API server rides on kept connections', async () => {
  const t = new ClusterTree({
    locate: { explicit: kubeconfig },
    watchKubeconfig: false,
    session: { timeoutMs: 30_000 },
    loadingAfterMs: 600_000,
  });
  try {
    const accepted0 = relay.accepted;
    const sent0 = sent;
    const rows = await expandAll(t);
    await quiet();
    const requests = sent - sent0;
    const connections = relay.accepted - accepted0;
    assert.ok(rows > 5, `${rows} rows shown`);
    assert.ok(requests >= 8, `${requests} requests`);
    // Without kept connections every request is a connection of its own.
    assert.ok(connections < requests, `${connections} connections for ${requests} requests`);
    const client = (
      t as unknown as { manager?: { session(c: string): { client: KubeClient } | undefined } }
    ).manager?.session('real')?.client;
    assert.ok(client, 'the session of the expanded cluster');
    assert.ok(client.openSockets.short <= 8, `${client.openSockets.short} short sockets`);

    // VS Code asks every shown row again (a change above them, the view made visible again).
    const accepted1 = relay.accepted;
    await expandAll(t);
    await quiet();
    assert.equal(relay.accepted - accepted1, 0, 'asking the rows again opens no connection');
  } finally {
    t.dispose();
  }
  await waitFor('every connection closed with the view', () => relay.open === 0, 10_000);
});

test('a burst of reads shares the short budget', async () => {
  const load = loadKubeconfig({ explicit: kubeconfig });
  assert.ok(load.ok);
  const client = new KubeClient(load.config, { timeoutMs: 30_000 });
  try {
    await client.get('/version');
    const accepted0 = relay.accepted;
    await Promise.all(Array.from({ length: 40 }, () => client.get('/api/v1/namespaces')));
    const opened = relay.accepted - accepted0;
    assert.ok(opened <= 7, `40 reads at once opened ${opened} connections besides the kept one`);
    assert.ok(client.openSockets.short <= 8);
  } finally {
    client.close();
  }
  await waitFor('the client closed its connections', () => relay.open === 0, 10_000);
});
