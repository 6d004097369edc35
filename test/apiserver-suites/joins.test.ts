// The cluster side of the joins and of the graceful reboot against the real kube-apiserver: the
// kubeadm path's bootstrap token Secret (the real bootstrap-token authenticator must accept it),
// the discovery CA hash (kubeadm's pin of the cluster CA), and a node that joins exactly as
// kubeadm join and the kubelet do: it reads kube-public/cluster-info anonymously and checks the CA
// against the pin, files a CSR with the bootstrap token, and once that is approved and signed,
// registers its Node with its own client certificate (Node authorizer and NodeRestriction decide).
// Then eviction with PodDisruptionBudgets (the drain of src/bootstrap/reboot.ts).
//
// A server of this file's own: plain Kubernetes (no OpenShift CRDs, so the kubeadm path applies)
// with --enable-bootstrap-token-auth, as kubeadm configures it. There is no controller-manager:
// the test does the approver's, the signer's, the disruption controller's and the kubelet's parts
// where a step waits for them, and says so where it does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { load } from 'js-yaml';
import { loadKubeconfig, configForContext } from '../../src/cluster/kubeconfig';
import { KubeClient } from '../../src/cluster/kube-client';
import { csrCommonName, csrsForNode } from '../../src/cluster/csr';
import { isOpenShift } from '../../src/cluster/openshift';
import { buildKubeadmJoinPlan, discovery, type KubeadmContext } from '../../src/bootstrap/kubeadm';
import { bootstrapTokenSecret, caCertHash, newBootstrapToken } from '../../src/core/windows/kubeadm';
import { buildRebootPlan, type RebootContext, type RebootNode } from '../../src/bootstrap/reboot';
import { runPlan } from '../../src/bootstrap/runner';
import type { Plan } from '../../src/bootstrap/plan';
import type { WindowsHost } from '../../src/remote/windows-host';
import type { HostOp } from '../../src/core/windows/host-ops';
import { clusterInfoKubeconfig, windowsNode } from '../support/kube-seed';
import { calicoManifest, cilium, controlPlaneNode, flannel, kubeadmKubeProxy } from '../support/cni-seed';
import { runCli } from '../support/run-cli';
import {
  CONTEXT_ADMIN,
  ensureNamespace,
  expectStatus,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
  type Status,
} from '../support/real-apiserver';

let api: RealApiServer;
let kube: KubeClient;
let tmp: string;
let caPem: string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  api = await useApiServer({ openshift: false, extraArgs: ['--enable-bootstrap-token-auth'] });
  const load_ = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load_.ok);
  kube = new KubeClient(configForContext(load_.config, CONTEXT_ADMIN), { timeoutMs: 10_000 });
  tmp = mkdtempSync(join(tmpdir(), 'kw-joins-'));
  caPem = api.ca.toString('utf8');
  await kubeadmInit();
});

after(async () => {
  await api?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const pki = () => join(dirname(api.kubeconfigPath), 'pki');

function openssl(args: string[], input?: string): string {
  const r = spawnSync('openssl', args, { cwd: tmp, encoding: 'utf8', input });
  assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** What `kubeadm init` leaves for joining nodes: cluster-info, its anonymous reader, the bootstrappers' right to file CSRs. */
async function kubeadmInit(): Promise<void> {
  const kubeconfig = clusterInfoKubeconfig(api.server, api.ca);
  await ensureNamespace(api, 'kube-public');
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  for (const [path, body] of [
    [
      '/api/v1/namespaces/kube-public/configmaps',
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cluster-info', namespace: 'kube-public' },
        data: { kubeconfig },
      },
    ],
    [
      `${rbac}/namespaces/kube-public/roles`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'kubeadm:bootstrap-signer-clusterinfo', namespace: 'kube-public' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] }],
      },
    ],
    [
      `${rbac}/namespaces/kube-public/rolebindings`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'kubeadm:bootstrap-signer-clusterinfo', namespace: 'kube-public' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeadm:bootstrap-signer-clusterinfo' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }],
      },
    ],
    [
      `${rbac}/clusterrolebindings`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'kubeadm:kubelet-bootstrap' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' },
        subjects: [
          {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'Group',
            name: 'system:bootstrappers:kubeadm:default-node-token',
          },
        ],
      },
    ],
  ] as const) {
    expectStatus(await api.request(path, { body }), [201], `kubeadm init: ${path}`);
  }
}

/** One HTTPS request as someone other than the admin: a bearer token, a client certificate, or nobody. */
function as(
  who: { token?: string; cert?: string; key?: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Status & Record<string, unknown> }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = { Accept: 'application/json' };
  if (who.token) headers.Authorization = `Bearer ${who.token}`;
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(api.server + path),
      { method, headers, ca: api.ca, cert: who.cert, key: who.key },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = { message: text };
          try {
            parsed = JSON.parse(text);
          } catch {
            // plain text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as Status & Record<string, unknown> });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The payload the host-side steps would install (they do not run here). */
const PAYLOAD = {
  containerd: {
    kind: 'url',
    name: 'containerd-1.7.27-windows-amd64.tar.gz',
    url: 'https://example.invalid/containerd.tar.gz',
    sha256: 'a'.repeat(64),
  },
  kubelet: { kind: 'url', name: 'kubelet.exe', url: 'https://example.invalid/kubelet.exe', sha256: 'b'.repeat(64) },
  kubeadm: { kind: 'url', name: 'kubeadm.exe', url: 'https://example.invalid/kubeadm.exe', sha256: 'c'.repeat(64) },
};

/** Whether the token stops authenticating within ms. */
async function rejectedWithin(token: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await whoami(token)).status === 401) return true;
    await sleep(250);
  }
  return false;
}

/** The first answer other than 401 within ms: the authenticator reads token Secrets through an informer, so a new one counts only once it has been seen. */
async function acceptedWithin(token: string, ms: number): Promise<Awaited<ReturnType<typeof whoami>>> {
  const end = Date.now() + ms;
  for (;;) {
    const me = await whoami(token);
    if (me.status !== 401 || Date.now() >= end) return me;
    await sleep(250);
  }
}

const whoami = async (token: string) =>
  as({ token }, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });

test('discovery: the API endpoint and CA hash from kube-public/cluster-info, the hash kubeadm documents (openssl over the SubjectPublicKeyInfo)', async () => {
  assert.equal(await isOpenShift(kube), false);
  const d = await discovery(kube, undefined);
  assert.equal(d.endpoint, new URL(api.server).host);
  // kubeadm's documented recipe: openssl x509 -pubkey | openssl rsa/pkey -pubin -outform der | sha256
  const pub = openssl(['x509', '-pubkey', '-noout'], caPem);
  const der = spawnSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: pub });
  assert.equal(der.status, 0);
  assert.equal(d.caHash, `sha256:${createHash('sha256').update(der.stdout).digest('hex')}`);
  // The pin is the CA the server's serving certificate chains to.
  const url = new URL(api.server);
  const serving = await new Promise<X509Certificate>((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: api.ca }, () => {
      const cert = socket.getPeerCertificate(true);
      socket.end();
      resolve(new X509Certificate(cert.raw));
    });
    socket.on('error', reject);
  });
  assert.ok(serving.verify(new X509Certificate(caPem).publicKey));
  assert.equal(caCertHash(caPem), d.caHash);
});

test('the bootstrap token Secret: the real authenticator accepts the token it makes, with kubeadm groups; expired or deleted, it does not', async () => {
  const tok = newBootstrapToken();
  assert.match(tok.token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  await kube.create(
    '/api/v1/namespaces/kube-system/secrets',
    bootstrapTokenSecret(tok.id, tok.secret, new Date(Date.now() + 3_600_000), 'kube-windows test'),
  );
  const me = await acceptedWithin(tok.token, 10_000);
  assert.equal(me.status, 201, JSON.stringify(me.body));
  const user = (me.body.status as unknown as { userInfo: { username: string; groups: string[] } }).userInfo;
  assert.equal(user.username, `system:bootstrap:${tok.id}`);
  assert.deepEqual([...user.groups].sort(), [
    'system:authenticated',
    'system:bootstrappers',
    'system:bootstrappers:kubeadm:default-node-token',
  ]);
  // A wrong secret for the same id.
  const wrong = await whoami(`${tok.id}.${'x'.repeat(16)}`);
  assert.equal(wrong.status, 401, JSON.stringify(wrong.body));
  // Deleted (as the join step does once the node registered): the token dies, within the API
  // server's token cache time (10 s for a success) and its informer's delay.
  await kube.delete(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${tok.id}`);
  assert.ok(await rejectedWithin(tok.token, 20_000), 'the deleted token still authenticates after 20 s');
  // Expired: the authenticator reads `expiration` (RFC 3339, as the Secret writes it).
  const old = newBootstrapToken();
  await kube.create(
    '/api/v1/namespaces/kube-system/secrets',
    bootstrapTokenSecret(old.id, old.secret, new Date(Date.now() - 60_000), 'expired'),
  );
  assert.equal((await whoami(old.token)).status, 401);
});

/**
 * A Windows host whose only command is `kubeadm join`, doing what kubeadm and then the kubelet do
 * against the API server. The approver and signer of the controller-manager are played here too
 * (admin approval, a certificate signed with the test CA), since the kubelet waits for them.
 */
function joiningHost(log: string[]): WindowsHost {
  const run = async (op: HostOp<unknown>): Promise<unknown> => {
    assert.equal(op.name, 'kubeadm-join', `unexpected host op ${op.name}`);
    const { Endpoint, Token, CaCertHash, NodeName } = op.params as Record<string, string>;
    // kubeadm: cluster-info, read anonymously, and its CA checked against the pin.
    const info = await as({}, 'GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info');
    assert.equal(info.status, 200, `anonymous cluster-info: ${JSON.stringify(info.body)}`);
    const kc = load((info.body.data as { kubeconfig: string }).kubeconfig) as {
      clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    };
    const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
    if (caCertHash(ca) !== CaCertHash)
      return {
        exitCode: 1,
        output: `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${caCertHash(ca)}" are pinned`,
      };
    assert.equal(new URL(kc.clusters[0].cluster.server).host, Endpoint);
    log.push('discovery ok');
    // kubelet TLS bootstrap: a key and a CSR for system:node:<name>, filed with the bootstrap token.
    openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'kubelet.key',
      '-out',
      'kubelet.csr',
      '-subj',
      `/O=system:nodes/CN=system:node:${NodeName}`,
    ]);
    const csrName = `node-csr-${randomBytes(6).toString('hex')}`;
    const csr = await as({ token: Token }, 'POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: csrName },
      spec: {
        request: readFileSync(join(tmp, 'kubelet.csr')).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        usages: ['digital signature', 'client auth'],
      },
    });
    if (csr.status !== 201)
      return {
        exitCode: 1,
        output: `error: failed to run Kubelet: cannot create certificate signing request: ${csr.body.message}`,
      };
    log.push(`csr ${csrName} by ${String((csr.body.spec as { username: string }).username)}`);
    // The controller-manager's approver and signer.
    const approval = {
      ...csr.body,
      status: {
        conditions: [
          {
            type: 'Approved',
            status: 'True',
            reason: 'AutoApproved',
            message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
          },
        ],
      },
    };
    expectStatus(
      await api.request(`/apis/certificates.k8s.io/v1/certificatesigningrequests/${csrName}/approval`, {
        method: 'PUT',
        body: approval,
      }),
      [200],
      'approve',
    );
    writeFileSync(
      join(tmp, 'client.ext'),
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
    );
    openssl([
      'x509',
      '-req',
      '-in',
      'kubelet.csr',
      '-CA',
      join(pki(), 'ca.crt'),
      '-CAkey',
      join(pki(), 'ca.key'),
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-days',
      '1',
      '-extfile',
      'client.ext',
      '-out',
      'kubelet.crt',
    ]);
    const approved = expectStatus(
      await api.request<Record<string, unknown>>(`/apis/certificates.k8s.io/v1/certificatesigningrequests/${csrName}`),
      [200],
      'csr',
    );
    const signed = {
      ...approved,
      status: {
        ...(approved.status as object),
        certificate: readFileSync(join(tmp, 'kubelet.crt')).toString('base64'),
      },
    };
    expectStatus(
      await api.request(`/apis/certificates.k8s.io/v1/certificatesigningrequests/${csrName}/status`, {
        method: 'PUT',
        body: signed,
      }),
      [200],
      'sign',
    );
    // The kubelet, now with its own client certificate, registers its Node and reports Ready.
    const cred = {
      cert: readFileSync(join(tmp, 'kubelet.crt'), 'utf8'),
      key: readFileSync(join(tmp, 'kubelet.key'), 'utf8'),
    };
    const node = windowsNode(NodeName, { build: '10.0.20348', address: '10.0.133.9', unmanaged: true }) as SeedObject;
    // A kubeadm kubelet registers without taints (not WMCO's os=Windows); the plan adds its own.
    (node.spec as { taints?: unknown[] }).taints = [];
    const { status, ...spec } = node;
    delete (spec.metadata as Record<string, unknown>).uid;
    delete (spec.metadata as Record<string, unknown>).creationTimestamp;
    const created = await as(cred, 'POST', '/api/v1/nodes', spec);
    if (created.status !== 201)
      return { exitCode: 1, output: `kubelet: unable to register node: ${created.body.message}` };
    const ready = await as(cred, 'PUT', `/api/v1/nodes/${NodeName}/status`, { ...created.body, status });
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    log.push('node registered by the kubelet');
    return { exitCode: 0, output: 'This node has joined the cluster' };
  };
  return { run } as unknown as WindowsHost;
}

test('kubeadm join: the join step makes a token, the host joins as kubeadm and the kubelet would, the token is gone after; Ready and the taint', async () => {
  const nodeName = 'win-kubeadm-1';
  const log: string[] = [];
  const opts = {
    kube,
    host: joiningHost(log),
    address: '10.0.133.9',
    user: 'Administrator',
    payload: PAYLOAD,
    taint: true,
    pollMs: 100,
    timeouts: { join: 20_000, ready: 20_000 },
  } as unknown as Parameters<typeof buildKubeadmJoinPlan>[0];
  const full = buildKubeadmJoinPlan(opts);
  // The host-side steps (containerd, kubelet service …) are the simulated hosts' business (test/integration).
  const plan: Plan<KubeadmContext> = {
    ...full,
    steps: full.steps.filter((s) => ['join', 'node-ready', 'taint'].includes(s.id)),
  };
  const ctx: KubeadmContext = { opts, state: { nodeName } };
  const before = new Set(
    (
      (await kube.get<{ items: { metadata: { name: string } }[] }>('/api/v1/namespaces/kube-system/secrets')).items ??
      []
    ).map((s) => s.metadata.name),
  );
  const result = await runPlan(plan, ctx);
  assert.equal(result.outcome, 'done', JSON.stringify(result.error));
  assert.deepEqual(log.slice(0, 1), ['discovery ok']);
  assert.match(log[1], /^csr node-csr-[0-9a-f]+ by system:bootstrap:[a-z0-9]{6}$/);
  assert.equal(log[2], 'node registered by the kubelet');

  // The token Secret the step made is deleted, and its token no longer authenticates.
  const after = (
    (await kube.get<{ items: { metadata: { name: string } }[] }>('/api/v1/namespaces/kube-system/secrets')).items ?? []
  ).map((s) => s.metadata.name);
  assert.deepEqual(
    after.filter((n) => n.startsWith('bootstrap-token-') && !before.has(n)),
    [],
  );
  assert.equal(ctx.state.tokenId?.length, 6);
  const token = ctx.state.token?.reveal() ?? '';
  assert.match(token, new RegExp(`^${ctx.state.tokenId}\\.[a-z0-9]{16}$`));
  assert.ok(await rejectedWithin(token, 20_000), 'the join token still authenticates 20 s after the join');

  // The CSR, as the cluster keeps it: requested by the bootstrap identity for system:node:<name>.
  const csrs = await csrsForNode(kube, nodeName);
  assert.equal(csrs.length, 1);
  assert.equal(csrs[0].spec.username, `system:bootstrap:${ctx.state.tokenId}`);
  assert.equal(csrCommonName(csrs[0].spec.request), `system:node:${nodeName}`);
  assert.equal(csrs[0].spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');

  // The Node, registered by the node identity, Ready and tainted by the plan.
  const node = await kube.get<RebootNode & { metadata: { managedFields?: { manager?: string }[] } }>(
    `/api/v1/nodes/${nodeName}`,
  );
  assert.ok(
    node.spec?.taints?.some((t) => t.key === 'os' && t.value === 'windows' && t.effect === 'NoSchedule'),
    JSON.stringify(node.spec?.taints),
  );
  // A second run changes nothing.
  const again = await runPlan(plan, { opts, state: { nodeName } });
  assert.equal(again.outcome, 'done');
  assert.ok(again.steps.every((s) => s.outcome === 'skipped'));

  // An os:NoSchedule taint with another value (WMCO's os=Windows): replaced, since the API server
  // keeps taints unique by key and effect and refuses a second one.
  await kube.patch(`/api/v1/nodes/${nodeName}`, {
    spec: { taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] },
  });
  const taint = await runPlan(
    { ...plan, steps: plan.steps.filter((s) => s.id === 'taint') },
    { opts, state: { nodeName } },
  );
  assert.equal(taint.outcome, 'done', JSON.stringify(taint.error));
  assert.deepEqual((await kube.get<RebootNode>(`/api/v1/nodes/${nodeName}`)).spec?.taints, [
    { key: 'os', value: 'windows', effect: 'NoSchedule' },
  ]);
});

test("kubeadm join with a wrong CA pin: the host refuses, the step fails with kubeadm's words and still deletes its token", async () => {
  const nodeName = 'win-kubeadm-pin';
  const opts = {
    kube,
    host: joiningHost([]),
    address: '10.0.133.10',
    user: 'Administrator',
    payload: PAYLOAD,
    pollMs: 100,
    timeouts: { join: 5_000, ready: 5_000 },
  } as unknown as Parameters<typeof buildKubeadmJoinPlan>[0];
  const full = buildKubeadmJoinPlan(opts);
  const plan: Plan<KubeadmContext> = { ...full, steps: full.steps.filter((s) => s.id === 'join') };
  const ctx: KubeadmContext = {
    opts,
    state: { nodeName, endpoint: new URL(api.server).host, caHash: `sha256:${'0'.repeat(64)}` },
  };
  const result = await runPlan(plan, ctx);
  assert.equal(result.outcome, 'failed');
  assert.match(
    result.error?.message ?? '',
    /kubeadm join failed \(exit code 1\):\ncluster CA found in cluster-info ConfigMap is invalid/,
  );
  const secrets = (
    await kube.get<{ items: { metadata: { name: string } }[] }>('/api/v1/namespaces/kube-system/secrets')
  ).items.map((s) => s.metadata.name);
  assert.ok(!secrets.includes(`bootstrap-token-${ctx.state.tokenId}`), 'token deleted after a failed join');
});

// ---------------------------------------------------------------------------------------------
// Eviction with PodDisruptionBudgets

async function readyPod(
  ns: string,
  name: string,
  nodeName: string,
  labels: Record<string, string>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await seed(api, [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, labels, ...extra },
      spec: {
        nodeName,
        os: { name: 'windows' },
        tolerations: [{ key: 'os', operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'app', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' }],
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        startTime: new Date().toISOString(),
      },
    },
  ]);
}

/** The disruption controller's part: the budget's status, as it would compute it. */
async function budgetStatus(
  ns: string,
  name: string,
  allowed: number,
  healthy: number,
  desired: number,
): Promise<void> {
  const pdb = expectStatus(
    await api.request<Record<string, unknown> & { metadata: { generation: number } }>(
      `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}`,
    ),
    [200],
    'pdb',
  );
  expectStatus(
    await api.request(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}/status`, {
      method: 'PUT',
      body: {
        ...pdb,
        status: {
          observedGeneration: pdb.metadata.generation,
          disruptionsAllowed: allowed,
          currentHealthy: healthy,
          desiredHealthy: desired,
          expectedPods: healthy,
        },
      },
    }),
    [200],
    'pdb status',
  );
}

/** The kubelet's part once a pod is evicted: it stops the containers and deletes the pod for good. */
function kubeletFinalizer(nodeName: string): () => Promise<void> {
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const pods = await kube.get<{
        items: { metadata: { name: string; namespace: string; deletionTimestamp?: string } }[];
      }>('/api/v1/pods', { fieldSelector: `spec.nodeName=${nodeName}` });
      for (const p of pods.items) {
        if (p.metadata.deletionTimestamp)
          await api.request(`/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`, {
            method: 'DELETE',
            body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
          });
      }
      await sleep(100);
    }
  })();
  return async () => {
    stop = true;
    await loop;
  };
}

test("drain: eviction refused by a PodDisruptionBudget names the budget and the API server's words; allowed, it evicts and leaves the DaemonSet pod", async () => {
  const nodeName = uniqueName('win-drain');
  const ns = uniqueName('kw-drain');
  await seed(api, [windowsNode(nodeName, { build: '10.0.20348', address: '10.0.134.5' }) as SeedObject]);
  await ensureNamespace(api, ns);
  await readyPod(ns, 'web-0', nodeName, { app: 'web' });
  await readyPod(ns, 'web-1', nodeName, { app: 'web' });
  await readyPod(
    ns,
    'agent-x7k2p',
    nodeName,
    { app: 'agent' },
    {
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          name: 'agent',
          uid: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
          controller: true,
        },
      ],
    },
  );
  expectStatus(
    await api.request(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
      body: {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'web', namespace: ns },
        spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
      },
    }),
    [201],
    'pdb',
  );
  await budgetStatus(ns, 'web', 0, 2, 2);

  const node = await kube.get<RebootNode>(`/api/v1/nodes/${nodeName}`);
  const opts = { kube, host: {} as WindowsHost, node, evictionRetryMs: 1500, pollMs: 200, drainTimeoutMs: 20_000 };
  const full = buildRebootPlan(opts);
  const plan: Plan<RebootContext> = { ...full, steps: full.steps.filter((s) => s.id === 'cordon' || s.id === 'drain') };
  const blocked: RebootContext = { opts, state: {} };
  const first = await runPlan(plan, blocked);
  assert.equal(first.outcome, 'failed');
  assert.equal(first.error?.stepId, 'drain');
  assert.match(
    first.error?.message ?? '',
    new RegExp(
      `blocked by the PodDisruptionBudget ${ns}/web: ${ns}/web-0 \\(The disruption budget web needs 2 healthy pods and has 2 currently\\)`,
    ),
  );
  assert.match(first.error?.message ?? '', new RegExp(`The node ${nodeName} stays cordoned`));
  assert.deepEqual(
    blocked.state.blockedBy?.map((b) => [b.pod, b.pdb]),
    [
      [`${ns}/web-0`, `${ns}/web`],
      [`${ns}/web-1`, `${ns}/web`],
    ],
  );
  assert.equal((await kube.get<RebootNode>(`/api/v1/nodes/${nodeName}`)).spec?.unschedulable, true);

  // A third replica is Ready elsewhere: the controller allows one disruption per spare replica.
  await budgetStatus(ns, 'web', 2, 4, 2);
  const finish = kubeletFinalizer(nodeName);
  const ctx: RebootContext = { opts, state: {} };
  try {
    const second = await runPlan(plan, ctx);
    assert.equal(second.outcome, 'done', JSON.stringify(second.error));
  } finally {
    await finish();
  }
  const left = await kube.get<{ items: { metadata: { name: string } }[] }>('/api/v1/pods', {
    fieldSelector: `spec.nodeName=${nodeName}`,
  });
  assert.deepEqual(
    left.items.map((p) => p.metadata.name),
    ['agent-x7k2p'],
  );
  assert.deepEqual(ctx.state.skipped, [`${ns}/agent-x7k2p (a DaemonSet pod)`]);
  // The eviction subresource counted the disruptions in the budget's status.
  const pdb = expectStatus(
    await api.request<{ status: { disruptionsAllowed: number; disruptedPods?: Record<string, string> } }>(
      `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`,
    ),
    [200],
    'pdb',
  );
  assert.equal(pdb.status.disruptionsAllowed, 0);
  assert.deepEqual(Object.keys(pdb.status.disruptedPods ?? {}).sort(), ['web-0', 'web-1']);
});

test('drain: a pod selected by two PodDisruptionBudgets, which the Eviction API refuses (500): the error names both', async () => {
  const nodeName = uniqueName('win-drain');
  const ns = uniqueName('kw-drain');
  await seed(api, [windowsNode(nodeName, { build: '10.0.20348', address: '10.0.134.6' }) as SeedObject]);
  await ensureNamespace(api, ns);
  await readyPod(ns, 'api-0', nodeName, { app: 'api', tier: 'backend' });
  for (const [name, selector] of [
    ['api', { app: 'api' }],
    ['backend', { tier: 'backend' }],
  ] as const) {
    expectStatus(
      await api.request(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
        body: {
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          metadata: { name, namespace: ns },
          spec: { maxUnavailable: 1, selector: { matchLabels: selector } },
        },
      }),
      [201],
      'pdb',
    );
    await budgetStatus(ns, name, 1, 1, 0);
  }
  const node = await kube.get<RebootNode>(`/api/v1/nodes/${nodeName}`);
  const opts = { kube, host: {} as WindowsHost, node, evictionRetryMs: 1000, pollMs: 200, drainTimeoutMs: 5000 };
  const full = buildRebootPlan(opts);
  const plan: Plan<RebootContext> = { ...full, steps: full.steps.filter((s) => s.id === 'drain') };
  const result = await runPlan(plan, { opts, state: {} });
  assert.equal(result.outcome, 'failed');
  assert.match(
    result.error?.message ?? '',
    new RegExp(
      `Cannot evict ${ns}/api-0: it is selected by several PodDisruptionBudgets \\(${ns}/api, ${ns}/backend\\)`,
    ),
  );
});

// ---- kube-windows join --via kubeadm --dry-run against the real API server --------------------
// The cluster part of the preflight only reads; the CLI prints its findings above the plan and exits
// 1 when one blocks. The clusters are made of the objects their installers create (test/support/
// cni-seed.ts): a Linux control-plane Node, kubeadm's kube-proxy, and Calico (calico-node DaemonSet,
// the manifest install) or Flannel (kube-flannel-ds and kube-flannel-cfg). The generated Windows
// networking objects are sent to the server with dryRun=All: it accepts them as valid objects.

function payloadDir(containerd = 'containerd-1.7.27-windows-amd64.tar.gz'): string {
  const dir = mkdtempSync(join(tmp, 'payload-'));
  writeFileSync(join(dir, containerd), randomBytes(64));
  writeFileSync(join(dir, 'kubelet.exe'), randomBytes(64));
  writeFileSync(join(dir, 'kubeadm.exe'), randomBytes(64));
  return dir;
}

/** Creates the objects, runs fn, and deletes them again (the file's server is shared by its tests). */
async function withCluster(objects: SeedObject[], fn: () => Promise<void>): Promise<void> {
  const created = await seed(
    api,
    objects.filter((o) => o.kind !== 'Namespace'),
  );
  try {
    await fn();
  } finally {
    for (const o of [...created].reverse() as {
      apiVersion: string;
      kind: string;
      metadata: { name: string; namespace?: string; selfLink?: string };
    }[]) {
      const group = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
      const plural = `${o.kind.toLowerCase()}s`.replace(/ys$/, 'ies');
      await api.request(
        `${group}${o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : ''}/${plural}/${o.metadata.name}`,
        { method: 'DELETE' },
      );
    }
  }
}

const dryRun = (extra: string[] = [], payload = payloadDir()) =>
  runCli([
    'join',
    '--via',
    'kubeadm',
    '--dry-run',
    '--context',
    CONTEXT_ADMIN,
    '--kubeconfig',
    api.kubeconfigPath,
    '--address',
    '10.0.140.20',
    '--payload',
    payload,
    '--taint',
    '--runtime-class',
    ...extra,
  ]);

const serverVersion = async () => (await kube.get<{ gitVersion: string }>('/version')).gitVersion;

/** The preflight block (above the first STEP) of a dry run's output. */
const preflightOf = (stdout: string) =>
  stdout.slice(stdout.indexOf('Cluster preflight (read only):'), stdout.indexOf('STEP 1/'));

test('join --via kubeadm --dry-run, Calico cluster: the preflight passes above the plan (exit 0); the plan shows every step and the Windows networking objects, which the server accepts', async () => {
  const version = await serverVersion();
  await withCluster(
    [
      controlPlaneNode('kw-cp-1') as SeedObject,
      ...(kubeadmKubeProxy(api.server, version) as SeedObject[]),
      ...(calicoManifest('v3.28.2') as SeedObject[]),
    ],
    async () => {
      const r = await dryRun();
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const pre = preflightOf(r.stdout);
      assert.ok(
        pre.length > 0 && r.stdout.indexOf('Cluster preflight') < r.stdout.indexOf('STEP 1/'),
        'the findings come above the plan',
      );
      assert.match(pre, /✓ The control plane runs Linux \(kw-cp-1\)/);
      assert.match(pre, /✓ CNI: calico v3\.28\.2 \(DaemonSet kube-system\/calico-node\)/);
      assert.match(pre, new RegExp(`✓ kubelet ${version.replace(/\./g, '\\.')} is within the version skew policy`));
      assert.match(pre, /✓ containerd 1\.7\.27 runs HostProcess containers/);
      assert.doesNotMatch(pre, /✗/);
      for (const id of [
        'preflight',
        'kube-binaries',
        'kubelet-service',
        'join',
        'taint',
        'windows-networking',
        'node-ready',
        'networking-pods',
        'runtime-class',
        'probe',
      ])
        assert.match(r.stdout, new RegExp(`STEP \\d+/17  ${id} `), id);
      assert.match(r.stdout, /calico-node-windows/);
      assert.match(
        r.stdout,
        /^ {4}# Made by kube-windows join for the cluster's calico v3\.28\.2 \(found: DaemonSet kube-system\/calico-node\)/m,
      );
      assert.match(
        r.stdout,
        new RegExp(`sigwindowstools/kube-proxy:${version.replace(/\./g, '\\.')}-calico-hostprocess`),
      );
      assert.match(r.stdout, /--register-with-taints=os=windows:NoSchedule/);
      assert.doesNotMatch(r.stdout, /[a-z0-9]{6}\.[a-z0-9]{16}/, 'no token');
    },
  );
  // The objects the windows-networking step would create, as the server validates them (dryRun=All, strict).
  const { windowsNetworkingObjects, runtimeClassFor, probePod } =
    await import('../../src/core/windows/kubeadm-networking');
  const { objectPaths } = await import('../../src/cluster/networking');
  await ensureNamespace(api, 'kube-flannel');
  for (const cni of [
    { kind: 'calico' as const, via: 'x', namespace: 'kube-system', daemonSet: 'calico-node', version: 'v3.28.2' },
    { kind: 'flannel' as const, via: 'x', namespace: 'kube-flannel', daemonSet: 'kube-flannel-ds', version: 'v0.25.6' },
  ]) {
    for (const o of [
      ...windowsNetworkingObjects({
        cni,
        serverVersion: version,
        endpoint: '10.0.0.10:6443',
        serviceSubnet: '10.96.0.0/12',
      }),
      runtimeClassFor(26100)!,
      probePod('win-1', 26100),
    ]) {
      const r = await api.request(`${objectPaths(o).collection}?dryRun=All&fieldValidation=Strict`, { body: o });
      assert.equal(r.status, 201, `${o.kind} ${o.metadata.name}: ${JSON.stringify(r.body)}`);
    }
  }
});

test('join --via kubeadm --dry-run, Flannel with a wrong backend: exit 1, the finding says exactly what to change, above the plan', async () => {
  await withCluster(
    [controlPlaneNode('kw-cp-2') as SeedObject, ...(flannel({ Type: 'vxlan' }) as SeedObject[])],
    async () => {
      const r = await dryRun();
      assert.equal(r.code, 1, r.stderr + r.stdout);
      const pre = preflightOf(r.stdout);
      assert.match(pre, /✓ CNI: flannel v0\.25\.6 \(DaemonSet kube-flannel\/kube-flannel-ds\)/);
      assert.match(
        pre,
        /✗ flannel's backend does not work with Windows nodes: VNI is unset \(flannel defaults to 1\) \(must be 4096\), Port is unset \(flannel defaults to 8472\) \(must be 4789\) in kube-flannel\/kube-flannel-cfg net-conf\.json\n {4}fix: Set "Backend": \{"Type": "vxlan", "VNI": 4096, "Port": 4789\} in kube-flannel\/kube-flannel-cfg net-conf\.json/,
      );
      assert.match(r.stdout, /STEP 1\/17  preflight /, 'the plan is still shown');
      assert.match(r.stderr, /the cluster preflight found problems/);
    },
  );
  // host-gw: the other documented flannel backend, not the one Windows overlay networking needs.
  await withCluster([...(flannel({ Type: 'host-gw' }) as SeedObject[])], async () => {
    const r = await dryRun();
    assert.equal(r.code, 1);
    assert.match(preflightOf(r.stdout), /Type is "host-gw" \(must be "vxlan"\)/);
  });
});

test('join --via kubeadm --dry-run, skewed versions and an unsupported CNI: exit 1 with the policy in words', async () => {
  const version = await serverVersion();
  const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
  await withCluster([...(calicoManifest() as SeedObject[])], async () => {
    const newer = await dryRun(['--kubernetes-version', `v${major}.${minor + 1}.0`]);
    assert.equal(newer.code, 1, newer.stderr + newer.stdout);
    assert.match(
      preflightOf(newer.stdout),
      new RegExp(
        `✗ kubelet v${major}\\.${minor + 1}\\.0 would be newer than the API server \\(${version.replace(/\./g, '\\.')}\\)`,
      ),
    );
    const old = await dryRun(['--kubernetes-version', `v${major}.${minor - 4}.0`]);
    assert.equal(old.code, 1);
    assert.match(preflightOf(old.stdout), /✗ kubelet .* is 4 minor versions older than the API server .* at most 3/);
    const olderKubeadm = await dryRun(['--kubernetes-version', `v${major}.${minor - 1}.0`]);
    assert.equal(olderKubeadm.code, 1);
    assert.match(preflightOf(olderKubeadm.stdout), /✗ kubeadm .* cannot join a v\d+\.\d+ control plane/);
    const oldContainerd = await dryRun([], payloadDir('containerd-1.5.18-windows-amd64.tar.gz'));
    assert.equal(oldContainerd.code, 1);
    assert.match(preflightOf(oldContainerd.stdout), /✗ containerd 1\.5\.18 cannot run HostProcess containers/);
    const bad = await dryRun(['--kubernetes-version', '1.35']);
    assert.equal(bad.code, 2, 'a malformed version is a usage error');
    assert.match(bad.stderr, /--kubernetes-version takes a release version vX\.Y\.Z/);
  });
  await withCluster([...(cilium() as SeedObject[])], async () => {
    const r = await dryRun();
    assert.equal(r.code, 1);
    assert.match(
      preflightOf(r.stdout),
      /✗ No CNI that supports Windows nodes was found \(DaemonSets: kube-system\/cilium\): this network plugin is not supported for Windows/,
    );
  });
});
