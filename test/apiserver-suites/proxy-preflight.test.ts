// The proxy preflight of the WMCO joins against the REAL kube-apiserver with OpenShift's Proxy,
// ClusterVersion, Network, Infrastructure and mirror set CRDs, a simulated Windows host reached over
// SSH, and REAL HTTP proxies on loopback (tinyproxy: open, restricted to CONNECT on 443, asking for
// credentials). The registry the node pulls from is a TLS server on loopback that answers /v2/ as a
// registry does (401): the release image and an ImageTagMirrorSet point at it, and the mirror's
// NeverContactSource keeps mcr.microsoft.com out of the list, as it keeps it out of the node's pulls.
// BYOH: the step of the real BYOH plan, run against the host; MachineSet: the follow plan's step and
// `machineset create`'s refusal. Its own API server: the Proxy is a cluster singleton.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createTlsServer, type Server } from 'node:https';
import { createServer } from 'node:net';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildByohJoinPlan, type ByohContext } from '../../src/bootstrap/byoh';
import { followMachineSet } from '../../src/bootstrap/machineset-follow';
import { PreflightError } from '../../src/bootstrap/preflight';
import { KubeClient } from '../../src/cluster/kube-client';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { SshConnector } from '../../src/remote/ssh';
import { WindowsHost } from '../../src/remote/windows-host';
import { generateCerts } from '../support/kube-emulator/certs';
import { startTinyproxy, type RealProxy } from '../support/tinyproxy';
import { simProxy, startWindowsHostSim, type SimHost } from '../support/windows-host-sim';
import {
  CONTEXT_ADMIN,
  expectStatus,
  patchStatus,
  seed,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

const PROXIES = '/apis/config.openshift.io/v1/proxies';
const PASSWORD = 'pr0xy-s3cret';

let api: RealApiServer;
let kube: KubeClient;
let sim: SimHost;
let host: WindowsHost;
let dir: string;
let open: RealProxy;
let restricted: RealProxy;
let authed: RealProxy;
let registry: Server;
let registryHost: string;
let deadPort: number;
let caPem: string;

const NO_PROXY = '.cluster.local,.svc,10.128.0.0/14,172.30.0.0/16,api-int.test.example.com';

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

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

/** The Proxy WMCO would apply: this HTTPS proxy, the cluster's own NO_PROXY, the trusted CA bundle. */
const proxyAt = (url: string, noProxy = NO_PROXY, trustedCA = 'user-ca-bundle') =>
  setProxy(
    { httpProxy: url, httpsProxy: url, noProxy: 'api-int.test.example.com', trustedCA: { name: trustedCA } },
    {
      httpProxy: url,
      httpsProxy: url,
      noProxy,
    },
  );

/** The proxy step of the real BYOH plan, with its context. */
function byohStep() {
  const opts = { kube, host, address: '127.0.0.2', user: 'Administrator' };
  const step = buildByohJoinPlan(opts).steps.find((s) => s.id === 'proxy-preflight');
  assert.ok(step, 'the BYOH plan has a proxy-preflight step');
  const ctx: ByohContext = { opts, state: {} };
  return { step, ctx };
}

/** Runs the step's check and apply; the lines it reported and what it threw. */
async function runByoh(): Promise<{ check: string; lines: string[]; error?: PreflightError; ctx: ByohContext }> {
  const { step, ctx } = byohStep();
  const signal = new AbortController().signal;
  const check = String(await step.check(ctx, signal));
  const lines: string[] = [];
  try {
    await step.apply(ctx, signal, (m) => lines.push(m));
    return { check, lines, ctx };
  } catch (err) {
    assert.ok(err instanceof PreflightError, String(err));
    return { check, lines, error: err, ctx };
  }
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-proxy-pre-'));
  const certs = generateCerts();
  caPem = certs.caPem;
  registry = createTlsServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
    res.statusCode = req.url?.startsWith('/v2/') ? 401 : 404; // a registry's anonymous answer
    res.setHeader('Www-Authenticate', 'Bearer realm="https://127.0.0.1/token"');
    res.end();
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  registryHost = `127.0.0.1:${(registry.address() as { port: number }).port}`;
  deadPort = await freePort();
  [open, restricted, authed] = await Promise.all([
    startTinyproxy(),
    startTinyproxy({ connectPorts: [443] }),
    startTinyproxy({ basicAuth: { user: 'win', password: PASSWORD } }),
  ]);

  const keyPath = join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyPath]);
  sim = await startWindowsHostSim({
    listenHost: '127.0.0.2',
    users: { Administrator: [readFileSync(`${keyPath}.pub`, 'utf8').trim()] },
    hostname: 'WIN-BYOH',
  });
  writeFileSync(join(dir, 'known_hosts'), sim.knownHostsLine() + '\n', { mode: 0o600 });
  host = new WindowsHost(
    new SshConnector({
      host: '127.0.0.2',
      port: sim.port,
      username: 'Administrator',
      privateKeyPath: keyPath,
      knownHostsPath: join(dir, 'known_hosts'),
      connectTimeoutMs: 10_000,
    }),
    { retries: 1, backoffMs: 50 },
  );

  api = await useApiServer({ own: true });
  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok);
  kube = new KubeClient(configForContext(load.config, CONTEXT_ADMIN), { timeoutMs: 10_000 });
  await seed(api, [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'user-ca-bundle', namespace: 'openshift-config' },
      data: { 'ca-bundle.crt': caPem },
    },
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '5a3c2d47-0d4e-4b6a-9b7e-1f0c3f1e2a10' },
      status: {
        desired: {
          version: '4.18.3',
          image: `${registryHost}/openshift-release-dev/ocp-release@sha256:${'a'.repeat(64)}`,
        },
        availableUpdates: null,
        observedGeneration: 1,
        versionHash: 'x',
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
      kind: 'Infrastructure',
      metadata: { name: 'cluster' },
      spec: {},
      status: {
        apiServerInternalURI: 'https://api-int.test.example.com:6443',
        apiServerURL: 'https://api.test.example.com:6443',
        platform: 'None',
        platformStatus: { type: 'None' },
        infrastructureName: 'test-x1',
      },
    },
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImageTagMirrorSet',
      metadata: { name: 'windows-pause' },
      spec: {
        imageTagMirrors: [
          {
            source: 'mcr.microsoft.com/oss/kubernetes',
            mirrors: [`${registryHost}/oss/kubernetes`],
            mirrorSourcePolicy: 'NeverContactSource',
          },
        ],
      },
    },
  ] as SeedObject[]);
});

after(async () => {
  host?.close();
  await sim?.stop();
  await api?.stop();
  await Promise.all([open?.stop(), restricted?.stop(), authed?.stop()]);
  await new Promise((r) => registry?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('BYOH, no cluster-wide proxy: the step is done at once, nothing is reached', async () => {
  await setProxy(undefined);
  const { step, ctx } = byohStep();
  assert.equal(await step.check(ctx, new AbortController().signal), 'done');
});

test('BYOH through an open proxy: the host reaches the payload registry and the mirror through it; the mirrored source is not contacted', async () => {
  await proxyAt(open.url);
  const before = simProxy(sim.state).reached.length;
  const r = await runByoh();
  assert.equal(r.check, 'todo');
  assert.equal(r.error, undefined, r.lines.join('\n'));
  const reached = simProxy(sim.state).reached.slice(before);
  assert.deepEqual(
    reached.map((x) => x.url),
    [`https://${registryHost}/v2/`],
    'one registry: the release payload and the mirror share it; mcr.microsoft.com is never contacted (NeverContactSource)',
  );
  assert.ok(
    open.requests().some((l) => l.includes(`CONNECT ${registryHost}`) || l.includes(registryHost)),
    `the probe went through the real proxy:\n${open.requests().join('\n')}`,
  );
  assert.ok(
    r.lines.some((l) =>
      l.startsWith(`✓ The host reaches https://${registryHost}/v2/ through the proxy ${open.url} (HTTP 401)`),
    ),
    r.lines.join('\n'),
  );
  assert.ok(
    r.lines.some((l) =>
      /✓ NO_PROXY keeps the cluster's networks and API endpoints away from the proxy \(3 addresses checked\)/.test(l),
    ),
    r.lines.join('\n'),
  );
  assert.ok(
    r.lines.some((l) => /✓ The trusted CA bundle openshift-config\/user-ca-bundle holds 1 certificate/.test(l)),
    r.lines.join('\n'),
  );
  assert.ok(
    r.ctx.state.findings?.some((f) => f.id === 'registry-reached'),
    'the findings are kept with the plan state',
  );
});

test('BYOH: each failing endpoint is named with where it failed (proxy unreachable, CONNECT refused, credentials, registry unreachable)', async () => {
  const cases: { name: string; setup: () => Promise<void>; id: string; title: RegExp }[] = [
    {
      name: 'proxy unreachable',
      setup: () => proxyAt(`http://127.0.0.1:${deadPort}`),
      id: 'proxy-unreachable',
      title: new RegExp(`The host does not reach the proxy http://127\\.0\\.0\\.1:${deadPort} \\(Unable to connect`),
    },
    {
      name: 'CONNECT refused',
      setup: () => proxyAt(restricted.url),
      id: 'proxy-connect-refused',
      title: new RegExp(
        `The proxy ${restricted.url.replace(/\./g, '\\.')} refused CONNECT to ${registryHost.replace(/\./g, '\\.')} \\(HTTP 403\\)`,
      ),
    },
    {
      name: 'credentials',
      setup: () => proxyAt(authed.url),
      id: 'proxy-credentials',
      title: new RegExp(
        `The proxy ${authed.url.replace(/\./g, '\\.')} asks for credentials \\(407 Proxy Authentication Required\\) to reach ${registryHost.replace(/\./g, '\\.')}`,
      ),
    },
    {
      name: 'registry unreachable through the proxy',
      setup: async () => {
        await proxyAt(open.url);
        await api.request('/apis/config.openshift.io/v1/imagedigestmirrorsets', {
          body: {
            apiVersion: 'config.openshift.io/v1',
            kind: 'ImageDigestMirrorSet',
            metadata: { name: 'dead-mirror' },
            spec: {
              imageDigestMirrors: [{ source: 'registry.redhat.io/ubi9', mirrors: [`127.0.0.1:${deadPort}/ubi9`] }],
            },
          },
        });
      },
      id: 'registry-unreachable',
      title: new RegExp(
        `The host does not reach https://127\\.0\\.0\\.1:${deadPort}/v2/ through the proxy .*: the proxy could not open a tunnel to 127\\.0\\.0\\.1:${deadPort} \\(it answered CONNECT with HTTP 5\\d\\d\\)`,
      ),
    },
  ];
  try {
    for (const c of cases) {
      await c.setup();
      const r = await runByoh();
      assert.ok(r.error, `${c.name}: the step stops the plan`);
      const errors = r.error.findings.filter((f) => f.severity === 'error');
      assert.deepEqual(
        errors.map((f) => f.id),
        [c.id],
        `${c.name}: ${r.lines.join('\n')}`,
      );
      assert.match(errors[0]?.title ?? '', c.title, c.name);
      assert.ok(errors[0]?.fix, `${c.name}: says what to do`);
      assert.match(r.error.message, /^Preflight found 1 problem:/);
    }
  } finally {
    await api.request('/apis/config.openshift.io/v1/imagedigestmirrorsets/dead-mirror', { method: 'DELETE' });
  }
});

test('BYOH: the credentials in the Proxy URL are used through the proxy and never shown', async () => {
  const withUser = authed.url.replace('http://', `http://win:${PASSWORD}@`);
  await proxyAt(withUser);
  const r = await runByoh();
  assert.equal(r.error, undefined, r.lines.join('\n'));
  assert.ok(
    r.lines.some((l) => l.includes('(HTTP 401)') && l.includes('through the proxy http://win:•••@')),
    r.lines.join('\n'),
  );
  assert.ok(!r.lines.join('\n').includes(PASSWORD), 'the password never reaches a line');
});

test('MachineSet: the proxy object is checked (NO_PROXY without the API endpoints, no CA ConfigMap), and what waits for the Machine is said', async () => {
  await proxyAt(open.url, '.cluster.local,.svc,10.128.0.0/14,172.30.0.0/16', 'missing-bundle');
  const result = await followMachineSet({ kube, machineSet: 'none-yet', pollMs: 50 });
  assert.equal(result.result.outcome, 'failed');
  assert.equal(result.result.error?.stepId, 'proxy-preflight', 'the first step stops it, before any Machine is read');
  const message = result.result.error?.message ?? '';
  assert.match(message, /^Preflight found 2 problems:/);
  assert.match(
    message,
    /NO_PROXY \(the Proxy's status\) leaves the API endpoint api-int\.test\.example\.com to the proxy/,
  );
  assert.match(
    message,
    /The trusted CA bundle ConfigMap openshift-config\/missing-bundle cannot be used: ConfigMap openshift-config\/missing-bundle not found/,
  );
});

test('MachineSet: a sound proxy passes, saying that reaching it waits for the Machine', async () => {
  await proxyAt(open.url);
  const lines: string[] = [];
  const { result } = await followMachineSet({
    kube,
    machineSet: 'none-yet',
    pollMs: 50,
    stageTimeoutMs: 200,
    onEvent: (e) => void (e.type === 'log' && lines.push(e.message)),
  });
  assert.equal(result.steps[0]?.id, 'proxy-preflight');
  assert.equal(result.steps[0]?.outcome, 'applied', lines.join('\n'));
  assert.ok(
    lines.some((l) =>
      l.startsWith(
        `✓ Not checked until a Machine exists: that its VM reaches the proxy ${open.url} and, through it, ${registryHost}`,
      ),
    ),
    lines.join('\n'),
  );
});
