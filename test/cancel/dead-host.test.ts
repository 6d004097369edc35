// A Windows host that stops answering mid-operation without closing the connection (packets dropped,
// not reset: the simulated host's blackhole keeps every socket open and silent). The SSH keepalives find
// it dead, the reconnects time out, and the run fails with the state it leaves and how to resume, never a
// hang; once the host answers again the re-run completes. Keepalives here are short (the product's
// defaults, 10 s x 3, are documented in docs/reliability.md); what is measured is printed, not asserted.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildKubeadmJoinPlan, type KubeadmContext } from '../../src/bootstrap/kubeadm';
import { resolvePayload, type Payload } from '../../src/bootstrap/payload';
import { runPlan, type RunResult } from '../../src/bootstrap/runner';
import { SshConnector } from '../../src/remote/ssh';
import { WindowsHost } from '../../src/remote/windows-host';
import { kubeadmCluster } from '../support/kube-seed';
import { calicoManifest, controlPlaneNode, kubeadmKubeProxy } from '../support/cni-seed';
import { startRig, type Rig } from '../support/join-rig';
import { startNodeDoubles } from '../support/node-doubles';
import { fakeKubeBinary, wireKubeadmJoin } from '../support/kubeadm-wiring';
import { temporaryFiles } from '../support/cancel-walk';

let payload: Payload;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-dead-payload-'));
  writeFileSync(join(dir, 'containerd-1.7.27-windows-amd64.tar.gz'), randomBytes(300_000));
  writeFileSync(join(dir, 'kubelet.exe'), fakeKubeBinary('v1.31.3', 200_000));
  writeFileSync(join(dir, 'kubeadm.exe'), fakeKubeBinary('v1.31.3', 100_000));
  payload = await resolvePayload({ folder: dir });
});

/** A host with short keepalives and connect timeouts, as a user may set them; retries as in the product. */
function quickHost(rig: Rig): WindowsHost {
  const connector = new SshConnector({
    host: rig.addresses[0] as string,
    port: rig.port,
    username: rig.user,
    privateKeyPath: rig.keyPath,
    knownHostsPath: rig.knownHostsPath,
    connectTimeoutMs: 1500,
    keepaliveIntervalMs: 500,
    keepaliveCountMax: 3,
  });
  return new WindowsHost(connector, { retries: 2, backoffMs: 100 });
}

async function kubeadmWorld(): Promise<{ rig: Rig; stop(): Promise<void> }> {
  const rig = await startRig({ hosts: 1, host: () => ({ hostname: 'WIN-K0', containersFeature: 'Enabled' }) });
  for (const o of [
    ...kubeadmCluster({ server: rig.emu.url, caPem: rig.caPem }),
    controlPlaneNode(),
    ...kubeadmKubeProxy(rig.emu.url),
    ...calicoManifest(),
  ])
    rig.emu.apply(o);
  wireKubeadmJoin(rig.emu, rig.caPem, rig.sims[0]!, rig.addresses[0] as string);
  const doubles = startNodeDoubles(rig.emu);
  return {
    rig,
    async stop() {
      doubles.stop();
      await rig.stop();
    },
  };
}

async function join1(rig: Rig): Promise<RunResult> {
  const host = quickHost(rig);
  const opts = {
    kube: rig.kube,
    host,
    address: rig.addresses[0] as string,
    user: rig.user,
    payload,
    pollMs: 20,
    caPem: rig.caPem,
  };
  try {
    return await runPlan(buildKubeadmJoinPlan(opts), { opts, state: {} } as KubeadmContext, { backoffMs: 10 });
  } finally {
    host.close();
  }
}

// Ops of the join where the host vanishes: mid-command (its answer never comes) and between an upload and its commit.
for (const op of ['expand-archive', 'commit-upload', 'ensure-service']) {
  test(`kubeadm join: the host goes silent at ${op} (no reset): the run fails with a timeout and the resume advice, then the re-run joins`, async (t) => {
    const w = await kubeadmWorld();
    try {
      const sim = w.rig.sims[0]!;
      sim.blackholeOnOp(op);
      const result = await join1(w.rig);
      const silentAt = sim.state.opLog.find((o) => o.fault === 'blackhole')?.at.getTime() ?? 0;
      assert.ok(silentAt > 0, 'the host went silent during the run');
      t.diagnostic(`${op}: failed ${Date.now() - silentAt} ms after the host went silent`);
      assert.equal(result.outcome, 'failed');
      const message = result.error?.message ?? '';
      assert.match(
        message,
        /stopped answering: no reply to SSH keepalives on the open connection, and a new one got none either/,
      );
      t.diagnostic(message);
      assert.ok(!/\n\s+at /.test(message), 'no stack');
      // The resume advice: what is in place on the host, that the cluster is untouched, that a re-run continues.
      assert.match(result.aftermath?.state ?? '', /On 127\.0\.0\.2, .*running the join again continues from here/);
      assert.ok(sim.blackholed);
      sim.restoreNetwork();
      const again = await join1(w.rig);
      assert.equal(again.outcome, 'done', JSON.stringify(again.error));
      assert.ok(w.rig.emu.get('Node', 'win-k0'));
      assert.deepEqual(temporaryFiles(sim), [], 'no temporary upload left once the host answers again');
    } finally {
      await w.stop();
    }
  });
}
