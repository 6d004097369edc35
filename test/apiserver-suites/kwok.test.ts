// Simulated nodes and pods on the real API server: KWOK (sigs.k8s.io/kwok, built from its Go
// module by scripts/kwok.mjs, with the stages published in that module) plays the kubelet of the
// nodes annotated kwok.x-k8s.io/node=fake. A Windows node (the labels, taints and nodeInfo a real
// one reports) and a Linux node; pods that start, one whose container fails, one that stays
// Pending (no scheduler here); and a drain whose evicted pods KWOK deletes as a kubelet does.
// KWOK touches no other node, so this file shares the run's server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadKubeconfig, configForContext } from '../../src/cluster/kubeconfig';
import { KubeClient } from '../../src/cluster/kube-client';
import { ClusterSession } from '../../src/cluster/session';
import { isErrorItem } from '../../src/cluster/extras';
import type { NodeChange, WindowsNodeModel } from '../../src/cluster/windows-nodes';
import { buildRebootPlan, type RebootContext, type RebootNode } from '../../src/bootstrap/reboot';
import { runPlan } from '../../src/bootstrap/runner';
import type { Plan } from '../../src/bootstrap/plan';
import type { WindowsHost } from '../../src/remote/windows-host';
import { linuxNode, windowsNode } from '../support/kube-seed';
import {
  CONTEXT_ADMIN,
  ensureNamespace,
  expectStatus,
  ROOT,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

interface Kwok {
  stop(): Promise<void>;
  logPath: string;
}

let api: RealApiServer;
let kwok: Kwok;
let kube: KubeClient;
let tmp: string;
const sessions: ClusterSession[] = [];
const WIN = uniqueName('kwok-win');
const LINUX = uniqueName('kwok-linux');
const NS = uniqueName('kw-kwok');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A node KWOK manages: the annotation, and no Ready condition yet (KWOK's node-initialize sets it). */
function fake(node: SeedObject): SeedObject {
  node.metadata.annotations = { ...node.metadata.annotations, 'kwok.x-k8s.io/node': 'fake' };
  return node;
}

before(async () => {
  api = await useApiServer();
  tmp = mkdtempSync(join(tmpdir(), 'kw-kwok-'));
  const harness = (await import(pathToFileURL(join(ROOT, 'scripts', 'kwok.mjs')).href)) as {
    startKwok(o: { kubeconfigPath: string; dir: string; log?: (l: string) => void }): Promise<Kwok>;
  };
  kwok = await harness.startKwok({
    kubeconfigPath: api.kubeconfigPath,
    dir: tmp,
    log: (l) => /build/.test(l) && console.error(l),
  });
  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok);
  kube = new KubeClient(configForContext(load.config, CONTEXT_ADMIN), { timeoutMs: 10_000 });
  await ensureNamespace(api, NS);
});

after(async () => {
  for (const s of sessions) s.dispose();
  await kwok?.stop();
  for (const n of [WIN, LINUX]) await api?.request(`/api/v1/nodes/${n}`, { method: 'DELETE' });
  await api?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function session(): ClusterSession {
  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok);
  const s = new ClusterSession(CONTEXT_ADMIN, load.config, { timeoutMs: 10_000, retryMs: 100 });
  sessions.push(s);
  return s;
}

function until(model: WindowsNodeModel, pred: () => boolean, what: string, ms = 20_000): Promise<void> {
  if (pred()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      model.off('change', on);
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const on = (_c: NodeChange) => {
      if (!pred()) return;
      clearTimeout(timer);
      model.off('change', on);
      resolve();
    };
    model.on('change', on);
  });
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; kwok's log: ${kwok.logPath}`);
    await sleep(200);
  }
}

test('KWOK brings a Windows node up as a kubelet would: Ready, its Windows nodeInfo kept; the Linux node never reaches the model', async () => {
  const s = session();
  const model = await s.windowsNodes();
  // Registered as a kubelet registers: one create with the status in it (nodeInfo and all), so
  // KWOK never sees the Node without its nodeInfo.
  for (const n of [
    fake(windowsNode(WIN, { build: '10.0.20348', address: '10.0.135.4', ready: false }) as SeedObject),
    fake(linuxNode(LINUX, { ready: false }) as SeedObject),
  ]) {
    delete n.metadata.uid;
    delete n.metadata.creationTimestamp;
    expectStatus(await api.request('/api/v1/nodes', { body: n }), [201], `creating ${n.metadata.name}`);
  }
  await until(model, () => model.get(WIN)?.ready === true, `${WIN} Ready`);
  const view = model.get(WIN);
  assert.equal(view?.windowsVersion, 'Windows Server 2022');
  assert.equal(view?.osImage, 'Windows Server 2022 Datacenter');
  assert.equal(view?.kubeletVersion, 'v1.31.3-dirty');
  assert.equal(view?.containerRuntimeVersion, 'containerd://1.7.22');
  assert.deepEqual(
    view?.conditions.map((c) => [c.type, c.status]),
    [
      ['Ready', 'True'],
      ['MemoryPressure', 'False'],
      ['DiskPressure', 'False'],
      ['PIDPressure', 'False'],
      ['NetworkUnavailable', 'False'],
    ],
  );
  assert.deepEqual(view?.problems, []);
  assert.equal(model.get(LINUX), undefined);
  // The Linux node is KWOK's too: Ready, but only the Linux count sees it.
  const linux = await waitFor('the Linux node Ready', async () => {
    const n = await kube.get<RebootNode>(`/api/v1/nodes/${LINUX}`);
    return (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') ? n : undefined;
  });
  assert.equal((linux.status?.nodeInfo as { operatingSystem?: string } | undefined)?.operatingSystem, 'linux');
});

test('pods on the KWOK Windows node: one Running and Ready, one whose container fails, one that stays Pending', async () => {
  const pod = (name: string, nodeName: string | undefined, labels: Record<string, string> = {}): SeedObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: name, ...labels } },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      os: { name: 'windows' },
      nodeSelector: { 'kubernetes.io/os': 'windows' },
      tolerations: [{ key: 'os', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'app', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' }],
    },
  });
  await seed(api, [
    pod('iis', WIN),
    pod('crashy', WIN, { 'pod-container-running-failed.stage.kwok.x-k8s.io': 'true' }),
    pod('waiting', undefined),
  ]);
  const s = session();
  const views = await waitFor('KWOK to run the pods', async () => {
    const v = await s.podsOfNode(WIN);
    assert.ok(!isErrorItem(v));
    const iis = v.find((p) => p.name === 'iis');
    const crashy = v.find((p) => p.name === 'crashy');
    return iis?.ready && crashy?.phase === 'Failed' ? v : undefined;
  });
  assert.deepEqual(
    views.map((p) => [p.name, p.phase, p.ready, p.restarts]),
    [
      ['crashy', 'Failed', false, 0],
      ['iis', 'Running', true, 0],
    ],
  );
  const crashy = await kube.get<{
    status: { containerStatuses: { state: { terminated?: { exitCode: number; reason: string } } }[] };
  }>(`/api/v1/namespaces/${NS}/pods/crashy`);
  assert.deepEqual(
    crashy.status.containerStatuses[0].state.terminated && {
      exitCode: crashy.status.containerStatuses[0].state.terminated.exitCode,
    },
    { exitCode: 1 },
  );
  const waiting = await kube.get<{ status: { phase: string } }>(`/api/v1/namespaces/${NS}/pods/waiting`);
  assert.equal(waiting.status.phase, 'Pending', 'no scheduler: a pod without nodeName stays Pending');
});

test('a drain of the KWOK node: the pods are evicted and KWOK, as the kubelet, deletes them', async () => {
  const node = await kube.get<RebootNode>(`/api/v1/nodes/${WIN}`);
  const opts = { kube, host: {} as WindowsHost, node, evictionRetryMs: 2000, pollMs: 200, drainTimeoutMs: 30_000 };
  const full = buildRebootPlan(opts);
  const plan: Plan<RebootContext> = {
    ...full,
    steps: full.steps.filter((st) => st.id === 'cordon' || st.id === 'drain'),
  };
  const result = await runPlan(plan, { opts, state: {} });
  assert.equal(result.outcome, 'done', JSON.stringify(result.error));
  const left = await kube.get<{ items: unknown[] }>('/api/v1/pods', { fieldSelector: `spec.nodeName=${WIN}` });
  assert.deepEqual(left.items, []);
  assert.equal((await kube.get<RebootNode>(`/api/v1/nodes/${WIN}`)).spec?.unschedulable, true);
});
