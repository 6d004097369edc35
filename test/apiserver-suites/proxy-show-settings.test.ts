// VS Code's "Show proxy settings" on a Windows node against the REAL kube-apiserver with OpenShift's
// Proxy CRD and a simulated Windows host whose machine and service environment and root store are set
// and drifted: the node operation runs as a user runs it (the extension's own engine, kubeconfig and
// SSH settings; only `vscode` is the fake), opens the read-only document beside what the cluster
// expects and says the verdict in one line, drift with when it was last seen equal. Its own API
// server: the Proxy is a cluster singleton another suite sets differently.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { linuxNode } from '../support/kube-seed';
import { podExecStandin } from '../support/pod-exec-standin';
import { readNodeProxyThroughPod } from '../../src/bootstrap/node-proxy';
import { KubeClient } from '../../src/cluster/kube-client';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import { SshConnector } from '../../src/remote/ssh';
import type { NodeDeps } from '../../src/extension/node-commands';
import { createFakeVscode, hookVscodeModule, type FakeVscode } from '../support/fake-vscode';
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

const NODE = uniqueName('kw-proxy-vs');
const ADDRESS = '127.0.0.2';
const PROXIES = '/apis/config.openshift.io/v1/proxies';
const PASSWORD = 'pr0xy-s3cret';
const PROXY = `http://win:${PASSWORD}@proxy.corp.example:3128`;
const NO_PROXY = '.cluster.local,.svc,10.128.0.0/14,172.30.0.0/16,api-int.test.example.com';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
let api: RealApiServer;
let sim: SimHost;
let dir: string;
let keyPath: string;
let thumbprint: string;
let savedState: string | undefined;

function selfSignedCa(where: string): string {
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'].concat([
      '-subj',
      '/CN=kube-windows test proxy CA',
      '-keyout',
      join(where, 'ca.key'),
      '-out',
      join(where, 'ca.crt'),
    ]),
    { stdio: 'ignore' },
  );
  return readFileSync(join(where, 'ca.crt'), 'utf8');
}

/** WMCO's work on a node: the machine's proxy variables and the trusted CA in LocalMachine\Root. */
function configureLikeWmco(): void {
  setMachineEnv(sim.state, 'HTTP_PROXY', PROXY);
  setMachineEnv(sim.state, 'HTTPS_PROXY', PROXY);
  setMachineEnv(sim.state, 'NO_PROXY', NO_PROXY);
  simProxy(sim.state).serviceEnv.clear();
  simProxy(sim.state).rootStore.add(thumbprint);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-proxy-vs-'));
  savedState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = join(dir, 'state');
  const caPem = selfSignedCa(dir);
  thumbprint = new X509Certificate(caPem).fingerprint.replace(/:/g, '');
  keyPath = join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyPath]);
  sim = await startWindowsHostSim({
    listenHost: ADDRESS,
    users: { Administrator: [readFileSync(`${keyPath}.pub`, 'utf8').trim()] },
    hostname: 'WIN-PROXY-VS',
    services: {
      containerd: { status: 'Running' },
      kubelet: { status: 'Running' },
      'kube-proxy': { status: 'Running' },
      'hybrid-overlay-node': { status: 'Running' },
      'windows-instance-config-daemon': { status: 'Running' },
    },
  });
  writeFileSync(join(dir, 'known_hosts'), sim.knownHostsLine() + '\n', { mode: 0o600 });
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
  expectStatus(
    await api.request(PROXIES, {
      body: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Proxy',
        metadata: { name: 'cluster' },
        spec: {
          httpProxy: PROXY,
          httpsProxy: PROXY,
          noProxy: 'api-int.test.example.com',
          trustedCA: { name: 'user-ca-bundle' },
        },
      },
    }),
    [201],
    'creating the Proxy',
  );
  await patchStatus(api, PROXIES, 'cluster', { httpProxy: PROXY, httpsProxy: PROXY, noProxy: NO_PROXY });
});

after(async () => {
  unhook();
  await sim?.stop();
  await api?.stop();
  if (savedState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = savedState;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The extension's node commands with their real engine, the settings pointing at this API server and host. `via`:
 * how the node is reached (remembered, as "how to reach <node>?" keeps it); `deps`: engine parts replaced; `during`:
 * runs while the command does (the command is awaited after it).
 */
async function showProxySettings(
  o: { via?: 'pod'; deps?: Partial<NodeDeps>; during?: () => Promise<void> } = {},
): Promise<void> {
  const { registerNodeCommands } = await import('../../src/extension/node-commands');
  const { ReadOnlyDocs } = await import('../../src/extension/read-only-docs');
  const global = new Map<string, unknown>([['kubeWindows.join.keyPaths', { [CONTEXT_ADMIN]: keyPath }]]);
  if (o.via === 'pod') global.set('kubeWindows.ssh.reach', { [`${CONTEXT_ADMIN}/${NODE}`]: { via: 'pod' } });
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    globalState: {
      get: (k: string, d?: unknown) => (global.has(k) ? global.get(k) : d),
      update: async (k: string, v: unknown) => void global.set(k, v),
      keys: () => [...global.keys()],
    },
    secrets: {
      get: async () => undefined,
      store: async () => undefined,
      delete: async () => undefined,
      onDidChange: () => ({ dispose: () => undefined }),
    },
  } as unknown as vscode.ExtensionContext;
  fake = createFakeVscode();
  fake.setSettings({
    'kubeWindows.kubeconfig': api.kubeconfigPath,
    'kubeWindows.ssh.port': sim.port,
    'kubeWindows.ssh.knownHostsFile': join(dir, 'known_hosts'),
  });
  const log = (fake.module.window as unknown as typeof vscode.window).createOutputChannel('kube-windows', {
    log: true,
  }) as vscode.LogOutputChannel;
  registerNodeCommands(context, log, ReadOnlyDocs.register(context), o.deps);
  const running = fake.commands.get('kubeWindows.showProxySettings')?.({
    ref: { kind: 'node', context: CONTEXT_ADMIN, node: NODE },
  });
  await o.during?.();
  await running;
  for (const s of context.subscriptions) s.dispose();
}

test('"Show proxy settings" on a node WMCO configured: the document beside the cluster\'s Proxy, and "match" in one line', async () => {
  configureLikeWmco();
  await showProxySettings();
  assert.deepEqual(fake.questions, [], 'the remembered key: nothing asked');
  const doc = fake.documents.at(-1);
  assert.equal(doc?.uri?.toString(), `kube-windows-text:/proxy/${NODE}.txt`);
  const text = doc?.content ?? '';
  assert.match(text, /^Expected \(proxies\.config\.openshift\.io\/cluster\):$/m);
  assert.match(text, /^ {2}HTTP_PROXY {2}http:\/\/proxy\.corp\.example:3128$/m);
  assert.match(text, /^Service windows-instance-config-daemon \(effective/m);
  assert.match(text, /Trusted CA bundle: all 1 certificate in LocalMachine\\Root\./);
  assert.deepEqual(
    fake.shown.map((m) => [m.kind, m.message]),
    [
      [
        'information',
        `kube-windows: the proxy settings of ${NODE} match what the cluster expects (proxies.config.openshift.io/cluster).`,
      ],
    ],
  );
  assert.ok(!JSON.stringify([fake.documents, fake.shown, fake.logs]).includes(PASSWORD), 'credentials never shown');
});

test('"Show proxy settings" after drift: each drifted setting marked in the document, the warning names them and when they were last equal', async () => {
  configureLikeWmco();
  await showProxySettings();
  const seen = JSON.parse(readFileSync(join(dir, 'state', 'kube-windows', 'proxy-seen.json'), 'utf8')) as Record<
    string,
    string
  >;
  const lastEqual = seen[`${CONTEXT_ADMIN}/${NODE}`] as string;
  assert.ok(lastEqual, 'the equal reading was recorded where the CLI records it');

  setMachineEnv(sim.state, 'no_proxy', '.svc');
  simProxy(sim.state).serviceEnv.set('containerd', ['HTTPS_PROXY=http://elsewhere:8080']);
  simProxy(sim.state).rootStore.clear();
  await showProxySettings();
  const text = fake.documents.at(-1)?.content ?? '';
  assert.match(text, /^ {2}NO_PROXY {4}\.svc {2}≠ expected \.cluster\.local,\.svc,/m);
  assert.match(
    text,
    /^Service containerd[^\n]*\n(?:.*\n)? {2}HTTPS_PROXY http:\/\/elsewhere:8080 \[service\] {2}≠ expected http:\/\/proxy\.corp\.example:3128$/m,
  );
  assert.match(text, /1 certificate of 1 missing from LocalMachine\\Root/);
  const warning = fake.shown.at(-1);
  assert.equal(warning?.kind, 'warning');
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(
    warning?.message ?? '',
    new RegExp(
      `^kube-windows: ${esc(NODE)}: Drift: machine NO_PROXY, containerd HTTPS_PROXY, trusted CA bundle differ from what the cluster expects \\(WMCO reconciles this periodically; last seen equal ${esc(lastEqual)} \\((just now|\\d+ minutes? ago)\\)\\)\\.$`,
    ),
  );
  assert.ok(!JSON.stringify([fake.documents, fake.shown, fake.logs]).includes(PASSWORD), 'credentials never shown');
  configureLikeWmco();
});

// Through a HostProcess pod, as VS Code reaches a node without SSH: the pod is made on this API server, pinned to
// the node, and deleted on every way out (a cancel while it starts, an exec that cannot reach a kubelet, a read).

const PODS = '/api/v1/namespaces/kube-system/pods';
type PodList = { items: { metadata: { name: string; deletionTimestamp?: string }; spec: { nodeName?: string } }[] };
/** The node-shell pods of this node that are not being deleted. */
const livePods = async (): Promise<string[]> =>
  (
    (await api.request<PodList>(`${PODS}?labelSelector=app.kubernetes.io%2Fcomponent%3Dnode-shell`, { method: 'GET' }))
      .body.items ?? []
  )
    .filter((p) => p.spec.nodeName === NODE && !p.metadata.deletionTimestamp)
    .map((p) => p.metadata.name);

/** The node's kubelet as far as the API server sees it: the node's shell pods turn Running. */
function runPods(): () => void {
  const timer = setInterval(() => {
    void (async () => {
      for (const name of await livePods())
        await patchStatus(api, PODS, name, {
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
    })().catch(() => undefined);
  }, 100);
  return () => clearInterval(timer);
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`never: ${what}`);
}

test('"Show proxy settings" through a HostProcess pod: cancelled while the pod starts, it is deleted; an exec no kubelet answers is one error line, the pod deleted; with the exec answered, the same document as over SSH', async () => {
  configureLikeWmco();
  setMachineEnv(sim.state, 'NO_PROXY', '.svc');
  await ensureNamespace(api, 'kube-system');

  // The pod never runs (no kubelet): the user cancels the notification that says what it is doing.
  await showProxySettings({
    via: 'pod',
    during: async () => {
      await until('the pod exists', async () => (await livePods()).length === 1);
      await until('the progress shows', async () => fake.progressRuns.some((r) => /HostProcess pod/.test(r.title)));
      fake.progressRuns.find((r) => /HostProcess pod/.test(r.title))?.cancel();
    },
  });
  assert.deepEqual(await livePods(), [], 'the cancelled pod is deleted');
  const run = fake.progressRuns.find((r) => /HostProcess pod/.test(r.title));
  assert.match(run?.reports[0]?.message ?? '', new RegExp(`creating pod kube-system/kube-windows-shell-.* on ${NODE}`));
  assert.deepEqual(
    fake.shown.map((m) => [m.kind, m.message]),
    [
      [
        'information',
        `kube-windows: reading the proxy settings of ${NODE} was cancelled; the pod is deleted and nothing changed on the node.`,
      ],
    ],
  );
  assert.equal(fake.documents.length, 0);

  const stop = runPods();
  try {
    // Running, but pods/exec reaches no kubelet on this API server: one line, no stack, the pod deleted.
    await showProxySettings({ via: 'pod' });
    const error = fake.shown.at(-1);
    assert.equal(error?.kind, 'error');
    assert.match(
      error?.message ?? '',
      new RegExp(`^kube-windows: reading the proxy settings of ${NODE} through a HostProcess pod failed: [^\\n]+$`),
    );
    assert.deepEqual(await livePods(), [], 'the pod is deleted after the failed exec');

    // The exec answered on the node's host: the document and the drift, as over SSH; the pod deleted.
    const load = loadKubeconfig({ explicit: api.kubeconfigPath });
    assert.ok(load.ok);
    const kube = new KubeClient(configForContext(load.config, CONTEXT_ADMIN), { timeoutMs: 10_000 });
    const standin = podExecStandin({
      kube,
      nodeName: NODE,
      connector: new SshConnector({
        host: ADDRESS,
        port: sim.port,
        username: 'Administrator',
        privateKeyPath: keyPath,
        knownHostsPath: join(dir, 'known_hosts'),
        connectTimeoutMs: 10_000,
      }),
    });
    await showProxySettings({
      via: 'pod',
      deps: {
        readProxyThroughPod: ({ node, expected, signal, onStatus }) =>
          readNodeProxyThroughPod(
            { kube, config: kube.kubeConfig, node, onStatus, exec: { exec: standin.exec } as never },
            expected,
            signal,
          ),
      },
    });
    assert.equal(standin.records.length, 1, 'one exec into the pod');
    const text = fake.documents.at(-1)?.content ?? '';
    assert.match(text, /^ {2}NO_PROXY {4}\.svc {2}≠ expected \.cluster\.local,\.svc,/m);
    assert.equal(fake.shown.at(-1)?.kind, 'warning');
    assert.match(fake.shown.at(-1)?.message ?? '', /Drift: machine NO_PROXY differs/);
    assert.deepEqual(await livePods(), [], 'the pod is deleted after the read');
  } finally {
    stop();
    configureLikeWmco();
  }
});
