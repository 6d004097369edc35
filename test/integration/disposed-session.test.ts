// What a closed cluster session and a refreshed tree leave behind, against the API emulator (found by the
// extension host's soak, test/soak/extension-host.test.ts): a caller that still holds a disposed session
// (a throttled snapshot, a read in flight) is answered at once, but no watch starts that nothing would stop;
// and the Refresh command drops a snapshot scheduled for the old sessions instead of reading through them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../support/kube-api-emulator';
import { mixedCluster } from '../support/kube-seed';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import { ClusterSession } from '../../src/cluster/session';
import { ClusterTree } from '../../src/views/cluster-tree';
import { ask, byLabel, waitFor } from '../support/tree-view';

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
