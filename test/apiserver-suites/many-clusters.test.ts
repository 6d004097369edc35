// On the real kube-apiserver, the cluster tree over a kubeconfig of 30 contexts, 10 of them
// broken (test/support/many-clusters.ts). Listing them contacts nothing; every healthy cluster's children
// resolve while the never-answering ones are still pending (ordering, not a clock); each broken one ends
// in a row with its cause in one line and an automatic try with backoff; a never-answering address that
// starts answering is shown connected by the next try (automatic or the row's Retry).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useApiServer, type RealApiServer } from '../support/real-apiserver';
import { expectedCause, startManyClusters, type ManyClusters } from '../support/many-clusters';
import { ask, waitFor } from '../support/tree-view';
import { ClusterTree, type ClusterTreeOptions } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';
import { openCluster } from '../../src/cluster/open';

let api: RealApiServer;
let world: ManyClusters;
let dir: string;
const trees: ClusterTree[] = [];

function tree(options: Omit<ClusterTreeOptions, 'locate'> = {}): ClusterTree {
  const t = new ClusterTree({
    locate: { explicit: world.kubeconfigPath },
    watchKubeconfig: false,
    loadingAfterMs: 600_000,
    ...options,
  });
  trees.push(t);
  return t;
}

const kindOf = (name: string) => world.contexts.find((c) => c.name === name)?.kind;
const isClusterError = (nodes: TreeNode[]) => nodes.length === 1 && nodes[0].id.endsWith('/error');

describe('30 contexts, 10 broken, on the real API server and two emulators', { timeout: 240_000 }, () => {
  before(async () => {
    api = await useApiServer();
    dir = mkdtempSync(join(tmpdir(), 'kw-many-'));
    world = await startManyClusters({ dir, api });
  });

  after(async () => {
    for (const t of trees) t.dispose();
    await world?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the 30 roots are listed without contacting any cluster', async () => {
    const t = tree();
    const requests = world.emulators.map((e) => e.requests.length);
    const roots = await t.children();
    assert.equal(roots.length, 30);
    assert.deepEqual(
      roots.map((r) => r.label),
      world.contexts.map((c) => c.name),
    );
    assert.equal(roots.filter((r) => r.collapsible === 'expanded').length, 1, 'only the current context is expanded');
    assert.equal(roots[0].label, world.current);
    assert.deepEqual(
      world.emulators.map((e) => e.requests.length),
      requests,
    );
    assert.deepEqual(
      [...world.silent.values()].map((s) => s.accepted),
      [0, 0, 0, 0, 0],
    );
  });

  test('every healthy cluster resolves while the never-answering ones are still pending', async () => {
    // A wait longer than the test: the silent clusters cannot fail first, so what resolves before them
    // resolves because nothing waits on them.
    const t = tree({ session: { timeoutMs: 600_000 } });
    const roots = await t.children();
    const order: string[] = [];
    const answers = new Map<string, TreeNode[]>();
    for (const r of roots)
      void t.children(r).then((kids) => {
        order.push(r.label);
        answers.set(r.label, kids);
      });
    const settlesAlone = world.contexts.filter((c) => !c.kind.startsWith('silent')).map((c) => c.name);
    await waitFor('the 25 clusters that answer', () => settlesAlone.every((n) => answers.has(n)), 120_000);
    await waitFor('a connection to each silent address', () => [...world.silent.values()].every((s) => s.accepted > 0));
    assert.deepEqual(
      order.filter((n) => kindOf(n)?.startsWith('silent')),
      [],
      'a never-answering cluster resolved',
    );
    // A command on a healthy cluster meanwhile: its own client, not held by the tree's pending requests.
    const cmd = openCluster({ context: 'real-admin-3', locate: { explicit: world.kubeconfigPath } });
    assert.match((await cmd.kube.get<{ gitVersion: string }>('/version')).gitVersion, /^v1\./);
    for (const c of world.contexts) {
      const kids = answers.get(c.name);
      if (c.kind === 'healthy') {
        assert.ok(kids && !isClusterError(kids), `${c.name}: ${kids?.map((k) => k.label).join(' | ')}`);
        assert.match(kids[0].label, /· (OpenShift|Kubernetes)/, c.name);
        assert.ok(
          kids.some((k) => k.label === 'Windows nodes'),
          c.name,
        );
      } else if (!c.kind.startsWith('silent')) {
        assert.ok(kids && isClusterError(kids), `${c.name}: ${kids?.map((k) => k.label).join(' | ')}`);
        assert.match(kids[0].label, expectedCause(c.kind, 0), c.name);
        assert.match(kids[0].description ?? '', /^retrying at \d\d:\d\d:\d\d$/, c.name);
        assert.equal(kids[0].command?.id, 'kubeWindows.retry');
      }
    }
    // The emulated OpenShift cluster shows its OpenShift groups; the restricted user connects too.
    assert.ok(answers.get('emulated-openshift-1')?.some((k) => k.label === 'BYOH instances'));
    assert.ok(!answers.get('real-restricted-1')?.some((k) => /^Credentials|^No answer/.test(k.label)));
  });

  test('each never-answering cluster ends in "timeout after N s", then is tried again by itself', async () => {
    const t = tree({ session: { timeoutMs: 1000 }, reconnect: { firstMs: 600_000 } });
    const roots = await t.children();
    const silent = roots.filter((r) => kindOf(r.label)?.startsWith('silent'));
    assert.equal(silent.length, 5);
    const kids = await Promise.all(silent.map((r) => ask(t, r)));
    for (const [i, r] of silent.entries()) {
      assert.ok(isClusterError(kids[i]), `${r.label}: ${kids[i].map((k) => k.label).join(' | ')}`);
      assert.match(kids[i][0].label, expectedCause('silent-tcp', 1), r.label);
      assert.match(
        kids[i][0].tooltip.replace(/\\/g, ''),
        /does not answer at https:\/\/127\.0\.0\.1:\d+: no response within 1 s/,
      );
    }
    assert.deepEqual(t.pendingReconnects.sort(), silent.map((r) => r.label).sort());
    // Collapsing a failing cluster stops its tries: nobody looks at it.
    t.collapsed(silent[0]);
    assert.ok(!t.pendingReconnects.includes(silent[0].label));
    // Expanded again, it is tried at once: one new connection, the row again, the next try scheduled.
    const s0 = world.silent.get(silent[0].label);
    const before = s0?.accepted ?? 0;
    const again = await ask(t, silent[0]);
    assert.match(again[0].label, expectedCause('silent-tcp', 1));
    assert.equal(s0?.accepted, before + 1);
    assert.ok(t.pendingReconnects.includes(silent[0].label));
  });

  test('a never-answering address that starts answering: the automatic try, with backoff, shows it connected', async () => {
    const name = 'silent-tcp-2';
    const s = world.silent.get(name);
    assert.ok(s);
    const t = tree({ session: { timeoutMs: 1000 }, reconnect: { firstMs: 200, maxMs: 400 } });
    const root = (await t.children()).find((r) => r.label === name);
    assert.ok(root);
    const first = await ask(t, root);
    assert.match(first[0].label, expectedCause('silent-tcp', 1));
    const before = s.accepted;
    // Each automatic try is one connection, made after the previous one failed: a second one shows the row
    // refreshed with the next time, not a new row.
    const errorChanges: string[] = [];
    t.onDidChange((id) => id === first[0].id && errorChanges.push(t.item(id)?.description ?? ''));
    await waitFor('two automatic tries', () => errorChanges.length >= 2, 20_000);
    assert.ok(s.accepted - before >= 2 && s.accepted - before <= 3, `connections: ${s.accepted - before}`);
    const rootChanged = new Promise<void>((resolve) => t.onDidChange((id) => id === root.id && resolve()));
    s.answer(world.realPort);
    await rootChanged;
    const kids = await ask(t, root);
    assert.match(kids[0].label, /· Kubernetes|· OpenShift/);
    assert.ok(!t.pendingReconnects.includes(name));
  });

  test("the error row's Retry connects at once once the cause is fixed", async () => {
    const name = 'silent-tcp-3';
    const s = world.silent.get(name);
    assert.ok(s);
    const t = tree({ session: { timeoutMs: 1000 }, reconnect: { firstMs: 600_000 } });
    const root = (await t.children()).find((r) => r.label === name);
    assert.ok(root);
    const [row] = await ask(t, root);
    assert.match(row.label, expectedCause('silent-tcp', 1));
    s.answer(world.realPort);
    t.retry(row.id);
    const kids = await ask(t, root);
    assert.match(kids[0].label, /· Kubernetes|· OpenShift/);
  });
});
