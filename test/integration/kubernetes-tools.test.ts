// The Kubernetes extension's Cluster Explorer, decorated through its public API: the customizer and
// "Show in kube-windows" over stand-ins of that API (the extension cannot be installed here) and the
// API emulator as the cluster its kubeconfig names.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type * as vscode from 'vscode';
import type { ClusterExplorerV1 } from 'vscode-kubernetes-tools-api';
import { startEmulator, type Emulator } from '../support/kube-api-emulator';
import { mixedCluster } from '../support/kube-seed';
import { createFakeVscode, hookVscodeModule, loadWithFakeVscode, type FakeVscode } from '../support/fake-vscode';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
const load = () => import('../../src/extension/kubernetes-tools');

let emu: Emulator;
let tmp: string;
let kubeconfig: string;
const disposables: { dispose(): void }[] = [];

before(async () => {
  emu = await startEmulator({ objects: mixedCluster(), openshift: true });
  tmp = mkdtempSync(join(tmpdir(), 'kw-k8s-tools-'));
  kubeconfig = emu.kubeconfig({ context: 'prod-east', file: join(tmp, 'config') });
});

after(async () => {
  for (const d of disposables) d.dispose();
  unhook();
  await emu.stop();
  rmSync(tmp, { recursive: true, force: true });
});

beforeEach(() => {
  fake = createFakeVscode();
});

type Customizer = ClusterExplorerV1.NodeUICustomizer;

/** A stand-in for the Kubernetes extension's two APIs, recording what we do with them. */
function kubernetesExtension(path: () => string) {
  const customizers: Customizer[] = [];
  let refreshes = 0;
  const contextChanged: ((c: string | null) => void)[] = [];
  const explorer = {
    registerNodeUICustomizer: (c: Customizer) => void customizers.push(c),
    registerNodeContributor: () => undefined,
    refresh: () => void refreshes++,
    // What the extension passes to a command is its own tree node; resolving it gives the public shape.
    resolveCommandTarget: (target?: unknown) =>
      (target as { publicNode?: ClusterExplorerV1.ClusterExplorerNode } | undefined)?.publicNode,
    nodeSources: {} as ClusterExplorerV1.NodeSources,
  } satisfies ClusterExplorerV1;
  const configuration = {
    getKubeconfigPath: () => ({ pathType: 'host' as const, hostPath: path() }),
    onDidChangeKubeconfigPath: () => ({ dispose: () => undefined }),
    onDidChangeContext: (listener: (c: string | null) => void) => {
      contextChanged.push(listener);
      return { dispose: () => undefined };
    },
    onDidChangeNamespace: () => ({ dispose: () => undefined }),
  };
  return {
    explorer,
    configuration,
    customizers,
    refreshes: () => refreshes,
    switchContext: (c: string) => contextChanged.forEach((l) => l(c)),
  };
}

const nodeRow = (name: string): ClusterExplorerV1.ClusterExplorerNode =>
  ({
    nodeType: 'resource',
    namespace: null,
    name,
    resourceKind: { manifestKind: 'Node', abbreviation: 'node', displayName: 'Nodes', pluralDisplayName: 'Nodes' },
  }) as ClusterExplorerV1.ClusterExplorerNode;
const podRow = (name: string): ClusterExplorerV1.ClusterExplorerNode =>
  ({
    nodeType: 'resource',
    namespace: 'default',
    name,
    resourceKind: { manifestKind: 'Pod', abbreviation: 'po', displayName: 'Pods', pluralDisplayName: 'Pods' },
  }) as ClusterExplorerV1.ClusterExplorerNode;

async function integration(path = () => kubeconfig, waitMs?: number) {
  const { KubernetesToolsIntegration } = await load();
  const k8s = kubernetesExtension(path);
  const revealed: [string, string][] = [];
  const i = new KubernetesToolsIntegration(
    k8s.explorer,
    k8s.configuration,
    async (context, node) => void revealed.push([context, node]),
    waitMs,
  );
  disposables.push(i);
  return { i, k8s, revealed };
}

test('Windows node rows get their Windows Server version, build and WMCO version; Linux nodes and pods are left as they are', async () => {
  const { k8s } = await integration();
  assert.equal(k8s.customizers.length, 1, 'one node UI customizer registered');
  const [customizer] = k8s.customizers;
  const rows = ['winworker-2022-b', 'winworker-2019-a', 'ip-10-0-21-7.us-east-2.compute.internal'].map((n) => ({
    node: nodeRow(n),
    item: { label: n, description: 'Ready', tooltip: 'node' } as vscode.TreeItem,
  }));
  const pod = { node: podRow('winworker-2022-b'), item: { label: 'winworker-2022-b' } as vscode.TreeItem };
  const lists = () => emu.requests.filter((r) => r.path === '/api/v1/nodes' && !r.query.includes('watch=true')).length;
  const listsBefore = lists();
  for (const r of [...rows, pod]) await customizer.customize(r.node, r.item);
  assert.match(
    String(rows[0].item.description),
    /^Ready · Windows Server 2022 · 10\.0\.20348 · WMCO 10\.18\.0-8d3a4b1$/,
  );
  assert.match(String(rows[0].item.tooltip), /^node\n\nWindows Server 2022 \(build 10\.0\.20348\)\n/);
  assert.match(String(rows[0].item.tooltip), /Show in kube-windows/);
  assert.match(String(rows[1].item.description), /^Ready · Windows Server 2019 · 10\.0\.17763/);
  assert.equal(rows[2].item.description, 'Ready', 'a Linux node is not decorated');
  assert.equal(rows[2].item.tooltip, 'node');
  assert.equal(pod.item.description, undefined, 'a pod named like a Windows node is not decorated');
  assert.equal(lists() - listsBefore, 1, 'one list of Windows nodes (label selector) serves every row');
  assert.ok(
    emu.requests.some(
      (r) => r.path === '/api/v1/nodes' && r.query.includes('labelSelector=kubernetes.io%2Fos%3Dwindows'),
    ),
  );
});

test('a context switch in the Kubernetes extension drops what we knew and refreshes its explorer', async () => {
  let path = kubeconfig;
  const { k8s } = await integration(() => path);
  const item = { label: 'winworker-2022-b' } as vscode.TreeItem;
  await k8s.customizers[0].customize(nodeRow('winworker-2022-b'), item);
  assert.match(String(item.description), /Windows Server 2022/);
  path = emu.kubeconfig({ context: 'other', file: join(tmp, 'other'), token: 'no-such-token' });
  k8s.switchContext('other');
  assert.equal(k8s.refreshes(), 1);
  const again = { label: 'winworker-2022-b', description: 'Ready' } as vscode.TreeItem;
  await k8s.customizers[0].customize(nodeRow('winworker-2022-b'), again);
  assert.equal(
    again.description,
    'Ready',
    'a context whose credentials are refused decorates nothing and throws nothing',
  );
});

test('an unreachable cluster leaves the rows as they are within the wait, without an error', async () => {
  const dead = join(tmp, 'dead');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    dead,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: dead',
      'clusters: [{name: dead, cluster: {server: "https://10.255.255.1:6443", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: dead, context: {cluster: dead, user: u}}]',
    ].join('\n'),
  );
  const { k8s } = await integration(() => dead, 300);
  const item = { label: 'winworker-2022-b', description: 'Ready' } as vscode.TreeItem;
  const started = Date.now();
  await k8s.customizers[0].customize(nodeRow('winworker-2022-b'), item);
  assert.ok(Date.now() - started < 5000, 'the explorer row is not held up');
  assert.equal(item.description, 'Ready');
});

test('Show in kube-windows: a Windows node focuses our Clusters view and reveals it; other rows say why not', async () => {
  const { i, revealed } = await integration();
  await i.showInTree({ publicNode: nodeRow('byoh-win2022-1') });
  assert.deepEqual(
    fake.executed.map((e) => e[0]),
    ['kubeWindows.clusters.focus'],
  );
  assert.deepEqual(revealed, [['prod-east', 'byoh-win2022-1']]);
  await i.showInTree({ publicNode: nodeRow('ip-10-0-21-7.us-east-2.compute.internal') });
  await i.showInTree({ publicNode: podRow('p') });
  await i.showInTree(undefined);
  assert.deepEqual(
    fake.shown.map((s) => s.message),
    [
      'kube-windows: ip-10-0-21-7.us-east-2.compute.internal is not a Windows node (no kubernetes.io/os=windows label), or its cluster did not answer.',
      'kube-windows: pick a Node in the Kubernetes extension’s Cluster Explorer.',
      'kube-windows: pick a Node in the Kubernetes extension’s Cluster Explorer.',
    ],
  );
  assert.equal(revealed.length, 1);
});

test('without the Kubernetes extension nothing is loaded; its command explains itself', async () => {
  const { registerKubernetesTools } = await load();
  const context = { subscriptions: [] as { dispose(): unknown }[] } as unknown as vscode.ExtensionContext;
  const log = { info: () => undefined, warn: () => undefined } as unknown as vscode.LogOutputChannel;
  registerKubernetesTools(context, log, async () => undefined);
  await new Promise((r) => setTimeout(r, 20));
  await fake.commands.get('kubeWindows.showInClusterTree')?.({});
  assert.deepEqual(
    fake.shown.map((s) => s.message),
    ['kube-windows: this action belongs to the Kubernetes extension’s Cluster Explorer, which is not available.'],
  );
  for (const s of context.subscriptions) s.dispose();
});

test('the whole path in the extension bundle: the Kubernetes extension is found, its API decorates, and Show in kube-windows reveals the node in our tree', async () => {
  const BUNDLE = join(resolve(__dirname, '..', '..', '..'), 'dist', 'extension.js');
  fake = createFakeVscode({ 'kubeWindows.enable': false, 'kubeWindows.kubeconfig': kubeconfig });
  const k8s = kubernetesExtension(() => kubeconfig);
  let activations = 0;
  // What the Kubernetes extension's activate() returns: its API broker, by component and version.
  const broker = {
    get: async (component: string, version: string) => {
      if (component === 'clusterexplorer' && version === 'v1') return { available: true, api: k8s.explorer };
      if (component === 'configuration' && version === 'v1_1') return { available: true, api: k8s.configuration };
      return { available: false, reason: 'version-unknown' };
    },
  };
  fake.installedExtensions.set('ms-kubernetes-tools.vscode-kubernetes-tools', {
    isActive: true,
    activate: async () => (activations++, broker),
  });
  const ext = loadWithFakeVscode<{ activate(c: unknown): void; deactivate(): Promise<void> | undefined }>(BUNDLE, fake);
  const home = mkdtempSync(join(tmpdir(), 'kw-k8s-ext-'));
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    asAbsolutePath: (p: string) => join(home, p),
    globalState: { get: () => undefined, update: async () => undefined },
  };
  try {
    ext.activate(context);
    const until = async (what: string, done: () => boolean) => {
      const end = Date.now() + 10_000;
      while (!done()) {
        if (Date.now() > end) assert.fail(`timed out: ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await until('the customizer is registered after activation', () => k8s.customizers.length === 1);
    assert.ok(activations >= 1);
    const item = { label: 'winworker-2019-a' } as vscode.TreeItem;
    await k8s.customizers[0].customize(nodeRow('winworker-2019-a'), item);
    assert.match(String(item.description), /^Windows Server 2019 · 10\.0\.17763/);
    // Our view has not been opened. Focusing it makes VS Code ask for its roots; the reveal then
    // expands the cluster (VS Code asks for its children) and selects the node.
    fake.commands.set('kubeWindows.clusters.focus', () => view?.options.treeDataProvider.getChildren());
    const view = fake.treeViews.find((v) => v.id === 'kubeWindows.clusters');
    assert.ok(view);
    await fake.commands.get('kubeWindows.showInClusterTree')?.({ publicNode: nodeRow('winworker-2019-a') });
    assert.deepEqual(
      view.revealed.map((r) => [(r.element as { id: string }).id, r.options]),
      [
        ['ctx/prod-east', { expand: 1, select: false, focus: false }],
        ['ctx/prod-east/node/winworker-2019-a', { select: true, focus: true }],
      ],
    );
    assert.ok(fake.executed.some((e) => e[0] === 'kubeWindows.clusters.focus'));
  } finally {
    await ext.deactivate();
    for (const d of context.subscriptions) d.dispose();
    rmSync(home, { recursive: true, force: true });
  }
});
