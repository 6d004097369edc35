// Cancelling the BYOH join at every step (test/support/cancel-walk.ts), with WMCO installed by the plan
// (namespace, OperatorGroup, Subscription) and the key Secret created by it: the API emulator with the
// OLM and WMCO stand-ins and a simulated Windows host. After each cancel the windows-instances entry
// exists exactly when the run says so; the re-run joins with one of each object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WMCO_NAMESPACE } from '../support/kube-seed';
import type { Rig } from '../support/join-rig';
import { byohEntry, byohWorld, runByohJoin, type ByohWorld } from '../support/cancel-worlds';
import { walkCancels } from '../support/cancel-walk';

const count = (r: Rig, kind: string): number =>
  r.emu.list(kind).filter((o) => o.metadata.namespace === WMCO_NAMESPACE).length;

test('BYOH join (WMCO installed by the plan): cancelled at every step, the entry exists exactly when the run says so, and the re-run joins', async (t) => {
  const figures = await walkCancels<ByohWorld>(
    {
      start: byohWorld,
      run: (w, options) => runByohJoin(w, options),
      stop: (w) => w.stop(),
      hosts: (w) => w.rig.sims,
      afterCancel(w, result, point) {
        const state = result.aftermath?.state ?? '';
        const said = /windows-instances ConfigMap lists|WMCO keeps configuring/.test(state);
        if (byohEntry(w.rig) !== undefined)
          assert.ok(said, `${point.stepId}: the entry exists, and the words must say so: ${state}`);
        else if (said) assert.match(state, /may already have taken effect/, `${point.stepId}: ${state}`);
        for (const kind of ['OperatorGroup', 'Subscription'])
          assert.ok(count(w.rig, kind) <= 1, `${point.stepId}: at most one ${kind}`);
      },
      afterDone(w) {
        assert.ok(byohEntry(w.rig) !== undefined, 'the windows-instances entry');
        assert.ok(w.rig.emu.get('Node', 'win-b0'), 'the Node joined');
        assert.equal(count(w.rig, 'OperatorGroup'), 1);
        assert.equal(count(w.rig, 'Subscription'), 1);
        assert.ok(w.rig.emu.get('Secret', 'cloud-private-key', WMCO_NAMESPACE), 'the key Secret');
      },
    },
    (line) => t.diagnostic(line),
  );
  assert.ok(figures.steps.includes('add-instance'), figures.steps.join(', '));
});
