// Cancelling the registry mirror push at every step of a node's plan (test/support/cancel-walk.ts), on
// the API emulator and a simulated Windows host that has an old hosts.toml tree. After each cancel the
// node's live tree is whole (the old one, put back, or none touched), no staging folder or temporary
// upload is left, and the words say so; the re-run writes the new tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Rig } from '../support/join-rig';
import { simTree } from '../support/windows-host-sim';
import { MIRROR_ROOT, mirrorWorld, NEW_MIRROR_TREE, OLD_MIRROR_TREE, pushMirrors } from '../support/cancel-worlds';
import { walkCancels } from '../support/cancel-walk';

const live = (r: Rig) => Object.fromEntries(simTree(r.sims[0]!.state, MIRROR_ROOT));

test('mirror push: cancelled at every step, the node keeps its whole previous tree, nothing staged is left, and the re-run pushes', async (t) => {
  const figures = await walkCancels<Rig>(
    {
      start: mirrorWorld,
      run: (r, options) => pushMirrors(r, options),
      stop: (r) => r.stop(),
      hosts: (r) => r.sims,
      afterCancel(r, result, point) {
        assert.deepEqual(live(r), OLD_MIRROR_TREE, `${point.stepId}: the previous tree, whole`);
        const swapped = r.sims[0]!.state.opLog.some((o) => o.name === 'swap-hosts-tree');
        if (swapped) assert.match(result.error?.message ?? '', /the previous configuration was restored/);
        assert.match(result.error?.message ?? '', /[Cc]ancel/);
      },
      afterDone(r) {
        assert.deepEqual(live(r), NEW_MIRROR_TREE, 'the new tree');
      },
    },
    (line) => t.diagnostic(line),
  );
  assert.deepEqual(figures.steps, ['read', 'stage', 'swap', 'config', 'verify']);
});
