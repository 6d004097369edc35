// The calls behind the explorer's pod and node actions (src/cluster/pod-actions.ts) against the REAL
// kube-apiserver: the events field selectors (involvedObject kind, name, namespace and uid; a Node's
// events in every namespace), the owner walk Pod → ReplicaSet → Deployment with the rollout-restart
// merge patch, refusals for bare pods and Jobs, a pod's deletion, and taints written with the
// resourceVersion read (a stale one refused with 409, a duplicate key and effect refused as
// parseTaints refuses it). No controller manager runs: the owners are created by hand, with the uids
// the server gave them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/cluster/kube-client';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { ApiError } from '../../src/cluster/errors';
import { getNode } from '../../src/cluster/nodes';
import {
  deletePodNamed,
  getPod,
  nodeEvents,
  podEvents,
  PodLogError,
  restartTargetOf,
  restartWorkload,
  setNodeTaints,
  streamPodLog,
} from '../../src/cluster/pod-actions';
import { parseTaints } from '../../src/core/workload-actions';
import { linuxNode, pod } from '../support/kube-seed';
import { startKubeletDouble, type KubeletDouble } from '../support/kubelet-double';
import {
  CONTEXT_ADMIN,
  ensureNamespace,
  expectStatus,
  proxyableAddress,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

const NS = uniqueName('kw-podact');
const NODE = uniqueName('kw-podact-node');
const NOW = new Date('2026-11-25T09:30:00.456Z');

let api: RealApiServer;
let kube: KubeClient;
let kubelet: KubeletDouble;
const LOG = 'GET / 200\nGET /cart 500\nGET /health 200\n';

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: app, image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' }] },
});
const ownerRef = (o: Record<string, unknown>) => {
  const m = o.metadata as { name: string; uid: string };
  return {
    apiVersion: String(o.apiVersion),
    kind: String(o.kind),
    name: m.name,
    uid: m.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
};

function podOwnedBy(name: string, owner: Record<string, unknown> | undefined): SeedObject {
  const p = pod(name, NS, NODE, { windows: true }) as SeedObject;
  if (owner) p.metadata.ownerReferences = [ownerRef(owner)];
  return p;
}

function event(name: string, namespace: string, involved: Record<string, string>, message: string): SeedObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: involved,
    reason: 'Failed',
    message,
    type: 'Warning',
    firstTimestamp: '2026-11-25T09:20:00Z',
    lastTimestamp: '2026-11-25T09:25:00Z',
    count: 1,
    source: { component: 'kubelet' },
  };
}

before(async () => {
  api = await useApiServer();
  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok);
  kube = new KubeClient(configForContext(load.config, CONTEXT_ADMIN), { timeoutMs: 10_000 });
  await ensureNamespace(api, NS);
  // The Node points to a kubelet double: pods/log of its pods goes there through the API server.
  kubelet = await startKubeletDouble({ host: proxyableAddress() });
  const node = linuxNode(NODE) as SeedObject;
  node.metadata.labels = { ...node.metadata.labels, 'kubernetes.io/os': 'windows' };
  Object.assign(node.status as object, kubelet.nodeStatus());
  await seed(api, [node]);
});

after(async () => {
  await api?.request(`/api/v1/nodes/${NODE}`, { method: 'DELETE' });
  await api?.request(`/api/v1/namespaces/${NS}`, { method: 'DELETE' });
  await kubelet?.stop();
});

test('restart: Pod → ReplicaSet → Deployment, the restartedAt merge patch accepted; DaemonSet and StatefulSet directly; bare pods and Jobs refused', async () => {
  const [deploy, ds, ss, job] = await seed(api, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template('web') },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: NS },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: NS },
      spec: { serviceName: 'db', replicas: 1, selector: { matchLabels: { app: 'db' } }, template: template('db') },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'batch', namespace: NS },
      spec: {
        template: {
          metadata: { labels: { app: 'batch' } },
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'b', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' }],
          },
        },
      },
    },
  ]);
  const rsObj: SeedObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-7d9f8', namespace: NS, ownerReferences: [ownerRef(deploy!)] },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template('web') },
  };
  const [rs] = await seed(api, [rsObj]);
  await seed(api, [
    podOwnedBy('web-7d9f8-abcde', rs),
    podOwnedBy('agent-x', ds),
    podOwnedBy('db-0', ss),
    podOwnedBy('batch-q', job),
    podOwnedBy('bare', undefined),
  ]);
  const target = async (name: string) => restartTargetOf(kube, (await getPod(kube, NS, name))!);

  const t = await target('web-7d9f8-abcde');
  assert.deepEqual(t, { kind: 'Deployment', namespace: NS, name: 'web' });
  if ('refuse' in t) return;
  await restartWorkload(kube, t, NOW);
  const d = expectStatus(
    await api.request<{ spec: { template: { metadata: { annotations?: Record<string, string> } } } }>(
      `/apis/apps/v1/namespaces/${NS}/deployments/web`,
    ),
    [200],
    'deployment',
  );
  assert.equal(d.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], '2026-11-25T09:30:00Z');

  assert.deepEqual(await target('agent-x'), { kind: 'DaemonSet', namespace: NS, name: 'agent' });
  assert.deepEqual(await target('db-0'), { kind: 'StatefulSet', namespace: NS, name: 'db' });
  for (const kind of ['DaemonSet', 'StatefulSet'] as const) {
    await restartWorkload(kube, { kind, namespace: NS, name: kind === 'DaemonSet' ? 'agent' : 'db' }, NOW);
  }
  const s = expectStatus(
    await api.request<{ spec: { template: { metadata: { annotations?: Record<string, string> } } } }>(
      `/apis/apps/v1/namespaces/${NS}/statefulsets/db`,
    ),
    [200],
    'statefulset',
  );
  assert.equal(s.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], '2026-11-25T09:30:00Z');
  assert.match(((await target('batch-q')) as { refuse: string }).refuse, /belongs to Job batch/);
  assert.match(((await target('bare')) as { refuse: string }).refuse, /is a bare pod/);

  // No kubelet confirms the end of its containers: the pod is marked for deletion (graceful), then gone.
  assert.equal(await deletePodNamed(kube, NS, 'bare'), true);
  const marked = await getPod(kube, NS, 'bare');
  assert.ok(marked === undefined || (marked.metadata as { deletionTimestamp?: string }).deletionTimestamp);
  assert.equal(await deletePodNamed(kube, NS, 'not-there'), false, 'a pod that is gone is no error');
});

test('events: the pod’s own by involvedObject kind, name, namespace and uid (field selectors the server accepts); a Node’s in namespace default', async () => {
  const [p] = await seed(api, [podOwnedBy('evented', undefined)]);
  const uid = (p!.metadata as { uid: string }).uid;
  await seed(api, [
    event('evented.1', NS, { kind: 'Pod', name: 'evented', namespace: NS, uid, apiVersion: 'v1' }, 'this pod'),
    event(
      'evented.2',
      NS,
      { kind: 'Pod', name: 'evented', namespace: NS, uid: 'an-earlier-pod', apiVersion: 'v1' },
      'a pod of the same name before',
    ),
    event('other.1', NS, { kind: 'Pod', name: 'other', namespace: NS, apiVersion: 'v1' }, 'another pod'),
    event(`${NODE}.1`, 'default', { kind: 'Node', name: NODE, uid: NODE, apiVersion: 'v1' }, 'node event in default'),
    event(`${NODE}.2`, 'default', { kind: 'Node', name: 'another-node', apiVersion: 'v1' }, 'another node'),
  ]);
  const own = await podEvents(kube, (await getPod(kube, NS, 'evented'))!);
  assert.deepEqual(
    own.map((e) => e.message),
    ['this pod'],
  );
  const ofNode = await nodeEvents(kube, NODE);
  assert.deepEqual(
    ofNode.map((e) => e.message),
    ['node event in default'],
  );
  // The server keeps a cluster-scoped object's events in default and refuses one elsewhere: reading default is enough.
  const elsewhere = await api.request(`/api/v1/namespaces/${NS}/events`, {
    body: event('misplaced', NS, { kind: 'Node', name: NODE, apiVersion: 'v1' }, 'x'),
  });
  assert.equal(elsewhere.status, 422);
});

test('taints: written with the resourceVersion read (a stale one is refused with 409), a duplicate key and effect refused by the server as by parseTaints', async () => {
  const node = (await getNode(kube, NODE))!;
  const parsed = parseTaints('os=Windows:NoSchedule, dedicated=gpu:NoExecute');
  assert.ok('taints' in parsed);
  const written = await setNodeTaints(kube, node, parsed.taints);
  assert.deepEqual(
    written.spec?.taints?.map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`),
    ['os=Windows:NoSchedule', 'dedicated=gpu:NoExecute'],
  );
  const stale = await setNodeTaints(kube, node, []).catch((e: unknown) => e);
  assert.ok(stale instanceof ApiError && stale.status === 409, `a stale resourceVersion is refused: ${String(stale)}`);

  const now = (await getNode(kube, NODE))!;
  const cleared = await setNodeTaints(kube, now, []);
  assert.equal(cleared.spec?.taints, undefined);

  const dup = [
    { key: 'a', value: 'b', effect: 'NoSchedule' },
    { key: 'a', value: 'c', effect: 'NoSchedule' },
  ];
  assert.ok('error' in parseTaints('a=b:NoSchedule, a=c:NoSchedule'));
  const refused = await setNodeTaints(kube, cleared, dup).catch((e: unknown) => e);
  assert.ok(
    refused instanceof ApiError && refused.status === 422,
    `the server refuses a duplicate too: ${String(refused)}`,
  );
  const badEffect = await setNodeTaints(kube, cleared, [{ key: 'a', effect: 'Sometimes' }]).catch((e: unknown) => e);
  assert.ok(badEffect instanceof ApiError && badEffect.status === 422);
  assert.ok('error' in parseTaints('a:Sometimes'));
});

test('pods/log through the real API server: container, tailLines, follow and previous reach the kubelet as sent; refusals in the server’s and the kubelet’s words', async () => {
  const two = pod('two-containers', NS, NODE, { windows: true }) as SeedObject;
  (two.spec as { containers: object[] }).containers = [
    { name: 'web', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' },
    { name: 'sidecar', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' },
  ];
  await seed(api, [two]);
  kubelet.set({ containerLogs: { [`${NS}/two-containers/web`]: LOG } });
  const read = async (r: Partial<Parameters<typeof streamPodLog>[1]>): Promise<string> => {
    let text = '';
    await streamPodLog(
      kube,
      { namespace: NS, pod: 'two-containers', container: 'web', ...r },
      (c) => (text += c.toString('utf8')),
    );
    return text;
  };
  assert.equal(await read({ tailLines: 2 }), 'GET /cart 500\nGET /health 200\n');
  let got = kubelet.requests.at(-1)!;
  assert.equal(got.path, `/containerLogs/${NS}/two-containers/web`);
  assert.equal(new URLSearchParams(got.query).get('tailLines'), '2');
  assert.equal(await read({ follow: true, tailLines: 200 }), LOG);
  got = kubelet.requests.at(-1)!;
  assert.equal(new URLSearchParams(got.query).get('follow'), 'true');

  const refused = (r: Partial<Parameters<typeof streamPodLog>[1]>) =>
    read(r).then(
      () => assert.fail('refused'),
      (e: unknown) => e as PodLogError,
    );
  const previous = await refused({ previous: true });
  assert.ok(previous instanceof PodLogError);
  assert.equal(new URLSearchParams(kubelet.requests.at(-1)!.query).get('previous'), 'true');
  assert.match(previous.message, /previous terminated container "web" in pod "two-containers" not found/);
  const seen = kubelet.requests.length;
  const wrong = await refused({ container: 'nope' });
  assert.equal(wrong.status, 400);
  // The emulator answers with the same words (test/support/kube-emulator/server.ts podLog).
  assert.equal(wrong.message, 'container nope is not valid for pod two-containers');
  assert.equal(kubelet.requests.length, seen, 'the API server refused it before the kubelet');
});
