// `nodes logs --path|--query` and `nodes cordon|drain|uncordon` against the REAL kube-apiserver:
// the node proxy goes to a kubelet double (test/support/kubelet-double.ts) that a Node points to
// through status.addresses (InternalIP) and status.daemonEndpoints.kubeletEndpoint.Port, and the
// eviction API with a PodDisruptionBudget is the server's own.
//
// The API server refuses to proxy to an address that is not global unicast (isProxyableHostname in
// pkg/registry/core/node/strategy.go: loopback and link-local give 400 "address not allowed"), so
// the double listens on this machine's first non-loopback IPv4 address, not on 127.0.0.1. No
// --kubelet-certificate-authority is set, so the server does not check the double's certificate;
// the default --kubelet-preferred-address-types (Hostname, InternalDNS, InternalIP, ...) picks the
// InternalIP, the Node having no other address.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { linuxNode, pod } from '../support/kube-seed';
import { startKubeletDouble, type KubeletDouble } from '../support/kubelet-double';
import { runCli } from '../support/run-cli';
import {
  CONTEXT_ADMIN,
  CONTEXT_RESTRICTED,
  ensureNamespace,
  expectStatus,
  proxyableAddress,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

const NODE = uniqueName('kw-logs-node');
const NS = uniqueName('kw-drain');
const KUBELET_LOG =
  'I0501 10:00:00.000000    4242 server.go:484] "Kubelet version" kubeletVersion="v1.35.4"\nE0501 10:00:05.000000    4242 kubelet.go:2046] "Skipping pod synchronization"\n';
const CONTAINERD =
  'time="2026-05-01T10:00:01Z" level=info msg="starting containerd"\ntime="2026-05-01T10:00:02Z" level=error msg="failed to load cni"\n';

let api: RealApiServer;
let kubelet: KubeletDouble;

const run = (args: string[]) => runCli([...args, '--kubeconfig', api.kubeconfigPath], { env: { SSH_AUTH_SOCK: '' } });

before(async () => {
  api = await useApiServer();
  kubelet = await startKubeletDouble({
    host: proxyableAddress(),
    files: { 'kubelet/kubelet.log': KUBELET_LOG, 'containerd/containerd.log': CONTAINERD },
    services: { containerd: { native: CONTAINERD }, kubelet: { file: 'kubelet/kubelet.log' } },
  });
  const node = linuxNode(NODE) as SeedObject;
  node.metadata.labels = { ...node.metadata.labels, 'kubernetes.io/os': 'windows' };
  (node.status as Record<string, unknown>).addresses = kubelet.nodeStatus().addresses;
  (node.status as Record<string, unknown>).daemonEndpoints = kubelet.nodeStatus().daemonEndpoints;
  await seed(api, [node]);
  await ensureNamespace(api, NS);
});

after(async () => {
  await api?.request(`/api/v1/nodes/${NODE}`, { method: 'DELETE' });
  await api?.request(`/api/v1/namespaces/${NS}`, { method: 'DELETE' });
  await kubelet?.stop();
});

test('nodes logs --path through the real API server: the kubelet double receives GET /logs/kubelet/kubelet.log, the text is printed', async () => {
  const r = await run(['nodes', 'logs', NODE, '--context', CONTEXT_ADMIN, '--path', 'kubelet/kubelet.log']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, KUBELET_LOG);
  assert.deepEqual(kubelet.requests.at(-1), { method: 'GET', path: '/logs/kubelet/kubelet.log', query: '' });
});

test('nodes logs --query --tail --since --pattern through the real API server: the query string arrives as sent', async () => {
  const before = Date.now();
  const r = await run([
    'nodes',
    'logs',
    NODE,
    '--context',
    CONTEXT_ADMIN,
    '--query',
    'containerd',
    '--tail',
    '1',
    '--since',
    '1h',
    '--pattern',
    'level=error',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'time="2026-05-01T10:00:02Z" level=error msg="failed to load cni"\n');
  const got = kubelet.requests.at(-1)!;
  assert.equal(got.path, '/logs/');
  const q = new URLSearchParams(got.query);
  assert.deepEqual([...q.keys()], ['query', 'tailLines', 'sinceTime', 'pattern']);
  assert.equal(q.get('query'), 'containerd');
  assert.equal(q.get('tailLines'), '1');
  assert.equal(q.get('pattern'), 'level=error');
  assert.ok(Math.abs(Date.parse(q.get('sinceTime')!) - (before - 3_600_000)) < 10_000);
});

test('nodes logs through the real API server: the kubelet refusing and a caller without nodes/proxy are explained', async () => {
  kubelet.set({ enableSystemLogQuery: false });
  try {
    const off = await run(['nodes', 'logs', NODE, '--context', CONTEXT_ADMIN, '--query', 'kubelet']);
    assert.equal(off.code, 1);
    assert.match(off.stderr, /ignored the log query.*NodeLogQuery=true/);
    assert.match(off.stderr, /Over SSH instead/);
  } finally {
    kubelet.set({ enableSystemLogQuery: true });
  }
  const seen = kubelet.requests.length;
  const forbidden = await run([
    'nodes',
    'logs',
    NODE,
    '--context',
    CONTEXT_RESTRICTED,
    '--path',
    'kubelet/kubelet.log',
  ]);
  assert.equal(forbidden.code, 1);
  assert.match(
    forbidden.stderr,
    /403: nodes "[^"]+" is forbidden: User "kube-windows-restricted" cannot get resource "nodes\/proxy".*RBAC `get` on the `nodes\/proxy` resource/,
  );
  assert.equal(kubelet.requests.length, seen, 'the server stopped it before the kubelet');
});

test('nodes cordon, drain (the real eviction API refusing for a PodDisruptionBudget) and uncordon', async () => {
  const web = pod('web-1', NS, NODE, { labels: { app: 'web' } }) as SeedObject;
  // Ready: the server evicts a pod that is not Ready in spite of the budget (unhealthyPodEvictionPolicy IfHealthyBudget).
  (web.status as Record<string, unknown>).conditions = [
    { type: 'Ready', status: 'True', lastTransitionTime: '2026-05-01T10:00:00Z' },
    { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-05-01T10:00:00Z' },
  ];
  await seed(api, [
    web,
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web-pdb', namespace: NS },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
      status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
    },
  ]);
  const cordon = await run(['nodes', 'cordon', NODE, '--context', CONTEXT_ADMIN]);
  assert.equal(cordon.code, 0, cordon.stderr);
  const n = expectStatus(
    await api.request<{ spec?: { unschedulable?: boolean } }>(`/api/v1/nodes/${NODE}`),
    [200],
    'node',
  );
  assert.equal(n.spec?.unschedulable, true);

  const drain = await run([
    'nodes',
    'drain',
    NODE,
    '--context',
    CONTEXT_ADMIN,
    '--yes',
    '--timeout',
    '1',
    '--eviction-retry',
    '0',
    '--poll-interval',
    '50',
  ]);
  assert.equal(drain.code, 1, drain.stdout + drain.stderr);
  assert.match(
    drain.stdout,
    new RegExp(
      `blocked by the PodDisruptionBudget ${NS}/web-pdb: ${NS}/web-1 \\(The disruption budget web-pdb needs 1 healthy pods and has 1 currently\\)`,
    ),
  );
  assert.match(drain.stdout, /stays cordoned.*run the drain again/);
  assert.equal((await api.request(`/api/v1/namespaces/${NS}/pods/web-1`)).status, 200, 'the pod is still there');

  const uncordon = await run(['nodes', 'uncordon', NODE, '--context', CONTEXT_ADMIN]);
  assert.equal(uncordon.code, 0, uncordon.stderr);
  const u = expectStatus(
    await api.request<{ spec?: { unschedulable?: boolean } }>(`/api/v1/nodes/${NODE}`),
    [200],
    'node',
  );
  assert.equal(u.spec?.unschedulable, undefined);
});
