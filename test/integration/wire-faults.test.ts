// Faults on the wire: the API emulator injects one fault kind at a time (401, 403, 404, 409, 410,
// 429 with Retry-After, 500, 503, resets, half-written JSON, slow bodies, a request that never
// answers, a watch that goes silent) and every reader must end in a stated outcome: done, or failed
// with one line that says why, never a stack trace, never a hang. The outcome of each kind is printed
// as a figure (docs/reliability.md). SSH faults during joins, mirror pushes and reboots are covered
// by join-byoh, join-kubeadm, mirrors-apply, node-ops and ssh-transport.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/cluster/kube-client';
import { ApiError, classifyError, RequestTimeoutError } from '../../src/cluster/errors';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { ListWatch } from '../../src/cluster/list-watch';
import { startEmulator, type Emulator, type Fault } from '../support/kube-api-emulator';
import { namespace, pod, windowsNode } from '../support/kube-seed';
import { runCli } from '../support/run-cli';

let emu: Emulator;
let kubeconfig: string;
let limited: string;
const outcomes: string[] = [];

before(async () => {
  emu = await startEmulator({
    objects: [
      namespace('web'),
      windowsNode('win-1', { build: '10.0.20348', address: '10.0.0.5' }),
      pod('iis-1', 'web', 'win-1', { windows: true }),
    ],
    tokens: {
      'no-events-token': {
        user: 'auditor',
        deny: [
          { verb: 'list', resource: 'events' },
          { verb: 'list', resource: 'secrets' },
        ],
      },
    },
  });
  kubeconfig = emu.kubeconfig({ context: 'lab' });
  limited = emu.kubeconfig({ context: 'lab', token: 'no-events-token' });
});

after(async () => {
  // The figures for docs/reliability.md: fault kind -> outcome.
  console.log(`wire faults: ${outcomes.length} kinds\n${outcomes.map((o) => `  ${o}`).join('\n')}`);
  await emu.stop();
});

function client(opts: { timeoutMs?: number; backoffMs?: number; retries?: number } = {}): KubeClient {
  const load = loadKubeconfig({ explicit: kubeconfig });
  assert.ok(load.ok);
  return new KubeClient(configForContext(load.config, 'lab'), { timeoutMs: 5000, backoffMs: 50, ...opts });
}

/** `check --context` (the CLI's widest cluster reader) under one fault. */
async function checkUnder(fault: Fault | undefined, env: Record<string, string> = {}, config = kubeconfig) {
  emu.setFault(fault);
  const started = Date.now();
  try {
    const r = await runCli(['check', '--context', 'lab', '--kubeconfig', config, '-n', 'web', '--format', 'json'], {
      env,
    });
    return { ...r, ms: Date.now() - started };
  } finally {
    emu.setFault(undefined);
  }
}

/** Done: the whole report on stdout (exit 1 when it has findings, 0 when not), nothing on stderr. */
function assertDone(r: { code: number | null; stderr: string; stdout: string }): void {
  assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.ok((JSON.parse(r.stdout) as { summary?: unknown }).summary);
}

/** A failure stated as one line on stderr, exit code 2, no stack trace. */
function assertStatedFailure(r: { code: number | null; stderr: string; stdout: string }, says: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^kube-windows: /);
  assert.match(lines[0]!, says);
  assert.doesNotMatch(r.stderr, /\n\s+at |internal error|TypeError|SyntaxError|undefined/);
}

const NODES = /^\/api\/v1\/nodes$/;

for (const [status, says] of [
  [401, /credentials .* expired or invalid \(401 Unauthorized\)/],
  [404, /Not found on cluster "lab"/],
  [409, /answered 409/],
  [500, /answered 500 .*injected fault/],
] as const) {
  test(`HTTP ${status} on a list: failed, with the reason`, async () => {
    const r = await checkUnder({ path: NODES, status });
    assertStatedFailure(r, says);
    outcomes.push(`${status}: failed with the reason (exit 2)`);
  });
}

test('429 with Retry-After: waits as told, then done; a server that keeps refusing is given up after 3 retries', async () => {
  emu.requests.length = 0;
  const r = await checkUnder({ path: NODES, status: 429, retryAfterSeconds: 1, times: 2 });
  assertDone(r);
  assert.equal(JSON.parse(r.stdout).summary.errors, 0);
  const asked = emu.requests.filter((q) => q.path === '/api/v1/nodes');
  assert.deepEqual(
    asked.map((q) => q.status),
    [429, 429, 200],
  );
  assert.ok(r.ms >= 2000, `two Retry-After waits of 1 s: took ${r.ms} ms`);

  emu.requests.length = 0;
  const refused = await checkUnder({ path: NODES, status: 429, retryAfterSeconds: 1 });
  assertStatedFailure(refused, /answered 429/);
  assert.equal(
    emu.requests.filter((q) => q.path === '/api/v1/nodes').length,
    4,
    'one request and three retries, then it stops',
  );
  outcomes.push('429 (Retry-After 1 s, twice): done after the waits; 429 forever: failed after 3 retries');
});

test('a Retry-After longer than 30 s is not waited for: failed at once with the reason', async () => {
  const r = await checkUnder({ path: NODES, status: 429, retryAfterSeconds: 3600 });
  assertStatedFailure(r, /answered 429/);
  assert.ok(r.ms < 10_000, `took ${r.ms} ms`);
});

test('503 once: retried after a back-off, then done', async () => {
  const kube = client();
  emu.setFault({ path: NODES, status: 503, times: 1 });
  const t0 = Date.now();
  const list = await kube.get<{ items: unknown[] }>('/api/v1/nodes');
  emu.setFault(undefined);
  assert.equal(list.items.length, 1);
  assert.ok(Date.now() - t0 >= 50);
  outcomes.push('503 once: done after one back-off');
});

test('writes are never repeated by the client: a 503 on a POST is the caller’s to judge', async () => {
  const kube = client();
  emu.requests.length = 0;
  emu.setFault({ path: /\/configmaps$/, status: 503 });
  await assert.rejects(
    kube.create('/api/v1/namespaces/web/configmaps', { metadata: { name: 'x' } }),
    (e: unknown) => e instanceof ApiError && e.status === 503,
  );
  emu.setFault(undefined);
  assert.equal(emu.requests.filter((q) => q.method === 'POST').length, 1);
  assert.equal(emu.get('ConfigMap', 'x', 'web'), undefined, 'no duplicate, no object at all');
});

test('a connection reset: failed, with the reason', async () => {
  const r = await checkUnder({ path: NODES, dropConnection: true });
  assertStatedFailure(r, /does not answer .*ECONNRESET/);
  outcomes.push('reset: failed with the reason (exit 2)');
});

test('half-written JSON: failed, with the reason', async () => {
  const r = await checkUnder({ path: NODES, truncateBody: true });
  assertStatedFailure(r, /does not answer|incomplete or garbled/);
  // The body's error used to leave the request timer running: the command then sat out the whole timeout.
  assert.ok(r.ms < 10_000, `took ${r.ms} ms`);
  outcomes.push('half-written JSON: failed with the reason (exit 2)');
});

test('a slow body inside the timeout: done', async () => {
  const r = await checkUnder({ path: NODES, slowBodyMs: 1500 });
  assertDone(r);
  assert.ok(r.ms >= 1500);
  outcomes.push('slow body (1.5 s): done');
});

test('a request that never answers ends at the stated timeout (KUBE_WINDOWS_REQUEST_TIMEOUT)', async () => {
  const r = await checkUnder({ path: NODES, hangMs: 30_000 }, { KUBE_WINDOWS_REQUEST_TIMEOUT: '1' });
  assertStatedFailure(r, /no response within 1 s/);
  assert.ok(r.ms < 8000, `took ${r.ms} ms`);
  const bad = await checkUnder(undefined, { KUBE_WINDOWS_REQUEST_TIMEOUT: 'soon' });
  assertStatedFailure(bad, /KUBE_WINDOWS_REQUEST_TIMEOUT must be a positive number/);
  outcomes.push('no answer: failed at the timeout (1 s set; one minute by default)');
});

test('a slow body past the timeout: failed at the timeout, not after the body', async () => {
  const r = await checkUnder({ path: NODES, slowBodyMs: 20_000 }, { KUBE_WINDOWS_REQUEST_TIMEOUT: '1' });
  assertStatedFailure(r, /no response within 1 s/);
  assert.ok(r.ms < 8000, `took ${r.ms} ms`);
});

test('a user who may not read events still gets the findings, with a line saying what was not read', async () => {
  const r = await checkUnder(undefined, {}, limited);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const report = JSON.parse(r.stdout) as { summary: unknown };
  assert.ok(report.summary);
  assert.equal(
    r.stderr.trim(),
    'kube-windows: Warning events not read: You are not allowed to list events in namespace "web" on cluster "lab" (403 Forbidden). Ask a cluster administrator for this permission.',
  );
  outcomes.push('403 on events: done for the rest, with a line naming what was not read');
});

test('403 injected on nodes: the rest is still checked, the line names nodes', async () => {
  const r = await checkUnder({ path: NODES, status: 403 });
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  assert.match(r.stderr, /^kube-windows: Windows nodes not read: .*\(403 Forbidden\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('410 Gone on a watch: listed again, the view stays whole', async () => {
  const kube = client();
  let lists = 0;
  let failures = 0;
  const names = new Set<string>();
  emu.setFault({ path: /watch=true/, status: 410, times: 1 });
  const lw = new ListWatch<{ metadata?: { name?: string; resourceVersion?: string } }>(
    kube,
    { path: '/api/v1/nodes', selector: {}, retryMs: 50 },
    {
      listed: (items) => {
        lists++;
        names.clear();
        for (const i of items) names.add(i.metadata?.name ?? '');
      },
      event: () => undefined,
      failed: () => void failures++,
      recovered: () => undefined,
    },
  );
  await lw.start();
  const deadline = Date.now() + 5000;
  while (lists < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  lw.stop();
  emu.setFault(undefined);
  assert.equal(lists, 2, 'a second list after 410');
  assert.equal(failures, 0, '410 is not a failure');
  assert.deepEqual([...names], ['win-1']);
  outcomes.push('410 on watch: listed again (done)');
});

test('a watch that goes silent is ended by the idle bound, and says so', async () => {
  const kube = client();
  emu.setFault({ path: /watch=true/, silentWatch: true });
  const t0 = Date.now();
  const err = await new Promise<unknown>((resolve) => {
    kube.watch('/api/v1/nodes', {}, () => undefined, resolve, 500);
  });
  emu.setFault(undefined);
  assert.ok(err instanceof RequestTimeoutError, String(err));
  assert.ok(Date.now() - t0 < 3000);
  assert.equal(classifyError(err, { context: 'lab' }).reason, 'timeout');
  outcomes.push('silent watch: ended at the idle bound, reported as a timeout');
});
