// Ctrl-C on the real CLI's `machineset create --yes` at every point: during the creation (after the
// server's dry run) and as each of the follow's six steps starts (SIGINT sent when its line appears).
// The cluster holds the MachineSet whole or not at all, and the CLI says which and what to run: the same
// command before it exists, `machineset follow NAME` after (creating it again would be refused); that
// command then completes: every Machine a Ready node, one MachineSet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { namespace, wmcoCsv } from '../support/kube-seed';
import { CLUSTER, infrastructure, linuxWorkerMachineSet } from '../support/machine-api-seed';
import { startMachineControllerDouble } from '../support/machine-controller-double';
import { CLI } from '../support/run-cli';

const WMCO_NS = 'openshift-windows-machine-config-operator';
const NS = 'openshift-machine-api';
const NAME = CLUSTER.AWS.windowsName;

const secret = (name: string, ns: string, data: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, type: 'Opaque', data }) as KubeObject;

async function world(): Promise<{ emu: Emulator; base: string[]; stop(): Promise<void> }> {
  const emu = await startEmulator({
    objects: [
      namespace(NS),
      namespace(WMCO_NS, { 'openshift.io/cluster-monitoring': 'true' }),
      infrastructure('AWS'),
      linuxWorkerMachineSet('AWS'),
      wmcoCsv(),
      secret('cloud-private-key', WMCO_NS, { 'private-key.pem': Buffer.from('key').toString('base64') }),
      secret('windows-user-data', NS, { userData: Buffer.from('<powershell></powershell>').toString('base64') }),
    ],
  });
  const double = startMachineControllerDouble(emu, { tickMs: 60 });
  const kubeconfig = emu.kubeconfig({ context: 'ocp' });
  return {
    emu,
    base: ['--context', 'ocp', '--kubeconfig', kubeconfig],
    async stop() {
      double.stop();
      await emu.stop();
    },
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  signalled: boolean;
}

/** Runs the CLI; sends SIGINT once stdout matches `at`. */
function cli(args: string[], at?: RegExp): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (at && !signalled && at.test(stdout)) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr, signalled }));
  });
}

const machineSets = (emu: Emulator): number => emu.list('MachineSet').filter((m) => m.metadata.name === NAME).length;
const readyMachines = (emu: Emulator): number =>
  emu
    .list('Machine')
    .filter(
      (m) =>
        m.metadata.labels?.['machine.openshift.io/cluster-api-machineset'] === NAME &&
        (m.status as { phase?: string } | undefined)?.phase === 'Running',
    ).length;

test('machineset create: Ctrl-C during the creation and at each follow step; the MachineSet is whole or absent, the CLI names the command that resumes, and it completes', async () => {
  const points: { label: string; at: RegExp }[] = [
    { label: 'creation', at: /accepted MachineSet .* in a dry run/ },
    ...[1, 2, 3, 4, 5, 6].map((k) => ({ label: `follow step ${k}`, at: new RegExp(`^${k}/6 `, 'm') })),
  ];
  for (const point of points) {
    const w = await world();
    try {
      const create = ['machineset', 'create', ...w.base, '--image', CLUSTER.AWS.windowsImage, '--replicas', '2'];
      const r = await cli([...create, '--yes', '--poll-interval', '30'], point.at);
      const all = r.stdout + r.stderr;
      assert.ok(r.signalled, `${point.label}: reached (${all})`);
      if (r.code === 0) {
        assert.equal(point.label, 'follow step 6', `${point.label}: ended before the signal took hold: ${all}`);
        continue;
      }
      assert.equal(r.code, 1, `${point.label}: ${all}`);
      assert.ok(!/\n\s+at /.test(all), `${point.label}: no stack`);
      const count = machineSets(w.emu);
      assert.ok(count <= 1, 'never two');
      const followLine = new RegExp(`kube-windows machineset follow ${NAME} --context ocp`);
      let again: string[];
      if (count === 0) {
        assert.match(r.stderr, /nothing was changed\. To resume, run: kube-windows machineset create/, point.label);
        again = [...create, '--yes', '--poll-interval', '30'];
      } else {
        assert.match(r.stderr, followLine, `${point.label}: names the follow (${r.stderr})`);
        again = ['machineset', 'follow', NAME, ...w.base, '--poll-interval', '30'];
      }
      const done = await cli(again);
      assert.equal(done.code, 0, `${point.label}, then ${again.join(' ')}: ${done.stdout}${done.stderr}`);
      assert.equal(machineSets(w.emu), 1, `${point.label}: one MachineSet`);
      assert.equal(readyMachines(w.emu), 2, `${point.label}: both Machines running`);
    } finally {
      await w.stop();
    }
  }
});
