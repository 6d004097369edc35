// The node operations (reboot, logs, services) end to end: the reboot plan against the API emulator (with
// PodDisruptionBudgets and the Eviction API) and a simulated Windows host that really restarts, with
// a stand-in kubelet that turns the Node NotReady while the host is down and Ready when it is back
// (on AWS only once the metadata route exists, as on a real EC2 node). Logs, services and the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildRebootPlan,
  podsWithEmptyDir,
  rebootSummary,
  type RebootContext,
  type RebootNode,
  type RebootOptions,
} from '../../src/bootstrap/reboot';
import { collectNodeLogs } from '../../src/bootstrap/node-logs';
import { nodeServices, restartNodeService } from '../../src/bootstrap/node-services';
import { runPlan, type RunEvent } from '../../src/bootstrap/runner';
import { readyCondition } from '../../src/cluster/nodes';
import { hostAddress, startRig, type Rig } from '../support/join-rig';
import { pod, windowsNode } from '../support/kube-seed';
import type { KubeObject } from '../support/kube-api-emulator';
import { simNode, type SimHost, type SimHostOptions } from '../support/windows-host-sim';
import { startKubeletStandin } from '../support/kubelet-standin';
import { assertHostKeyRefusal } from '../support/host-key-change';

const NODE = 'win-a';

function nodeObject(aws: boolean): KubeObject {
  // windowsNode gives Machine-backed nodes an aws:// providerID, BYOH nodes none.
  return windowsNode(NODE, { build: '10.0.20348', address: hostAddress(0), byoh: !aws });
}

function deployment(name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  const p = pod(name, 'default', NODE, { windows: true, labels });
  (p.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name}-rs`, uid: 'u1', controller: true },
  ];
  Object.assign(p.spec as object, extra);
  return p;
}

function daemonPod(name: string): KubeObject {
  const p = pod(name, 'openshift-monitoring', NODE, { windows: true });
  (p.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'windows-exporter', uid: 'u2', controller: true },
  ];
  return p;
}

function pdb(name: string, app: string, allowed: number): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec: { minAvailable: 1, selector: { matchLabels: { app } } },
    status: {
      disruptionsAllowed: allowed,
      desiredHealthy: 1,
      currentHealthy: allowed + 1,
      expectedPods: 1,
      observedGeneration: 1,
    },
  };
}

interface Timeline {
  events: { at: number; what: string }[];
  stop(): void;
}

/**
 * The stand-in kubelet (test/support/kubelet-standin.ts: the Node goes NotReady while the host is
 * down and Ready 150 ms after it is back, on AWS only once 169.254.169.254 is routed; never with
 * neverReady) and a witness recording Ready changes, cordon/uncordon and pod deletions with their time.
 */
function drive(rig: Rig, o: { neverReady?: boolean } = {}): Timeline {
  const events: { at: number; what: string }[] = [];
  const kubelet = startKubeletStandin(rig.emu, rig.sims, {
    tickMs: 15,
    readyAfterMs: 150,
    ...(o.neverReady ? { neverReady: true } : {}),
  });
  const readyOf = (n: KubeObject | undefined): string | undefined =>
    ((n?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find(
      (c) => c.type === 'Ready',
    )?.status;
  const off = rig.emu.onChange((ev) => {
    if (ev.object.kind === 'Node' && ev.old) {
      const was = Boolean((ev.old.spec as { unschedulable?: boolean } | undefined)?.unschedulable);
      const now = Boolean((ev.object.spec as { unschedulable?: boolean } | undefined)?.unschedulable);
      if (was !== now) events.push({ at: Date.now(), what: now ? 'cordon' : 'uncordon' });
      const ready = readyOf(ev.object);
      if (ready !== readyOf(ev.old)) events.push({ at: Date.now(), what: ready === 'True' ? 'Ready' : 'NotReady' });
    }
    if (ev.object.kind === 'Pod' && ev.type === 'DELETED')
      events.push({ at: Date.now(), what: `pod-gone ${ev.object.metadata.name}` });
  });
  return {
    events,
    stop: () => {
      kubelet.stop();
      off();
    },
  };
}

/** API writes and host ops merged by time, as one list of names. */
function sequence(rig: Rig, t: Timeline): string[] {
  const ops = rig.sims[0]!.state.opLog.map((r) => ({ at: r.at.getTime(), what: `op ${r.name}` }));
  return [...t.events, ...ops].sort((a, b) => a.at - b.at).map((e) => e.what);
}

async function rig(objects: KubeObject[], extra: Partial<SimHostOptions> = {}): Promise<Rig> {
  return startRig({
    hosts: 1,
    objects,
    host: () => ({
      hostname: 'WIN-A',
      services: {
        kubelet: { status: 'Running' },
        containerd: { status: 'Running' },
        'kube-proxy': { status: 'Running' },
      },
      ...extra,
    }),
  });
}

function plan(
  r: Rig,
  extra: Partial<RebootOptions> = {},
): {
  ctx: RebootContext;
  run: (signal?: AbortSignal) => ReturnType<typeof runPlan<RebootContext>>;
  events: RunEvent[];
  opts: RebootOptions;
} {
  const node = r.emu.get('Node', NODE) as unknown as RebootNode;
  const opts: RebootOptions = {
    kube: r.kube,
    host: r.hostFor(0),
    node,
    pollMs: 30,
    timeoutMs: 8000,
    evictionRetryMs: 0,
    drainTimeoutMs: 3000,
    ...extra,
  };
  const ctx: RebootContext = { opts, state: {} };
  const events: RunEvent[] = [];
  const p = buildRebootPlan(opts);
  return {
    ctx,
    events,
    opts,
    run: (signal) => runPlan(p, ctx, { onEvent: (e) => events.push(e), ...(signal ? { signal } : {}) }),
  };
}

/** A wait step is done whether it waited (applied) or found the state already reached when checked (skipped). */
const outcome = (s: { id: string; outcome: string }): string =>
  s.id.startsWith('wait-') && (s.outcome === 'applied' || s.outcome === 'skipped') ? 'ok' : s.outcome;
const writes = (r: Rig): string[] =>
  r.emu.requests.filter((q) => q.method !== 'GET').map((q) => `${q.method} ${q.path}`);
const unschedulable = (r: Rig): boolean =>
  Boolean((r.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable);

test('reboot on AWS: the documented order, API writes and host ops; DaemonSet and mirror pods stay', async () => {
  const mirror = pod('kube-proxy-static', 'kube-system', NODE, { windows: true });
  mirror.metadata.annotations = { 'kubernetes.io/config.mirror': 'abc' };
  const r = await rig([
    nodeObject(true),
    deployment('web-1', { app: 'web' }),
    deployment('api-1', { app: 'api' }),
    daemonPod('windows-exporter-x'),
    mirror,
    pdb('web-pdb', 'web', 1),
  ]);
  const t = drive(r);
  try {
    const p = plan(r);
    const result = await p.run();
    assert.equal(result.outcome, 'done', JSON.stringify(result.error));
    assert.deepEqual(
      result.steps.map((s) => `${s.id}:${outcome(s)}`),
      [
        'cordon:applied',
        'drain:applied',
        'restart:applied',
        'wait-not-ready:ok',
        'aws-metadata-route:applied',
        'wait-ready:ok',
        'uncordon:applied',
        'verify:applied',
      ],
    );
    // API writes, in order: cordon, one eviction per pod, the boot annotation, uncordon.
    assert.deepEqual(writes(r), [
      'PATCH /api/v1/nodes/win-a',
      'POST /api/v1/namespaces/default/pods/api-1/eviction',
      'POST /api/v1/namespaces/default/pods/web-1/eviction',
      'PATCH /api/v1/nodes/win-a',
      'PATCH /api/v1/nodes/win-a',
    ]);
    // The whole procedure as one timeline.
    const seq = sequence(r, t).filter((s) => !/op (last-boot-time|metadata-route-state)/.test(s));
    assert.deepEqual(seq, [
      'cordon',
      'pod-gone api-1',
      'pod-gone web-1',
      'op restart-computer',
      'NotReady',
      'op add-metadata-route',
      'Ready',
      'uncordon',
    ]);
    assert.deepEqual(simNode(r.sims[0]!.state).metadataRoutes, ['127.0.0.1']);
    assert.equal(r.sims[0]!.state.bootCount, 1);
    assert.ok(r.emu.get('Pod', 'windows-exporter-x', 'openshift-monitoring'), 'the DaemonSet pod stays');
    assert.ok(r.emu.get('Pod', 'kube-proxy-static', 'kube-system'), 'the mirror pod stays');
    assert.deepEqual(p.ctx.state.skipped?.sort(), [
      'kube-system/kube-proxy-static (a static (mirror) pod)',
      'openshift-monitoring/windows-exporter-x (a DaemonSet pod)',
    ]);
    assert.equal(unschedulable(r), false);
    assert.equal(r.emu.get('Node', NODE)?.metadata.annotations?.['kube-windows.io/reboot-from-boot'], undefined);
    assert.match(rebootSummary(result, NODE), /rebooted and is Ready and schedulable/);
  } finally {
    t.stop();
    await r.stop();
  }
});

test('a PodDisruptionBudget blocks the drain: the step names it and the node stays cordoned; the confirmed disable-eviction path then deletes the pod (no AWS route step off AWS)', async () => {
  const r = await rig([nodeObject(false), deployment('web-1', { app: 'web' }), pdb('web-pdb', 'web', 0)]);
  const t = drive(r);
  try {
    const first = plan(r);
    const result = await first.run();
    assert.equal(result.outcome, 'failed');
    assert.equal(result.error?.stepId, 'drain');
    assert.match(result.error!.message, /blocked by the PodDisruptionBudget default\/web-pdb/);
    assert.match(result.error!.message, /needs 1 healthy pods and has 1 currently/);
    assert.match(result.error!.message, /disable-eviction/);
    assert.match(result.error!.message, /stays cordoned/);
    assert.deepEqual(first.ctx.state.blockedBy, [
      {
        pod: 'default/web-1',
        pdb: 'default/web-pdb',
        message: 'The disruption budget web-pdb needs 1 healthy pods and has 1 currently',
      },
    ]);
    assert.ok(r.emu.get('Pod', 'web-1', 'default'), 'the pod is still there');
    assert.equal(unschedulable(r), true);
    assert.equal(
      r.sims[0]!.state.opLog.filter((o) => o.name === 'restart-computer').length,
      0,
      'no restart with pods still on the node',
    );

    // The user confirmed: delete directly (a re-run resumes: the cordon is already done).
    const second = plan(r, { disableEviction: true });
    const result2 = await second.run();
    assert.equal(result2.outcome, 'done', JSON.stringify(result2.error));
    assert.deepEqual(
      result2.steps.map((s) => `${s.id}:${outcome(s)}`),
      [
        'cordon:skipped',
        'drain:applied',
        'restart:applied',
        'wait-not-ready:ok',
        'wait-ready:ok',
        'uncordon:applied',
        'verify:applied',
      ],
    );
    assert.ok(writes(r).includes('DELETE /api/v1/namespaces/default/pods/web-1'));
    assert.ok(!r.sims[0]!.state.opLog.some((o) => /metadata-route/.test(o.name)), 'no metadata route op off AWS');
  } finally {
    t.stop();
    await r.stop();
  }
});

test('a node that never comes back: the wait times out, the node stays cordoned and the message says so; a re-run resumes without a second restart', async () => {
  const r = await rig([nodeObject(false), deployment('web-1', { app: 'web' })]);
  const t = drive(r, { neverReady: true });
  try {
    const p = plan(r, { timeoutMs: 1500 });
    const result = await p.run();
    assert.equal(result.outcome, 'failed');
    assert.equal(result.error?.stepId, 'wait-ready');
    assert.match(result.error!.message, /did not return to Ready within 2 s/);
    assert.match(result.error!.message, /win-a stays cordoned/);
    assert.match(rebootSummary(result, NODE), /stays cordoned/);
    assert.equal(unschedulable(r), true);

    // The kubelet comes back; the same command again finishes the job.
    t.stop();
    r.emu.patch('Node', NODE, undefined, {
      status: {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: new Date().toISOString() },
        ],
      },
    });
    const again = await plan(r).run();
    assert.equal(again.outcome, 'done', JSON.stringify(again.error));
    assert.deepEqual(
      again.steps.map((s) => `${s.id}:${s.outcome}`),
      [
        'cordon:skipped',
        'drain:skipped',
        'restart:skipped',
        'wait-not-ready:skipped',
        'wait-ready:skipped',
        'uncordon:applied',
        'verify:applied',
      ],
    );
    assert.equal(r.sims[0]!.state.opLog.filter((o) => o.name === 'restart-computer').length, 1);
    assert.equal(unschedulable(r), false);
  } finally {
    t.stop();
    await r.stop();
  }
});

test('cancel mid-drain: the run stops at once, cancelled at the drain, the node stays cordoned and nothing restarts', async () => {
  const r = await rig([nodeObject(true), deployment('web-1', { app: 'web' }), pdb('web-pdb', 'web', 0)]);
  try {
    const p = plan(r, { evictionRetryMs: 20_000 });
    const ctl = new AbortController();
    const started = Date.now();
    const running = p.run(ctl.signal);
    const waitForLog = async (): Promise<void> => {
      while (
        !p.events.some(
          (e) => e.type === 'log' && /waiting: default\/web-1 is protected by default\/web-pdb/.test(e.message),
        )
      )
        await new Promise((res) => setTimeout(res, 10));
    };
    await waitForLog();
    ctl.abort(new Error('user'));
    const result = await running;
    assert.ok(Date.now() - started < 5000);
    assert.equal(result.outcome, 'cancelled');
    assert.equal(result.error?.stepId, 'drain');
    assert.equal(unschedulable(r), true);
    assert.match(rebootSummary(result, NODE), /cancelled at step drain\. The node win-a stays cordoned/);
    assert.equal(r.sims[0]!.state.opLog.length, 0, 'the host was not touched');
  } finally {
    await r.stop();
  }
});

test('pods with emptyDir volumes stop the drain unless their data may be deleted', async () => {
  const r = await rig([
    nodeObject(false),
    deployment('cache-1', { app: 'cache' }, { volumes: [{ name: 'scratch', emptyDir: {} }] }),
  ]);
  try {
    // What the UI asks consent for, before anything changes.
    assert.deepEqual(await podsWithEmptyDir(r.kube, nodeObject(false).metadata.name), ['default/cache-1']);
    const result = await plan(r).run();
    assert.equal(result.error?.stepId, 'drain');
    assert.match(result.error!.message, /default\/cache-1 use emptyDir volumes/);
    assert.match(result.error!.message, /--delete-emptydir-data/);
    assert.ok(r.emu.get('Pod', 'cache-1', 'default'));
    const p = plan(r, { deleteEmptyDirData: true, timeoutMs: 300 });
    const result2 = await p.run();
    // The drain passes now (the host then restarts; no kubelet stand-in here, so NotReady never comes).
    assert.equal(result2.steps.find((s) => s.id === 'drain')?.outcome, 'applied');
    assert.equal(r.emu.get('Pod', 'cache-1', 'default'), undefined);
  } finally {
    await r.stop();
  }
});

test('logs: listing first, files over the size cap skipped and named, services and System errors saved', async () => {
  const big = 'B'.repeat(20_000);
  const r = await startRig({
    hosts: 1,
    objects: [nodeObject(false)],
    host: () => ({
      services: { kubelet: { status: 'Running' }, containerd: { status: 'Running' } },
      files: {
        'C:\\var\\log\\kubelet\\kubelet.log': 'I1121 kubelet started\n'.repeat(100),
        'C:\\var\\log\\containerd\\containerd.log': 'level=info msg=containerd\n',
        'C:\\var\\log\\hybrid-overlay\\hybrid-overlay.log': big,
        'C:\\k\\log\\kube-proxy.log': 'proxier ready\n',
      },
    }),
  });
  try {
    simNode(r.sims[0]!.state).systemErrors.push({
      time: '2026-11-21T09:00:00.0000000Z',
      id: 7031,
      provider: 'Service Control Manager',
      message: 'The kubelet service terminated unexpectedly.',
    });
    const dir = join(r.dir, 'logs');
    const progress: string[] = [];
    const res = await collectNodeLogs({
      host: r.hostFor(0),
      nodeName: NODE,
      dir,
      maxBytes: 5000,
      now: new Date(2026, 10, 21, 9, 5, 7),
      onProgress: (m) => progress.push(m),
    });
    assert.equal(res.folder, join(dir, 'win-a-20261121-090507'));
    assert.deepEqual(readdirSync(res.folder).sort(), ['SKIPPED.txt', 'k', 'services.txt', 'system-errors.txt', 'var']);
    assert.equal(
      readFileSync(join(res.folder, 'var', 'log', 'kubelet', 'kubelet.log'), 'utf8'),
      'I1121 kubelet started\n'.repeat(100),
    );
    assert.equal(readFileSync(join(res.folder, 'k', 'log', 'kube-proxy.log'), 'utf8'), 'proxier ready\n');
    assert.ok(!existsSync(join(res.folder, 'var', 'log', 'hybrid-overlay', 'hybrid-overlay.log')));
    assert.deepEqual(
      res.skipped.map((s) => s.remote),
      ['C:\\var\\log\\hybrid-overlay\\hybrid-overlay.log'],
    );
    assert.match(res.message, /Skipped 1 file .* did not fit under the 5 KB cap .*hybrid-overlay\.log/);
    assert.match(readFileSync(join(res.folder, 'services.txt'), 'utf8'), /kubelet\s+Running\s+Automatic/);
    assert.match(readFileSync(join(res.folder, 'services.txt'), 'utf8'), /kube-proxy\s+not installed/);
    assert.match(readFileSync(join(res.folder, 'system-errors.txt'), 'utf8'), /7031[\s\S]*kubelet service terminated/);
    // The listing (and so the cap) comes before any download.
    assert.equal(progress[0], 'listing the log files');
  } finally {
    await r.stop();
  }
});

test('services: the state of every node service in one op; restart only for those services', async () => {
  const r = await startRig({
    hosts: 1,
    objects: [nodeObject(false)],
    host: () => ({
      services: {
        kubelet: { status: 'Running' },
        containerd: { status: 'Running' },
        'kube-proxy': { status: 'Stopped' },
        'windows-instance-config-daemon': { status: 'Running', startType: 'Manual' },
      },
    }),
  });
  try {
    const host = r.hostFor(0);
    const list = await nodeServices(host);
    assert.deepEqual(
      list.map((s) => `${s.name}=${s.exists ? s.status : '-'}`),
      [
        'kubelet=Running',
        'containerd=Running',
        'kube-proxy=Stopped',
        'hybrid-overlay-node=-',
        'windows_exporter=-',
        'csi-proxy=-',
        'windows-instance-config-daemon=Running',
      ],
    );
    assert.equal(r.sims[0]!.state.opLog.length, 1);
    assert.deepEqual(await restartNodeService(host, 'kube-proxy'), { name: 'kube-proxy', status: 'Running' });
    assert.deepEqual(simNode(r.sims[0]!.state).restarts, ['kube-proxy']);
    await assert.rejects(restartNodeService(host, 'sshd'), /not a node service kube-windows restarts/);
    await assert.rejects(
      restartNodeService(host, 'csi-proxy'),
      /Cannot find any service with service name 'csi-proxy'/,
    );
  } finally {
    await r.stop();
  }
});

/** Runs the built CLI; resolves with its exit code and output. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], {
      env: { ...process.env, SSH_AUTH_SOCK: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('CLI: nodes services (table, --restart --yes), nodes reboot (dry-run, a PDB-blocked drain exits 1), nodes logs, usage errors exit 2', async () => {
  const r = await rig([nodeObject(false), deployment('web-1', { app: 'web' }), pdb('web-pdb', 'web', 0)]);
  try {
    const ssh = [
      '--kubeconfig',
      r.kubeconfigPath,
      '--context',
      'emulator',
      '--user',
      r.user,
      '--key',
      r.keyPath,
      '--port',
      String(r.port),
      '--known-hosts',
      r.knownHostsPath,
    ];
    const svc = await cli(['nodes', 'services', NODE, ...ssh, '--restart', 'kube-proxy', '--yes']);
    assert.equal(svc.code, 0, svc.stderr);
    assert.match(svc.stdout, /kube-proxy restarted on win-a: Running/);
    assert.match(svc.stdout, /^SERVICE\s+STATUS\s+START TYPE$/m);
    assert.match(svc.stdout, /^containerd\s+Running\s+Automatic$/m);

    const dry = await cli(['nodes', 'reboot', NODE, ...ssh, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(
      dry.stdout,
      /Cordon win-a[\s\S]*Drain[\s\S]*Restart Windows[\s\S]*NotReady[\s\S]*Ready[\s\S]*Uncordon/,
    );
    assert.ok(!/metadata endpoint/.test(dry.stdout), 'no AWS step for a BYOH node');

    const blocked = await cli(['nodes', 'reboot', NODE, ...ssh, '--eviction-retry', '0', '--poll-interval', '30']);
    assert.equal(blocked.code, 1, blocked.stderr);
    assert.match(blocked.stdout, /blocked by the PodDisruptionBudget default\/web-pdb/);
    assert.match(blocked.stdout, /stays cordoned/);
    assert.match(blocked.stdout, /--disable-eviction/);
    assert.ok(!/\n\s+at /.test(blocked.stdout + blocked.stderr), 'no stack trace');

    const logs = await cli(['nodes', 'logs', NODE, ...ssh, '--out', join(r.dir, 'cli-logs')]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /Collected 0 log files/);

    const noConfirm = await cli(['nodes', 'reboot', NODE, ...ssh, '--disable-eviction']);
    assert.equal(noConfirm.code, 2);
    assert.match(noConfirm.stderr, /pass --yes to confirm/);
    const bad = await cli(['nodes', 'frob', NODE, ...ssh]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /nodes takes list, reboot, logs, services, proxy, cordon, uncordon, drain/);
    const missing = await cli(['nodes', 'services', 'nope', ...ssh]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no node "nope"/);
  } finally {
    await r.stop();
  }
});

/** A rig whose Node a stand-in kubelet drives (see drive), stopped whatever fn does. */
async function driven(
  objects: KubeObject[],
  fn: (r: Rig, sim: SimHost) => Promise<void>,
  extra: Partial<SimHostOptions> = {},
): Promise<void> {
  const r = await rig(objects, extra);
  const t = drive(r);
  try {
    await fn(r, r.sims[0]!);
  } finally {
    t.stop();
    await r.stop();
  }
}

/** Every host op of the reboot plan on AWS, in the order the plan first runs them. */
const REBOOT_HOST_OPS = ['last-boot-time', 'restart-computer', 'metadata-route-state', 'add-metadata-route'] as const;

test('reboot: the SSH connection dropped at each host op (before it runs and before it answers), then a re-run: one restart, Ready and uncordoned', async () => {
  const outcomes: string[] = [];
  for (const op of REBOOT_HOST_OPS) {
    for (const after of ['before', 'after'] as const) {
      const label = `${op} (${after === 'before' ? 'dropped before it runs' : 'dropped after it ran, before its answer'})`;
      await driven([nodeObject(true), deployment('web-1', { app: 'web' })], async (r, sim) => {
        // More drops than the transparent retries of a safe op: this run cannot get past the op.
        sim.dropOnOp(op, { times: 20, after });
        const first = await plan(r).run();
        assert.equal(first.outcome, 'failed', `${label}: the run ends failed`);
        assert.match(
          first.error!.message,
          /connection to .* was lost|closed the connection/,
          `${label}: the reason names the lost connection`,
        );
        assert.match(
          first.error!.message,
          /win-a stays cordoned \(unschedulable\): run the reboot again to resume where it stopped/,
          `${label}: resumable, and the node state said`,
        );
        assert.equal(unschedulable(r), true, `${label}: cordoned, as the message says`);
        assert.match(rebootSummary(first, NODE), /failed at step/);
        outcomes.push(`${label}: failed at ${first.error!.stepId}`);

        // The user runs the reboot again once the host answers.
        sim.clearFaults();
        await sim.whenRebooted();
        const again = await plan(r).run();
        assert.equal(again.outcome, 'done', `${label}: the re-run completes (${JSON.stringify(again.error)})`);
        assert.equal(sim.state.bootCount, 1, `${label}: exactly one restart`);
        // A restart-computer dropped before it ran never reached shutdown.exe (the sim logs only ops that ran).
        assert.equal(
          sim.state.opLog.filter((o) => o.name === 'restart-computer').length,
          1,
          `${label}: restart-computer ran once`,
        );
        assert.equal(unschedulable(r), false, `${label}: uncordoned`);
        assert.equal(
          readyCondition(r.emu.get('Node', NODE) as unknown as RebootNode)?.status,
          'True',
          `${label}: Ready`,
        );
        assert.equal(
          r.emu.get('Node', NODE)?.metadata.annotations?.['kube-windows.io/reboot-from-boot'],
          undefined,
          `${label}: the boot annotation is cleared`,
        );
        assert.deepEqual(simNode(sim.state).metadataRoutes, ['127.0.0.1'], `${label}: one metadata route`);
        if (op === 'restart-computer' && after === 'after') {
          // The host did restart while the first run lost its answer: the re-run knows it from the boot time.
          assert.equal(again.steps.find((s) => s.id === 'restart')?.outcome, 'skipped', `${label}: no second restart`);
        }
      });
    }
  }
  console.log(
    `reboot drops: ${outcomes.length} faults, each failed resumable then completed on re-run: ${outcomes.join('; ')}`,
  );
});

test("reboot: restart-computer's answer lost and the reboot run again at once, while that restart is still pending: the re-run waits for it, no second restart", async () => {
  await driven(
    [nodeObject(false)],
    async (r, sim) => {
      sim.dropOnOp('restart-computer', { after: 'after' });
      const first = await plan(r).run();
      assert.equal(first.error?.stepId, 'restart');
      assert.ok(sim.state.bootCount === 0 && !sim.rebooting, 'the restart is scheduled, not yet happening');
      const again = await plan(r).run();
      assert.equal(again.outcome, 'done', JSON.stringify(again.error));
      assert.equal(sim.state.bootCount, 1, 'one restart');
      assert.equal(unschedulable(r), false);
    },
    // As shutdown /t 5: the restart comes seconds after it was asked for.
    { rebootDelayMs: 5000 },
  );
});

test('reboot: a connection dropped once at a safe op is retried on a new connection and the reboot completes in one run', async () => {
  for (const op of ['last-boot-time', 'metadata-route-state', 'add-metadata-route'] as const) {
    await driven([nodeObject(true)], async (r, sim) => {
      sim.dropOnOp(op, { times: 1, after: 'after' });
      const result = await plan(r).run();
      assert.equal(result.outcome, 'done', `${op}: ${JSON.stringify(result.error)}`);
      assert.equal(sim.state.bootCount, 1, `${op}: one restart`);
      assert.equal(unschedulable(r), false, `${op}: uncordoned`);
    });
  }
});

test('reboot: the host comes back from its restart with another host key: refused at once naming both fingerprints, nothing more runs on the host, failed until the user updates known_hosts', async () => {
  await driven([nodeObject(true)], async (r, sim) => {
    const old = { public: sim.hostKeyPublic, private: sim.hostKeyPrivate };
    // The key changes as the restart is answered, as if the host were reinstalled or someone sat in the middle.
    sim.changeHostKeyAfterOp('restart-computer');
    const first = await plan(r).run();
    const opsAtChange = sim.state.opLog.length;
    const change = { old, now: { public: sim.hostKeyPublic, private: sim.hostKeyPrivate } };
    assert.notEqual(change.now.public, old.public, 'the key changed');
    assert.equal(first.outcome, 'failed');
    assert.equal(first.error?.stepId, 'restart');
    assertHostKeyRefusal(first.error!.message, sim, change, r.keyPath, 'reboot');
    assert.doesNotMatch(
      first.error!.message,
      /did not come back within/,
      'refused at once, not waited for until the timeout',
    );
    assert.match(first.error!.message, /win-a stays cordoned/);
    assert.equal(unschedulable(r), true);
    assert.equal(sim.state.opLog.at(-1)?.name, 'restart-computer', 'no op after the key changed');

    // Running it again changes nothing until the user acts: the same refusal, still nothing on the host.
    await sim.whenRebooted();
    const again = await plan(r).run();
    assert.equal(again.outcome, 'failed');
    assertHostKeyRefusal(again.error!.message, sim, change, r.keyPath, 'reboot re-run');
    assert.equal(sim.state.opLog.length, opsAtChange, 'nothing ran on a host with an unexpected key');

    // The user checks the new key and pins it: the re-run finishes without a second restart.
    writeFileSync(r.knownHostsPath, `${sim.knownHostsLine()}\n`);
    const fixed = await plan(r).run();
    assert.equal(fixed.outcome, 'done', JSON.stringify(fixed.error));
    assert.equal(fixed.steps.find((s) => s.id === 'restart')?.outcome, 'skipped');
    assert.equal(sim.state.bootCount, 1);
    assert.equal(unschedulable(r), false);
  });
});

test('CLI: nodes reboot against a host whose key changed between two steps exits 1 with the warning, both fingerprints and no stack', async () => {
  await driven([nodeObject(false)], async (r, sim) => {
    const old = { public: sim.hostKeyPublic, private: sim.hostKeyPrivate };
    sim.changeHostKeyAfterOp('last-boot-time');
    const ssh = [
      '--kubeconfig',
      r.kubeconfigPath,
      '--context',
      'emulator',
      '--user',
      r.user,
      '--key',
      r.keyPath,
      '--port',
      String(r.port),
      '--known-hosts',
      r.knownHostsPath,
    ];
    const res = await cli(['nodes', 'reboot', NODE, ...ssh, '--poll-interval', '30']);
    assert.equal(res.code, 1, res.stdout + res.stderr);
    assertHostKeyRefusal(
      res.stdout + res.stderr,
      sim,
      { old, now: { public: sim.hostKeyPublic, private: sim.hostKeyPrivate } },
      r.keyPath,
      'CLI',
    );
    assert.match(res.stdout, /stays cordoned/);
    assert.doesNotMatch(res.stdout + res.stderr, /\n\s+at /, 'no stack trace');
    assert.deepEqual(
      sim.state.opLog.map((o) => o.name),
      ['last-boot-time'],
      'nothing after the key changed: no restart',
    );
    assert.equal(sim.state.bootCount, 0);
  });
});
