// The Kubernetes API emulator (test/support) exercised through @kubernetes/client-node, the client this project uses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:https';
import {
  ApiException,
  CertificatesV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { mixedCluster, pod, WMCO_NAMESPACE } from '../support/kube-seed';

let emu: Emulator;
let kc: KubeConfig;
let core: CoreV1Api;

function clientFor(token?: string): KubeConfig {
  const k = new KubeConfig();
  k.loadFromFile(emu.kubeconfig(token ? { token } : {}));
  return k;
}

/** The Status object carried by a client-node ApiException. */
function statusOf(e: unknown): Record<string, unknown> {
  assert.ok(e instanceof ApiException, `expected ApiException, got ${String(e)}`);
  const body: unknown = (e as ApiException<unknown>).body;
  return typeof body === 'string'
    ? (JSON.parse(body) as Record<string, unknown>)
    : ((body ?? {}) as Record<string, unknown>);
}

async function rejects(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('expected the call to fail');
}

/** A raw GET with the emulator's CA, for what the typed client hides (401 bodies, watch streams). */
function rawGet(path: string, token: string | undefined): Promise<{ status: number; body: string }> {
  const u = new URL(emu.url + path);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        ca: emu.caPem,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  emu = await startEmulator({
    objects: mixedCluster(),
    tokens: {
      'viewer-token': {
        user: 'system:serviceaccount:win-apps:viewer',
        deny: [
          { verb: 'list', resource: 'nodes' },
          { verb: 'delete', resource: 'pods', namespace: 'win-apps' },
        ],
      },
    },
    bookmarkIntervalMs: 200,
  });
  kc = clientFor();
  core = kc.makeApiClient(CoreV1Api);
});

after(async () => {
  await emu.stop();
});

describe('kube API emulator through @kubernetes/client-node', () => {
  test('the generated kubeconfig points at the emulator with its CA and token', () => {
    const text = readFileSync(emu.kubeconfig({ context: 'emu-ctx' }), 'utf8');
    assert.match(text, new RegExp(`server: ${emu.url.replace(/\./g, '\\.')}`));
    assert.match(text, /current-context: "emu-ctx"/);
    assert.equal(kc.getCurrentCluster()?.server, emu.url);
    assert.equal(kc.getCurrentUser()?.token, emu.token);
  });

  test('discovery: /version, /api, /apis with the OpenShift groups', async () => {
    const version = JSON.parse((await rawGet('/version', emu.token)).body) as { major: string; gitVersion: string };
    assert.equal(version.major, '1');
    const apis = JSON.parse((await rawGet('/apis', emu.token)).body) as { kind: string; groups: { name: string }[] };
    assert.equal(apis.kind, 'APIGroupList');
    const names = apis.groups.map((g) => g.name);
    for (const g of ['certificates.k8s.io', 'node.k8s.io', 'config.openshift.io', 'operators.coreos.com'])
      assert.ok(names.includes(g), g);
    const core = JSON.parse((await rawGet('/api/v1', emu.token)).body) as { resources: { name: string }[] };
    assert.ok(core.resources.some((r) => r.name === 'pods/eviction'));
  });

  test('lists nodes with a label selector; items are realistic Windows nodes', async () => {
    const list = await core.listNode({
      labelSelector: 'kubernetes.io/os=windows,node.kubernetes.io/windows-build in (10.0.17763,10.0.20348)',
    });
    assert.deepEqual(list.items.map((n) => n.metadata?.name).sort(), [
      'byoh-win2022-1',
      'winworker-2019-a',
      'winworker-2022-b',
    ]);
    assert.ok(Number(list.metadata?.resourceVersion) > 0);
    const byoh = list.items.find((n) => n.metadata?.name === 'byoh-win2022-1')!;
    assert.equal(byoh.metadata?.labels?.['windowsmachineconfig.openshift.io/byoh'], 'true');
    assert.deepEqual({ ...byoh.spec?.taints?.[0] }, { key: 'os', value: 'Windows', effect: 'NoSchedule' });
    assert.equal(byoh.status?.nodeInfo?.osImage, 'Windows Server 2022 Datacenter');
    const linux = await core.listNode({
      labelSelector: 'kubernetes.io/os!=windows,!windowsmachineconfig.openshift.io/byoh',
    });
    assert.equal(linux.items.length, 3);
    const notin = await core.listNode({
      labelSelector: 'node.openshift.io/os_id notin (rhcos),windowsmachineconfig.openshift.io/byoh',
    });
    assert.deepEqual(
      notin.items.map((n) => n.metadata?.name),
      ['byoh-win2022-1'],
    );
  });

  test('lists pods with fieldSelector spec.nodeName across namespaces', async () => {
    const pods = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=winworker-2022-b' });
    assert.deepEqual(
      pods.items.map((p) => p.metadata?.name),
      ['iis-7c9d5f8b6-abcde'],
    );
    const pending = await core.listNamespacedPod({ namespace: 'win-apps', fieldSelector: 'status.phase!=Running' });
    assert.deepEqual(
      pending.items.map((p) => p.metadata?.name),
      ['iis-7c9d5f8b6-uvwxy'],
    );
  });

  test('limit/continue pages through a consistent list', async () => {
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNode({ limit: 2, _continue: cont });
      names.push(...page.items.map((n) => n.metadata!.name!));
      cont = page.metadata?._continue;
      pages++;
    } while (cont);
    assert.equal(pages, 3);
    assert.equal(names.length, 6);
    assert.equal(new Set(names).size, 6);
  });

  test('a watch on nodes receives MODIFIED after emulator.patch, and bookmarks', async () => {
    const list = await core.listNode({ labelSelector: 'kubernetes.io/os=windows' });
    const events: { type: string; name?: string }[] = [];
    let resolveModified!: () => void;
    const modified = new Promise<void>((r) => (resolveModified = r));
    const ctrl = await new Watch(kc).watch(
      '/api/v1/nodes',
      {
        labelSelector: 'kubernetes.io/os=windows',
        resourceVersion: list.metadata?.resourceVersion,
        allowWatchBookmarks: true,
      },
      (type, obj: KubeObject) => {
        events.push({ type, name: obj.metadata?.name });
        if (type === 'MODIFIED' && events.some((e) => e.type === 'BOOKMARK')) resolveModified();
      },
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 250));
    emu.patch('Node', 'winworker-2019-a', undefined, {
      metadata: { annotations: { 'windowsmachineconfig.openshift.io/reboot-required': '' } },
    });
    emu.patch('Node', 'ip-10-0-21-7.us-east-2.compute.internal', undefined, {
      metadata: { labels: { touched: 'yes' } },
    });
    await modified;
    ctrl.abort();
    assert.deepEqual(
      events.filter((e) => e.type !== 'BOOKMARK'),
      [{ type: 'MODIFIED', name: 'winworker-2019-a' }],
    );
  });

  test('a watch from a compacted resourceVersion gets an ERROR event with a 410 Status', async () => {
    const rv = (await core.listNode({})).metadata!.resourceVersion!;
    emu.patch('Node', 'winworker-2022-b', undefined, { metadata: { labels: { bump: '1' } } });
    emu.compact();
    const res = await rawGet(`/api/v1/nodes?watch=1&resourceVersion=${rv}`, emu.token);
    const ev = JSON.parse(res.body.trim()) as { type: string; object: { kind: string; code: number; reason: string } };
    assert.equal(ev.type, 'ERROR');
    assert.deepEqual([ev.object.kind, ev.object.code, ev.object.reason], ['Status', 410, 'Expired']);
    const fresh = await rawGet(
      `/api/v1/nodes?watch=1&resourceVersion=${(await core.listNode({})).metadata!.resourceVersion}&timeoutSeconds=1`,
      emu.token,
    );
    assert.equal(fresh.body, '');
  });

  test('401 with a bad token, with a Status object', async () => {
    const bad = clientFor('not-a-token').makeApiClient(CoreV1Api);
    const e = await rejects(bad.listNode({}));
    assert.equal((e as ApiException<unknown>).code, 401);
    const raw = await rawGet('/api/v1/nodes', 'not-a-token');
    assert.equal(raw.status, 401);
    assert.deepEqual(JSON.parse(raw.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
    assert.equal((await rawGet('/api/v1/nodes', undefined)).status, 401);
  });

  test('403 from deny rules, worded as the API server words it', async () => {
    const viewer = clientFor('viewer-token').makeApiClient(CoreV1Api);
    const e = await rejects(viewer.listNode({}));
    assert.equal((e as ApiException<unknown>).code, 403);
    const st = statusOf(e);
    assert.equal(st.kind, 'Status');
    assert.equal(st.reason, 'Forbidden');
    assert.equal(
      st.message,
      'nodes is forbidden: User "system:serviceaccount:win-apps:viewer" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    const del = statusOf(
      await rejects(viewer.deleteNamespacedPod({ name: 'iis-7c9d5f8b6-abcde', namespace: 'win-apps' })),
    );
    assert.equal(
      del.message,
      'pods "iis-7c9d5f8b6-abcde" is forbidden: User "system:serviceaccount:win-apps:viewer" cannot delete resource "pods" in API group "" in the namespace "win-apps"',
    );
    const pods = await viewer.listNamespacedPod({ namespace: 'win-apps' });
    assert.ok(pods.items.length > 0);
    assert.equal(
      emu.requests.filter((r) => r.user === 'system:serviceaccount:win-apps:viewer' && r.status === 403).length,
      2,
    );
  });

  test('CSR approval through the approval subresource', async () => {
    emu.apply({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'csr-7xk2p' },
      spec: {
        request: 'LS0tLS1CRUdJTi',
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        usages: ['digital signature', 'client auth'],
        username: 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper',
      },
      status: {},
    });
    const certs = kc.makeApiClient(CertificatesV1Api);
    const csr = await certs.readCertificateSigningRequest({ name: 'csr-7xk2p' });
    csr.status = {
      conditions: [{ type: 'Approved', status: 'True', reason: 'WMCOApprove', message: 'approved by WMCO' }],
    };
    csr.spec.usages = ['server auth'];
    const approved = await certs.replaceCertificateSigningRequestApproval({ name: 'csr-7xk2p', body: csr });
    assert.equal(approved.status?.conditions?.[0].type, 'Approved');
    assert.deepEqual(
      approved.spec.usages,
      ['digital signature', 'client auth'],
      'the approval subresource changes only the conditions',
    );
    assert.ok(Number(approved.metadata?.resourceVersion) > Number(csr.metadata?.resourceVersion));
  });

  test('Eviction create removes the pod', async () => {
    await core.createNamespacedPodEviction({
      name: 'frontend-6f7d8c9b5-pqrst',
      namespace: 'win-apps',
      body: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: 'frontend-6f7d8c9b5-pqrst', namespace: 'win-apps' },
      },
    });
    assert.ok(!emu.list('Pod').some((p) => p.metadata.name === 'frontend-6f7d8c9b5-pqrst'));
    const gone = await rejects(
      core.createNamespacedPodEviction({
        name: 'nope',
        namespace: 'win-apps',
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'nope' } },
      }),
    );
    assert.equal((gone as ApiException<unknown>).code, 404);
  });

  test('merge patch and JSON patch through the library; create conflicts and not-found', async () => {
    const cordoned = await core.patchNode(
      { name: 'winworker-2022-b', body: { spec: { unschedulable: true } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(cordoned.spec?.unschedulable, true);
    const labelled = await core.patchNode({
      name: 'byoh-win2022-1',
      body: [
        { op: 'add', path: '/metadata/labels/windowsmachineconfig.openshift.io~1upgrading', value: 'true' },
        { op: 'remove', path: '/metadata/annotations/windowsmachineconfig.openshift.io~1version' },
      ],
    });
    assert.equal(labelled.metadata?.labels?.['windowsmachineconfig.openshift.io/upgrading'], 'true');
    assert.equal(labelled.metadata?.annotations?.['windowsmachineconfig.openshift.io/version'], undefined);
    const cm = await core.readNamespacedConfigMap({ name: 'windows-instances', namespace: WMCO_NAMESPACE });
    assert.equal(cm.data?.['10.0.140.25'], 'username=Administrator');
    const created = await core.createNamespacedPod({
      namespace: 'win-apps',
      body: pod('iis-new-00001', 'win-apps', undefined, { windows: true }) as never,
    });
    assert.ok(created.metadata?.uid);
    assert.equal(
      (
        (await rejects(
          core.createNamespacedPod({
            namespace: 'win-apps',
            body: pod('iis-new-00001', 'win-apps', undefined) as never,
          }),
        )) as ApiException<unknown>
      ).code,
      409,
    );
    assert.equal(((await rejects(core.readNode({ name: 'missing' }))) as ApiException<unknown>).code, 404);
    const stale = { ...cm, metadata: { ...cm.metadata, resourceVersion: '1' } };
    assert.equal(
      (
        (await rejects(
          core.replaceNamespacedConfigMap({ name: 'windows-instances', namespace: WMCO_NAMESPACE, body: stale }),
        )) as ApiException<unknown>
      ).code,
      409,
    );
  });

  test('fault injection: 500, dropped connection, and a hang beyond a client timeout', async () => {
    emu.setFault({ path: /^\/api\/v1\/nodes$/, status: 500 });
    const e = await rejects(core.listNode({}));
    assert.equal((e as ApiException<unknown>).code, 500);
    assert.equal(statusOf(e).reason, 'InternalError');
    assert.ok((await core.listNamespace({})).items.length >= 5, 'other paths are unaffected');

    emu.setFault({ path: /\/nodes/, dropConnection: true });
    await rejects(core.listNode({}));

    emu.setFault({ path: /\/nodes/, hangMs: 3000 });
    const started = Date.now();
    const timeout = {
      middleware: [
        {
          pre: async (ctx: RequestContext) => {
            ctx.setSignal(AbortSignal.timeout(300));
            return ctx;
          },
          post: async (r: ResponseContext) => r,
        },
      ],
    };
    await rejects(core.listNode({}, timeout as never));
    assert.ok(Date.now() - started < 2000, 'the client gave up before the server answered');
    emu.setFault(undefined);
    emu.setLatency(50);
    const t0 = Date.now();
    await core.listNode({});
    assert.ok(Date.now() - t0 >= 45);
    emu.setLatency(0);
    assert.ok(emu.requests.some((r) => r.status === 500 && r.path === '/api/v1/nodes'));
  });

  test('main resource keeps status, the status subresource keeps everything else', async () => {
    const node = await core.readNode({ name: 'winworker-2019-a' });
    node.status!.conditions = [];
    node.metadata!.labels!['edited'] = 'yes';
    const updated = await core.replaceNode({ name: 'winworker-2019-a', body: node });
    assert.equal(updated.metadata?.labels?.['edited'], 'yes');
    assert.ok((updated.status?.conditions ?? []).length > 0, 'status ignored on the main resource');
    const st = await core.patchNodeStatus(
      {
        name: 'winworker-2019-a',
        body: {
          metadata: { labels: { ignored: 'x' } },
          status: {
            conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'PLEG is not healthy' }],
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(st.status?.conditions?.length, 1);
    assert.equal(st.metadata?.labels?.['ignored'], undefined);
  });

  test('a label-selected watch sees objects enter (ADDED) and leave (DELETED) the selection', async () => {
    const rv = (await core.listNode({})).metadata!.resourceVersion!;
    emu.patch('Node', 'ip-10-0-22-88.us-east-2.compute.internal', undefined, {
      metadata: { labels: { pool: 'special' } },
    });
    emu.patch('Node', 'ip-10-0-22-88.us-east-2.compute.internal', undefined, { metadata: { labels: { pool: null } } });
    const res = await rawGet(
      `/api/v1/nodes?watch=true&labelSelector=pool%3Dspecial&resourceVersion=${rv}&timeoutSeconds=1`,
      emu.token,
    );
    const types = res.body
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    assert.deepEqual(types, ['ADDED', 'DELETED']);
  });

  test('a plain Kubernetes emulator serves no OpenShift groups', async () => {
    const plain = await startEmulator({ objects: [], openshift: false });
    try {
      const get = (path: string) =>
        new Promise<number>((resolve, reject) => {
          const u = new URL(plain.url + path);
          request(
            {
              host: u.hostname,
              port: u.port,
              path: u.pathname,
              ca: plain.caPem,
              headers: { Authorization: `Bearer ${plain.token}` },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          )
            .on('error', reject)
            .end();
        });
      assert.equal(await get('/apis/config.openshift.io/v1/imagedigestmirrorsets'), 404);
      assert.equal(await get('/apis/node.k8s.io/v1/runtimeclasses'), 200);
      assert.throws(
        () => plain.apply({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'x' } }),
        /unsupported kind/,
      );
    } finally {
      await plain.stop();
    }
  });

  test('the emulator stays out of src/ and the shipped bundles', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (
          /\.(ts|js|mjs)$/.test(name) &&
          /test\/support|kube-api-emulator|kube-seed/.test(readFileSync(p, 'utf8'))
        )
          offenders.push(p);
      }
    };
    walk('src');
    for (const f of ['dist/extension.js', 'dist/server.js', 'dist/cli.js'])
      if (existsSync(f) && readFileSync(f, 'utf8').includes('kube-emulator-ca')) offenders.push(f);
    assert.deepEqual(offenders, []);
  });
});
