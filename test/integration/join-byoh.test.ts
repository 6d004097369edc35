// The BYOH join end to end: the real engine against the API emulator with the OLM and WMCO stand-ins
// and simulated Windows hosts: WMCO installed by the plan, cloud-private-key created, the
// windows-instances entry merged, the Node followed to Ready; preflight failures with their
// messages; re-runs after faults; ten hosts at once with a bound; removal; the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  buildByohJoinPlan,
  buildByohRemovePlan,
  type ByohContext,
  type ByohOptions,
  type Resolver,
} from '../../src/bootstrap/byoh';
import { runBounded } from '../../src/bootstrap/join';
import { Secret } from '../../src/bootstrap/plan';
import { PreflightError } from '../../src/bootstrap/preflight';
import { runPlan, type RunEvent } from '../../src/bootstrap/runner';
import { renderPlan } from '../../src/bootstrap/render';
import {
  namespace,
  openshiftClusterConfig,
  windowsInstancesConfigMap,
  wmcoCsv,
  WMCO_NAMESPACE,
} from '../support/kube-seed';
import { attachOlmStandin } from '../support/olm-standin';
import { attachWmcoStandin, type WmcoHost } from '../support/wmco-standin';
import { startRig, type Rig } from '../support/join-rig';
import type { KubeObject } from '../support/kube-api-emulator';

const NS = WMCO_NAMESPACE;

interface ByohRig extends Rig {
  wmcoHosts: Map<string, WmcoHost>;
  resolver: Resolver;
  stopStandins(): void;
}

function keySecret(pem: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cloud-private-key', namespace: NS },
    type: 'Opaque',
    data: { 'private-key.pem': Buffer.from(pem).toString('base64') },
  } as KubeObject;
}

/** An OpenShift cluster with hybrid OVN; WMCO and the key secret present unless told otherwise. */
async function byohRig(
  hosts: number,
  o: {
    wmco?: boolean;
    secret?: boolean;
    config?: Parameters<typeof openshiftClusterConfig>[0];
    host?: (i: number) => Record<string, unknown>;
    ptr?: (i: number) => string | undefined;
    /** The WMCO stand-in's delay between its steps (default 20 ms). */
    wmcoStepMs?: number;
  } = {},
): Promise<ByohRig> {
  const rig = await startRig({
    hosts,
    objects: [
      namespace(NS, { 'openshift.io/cluster-monitoring': 'true' }),
      ...openshiftClusterConfig({ hybridOverlay: true, ...o.config }),
    ],
    host: (i) => ({
      hostname: `WIN-B${i}`,
      domain: 'lab.example.com',
      containersFeature: 'Enabled',
      dns: { 'api-int.test.example.com': ['10.0.0.2'] },
      ...o.host?.(i),
    }),
  });
  if (o.wmco !== false) rig.emu.apply(wmcoCsv('Succeeded'));
  if (o.secret !== false) rig.emu.apply(keySecret(readFileSync(rig.keyPath, 'utf8')));
  const wmcoHosts = new Map<string, WmcoHost>();
  const ptr = new Map<string, string[]>();
  rig.addresses.forEach((address, i) => {
    const name = o.ptr ? o.ptr(i) : `win-b${i}.lab.example.com`;
    wmcoHosts.set(address, { hostname: `WIN-B${i}`, build: '10.0.20348', ...(name ? { reverseDns: name } : {}) });
    ptr.set(address, name ? [name] : []);
  });
  const olm = attachOlmStandin(rig.emu, { stepMs: 20 });
  const wmco = attachWmcoStandin(rig.emu, { hosts: wmcoHosts, stepMs: o.wmcoStepMs ?? 20 });
  const resolver: Resolver = { lookup4: async (n) => [n], reverse: async (ip) => ptr.get(ip) ?? [] };
  return Object.assign(rig, {
    wmcoHosts,
    resolver,
    stopStandins() {
      olm.stop();
      wmco.stop();
    },
  });
}

function byohPlan(rig: ByohRig, i: number, extra: Partial<ByohOptions> = {}) {
  const host = rig.hostFor(i);
  const opts: ByohOptions = {
    kube: rig.kube,
    host,
    address: rig.addresses[i] as string,
    user: rig.user,
    resolver: rig.resolver,
    pollMs: 20,
    timeouts: { node: 15_000, csr: 5000, version: 5000, ready: 5000 },
    ...extra,
  };
  return { plan: buildByohJoinPlan(opts), ctx: { opts, state: {} } as ByohContext, host };
}

async function stop(rig: ByohRig): Promise<void> {
  rig.stopStandins();
  await rig.stop();
}

test('BYOH: WMCO installed by the plan (Manual approval), cloud-private-key created, host joined to Ready', async () => {
  const rig = await byohRig(1, { wmco: false, secret: false });
  try {
    rig.emu.remove('Namespace', NS);
    const pem = new Secret(readFileSync(rig.keyPath, 'utf8'));
    const { plan, ctx, host } = byohPlan(rig, 0, {
      installWmco: { approval: 'Manual' },
      privateKey: { pem, source: rig.keyPath },
    });
    const events: RunEvent[] = [];
    const result = await runPlan(plan, ctx, { onEvent: (e) => events.push(e), backoffMs: 10 });
    host.close();
    assert.equal(result.outcome, 'done', JSON.stringify(result.error));
    assert.deepEqual(
      result.steps.map((s) => s.id),
      [
        'wmco-namespace',
        'wmco-operatorgroup',
        'wmco-subscription',
        'wmco-csv',
        'cloud-private-key',
        'preflight',
        'proxy-preflight',
        'add-instance',
        'node-registered',
        'csrs-approved',
        'node-version',
        'node-ready',
      ],
    );
    const ns = rig.emu.get('Namespace', NS);
    assert.equal(ns?.metadata.labels?.['openshift.io/cluster-monitoring'], 'true');
    const sub = rig.emu.get('Subscription', 'windows-machine-config-operator', NS) as KubeObject & {
      spec: Record<string, string>;
    };
    assert.deepEqual(
      [sub.spec.channel, sub.spec.installPlanApproval, sub.spec.name],
      ['stable', 'Manual', 'windows-machine-config-operator'],
    );
    assert.ok(events.some((e) => e.type === 'log' && /approved InstallPlan/.test(e.message)));
    const secret = rig.emu.get('Secret', 'cloud-private-key', NS) as KubeObject & { data: Record<string, string> };
    assert.equal(Buffer.from(secret.data['private-key.pem']!, 'base64').toString(), pem.reveal());
    assert.ok(!JSON.stringify(events).includes(pem.reveal().split('\n')[1]!), 'the key never appears in events');
    const cm = rig.emu.get('ConfigMap', 'windows-instances', NS) as KubeObject & { data: Record<string, string> };
    assert.deepEqual(cm.data, { [rig.addresses[0]!]: `username=${rig.user}` });
    const node = rig.emu.get('Node', 'win-b0') as KubeObject & {
      status: { conditions: { type: string; status: string }[] };
    };
    assert.equal(
      node.metadata.annotations?.['windowsmachineconfig.openshift.io/version'],
      node.metadata.annotations?.['windowsmachineconfig.openshift.io/desired-version'],
    );
    assert.ok(node.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'));
  } finally {
    await stop(rig);
  }
});

test('BYOH: the windows-instances entry is merged without touching other entries, and a re-run changes nothing', async () => {
  const rig = await byohRig(1);
  try {
    rig.emu.apply(windowsInstancesConfigMap({ 'other.example.com': 'core' }));
    rig.wmcoHosts.set('other.example.com', { hostname: 'other', build: '10.0.20348', reachable: false });
    const first = byohPlan(rig, 0);
    const r1 = await runPlan(first.plan, first.ctx, {});
    first.host.close();
    assert.equal(r1.outcome, 'done', JSON.stringify(r1.error));
    const cm = rig.emu.get('ConfigMap', 'windows-instances', NS) as KubeObject & { data: Record<string, string> };
    assert.deepEqual(cm.data, { 'other.example.com': 'username=core', [rig.addresses[0]!]: `username=${rig.user}` });
    const writes = rig.emu.requests.filter((r) => r.method !== 'GET').length;
    const second = byohPlan(rig, 0);
    const r2 = await runPlan(second.plan, second.ctx, {});
    second.host.close();
    assert.equal(r2.outcome, 'done');
    assert.deepEqual(
      r2.steps.filter((s) => s.outcome !== 'skipped').map((s) => s.id),
      ['preflight'],
    );
    assert.equal(rig.emu.requests.filter((r) => r.method !== 'GET').length, writes, 'no API write on the re-run');
    assert.equal(rig.emu.list('Node').length, 1);
  } finally {
    await stop(rig);
  }
});

test('BYOH preflight: each failure stops before any change, with its fix-it message', async () => {
  const cases: { name: string; rig: Parameters<typeof byohRig>[1]; match: RegExp[] }[] = [
    { name: 'no WMCO', rig: { wmco: false }, match: [/Windows Machine Config Operator is not installed/] },
    { name: 'no key secret', rig: { secret: false }, match: [/cloud-private-key secret is missing/] },
    {
      name: 'no hybrid networking',
      rig: { config: { hybridOverlay: false } },
      match: [/hybrid networking is not configured/, /oc patch networks\.operator\.openshift\.io/],
    },
    { name: 'class E network', rig: { config: { clusterNetwork: ['240.0.0.0/14'] } }, match: [/class E/] },
    {
      name: 'dual NIC, docker, old build',
      rig: {
        host: (i) => ({
          adapters: [
            { name: 'Ethernet0', ipv4: [`127.0.0.${i + 2}`] },
            { name: 'Ethernet1', ipv4: ['192.168.7.9'] },
          ],
          services: { docker: { status: 'Running' } },
          build: 17763,
          ubr: 1,
        }),
      },
      match: [/dual NIC/, /Docker/],
    },
    {
      name: 'PTR mismatch',
      rig: { ptr: () => 'somebody-else.lab.example.com' },
      match: [/never approve/, /PTR record/],
    },
    {
      name: 'api-int unresolvable',
      rig: { host: () => ({ dns: {} }) },
      match: [/cannot resolve api-int\.test\.example\.com/],
    },
    {
      name: 'uppercase host name with underscore',
      rig: { host: () => ({ hostname: 'WIN_B0' }) },
      match: [/not a valid RFC 1123 label/],
    },
  ];
  for (const c of cases) {
    const rig = await byohRig(1, c.rig);
    try {
      const { plan, ctx, host } = byohPlan(rig, 0);
      const result = await runPlan(plan, ctx, {});
      host.close();
      assert.equal(result.outcome, 'failed', c.name);
      assert.equal(result.error?.stepId, 'preflight', c.name);
      for (const m of c.match) assert.match(result.error?.message ?? '', m, c.name);
      assert.equal(rig.emu.get('ConfigMap', 'windows-instances', NS), undefined, `${c.name}: nothing written`);
      assert.ok(ctx.state.findings?.length, `${c.name}: findings kept for the UI`);
    } finally {
      await stop(rig);
    }
  }
});

test('BYOH preflight: the host must accept the key in cloud-private-key (public key hashes compared)', async () => {
  const rig = await byohRig(1);
  try {
    // The host accepts our connection key, but the secret holds another key.
    const { execFileSync } = await import('node:child_process');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', `${rig.dir}/other`]);
    rig.emu.apply(keySecret(readFileSync(`${rig.dir}/other`, 'utf8')));
    const { plan, ctx, host } = byohPlan(rig, 0);
    const result = await runPlan(plan, ctx, {});
    host.close();
    assert.equal(result.outcome, 'failed');
    assert.match(result.error?.message ?? '', /does not accept the key in cloud-private-key/);
    assert.ok(
      (result.error?.message ?? '').includes(readFileSync(`${rig.dir}/other.pub`, 'utf8').split(' ')[1]!),
      'the fix names the public key to add',
    );
    assert.ok(ctx.state.findings?.some((f) => f.id === 'host-accepts-key'));
  } finally {
    await stop(rig);
  }
});

test('BYOH: the SSH connection dropped at every host op (before it runs and before it answers), then a re-run: joined, one windows-instances entry, nothing duplicated', async () => {
  // host-facts, authorized-keys and resolve-name are every host op of the BYOH plan (WMCO does the rest).
  for (const op of ['host-facts', 'authorized-keys', 'resolve-name']) {
    for (const after of ['before', 'after'] as const) {
      const label = `${op} (${after})`;
      const rig = await byohRig(1, { wmco: false, secret: false });
      try {
        rig.emu.remove('Namespace', NS);
        const pem = new Secret(readFileSync(rig.keyPath, 'utf8'));
        const extra = { installWmco: { approval: 'Automatic' as const }, privateKey: { pem, source: rig.keyPath } };
        rig.sims[0]!.dropOnOp(op, { times: 20, after });
        const first = byohPlan(rig, 0, extra);
        const r1 = await runPlan(first.plan, first.ctx, { backoffMs: 5 });
        first.host.close();
        assert.equal(r1.outcome, 'failed', label);
        assert.equal(r1.error?.stepId, 'preflight', label);
        assert.match(r1.error?.message ?? '', /lost|closed/i, label);
        assert.equal(
          rig.emu.get('ConfigMap', 'windows-instances', NS),
          undefined,
          `${label}: no entry for a host that was not checked`,
        );
        rig.sims[0]!.clearFaults();
        const second = byohPlan(rig, 0, extra);
        const r2 = await runPlan(second.plan, second.ctx, { backoffMs: 5 });
        second.host.close();
        assert.equal(r2.outcome, 'done', `${label}: ${JSON.stringify(r2.error)}`);
        assert.equal(
          r2.steps.find((s) => s.id === 'add-instance')?.outcome,
          'applied',
          `${label}: the entry is added by the re-run`,
        );
        // What the first run created is reused, never created twice.
        for (const s of ['wmco-namespace', 'wmco-operatorgroup', 'wmco-subscription', 'cloud-private-key'])
          assert.equal(r2.steps.find((x) => x.id === s)?.outcome, 'skipped', `${label}: ${s} reused`);
        const cm = rig.emu.get('ConfigMap', 'windows-instances', NS) as KubeObject & { data: Record<string, string> };
        assert.deepEqual(
          cm.data,
          { [rig.addresses[0]!]: `username=${rig.user}` },
          `${label}: one windows-instances entry`,
        );
        assert.equal(rig.emu.list('ConfigMap').filter((c) => c.metadata.name === 'windows-instances').length, 1, label);
        assert.equal(rig.emu.list('Node').length, 1, `${label}: one Node`);
        assert.equal(rig.emu.list('Subscription').length, 1, `${label}: one Subscription`);
        assert.equal(rig.emu.list('OperatorGroup').length, 1, `${label}: one OperatorGroup`);
        assert.equal(
          rig.emu.list('Secret').filter((x) => x.metadata.name === 'cloud-private-key').length,
          1,
          `${label}: one key Secret`,
        );
      } finally {
        await stop(rig);
      }
    }
  }
});

test('BYOH: a host WMCO cannot configure times out with a message that says where to look', async () => {
  const rig = await byohRig(1);
  try {
    rig.wmcoHosts.set(rig.addresses[0]!, { hostname: 'WIN-B0', build: '10.0.20348', reachable: false });
    const { plan, ctx, host } = byohPlan(rig, 0, { timeouts: { node: 400 } });
    const result = await runPlan(plan, ctx, {});
    host.close();
    assert.equal(result.outcome, 'failed');
    assert.equal(result.error?.stepId, 'node-registered');
    assert.match(
      result.error?.message ?? '',
      /No Node registered .* oc get events -n openshift-windows-machine-config-operator/,
    );
  } finally {
    await stop(rig);
  }
});

test('BYOH: ten hosts at once, at most four at a time, each with its own progress; one failure does not stop the others', async () => {
  const rig = await byohRig(10, { host: (i) => (i === 3 ? { build: 19041 } : {}) });
  try {
    let running = 0;
    let peak = 0;
    const perHost = new Map<string, string[]>();
    const results = await runBounded(rig.addresses, 4, async (address, i) => {
      running++;
      peak = Math.max(peak, running);
      try {
        const { plan, ctx, host } = byohPlan(rig, i);
        try {
          return await runPlan(plan, ctx, {
            onEvent: (e) =>
              e.type === 'step-end' &&
              perHost.set(address, [...(perHost.get(address) ?? []), `${e.stepId}:${e.outcome}`]),
          });
        } finally {
          host.close();
        }
      } finally {
        running--;
      }
    });
    assert.equal(peak, 4);
    const outcomes = results.map((r) => (r.ok ? r.value.outcome : 'threw'));
    assert.deepEqual(outcomes, ['done', 'done', 'done', 'failed', 'done', 'done', 'done', 'done', 'done', 'done']);
    assert.match(
      results[3]!.ok ? ((results[3] as { value: { error?: { message: string } } }).value.error?.message ?? '') : '',
      /not a supported Windows Server build/,
    );
    assert.equal(perHost.size, 10, 'every host reported its own progress');
    const cm = rig.emu.get('ConfigMap', 'windows-instances', NS) as KubeObject & { data: Record<string, string> };
    assert.equal(Object.keys(cm.data).length, 9, 'nine entries, none duplicated, the failed host not added');
    assert.equal(rig.emu.list('Node').length, 9);
  } finally {
    await stop(rig);
  }
});

/** Runs the plan and cancels it as the step `at` starts. */
async function runCancelledAt(rig: ByohRig, at: string) {
  const { plan, ctx, host } = byohPlan(rig, 0);
  const ctl = new AbortController();
  try {
    return await runPlan(plan, ctx, {
      signal: ctl.signal,
      onEvent: (e) => {
        if (e.type === 'step-start' && e.stepId === at) ctl.abort(new Error('cancelled by the user'));
      },
    });
  } finally {
    host.close();
  }
}

test('BYOH cancelled at "Wait for WMCO" (after the entry): the run says WMCO goes on and names the undo; the node does join, and the removal undoes it', async () => {
  const rig = await byohRig(1, { wmcoStepMs: 100 });
  try {
    const address = rig.addresses[0] as string;
    const r = await runCancelledAt(rig, 'node-registered');
    assert.equal(r.outcome, 'cancelled');
    assert.equal(r.aftermath?.changed, true);
    assert.equal(r.aftermath?.undo?.command, 'kubeWindows.removeNode');
    assert.equal(r.aftermath?.undo?.node, address);
    assert.equal(
      r.error?.message,
      `Cancelled during “Wait for WMCO to configure the host and the Node to register”. The windows-instances ConfigMap lists ${address}: WMCO keeps configuring ${address} on its own and the node joins without kube-windows following it. \`kube-windows remove --address ${address}\` undoes it.`,
    );
    // The truth of it: nobody follows any more, and the node joins all the same.
    let joined: KubeObject | undefined;
    for (let i = 0; i < 100 && !joined; i++) {
      joined = rig.emu.get('Node', 'win-b0');
      if (!joined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(joined, 'WMCO configured the host after the cancel');
    const opts = { kube: rig.kube, address, pollMs: 20, timeoutMs: 5000 };
    assert.equal((await runPlan(buildByohRemovePlan(opts), opts, {})).outcome, 'done');
    assert.equal(rig.emu.get('Node', 'win-b0'), undefined, 'Remove node undid it');
  } finally {
    await stop(rig);
  }
});

test('BYOH cancelled during the preflight: nothing was changed (no windows-instances entry), nothing to undo', async () => {
  const rig = await byohRig(1);
  try {
    const r = await runCancelledAt(rig, 'preflight');
    assert.equal(r.outcome, 'cancelled');
    assert.equal(r.aftermath?.changed, false);
    assert.equal(r.aftermath?.undo, undefined);
    assert.match(r.error?.message ?? '', /Nothing was changed in the cluster or on the host\.$/);
    const cm = rig.emu.get('ConfigMap', 'windows-instances', NS) as
      (KubeObject & { data?: Record<string, string> }) | undefined;
    assert.equal(cm?.data?.[rig.addresses[0] as string], undefined);
  } finally {
    await stop(rig);
  }
});

test('BYOH progress follows the watched Node, not the poll: with a 4 s poll, each wait on the Node ends within moments of the change', async () => {
  const rig = await byohRig(1, { wmcoStepMs: 150 });
  try {
    const { plan, ctx, host } = byohPlan(rig, 0, {
      pollMs: 4000,
      timeouts: { node: 30_000, csr: 30_000, version: 30_000, ready: 30_000 },
    });
    const r = await runPlan(plan, ctx, {});
    host.close();
    assert.equal(r.outcome, 'done', JSON.stringify(r.error));
    const waits = r.steps.filter((s) => ['node-registered', 'node-version', 'node-ready'].includes(s.id));
    const waited = waits.filter((s) => s.outcome === 'applied');
    assert.ok(waited.length > 0, `at least one wait on the Node had to wait: ${JSON.stringify(waits)}`);
    for (const s of waited) assert.ok(s.durationMs < 2500, `${s.id} took ${s.durationMs} ms with a 4000 ms poll`);
  } finally {
    await stop(rig);
  }
});

test('BYOH remove: the entry deleted (others kept), the node deconfigured and deleted', async () => {
  const rig = await byohRig(2);
  try {
    for (const i of [0, 1]) {
      const { plan, ctx, host } = byohPlan(rig, i);
      assert.equal((await runPlan(plan, ctx, {})).outcome, 'done');
      host.close();
    }
    const opts = { kube: rig.kube, address: rig.addresses[0] as string, pollMs: 20, timeoutMs: 5000 };
    const r = await runPlan(buildByohRemovePlan(opts), opts, {});
    assert.equal(r.outcome, 'done', JSON.stringify(r.error));
    const cm = rig.emu.get('ConfigMap', 'windows-instances', NS) as KubeObject & { data: Record<string, string> };
    assert.deepEqual(Object.keys(cm.data), [rig.addresses[1]]);
    assert.equal(rig.emu.get('Node', 'win-b0'), undefined);
    assert.ok(rig.emu.get('Node', 'win-b1'));
    const again = await runPlan(buildByohRemovePlan(opts), opts, {});
    assert.deepEqual(
      again.steps.map((s) => s.outcome),
      ['skipped', 'skipped'],
    );
  } finally {
    await stop(rig);
  }
});

test('BYOH dry run: reads like the WMCO README BYOH steps, with WMCO install and the key secret redacted', async () => {
  const rig = await byohRig(1, { wmco: false, secret: false });
  try {
    const pem = new Secret(readFileSync(rig.keyPath, 'utf8'));
    const { plan, host } = byohPlan(rig, 0, {
      installWmco: { approval: 'Automatic' },
      privateKey: { pem, source: rig.keyPath },
    });
    const text = renderPlan(plan);
    host.close();
    assert.match(text, /openshift\.io\/cluster-monitoring/);
    assert.match(text, /^ {6}installPlanApproval: Automatic$/m);
    assert.match(text, /^ {6}private-key\.pem: •••$/m);
    assert.ok(!text.includes(pem.reveal().split('\n')[1]!));
    assert.match(
      text,
      /PATCH \/api\/v1\/namespaces\/openshift-windows-machine-config-operator\/configmaps\/windows-instances/,
    );
    assert.match(text, /username=Administrator/);
    assert.match(text, /# kube-windows op: host-facts/);
    assert.match(text, /version equals desired-version/);
    assert.equal(rig.sims[0]!.state.opLog.length, 0);
  } finally {
    await stop(rig);
  }
});

/** Runs the built CLI; resolves with its exit code and output. */
function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], {
      env: { ...process.env, SSH_AUTH_SOCK: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('CLI: kube-windows join with three --address values and --concurrency 2 joins them, prefixed progress, exit 0', async () => {
  const rig = await byohRig(3, { ptr: () => undefined });
  try {
    const args = [
      'join',
      '--kubeconfig',
      rig.kubeconfigPath,
      '--context',
      'emulator',
      '--user',
      rig.user,
      '--key',
      rig.keyPath,
      '--port',
      String(rig.port),
      '--known-hosts',
      rig.knownHostsPath,
      '--concurrency',
      '2',
      '--poll-interval',
      '20',
    ];
    for (const a of rig.addresses) args.push('--address', a);
    const r = await cli(args);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    for (const a of rig.addresses) assert.match(r.stdout, new RegExp(`\\[${a.replace(/\./g, '\\.')}\\] joined`));
    assert.match(r.stdout, /3 of 3 hosts joined/);
    assert.equal(rig.emu.list('Node').length, 3);
    assert.equal(r.stderr, '');
  } finally {
    await stop(rig);
  }
});

test('CLI: Ctrl-C at "Wait for WMCO" prints what the join leaves (WMCO goes on) and the command that undoes it, exit 1', async () => {
  const rig = await byohRig(1, { wmcoStepMs: 2000 });
  try {
    const address = rig.addresses[0] as string;
    const child = spawn(
      process.execPath,
      [
        'dist/cli.js',
        'join',
        ...['--kubeconfig', rig.kubeconfigPath, '--context', 'emulator', '--user', rig.user, '--key', rig.keyPath],
        ...[
          '--port',
          String(rig.port),
          '--known-hosts',
          rig.knownHostsPath,
          '--poll-interval',
          '20',
          '--address',
          address,
        ],
      ],
      { env: { ...process.env, SSH_AUTH_SOCK: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        const before = stdout;
        stdout += c.toString();
        if (!/Wait for WMCO to configure/.test(before) && /Wait for WMCO to configure/.test(stdout))
          child.kill('SIGINT');
      });
      child.on('close', resolve);
    });
    assert.equal(code, 1, stdout + stderr);
    assert.ok(
      stdout.includes(
        `cancelled: Cancelled during “Wait for WMCO to configure the host and the Node to register”. The windows-instances ConfigMap lists ${address}: WMCO keeps configuring ${address} on its own and the node joins without kube-windows following it. \`kube-windows remove --address ${address}\` undoes it.`,
      ),
      stdout,
    );
    assert.doesNotMatch(stdout + stderr, /run (it )?again to resume/);
  } finally {
    await stop(rig);
  }
});

test('CLI: join --dry-run prints the plan and touches nothing; an unknown host key is refused without --accept-new-host-key', async () => {
  const rig = await byohRig(1);
  try {
    const base = [
      'join',
      '--kubeconfig',
      rig.kubeconfigPath,
      '--context',
      'emulator',
      '--user',
      rig.user,
      '--key',
      rig.keyPath,
      '--port',
      String(rig.port),
      '--address',
      rig.addresses[0]!,
    ];
    const dry = await cli([...base, '--known-hosts', rig.knownHostsPath, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /# kube-windows plan: Join 127\.0\.0\.2 through WMCO/);
    assert.equal(rig.sims[0]!.state.opLog.length, 0);
    const emptyKnownHosts = `${rig.dir}/empty_known_hosts`;
    const refused = await cli([...base, '--known-hosts', emptyKnownHosts]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stdout,
      /host key of \[127\.0\.0\.2\]:\d+ \(SHA256:[A-Za-z0-9+/]+\) is not known and was not accepted/,
    );
    assert.equal(rig.sims[0]!.state.opLog.length, 0, 'nothing ran on an unverified host');
    assert.doesNotMatch(refused.stdout + refused.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    await stop(rig);
  }
});

test('CLI: a preflight failure exits 1 with each problem and its fix', async () => {
  const rig = await byohRig(1, { config: { hybridOverlay: false } });
  try {
    const r = await cli([
      'join',
      '--kubeconfig',
      rig.kubeconfigPath,
      '--context',
      'emulator',
      '--user',
      rig.user,
      '--key',
      rig.keyPath,
      '--port',
      String(rig.port),
      '--known-hosts',
      rig.knownHostsPath,
      '--address',
      rig.addresses[0]!,
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /✗ OVN-Kubernetes hybrid networking is not configured/);
    assert.match(r.stdout, /oc patch networks\.operator\.openshift\.io cluster/);
  } finally {
    await stop(rig);
  }
});

test('PreflightError is what a failed preflight throws (the UI reads its findings)', () => {
  const err = new PreflightError([{ id: 'x', severity: 'error', title: 'broken', fix: 'mend it' }]);
  assert.equal(err.findings[0]?.id, 'x');
});
