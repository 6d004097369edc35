// `join --via byoh` with --proxy or --no-proxy: refused in one line before anything runs (WMCO takes
// the cluster-wide proxy from proxies.config.openshift.io/cluster), whether BYOH was asked for or
// found (an OpenShift cluster); the BYOH plan's dry run shows its proxy preflight step; and
// `machineset create` refuses a proxy no Machine could use before creating anything.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type KubeObject } from '../support/kube-api-emulator';
import { namespace, wmcoCsv } from '../support/kube-seed';
import { CLUSTER, infrastructure, linuxWorkerMachineSet } from '../support/machine-api-seed';
import { startRig, type Rig } from '../support/join-rig';
import { runCli } from '../support/run-cli';

const dir = mkdtempSync(join(tmpdir(), 'kw-join-proxy-'));
const KUBECONFIG = join(dir, 'kubeconfig');
// Nobody answers this cluster: a refusal that needed it would say so instead.
writeFileSync(
  KUBECONFIG,
  `apiVersion: v1
kind: Config
clusters: [{name: nowhere, cluster: {server: 'https://127.0.0.1:1'}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: nowhere, context: {cluster: nowhere, user: u}}]
current-context: nowhere
`,
);
const NOWHERE = ['--kubeconfig', KUBECONFIG, '--context', 'nowhere'];
const REFUSAL = (option: string) =>
  `kube-windows: ${option} is for --via kubeadm: on OpenShift, WMCO gives Windows nodes the cluster-wide proxy of proxies.config.openshift.io/cluster (change it there: oc edit proxy/cluster); \`kube-windows nodes proxy NODE --context C\` and the cluster's row in the explorer show it\n`;

let rig: Rig;
before(async () => {
  // An OpenShift cluster (config.openshift.io served), as the emulator is when it holds one of its objects.
  rig = await startRig({
    hosts: 0,
    objects: [{ apiVersion: 'config.openshift.io/v1', kind: 'Proxy', metadata: { name: 'cluster' }, spec: {} }],
  });
});
after(async () => {
  await rig?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('join --via byoh --proxy and --no-proxy: refused in one line, exit 2, before the cluster is read', async () => {
  for (const args of [
    ['--proxy', 'http://proxy.corp:3128'],
    ['--no-proxy', '.corp'],
    ['--proxy', 'http://proxy.corp:3128', '--no-proxy', '.corp'],
  ]) {
    const r = await runCli(['join', ...NOWHERE, '--via', 'byoh', '--address', '10.0.0.5', ...args, '--dry-run']);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stderr, REFUSAL(args[0] as string), args.join(' '));
    assert.equal(r.stdout, '');
  }
});

test('join --proxy on a cluster found to be OpenShift: the same refusal, and no request but discovery', async () => {
  const before = rig.emu.requests.length;
  const r = await runCli([
    'join',
    '--kubeconfig',
    rig.kubeconfigPath,
    '--context',
    'emulator',
    '--address',
    '10.0.0.5',
    '--proxy',
    'http://proxy.corp:3128',
    '--key',
    rig.keyPath,
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, REFUSAL('--proxy'));
  const seen = rig.emu.requests.slice(before);
  assert.ok(seen.length > 0, 'the cluster was asked what it is');
  assert.ok(
    seen.every((q) => q.method === 'GET' && /^\/apis?(\?|$|\/)/.test(q.path)),
    JSON.stringify(seen.map((q) => `${q.method} ${q.path}`)),
  );
  assert.ok(!seen.some((q) => q.path.includes('windows-instances')), 'nothing of the join was read');
});

test('join --via byoh --dry-run shows the proxy preflight step after the host preflight', async () => {
  const r = await runCli(['join', ...NOWHERE, '--via', 'byoh', '--address', '10.0.0.5', '--dry-run']);
  assert.equal(r.code, 0, r.stderr);
  const pre = r.stdout.indexOf('Check the cluster and the host');
  const proxy = r.stdout.indexOf(
    "Check the cluster's proxy, and that the host reaches it and the registries through it",
  );
  assert.ok(pre >= 0 && proxy > pre, r.stdout);
  assert.match(r.stdout, /done when the cluster has no cluster-wide proxy/);
});

test('machineset create on a proxy no Machine could use: refused before anything is created, the proxy preflight said; --dry-run says why', async () => {
  const NS = 'openshift-windows-machine-config-operator';
  const emu = await startEmulator({
    objects: [
      namespace('openshift-machine-api'),
      namespace(NS, { 'openshift.io/cluster-monitoring': 'true' }),
      infrastructure('AWS'),
      linuxWorkerMachineSet('AWS'),
      wmcoCsv(),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'cloud-private-key', namespace: NS },
        type: 'Opaque',
        data: {
          'private-key.pem': Buffer.from(
            '-----BEGIN OPENSSH PRIVATE KEY-----\nx\n-----END OPENSSH PRIVATE KEY-----\n',
          ).toString('base64'),
        },
      },
      {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Network',
        metadata: { name: 'cluster' },
        spec: { clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }], serviceNetwork: ['172.30.0.0/16'] },
      },
      {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Proxy',
        metadata: { name: 'cluster' },
        spec: { httpsProxy: 'http://proxy.corp:3128', noProxy: '.svc' },
        status: { httpsProxy: 'http://proxy.corp:3128', noProxy: '.svc,.cluster.local' },
      },
    ] as KubeObject[],
  });
  try {
    const base = ['--context', 'ocp', '--kubeconfig', emu.kubeconfig({ context: 'ocp' })];
    const r = await runCli(['machineset', 'create', ...base, '--image', CLUSTER.AWS.windowsImage, '--yes']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /proxy preflight:\n/);
    assert.match(
      r.stderr,
      /✗ NO_PROXY \(the Proxy's status\) leaves the cluster network 10\.128\.0\.0\/14, the service network 172\.30\.0\.0\/16/,
    );
    assert.match(
      r.stderr,
      /✓ Not checked until a Machine exists: that its VM reaches the proxy http:\/\/proxy\.corp:3128/,
    );
    assert.deepEqual(
      emu.requests.filter((q) => q.method !== 'GET').map((q) => q.path),
      [],
      'nothing created',
    );
    const dry = await runCli(['machineset', 'create', ...base, '--image', CLUSTER.AWS.windowsImage, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stderr, /creating it would be refused now: NO_PROXY \(the Proxy's status\) leaves/);
  } finally {
    await emu.stop();
  }
});
