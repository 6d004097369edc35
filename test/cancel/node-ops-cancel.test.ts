// Cancelling the graceful reboot and the node drain at every step (test/support/cancel-walk.ts): the
// API emulator with a PodDisruptionBudget and the Eviction API, a simulated Windows host that really
// restarts and a stand-in kubelet. After each cancel the node is cordoned exactly when the run says so,
// the host restarted at most once; the re-run completes without a second restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  rebootWorld,
  runDrain,
  runReboot,
  unschedulable,
  workloadPodsLeft,
  type CancelWorld,
} from '../support/cancel-worlds';
import { walkCancels } from '../support/cancel-walk';

interface World extends CancelWorld {
  /** The cancel said the reboot was complete (then a re-run is a second reboot, as it warns). */
  complete?: boolean;
}

test('graceful reboot (AWS): cancelled at every step, it says what it leaves, restarts at most once, and the re-run completes', async (t) => {
  const figures = await walkCancels<World>(
    {
      start: () => rebootWorld(true),
      run: (w, options) => runReboot(w, options),
      stop: (w) => w.stop(),
      hosts: (w) => w.rig.sims,
      afterCancel(w, result, point) {
        const state = result.aftermath?.state ?? '';
        assert.equal(
          unschedulable(w.rig),
          /stays cordoned|is cordoned/.test(state),
          `${point.stepId}/${point.at}: cordoned exactly when the run says so (${state})`,
        );
        assert.ok(w.rig.sims[0]!.state.bootCount + (w.rig.sims[0]!.rebooting ? 1 : 0) <= 1, 'at most one restart');
        w.complete = /the reboot is complete/.test(state);
        if (w.complete) assert.equal(point.stepId, 'verify', 'complete only once uncordoned');
      },
      async afterDone(w) {
        await w.rig.sims[0]!.whenRebooted();
        assert.equal(w.rig.sims[0]!.state.bootCount, w.complete ? 2 : 1, 'one restart per reboot asked for');
        assert.equal(unschedulable(w.rig), false, 'uncordoned');
        assert.equal(workloadPodsLeft(w.rig), 0, 'the workload pods were evicted');
        const routes = w.rig.sims[0]!.state.opLog.filter((o) => o.name === 'add-metadata-route').length;
        assert.ok(routes <= (w.complete ? 2 : 1), 'the metadata route added at most once per restart');
      },
    },
    (line) => t.diagnostic(line),
  );
  assert.deepEqual(figures.steps, [
    'cordon',
    'drain',
    'restart',
    'wait-not-ready',
    'aws-metadata-route',
    'wait-ready',
    'uncordon',
    'verify',
  ]);
});

test('node drain: cancelled at every step, the node is cordoned exactly when the run says so; the re-run drains it', async (t) => {
  const figures = await walkCancels<World>(
    {
      start: () => rebootWorld(false),
      run: (w, options) => runDrain(w, options),
      stop: (w) => w.stop(),
      hosts: (w) => w.rig.sims,
      afterCancel(w, result, point) {
        const state = result.aftermath?.state ?? '';
        assert.equal(unschedulable(w.rig), /cordoned/.test(state), `${point.stepId}/${point.at}: ${state}`);
        assert.equal(w.rig.sims[0]!.state.opLog.length, 0, 'a drain never touches the host');
      },
      afterDone(w) {
        assert.equal(unschedulable(w.rig), true, 'a drained node stays cordoned');
        assert.equal(workloadPodsLeft(w.rig), 0);
      },
    },
    (line) => t.diagnostic(line),
  );
  assert.deepEqual(figures.steps, ['cordon', 'drain']);
});
