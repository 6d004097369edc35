// Ctrl-C on the real CLI at every step of `kube-windows nodes reboot`: SIGINT is sent to the process when
// its output shows step k starting (never on a timer). It exits 1 within moments, says where it stopped,
// what it leaves, which steps completed and the exact command to resume, without a stack; the node is
// cordoned exactly when it says so; running that command completes the reboot, with one restart in all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { hostAddress, startRig, type Rig } from '../support/join-rig';
import { pod, windowsNode } from '../support/kube-seed';
import { startKubeletStandin } from '../support/kubelet-standin';
import { CLI } from '../support/run-cli';
import { temporaryFiles } from '../support/cancel-walk';

const NODE = 'win-a';
const STEPS = 7; // a BYOH node: no metadata-route step

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** ms from SIGINT to exit. */
  stopMs?: number;
}

/** Runs the CLI; with `at`, sends SIGINT once stdout shows step `at` starting. */
function cli(args: string[], at?: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, NO_COLOR: '1', SSH_AUTH_SOCK: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sentAt: number | undefined;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (at !== undefined && sentAt === undefined && new RegExp(`^${at}/${STEPS} `, 'm').test(stdout)) {
        sentAt = performance.now();
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) =>
      resolve({ code, stdout, stderr, ...(sentAt !== undefined ? { stopMs: performance.now() - sentAt } : {}) }),
    );
  });
}

async function world(): Promise<{ rig: Rig; stop(): Promise<void> }> {
  const workload = pod('web-1', 'default', NODE, { windows: true, labels: { app: 'web' } });
  (workload.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-rs', uid: 'u1', controller: true },
  ];
  const rig = await startRig({
    hosts: 1,
    objects: [windowsNode(NODE, { build: '10.0.20348', address: hostAddress(0), byoh: true }), workload],
    host: () => ({
      hostname: 'WIN-A',
      services: { kubelet: { status: 'Running' }, containerd: { status: 'Running' } },
    }),
  });
  const kubelet = startKubeletStandin(rig.emu, rig.sims, { tickMs: 15, readyAfterMs: 100 });
  return {
    rig,
    async stop() {
      kubelet.stop();
      await rig.stop();
    },
  };
}

const unschedulable = (r: Rig): boolean =>
  Boolean((r.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable);

test('nodes reboot: Ctrl-C at every step stops the CLI, says what it leaves and the command that resumes; that command completes', async (t) => {
  let maxStopMs = 0;
  for (let k = 1; k <= STEPS; k++) {
    const w = await world();
    try {
      const args = [
        'nodes',
        'reboot',
        NODE,
        '--kubeconfig',
        w.rig.kubeconfigPath,
        '--context',
        'emulator',
        '--user',
        w.rig.user,
        '--key',
        w.rig.keyPath,
        '--port',
        String(w.rig.port),
        '--known-hosts',
        w.rig.knownHostsPath,
        '--poll-interval',
        '20',
      ];
      const r = await cli(args, k);
      const where = `Ctrl-C at step ${k}`;
      assert.ok(
        r.stopMs !== undefined,
        `${where}: the step started (exit ${r.code}; stdout:\n${r.stdout}\nstderr:\n${r.stderr})`,
      );
      maxStopMs = Math.max(maxStopMs, r.stopMs ?? 0);
      const all = r.stdout + r.stderr;
      if (r.code === 0) {
        // The last step ended in the turn the signal came: the reboot is complete, nothing to resume.
        assert.equal(k, STEPS, `${where}: ${all}`);
        continue;
      }
      assert.equal(r.code, 1, `${where}: ${all}`);
      assert.ok(!/\n\s+at /.test(all), `${where}: no stack`);
      assert.match(r.stderr, /kube-windows: cancelling/, where);
      assert.match(r.stdout, /was cancelled at step/, `${where}: ${r.stdout}`);
      const resume =
        /kube-windows: cancelled: (\d+) of 7 steps completed.*To resume, run: (kube-windows nodes reboot .*)$/m.exec(
          r.stderr,
        );
      assert.ok(resume, `${where}: the resume line (${r.stderr})`);
      assert.ok(resume[2]?.includes(`--known-hosts ${w.rig.knownHostsPath}`), `${where}: the exact command`);
      assert.equal(unschedulable(w.rig), /stays cordoned/.test(r.stdout), `${where}: cordoned as said (${r.stdout})`);
      assert.deepEqual(temporaryFiles(w.rig.sims[0]!), []);
      const again = await cli(args);
      const complete = /the reboot is complete/.test(r.stdout);
      assert.equal(again.code, 0, `${where}, then the command again: ${again.stdout}${again.stderr}`);
      await w.rig.sims[0]!.whenRebooted();
      assert.equal(w.rig.sims[0]!.state.bootCount, complete ? 2 : 1, `${where}: one restart per reboot asked for`);
      assert.equal(unschedulable(w.rig), false);
    } finally {
      await w.stop();
    }
  }
  t.diagnostic(`${STEPS} steps; longest SIGINT-to-exit ${Math.round(maxStopMs)} ms`);
});
