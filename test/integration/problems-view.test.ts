// The Windows workload problems view's VS Code side (src/extension/problems-view.ts) with the fake
// vscode module against the API emulator: nothing read before the view asks, TreeItems with counts
// and severity icons, the view's description naming the scope, opening a finding (a read-only live
// YAML document with the diagnostics at the engine's ranges and the cursor on the finding), the
// context and namespace commands, and the diagnostics let go when the document closes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ProblemNode } from '../../src/views/problem-item';
import { LineIndex } from '../../src/core/manifest/text';
import type { Emulator } from '../support/kube-api-emulator';
import {
  createFakeVscode,
  hookVscodeModule,
  type FakeRange,
  type FakeThemeIcon,
  type FakeTreeItem,
  type FakeVscode,
} from '../support/fake-vscode';
import { startProblemsEmulator, writeProblemsKubeconfig } from '../support/problems-seed';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
let emu: Emulator;
let dir: string;
let kubeconfig: string;

before(async () => {
  emu = await startProblemsEmulator();
  dir = mkdtempSync(join(tmpdir(), 'kw-problems-view-'));
  kubeconfig = writeProblemsKubeconfig(emu, dir);
});
after(async () => {
  unhook();
  await emu.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function register() {
  fake = createFakeVscode({ 'kubeWindows.kubeconfig': kubeconfig });
  const { registerProblemsView } = await import('../../src/extension/problems-view');
  const context = { subscriptions: [] as { dispose(): unknown }[] };
  registerProblemsView(context as never, createLog() as never);
  const view = fake.treeViews.find((v) => v.id === 'kubeWindows.problems');
  assert.ok(view, 'the view is created');
  const provider = view.options.treeDataProvider as {
    getChildren(n?: ProblemNode): Promise<ProblemNode[]>;
    getTreeItem(n: ProblemNode): FakeTreeItem;
  };
  return { context, view, provider, dispose: () => context.subscriptions.forEach((d) => d.dispose()) };
}

function createLog() {
  return (fake.module.window as { createOutputChannel(n: string, o: unknown): unknown }).createOutputChannel(
    'kube-windows',
    { log: true },
  );
}

test('nothing is read until the view asks; then objects with counts and severity icons, the scope in the description', async () => {
  const from = emu.requests.length;
  const { view, provider, dispose } = await register();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(emu.requests.length, from, 'registering contacts no cluster');
  const roots = await provider.getChildren();
  assert.deepEqual(
    roots.map((n) => n.label),
    ['Deployment web/iis', 'DaemonSet web/agent', 'Pod web/api-0'],
  );
  assert.equal(view.handle.description, 'lab · all namespaces');
  assert.deepEqual(fake.executed.at(-1), ['setContext', 'kubeWindows.problemsNamespaced', false]);
  const item = provider.getTreeItem(roots[0]);
  assert.equal(item.id, 'problems/object/Deployment/web/iis');
  assert.equal(item.collapsibleState, 1);
  assert.equal(item.contextValue, 'liveObject');
  assert.equal((item.iconPath as FakeThemeIcon).id, 'error');
  assert.equal((item.iconPath as FakeThemeIcon).color?.id, 'problemsErrorIcon.foreground');
  assert.match(item.description ?? '', /^1 error/);
  dispose();
});

test('opening a finding: the live YAML read-only, its diagnostics at the engine ranges, the cursor on the finding', async () => {
  const { provider, dispose } = await register();
  const [, , podItem] = await provider.getChildren();
  const findings = await provider.getChildren(podItem);
  const winf = findings.find((f) => f.label === 'WINF001');
  assert.ok(winf?.command);
  const item = provider.getTreeItem(winf);
  assert.equal(item.command?.command, 'kubeWindows.openLiveObject');
  await fake.commands.get('kubeWindows.openLiveObject')?.(...(item.command?.arguments ?? []));
  const doc = fake.documents.at(-1);
  assert.ok(doc?.uri);
  assert.equal(doc.uri.toString(), 'kube-windows-live:/lab/Pod/web/api-0.yaml');
  assert.equal(doc.languageId, 'yaml');
  assert.equal(doc.shown, 1);
  const [collection] = fake.diagnosticCollections;
  const diagnostics = collection.entries.get(doc.uri.toString()) ?? [];
  assert.deepEqual(
    diagnostics.map((d) => d.code),
    findings.map((f) => f.label),
  );
  const d = diagnostics.find((x) => x.code === 'WINF001');
  assert.ok(d);
  assert.equal(d.severity, 0, 'an error');
  assert.equal(d.source, 'kube-windows');
  assert.equal(d.message, winf.description);
  const lines = new LineIndex(doc.content);
  const under = doc.content.slice(
    lines.offsetAt({ line: d.range.startLine, character: d.range.startCharacter }),
    lines.offsetAt({ line: d.range.endLine, character: d.range.endCharacter }),
  );
  assert.equal(under, 'image');
  assert.match(doc.content.split('\n')[d.range.startLine], /image: mcr\.microsoft\.com\/windows\/servercore:ltsc2019$/);
  assert.deepEqual(doc.showOptions?.selection as FakeRange, d.range, 'the cursor is on the finding');

  // The object item opens the same document at its first finding.
  const [, , again] = await provider.getChildren();
  await fake.commands.get('kubeWindows.openLiveObject')?.(again);
  assert.deepEqual(fake.documents.at(-1)?.showOptions?.selection, diagnostics[0].range);

  // Closing the document lets its diagnostics go (they would stay in the Problems panel otherwise).
  fake.closeDocument(doc);
  assert.equal(collection.entries.has(doc.uri.toString()), false);
  dispose();
});

test('another context: the pick lists the kubeconfig contexts; a kind the user may not list is a line, the rest shown', async () => {
  const { view, provider, dispose } = await register();
  await provider.getChildren();
  fake.replies.push('restricted');
  await fake.commands.get('kubeWindows.problemsPickContext')?.();
  assert.deepEqual(fake.questions.at(-1)?.items, ['lab', 'restricted', 'down']);
  const roots = await provider.getChildren();
  assert.deepEqual(
    roots.map((n) => n.label),
    ['DaemonSets not read', 'Deployment web/iis', 'Pod web/api-0'],
  );
  assert.equal(view.handle.description, 'restricted · all namespaces');
  fake.replies.push('down');
  await fake.commands.get('kubeWindows.problemsPickContext')?.();
  const [error] = await provider.getChildren();
  const item = provider.getTreeItem(error);
  assert.equal(item.contextValue, 'error');
  assert.match(item.description ?? '', /Cluster "down" does not answer/);
  assert.deepEqual(item.command, { command: 'kubeWindows.refreshProblems', title: 'Retry', arguments: [] });
  assert.deepEqual(
    fake.shown.filter((s) => s.kind === 'error'),
    [],
    'errors are items, never dialogs',
  );
  dispose();
});

test('one namespace: validated input, the scope in the description, then back to all namespaces', async () => {
  const { view, provider, dispose } = await register();
  fake.replies.push('Not_A_Namespace', 'clean');
  await fake.commands.get('kubeWindows.problemsScopeNamespace')?.();
  assert.equal(fake.questions.at(-1)?.rejected?.length, 1);
  const roots = await provider.getChildren();
  assert.deepEqual(
    roots.map((n) => [n.label, n.description]),
    [['No Windows workload problems', '1 object checked']],
  );
  assert.equal(view.handle.description, 'lab · namespace clean');
  assert.deepEqual(fake.executed.at(-1), ['setContext', 'kubeWindows.problemsNamespaced', true]);
  await fake.commands.get('kubeWindows.problemsAllNamespaces')?.();
  assert.equal((await provider.getChildren()).length, 3);
  assert.equal(view.handle.description, 'lab · all namespaces');
  dispose();
});

test('manifest: the view in the kubeWindows container, its title and item menus only where they work', () => {
  const pkg = JSON.parse(readFileSync(resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
  const c = pkg.contributes;
  const view = c.views.kubeWindows.find((v: { id: string }) => v.id === 'kubeWindows.problems');
  assert.equal(view?.name, 'Windows workload problems');
  const title: { command: string; when: string }[] = c.menus['view/title'].filter((m: { when: string }) =>
    m.when.startsWith('view == kubeWindows.problems'),
  );
  assert.deepEqual(title.map((m) => m.command).sort(), [
    'kubeWindows.problemsAllNamespaces',
    'kubeWindows.problemsPickContext',
    'kubeWindows.problemsScopeNamespace',
    'kubeWindows.refreshProblems',
  ]);
  assert.match(
    title.find((m) => m.command === 'kubeWindows.problemsAllNamespaces')?.when ?? '',
    /kubeWindows\.problemsNamespaced/,
  );
  const open = c.menus['view/item/context'].find(
    (m: { command: string }) => m.command === 'kubeWindows.openLiveObject',
  );
  const r = new RegExp(/viewItem =~ \/(.*)\//.exec(open.when)?.[1] ?? '$^');
  for (const v of ['liveObject', 'liveFinding']) assert.match(v, r);
  for (const v of ['error', 'info']) assert.doesNotMatch(v, r);
});
