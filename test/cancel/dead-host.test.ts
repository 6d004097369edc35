// A Windows host that stops answering mid-operation without closing the connection (packets dropped,
// not reset: the simulated host's blackhole keeps every socket open and silent), for every long
// operation that talks to a host: the kubeadm join (at three points), the BYOH join, the mirror push
// and the graceful reboot, each at a step in the middle of its plan. The SSH keepalives find it dead,
// the reconnect times out, and the run fails naming the host and the step, with the state it leaves and
// the resume line, never a hang; once the host answers again the re-run completes and no temporary
// file is left. A drain never reaches the host: its silent party is the API server, whose request
// timeout ends it the same way. Keepalives here are short (the product's defaults, 10 s x 3, are
// documented in docs/reliability.md); what is measured is printed, not asserted.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import type { Payload } from '../../src/bootstrap/payload';
import type { RunResult } from '../../src/bootstrap/runner';
import { rebootSummary } from '../../src/bootstrap/reboot';
import { KubeClient } from '../../src/cluster/kube-client';
import { resumeLine } from '../../src/cli/kit';
import type { WindowsHost } from '../../src/remote/windows-host';
import { temporaryFiles } from '../support/cancel-walk';
import {
  byohEntry,
  byohWorld,
  kubeadmPayload,
  kubeadmWorld,
  MIRROR_ROOT,
  mirrorWorld,
  NEW_MIRROR_TREE,
  OLD_MIRROR_TREE,
  pushMirrors,
  REBOOT_NODE,
  rebootWorld,
  runByohJoin,
  runDrain,
  runKubeadmJoin,
  runReboot,
  unschedulable,
  workloadPodsLeft,
} from '../support/cancel-worlds';
import type { Rig } from '../support/join-rig';
import { simTree, type SimHost } from '../support/windows-host-sim';

let payload: Payload;

before(async () => {
  payload = await kubeadmPayload();
});

/** A host with short keepalives and connect timeouts, as a user may set them; retries as in the product. */
const quickHost = (rig: Rig): WindowsHost =>
  rig.hostFor(0, {
    connectTimeoutMs: 1500,
    keepaliveIntervalMs: 500,
    keepaliveCountMax: 3,
    retries: 2,
    backoffMs: 100,
  });

const SILENT = /stopped answering: no reply to SSH keepalives on the open connection, and a new one got none either/;

/**
 * The run failed at `step` with the silent-host error naming the host, no stack, and says what it leaves and how to
 * resume (the CLI's resume line: the steps not done, from the one that stopped, and the command to run again).
 */
function assertStoppedSilent(t: { diagnostic(m: string): void }, sim: SimHost, result: RunResult, step: string): void {
  const silentAt = sim.state.opLog.find((o) => o.fault === 'blackhole')?.at.getTime() ?? 0;
  assert.ok(silentAt > 0, 'the host went silent during the run');
  t.diagnostic(`failed ${Date.now() - silentAt} ms after the host went silent`);
  assert.equal(result.outcome, 'failed', JSON.stringify(result.error));
  assert.equal(result.error?.stepId, step, `stopped at ${result.error?.stepId}`);
  const message = result.error?.message ?? '';
  t.diagnostic(message);
  assert.match(message, SILENT);
  assert.ok(message.includes(sim.host), `the message names the host ${sim.host}: ${message}`);
  assert.ok(!/\n\s+at /.test(message), 'no stack');
  assert.ok(result.aftermath?.state, 'the run says what it leaves');
  const resume = resumeLine(result, ['cmd']) ?? '';
  assert.match(resume, new RegExp(`^stopped: .*not done: ${step}\\b.*To resume, run: kube-windows cmd$`), resume);
  assert.ok(sim.blackholed, 'still silent when the run ended: the run did not wait for the host');
}

// Ops of the join where the host vanishes: mid-command (its answer never comes) and between an upload and its commit.
for (const [op, step] of [
  ['expand-archive', 'containerd-unpack'],
  ['commit-upload', 'containerd-archive'],
  ['ensure-service', 'containerd-service'],
] as const) {
  test(`kubeadm join: the host goes silent at ${op} (no reset): the run fails with a timeout and the resume advice, then the re-run joins`, async (t) => {
    const w = await kubeadmWorld({ containersFeature: 'Enabled' });
    try {
      const sim = w.rig.sims[0]!;
      sim.blackholeOnOp(op);
      const result = await runKubeadmJoin(w, payload, {}, quickHost(w.rig));
      assertStoppedSilent(t, sim, result, step);
      // The resume advice: what is in place on the host, that the cluster is untouched, that a re-run continues.
      assert.match(result.aftermath?.state ?? '', /On 127\.0\.0\.2, .*running the join again continues from here/);
      sim.restoreNetwork();
      const again = await runKubeadmJoin(w, payload, {}, quickHost(w.rig));
      assert.equal(again.outcome, 'done', JSON.stringify(again.error));
      assert.ok(w.rig.emu.get('Node', 'win-k0'));
      assert.deepEqual(temporaryFiles(sim), [], 'no temporary upload left once the host answers again');
    } finally {
      await w.stop();
    }
  });
}

test('BYOH join: the host goes silent in the preflight (after WMCO was installed): a timeout naming the host and the step, no entry, and the re-run joins', async (t) => {
  const w = await byohWorld();
  try {
    const sim = w.rig.sims[0]!;
    sim.blackholeOnOp('authorized-keys');
    const result = await runByohJoin(w, {}, quickHost(w.rig));
    assertStoppedSilent(t, sim, result, 'preflight');
    assert.ok(
      result.steps.slice(
        0,
        result.steps.findIndex((s) => s.id === 'preflight'),
      ).length > 0,
      'steps ran before it',
    );
    assert.equal(byohEntry(w.rig), undefined, 'no windows-instances entry: WMCO was never told about the host');
    sim.restoreNetwork();
    const again = await runByohJoin(w, {}, quickHost(w.rig));
    assert.equal(again.outcome, 'done', JSON.stringify(again.error));
    assert.ok(byohEntry(w.rig) !== undefined && w.rig.emu.get('Node', 'win-b0'), 'joined');
    assert.deepEqual(temporaryFiles(sim), []);
  } finally {
    await w.stop();
  }
});

test('mirror push: the host goes silent at the swap: a timeout naming the host and the step, the previous tree whole; the re-run pushes and leaves no staging', async (t) => {
  const r = await mirrorWorld();
  try {
    const sim = r.sims[0]!;
    sim.blackholeOnOp('swap-hosts-tree');
    const result = await pushMirrors(r, {}, () => quickHost(r));
    assertStoppedSilent(t, sim, result, 'swap');
    // The rollback and the clean-up cannot reach the host either: the words say to apply again.
    assert.match(result.error?.message ?? '', /run apply again/);
    sim.restoreNetwork();
    assert.deepEqual(Object.fromEntries(simTree(sim.state, MIRROR_ROOT)), OLD_MIRROR_TREE, 'the previous tree, whole');
    const again = await pushMirrors(r, {}, () => quickHost(r));
    assert.equal(again.outcome, 'done', JSON.stringify(again.error));
    assert.deepEqual(Object.fromEntries(simTree(sim.state, MIRROR_ROOT)), NEW_MIRROR_TREE, 'the new tree');
    assert.deepEqual(temporaryFiles(sim), [], 'no staging folder or temporary upload left');
  } finally {
    await r.stop();
  }
});

test('graceful reboot: the host goes silent at the restart step (after the drain): a timeout naming the host and the step, the node stays cordoned; the re-run reboots once', async (t) => {
  const w = await rebootWorld(true);
  try {
    const sim = w.rig.sims[0]!;
    sim.blackholeOnOp('last-boot-time');
    const result = await runReboot(w, {}, quickHost(w.rig));
    assertStoppedSilent(t, sim, result, 'restart');
    assert.equal(unschedulable(w.rig), true, 'cordoned');
    const summary = rebootSummary(result, REBOOT_NODE);
    assert.match(summary, /^The reboot of win-a failed at step restart: .*stopped answering/);
    assert.match(summary, /cordoned/);
    sim.restoreNetwork();
    const again = await runReboot(w, {}, quickHost(w.rig));
    assert.equal(again.outcome, 'done', JSON.stringify(again.error));
    await sim.whenRebooted();
    assert.equal(sim.state.bootCount, 1, 'one restart');
    assert.equal(unschedulable(w.rig), false, 'uncordoned');
    assert.equal(workloadPodsLeft(w.rig), 0);
    assert.deepEqual(temporaryFiles(sim), []);
  } finally {
    await w.stop();
  }
});

test('node drain: the API server stops answering mid-drain: the request timeout ends it at the drain step, cordoned, and the re-run drains', async (t) => {
  const w = await rebootWorld(false);
  try {
    // The drain's own client, with a request timeout of 1 s (KUBE_WINDOWS_REQUEST_TIMEOUT=1).
    const config = new KubeConfig();
    config.loadFromFile(w.rig.kubeconfigPath);
    const kube = new KubeClient(config, { timeoutMs: 1000 });
    w.rig.emu.setFault({ path: /\/eviction$/, hangMs: 20_000, times: 1 });
    const result = await runDrain(w, {}, kube);
    t.diagnostic(result.error?.message ?? '');
    assert.equal(result.outcome, 'failed', JSON.stringify(result.error));
    assert.equal(result.error?.stepId, 'drain');
    const message = result.error?.message ?? '';
    assert.ok(message.startsWith(`no answer from ${w.rig.emu.url.replace(/\/$/, '')} within 1000 ms`), message);
    assert.equal(unschedulable(w.rig), true);
    assert.match(result.aftermath?.state ?? '', /cordoned/);
    assert.match(resumeLine(result, ['nodes', 'drain', REBOOT_NODE]) ?? '', /not done: drain\. To resume, run: /);
    assert.equal(w.rig.sims[0]!.state.opLog.length, 0, 'a drain never touches the host');
    w.rig.emu.setFault(undefined);
    const again = await runDrain(w, {}, kube);
    assert.equal(again.outcome, 'done', JSON.stringify(again.error));
    assert.equal(workloadPodsLeft(w.rig), 0);
  } finally {
    await w.stop();
  }
});
