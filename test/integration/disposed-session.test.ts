// What a closed cluster session and a refreshed tree leave behind, against the API emulator (found by the
// extension host's soak, test/soak/extension-host.test.ts): a caller that still holds a disposed session
// (a throttled snapshot, a read in flight) is answered at once, but no watch starts that nothing would stop;
// and the Refresh command drops a snapshot scheduled for the old sessions instead of reading through them;
// the rows of pods that came and went, and the sessions Refresh closed, are let go (the tree held every row
// it ever showed, and through each row's YAML reader its session: the extension host's heap grew by about
// 2 KB per refresh over the day).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../support/kube-api-emulator';
import { mixedCluster, pod } from '../support/kube-seed';
import { collectGarbage } from '../support/soak';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import { ClusterSession } from '../../src/cluster/session';
import { ClusterTree } from '../../src/views/cluster-tree';
import { ask, byLabel, waitFor } from '../support/tree-view';
import type { TreeNode } from '../../src/views/cluster-item';

let emu: Emulator;
let tmp: string;

before(async () => {
  emu = await startEmulator({ objects: mixedCluster(), openshift: true });
  tmp = mkdtempSync(join(tmpdir(), 'kw-disposed-'));
});

after(async () => {
  await emu.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a disposed session answers late reads and starts no watch', async () => {
  const load = loadKubeconfig({ explicit: emu.kubeconfig({ context: 'late', file: join(tmp, 'late') }) });
  assert.ok(load.ok);
  const s = new ClusterSession('late', load.config, { timeoutMs: 5000, retryMs: 100 });
  const state = await s.connect();
  assert.equal(state.status, 'connected');
  await s.runtimeClasses();
  await waitFor('the live session watches', () => emu.openWatches() > 0);
  s.dispose();
  await waitFor('the closed session watches nothing', () => emu.openWatches() === 0);

  // What a snapshot timer or a read that was in flight asks of it afterwards: each resolves (nothing
  // waits on a closed session), none leaves a watch open.
  await s.windowsNodes();
  await s.runtimeClasses();
  await s.mirrorSets();
  await s.byohInstances();
  await s.podWatch('winworker-2022-b').start();
  await pause(300);
  assert.equal(emu.openWatches(), 0, 'no watch outlives the session');
});

test('Refresh drops a snapshot scheduled for the old sessions: nothing is read until the view asks again', async () => {
  const t = new ClusterTree({
    locate: { explicit: emu.kubeconfig({ context: 'refreshed', file: join(tmp, 'refreshed') }) },
    watchKubeconfig: false,
    session: { timeoutMs: 5000, retryMs: 100 },
    loadingAfterMs: 60_000,
    // Long enough that the snapshot the node change schedules is still pending when Refresh runs.
    snapshotThrottleMs: 3000,
  });
  try {
    const snapshots: unknown[] = [];
    t.onSnapshot((s) => snapshots.push(s));
    const [root] = await ask(t);
    await ask(t, byLabel(await ask(t, root), 'Windows nodes'));
    await waitFor('the first snapshot', () => snapshots.length === 1);
    // A node is cordoned: a snapshot is scheduled (throttled), then the user runs Refresh before it is due.
    let changed = false;
    const sub = t.onDidChange((id) => (changed ||= id?.endsWith('/node/winworker-2022-b') ?? false));
    emu.patch('Node', 'winworker-2022-b', undefined, { spec: { unschedulable: true } });
    await waitFor('the node change in the tree', () => changed);
    sub.dispose();
    t.refresh();
    const from = emu.requests.length;
    await pause(3500);
    // The snapshot reads the Windows nodes first; a RuntimeClass read already under way may still land.
    assert.deepEqual(
      emu.requests.slice(from).filter((r) => r.path === '/api/v1/nodes'),
      [],
      'no node read through the closed sessions',
    );
    assert.equal(emu.openWatches(), 0, 'no watch left open');
  } finally {
    t.dispose();
  }
});

test('the rows of pods that came and went, and the sessions Refresh closed, are let go', async () => {
  const t = new ClusterTree({
    locate: { explicit: emu.kubeconfig({ context: 'churn', file: join(tmp, 'churn') }) },
    watchKubeconfig: false,
    session: { timeoutMs: 5000, retryMs: 100 },
    loadingAfterMs: 60_000,
  });
  const node = 'winworker-2022-b';
  /** The pod rows of the node as the view shows them once they are what the cluster has. */
  const podRows = async (names: string[]): Promise<TreeNode[]> => {
    let rows: TreeNode[] = [];
    await waitFor(`pods ${names.join(', ')}`, async () => {
      const [root] = await ask(t);
      const nodeRow = byLabel(await ask(t, byLabel(await ask(t, root), 'Windows nodes')), node);
      rows = await ask(t, byLabel(await ask(t, nodeRow), 'Pods'));
      return rows.map((r) => r.label).join() === [...names].sort().join();
    });
    return rows;
  };
  /** A pod created on the node and deleted once the view showed it: a weak reference to its row (held here, the row would be this test's). */
  const comesAndGoes = async (name: string): Promise<WeakRef<object>> => {
    emu.apply(pod(name, 'default', node, { windows: true }));
    const row = (await podRows([...seeded, name])).find((r) => r.label === name);
    assert.ok(row);
    emu.remove('Pod', name, 'default');
    await podRows(seeded);
    return new WeakRef(row);
  };
  const session = () =>
    (t as unknown as { manager?: { session(c: string): object | undefined } }).manager?.session('churn');
  const seeded = (await podRows(['iis-7c9d5f8b6-abcde'])).map((r) => r.label);
  const gone: WeakRef<object>[] = [];
  try {
    for (let round = 0; round < 3; round++) {
      gone.push(new WeakRef(session()!));
      for (let i = 0; i < 5; i++) {
        gone.push(await comesAndGoes(`churn-${round}-${i}`));
      }
      t.refresh();
      await podRows(seeded);
    }
    // The session Refresh closed last may still be ending its requests (its watches' sockets close
    // asynchronously): collected once they have; the rows and sessions held by the tree never are.
    const held = () => gone.filter((r) => r.deref() !== undefined).length;
    let kept = gone.length;
    await waitFor(`the rows and sessions let go (${kept} of 18 held)`, async () => {
      await collectGarbage();
      return (kept = held()) === 0;
    }).catch(() => undefined);
    assert.equal(kept, 0, `${kept} of 18 still held (15 rows of deleted pods, 3 sessions Refresh closed)`);
    assert.ok(session(), 'the live session is there');
  } finally {
    t.dispose();
  }
});
