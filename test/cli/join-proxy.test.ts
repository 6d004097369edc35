// `join --via byoh` with --proxy or --no-proxy: refused in one line before anything runs (WMCO takes
// the cluster-wide proxy from proxies.config.openshift.io/cluster), whether BYOH was asked for or
// found (an OpenShift cluster); and the BYOH plan's dry run shows its proxy preflight step.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
