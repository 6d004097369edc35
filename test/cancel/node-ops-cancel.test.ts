// Cancelling the graceful reboot and the node drain at every step (test/support/cancel-walk.ts): the
// API emulator with a PodDisruptionBudget and the Eviction API, a simulated Windows host that really
// restarts and a stand-in kubelet. After each cancel the node is cordoned exactly when the run says so,
// the host restarted at most once; the re-run completes without a second restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRebootPlan, type RebootContext, type RebootNode } from '../../src/bootstrap/reboot';
import { schedulingPlanFor } from '../../src/bootstrap/drain';
import { runPlan } from '../../src/bootstrap/runner';
import type { NodeObject } from '../../src/cluster/nodes';
import { hostAddress, startRig, type Rig } from '../support/join-rig';
import { pod, windowsNode } from '../support/kube-seed';
import type { KubeObject } from '../support/kube-api-emulator';
import { startKubeletStandin } from '../support/kubelet-standin';
import { walkCancels } from '../support/cancel-walk';

const NODE = 'win-a';

function workload(name: string): KubeObject {
  const p = pod(name, 'default', NODE, { windows: true, labels: { app: 'web' } });
  (p.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name}-rs`, uid: 'u1', controller: true },
  ];
  return p;
}

interface World {
  rig: Rig;
  stopKubelet(): void;
  /** The cancel said the reboot was complete (then a re-run is a second reboot, as it warns). */
  complete?: boolean;
}

async function world(aws: boolean): Promise<World> {
  const rig = await startRig({
    hosts: 1,
    objects: [
      windowsNode(NODE, { build: '10.0.20348', address: hostAddress(0), byoh: !aws }),
      workload('web-1'),
      workload('web-2'),
    ],
    host: () => ({
      hostname: 'WIN-A',
      services: {
        kubelet: { status: 'Running' },
        containerd: { status: 'Running' },
        'kube-proxy': { status: 'Running' },
      },
    }),
  });
  const kubelet = startKubeletStandin(rig.emu, rig.sims, { tickMs: 15, readyAfterMs: 100 });
  return { rig, stopKubelet: () => kubelet.stop() };
}

const unschedulable = (r: Rig): boolean =>
  Boolean((r.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable);
const podsLeft = (r: Rig): number => r.emu.list('Pod').filter((p) => p.metadata.namespace === 'default').length;

test('graceful reboot (AWS): cancelled at every step, it says what it leaves, restarts at most once, and the re-run completes', async (t) => {
  const figures = await walkCancels<World>(
    {
      start: () => world(true),
      async run(w, options) {
        const host = w.rig.hostFor(0);
        try {
          const node = w.rig.emu.get('Node', NODE) as unknown as RebootNode;
          const opts = {
            kube: w.rig.kube,
            host,
            node,
            pollMs: 20,
            timeoutMs: 10_000,
            evictionRetryMs: 0,
            drainTimeoutMs: 3000,
          };
          const ctx: RebootContext = { opts, state: {} };
          return await runPlan(buildRebootPlan(opts), ctx, options);
        } finally {
          // As the CLI and VS Code do: the connection closes as soon as the run returns.
          host.close();
        }
      },
      async stop(w) {
        w.stopKubelet();
        await w.rig.stop();
      },
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
        assert.equal(podsLeft(w.rig), 0, 'the workload pods were evicted');
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
      start: () => world(false),
      run(w, options) {
        const node = w.rig.emu.get('Node', NODE) as unknown as NodeObject;
        return schedulingPlanFor('drain', { kube: w.rig.kube, node, pollMs: 20, evictionRetryMs: 0 }).run(options);
      },
      async stop(w) {
        w.stopKubelet();
        await w.rig.stop();
      },
      hosts: (w) => w.rig.sims,
      afterCancel(w, result, point) {
        const state = result.aftermath?.state ?? '';
        assert.equal(unschedulable(w.rig), /cordoned/.test(state), `${point.stepId}/${point.at}: ${state}`);
        assert.equal(w.rig.sims[0]!.state.opLog.length, 0, 'a drain never touches the host');
      },
      afterDone(w) {
        assert.equal(unschedulable(w.rig), true, 'a drained node stays cordoned');
        assert.equal(podsLeft(w.rig), 0);
      },
    },
    (line) => t.diagnostic(line),
  );
  assert.deepEqual(figures.steps, ['cordon', 'drain']);
});
