import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import type { Plan, Step } from '../../src/bootstrap/plan';
import {
  redact,
  resumePoint,
  runPlan,
  Secret,
  TransientError,
  type RunEvent,
  type RunResult,
} from '../../src/bootstrap/runner';
import { renderLog } from '../../src/bootstrap/render';

// An in-memory Windows host: each step installs one feature; faults make a step misbehave.
type Fault =
  | { kind: 'throw'; message: string }
  | { kind: 'transient'; times: number }
  | { kind: 'verify-lies' }
  | { kind: 'hang' }
  | { kind: 'hang-until-aborted' };

interface Host {
  features: Set<string>;
  applies: Map<string, number>;
  faults: Map<string, Fault>;
  token: Secret;
  /** Called when a hanging apply starts. */
  onHang?: () => void;
}

const IDS = ['prepare-disk', 'install-containerd', 'install-kubelet', 'configure-cni', 'register-node'];

function step(id: string, extra: Partial<Step<Host>> = {}): Step<Host> {
  return {
    id,
    title: `Do ${id}`,
    async check(host) {
      return host.features.has(id) ? 'done' : { todo: `${id} is missing` };
    },
    async apply(host, signal, report) {
      host.applies.set(id, (host.applies.get(id) ?? 0) + 1);
      const fault = host.faults.get(id);
      report(`applying ${id}`, 0.5);
      if (fault?.kind === 'throw') throw new Error(fault.message);
      if (fault?.kind === 'transient' && fault.times > 0) {
        fault.times--;
        throw new TransientError('connection reset by peer');
      }
      if (fault?.kind === 'hang') {
        host.onHang?.();
        await new Promise(() => undefined); // ignores the signal on purpose
      }
      if (fault?.kind === 'hang-until-aborted') {
        host.onHang?.();
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
      }
      if (fault?.kind !== 'verify-lies') host.features.add(id);
    },
    async verify(host) {
      return host.features.has(id) || `${id} is still missing after apply`;
    },
    preview: { powershell: [`Install-Thing -Name ${id}`] },
    ...extra,
  };
}

function makeHost(): Host {
  return { features: new Set(), applies: new Map(), faults: new Map(), token: new Secret('tok-S3CRET-42') };
}

function makePlan(overrides: Record<string, Partial<Step<Host>>> = {}): Plan<Host> {
  return { id: 'join', title: 'Join win-1', target: 'win-1', steps: IDS.map((id) => step(id, overrides[id])) };
}

async function run(
  plan: Plan<Host>,
  host: Host,
  opts: Parameters<typeof runPlan<Host>>[2] = {},
): Promise<{ result: RunResult; events: RunEvent[] }> {
  const events: RunEvent[] = [];
  const result = await runPlan(plan, host, { backoffMs: 1, ...opts, onEvent: (e) => events.push(e) });
  return { result, events };
}

const outcomes = (r: RunResult) => r.steps.map((s) => s.outcome);

/** Every step-start has exactly one step-end, plan-start comes first and plan-end last. */
function assertWellFormed(events: RunEvent[]): void {
  assert.equal(events[0]?.type, 'plan-start');
  assert.equal(events.at(-1)?.type, 'plan-end');
  assert.equal(events.filter((e) => e.type === 'plan-end').length, 1);
  let open: string | undefined;
  for (const e of events) {
    if (e.type === 'step-start') {
      assert.equal(open, undefined, 'steps do not overlap');
      open = e.stepId;
    } else if (e.type === 'step-end') {
      assert.equal(e.stepId, open);
      open = undefined;
    } else if (e.type === 'step-check' || e.type === 'step-apply' || e.type === 'step-verify') {
      assert.equal(e.stepId, open);
    }
  }
  assert.equal(open, undefined, 'no step left open');
}

test('applies every step, then a second run skips them all', async () => {
  const host = makeHost();
  const first = await run(makePlan(), host);
  assert.equal(first.result.outcome, 'done');
  assert.deepEqual(outcomes(first.result), Array(5).fill('applied'));
  assert.equal(resumePoint(first.result), undefined);
  assertWellFormed(first.events);
  const starts = first.events.filter((e) => e.type === 'step-start');
  assert.deepEqual(
    starts.map((e) => e.type === 'step-start' && `${e.index}/${e.total}`),
    ['1/5', '2/5', '3/5', '4/5', '5/5'],
  );
  assert.ok(first.events.some((e) => e.type === 'log' && e.fraction === 0.5 && e.stepId === 'prepare-disk'));
  assert.ok(first.events.some((e) => e.type === 'step-check' && e.reason === 'prepare-disk is missing'));

  const second = await run(makePlan(), host);
  assert.equal(second.result.outcome, 'done');
  assert.deepEqual(outcomes(second.result), Array(5).fill('skipped'));
  assert.equal(second.events.filter((e) => e.type === 'step-apply').length, 0);
  for (const id of IDS) assert.equal(host.applies.get(id), 1);
  assertWellFormed(second.events);
});

test('a failing apply stops the plan with its message; later steps are not run', async () => {
  const host = makeHost();
  host.faults.set('install-kubelet', { kind: 'throw', message: 'kubelet.exe: access denied' });
  const { result, events } = await run(makePlan(), host);
  assert.equal(result.outcome, 'failed');
  assert.deepEqual(outcomes(result), ['applied', 'applied', 'failed', 'not-run', 'not-run']);
  assert.deepEqual(result.error, { stepId: 'install-kubelet', message: 'kubelet.exe: access denied' });
  assert.equal(resumePoint(result), 'install-kubelet');
  assert.equal(host.applies.get('configure-cni'), undefined);
  assertWellFormed(events);
  const end = events.at(-1);
  assert.ok(end?.type === 'plan-end' && end.outcome === 'failed' && end.message === 'kubelet.exe: access denied');
});

test('a verify failure fails the step with the verify message', async () => {
  const host = makeHost();
  host.faults.set('configure-cni', { kind: 'verify-lies' });
  const { result, events } = await run(makePlan(), host);
  assert.equal(result.outcome, 'failed');
  assert.deepEqual(outcomes(result), ['applied', 'applied', 'applied', 'failed', 'not-run']);
  assert.match(result.error?.message ?? '', /configure-cni is still missing after apply/);
  assert.ok(
    events.some((e) => e.type === 'step-verify' && !e.ok && e.message === 'configure-cni is still missing after apply'),
  );
  assertWellFormed(events);
});

test('transient errors are retried with backoff, then the step succeeds', async () => {
  const host = makeHost();
  host.faults.set('install-containerd', { kind: 'transient', times: 2 });
  const { result, events } = await run(makePlan({ 'install-containerd': { retries: 3 } }), host);
  assert.equal(result.outcome, 'done');
  assert.equal(result.steps[1]?.attempts, 3);
  assert.equal(host.applies.get('install-containerd'), 3);
  const attempts = events.filter((e) => e.type === 'step-apply' && e.stepId === 'install-containerd');
  assert.deepEqual(
    attempts.map((e) => e.type === 'step-apply' && e.attempt),
    [1, 2, 3],
  );
  assert.equal(events.filter((e) => e.type === 'log' && e.level === 'warn' && /retrying in/.test(e.message)).length, 2);

  // Not enough retries: the transient error becomes the failure; a plain error is never retried.
  const host2 = makeHost();
  host2.faults.set('install-containerd', { kind: 'transient', times: 5 });
  const r2 = await run(makePlan({ 'install-containerd': { retries: 1 } }), host2);
  assert.equal(r2.result.outcome, 'failed');
  assert.equal(host2.applies.get('install-containerd'), 2);
  const host3 = makeHost();
  host3.faults.set('install-containerd', { kind: 'throw', message: 'bad config' });
  await run(makePlan({ 'install-containerd': { retries: 4 } }), host3);
  assert.equal(host3.applies.get('install-containerd'), 1);
});

test('cancelling in the middle of a step stops promptly, even when the step ignores the signal', async () => {
  for (const kind of ['hang', 'hang-until-aborted'] as const) {
    const host = makeHost();
    const ctl = new AbortController();
    host.faults.set('install-kubelet', { kind });
    let abortedAt = 0;
    host.onHang = () =>
      setTimeout(() => {
        abortedAt = performance.now();
        ctl.abort();
      }, 20);
    // A step that ignores the signal is given settleMs to end its own work (clean-up), then left to itself.
    const { result, events } = await run(makePlan(), host, { signal: ctl.signal, settleMs: 20 });
    const lag = performance.now() - abortedAt;
    assert.ok(lag < 200, `returned ${lag} ms after the abort`);
    assert.equal(result.outcome, 'cancelled', kind);
    assert.deepEqual(outcomes(result), ['applied', 'applied', 'cancelled', 'not-run', 'not-run']);
    assert.equal(result.error?.stepId, 'install-kubelet');
    assert.equal(host.applies.get('configure-cni'), undefined);
    assert.equal(resumePoint(result), 'install-kubelet');
    assertWellFormed(events);
    assert.ok(events.some((e) => e.type === 'step-end' && e.outcome === 'cancelled'));
  }

  // Aborted before it starts: nothing runs, and the run is still fully reported.
  const ctl = new AbortController();
  ctl.abort();
  const host = makeHost();
  const { result, events } = await run(makePlan(), host, { signal: ctl.signal });
  assert.equal(result.outcome, 'cancelled');
  assert.deepEqual(outcomes(result), Array(5).fill('not-run'));
  assert.equal(host.applies.size, 0);
  assertWellFormed(events);
});

test('resume from the failed step after fixing the fault: done, nothing applied twice', async () => {
  const host = makeHost();
  host.faults.set('configure-cni', { kind: 'throw', message: 'vSwitch not found' });
  const first = await run(makePlan(), host);
  const at = resumePoint(first.result);
  assert.equal(at, 'configure-cni');

  host.faults.delete('configure-cni');
  const second = await run(makePlan(), host, { startAt: at });
  assert.equal(second.result.outcome, 'done');
  assert.deepEqual(outcomes(second.result), ['skipped', 'skipped', 'skipped', 'applied', 'applied']);
  for (const id of IDS) assert.ok((host.applies.get(id) ?? 0) <= 1 || id === 'configure-cni', id);
  assert.equal(host.applies.get('configure-cni'), 2, 'the failed attempt and the resumed one');
  assert.equal(host.applies.get('prepare-disk'), 1);
  const start = second.events[0];
  assert.ok(start?.type === 'plan-start' && start.startAt === 'configure-cni');
  assertWellFormed(second.events);

  // An earlier step that came undone is applied again, with a warning rather than silently.
  host.features.delete('prepare-disk');
  const third = await run(makePlan(), host, { startAt: 'register-node' });
  assert.equal(third.result.steps[0]?.outcome, 'applied');
  assert.ok(third.events.some((e) => e.type === 'log' && e.level === 'warn' && e.stepId === 'prepare-disk'));

  await assert.rejects(run(makePlan(), host, { startAt: 'no-such-step' }), /no such step/);
});

test('a step that runs out of time fails with a timeout message', async () => {
  const host = makeHost();
  host.faults.set('install-containerd', { kind: 'hang' });
  const t0 = performance.now();
  const { result, events } = await run(makePlan({ 'install-containerd': { timeoutMs: 50 } }), host);
  assert.ok(performance.now() - t0 < 1000);
  assert.equal(result.outcome, 'failed');
  assert.deepEqual(outcomes(result), ['applied', 'failed', 'not-run', 'not-run', 'not-run']);
  assert.match(result.error?.message ?? '', /install-containerd timed out after 50 ms/);
  assertWellFormed(events);

  // defaultTimeoutMs applies to steps without their own.
  const host2 = makeHost();
  host2.faults.set('install-kubelet', { kind: 'hang' });
  const r2 = await run(makePlan(), host2, { defaultTimeoutMs: 30 });
  assert.equal(r2.result.steps[2]?.outcome, 'failed');
});

test('secrets never reach events, results or the log', async () => {
  const host = makeHost();
  const password = 'hunter2-pa55';
  const plan = makePlan({
    'install-kubelet': {
      title: `Log in with ${password}`,
      async apply(h, _signal, report) {
        report(`using token ${h.token.reveal()} and ${password}`);
        throw new Error(`401 for token ${h.token.reveal()}`);
      },
    },
  });
  const { result, events } = await run(plan, host, { secrets: [password] });
  assert.equal(result.outcome, 'failed');
  const everything = JSON.stringify(events) + JSON.stringify(result) + renderLog(events);
  assert.ok(!everything.includes('tok-S3CRET-42'), everything);
  assert.ok(!everything.includes(password));
  assert.match(result.error?.message ?? '', /401 for token •••/);
  assert.ok(events.some((e) => e.type === 'log' && e.message === 'using token ••• and •••'));

  const s = new Secret('abc123');
  assert.equal(String(s), '•••');
  assert.equal(`${s}`, '•••');
  assert.equal(JSON.stringify({ s }), '{"s":"•••"}');
  assert.ok(!inspect({ s }).includes('abc123'));
  assert.equal(s.reveal(), 'abc123');
  assert.equal(redact('a abc123 b abc1234', ['abc123', new Secret('abc1234'), '']), 'a ••• b •••');
});

test('a listener that throws does not break the run', async () => {
  const host = makeHost();
  const result = await runPlan(makePlan(), host, {
    onEvent: () => {
      throw new Error('listener bug');
    },
  });
  assert.equal(result.outcome, 'done');
});

test('a cancelled step ends its clean-up before the run returns, and is looked at again to say whether it took effect', async () => {
  interface World {
    written: boolean;
    temp: boolean;
  }
  // The write lands although the cancel came first (a request already sent), then the step removes its temporary file.
  const writeStep = (whole: boolean): Step<World> => ({
    id: 'write',
    title: 'Write the object',
    preview: {},
    check: async (w) => (w.written ? 'done' : 'todo'),
    apply: async (w, signal) => {
      w.temp = true;
      try {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        w.written = true;
      } finally {
        await new Promise((r) => setImmediate(r));
        w.temp = false;
      }
    },
    verify: async (w) => (w.written ? true : 'not written'),
    leavesBehind: { state: 'The object exists.', ...(whole ? { whole: true as const } : {}) },
  });
  const ctl = new AbortController();
  const world: World = { written: false, temp: false };
  const result = await runPlan({ id: 'p', title: 'P', target: 't', steps: [writeStep(true)] }, world, {
    signal: ctl.signal,
    onEvent: (e) => {
      if (e.type === 'step-apply') setImmediate(() => ctl.abort(new Error('cancelled by the user')));
    },
  });
  assert.equal(result.outcome, 'cancelled');
  assert.equal(world.temp, false, 'the clean-up ran before the run returned');
  assert.equal(result.steps[0]?.tookEffect, true);
  assert.equal(result.aftermath?.state, 'The object exists.', 'said as a fact, not as "may have taken effect"');
  assert.equal(result.aftermath?.changed, true);

  // The same step, its write not landed: an all-or-nothing step had no effect; any other step may have had some.
  for (const whole of [true, false]) {
    const never: Step<World> = { ...writeStep(whole), apply: (_w, signal) => delayThenAbortError(signal) };
    const c = new AbortController();
    const w: World = { written: false, temp: false };
    const r = await runPlan({ id: 'p', title: 'P', target: 't', steps: [never] }, w, {
      signal: c.signal,
      onEvent: (e) => {
        if (e.type === 'step-apply') setImmediate(() => c.abort(new Error('cancelled by the user')));
      },
    });
    assert.equal(r.steps[0]?.tookEffect, false);
    assert.equal(r.aftermath?.changed, !whole, `whole: ${whole}`);
    if (!whole) assert.match(r.aftermath?.state ?? '', /may already have taken effect/);
  }
});

function delayThenAbortError(signal: AbortSignal): Promise<void> {
  return new Promise((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
}
