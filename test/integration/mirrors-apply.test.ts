// Registry mirror push and verify end to end: the real engine (plans, runner, WindowsHost over ssh2)
// against the API emulator and simulated Windows hosts. A fault at every step of the push on a
// different host (failed op, connection dropped before or after an op, upload cut) → afterwards no
// node holds a partial or mixed tree, failed nodes have their previous tree back, a re-run
// converges and a third run writes nothing; fifty hosts at once within the bound; on a WMCO
// cluster the IDMS/ITMS objects go through the API and each node's tree is compared with WMCO's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  mirrorsApply,
  mirrorsDiff,
  isWmcoCluster,
  desiredTree,
  WMCO_REGISTRY_DIR,
  type MirrorTarget,
} from '../../src/bootstrap/mirrors-apply';
import { containerdConfig } from '../../src/core/windows/kubeadm';
import { LAYOUT } from '../../src/core/windows/layout';
import { renderHostsToml, mirrorEntriesOf } from '../../src/core/mirrors/render';
import { ensureConfigPath } from '../../src/core/windows/mirror-ops';
import { sampleMirrorOps } from '../support/sample-ops';
import type { RunEvent } from '../../src/bootstrap/runner';
import { idms, itms, openshiftClusterConfig, windowsNode, wmcoCsv } from '../support/kube-seed';
import { hostAddress, startRig, type Rig } from '../support/join-rig';
import { simTree, type SimHost } from '../support/windows-host-sim';
import { assertHostKeyRefusal } from '../support/host-key-change';

const ROOT = LAYOUT.registryHosts;
const OLD: Record<string, string> = {
  'docker.io\\hosts.toml':
    'server = "https://registry-1.docker.io"\n\n[host."https://old-mirror.example.com/v2"]\n  capabilities = ["pull"]\n',
  'quay.io\\hosts.toml': 'server = "https://quay.io/v2"\n',
};
const OBJECTS = [
  idms('mirrors', [
    { source: 'docker.io/library', mirrors: ['mirror.example.com/library', 'backup.example.com/library'] },
    { source: 'registry.local:5000/team/app', mirrors: ['mirror.example.com:8443/team/app'] },
  ]),
  itms('tags', [
    {
      source: 'mcr.microsoft.com/oss/kubernetes/pause',
      mirrors: ['mirror.example.com/oss/kubernetes/pause'],
      mirrorSourcePolicy: 'NeverContactSource',
    },
  ]),
];
const NEW = Object.fromEntries(desiredTree(renderHostsToml(mirrorEntriesOf(OBJECTS), { mode: 'ordered' }).files));

const N = 50;
let rig: Rig;

const oldFiles = () => Object.fromEntries(Object.entries(OLD).map(([p, c]) => [`${ROOT}\\${p}`, c]));

before(async () => {
  const nodes = Array.from({ length: N }, (_, i) =>
    windowsNode(`win-${String(i).padStart(2, '0')}`, { build: '10.0.20348', address: hostAddress(i), unmanaged: true }),
  );
  rig = await startRig({
    hosts: N,
    objects: nodes,
    host: (i) => ({
      hostname: `WIN-${i}`,
      services: { containerd: { status: 'Running', binaryPathName: `"${LAYOUT.containerdExe}" --run-service` } },
      // Host 0 has no tree yet and a config without config_path; the others have the old tree.
      files: {
        [LAYOUT.containerdConfig]:
          i === 0
            ? containerdConfig(1).replace(/ {2}\[plugins."io.containerd.grpc.v1.cri".registry\]\r\n.*\r\n/, '')
            : containerdConfig(1),
        ...(i === 0 ? {} : oldFiles()),
      },
    }),
  });
});

after(async () => {
  await rig?.stop();
});

const hostFor = (t: MirrorTarget) => rig.hostFor(rig.addresses.indexOf(t.address), { retries: 2, backoffMs: 20 });

/** The live tree of a sim as relative path → text. */
const liveTree = (sim: SimHost) => Object.fromEntries(simTree(sim.state, ROOT));

/** The tree is exactly the old one, exactly the new one, or (host 0 before its first push) absent. */
function assertWhole(sim: SimHost, i: number): 'old' | 'new' | 'absent' {
  const tree = liveTree(sim);
  if (i === 0 && Object.keys(tree).length === 0) return 'absent';
  if (JSON.stringify(tree) === JSON.stringify(Object.fromEntries(Object.entries(OLD)))) return 'old';
  assert.deepEqual(tree, NEW, `host ${i}: the live tree is neither the old nor the new one`);
  return 'new';
}

// Every op of a push, and how each can break: one fault per host.
const OPS = [
  'read-hosts-tree',
  'clear-hosts-staging',
  'file-hash',
  'ensure-directories',
  'commit-upload',
  'swap-hosts-tree',
  'ensure-config-path',
];
type Fault = { label: string; set: (s: SimHost) => void; swapDone?: boolean };
const FAULTS: Fault[] = [
  ...OPS.flatMap((op): Fault[] => [
    { label: `fail ${op}`, set: (s) => s.failOp(op) },
    { label: `drop before ${op}`, set: (s) => s.dropOnOp(op, { after: 'before' }) },
    { label: `drop after ${op}`, set: (s) => s.dropOnOp(op, { after: 'after' }) },
  ]),
  { label: 'upload cut after 10 bytes', set: (s) => s.dropAfterSftpBytes(10) },
  { label: 'upload cut after 1 byte', set: (s) => s.dropAfterSftpBytes(1) },
  // The config step fails after the swap and the rollback fails too: the new tree stays whole.
  {
    label: 'fail ensure-config-path and rollback',
    set: (s) => (s.failOp('ensure-config-path'), s.failOp('rollback-hosts-tree', { times: 3 })),
  },
  // Fails twice in a row on the same connection drop: the retries are spent.
  { label: 'drop before swap three times', set: (s) => s.dropOnOp('swap-hosts-tree', { after: 'before', times: 3 }) },
];

test('a fault at every step of the push leaves every node whole; failures roll back; re-runs converge; 50 hosts within the bound', async () => {
  assert.ok(FAULTS.length + 1 < N);
  FAULTS.forEach((f, k) => f.set(rig.sims[k + 1]!));
  let inFlight = 0;
  let maxInFlight = 0;
  const onEvent = (_t: MirrorTarget, e: RunEvent) => {
    if (e.type === 'plan-start') maxInFlight = Math.max(maxInFlight, ++inFlight);
    if (e.type === 'plan-end') inFlight--;
  };
  const first = await mirrorsApply({ kube: rig.kube, objects: OBJECTS, hostFor, concurrency: 8, onEvent });
  assert.equal(first.wmco, false);
  assert.equal(first.mode, 'ordered');
  assert.equal(first.nodes.length, N);
  assert.ok(maxInFlight <= 8 && maxInFlight >= 6, `at most 8 nodes at once (saw ${maxInFlight})`);

  for (const [i, sim] of rig.sims.entries()) {
    const r = first.nodes.find((n) => n.address === rig.addresses[i])!;
    const whole = assertWhole(sim, i);
    // Nothing half-written next to the live tree either: no temporaries, no staging left behind.
    const leftovers = [...sim.state.files.values()].filter(
      (f) => f.path.includes('.kw-') && f.path.endsWith('.tmp') && f.path.startsWith(ROOT),
    );
    assert.deepEqual(leftovers, [], `host ${i}`);
    if (r.status === 'failed') {
      const label = FAULTS[i - 1]?.label ?? 'none';
      if (label === 'fail ensure-config-path and rollback') {
        assert.equal(whole, 'new');
        assert.match(r.reason ?? '', /rolling back failed too/);
      } else {
        assert.equal(whole, 'old', `host ${i} (${label}): a failed node keeps or gets back its previous tree`);
      }
      assert.ok(r.reason, `host ${i}: a failure says why`);
    } else {
      assert.equal(r.status, 'changed', `host ${i} (${FAULTS[i - 1]?.label ?? 'none'}): ${r.reason ?? ''}`);
      assert.equal(whole, 'new');
    }
  }
  const failed = first.nodes
    .filter((n) => n.status === 'failed')
    .map((n) => FAULTS[rig.addresses.indexOf(n.address) - 1]?.label);
  // Every "fail" fault fails its node; lost connections are retried and succeed.
  for (const op of OPS) assert.ok(failed.includes(`fail ${op}`), `fail ${op} fails the node`);
  assert.deepEqual(
    failed.filter((l) => /^(drop|upload cut)/.test(l ?? '') && !l?.includes('three times')),
    [],
    'a connection lost once is retried',
  );
  assert.ok(failed.includes('drop before swap three times'));
  const restored = first.nodes.find(
    (n) => FAULTS[rig.addresses.indexOf(n.address) - 1]?.label === 'fail ensure-config-path',
  );
  assert.equal(restored?.rolledBack, true);
  assert.match(restored?.reason ?? '', /previous configuration was restored/);

  // Host 0 had no config_path: set, containerd restarted; the others kept their config untouched.
  const cfg0 = rig.sims[0]!.state.files.get(LAYOUT.containerdConfig.toLowerCase())!.data.toString();
  assert.match(cfg0, /config_path = "C:\\\\Program Files\\\\containerd\\\\certs.d"/);
  assert.equal(
    rig.sims[30]!.state.files.get(LAYOUT.containerdConfig.toLowerCase())!.data.toString(),
    containerdConfig(1),
  );

  // Second run: every node converges.
  const second = await mirrorsApply({ kube: rig.kube, objects: OBJECTS, hostFor, concurrency: 8 });
  for (const [i, sim] of rig.sims.entries()) {
    const r = second.nodes.find((n) => n.address === rig.addresses[i])!;
    assert.notEqual(r.status, 'failed', `host ${i}: ${r.reason ?? ''}`);
    assert.equal(assertWhole(sim, i), 'new');
    // The previous tree is kept as the backup (the second run's backup is the first run's tree, or the old one).
    assert.ok(
      [...sim.state.directories.keys()].some((d) => d === `${ROOT}.kw-backup`.toLowerCase()) || i === 0,
      `host ${i} keeps a backup`,
    );
    assert.ok(![...sim.state.directories.keys()].some((d) => d.includes('.kw-staging-')), `host ${i}: no staging left`);
  }

  // Third run: hash-equal everywhere, nothing written.
  const before3 = rig.sims.map((s) => s.state.opLog.length);
  const third = await mirrorsApply({ kube: rig.kube, objects: OBJECTS, hostFor, concurrency: 8 });
  assert.ok(
    third.nodes.every((n) => n.status === 'unchanged'),
    third.nodes.map((n) => n.status).join(','),
  );
  for (const [i, sim] of rig.sims.entries()) {
    const ops = sim.state.opLog.slice(before3[i]).map((o) => o.name);
    assert.ok(
      !ops.some((o) => ['commit-upload', 'swap-hosts-tree', 'ensure-directories'].includes(o)),
      `host ${i} wrote something: ${ops.join(',')}`,
    );
  }

  // Diff against the nodes: nothing to change now; with other objects, per-node changes with a unified diff.
  const same = await mirrorsDiff({
    kube: rig.kube,
    objects: OBJECTS,
    hostFor,
    concurrency: 8,
    only: ['win-01', 'win-02'],
  });
  assert.deepEqual(
    same.nodes.map((n) => n.status),
    ['unchanged', 'unchanged'],
  );
  const changed = await mirrorsDiff({ kube: rig.kube, objects: [OBJECTS[0]], hostFor, only: ['win-03'] });
  const d = changed.nodes[0]!.diff!;
  assert.deepEqual(
    d.changes.map((c) => [c.path, c.change]),
    [['mcr.microsoft.com\\hosts.toml', 'removed']],
  );
  assert.match(
    d.changes[0]!.diff,
    /^--- a\/mcr.microsoft.com\/hosts.toml\n\+\+\+ \/dev\/null\n@@ -1,\d+ \+0,0 @@\n-server = /,
  );
});

test('WMCO cluster: IDMS/ITMS created or updated through the API, each node compared with what WMCO writes', async () => {
  const existing = idms('existing', [{ source: 'registry.redhat.io', mirrors: ['mirror.example.com/rh'] }]);
  const wrig = await startRig({
    hosts: 2,
    objects: [
      ...openshiftClusterConfig(),
      wmcoCsv(),
      existing,
      itms('tags', [{ source: 'quay.io/org/app', mirrors: ['old.example.com/org/app'] }]),
      windowsNode('byoh-a', { build: '10.0.20348', address: hostAddress(0), byoh: true }),
      windowsNode('byoh-b', { build: '10.0.20348', address: hostAddress(1), byoh: true }),
    ],
  });
  try {
    assert.equal(await isWmcoCluster(wrig.kube), true);
    const ours = [
      idms('ours', [{ source: 'docker.io/library/nginx', mirrors: ['mirror.example.com/library/nginx'] }]),
      itms('tags', [{ source: 'quay.io/org/app', mirrors: ['new.example.com/org/app'] }]),
      {
        apiVersion: 'operator.openshift.io/v1alpha1',
        kind: 'ImageContentSourcePolicy',
        metadata: { name: 'legacy' },
        spec: {},
      },
    ];
    // WMCO's view after our objects: all the cluster's sets, rendered its way. Host 0 gets it, host 1 keeps something stale.
    const expected = renderHostsToml(mirrorEntriesOf([existing, ...ours]), { mode: 'wmco' }).files;
    const sim0 = wrig.sims[0]!;
    const fs0 = expected.map((f) => [`${WMCO_REGISTRY_DIR}\\${f.dir}\\hosts.toml`, f.content] as const);
    for (const [p, c] of fs0) {
      const dir = p.slice(0, p.lastIndexOf('\\'));
      sim0.state.directories.set(dir.toLowerCase(), dir);
      for (let parent = dir; parent.length > 3; parent = parent.slice(0, parent.lastIndexOf('\\')))
        sim0.state.directories.set(parent.toLowerCase(), parent);
      sim0.state.files.set(p.toLowerCase(), { path: p, data: Buffer.from(c) });
    }
    const out = await mirrorsApply({
      kube: wrig.kube,
      objects: ours,
      hostFor: (t) => wrig.hostFor(wrig.addresses.indexOf(t.address)),
      convergeTimeoutMs: 0,
    });
    assert.equal(out.wmco, true);
    assert.deepEqual(
      out.objects.map((o) => [o.kind, o.name, o.action]),
      [
        ['ImageDigestMirrorSet', 'ours', 'created'],
        ['ImageTagMirrorSet', 'tags', 'updated'],
        ['ImageContentSourcePolicy', 'legacy', 'skipped'],
      ],
    );
    assert.deepEqual((wrig.emu.get('ImageTagMirrorSet', 'tags') as unknown as { spec: unknown }).spec, {
      imageTagMirrors: [{ source: 'quay.io/org/app', mirrors: ['new.example.com/org/app'] }],
    });
    assert.ok(wrig.emu.get('ImageDigestMirrorSet', 'ours'));
    assert.deepEqual(
      out.nodes.map((n) => [n.node, n.status]),
      [
        ['byoh-a', 'converged'],
        ['byoh-b', 'drift'],
      ],
    );
    assert.match(out.nodes[1]!.reason ?? '', /differs from what WMCO should write \(3 added/);
    // Nothing was written to any node: WMCO owns the files.
    for (const s of wrig.sims)
      assert.ok(!s.state.opLog.some((o) => ['commit-upload', 'swap-hosts-tree'].includes(o.name)));
    // A second apply changes no object.
    const again = await mirrorsApply({ kube: wrig.kube, objects: ours.slice(0, 2), convergeTimeoutMs: 0 });
    assert.deepEqual(
      again.objects.map((o) => o.action),
      ['unchanged', 'unchanged'],
    );
    assert.deepEqual(
      again.nodes.map((n) => n.status),
      ['skipped', 'skipped'],
    );
  } finally {
    await wrig.stop();
  }
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveP) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], {
      env: { ...process.env, SSH_AUTH_SOCK: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolveP({ code, stdout, stderr }));
  });
}

test('CLI: mirrors diff and apply on two nodes, usage errors exit 2 without a stack', async () => {
  const file = join(rig.dir, 'mirrors.yaml');
  const variant = [idms('mirrors', [{ source: 'docker.io/library', mirrors: ['other.example.com/library'] }])];
  writeFileSync(file, variant.map((o) => JSON.stringify(o)).join('\n---\n'));
  const base = [
    '--kubeconfig',
    rig.kubeconfigPath,
    '--context',
    'emulator',
    '--key',
    rig.keyPath,
    '--port',
    String(rig.port),
    '--known-hosts',
    rig.knownHostsPath,
    '--node',
    'win-05',
    '--node',
    'win-06',
  ];

  const usage = await cli(['mirrors', 'apply', '--concurrency', '0', ...base, file]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--concurrency must be a positive whole number/);
  assert.doesNotMatch(usage.stderr, /\n\s+at /);
  const noKey = await cli(['mirrors', 'diff', '--kubeconfig', rig.kubeconfigPath, '--context', 'emulator', file]);
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /give --key FILE/);

  const nothing = await cli(['mirrors', 'apply', ...base]);
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /^kube-windows: The cluster has no ImageDigestMirrorSet .* pass the YAML files/);

  const diff = await cli(['mirrors', 'diff', ...base, file]);
  assert.equal(diff.code, 1, diff.stderr);
  assert.match(diff.stdout, /win-05 \(127\.0\.0\.7\): 0 added, 1 changed, 2 removed, 0 unchanged/);
  assert.match(diff.stdout, /changed docker\.io\\hosts\.toml\n {4}--- a\/docker\.io\/hosts\.toml\n/);
  assert.match(diff.stdout, /\+\[host\."https:\/\/other\.example\.com\/v2"\]/);

  const apply = await cli(['mirrors', 'apply', ...base, file]);
  assert.equal(apply.code, 0, apply.stdout + apply.stderr);
  assert.match(
    apply.stdout,
    /NODE {2,}ADDRESS {2,}RESULT {2,}DETAIL\nwin-05 {2,}127\.0\.0\.7 {2,}changed {2,}0 added, 1 changed, 2 removed/,
  );
  assert.deepEqual([...simTree(rig.sims[5]!.state, ROOT).keys()], ['docker.io\\hosts.toml']);

  const again = await cli(['mirrors', 'diff', ...base, file]);
  assert.equal(again.code, 0, again.stdout);
  assert.match(again.stdout, /win-06 \(127\.0\.0\.8\): up to date/);
});

test('every mirror op parses and is run by the simulated host; config_path is added to a containerd 2.x config once', async () => {
  const host = rig.hostFor(N - 1);
  for (const op of sampleMirrorOps('C:\\sample')) {
    try {
      await host.run(op);
    } catch (err) {
      assert.doesNotMatch(
        (err as Error).message,
        /unknown op|does not parse|simulator error|not recognized as an internal/,
        op.name,
      );
    }
  }
  const sim = rig.sims[N - 1]!;
  const v3 = containerdConfig(2).replace(/ {4}config_path = .*\r\n/, '');
  sim.state.files.set(LAYOUT.containerdConfig.toLowerCase(), { path: LAYOUT.containerdConfig, data: Buffer.from(v3) });
  const first = await host.run(ensureConfigPath(LAYOUT.containerdConfig, ROOT));
  assert.deepEqual([first.changed, first.restarted, first.previous], [true, true, []]);
  assert.equal(
    sim.state.files.get(LAYOUT.containerdConfig.toLowerCase())!.data.toString(),
    containerdConfig(2).replace(/ {4}config_path/, '  config_path'),
  );
  const second = await host.run(ensureConfigPath(LAYOUT.containerdConfig, ROOT));
  assert.equal(second.changed, false);
});

test('mirror push: the host key changes between the staging and the swap: the swap is refused naming both fingerprints, nothing more runs on the host and its live tree stays whole', async () => {
  const i = 45;
  const sim = rig.sims[i]!;
  const node = `win-${i}`;
  const before = liveTree(sim);
  const variant = [idms('mirrors', [{ source: 'docker.io/library', mirrors: ['keychange.example.com/library'] }])];
  const old = { public: sim.hostKeyPublic, private: sim.hostKeyPrivate };
  let opsAtChange = -1;
  const onEvent = (_t: MirrorTarget, e: RunEvent) => {
    if (e.type === 'step-end' && e.stepId === 'stage') {
      sim.changeHostKey();
      opsAtChange = sim.state.opLog.length;
    }
  };
  const res = await mirrorsApply({ kube: rig.kube, objects: variant, hostFor, only: [node], onEvent });
  const r = res.nodes.find((n) => n.node === node)!;
  assert.equal(r.status, 'failed');
  assert.ok(opsAtChange > 0, 'the staging ran before the key changed');
  assertHostKeyRefusal(
    r.reason ?? '',
    sim,
    { old, now: { public: sim.hostKeyPublic, private: sim.hostKeyPrivate } },
    rig.keyPath,
    'mirror push',
  );
  assert.equal(
    sim.state.opLog.length,
    opsAtChange,
    'no swap, no rollback: nothing ran on the host after its key changed',
  );
  assert.deepEqual(liveTree(sim), before, 'the live tree is the one it had');
  // Other nodes are not held up by one refused host.
  const other = await mirrorsApply({ kube: rig.kube, objects: variant, hostFor, only: ['win-46'] });
  assert.equal(other.nodes[0]?.status, 'changed', other.nodes[0]?.reason);
});
