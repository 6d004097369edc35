// The cluster tree through real API server restarts, on a server of this file's own
// (other suites must not see it die): the Clusters view model (src/views/cluster-tree.ts, the same
// sessions, node model, pod watch and watched collections VS Code shows) with a node's Pods group,
// the Windows MachineSets and the BYOH instances expanded, followed as VS Code follows it (ShownTree).
//
// - Same data: the server stops (SIGTERM, as an upgrade does) and starts again on its etcd data.
// - Fresh data: it starts on an empty etcd (resourceVersions start over, the view's old version is
//   "too large"), and the cluster comes back different: a node, a pod, a MachineSet and a BYOH entry
//   gone, others new, so that a stale or duplicated row shows.
// - Compaction (its own server, without the watch cache, etcd compacted every second): the watches'
//   versions are compacted away under them; they get 410 Gone and list again.
//
// Each time: the rows say "reconnecting" while the server is away, then are exactly what a tree opened
// afresh shows; the live check's cluster facts (the snapshot) follow; the problems view reads the same
// as a fresh one; and the server's own count of open watches (/metrics apiserver_longrunning_requests)
// is the same after as before: no watch leaked, none doubled. Recovery times are measured from the
// moment the server answers again (or, fresh, from the moment its objects are back) and printed; the
// waits are fail-safes, not bounds.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterTree } from '../../src/views/cluster-tree';
import { ProblemsTree } from '../../src/views/problems-tree';
import type { ClusterSnapshot } from '../../src/core/rules/facts';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import { ClusterSession } from '../../src/cluster/session';
import { WatchedList } from '../../src/cluster/watched-list';
import { WMCO_NAMESPACE } from '../../src/core/well-known';
import { assertNoDuplicates, firstWorld, MACHINE_API, NODE, render, secondWorld } from '../support/restart-worlds';
import { ShownTree, assertSummariesMatchRows } from '../support/shown-tree';
import { CONTEXT_ADMIN, expectStatus, seed, useApiServer, type RealApiServer } from '../support/real-apiserver';
import { openWatches, oursOf, watchesSettle as settle } from '../support/server-watches';

const FAILSAFE_MS = 90_000;

let api: RealApiServer;
/** The server's own watches (its informers), before any view opened. */
let baseline: Map<string, number>;
const figures: string[] = [];

before(async () => {
  api = await useApiServer({ own: true });
  baseline = await openWatches(api);
  await seed(api, firstWorld());
});

after(async () => {
  for (const line of figures) console.log(line);
  await api?.stop();
});

/** Whether the shared server is down: a test that fails while it is must not leave it down for the next. */
let away = false;
async function halt(): Promise<void> {
  away = true;
  await api.halt!();
}
async function resume(options?: { freshData?: boolean }): Promise<void> {
  await api.resume!(options);
  away = false;
}
afterEach(async () => {
  if (away) await resume();
});

function clusterTree(): ClusterTree {
  return new ClusterTree({
    locate: { explicit: api.kubeconfigPath },
    watchKubeconfig: false,
    snapshotThrottleMs: 100,
    // The view's own timeouts and first retry delay; the back-off and its cap are the product's.
    session: { timeoutMs: 10_000 },
  });
}

/** Opens the view and expands what a user watching a node would: its Pods, the MachineSets, the BYOH instances. */
async function openExpanded(t: ClusterTree): Promise<ShownTree> {
  const view = new ShownTree(t);
  await view.open();
  await view.expand(CONTEXT_ADMIN, 'Windows nodes', NODE);
  await view.expand(CONTEXT_ADMIN, 'Windows nodes', NODE, 'Pods');
  await view.expand(CONTEXT_ADMIN, 'Windows MachineSets');
  await view.expand(CONTEXT_ADMIN, 'BYOH instances');
  await view.settle();
  return view;
}

/** The rows a tree opened now shows, expanded the same way. */
async function freshRows(): Promise<string[]> {
  const t = clusterTree();
  const view = await openExpanded(t);
  try {
    return render(view.roots);
  } finally {
    view.dispose();
    t.dispose();
  }
}

/** The watches above the server's own: what the views hold open. */
const ours = (now: Map<string, number>): Record<string, number> => oursOf(now, baseline);

/** Polls the server's watch count until it equals `expected`; returns the last. */
const watchesSettle = (expected: Record<string, number>, server = api, base = baseline) =>
  settle(expected, server, base);

const reconnecting = (lines: string[]) => lines.filter((l) => /: reconnecting \(/.test(l));

/**
 * Follows the view until its rows equal `expected`, recording each distinct state on the way; returns the
 * time from `since` to the first read that equalled it.
 */
async function recovered(view: ShownTree, expected: string[], since: number, states: string[][]): Promise<number> {
  let at = 0;
  await view.until(
    'the rows of a fresh start',
    (v) => {
      const now = render(v.roots);
      if (JSON.stringify(now) !== JSON.stringify(states.at(-1))) states.push(now);
      if (JSON.stringify(now) !== JSON.stringify(expected)) return false;
      at = Date.now();
      return true;
    },
    FAILSAFE_MS,
  );
  await view.settle();
  assert.deepEqual(render(view.roots), expected, 'still the rows of a fresh start once quiet');
  return at - since;
}

test('the tree through a restart on the same data, then on a fresh etcd: reconnecting, then exactly the rows of a fresh start; no watch leaked', async () => {
  const t = clusterTree();
  const snapshots: ClusterSnapshot[] = [];
  const sub = t.onSnapshot((s) => s && snapshots.push(s));
  const view = await openExpanded(t);
  try {
    const before = render(view.roots);
    assert.deepEqual(before, await freshRows(), 'the open view equals a fresh one to begin with');
    assert.ok(
      before.some((l) => l.trim().startsWith('iis-7c9d5f8b6-abcde')),
      before.join('\n'),
    );
    assert.ok(
      before.some((l) => l.trim().startsWith('winworker-us-east-2a')),
      before.join('\n'),
    );
    assertSummariesMatchRows(view.roots);
    const watchesBefore = ours(await openWatches(api));
    for (const r of ['nodes', 'pods', 'machine.openshift.io/machinesets', 'configmaps'])
      assert.ok((watchesBefore[r] ?? 0) >= 1, `the view watches ${r}: ${JSON.stringify(watchesBefore)}`);

    // 1. Same data. Each collection finds the server gone on its own (its own watch ends, its own retry),
    // so the view is followed until every one says so; the wait is a fail-safe.
    await halt();
    const watched = ['Windows nodes', `pods of node ${NODE}`, 'Windows MachineSets', 'BYOH instances'];
    const missing = (lines: string[]) =>
      watched.filter((what) => !reconnecting(lines).some((l) => l.trim().startsWith(`${what}: reconnecting`)));
    await view.until(
      'a reconnecting row for every collection while the server is away',
      (v) => missing(render(v.roots)).length === 0,
      FAILSAFE_MS,
    );
    const down = render(view.roots);
    assert.deepEqual(missing(down), [], `a reconnecting row for each:\n${down.join('\n')}`);
    // What the view knew stays shown meanwhile (nodes and pods), with the reconnecting row above it.
    assert.ok(down.some((l) => l.trim().startsWith(NODE)));
    await resume();
    const answering = Date.now();
    const states: string[][] = [down];
    const sameMs = await recovered(view, before, answering, states);
    for (const s of states) assertNoDuplicates(s);
    assert.deepEqual(await watchesSettle(watchesBefore), watchesBefore, 'the same watches open after as before');
    figures.push(`same data: rows back ${sameMs} ms after the server answered again; watches ${fmt(watchesBefore)}`);

    // 2. Fresh etcd, and a cluster that changed meanwhile.
    await halt();
    await view.until('reconnecting again', (v) => missing(render(v.roots)).length === 0, FAILSAFE_MS);
    snapshots.length = 0;
    await resume({ freshData: true });
    await seed(api, secondWorld());
    const seeded = Date.now();
    const expected = await freshRows();
    assert.ok(
      expected.some((l) => l.trim().startsWith('fresh-web-0')),
      expected.join('\n'),
    );
    assert.ok(!expected.some((l) => l.trim().startsWith('iis-7c9d5f8b6-abcde')));
    const freshStates: string[][] = [render(view.roots)];
    const freshMs = await recovered(view, expected, seeded, freshStates);
    for (const s of freshStates) assertNoDuplicates(s);
    const after = render(view.roots);
    for (const stale of ['winworker-2019-a', 'iis-7c9d5f8b6-abcde', 'winworker-us-east-2a', '10.0.140.25'])
      assert.ok(!after.some((l) => l.trim().startsWith(stale)), `nothing stale: ${stale}\n${after.join('\n')}`);
    for (const fresh of ['win-fresh-c', 'fresh-web-0', 'winworker-us-east-2c', '10.0.150.9'])
      assert.equal(after.filter((l) => l.trim().startsWith(fresh)).length, 1, `once: ${fresh}\n${after.join('\n')}`);
    assertSummariesMatchRows(view.roots);
    assert.deepEqual(await watchesSettle(watchesBefore), watchesBefore, 'the same watches open after a fresh start');
    figures.push(`fresh etcd: rows back ${freshMs} ms after the objects were back; watches ${fmt(watchesBefore)}`);

    // The live check's cluster facts (the snapshot sent to the language server) follow the new nodes.
    await waitFor('a snapshot of the new nodes', () =>
      snapshots.some((s) => s.windowsNodes.map((n) => n.name).includes('win-fresh-c')),
    );
    const last = snapshots.at(-1)!;
    assert.deepEqual(last.windowsNodes.map((n) => n.name).sort(), ['byoh-win2022-1', 'win-fresh-c', NODE].sort());
  } finally {
    sub.dispose();
    view.dispose();
    t.dispose();
  }
  // Closed with the view: only the server's own watches are left.
  assert.deepEqual(await watchesSettle({}), {}, 'every watch of the view closed');
});

test('the problems view while the server is away and after: one error row, then the same findings as a fresh read', async () => {
  const locate = { explicit: api.kubeconfigPath };
  const problems = new ProblemsTree({ locate, timeoutMs: 5_000 });
  const rows = async (p: ProblemsTree) => (await p.children()).map((n) => `${n.label} — ${n.description ?? ''}`);
  const before = await rows(problems);
  assert.ok(before.length > 0);
  await halt();
  try {
    problems.refresh();
    const down = await rows(problems);
    assert.equal(down.length, 1, down.join('\n'));
    assert.doesNotMatch(down[0], /\n\s+at /, 'no stack trace');
  } finally {
    await resume();
  }
  problems.refresh();
  assert.deepEqual(await rows(problems), await rows(new ProblemsTree({ locate, timeoutMs: 5_000 })));
  assert.deepEqual(await rows(problems), before, 'the same cluster, the same findings');
});

test('etcd compacted under the watches (no watch cache): 410 Gone, listed again, the rows exact, no watch leaked', async () => {
  const own = await useApiServer({ own: true, compactionInterval: '1s', extraArgs: ['--watch-cache=false'] });
  const ownBaseline = await openWatches(own);
  const sessions: ClusterSession[] = [];
  const lists: WatchedList<{ metadata?: { name?: string } }>[] = [];
  try {
    await seed(own, firstWorld());
    const load = loadKubeconfig({ explicit: own.kubeconfigPath });
    assert.ok(load.ok);
    // Watches that the server ends every second and that resume from the last version seen.
    const s = new ClusterSession(CONTEXT_ADMIN, load.config, { timeoutMs: 10_000, watchTimeoutSeconds: 1 });
    sessions.push(s);
    const nodes = await s.windowsNodes();
    const pods = s.podWatch(NODE);
    await pods.start();
    const byoh = new WatchedList<{ metadata?: { name?: string }; data?: Record<string, string> }>(
      s.client,
      {
        path: `/api/v1/namespaces/${WMCO_NAMESPACE}/configmaps`,
        selector: { fieldSelector: 'metadata.name=windows-instances' },
      },
      { errorContext: { what: 'BYOH instances' }, watchTimeoutSeconds: 1 },
    );
    const machineSets = new WatchedList<{ metadata?: { name?: string } }>(
      s.client,
      { path: `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API}/machinesets`, selector: {} },
      { errorContext: { what: 'Windows MachineSets' }, watchTimeoutSeconds: 1 },
    );
    lists.push(byoh, machineSets);
    await Promise.all([byoh.start(), machineSets.start()]);
    // Each source's watch opens just after its list: wait for all four before counting.
    const four = ['configmaps', 'machine.openshift.io/machinesets', 'nodes', 'pods'];
    let watchesBefore: Record<string, number> = {};
    await waitFor(
      'the four watches open',
      () => four.every((r) => (watchesBefore[r] ?? 0) >= 1),
      async () => {
        watchesBefore = oursOf(await openWatches(own), ownBaseline);
      },
    );
    assert.deepEqual(watchesBefore, Object.fromEntries(four.map((r) => [r, 1])), 'one watch per source');

    // Quiet collections, a moving etcd: the watches' versions fall behind and are compacted away.
    const churn = `/api/v1/namespaces/default/configmaps`;
    expectStatus(await own.request(churn, { body: { metadata: { name: 'churn' }, data: { n: '0' } } }), [201], 'churn');
    const started = Date.now();
    for (let i = 1; [nodes.lists, pods.lists, byoh.lists, machineSets.lists].some((n) => n < 2); i++) {
      assert.ok(
        Date.now() - started < FAILSAFE_MS,
        `no 410 yet: lists ${[nodes.lists, pods.lists, byoh.lists, machineSets.lists]}`,
      );
      await own.request(`${churn}/churn`, {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: { data: { n: String(i) } },
      });
      await new Promise((r) => setTimeout(r, 100));
    }
    // Every source listed again, none failed: each saw 410 Gone, and what it holds is what the server holds.
    for (const [what, src] of [
      ['nodes', nodes],
      ['pods', pods],
      ['BYOH', byoh],
      ['MachineSets', machineSets],
    ] as const)
      assert.equal(src.error, undefined, `${what}: no failure shown for a 410`);
    assert.deepEqual(
      nodes.nodes().map((n) => n.name),
      ['byoh-win2022-1', 'winworker-2019-a', NODE],
    );
    assert.deepEqual(
      pods.pods().map((p) => p.view.name),
      ['iis-7c9d5f8b6-abcde'],
    );
    assert.deepEqual(
      machineSets.items().map((o) => o.metadata?.name),
      ['winworker-us-east-2a'],
    );
    assert.equal(byoh.items().length, 1);
    // Watches end every second here: the count is polled until it is what it was (a leak never would be).
    const watchesAfter = await watchesSettle(watchesBefore, own, ownBaseline);
    assert.deepEqual(watchesAfter, watchesBefore, 'the same watches open after the 410s: none leaked');
    figures.push(
      `compaction: lists nodes ${nodes.lists}, pods ${pods.lists}, BYOH ${byoh.lists}, MachineSets ${machineSets.lists} (each 410 Gone then a list); watches ${fmt(watchesBefore)} before and after`,
    );
  } finally {
    for (const l of lists) l.stop();
    for (const s of sessions) s.dispose();
    await own.stop();
  }
});

const fmt = (w: Record<string, number>) =>
  Object.entries(w)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

async function waitFor(what: string, cond: () => boolean, poll?: () => Promise<void>): Promise<void> {
  const end = Date.now() + FAILSAFE_MS;
  await poll?.();
  while (!cond()) {
    await poll?.();
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
