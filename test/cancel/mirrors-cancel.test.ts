// Cancelling the registry mirror push at every step of a node's plan (test/support/cancel-walk.ts), on
// the API emulator and a simulated Windows host that has an old hosts.toml tree. After each cancel the
// node's live tree is whole (the old one, put back, or none touched), no staging folder or temporary
// upload is left, and the words say so; the re-run writes the new tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { desiredTree, mirrorsApply, type MirrorTarget } from '../../src/bootstrap/mirrors-apply';
import type { RunEvent, RunResult } from '../../src/bootstrap/runner';
import { containerdConfig } from '../../src/core/windows/kubeadm';
import { LAYOUT } from '../../src/core/windows/layout';
import { mirrorEntriesOf, renderHostsToml } from '../../src/core/mirrors/render';
import { idms, windowsNode } from '../support/kube-seed';
import { hostAddress, startRig, type Rig } from '../support/join-rig';
import { simTree } from '../support/windows-host-sim';
import { walkCancels } from '../support/cancel-walk';

const ROOT = LAYOUT.registryHosts;
const OLD = { 'quay.io\\hosts.toml': 'server = "https://quay.io/v2"\n' };
const OBJECTS = [idms('mirrors', [{ source: 'docker.io/library', mirrors: ['mirror.example.com/library'] }])];
const NEW = Object.fromEntries(desiredTree(renderHostsToml(mirrorEntriesOf(OBJECTS), { mode: 'ordered' }).files));

async function world(): Promise<Rig> {
  return startRig({
    hosts: 1,
    objects: [windowsNode('win-00', { build: '10.0.20348', address: hostAddress(0), unmanaged: true })],
    host: () => ({
      hostname: 'WIN-0',
      services: { containerd: { status: 'Running', binaryPathName: `"${LAYOUT.containerdExe}" --run-service` } },
      files: {
        [LAYOUT.containerdConfig]: containerdConfig(1),
        ...Object.fromEntries(Object.entries(OLD).map(([p, c]) => [`${ROOT}\\${p}`, c])),
      },
    }),
  });
}

/**
 * One push as `mirrors apply` runs it; its node's run, as the walk reads it, from the plan's events and the node's
 * result (what the CLI's table prints is the state: rolled back or not).
 */
async function push(r: Rig, options: { signal?: AbortSignal; onEvent?: (e: RunEvent) => void }): Promise<RunResult> {
  const events: RunEvent[] = [];
  const out = await mirrorsApply({
    kube: r.kube,
    objects: OBJECTS,
    hostFor: (t: MirrorTarget) => r.hostFor(r.addresses.indexOf(t.address), { retries: 2, backoffMs: 20 }),
    ...(options.signal ? { signal: options.signal } : {}),
    onEvent: (_t, e) => {
      events.push(e);
      options.onEvent?.(e);
    },
  });
  const node = out.nodes[0]!;
  const end = events.find((e) => e.type === 'plan-end');
  const steps = events.flatMap((e) =>
    e.type === 'step-end' ? [{ id: e.stepId, title: e.stepId, outcome: e.outcome, durationMs: 0, attempts: 1 }] : [],
  );
  const stopped = steps.find((s) => s.outcome === 'cancelled' || s.outcome === 'failed');
  const outcome = end?.type === 'plan-end' ? end.outcome : 'failed';
  return {
    planId: 'mirrors-push',
    outcome: node.status === 'changed' || node.status === 'unchanged' ? 'done' : outcome,
    steps,
    durationMs: 0,
    ...(node.reason ? { error: { stepId: stopped?.id ?? '', message: node.reason } } : {}),
    ...(outcome !== 'done' && stopped
      ? { aftermath: { stoppedAt: { id: stopped.id, title: stopped.title }, changed: false, state: node.reason ?? '' } }
      : {}),
  };
}

const live = (r: Rig) => Object.fromEntries(simTree(r.sims[0]!.state, ROOT));

test('mirror push: cancelled at every step, the node keeps its whole previous tree, nothing staged is left, and the re-run pushes', async (t) => {
  const figures = await walkCancels<Rig>(
    {
      start: world,
      run: push,
      stop: (r) => r.stop(),
      hosts: (r) => r.sims,
      afterCancel(r, result, point) {
        assert.deepEqual(live(r), OLD, `${point.stepId}: the previous tree, whole`);
        const swapped = r.sims[0]!.state.opLog.some((o) => o.name === 'swap-hosts-tree');
        if (swapped) assert.match(result.error?.message ?? '', /the previous configuration was restored/);
        assert.match(result.error?.message ?? '', /[Cc]ancel/);
      },
      afterDone(r) {
        assert.deepEqual(live(r), NEW, 'the new tree');
      },
    },
    (line) => t.diagnostic(line),
  );
  assert.deepEqual(figures.steps, ['read', 'stage', 'swap', 'config', 'verify']);
});
