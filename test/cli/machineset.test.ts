// `kube-windows machineset create|follow|scale|delete-machine` against the API emulator, with the
// machine-controller double doing what the machine-api controllers and WMCO do: per platform the
// --dry-run YAML compared with WMCO's documented example, create + follow to Ready nodes, refusals,
// a stall explained, scale through the scale subresource and delete-machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { namespace, wmcoCsv } from '../support/kube-seed';
import {
  CLUSTER,
  infrastructure,
  linuxWorkerMachineSet,
  PLATFORMS,
  REFUSED_AMI,
  wmcoReference,
  type Platform,
} from '../support/machine-api-seed';
import { startMachineControllerDouble } from '../support/machine-controller-double';
import { runCli } from '../support/run-cli';

const WMCO_NS = 'openshift-windows-machine-config-operator';
const NS = 'openshift-machine-api';

const run = (args: string[]) => runCli(args);

const secret = (name: string, ns: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: ns },
  type: 'Opaque',
  data,
});
const KEY = secret(WMCO_NS, WMCO_NS, {});
KEY.metadata.name = 'cloud-private-key';
KEY.data = {
  'private-key.pem': Buffer.from(
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
  ).toString('base64'),
};
const USER_DATA = secret('windows-user-data', NS, {
  userData: Buffer.from(
    '<powershell>Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0</powershell><persist>true</persist>',
  ).toString('base64'),
});

interface Cluster {
  emu: Emulator;
  kubeconfig: string;
  base: string[];
  stop(): Promise<void>;
}

async function cluster(
  platform: Platform | 'BareMetal',
  opts: { wmco?: boolean; key?: boolean; userData?: boolean; double?: boolean; version?: string } = {},
): Promise<Cluster> {
  const objects: KubeObject[] = [
    namespace(NS),
    namespace(WMCO_NS, { 'openshift.io/cluster-monitoring': 'true' }),
    infrastructure(platform),
    linuxWorkerMachineSet(platform === 'BareMetal' ? 'AWS' : platform),
  ];
  // The ClusterVersion as the cluster-version operator keeps it (status.desired.version).
  if (opts.version)
    objects.push({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '1b2c3d4e' },
      status: { desired: { version: opts.version } },
    } as KubeObject);
  if (opts.wmco !== false) objects.push(wmcoCsv());
  if (opts.key !== false) objects.push(KEY);
  if (opts.userData !== false) objects.push(USER_DATA);
  const emu = await startEmulator({ objects });
  // A step of every Machine every 120 ms: slower than the follow polls (40 ms), so that each stage is seen happen.
  const double = opts.double ? startMachineControllerDouble(emu, { tickMs: 120 }) : undefined;
  const kubeconfig = emu.kubeconfig({ context: 'ocp' });
  return {
    emu,
    kubeconfig,
    base: ['--context', 'ocp', '--kubeconfig', kubeconfig],
    async stop() {
      double?.stop();
      await emu.stop();
    },
  };
}

const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== 'GET');

for (const platform of PLATFORMS) {
  test(`${platform}: machineset create --dry-run prints only the MachineSet, equal (parsed) to WMCO's documented one, and changes nothing`, async () => {
    const c = await cluster(platform);
    try {
      const r = await run(['machineset', 'create', ...c.base, '--image', CLUSTER[platform].windowsImage, '--dry-run']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(parseYaml(r.stdout), wmcoReference(platform));
      assert.match(
        r.stderr,
        new RegExp(
          `MachineSet ${CLUSTER[platform].windowsName} \\(${platform}, from ${CLUSTER[platform].linuxName}\\) not created \\(--dry-run\\)`,
        ),
      );
      assert.deepEqual(writes(c.emu), [], 'nothing was written');
      // The MachineSets were listed page by page.
      assert.ok(
        c.emu.requests.some(
          (q) =>
            q.path === `/apis/machine.openshift.io/v1beta1/namespaces/${NS}/machinesets` && /limit=\d+/.test(q.query),
        ),
      );
    } finally {
      await c.stop();
    }
  });

  test(`${platform}: machineset create --yes creates it (server-side dry run first) and follows its Machines to Ready nodes`, async () => {
    const c = await cluster(platform, { double: true });
    try {
      const r = await run([
        'machineset',
        'create',
        ...c.base,
        '--image',
        CLUSTER[platform].windowsImage,
        '--replicas',
        '2',
        '--yes',
        '--poll-interval',
        '40',
      ]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const name = CLUSTER[platform].windowsName;
      const posts = writes(c.emu).filter((q) => q.path.endsWith('/machinesets'));
      assert.deepEqual(
        posts.map((q) => [q.method, q.query, q.status]),
        [
          ['POST', 'dryRun=All', 201],
          ['POST', '', 201],
        ],
      );
      const ms = c.emu.get('MachineSet', name, NS);
      const expected = wmcoReference(platform);
      (expected.spec as { replicas: number }).replicas = 2;
      // Stored as sent (the server adds metadata, the double a status).
      assert.deepEqual(
        {
          ...ms,
          metadata: { name: ms?.metadata.name, namespace: ms?.metadata.namespace, labels: ms?.metadata.labels },
          status: undefined,
        },
        { ...expected, status: undefined },
      );
      const machines = c.emu
        .list('Machine')
        .filter((m) => m.metadata.labels?.['machine.openshift.io/cluster-api-machineset'] === name);
      assert.equal(machines.length, 2);
      for (const m of machines) {
        assert.equal((m.status as { phase: string }).phase, 'Running');
        // A per-Machine "<machine>: node Ready" line is printed only when the follow sees the stage
        // reached while waiting; under load the double may get there before the step's first check
        // (the step is then done at once), so the summary line is what every run prints.
        assert.match(r.stdout, new RegExp(`${m.metadata.name} → node ${m.metadata.name}`));
      }
      for (const stage of [
        'Machines created by the machine controller',
        'Provisioned: the VM exists, WMCO configures it',
        'Running',
        'node registered',
        'WMCO configured the node',
        'node Ready',
      ])
        assert.match(r.stdout, new RegExp(`\\d/6 ${stage}`));
      assert.match(r.stdout, /The API server accepted MachineSet .* in a dry run\.\nMachineSet .* created\./);
      assert.match(r.stdout, /every Machine is a Ready node/);
      assert.match(r.stdout, /^# Windows MachineSet for /m, 'the YAML is shown before it is created');
    } finally {
      await c.stop();
    }
  });
}

test('refused (exit 1): a platform without Windows MachineSets, WMCO not installed, cloud-private-key missing; --dry-run still shows the YAML and says why', async () => {
  const bare = await cluster('BareMetal');
  try {
    const r = await run(['machineset', 'create', ...bare.base, '--image', 'ami-0e2a1f3b5c7d9e0f1', '--dry-run']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /Windows MachineSets are made on AWS, Azure, GCP, vSphere and Nutanix; this cluster's platform is "BareMetal"\. Add Windows nodes with Bring-Your-Own-Host instead/,
    );
  } finally {
    await bare.stop();
  }
  const noWmco = await cluster('AWS', { wmco: false });
  try {
    const r = await run(['machineset', 'create', ...noWmco.base, '--image', 'ami-0e2a1f3b5c7d9e0f1', '--yes']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /WMCO is not installed in namespace openshift-windows-machine-config-operator .*nothing would configure the Windows Machines/,
    );
    assert.deepEqual(writes(noWmco.emu), []);
    const dry = await run(['machineset', 'create', ...noWmco.base, '--image', 'ami-0e2a1f3b5c7d9e0f1', '--dry-run']);
    assert.equal(dry.code, 0);
    assert.equal((parseYaml(dry.stdout) as { kind: string }).kind, 'MachineSet');
    assert.match(dry.stderr, /creating it would be refused now: WMCO is not installed/);
  } finally {
    await noWmco.stop();
  }
  const noKey = await cluster('Azure', { key: false });
  try {
    const r = await run(['machineset', 'create', ...noKey.base, '--image', CLUSTER.Azure.windowsImage, '--yes']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Secret cloud-private-key is missing in namespace openshift-windows-machine-config-operator/,
    );
    assert.match(
      r.stderr,
      /oc create secret generic cloud-private-key --from-file=private-key\.pem=<private key file> -n openshift-windows-machine-config-operator/,
    );
    assert.match(r.stderr, /kube-windows join --context C --address A --key FILE/);
    assert.deepEqual(writes(noKey.emu), []);
  } finally {
    await noKey.stop();
  }
});

test("refused (exit 1) by the release's row of the support table: GCP on OpenShift 4.6; the same platform on 4.16 goes on", async () => {
  const old = await cluster('GCP', { version: '4.6.8' });
  try {
    const r = await run(['machineset', 'create', ...old.base, '--image', CLUSTER.GCP.windowsImage, '--dry-run']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Windows nodes on GCP are not supported on OpenShift 4\.6 \(supported from 4\.12\)/);
    assert.deepEqual(writes(old.emu), []);
  } finally {
    await old.stop();
  }
  const current = await cluster('GCP', { version: '4.16.3' });
  try {
    const r = await run(['machineset', 'create', ...current.base, '--image', CLUSTER.GCP.windowsImage, '--dry-run']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((parseYaml(r.stdout) as { kind: string }).kind, 'MachineSet');
  } finally {
    await current.stop();
  }
});

test('usage errors (exit 2): no --image, an image of another platform, a name too long for Azure, an unknown --from, a stray argument', async () => {
  const c = await cluster('Azure');
  try {
    const cases: [string[], RegExp][] = [
      [[], /machineset create needs --image/],
      [
        ['--image', 'ami-0e2a1f3b5c7d9e0f1'],
        /--image "ami-0e2a1f3b5c7d9e0f1": on Azure the image is a URN, publisher:offer:sku:version .*az vm image list --all --location centralus/,
      ],
      [
        ['--image', CLUSTER.Azure.windowsImage, '--name', 'windows-workers'],
        /--name "windows-workers": on Azure Windows machine names are limited to 15 characters/,
      ],
      [
        ['--image', CLUSTER.Azure.windowsImage, '--from', 'nope'],
        /--from nope: there is no MachineSet of that name in openshift-machine-api \(Linux workers: test-x7k2p-worker-centralus1\)/,
      ],
      [['--image', CLUSTER.Azure.windowsImage, '--replicas', 'two'], /--replicas must be a non-negative number/],
      [['extra', '--image', CLUSTER.Azure.windowsImage], /machineset create takes no NAME argument/],
    ];
    for (const [args, re] of cases) {
      const r = await run(['machineset', 'create', ...c.base, ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
    const bad = await run(['machineset', 'frobnicate', ...c.base]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /machineset takes create, follow, scale or delete-machine, not "frobnicate"/);
    assert.deepEqual(writes(c.emu), []);
  } finally {
    await c.stop();
  }
});

test("a Machine the cloud refuses: the follow stops at once with the machine controller's error and event (exit 1)", async () => {
  const c = await cluster('AWS', { double: true });
  try {
    const r = await run(['machineset', 'create', ...c.base, '--image', REFUSED_AMI, '--yes', '--poll-interval', '40']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /Machine test-x7k2p-windows-worker-us-east-2a-\w{5} failed\./);
    assert.match(
      r.stdout,
      /The cloud refused to create the VM of Machine .* \(InvalidConfiguration: error launching instance: InvalidAMIID\.NotFound: The image id '\[ami-00000000000000000\]' does not exist\)/,
    );
    assert.match(r.stdout, /Event on Machine .*: FailedCreate: CreateError: error launching instance/);
  } finally {
    await c.stop();
  }
});

test('a stall explained: without the windows-user-data secret the Machine stays Provisioned, and the follow says why when the stage times out', async () => {
  const c = await cluster('VSphere', { double: true, userData: false });
  try {
    const r = await run([
      'machineset',
      'create',
      ...c.base,
      '--image',
      CLUSTER.VSphere.windowsImage,
      '--yes',
      '--poll-interval',
      '40',
      '--timeout',
      '0.03',
    ]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /winworker-\w{5} did not reach "Running" within 2 s\./);
    assert.match(r.stdout, /Secret windows-user-data is missing in openshift-machine-api: WMCO writes it when it runs/);
    assert.match(r.stdout, /waiting: winworker-\w{5}: Running/);
  } finally {
    await c.stop();
  }
});

test('scale through the scale subresource (asks first), follow, and delete-machine (the MachineSet replaces it)', async () => {
  const c = await cluster('GCP', { double: true });
  try {
    const name = CLUSTER.GCP.windowsName;
    const created = await run([
      'machineset',
      'create',
      ...c.base,
      '--image',
      CLUSTER.GCP.windowsImage,
      '--yes',
      '--poll-interval',
      '40',
    ]);
    assert.equal(created.code, 0, created.stdout + created.stderr);

    const noTty = await run(['machineset', 'scale', name, '--replicas', '3', ...c.base]);
    assert.equal(noTty.code, 2);
    assert.match(
      noTty.stderr,
      /Scale MachineSet test-x7k2p-windows-worker-a from 1 to 3 replicas in context ocp\?: no terminal to ask on; pass --yes to confirm/,
    );

    const up = await run(['machineset', 'scale', name, '--replicas', '3', ...c.base, '--yes']);
    assert.equal(up.code, 0, up.stderr);
    assert.match(
      up.stdout,
      /MachineSet test-x7k2p-windows-worker-a scaled from 1 to 3 replicas\. Follow the new Machines: kube-windows machineset follow test-x7k2p-windows-worker-a --context ocp/,
    );
    const patch = writes(c.emu).filter((q) => q.method === 'PATCH');
    assert.deepEqual(
      patch.filter((q) => q.path.endsWith('/scale')).map((q) => [q.path, q.status]),
      [[`/apis/machine.openshift.io/v1beta1/namespaces/${NS}/machinesets/${name}/scale`, 200]],
    );
    const followed = await run(['machineset', 'follow', name, ...c.base, '--poll-interval', '40']);
    assert.equal(followed.code, 0, followed.stdout + followed.stderr);
    assert.deepEqual(
      c.emu
        .list('Node')
        .filter((n) => n.metadata.labels?.['kubernetes.io/os'] === 'windows')
        .map((n) => n.metadata.name)
        .sort(),
      c.emu
        .list('Machine')
        .filter((m) => m.metadata.labels?.['machine.openshift.io/cluster-api-machineset'] === name)
        .map((m) => m.metadata.name)
        .sort(),
    );

    const same = await run(['machineset', 'scale', name, '--replicas', '3', ...c.base]);
    assert.equal(same.code, 0);
    assert.match(same.stdout, /already has 3 replicas/);

    const victim = c.emu
      .list('Machine')
      .find((m) => m.metadata.labels?.['machine.openshift.io/cluster-api-machineset'] === name)!.metadata.name;
    const del = await run(['machineset', 'delete-machine', victim, ...c.base, '--yes']);
    assert.equal(del.code, 0, del.stderr);
    assert.match(del.stdout, new RegExp(`Machine ${victim} \\(node ${victim}\\) of MachineSet ${name} deleted\\.`));
    assert.ok(
      writes(c.emu).some(
        (q) =>
          q.method === 'DELETE' && q.path === `/apis/machine.openshift.io/v1beta1/namespaces/${NS}/machines/${victim}`,
      ),
    );
    const again = await run(['machineset', 'follow', name, ...c.base, '--poll-interval', '40']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    const names = c.emu
      .list('Machine')
      .filter((m) => m.metadata.labels?.['machine.openshift.io/cluster-api-machineset'] === name)
      .map((m) => m.metadata.name);
    assert.equal(names.length, 3);
    assert.ok(!names.includes(victim), 'replaced by a new Machine');

    const down = await run(['machineset', 'scale', name, '--replicas', '0', ...c.base, '--yes']);
    assert.equal(down.code, 0);
    assert.match(down.stdout, /scaled from 3 to 0 replicas\.$/m);
    const missing = await run(['machineset', 'delete-machine', 'nope', ...c.base, '--yes']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /there is no Machine "nope" in openshift-machine-api/);
    const noSet = await run(['machineset', 'scale', 'nope', '--replicas', '1', ...c.base, '--yes']);
    assert.equal(noSet.code, 2);
    assert.match(noSet.stderr, /there is no MachineSet "nope"/);
  } finally {
    await c.stop();
  }
});
