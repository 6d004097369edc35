// Proxy-enabled clusters against the REAL kube-apiserver with OpenShift's Proxy CRD
// (proxies.config.openshift.io) and a simulated Windows host whose machine and service environment
// and root store are set and drifted: the cluster row, `nodes proxy` (what the node carries per
// service, what the cluster expects, drift with when it was last seen equal) and the cluster-aware
// finding OCP005 through `check --context`. Its own API server: the Proxy is a cluster singleton
// another suite sets differently.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterSession } from '../../src/cluster/session';
import { nodeProxyText, proxyExpectation, readNodeProxyThroughPod } from '../../src/bootstrap/node-proxy';
import { KubeClient } from '../../src/cluster/kube-client';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { getNode } from '../../src/cluster/nodes';
import { SshConnector } from '../../src/remote/ssh';
import { podExecStandin } from '../support/pod-exec-standin';
import { infoNode } from '../../src/views/items/cluster-info';
import { linuxNode } from '../support/kube-seed';
import { runCli } from '../support/run-cli';
import { setMachineEnv, simProxy, startWindowsHostSim, type SimHost } from '../support/windows-host-sim';
import {
  CONTEXT_ADMIN,
  ensureNamespace,
  expectStatus,
  patchStatus,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

const NODE = uniqueName('kw-proxy-win');
const ADDRESS = '127.0.0.2';
const PROXIES = '/apis/config.openshift.io/v1/proxies';
const PASSWORD = 'pr0xy-s3cret';
const NO_PROXY = '.cluster.local,.svc,10.128.0.0/14,172.30.0.0/16,api-int.test.example.com';

let api: RealApiServer;
let sim: SimHost;
let dir: string;
let ssh: string[];
let caPem: string;
let thumbprint: string;

/** A self-signed CA in PEM, as the proxy's trusted CA bundle holds one. */
function selfSignedCa(where: string): string {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=kube-windows test proxy CA',
      '-keyout',
      join(where, 'ca.key'),
      '-out',
      join(where, 'ca.crt'),
    ],
    { stdio: 'ignore' },
  );
  return readFileSync(join(where, 'ca.crt'), 'utf8');
}

async function setProxy(spec: Record<string, unknown> | undefined, status?: Record<string, unknown>): Promise<void> {
  await api.request(`${PROXIES}/cluster`, { method: 'DELETE' });
  if (!spec) return;
  expectStatus(
    await api.request(PROXIES, {
      body: { apiVersion: 'config.openshift.io/v1', kind: 'Proxy', metadata: { name: 'cluster' }, spec },
    }),
    [201],
    'creating the Proxy',
  );
  if (status) await patchStatus(api, PROXIES, 'cluster', status);
}

const cli = (args: string[]) =>
  runCli([...args, '--kubeconfig', api.kubeconfigPath, '--context', CONTEXT_ADMIN], {
    env: { SSH_AUTH_SOCK: '', XDG_STATE_HOME: join(dir, 'state') },
  });

/** WMCO's work on a node: the machine's proxy variables and the trusted CA in LocalMachine\Root. */
function configureLikeWmco(): void {
  setMachineEnv(sim.state, 'HTTP_PROXY', `http://win:${PASSWORD}@proxy.corp.example:3128`);
  setMachineEnv(sim.state, 'HTTPS_PROXY', `http://win:${PASSWORD}@proxy.corp.example:3128`);
  setMachineEnv(sim.state, 'NO_PROXY', NO_PROXY);
  simProxy(sim.state).rootStore.add(thumbprint);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-proxy-'));
  caPem = selfSignedCa(dir);
  thumbprint = new X509Certificate(caPem).fingerprint.replace(/:/g, '');
  const keyPath = join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyPath]);
  sim = await startWindowsHostSim({
    listenHost: ADDRESS,
    users: { Administrator: [readFileSync(`${keyPath}.pub`, 'utf8').trim()] },
    hostname: 'WIN-PROXY',
    services: {
      containerd: { status: 'Running' },
      kubelet: { status: 'Running' },
      'kube-proxy': { status: 'Running' },
      'hybrid-overlay-node': { status: 'Running' },
      'windows-instance-config-daemon': { status: 'Running' },
    },
  });
  writeFileSync(join(dir, 'known_hosts'), sim.knownHostsLine() + '\n', { mode: 0o600 });
  ssh = [
    '--user',
    'Administrator',
    '--key',
    keyPath,
    '--port',
    String(sim.port),
    '--known-hosts',
    join(dir, 'known_hosts'),
  ];
  api = await useApiServer({ own: true });
  const node = linuxNode(NODE) as SeedObject;
  node.metadata.labels = {
    ...node.metadata.labels,
    'kubernetes.io/os': 'windows',
    'node.kubernetes.io/windows-build': '10.0.20348',
  };
  (node.status as Record<string, unknown>).addresses = [{ type: 'InternalIP', address: ADDRESS }];
  await seed(api, [
    node,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'user-ca-bundle', namespace: 'openshift-config' },
      data: { 'ca-bundle.crt': caPem },
    } as SeedObject,
  ]);
  await setProxy(
    {
      httpProxy: `http://win:${PASSWORD}@proxy.corp.example:3128`,
      httpsProxy: `http://win:${PASSWORD}@proxy.corp.example:3128`,
      noProxy: 'api-int.test.example.com',
      trustedCA: { name: 'user-ca-bundle' },
    },
    {
      httpProxy: `http://win:${PASSWORD}@proxy.corp.example:3128`,
      httpsProxy: `http://win:${PASSWORD}@proxy.corp.example:3128`,
      noProxy: NO_PROXY,
    },
  );
});

after(async () => {
  await sim?.stop();
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the cluster row says a cluster-wide proxy is configured: addresses, NO_PROXY, the CA ConfigMap, the release support', async () => {
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  const session = new ClusterSession(CONTEXT_ADMIN, kc);
  try {
    const changed = new Promise<void>((resolve) => {
      const off = session.onChange((topic) => {
        if (topic === 'info' && session.state?.status === 'connected' && session.state.info.proxy) {
          off();
          resolve();
        }
      });
    });
    const state = await session.connect();
    assert.equal(state.status, 'connected');
    await changed;
    assert.ok(state.status === 'connected' && state.info.proxy);
    const row = infoNode('c/info', state.info);
    assert.match(row.label, /proxy http:\/\/proxy\.corp\.example:3128$/);
    const tip = String(row.tooltip).replace(/\\(.)/g, '$1'); // Markdown escapes off
    assert.match(
      tip,
      /Cluster-wide proxy: HTTP http:\/\/proxy\.corp\.example:3128, HTTPS http:\/\/proxy\.corp\.example:3128 \(with credentials, not shown\)/,
    );
    assert.match(tip, /NO_PROXY: \.cluster\.local, \.svc, 10\.128\.0\.0\/14/);
    assert.match(tip, /ConfigMap openshift-config\/user-ca-bundle/);
    assert.match(
      tip,
      /On Windows: supported on Windows nodes from OpenShift 4\.14 \(WMCO 9\.0\.0\); the cluster's release is unknown/,
    );
    assert.ok(!tip.includes(PASSWORD) && !row.label.includes(PASSWORD), 'the password never reaches the row');
  } finally {
    session.dispose();
  }
});

test('nodes proxy: equal settings exit 0; a drifted machine variable, a service override and a missing CA are named with when they were last equal', async () => {
  configureLikeWmco();
  const equal = await cli(['nodes', 'proxy', NODE, ...ssh]);
  assert.equal(equal.code, 0, equal.stderr + equal.stdout);
  assert.match(equal.stdout, /^Expected \(proxies\.config\.openshift\.io\/cluster\):$/m);
  assert.match(equal.stdout, /^ {2}HTTP_PROXY {2}http:\/\/proxy\.corp\.example:3128$/m);
  assert.match(equal.stdout, /^Service containerd \(effective/m);
  assert.match(equal.stdout, /^Service windows-instance-config-daemon \(effective/m);
  assert.match(equal.stdout, /Trusted CA bundle: all 1 certificate in LocalMachine\\Root\./);
  assert.match(equal.stdout, /The proxy settings match what the cluster expects\./);
  const seen = JSON.parse(readFileSync(join(dir, 'state', 'kube-windows', 'proxy-seen.json'), 'utf8')) as Record<
    string,
    string
  >;
  const lastEqual = seen[`${CONTEXT_ADMIN}/${NODE}`];
  assert.ok(lastEqual);

  // Drift: someone edits NO_PROXY on the machine, gives kubelet its own HTTPS_PROXY and removes the CA.
  setMachineEnv(sim.state, 'no_proxy', '.svc');
  simProxy(sim.state).serviceEnv.set('kubelet', ['HTTPS_PROXY=http://elsewhere:8080']);
  simProxy(sim.state).rootStore.clear();
  const drift = await cli(['nodes', 'proxy', NODE, ...ssh]);
  assert.equal(drift.code, 1, drift.stderr);
  assert.match(drift.stdout, /^ {2}NO_PROXY {4}\.svc {2}≠ expected \.cluster\.local,\.svc,/m);
  assert.match(
    drift.stdout,
    /^ {2}HTTPS_PROXY http:\/\/elsewhere:8080 \[service\] {2}≠ expected http:\/\/proxy\.corp\.example:3128$/m,
  );
  assert.match(drift.stdout, /1 certificate of 1 missing from LocalMachine\\Root \(/);
  assert.match(
    drift.stdout,
    new RegExp(
      `Drift: machine NO_PROXY, kubelet HTTPS_PROXY, trusted CA bundle differ from what the cluster expects \\(WMCO reconciles this periodically; last seen equal ${lastEqual.replace(/\./g, '\\.')} `,
    ),
  );
  assert.ok(!(drift.stdout + drift.stderr + equal.stdout).includes(PASSWORD), 'credentials never printed');
  simProxy(sim.state).serviceEnv.delete('kubelet');
  configureLikeWmco();
});

test('check --context: OCP005 on a Windows container that fetches from the internet, naming the proxy; none once the cluster has no proxy', async () => {
  const file = join(dir, 'fetch.yaml');
  writeFileSync(
    file,
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: fetch, namespace: shop}
spec:
  selector: {matchLabels: {app: fetch}}
  template:
    metadata: {labels: {app: fetch}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows}
      containers:
        - name: app
          image: mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022
          command: [pwsh, -c, "Install-Module Pester -Force; Start-Sleep 3600"]
`,
  );
  type Report = { files: { findings: { ruleId: string; severity: string; message: string }[] }[] };
  const ocp005 = (stdout: string) =>
    (JSON.parse(stdout) as Report).files.flatMap((f) => f.findings).filter((f) => f.ruleId === 'OCP005');
  const withProxy = await cli(['check', file, '--format', 'json']);
  assert.ok(withProxy.code === 0 || withProxy.code === 1, withProxy.stderr);
  const [f, ...more] = ocp005(withProxy.stdout);
  assert.equal(more.length, 0);
  assert.equal(f?.severity, 'info');
  assert.match(f?.message ?? '', /\(Install-Module\).*through the proxy http:\/\/proxy\.corp\.example:3128/);
  assert.match(f?.message ?? '', /The proxy takes credentials, left out here/);
  assert.ok(!withProxy.stdout.includes(PASSWORD));

  await setProxy(undefined);
  try {
    const without = await cli(['check', file, '--format', 'json']);
    assert.deepEqual(ocp005(without.stdout), [], without.stderr);
  } finally {
    await setProxy(
      { httpProxy: 'http://proxy.corp.example:3128', trustedCA: { name: 'user-ca-bundle' } },
      { httpProxy: 'http://proxy.corp.example:3128', noProxy: NO_PROXY },
    );
  }
});

test('nodes proxy without SSH: the same report and drift verdict, read through a HostProcess pod pinned to the node, deleted after', async () => {
  configureLikeWmco();
  setMachineEnv(sim.state, 'NO_PROXY', '.svc'); // one drifted variable
  const overSsh = await cli(['nodes', 'proxy', NODE, ...ssh]);
  assert.equal(overSsh.code, 1, overSsh.stderr);

  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok);
  const kube = new KubeClient(configForContext(load.config, CONTEXT_ADMIN), { timeoutMs: 10_000 });
  await ensureNamespace(api, 'kube-system');
  const node = await getNode(kube, NODE);
  assert.ok(node);
  const standin = podExecStandin({
    kube,
    nodeName: NODE,
    connector: new SshConnector({
      host: ADDRESS,
      port: sim.port,
      username: 'Administrator',
      privateKeyPath: join(dir, 'id_ed25519'),
      knownHostsPath: join(dir, 'known_hosts'),
      connectTimeoutMs: 10_000,
    }),
  });
  // The node's kubelet, as far as the API server sees it: the pod pinned to it turns Running.
  const PODS = '/api/v1/namespaces/kube-system/pods';
  const made: string[] = [];
  const kubelet = setInterval(() => {
    void (async () => {
      const list = await api.request<{
        items: { metadata: { name: string }; spec: { nodeName?: string }; status?: { phase?: string } }[];
      }>(`${PODS}?labelSelector=app.kubernetes.io%2Fcomponent%3Dnode-shell`, { method: 'GET' });
      for (const p of list.body.items ?? []) {
        if (p.status?.phase === 'Running' || p.spec.nodeName !== NODE) continue;
        made.push(p.metadata.name);
        await patchStatus(api, PODS, p.metadata.name, {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'shell',
              ready: true,
              restartCount: 0,
              image: 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022',
              imageID: '',
              state: { running: { startedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } },
            },
          ],
        }).catch(() => undefined);
      }
    })().catch(() => undefined);
  }, 100);
  try {
    const expected = await proxyExpectation(kube, node);
    const statuses: string[] = [];
    const comparison = await readNodeProxyThroughPod(
      {
        kube,
        config: kube.kubeConfig,
        node,
        exec: { exec: standin.exec } as never,
        startTimeoutMs: 60_000,
        onStatus: (t) => statuses.push(t),
      },
      expected,
    );
    const seen = JSON.parse(readFileSync(join(dir, 'state', 'kube-windows', 'proxy-seen.json'), 'utf8')) as Record<
      string,
      string
    >;
    const throughPod = nodeProxyText(NODE, expected, comparison, seen[`${CONTEXT_ADMIN}/${NODE}`]);
    const minutesAgo = (t: string) => t.replace(/\(\d+ \w+ ago\)|\(just now\)/g, '(…)');
    assert.equal(minutesAgo(throughPod), minutesAgo(overSsh.stdout), 'the same report as over SSH');
    assert.equal(comparison.equal, false, 'the same drift verdict');
    assert.match(
      throughPod,
      /^Drift: .*machine NO_PROXY.* from what the cluster expects \(WMCO reconciles this periodically/m,
    );
    assert.equal(standin.records.length, 1, 'one exec: one round trip');
    assert.equal(standin.records[0]?.container, 'shell');
    assert.equal(made.length, 1);
    assert.match(statuses[0] ?? '', new RegExp(`creating pod kube-system/${made[0]} .* on ${NODE}`));
    const after = await api.request(`${PODS}/${made[0]}`, { method: 'GET' });
    assert.ok(
      after.status === 404 || (after.body as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp,
      'the pod is deleted',
    );

    // The CLI takes the same route when no key and no agent are given; here the API server cannot
    // reach a kubelet for the exec (no real one answers for this node): one line, exit 1, pod deleted.
    const noSsh = await cli(['nodes', 'proxy', NODE]);
    assert.equal(noSsh.code, 1, noSsh.stderr);
    assert.match(
      noSsh.stderr,
      new RegExp(`No SSH key given \\(--key or ssh-agent\\): reading ${NODE} through a HostProcess pod`),
    );
    assert.match(noSsh.stderr, /creating pod kube-system\/kube-windows-shell-/);
    assert.ok(!/\n\s+at /.test(noSsh.stderr), 'no stack');
    assert.equal(made.length, 2);
    const gone = await api.request(`${PODS}/${made[1]}`, { method: 'GET' });
    assert.ok(
      gone.status === 404 || (gone.body as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp,
      'the CLI deleted its pod',
    );
  } finally {
    clearInterval(kubelet);
    configureLikeWmco();
  }
});
