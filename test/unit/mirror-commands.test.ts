// "Preview mirror config" and "Apply mirror config" against the fake vscode module: where the mirror
// sets come from (active YAML editor or cluster), the SSH choice, the read-only preview document
// (tree, files with credentials masked, per-node diff), the apply flow (modal confirmation,
// cancellable progress, output channel with the final table, summary message). The engine's
// diff/apply are stand-ins returning canned outcomes; its pure pieces are the real ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { WindowsHost } from '../../src/remote/windows-host';
import type { SshConnectorOptions } from '../../src/remote/ssh';
import type { MirrorDeps } from '../../src/extension/mirror-commands';
import {
  diffTree,
  mirrorObjectsOfText,
  mirrorsRenderOnly,
  resultTable,
  type MirrorsOutcome,
  type MirrorsRequest,
  type NodeResult,
} from '../../src/bootstrap/mirrors-apply';
import { mirrorsApplySummary, mirrorsCase, mirrorsPreviewMarkdown } from '../../src/bootstrap/mirrors-preview';
import { renderHostsToml, mirrorEntriesOf } from '../../src/core/mirrors/render';
import { BACK, createFakeVscode, hookVscodeModule, type FakeVscode } from '../support/fake-vscode';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
test.after(() => unhook());
const load = () => import('../../src/extension/mirror-commands');

const KEY = '/home/u/.ssh/id_ed25519';
const IDMS = {
  apiVersion: 'config.openshift.io/v1',
  kind: 'ImageDigestMirrorSet',
  metadata: { name: 'm' },
  spec: { imageDigestMirrors: [{ source: 'docker.io/library', mirrors: ['mirror.example.com/library'] }] },
};

function makeContext(keyPaths: Record<string, string> = {}) {
  const global = new Map<string, unknown>([['kubeWindows.join.keyPaths', keyPaths]]);
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
  };
  return context as unknown as vscode.ExtensionContext;
}

function outcome(nodes: NodeResult[], extra: Partial<MirrorsOutcome> = {}): MirrorsOutcome {
  const render = renderHostsToml(mirrorEntriesOf([IDMS]), {
    mode: 'ordered',
    credentials: { 'mirror.example.com': { username: 'u', password: 'hunter2-secret' } },
  });
  return { wmco: false, mode: 'ordered', render, objects: [], nodes, ...extra };
}

interface H {
  failDiff?: Error;
  /** What the cluster is: WMCO renders the nodes' files (the confirmation and the result say so). */
  wmco: boolean;
  requests: MirrorsRequest[];
  hosts: SshConnectorOptions[];
  run(command: string, arg?: unknown): Promise<void>;
}

async function harness(
  settings: Record<string, unknown>,
  keyPaths: Record<string, string>,
  answer: (r: MirrorsRequest) => MirrorsOutcome | Promise<MirrorsOutcome>,
): Promise<H> {
  fake = createFakeVscode(settings);
  const { registerMirrorCommands } = await load();
  const h: H = { wmco: false, requests: [], hosts: [], run: async (c, a) => void (await fake.commands.get(c)?.(a)) };
  const deps: Partial<MirrorDeps> = {
    contexts: async () => ({ ok: true, names: ['dev', 'prod'], current: 'prod' }),
    cluster: async () => ({ kube: {} as KubeClient }),
    host: (o) => (h.hosts.push(o), { close: () => undefined } as unknown as WindowsHost),
    checkPassphrase: async () => true,
    mirrorObjectsOfText,
    mirrorsPreviewMarkdown,
    mirrorsApplySummary,
    mirrorsCase,
    isWmcoCluster: async () => h.wmco,
    mirrorsRenderOnly,
    mirrorResultTable: resultTable,
    mirrorsDiff: async (r) => {
      if (h.failDiff) throw h.failDiff;
      h.requests.push(r);
      r.hostFor?.({ node: 'win-1', address: '10.0.0.5' });
      return answer(r);
    },
    mirrorsApply: async (r) => {
      h.requests.push(r);
      const out = await answer(r);
      for (const n of out.nodes) {
        const t = { node: n.node, address: n.address };
        r.onEvent?.(t, { type: 'plan-start', time: 0, planId: 'mirrors-push', title: 'x', target: n.node, steps: [] });
        if (n.status === 'failed')
          r.onEvent?.(t, {
            type: 'step-end',
            time: 0,
            stepId: 'swap',
            outcome: 'failed',
            durationMs: 5,
            message: n.reason ?? '',
          });
        r.onEvent?.(t, {
          type: 'plan-end',
          time: 0,
          planId: 'mirrors-push',
          outcome: n.status === 'failed' ? 'failed' : 'done',
          durationMs: 1200,
        });
      }
      return out;
    },
  };
  const log = (fake.module.window as unknown as typeof vscode.window).createOutputChannel('kube-windows', {
    log: true,
  });
  registerMirrorCommands(makeContext(keyPaths), log, deps);
  return h;
}

test('preview from a cluster item: remembered key, tree and files (credentials masked), per-node diff', async () => {
  const current = {
    exists: true,
    files: [
      {
        path: 'docker.io\\hosts.toml',
        sha256: '0'.repeat(64),
        size: 10,
        content: Buffer.from('server = "https://docker.io"\n').toString('base64'),
      },
    ],
  };
  const h = await harness({}, { prod: KEY }, () => {
    const r = outcome([]);
    const desired = new Map(r.render.files.map((f) => [`${f.dir}\\hosts.toml`, f.content]));
    return {
      ...r,
      nodes: [
        { node: 'win-1', address: '10.0.0.5', status: 'changed', diff: diffTree(current, desired), durationMs: 3 },
      ],
    };
  });
  fake.replies.push('SSH as Administrator');
  await h.run('kubeWindows.previewMirrors', {
    id: 'ctx/prod',
    contextValue: 'cluster',
    ref: { kind: 'cluster', context: 'prod' },
  });
  assert.equal(h.requests.length, 1);
  assert.equal(h.requests[0]!.objects, undefined, "the cluster's own mirror sets");
  assert.equal(h.requests[0]!.concurrency, 8);
  assert.deepEqual(
    h.hosts.map((o) => [o.host, o.username, o.privateKeyPath]),
    [['10.0.0.5', 'Administrator', KEY]],
  );
  const doc = fake.documents.at(-1)!;
  assert.equal(doc.shown, 1);
  // A read-only virtual document served by the extension's content provider, shown as markdown.
  assert.equal(doc.uri?.scheme, 'kube-windows-mirrors');
  assert.equal(doc.languageId, 'markdown');
  assert.match(doc.content, /^# Registry mirror configuration for prod, from the cluster's/);
  assert.match(doc.content, /No WMCO: kube-windows owns each Windows node's/, 'the case this cluster is');
  // The tree, each file as fenced TOML, each node's change as a fenced diff: Markdown that renders.
  assert.match(doc.content, /```text\nC:\\Program Files\\containerd\\certs\.d\\\n└── docker\.io\\hosts\.toml\n```/);
  assert.match(doc.content, /## `docker\.io\\hosts\.toml`\n\n```toml\n[^`]*authorization = "Basic •••"[^`]*\n```/);
  assert.ok(
    !doc.content.includes('hunter2') && !doc.content.includes(Buffer.from('u:hunter2-secret').toString('base64')),
    'no credential in the preview',
  );
  assert.match(
    doc.content,
    /### win-1 \(10\.0\.0\.5\): 0 added, 1 changed, 0 removed, 0 unchanged\n\nchanged `docker\.io\\hosts\.toml`\n\n```diff\n--- a\/docker\.io\/hosts\.toml\n\+\+\+ b\/docker\.io\/hosts\.toml\n@@ [^`]+\n```\n/,
  );
  assert.equal((doc.content.match(/^```/gm) ?? []).length % 2, 0, 'every fence is closed');
});

test("preview without SSH uses the active YAML editor's mirror sets; cancelling the SSH question does nothing", async () => {
  const h = await harness({ 'kubeWindows.mirrors.concurrency': 3 }, {}, () => outcome([]));
  fake.setActiveDocument('file:///work/mirrors.yaml');
  const editor = (fake.module.window as unknown as { activeTextEditor: { document: Record<string, unknown> } })
    .activeTextEditor;
  editor.document.getText = () =>
    `${JSON.stringify(IDMS)}\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n`;
  fake.replies.push('prod', 'Without reading the nodes');
  await h.run('kubeWindows.previewMirrors');
  assert.deepEqual(fake.questions[0]?.items, ['prod', 'dev']);
  assert.deepEqual(
    fake.questions[1]?.items,
    ['Another user or key…', 'Without reading the nodes'],
    'no remembered key: not offered',
  );
  assert.equal(h.requests[0]!.hostFor, undefined);
  assert.equal(h.requests[0]!.concurrency, 3);
  assert.deepEqual(h.requests[0]!.objects, [IDMS], 'only the mirror sets of the editor');
  assert.match(fake.documents.at(-1)!.content, /from mirrors\.yaml/);

  fake.replies.push(undefined);
  await h.run('kubeWindows.previewMirrors', 'prod');
  assert.equal(h.requests.length, 1, 'cancelled: the engine is not called');

  // The cluster cannot be reached: the editor's sets are still rendered, without node diffs.
  fake.replies.push('Without reading the nodes');
  const docs = fake.documents.length;
  h.failDiff = new Error('connect ECONNREFUSED 10.0.0.1:6443');
  await h.run('kubeWindows.previewMirrors', 'prod');
  assert.equal(fake.documents.length, docs + 1);
  assert.match(fake.documents.at(-1)!.content, /cluster not reachable: .*; no node diff\)\n/);
  assert.match(fake.documents.at(-1)!.content, /└── docker\.io\\hosts\.toml/);
});

test('apply: modal confirmation, progress, per-node lines and the final table in the output channel; a failure warns with Show log', async () => {
  const nodes: NodeResult[] = [
    { node: 'win-1', address: '10.0.0.5', status: 'changed', durationMs: 1200 },
    { node: 'win-2', address: '10.0.0.6', status: 'unchanged', durationMs: 300 },
    {
      node: 'win-3',
      address: '10.0.0.7',
      status: 'failed',
      reason: 'swap-hosts-tree failed; the previous configuration was restored',
      rolledBack: true,
      durationMs: 900,
    },
  ];
  const h = await harness({}, { prod: KEY }, () => outcome(nodes));
  fake.answers.push('Apply');
  fake.replies.push('SSH as Administrator');
  fake.answers.push('Show log');
  await h.run('kubeWindows.applyMirrors', {
    id: 'ctx/prod',
    contextValue: 'cluster',
    ref: { kind: 'cluster', context: 'prod' },
  });
  const confirm = fake.shown[0]!;
  assert.equal(confirm.kind, 'warning');
  assert.equal(confirm.options?.modal, true);
  assert.deepEqual(confirm.items, ['Apply']);
  // Not WMCO: the confirmation says the files are pushed over SSH, and who owns them.
  assert.match(
    confirm.message,
    /push the cluster's mirror sets to the Windows nodes of prod as containerd hosts\.toml files over SSH\?/,
  );
  assert.match(
    confirm.options?.detail ?? '',
    /No WMCO: kube-windows owns each Windows node's C:\\Program Files\\containerd\\certs\.d/,
  );
  const run = fake.progressRuns.at(-1)!;
  assert.equal(run.options.cancellable, true);
  assert.ok(run.reports.some((r) => r.message === '3 nodes done; last: win-3'));
  const channel = fake.logs.find((l) => l.name === 'kube-windows: mirrors prod')!;
  const text = channel.lines.map((l) => l.text).join('\n');
  assert.match(text, /\[win-3\] swap failed: swap-hosts-tree failed/);
  assert.match(text, /NODE {2,}ADDRESS {2,}RESULT {2,}DETAIL\nwin-1 {2,}10\.0\.0\.5 {2,}changed/);
  assert.match(
    text,
    /win-3 {2,}10\.0\.0\.7 {2,}failed {2,}swap-hosts-tree failed; the previous configuration was restored/,
  );
  const summary = fake.shown.at(-1)!;
  assert.equal(summary.kind, 'warning');
  assert.match(
    summary.message,
    /^kube-windows: prod: 1 node changed, 1 unchanged, 1 failed\. 1 node failed and kept its previous tree: fix the cause in the log and apply again\./,
  );
  // What to do about drift: nothing watches the nodes, Preview shows it, Apply again repairs it.
  assert.match(
    summary.message,
    /drifts from the mirror sets; Preview mirror config shows the drift and Apply mirror config again repairs it/,
  );
  assert.deepEqual(summary.items, ['Show log', 'Preview mirror config']);
  assert.ok(channel.shown >= 2);
});

test('apply: declining the confirmation changes nothing; a WMCO cluster reports objects and convergence', async () => {
  const h = await harness({}, {}, () =>
    outcome([{ node: 'byoh-a', address: '10.0.0.9', status: 'converged', durationMs: 10 }], {
      wmco: true,
      mode: 'wmco',
      objects: [{ kind: 'ImageDigestMirrorSet', name: 'm', action: 'created' }],
    }),
  );
  h.wmco = true;
  // Escape at the SSH question: no confirmation is shown, nothing runs (the confirmation comes last).
  fake.replies.push(undefined);
  await h.run('kubeWindows.applyMirrors', 'prod');
  assert.equal(fake.shown.length, 0);
  fake.replies.push('Without SSH (WMCO clusters: objects only, no verification)');
  fake.answers.push(undefined);
  await h.run('kubeWindows.applyMirrors', 'prod');
  assert.equal(h.requests.length, 0);
  // A WMCO cluster: the confirmation says the objects are applied and WMCO writes the files.
  const confirm = fake.shown[0]!;
  assert.match(
    confirm.message,
    /as ImageDigestMirrorSet \/ ImageTagMirrorSet objects\? WMCO then rewrites the Windows nodes' hosts\.toml/,
  );
  assert.match(
    confirm.options?.detail ?? '',
    /OpenShift with WMCO: .*kube-windows writes no file on the nodes.*Without SSH, whether WMCO converged is not checked/,
  );

  fake.answers.push('Apply');
  fake.replies.push('Without SSH (WMCO clusters: objects only, no verification)');
  await h.run('kubeWindows.applyMirrors', 'prod');
  assert.equal(h.requests.length, 1);
  assert.equal(h.requests[0]!.wmco, true, 'the case decided once, before the confirmation');
  const summary = fake.shown.at(-1)!;
  assert.equal(summary.kind, 'information');
  assert.equal(summary.message, 'kube-windows: prod: 1 mirror set changed; 1 node converged, 0 drifting.');
  const text = fake.logs
    .find((l) => l.name === 'kube-windows: mirrors prod')!
    .lines.map((l) => l.text)
    .join('\n');
  assert.match(text, /ImageDigestMirrorSet\/m: created/);
});

test('apply on WMCO with drift: the result says WMCO has not converged yet and what to do; Preview opens the diff', async () => {
  const h = await harness({}, { prod: KEY }, () =>
    outcome(
      [
        {
          node: 'byoh-a',
          address: '10.0.0.9',
          status: 'drift',
          reason:
            'C:\\k\\containerd\\registries differs from what WMCO should write (0 added, 1 changed, 0 removed, 0 unchanged)',
          durationMs: 10,
        },
      ],
      { wmco: true, mode: 'wmco', objects: [{ kind: 'ImageDigestMirrorSet', name: 'm', action: 'updated' }] },
    ),
  );
  h.wmco = true;
  fake.replies.push('SSH as Administrator', 'Without reading the nodes');
  fake.answers.push('Apply', 'Preview mirror config');
  await h.run('kubeWindows.applyMirrors', 'prod');
  const summary = fake.shown.find((m) => m.kind === 'warning' && !m.options?.modal)!;
  assert.match(summary.message, /^kube-windows: prod: 1 mirror set changed; 0 nodes converged, 1 drifting\./);
  assert.match(
    summary.message,
    /WMCO has not written what the mirror sets say on 1 node yet: it reconciles on its own, so run Preview mirror config in a few minutes/,
  );
  assert.match(summary.message, /Do not edit C:\\k\\containerd\\registries by hand: WMCO overwrites it\./);
  assert.deepEqual(summary.items, ['Show log', 'Preview mirror config']);
  // "Preview mirror config" asks how to read the nodes and opens the preview of the same cluster.
  assert.equal(h.requests.length, 2, 'apply, then the preview diff');
  assert.equal(fake.documents.at(-1)?.uri?.scheme, 'kube-windows-mirrors');
});

test('the mirror questions are one multi-step input: counter, Back to the cluster, the remembered user and key offered', async () => {
  const h = await harness({}, { prod: KEY }, () => outcome([]));
  fake.replies.push('prod', BACK, 'dev', 'Another user or key…', BACK, 'Another user or key…', 'svc-admin', KEY);
  fake.answers.push(undefined);
  await h.run('kubeWindows.previewMirrors');
  const q = fake.questions;
  assert.deepEqual(
    q.map((x) => [x.kind, x.step, x.totalSteps, x.back]),
    [
      ['quickPick', 1, 2, false],
      ['quickPick', 2, 2, true],
      ['quickPick', 1, 2, false],
      ['quickPick', 2, 2, true],
      ['input', 3, 4, true],
      ['quickPick', 2, 4, true],
      ['input', 3, 4, true],
      // No key known for dev: the key question is the file dialog itself.
      ['open', undefined, undefined, undefined],
    ],
  );
  assert.deepEqual(q[2]?.options.activeItems, ['prod'], 'Back shows the earlier answer');
  assert.deepEqual(q[1]?.items, ['SSH as Administrator', 'Another user or key…', 'Without reading the nodes']);
  assert.deepEqual(q[3]?.items, ['Another user or key…', 'Without reading the nodes'], 'dev has no remembered key');
  assert.equal(q[4]?.options.value, 'Administrator');
  assert.deepEqual(
    h.hosts.map((o) => [o.username, o.privateKeyPath]),
    [['svc-admin', KEY]],
  );
  assert.equal(h.requests.length, 1);
});
