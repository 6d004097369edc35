// What a stopped plan says it left, per plan kind: the words come from the steps' own declarations
// (Step.leavesBehind), the last step that changed something wins, a write stopped halfway "may have
// taken effect", a wait stopped halfway does not count, and the undo names its command. The plans are
// the real builders; the run results are written by hand (each kind's run is tested elsewhere).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { NodeObject } from '../../src/cluster/nodes';
import { aftermathOf, cancelMessage, NOTHING_CHANGED } from '../../src/bootstrap/aftermath';
import { buildByohJoinPlan, buildByohRemovePlan, type ByohContext } from '../../src/bootstrap/byoh';
import { schedulingPlanFor, schedulingSummary } from '../../src/bootstrap/drain';
import { buildKubeadmJoinPlan, type KubeadmContext } from '../../src/bootstrap/kubeadm';
import { buildKubeadmRemovePlan } from '../../src/bootstrap/kubeadm-remove';
import type { Plan } from '../../src/bootstrap/plan';
import { buildRebootPlan, rebootSummary } from '../../src/bootstrap/reboot';
import { runPlan, type RunResult, type StepOutcome, type StepResult } from '../../src/bootstrap/runner';
import { wmcoSetupPlan } from '../../src/bootstrap/wmco-install';
import type { WindowsHost } from '../../src/remote/windows-host';

const kube = { server: 'https://api.example:6443' } as unknown as KubeClient;
const host = { label: 'Administrator@10.0.0.5:22', close: () => undefined } as unknown as WindowsHost;
const node = { metadata: { name: 'win-1' }, spec: {}, status: {} } as NodeObject;
const ADDRESS = '10.0.0.5';

/** The results of a run that stopped at `id` (earlier steps applied, or `earlier` for them). */
function stoppedAt<C>(
  plan: Plan<C>,
  id: string,
  o: { outcome?: StepOutcome; attempts?: number; earlier?: StepOutcome } = {},
): StepResult[] {
  const at = plan.steps.findIndex((s) => s.id === id);
  assert.ok(at >= 0, `${plan.id} has a step ${id}`);
  return plan.steps.map((s, i) => ({
    id: s.id,
    title: s.title,
    durationMs: 0,
    outcome: i < at ? (o.earlier ?? 'applied') : i === at ? (o.outcome ?? 'cancelled') : 'not-run',
    attempts: i < at ? 1 : i === at ? (o.attempts ?? 1) : 0,
  }));
}

const byoh = () => {
  const opts = { kube, host, address: ADDRESS, user: 'Administrator' };
  return { plan: buildByohJoinPlan(opts), ctx: { opts, state: {} } as ByohContext };
};

test('BYOH join cancelled before the windows-instances entry: nothing was changed, nothing to undo', () => {
  const { plan, ctx } = byoh();
  for (const [id, attempts] of [
    ['preflight', 1],
    ['add-instance', 0],
  ] as const) {
    const a = aftermathOf(plan, ctx, stoppedAt(plan, id, { attempts }));
    assert.equal(a?.changed, false, id);
    assert.equal(a?.state, NOTHING_CHANGED);
    assert.equal(a?.undo, undefined);
  }
});

test('BYOH join cancelled while the entry was being written: it may have taken effect, and Remove node is offered', () => {
  const { plan, ctx } = byoh();
  const a = aftermathOf(plan, ctx, stoppedAt(plan, 'add-instance'));
  assert.equal(a?.changed, true);
  assert.match(
    a?.state ?? '',
    /^“Add 10\.0\.0\.5 to the windows-instances ConfigMap” was stopped while it ran and may already have taken effect; if it did: the windows-instances ConfigMap lists 10\.0\.0\.5/,
  );
  assert.equal(a?.undo?.command, 'kubeWindows.removeNode');
});

test('BYOH join cancelled at "Wait for WMCO" (after the entry): WMCO keeps configuring, kube-windows only stopped following; Remove node undoes it', () => {
  const { plan, ctx } = byoh();
  for (const id of ['node-registered', 'csrs-approved', 'node-version', 'node-ready']) {
    const a = aftermathOf(plan, ctx, stoppedAt(plan, id));
    assert.equal(a?.changed, true, id);
    assert.match(
      a?.state ?? '',
      /WMCO keeps configuring 10\.0\.0\.5 on its own and the node joins without kube-windows following it\./,
      id,
    );
    assert.doesNotMatch(
      a?.state ?? '',
      /may already have taken effect/,
      `${id}: a wait stopped halfway changed nothing`,
    );
    assert.deepEqual(a?.undo && { command: a.undo.command, label: a.undo.label, node: a.undo.node }, {
      command: 'kubeWindows.removeNode',
      label: 'Remove node…',
      node: ADDRESS,
    });
    assert.equal(a?.stoppedAt.id, id);
  }
  // Once the Node is known, the undo names it.
  ctx.state.node = { metadata: { name: 'win-b0' } } as NodeObject;
  const a = aftermathOf(plan, ctx, stoppedAt(plan, 'node-version'));
  assert.match(a?.state ?? '', /^The Node win-b0 is registered; WMCO keeps configuring/);
  assert.equal(a?.undo?.node, 'win-b0');
  // The CLI's words name its command.
  assert.match(
    cancelMessage(a!),
    /^Cancelled during “Wait for WMCO to finish.*”\. The Node win-b0 is registered; .* `kube-windows remove --address 10\.0\.0\.5` undoes it\.$/,
  );
});

test('BYOH join on a re-run: an entry written by an earlier run (the step skipped) still counts', () => {
  const { plan, ctx } = byoh();
  const a = aftermathOf(plan, ctx, stoppedAt(plan, 'node-registered', { earlier: 'skipped' }));
  assert.match(a?.state ?? '', /windows-instances ConfigMap lists 10\.0\.0\.5/);
});

test('kubeadm join: host prepared (the cluster untouched), then joined (Remove node offered)', () => {
  const payload = {
    containerd: {
      kind: 'url',
      name: 'containerd-2.0.4-windows-amd64.tar.gz',
      url: 'https://x/c',
      sha256: 'a'.repeat(64),
    },
    kubelet: { kind: 'url', name: 'kubelet.exe', url: 'https://x/k', sha256: 'b'.repeat(64) },
    kubeadm: { kind: 'url', name: 'kubeadm.exe', url: 'https://x/a', sha256: 'c'.repeat(64) },
  } as const;
  const opts = { kube, host, address: ADDRESS, user: 'Administrator', payload, taint: true, runtimeClass: true };
  const plan = buildKubeadmJoinPlan(opts);
  const ctx = { opts, state: {} } as KubeadmContext;
  assert.equal(aftermathOf(plan, ctx, stoppedAt(plan, 'containers-feature', { attempts: 0 }))?.state, NOTHING_CHANGED);
  const prepared = aftermathOf(plan, ctx, stoppedAt(plan, 'join', { attempts: 0 }));
  assert.equal(
    prepared?.state,
    'On 10.0.0.5, the containerd service runs and the kubelet service is registered (it waits for kubeadm join); nothing in the cluster was changed; running the join again continues from here.',
  );
  assert.equal(prepared?.undo, undefined);
  ctx.state.nodeName = 'win-k0';
  const joined = aftermathOf(plan, ctx, stoppedAt(plan, 'networking-pods'));
  assert.match(
    joined?.state ?? '',
    /^10\.0\.0\.5 joined the cluster as the Node win-k0 and is Ready; the kubelet keeps running/,
  );
  assert.equal(joined?.undo?.command, 'kubeWindows.removeNode');
  assert.equal(joined?.undo?.node, 'win-k0');
  // Every step that writes declares what it leaves (the probe cleans up after itself; preflight only reads).
  const silent = plan.steps.filter((s) => !s.leavesBehind).map((s) => s.id);
  assert.deepEqual(silent, ['preflight', 'probe']);
});

test('BYOH remove and kubeadm remove: the entry deleted means WMCO goes on; a cordon offers Uncordon', () => {
  const opts = { kube, address: ADDRESS };
  const byohRemove = buildByohRemovePlan(opts);
  const a = aftermathOf(byohRemove, opts, stoppedAt(byohRemove, 'node-deconfigured'));
  assert.match(a?.state ?? '', /WMCO keeps draining and deconfiguring the host and deletes the Node on its own/);
  const kopts = { kube, address: ADDRESS, nodeName: 'win-k0', host };
  const kubeadmRemove = buildKubeadmRemovePlan(kopts);
  const b = aftermathOf(kubeadmRemove, kopts, stoppedAt(kubeadmRemove, 'kubeadm-reset', { attempts: 0 }));
  assert.match(b?.state ?? '', /^The Node win-k0 is cordoned/);
  assert.equal(b?.undo?.command, 'kubeWindows.uncordonNode');
});

test('reboot and drain: cordoned (Uncordon offered), the restart happens without us; the summaries say so once', () => {
  const reboot = buildRebootPlan({ kube, host, node });
  const ctx = { opts: { kube, host, node }, state: {} };
  const a = aftermathOf(reboot, ctx, stoppedAt(reboot, 'wait-not-ready'));
  assert.match(a?.state ?? '', /^The host of win-1 was asked to restart and restarts on its own/);
  assert.equal(a?.undo?.command, 'kubeWindows.uncordonNode');
  const result: RunResult = {
    planId: reboot.id,
    outcome: 'cancelled',
    steps: stoppedAt(reboot, 'wait-not-ready'),
    durationMs: 1,
    error: { stepId: 'wait-not-ready', message: 'x' },
    ...(a ? { aftermath: a } : {}),
  };
  const summary = rebootSummary(result, 'win-1');
  assert.match(
    summary,
    /^The reboot of win-1 was cancelled at step wait-not-ready\. The host of win-1 was asked to restart/,
  );
  assert.equal(summary.match(/stays cordoned/g)?.length, 1, summary);

  const drain = schedulingPlanFor('drain', { kube, node });
  assert.equal(drain.steps[0]?.id, 'cordon');
});

test('reboot cancelled while the restart ran: the drain left it cordoned, the restart may have been taken; the cordon said once', () => {
  const reboot = buildRebootPlan({ kube, host, node });
  const ctx = { opts: { kube, host, node }, state: {} };
  const a = aftermathOf(reboot, ctx, stoppedAt(reboot, 'restart'));
  const state = a?.state ?? '';
  assert.match(state, /^The pods evicted so far are gone from win-1/);
  assert.match(
    state,
    /“Restart Windows .*” was stopped while it ran and may already have taken effect; if it did: the host of win-1 was asked to restart/,
  );
  assert.equal(state.match(/stays cordoned/g)?.length, 1, state);
  assert.equal(a?.undo?.command, 'kubeWindows.uncordonNode');
});

test('WMCO setup: the Subscription left means OLM keeps installing', () => {
  const setup = wmcoSetupPlan({ kube, installWmco: { approval: 'Automatic' } });
  assert.ok(setup.steps.some((s) => s.id === 'wmco-subscription' && s.leavesBehind));
});

test('the runner attaches the aftermath to a cancelled run and words its error from it (the CLI prints that line)', async () => {
  const ctl = new AbortController();
  const plan: Plan<undefined> = {
    id: 'demo',
    title: 'Demo',
    target: 'x',
    steps: [
      {
        id: 'write',
        title: 'Write the entry',
        preview: {},
        check: async () => 'todo',
        apply: async () => undefined,
        verify: async () => true,
        leavesBehind: { state: 'The entry exists: the operator acts on it.' },
      },
      {
        id: 'wait',
        title: 'Wait for the operator',
        preview: {},
        check: async () => 'todo',
        apply: async (_c, signal) => {
          ctl.abort(new Error('cancelled by the user'));
          signal.throwIfAborted();
        },
        verify: async () => true,
      },
    ],
  };
  const r = await runPlan(plan, undefined, { signal: ctl.signal });
  assert.equal(r.outcome, 'cancelled');
  assert.equal(r.aftermath?.state, 'The entry exists: the operator acts on it.');
  assert.equal(
    r.error?.message,
    'Cancelled during “Wait for the operator”. The entry exists: the operator acts on it.',
  );
  const done = await runPlan({ ...plan, steps: plan.steps.slice(0, 1) }, undefined, {});
  assert.equal(done.aftermath, undefined, 'a run that ends done has no aftermath');
  assert.match(schedulingSummary('cordon', done, 'win-1'), /cordoned/);
});
