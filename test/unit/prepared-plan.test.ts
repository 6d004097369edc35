// The one plan shape callers get: a prepared plan shows as its plan does and runs with its context,
// and every entry point returns it (join, remove, reboot, cordon/uncordon/drain, WMCO setup).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { NodeObject } from '../../src/cluster/nodes';
import { schedulingPlanFor } from '../../src/bootstrap/drain';
import { joinPlan } from '../../src/bootstrap/join';
import type { Plan } from '../../src/bootstrap/plan';
import { prepare } from '../../src/bootstrap/prepared';
import { buildRebootPlan, rebootPlanFor } from '../../src/bootstrap/reboot';
import { renderPlan } from '../../src/bootstrap/render';
import type { RunEvent } from '../../src/bootstrap/runner';
import { wmcoSetupPlan } from '../../src/bootstrap/wmco-install';
import type { WindowsHost } from '../../src/remote/windows-host';

interface Ctx {
  seen: string[];
  state: { count: number };
}

const plan: Plan<Ctx> = {
  id: 'demo',
  title: 'A demo plan',
  target: 'win-1',
  steps: ['one', 'two'].map((id) => ({
    id,
    title: `Step ${id}`,
    preview: { check: `${id} done`, powershell: [`Write-Output ${id}`] },
    check: async (ctx) => (ctx.seen.includes(id) ? 'done' : 'todo'),
    apply: async (ctx) => {
      ctx.seen.push(id);
      ctx.state.count++;
    },
    verify: async () => true,
    retries: 1,
  })),
};

test('prepare: the dry run of a prepared plan is the dry run of its plan, byte for byte', () => {
  const p = prepare(plan, { seen: [], state: { count: 0 } });
  assert.equal(renderPlan(p), renderPlan(plan));
  assert.deepEqual(
    p.steps.map((s) => s.id),
    ['one', 'two'],
  );
});

test('prepare: run goes through the runner with the bound context (progress, resume) and state shows what it learnt', async () => {
  const ctx: Ctx = { seen: ['one'], state: { count: 0 } };
  const p = prepare(plan, ctx);
  const events: RunEvent[] = [];
  const result = await p.run({ onEvent: (e) => events.push(e), startAt: 'two' });
  assert.equal(result.outcome, 'done');
  assert.deepEqual(
    result.steps.map((s) => s.outcome),
    ['skipped', 'applied'],
  );
  assert.equal(p.state.count, 1);
  assert.equal(events[0]?.type, 'plan-start');
  assert.equal(events.at(-1)?.type, 'plan-end');
});

test('prepare: a cancelled signal stops the prepared plan before its first step', async () => {
  const p = prepare(plan, { seen: [], state: { count: 0 } });
  const ctl = new AbortController();
  ctl.abort(new Error('cancelled by the user'));
  const result = await p.run({ signal: ctl.signal });
  assert.equal(result.outcome, 'cancelled');
  assert.equal(p.state.count, 0);
});

const kube = { server: 'https://api.example:6443' } as unknown as KubeClient;
const host = { label: 'Administrator@10.0.0.5:22', close: () => undefined } as unknown as WindowsHost;
const node: NodeObject = { metadata: { name: 'win-1' }, spec: {}, status: {} } as NodeObject;

test('every entry point returns the prepared shape: join, reboot, scheduling and WMCO setup render without a cast', async () => {
  const join = joinPlan({ kube, host, address: '10.0.0.5', user: 'Administrator', via: 'byoh' });
  assert.match(renderPlan(join), /^# kube-windows plan: Join 10\.0\.0\.5 through WMCO/);
  assert.deepEqual(join.state, {});

  const reboot = await rebootPlanFor({ kube, host, node });
  assert.equal(
    renderPlan(reboot),
    renderPlan(buildRebootPlan({ kube, host, node })),
    'the CLI and VS Code reboot build the same plan',
  );

  for (const action of ['cordon', 'uncordon', 'drain'] as const) {
    const p = schedulingPlanFor(action, { kube, node });
    assert.equal(p.id, `node-${action}`);
    assert.match(renderPlan(p), new RegExp(`# target: win-1`));
  }

  const setup = wmcoSetupPlan({ kube, installWmco: { approval: 'Automatic' } });
  assert.equal(setup.id, 'wmco-setup');
  assert.ok(setup.steps.length > 0);
});
