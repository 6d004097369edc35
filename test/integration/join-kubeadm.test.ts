// The kubeadm join end to end: the real engine (plans, runner, WindowsHost over ssh2) against the API
// emulator (a kubeadm cluster) and simulated Windows hosts. Covers the Containers feature with a
// restart in the middle, a second run that changes nothing, a connection killed at every host op
// followed by a re-run, and the remove plan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildKubeadmJoinPlan, type KubeadmContext } from '../../src/bootstrap/kubeadm';
import { buildKubeadmRemovePlan } from '../../src/bootstrap/kubeadm-remove';
import { resolvePayload, type Payload } from '../../src/bootstrap/payload';
import { runPlan, type RunEvent } from '../../src/bootstrap/runner';
import { renderPlan } from '../../src/bootstrap/render';
import { kubeadmCluster, runtimeClass } from '../support/kube-seed';
import {
  calicoManifest,
  calicoOperator,
  cilium,
  controlPlaneNode,
  flannel,
  kubeadmKubeProxy,
} from '../support/cni-seed';
import { startRig, type Rig } from '../support/join-rig';
import { assertHostKeyRefusal } from '../support/host-key-change';
import { startNodeDoubles, type NodeDoublesOptions } from '../support/node-doubles';
import { runCli } from '../support/run-cli';
import { fakeKubeBinary, wireKubeadmJoin } from '../support/kubeadm-wiring';
import type { KubeObject } from '../support/kube-api-emulator';

let payloadDir: string;
let payload: Payload;

/** Wires a simulated host's `kubeadm join` to the emulator: the token must be a live bootstrap token, the Node registers and turns Ready. */
function wireKubeadm(rig: Rig, index: number): void {
  wireKubeadmJoin(rig.emu, rig.caPem, rig.sims[index]!, rig.addresses[index] as string);
}

const exe = fakeKubeBinary;

async function kubeadmRig(
  hosts = 1,
  init: Record<string, unknown> = {},
  network = calicoManifest(),
  doubleOptions: NodeDoublesOptions = {},
): Promise<Rig> {
  const rig = await startRig({
    hosts,
    host: (i) => ({ hostname: `WIN-K${i}`, containersFeature: 'Disabled', ...init }),
  });
  for (const o of [
    ...kubeadmCluster({ server: rig.emu.url, caPem: rig.caPem }),
    controlPlaneNode(),
    ...kubeadmKubeProxy(rig.emu.url),
    ...network,
  ])
    rig.emu.apply(o);
  for (let i = 0; i < hosts; i++) wireKubeadm(rig, i);
  // The DaemonSet controller's and the Windows kubelet's parts (doubles): pods on the node run.
  const doubles = startNodeDoubles(rig.emu, doubleOptions);
  const stop = rig.stop.bind(rig);
  rig.stop = async () => {
    doubles.stop();
    await stop();
  };
  return rig;
}

function planFor(
  rig: Rig,
  index: number,
  extra: {
    taint?: boolean;
    kubernetesVersion?: string;
    cni?: 'calico' | 'flannel' | 'auto';
    payload?: Payload;
    kubeReserved?: string;
    runtimeClass?: boolean;
  } = {},
) {
  const host = rig.hostFor(index);
  const opts = {
    kube: rig.kube,
    host,
    address: rig.addresses[index] as string,
    user: rig.user,
    payload,
    pollMs: 50,
    caPem: rig.caPem,
    ...extra,
  };
  return { plan: buildKubeadmJoinPlan(opts), ctx: { opts, state: {} } as KubeadmContext, host };
}

before(async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  payloadDir = mkdtempSync(join(tmpdir(), 'kw-payload-'));
  mkdirSync(payloadDir, { recursive: true });
  writeFileSync(join(payloadDir, 'containerd-1.7.27-windows-amd64.tar.gz'), randomBytes(300_000));
  writeFileSync(join(payloadDir, 'kubelet.exe'), exe('v1.31.3', 200_000));
  writeFileSync(join(payloadDir, 'kubeadm.exe'), exe('v1.31.3', 100_000));
  payload = await resolvePayload({ folder: payloadDir });
});

after(() => undefined);

test('kubeadm join: Containers enabled with a restart, containerd, kubelet, join, Ready, taint; a second run changes nothing', async () => {
  const rig = await kubeadmRig();
  try {
    const sim = rig.sims[0]!;
    const { plan, ctx, host } = planFor(rig, 0, { taint: true });
    const events: RunEvent[] = [];
    const result = await runPlan(plan, ctx, { onEvent: (e) => events.push(e), backoffMs: 20 });
    assert.equal(result.outcome, 'done', JSON.stringify(result.error));
    const outcome = Object.fromEntries(result.steps.map((s) => [s.id, s.outcome]));
    assert.equal(outcome['restart'], 'applied', 'the host restarted once to finish enabling Containers');
    assert.equal(sim.state.bootCount, 1);
    assert.equal(sim.state.containersFeature, 'Enabled');
    const node = rig.emu.get('Node', 'win-k0') as KubeObject & {
      spec: { taints: { key: string; value: string; effect: string }[] };
    };
    assert.ok(node, 'the Node registered under the lowercased host name');
    assert.deepEqual(node.spec.taints, [{ key: 'os', value: 'windows', effect: 'NoSchedule' }]);
    assert.equal(
      outcome['taint'],
      'skipped',
      'the kubelet registered the node with the taint: no pod without the toleration could land first',
    );
    const kubelet = [...sim.state.services].find(([n]) => n.toLowerCase() === 'kubelet')![1].binaryPathName;
    for (const flag of [
      '--register-with-taints=os=windows:NoSchedule',
      `--node-ip=${rig.addresses[0]}`,
      '--system-reserved=memory=2Gi',
      '--eviction-hard=memory.available<500Mi,nodefs.available<10%',
    ])
      assert.ok(kubelet.includes(` ${flag} `), `${flag} in ${kubelet}`);
    // containerd's config points the registry at the hosts.toml tree.
    const config = sim.state.files.get('c:\\program files\\containerd\\config.toml');
    assert.match(config?.data.toString() ?? '', /config_path = "C:\\\\Program Files\\\\containerd\\\\certs\.d"/);
    assert.equal([...sim.state.services.keys()].filter((n) => /^(containerd|kubelet)$/i.test(n)).length, 2);
    // The bootstrap token is deleted once used, and never appears in what the runner reported.
    assert.equal(
      rig.emu
        .list('Secret')
        .filter((s) => s.metadata.name.startsWith('bootstrap-token-') && s.metadata.name !== 'bootstrap-token-abcdef')
        .length,
      0,
    );
    const joinParams = sim.state.opLog.find((r) => r.name === 'kubeadm-join')?.params;
    const token = String(joinParams?.['Token']);
    assert.match(token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    assert.ok(!JSON.stringify(events).includes(token.split('.')[1]!), 'the token secret is not in any event');
    assert.ok(!JSON.stringify(result).includes(token.split('.')[1]!), 'nor in the result');

    // The cluster side: Calico for Windows and HostProcess kube-proxy created, their pods ran, the probe pod succeeded and is gone.
    assert.ok(rig.emu.get('ConfigMap', 'calico-windows-config', 'kube-system'));
    assert.ok(rig.emu.get('DaemonSet', 'calico-node-windows', 'kube-system'));
    const kp = rig.emu.get('DaemonSet', 'kube-proxy-windows', 'kube-system') as KubeObject & {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    assert.equal(kp.spec.template.spec.containers[0]!.image, 'sigwindowstools/kube-proxy:v1.31.3-calico-hostprocess');
    assert.ok(
      ['applied', 'skipped'].includes(outcome['networking-pods'] as string),
      'the networking pods ran (the doubles may be quicker than the check)',
    );
    assert.equal(outcome['probe'], 'applied');
    assert.equal(rig.emu.get('Pod', 'kube-windows-probe-win-k0', 'default'), undefined, 'the probe pod is deleted');
    assert.ok((rig.emu.get('Node', 'win-k0')!.metadata.annotations ?? {})['kube-windows.io/probe-succeeded']);
    assert.ok(
      rig.emu.requests.some((r) => r.method === 'POST' && r.path === '/api/v1/namespaces/default/pods'),
      'the probe pod was created through the API',
    );

    // Second run: every step is already done, nothing is written on the host or in the API.
    const opsBefore = sim.state.opLog.length;
    const writesBefore = rig.emu.requests.filter((r) => r.method !== 'GET').length;
    const again = await runPlan(
      planFor(rig, 0, { taint: true }).plan,
      { opts: { ...ctx.opts, host: rig.hostFor(0) }, state: {} },
      {},
    );
    assert.equal(again.outcome, 'done');
    const changed = again.steps.filter((s) => s.outcome !== 'skipped').map((s) => s.id);
    assert.deepEqual(changed, ['preflight', 'directories'], 'only the steps that always run (and change nothing) ran');
    const newOps = sim.state.opLog.slice(opsBefore).map((r) => r.name);
    for (const mutating of [
      'commit-upload',
      'ensure-service',
      'start-service',
      'kubeadm-join',
      'restart-computer',
      'enable-containers-feature',
      'expand-archive',
    ]) {
      assert.ok(!newOps.includes(mutating), `the second run did not run ${mutating}`);
    }
    assert.equal(
      rig.emu.requests.filter((r) => r.method !== 'GET').length,
      writesBefore,
      'no API write on the second run',
    );
    host.close();
  } finally {
    await rig.stop();
  }
});

test('kubeadm: a node joined before without the taint: the kubelet gets the new flags (restarted) and the taint is added, once', async () => {
  const rig = await kubeadmRig(1, { containersFeature: 'Enabled' });
  try {
    const sim = rig.sims[0]!;
    const first = planFor(rig, 0);
    assert.equal((await runPlan(first.plan, first.ctx, {})).outcome, 'done');
    first.host.close();
    const untainted = rig.emu.get('Node', 'win-k0') as KubeObject & { spec: { taints: unknown[] } };
    assert.deepEqual(untainted.spec.taints, []);
    const second = planFor(rig, 0, { taint: true, kubeReserved: 'cpu=500m,memory=1Gi' });
    const r = await runPlan(second.plan, second.ctx, {});
    second.host.close();
    assert.equal(r.outcome, 'done', JSON.stringify(r.error));
    const outcome = Object.fromEntries(r.steps.map((x) => [x.id, x.outcome]));
    assert.equal(outcome['kubelet-service'], 'applied');
    assert.equal(outcome['join'], 'skipped', 'not joined again');
    assert.equal(outcome['taint'], 'applied', 'the taint added to the node registered before');
    assert.ok(
      sim.state.opLog.some((o) => o.name === 'restart-node-service' && o.params['Name'] === 'kubelet'),
      'the kubelet restarted to take its new flags',
    );
    assert.match(
      [...sim.state.services].find(([n]) => n.toLowerCase() === 'kubelet')![1].binaryPathName,
      / --kube-reserved=cpu=500m,memory=1Gi /,
    );
    assert.deepEqual((rig.emu.get('Node', 'win-k0') as KubeObject & { spec: { taints: unknown[] } }).spec.taints, [
      { key: 'os', value: 'windows', effect: 'NoSchedule' },
    ]);
    const third = planFor(rig, 0, { taint: true, kubeReserved: 'cpu=500m,memory=1Gi' });
    const again = await runPlan(third.plan, third.ctx, {});
    third.host.close();
    assert.deepEqual(
      again.steps.filter((x) => x.outcome !== 'skipped').map((x) => x.id),
      ['preflight', 'directories'],
    );
  } finally {
    await rig.stop();
  }
});

/** Runs a join to the end on a fresh rig with the given network and doubles; returns the rig (stopped by the caller) and the result. */
async function joinWith(
  network: ReturnType<typeof calicoManifest>,
  extra: Parameters<typeof planFor>[2] = {},
  doubles: NodeDoublesOptions = {},
  timeouts?: Record<string, number>,
) {
  const rig = await kubeadmRig(1, { containersFeature: 'Enabled' }, network, doubles);
  const p = planFor(rig, 0, extra);
  if (timeouts) Object.assign(p.ctx.opts, { timeouts });
  const plan = timeouts ? buildKubeadmJoinPlan(p.ctx.opts) : p.plan;
  const result = await runPlan(plan, p.ctx, {});
  p.host.close();
  return { rig, result };
}

test('kubeadm networking per CNI: Flannel gets its Windows DaemonSet and CNI config; Calico operator only kube-proxy (the operator runs calico-node-windows); what exists is reused, never duplicated', async () => {
  {
    const { rig, result } = await joinWith(flannel());
    try {
      assert.equal(result.outcome, 'done', JSON.stringify(result.error));
      assert.ok(rig.emu.get('ConfigMap', 'kube-flannel-windows-cfg', 'kube-flannel'));
      const ds = rig.emu.get('DaemonSet', 'kube-flannel-ds-windows-amd64', 'kube-flannel') as KubeObject & {
        spec: { template: { spec: { containers: { image: string }[] } } };
      };
      assert.equal(ds.spec.template.spec.containers[0]!.image, 'sigwindowstools/flannel:v0.25.6-hostprocess');
      assert.match(
        JSON.stringify(rig.emu.get('DaemonSet', 'kube-proxy-windows', 'kube-system')),
        /kube-proxy:v1\.31\.3-flannel-hostprocess/,
      );
      assert.equal(rig.emu.get('DaemonSet', 'calico-node-windows', 'kube-system'), undefined);
    } finally {
      await rig.stop();
    }
  }
  {
    const { rig, result } = await joinWith(calicoOperator('HNS'));
    try {
      assert.equal(result.outcome, 'done', JSON.stringify(result.error));
      const created = rig.emu.requests
        .filter((r) => r.method === 'POST' && /daemonsets|configmaps/.test(r.path))
        .map((r) => r.path);
      assert.deepEqual(
        created,
        ['/apis/apps/v1/namespaces/kube-system/daemonsets'],
        'only kube-proxy-windows: the operator owns calico-node-windows',
      );
      assert.ok(
        rig.emu
          .list('Pod')
          .some(
            (p) =>
              p.metadata.name.startsWith('calico-node-windows-') &&
              (p as { spec?: { nodeName?: string } }).spec?.nodeName === 'win-k0',
          ),
      );
    } finally {
      await rig.stop();
    }
  }
  {
    // A kube-proxy for Windows installed by hand under another name, and calico-node-windows already there.
    const own = calicoManifest();
    const handmade = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-proxy-win', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { app: 'kpw' } },
        template: {
          metadata: { labels: { app: 'kpw' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'windows' },
            containers: [{ name: 'kube-proxy', image: 'sigwindowstools/kube-proxy:v1.31.3-calico-hostprocess' }],
          },
        },
      },
    };
    const { rig, result } = await joinWith([...own, handmade as KubeObject]);
    try {
      assert.equal(result.outcome, 'done', JSON.stringify(result.error));
      assert.equal(rig.emu.get('DaemonSet', 'kube-proxy-windows', 'kube-system'), undefined, 'not duplicated');
      assert.ok(
        rig.emu.list('Pod').some((p) => p.metadata.name.startsWith('kube-proxy-win-')),
        'its pod is the one waited for',
      );
    } finally {
      await rig.stop();
    }
  }
});

test("kubeadm waits say why: calico-node-windows in CrashLoopBackOff with the container's last words; an image that cannot be pulled", async () => {
  {
    const { rig, result } = await joinWith(
      calicoManifest(),
      {},
      {
        crash: {
          'calico-node-windows': {
            container: 'felix',
            message: 'Calico network not found: HNS network "Calico" does not exist',
          },
        },
      },
      { pods: 1500 },
    );
    try {
      assert.equal(result.outcome, 'failed');
      assert.equal(result.error?.stepId, 'networking-pods');
      assert.match(
        result.error?.message ?? '',
        /calico-node-windows on win-k0 is in CrashLoopBackOff: felix: Calico network not found: HNS network "Calico" does not exist/,
      );
    } finally {
      await rig.stop();
    }
  }
  {
    const { rig, result } = await joinWith(calicoManifest(), {}, { unpullable: /nanoserver/ }, { pods: 1500 });
    try {
      assert.equal(result.outcome, 'failed');
      assert.equal(result.error?.stepId, 'probe');
      assert.match(
        result.error?.message ?? '',
        /the probe pod on win-k0 is in ImagePullBackOff: probe: Back-off pulling image "mcr\.microsoft\.com\/windows\/nanoserver:ltsc2022"/,
      );
      assert.equal(
        rig.emu.get('Pod', 'kube-windows-probe-win-k0', 'default'),
        undefined,
        'the probe pod is deleted after a failure too',
      );
    } finally {
      await rig.stop();
    }
  }
});

test('kubeadm --runtime-class: windows-2022 for the node (handler, build, toleration), created once; one of that name with another build is kept and reported', async () => {
  const { rig, result } = await joinWith(calicoManifest(), { runtimeClass: true });
  try {
    assert.equal(result.outcome, 'done', JSON.stringify(result.error));
    const rc = rig.emu.get('RuntimeClass', 'windows-2022') as KubeObject & {
      handler: string;
      scheduling: { nodeSelector: Record<string, string> };
    };
    assert.equal(rc.handler, 'runhcs-wcow-process');
    assert.equal(rc.scheduling.nodeSelector['node.kubernetes.io/windows-build'], '10.0.20348');
    const again = planFor(rig, 0, { runtimeClass: true });
    const r2 = await runPlan(again.plan, again.ctx, {});
    again.host.close();
    assert.equal(r2.steps.find((x) => x.id === 'runtime-class')?.outcome, 'skipped');
  } finally {
    await rig.stop();
  }
  const other = await kubeadmRig(1, { containersFeature: 'Enabled' });
  try {
    other.emu.apply(runtimeClass('windows-2022', '10.0.17763'));
    const p = planFor(other, 0, { runtimeClass: true });
    const events: RunEvent[] = [];
    const r = await runPlan(p.plan, p.ctx, { onEvent: (e) => events.push(e) });
    p.host.close();
    assert.equal(r.outcome, 'done', JSON.stringify(r.error));
    assert.match(
      JSON.stringify(events),
      /kept the existing RuntimeClass windows-2022: it selects build 10\.0\.17763 with handler runhcs-wcow-process, not 10\.0\.20348/,
    );
    assert.equal(
      (
        other.emu.get('RuntimeClass', 'windows-2022') as KubeObject & {
          scheduling: { nodeSelector: Record<string, string> };
        }
      ).scheduling.nodeSelector['node.kubernetes.io/windows-build'],
      '10.0.17763',
      'never replaced',
    );
  } finally {
    await other.stop();
  }
});

test('kubeadm: the connection killed at each host op, then a re-run, ends joined with nothing duplicated', async () => {
  const ops = [
    'host-facts',
    'enable-containers-feature',
    'restart-computer',
    'ensure-directories',
    'file-hash',
    'commit-upload',
    'read-text-file',
    'expand-archive',
    'service-state',
    'ensure-service',
    'start-service',
    'ensure-firewall-rule',
    'executable-version',
    'kubeadm-join',
  ];
  for (const op of ops) {
    const rig = await kubeadmRig(1);
    try {
      const sim = rig.sims[0]!;
      // Enough drops to defeat the transparent retries, so this run fails at that op.
      sim.dropOnOp(op, { times: 20, after: 'after' });
      const first = planFor(rig, 0);
      const r1 = await runPlan(first.plan, first.ctx, { backoffMs: 10 });
      first.host.close();
      assert.notEqual(r1.outcome, 'done', `${op}: the first run stops`);
      // The fault is cleared; the user runs the plan again once the host answers (after a restart it started).
      sim.dropOnOp(op, { times: 0 });
      await sim.whenRebooted();
      const second = planFor(rig, 0);
      const r2 = await runPlan(second.plan, second.ctx, { backoffMs: 10 });
      second.host.close();
      assert.equal(r2.outcome, 'done', `${op}: the re-run joins (${JSON.stringify(r2.error)})`);
      assert.ok(rig.emu.get('Node', 'win-k0'), `${op}: node registered`);
      assert.equal(
        rig.emu.list('Node').filter((n) => n.metadata.labels?.['kubernetes.io/os'] === 'windows').length,
        1,
        `${op}: one Windows Node`,
      );
      const services = [...sim.state.services.keys()]
        .map((n) => n.toLowerCase())
        .filter((n) => n === 'containerd' || n === 'kubelet');
      assert.deepEqual(services.sort(), ['containerd', 'kubelet'], `${op}: each service once`);
      const temps = [...sim.state.files.values()].filter((f) => /\.kw-[0-9a-f]+\.tmp$/.test(f.path));
      assert.deepEqual(
        temps.map((f) => f.path),
        [],
        `${op}: no temporary upload left`,
      );
      for (const [path, source] of [
        ['c:\\k\\kubelet.exe', payload.kubelet],
        ['c:\\k\\kubeadm.exe', payload.kubeadm],
      ] as const) {
        const f = sim.state.files.get(path);
        assert.ok(f, `${op}: ${path} exists`);
        const { createHash } = await import('node:crypto');
        assert.equal(createHash('sha256').update(f.data).digest('hex'), source.sha256, `${op}: ${path} complete`);
      }
    } finally {
      await rig.stop();
    }
  }
});

test('kubeadm: a dropped upload restarts on a new connection and never leaves a partial file at the final path', async () => {
  const rig = await kubeadmRig(1, { containersFeature: 'Enabled' });
  try {
    const sim = rig.sims[0]!;
    sim.dropAfterSftpBytes(150_000);
    const { plan, ctx, host } = planFor(rig, 0);
    const result = await runPlan(plan, ctx, { backoffMs: 10 });
    host.close();
    assert.equal(result.outcome, 'done', JSON.stringify(result.error));
    const archive = sim.state.files.get('c:\\k\\payload\\containerd.tar.gz');
    const { createHash } = await import('node:crypto');
    assert.equal(createHash('sha256').update(archive!.data).digest('hex'), payload.containerd.sha256);
    assert.deepEqual(
      [...sim.state.files.values()].filter((f) => f.path.includes('.kw-')).map((f) => f.path),
      [],
    );
  } finally {
    await rig.stop();
  }
});

test('kubeadm: the host key changes between two steps: the next step is refused naming both fingerprints, nothing more runs on the host; joined once the user pins the new key', async () => {
  const rig = await kubeadmRig(1, { containersFeature: 'Enabled' });
  try {
    const sim = rig.sims[0]!;
    const old = { public: sim.hostKeyPublic, private: sim.hostKeyPrivate };
    let opsAtChange = -1;
    const first = planFor(rig, 0);
    const r1 = await runPlan(first.plan, first.ctx, {
      backoffMs: 10,
      onEvent: (e) => {
        if (e.type === 'step-end' && e.stepId === 'directories') {
          sim.changeHostKey();
          opsAtChange = sim.state.opLog.length;
        }
      },
    });
    first.host.close();
    assert.equal(r1.outcome, 'failed');
    assert.equal(r1.error?.stepId, 'containerd-archive', 'the step after the change is refused');
    const change = { old, now: { public: sim.hostKeyPublic, private: sim.hostKeyPrivate } };
    assertHostKeyRefusal(r1.error!.message, sim, change, rig.keyPath, 'kubeadm join');
    assert.equal(sim.state.opLog.length, opsAtChange, 'nothing ran on the host after its key changed');

    // A re-run refuses the same way until the user acts.
    const second = planFor(rig, 0);
    const r2 = await runPlan(second.plan, second.ctx, { backoffMs: 10 });
    second.host.close();
    assert.equal(r2.outcome, 'failed');
    assertHostKeyRefusal(r2.error!.message, sim, change, rig.keyPath, 'kubeadm re-run');
    assert.equal(sim.state.opLog.length, opsAtChange);

    writeFileSync(rig.knownHostsPath, `${sim.knownHostsLine()}\n`);
    const third = planFor(rig, 0);
    const r3 = await runPlan(third.plan, third.ctx, { backoffMs: 10 });
    third.host.close();
    assert.equal(r3.outcome, 'done', JSON.stringify(r3.error));
    assert.equal(rig.emu.list('Node').filter((n) => n.metadata.labels?.['kubernetes.io/os'] === 'windows').length, 1);
  } finally {
    await rig.stop();
  }
});

test('kubeadm: kubelet and kubeadm downloaded by the host from URLs, checked against their SHA-256', async () => {
  const kubelet = exe('v1.31.3', 50_000);
  const kubeadm = exe('v1.31.3', 40_000);
  const { createHash } = await import('node:crypto');
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const rig = await kubeadmRig(1, {
    containersFeature: 'Enabled',
    urls: { 'https://dl.example/kubelet.exe': kubelet, 'https://dl.example/kubeadm.exe': kubeadm },
  });
  try {
    const { mkdtempSync, copyFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const onlyContainerd = mkdtempSync(join(tmpdir(), 'kw-payload-'));
    copyFileSync(
      join(payloadDir, 'containerd-1.7.27-windows-amd64.tar.gz'),
      join(onlyContainerd, 'containerd-1.7.27-windows-amd64.tar.gz'),
    );
    const mixed = await resolvePayload({
      folder: onlyContainerd,
      urls: {
        kubelet: { url: 'https://dl.example/kubelet.exe', sha256: sha(kubelet) },
        kubeadm: { url: 'https://dl.example/kubeadm.exe', sha256: sha(kubeadm) },
      },
    });
    assert.equal(mixed.kubelet.kind, 'url');
    const host = rig.hostFor(0);
    const opts = {
      kube: rig.kube,
      host,
      address: rig.addresses[0] as string,
      user: rig.user,
      payload: mixed,
      pollMs: 50,
      caPem: rig.caPem,
    };
    const result = await runPlan(buildKubeadmJoinPlan(opts), { opts, state: {} } as KubeadmContext, { backoffMs: 10 });
    host.close();
    assert.equal(result.outcome, 'done', JSON.stringify(result.error));
    assert.equal(sha(rig.sims[0]!.state.files.get('c:\\k\\kubelet.exe')!.data), sha(kubelet));
    assert.ok(
      rig.sims[0]!.state.opLog.some(
        (o) => o.name === 'download-file' && o.params['Url'] === 'https://dl.example/kubeadm.exe',
      ),
    );
    await assert.rejects(
      resolvePayload({ urls: { containerd: { url: 'http://insecure/x.tar.gz', sha256: 'a'.repeat(64) } } }),
      /must use https/,
    );
    await assert.rejects(
      resolvePayload({ urls: { containerd: { url: 'https://x/containerd.tar.gz', sha256: 'nothex' } } }),
      /needs its SHA-256/,
    );
  } finally {
    await rig.stop();
  }
});

test("kubeadm: a wrong discovery hash fails the join with kubeadm's message, and the token is removed", async () => {
  const rig = await kubeadmRig(1, { containersFeature: 'Enabled' });
  try {
    rig.sims[0]!.expectedJoin = { ...rig.sims[0]!.expectedJoin!, caCertHash: `sha256:${'0'.repeat(64)}` };
    const { plan, ctx, host } = planFor(rig, 0);
    const result = await runPlan(plan, ctx, { backoffMs: 10 });
    host.close();
    assert.equal(result.outcome, 'failed');
    assert.equal(result.error?.stepId, 'join');
    assert.match(result.error?.message ?? '', /kubeadm join failed \(exit code 1\)[\s\S]*none of the public keys/);
    assert.equal(
      rig.emu
        .list('Secret')
        .filter((s) => s.metadata.name.startsWith('bootstrap-token-') && s.metadata.name !== 'bootstrap-token-abcdef')
        .length,
      0,
    );
  } finally {
    await rig.stop();
  }
});

test('kubeadm cluster preflight: an unsupported CNI, a wrong flannel backend, version skew and an old containerd are refused before the host is touched', async () => {
  const { copyFileSync, mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const oldDir = mkdtempSync(join(tmpdir(), 'kw-payload-'));
  writeFileSync(join(oldDir, 'containerd-1.5.18-windows-amd64.tar.gz'), randomBytes(1000));
  for (const f of ['kubelet.exe', 'kubeadm.exe']) copyFileSync(join(payloadDir, f), join(oldDir, f));
  const oldContainerd = await resolvePayload({ folder: oldDir });
  const cases: {
    name: string;
    network: ReturnType<typeof calicoManifest>;
    extra?: Parameters<typeof planFor>[2];
    expect: RegExp;
  }[] = [
    {
      name: 'cilium',
      network: cilium(),
      expect:
        /No CNI that supports Windows nodes was found \(DaemonSets: kube-system\/cilium\): this network plugin is not supported for Windows/,
    },
    {
      name: 'flannel host-gw',
      network: flannel({ Type: 'host-gw' }),
      expect:
        /flannel's backend does not work with Windows nodes: Type is "host-gw" \(must be "vxlan"\)[\s\S]*fix: Set "Backend": \{"Type": "vxlan", "VNI": 4096, "Port": 4789\}/,
    },
    {
      name: 'flannel default vxlan',
      network: flannel({ Type: 'vxlan' }),
      expect: /VNI is unset \(flannel defaults to 1\) \(must be 4096\), Port is unset/,
    },
    {
      name: 'newer kubelet',
      network: calicoManifest(),
      extra: { kubernetesVersion: 'v1.32.0' },
      expect: /kubelet v1\.32\.0 would be newer than the API server \(v1\.31\.3\)/,
    },
    {
      name: 'kubelet too old',
      network: calicoManifest(),
      extra: { kubernetesVersion: 'v1.27.4' },
      expect: /4 minor versions older than the API server/,
    },
    {
      name: 'old containerd',
      network: calicoManifest(),
      extra: { payload: oldContainerd },
      expect: /containerd 1\.5\.18 cannot run HostProcess containers/,
    },
    {
      name: '--cni flannel on calico',
      network: calicoManifest(),
      extra: { cni: 'flannel' },
      expect: /--cni flannel was asked, but the cluster runs calico/,
    },
  ];
  for (const c of cases) {
    const rig = await kubeadmRig(1, {}, c.network);
    try {
      const { plan, ctx, host } = planFor(rig, 0, c.extra);
      const result = await runPlan(plan, ctx, {});
      host.close();
      assert.equal(result.outcome, 'failed', c.name);
      assert.equal(result.error?.stepId, 'preflight', c.name);
      assert.match(result.error?.message ?? '', c.expect, c.name);
      assert.deepEqual(
        [...new Set(rig.sims[0]!.state.opLog.map((o) => o.name))],
        ['host-facts'],
        `${c.name}: only read the host`,
      );
      assert.equal(rig.emu.requests.filter((r) => r.method !== 'GET').length, 0, `${c.name}: no API write`);
    } finally {
      await rig.stop();
    }
  }
});

test('kubeadm: binaries that report another version than the planned one are refused', async () => {
  const rig = await kubeadmRig(1, { containersFeature: 'Enabled' });
  try {
    rig.emu.setVersion('v1.31.5'); // the default version is the API server's: the payload's v1.31.3 binaries are not it
    const { plan, ctx, host } = planFor(rig, 0);
    const result = await runPlan(plan, ctx, {});
    host.close();
    assert.equal(result.outcome, 'failed');
    assert.equal(result.error?.stepId, 'kube-binaries');
    assert.match(result.error?.message ?? '', /kubelet\.exe reports v1\.31\.3, but the join is for v1\.31\.5/);
    assert.ok(!rig.sims[0]!.state.opLog.some((o) => o.name === 'kubeadm-join'), 'kubeadm join did not run');
  } finally {
    await rig.stop();
  }
});

test('kubeadm preflight: OpenShift, Docker and an unsupported build are refused with fixes', async () => {
  const rig = await kubeadmRig(1, { build: 19041, services: { docker: { status: 'Running' } } });
  try {
    const { plan, ctx, host } = planFor(rig, 0);
    const result = await runPlan(plan, ctx, {});
    host.close();
    assert.equal(result.outcome, 'failed');
    assert.equal(result.error?.stepId, 'preflight');
    assert.match(result.error?.message ?? '', /not a supported Windows Server build/);
    assert.match(result.error?.message ?? '', /Docker service is installed/);
  } finally {
    await rig.stop();
  }
});

test('kubeadm dry run: every step with its PowerShell and API calls, the payload hashes, no secret', async () => {
  const rig = await kubeadmRig();
  try {
    const { plan, host } = planFor(rig, 0, { taint: true, runtimeClass: true });
    const text = renderPlan(plan);
    host.close();
    // The order itself is pinned in test/unit/plan-steps.test.ts; here: each step rendered, in plan order.
    const ids = plan.steps.map((s) => s.id);
    assert.equal(ids.length, 17, 'taint and RuntimeClass asked: every step of the join');
    ids.forEach((id, i) => assert.match(text, new RegExp(`STEP ${i + 1}/${ids.length}  ${id} `), id));
    assert.ok(text.includes(payload.containerd.sha256));
    assert.match(text, /# kube-windows op: kubeadm-join/);
    assert.match(text, /POST \/api\/v1\/namespaces\/kube-system\/secrets/);
    // The RuntimeClass as YAML under its call, saying what made it.
    assert.match(
      text,
      /^ {2}API POST \/apis\/node\.k8s\.io\/v1\/runtimeclasses\n {4}# Made by kube-windows join: .*runtimeClassName.*\n\n {4}apiVersion: node\.k8s\.io\/v1\n {4}kind: RuntimeClass\n/m,
    );
    assert.equal(rig.sims[0]!.state.opLog.length, 0, 'a dry run touches no host');
  } finally {
    await rig.stop();
  }
});

test('kube-windows join --via kubeadm --dry-run: the cluster preflight (read only) above the plan; exit 1 when it blocks, 0 when not', async () => {
  for (const [network, code, expect] of [
    [calicoManifest(), 0, /✓ CNI: calico v3\.28\.2 \(DaemonSet kube-system\/calico-node\)/],
    [
      flannel({ Type: 'vxlan', VNI: 1, Port: 8472 }),
      1,
      /✗ flannel's backend does not work with Windows nodes: VNI is 1 \(must be 4096\), Port is 8472 \(must be 4789\)/,
    ],
  ] as const) {
    const rig = await kubeadmRig(1, {}, network);
    try {
      const writesBefore = rig.emu.requests.filter((r) => r.method !== 'GET').length;
      const r = await runCli([
        'join',
        '--via',
        'kubeadm',
        '--dry-run',
        '--kubeconfig',
        rig.kubeconfigPath,
        '--context',
        'emulator',
        '--address',
        '10.1.2.3',
        '--payload',
        payloadDir,
      ]);
      assert.equal(r.code, code, r.stderr + r.stdout);
      assert.match(r.stdout, expect);
      const pre = r.stdout.indexOf('Cluster preflight (read only):');
      assert.ok(pre >= 0 && pre < r.stdout.indexOf('STEP 1/'), 'the findings come above the plan');
      assert.match(r.stdout, /✓ kubelet v1\.31\.3 is within the version skew policy/);
      assert.equal(
        rig.emu.requests.filter((x) => x.method !== 'GET').length,
        writesBefore,
        'the dry run wrote nothing',
      );
      assert.equal(rig.sims[0]!.state.opLog.length, 0, 'nor touched a host');
    } finally {
      await rig.stop();
    }
  }
});

test('kubeadm remove: cordon, kubeadm reset on the host, delete the Node', async () => {
  const rig = await kubeadmRig(1, { containersFeature: 'Enabled' });
  try {
    const { plan, ctx, host } = planFor(rig, 0);
    assert.equal((await runPlan(plan, ctx, {})).outcome, 'done');
    host.close();
    const removeHost = rig.hostFor(0);
    const opts = { kube: rig.kube, host: removeHost, nodeName: 'win-k0', address: rig.addresses[0] as string };
    const r = await runPlan(buildKubeadmRemovePlan(opts), opts, {});
    removeHost.close();
    assert.equal(r.outcome, 'done', JSON.stringify(r.error));
    assert.equal(rig.emu.get('Node', 'win-k0'), undefined);
    assert.ok(rig.sims[0]!.state.opLog.some((o) => o.name === 'kubeadm-reset'));
    assert.equal(rig.sims[0]!.state.files.get('c:\\etc\\kubernetes\\kubelet.conf'), undefined);
  } finally {
    await rig.stop();
  }
});
