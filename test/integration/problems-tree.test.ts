// The "Windows workload problems" tree model (src/views/problems-tree.ts) against the API emulator: objects
// with findings grouped with counts and severity icons, a failing Windows pod with its failure
// explanation, a kind the user may not list (the rest still shown, with a line naming what was not
// read), an unreachable cluster (an item, no stack), the namespace scope, and the live YAML document
// with the findings at their ranges.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProblemsTree } from '../../src/views/problems-tree';
import type { ProblemNode } from '../../src/views/problem-item';
import { checkText } from '../../src/core/rules/checker';
import { LineIndex, type Range } from '../../src/core/manifest/text';
import type { Emulator } from '../support/kube-api-emulator';
import { startProblemsEmulator, writeProblemsKubeconfig } from '../support/problems-seed';

let emu: Emulator;
let dir: string;
let kubeconfig: string;

before(async () => {
  emu = await startProblemsEmulator();
  dir = mkdtempSync(join(tmpdir(), 'kw-problems-'));
  kubeconfig = writeProblemsKubeconfig(emu, dir);
});
after(async () => {
  await emu.stop();
  rmSync(dir, { recursive: true, force: true });
});

const newTree = () =>
  new ProblemsTree({ locate: { explicit: kubeconfig }, timeoutMs: 3000, now: () => new Date('2026-11-25T09:00:00Z') });
const labels = (nodes: ProblemNode[]) => nodes.map((n) => n.label);

test('the current context, all namespaces: objects with findings (counts, severity icon), then their findings with rule ids', async () => {
  const tree = newTree();
  const roots = await tree.children();
  assert.deepEqual(labels(roots), ['Deployment web/iis', 'DaemonSet web/agent', 'Pod web/api-0']);
  assert.equal(await tree.scopeLabel(), 'lab · all namespaces');
  const iis = roots[0];
  assert.equal(iis.contextValue, 'liveObject');
  assert.equal(iis.collapsible, 'collapsed');
  assert.deepEqual(iis.icon, { id: 'error', color: 'problemsErrorIcon.foreground' });
  assert.match(iis.description ?? '', /^1 error(, \d+ warnings?)?(, \d+ infos?)?$/);
  assert.deepEqual(iis.command, {
    id: 'kubeWindows.openLiveObject',
    title: 'Open the live YAML',
    args: [{ kind: 'Deployment', namespace: 'web', name: 'iis' }],
  });
  const findings = await tree.children(iis);
  const privileged = findings.find((f) => f.contextValue === 'liveFinding' && f.icon.id === 'error');
  assert.ok(privileged, labels(findings).join(', '));
  assert.match(privileged.label, /^WIN\d{3}$/);
  assert.match(privileged.tooltip, /securityContext\.privileged/);
  assert.deepEqual(privileged.command?.args, [
    { kind: 'Deployment', namespace: 'web', name: 'iis' },
    privileged.finding,
  ]);
  // The count in the description is the number of findings under the object.
  const total = (iis.description ?? '').split(', ').reduce((n, part) => n + Number(part.split(' ')[0]), 0);
  assert.equal(total, findings.length);
  assert.deepEqual(await tree.children(privileged), []);
});

test('a failing Windows pod shows its failure explanation with the WINF id and the fix', async () => {
  const tree = newTree();
  const pod0 = (await tree.children()).find((n) => n.label === 'Pod web/api-0');
  assert.ok(pod0);
  const findings = await tree.children(pod0);
  const winf = findings.find((f) => f.label === 'WINF001');
  assert.ok(winf, labels(findings).join(', '));
  assert.match(winf.description ?? '', /needs Windows Server 2019 \(10\.0\.17763\); node win-1 runs 10\.0\.20348/);
  assert.equal(winf.icon.id, 'error');
});

test('a kind the user may not list: a line says what was not read and why; the other kinds are still checked', async () => {
  const tree = newTree();
  tree.setScope({ context: 'restricted' });
  const roots = await tree.children();
  assert.deepEqual(labels(roots), ['DaemonSets not read', 'Deployment web/iis', 'Pod web/api-0']);
  const line = roots[0];
  assert.equal(line.contextValue, 'info');
  assert.equal(line.icon.id, 'warning');
  assert.match(
    line.description ?? '',
    /You are not allowed to list daemonsets.* \(403 Forbidden\)\. Ask a cluster administrator for this permission\./,
  );
  assert.doesNotMatch(line.tooltip, /at .*\.js:\d+/);
  assert.equal(await tree.scopeLabel(), 'restricted · all namespaces');
});

test('an unreachable cluster is one error item that retries; no stack trace', async () => {
  const tree = newTree();
  tree.setScope({ context: 'down' });
  const roots = await tree.children();
  assert.equal(roots.length, 1);
  const [error] = roots;
  assert.equal(error.contextValue, 'error');
  assert.match(
    error.description ?? '',
    /^Cluster "down" does not answer.*\(ECONNREFUSED\)\. Check the network, VPN or proxy, and that the cluster is running\.$/,
  );
  assert.doesNotMatch(`${error.description} ${error.tooltip}`, /\n\s+at |Error:/);
  assert.deepEqual(error.command, { id: 'kubeWindows.refreshProblems', title: 'Retry', args: [] });
  assert.equal(await tree.document({ kind: 'Deployment', namespace: 'web', name: 'iis' }), undefined);
});

test('one namespace: only its objects; a clean namespace says how many objects were checked', async () => {
  const tree = newTree();
  tree.setScope({ namespace: 'clean' });
  const roots = await tree.children();
  assert.deepEqual(
    roots.map((n) => [n.label, n.description]),
    [['No Windows workload problems', '1 object checked']],
  );
  assert.equal(await tree.scopeLabel(), 'lab · namespace clean');
  const from = emu.requests.length;
  tree.refresh();
  await tree.children();
  const paths = emu.requests.slice(from).map((r) => r.path);
  assert.ok(paths.includes('/api/v1/namespaces/clean/pods') && !paths.includes('/api/v1/pods'), paths.join('\n'));
});

test('nothing is read until the view asks; a refresh reads again, once', async () => {
  const from = emu.requests.length;
  const tree = newTree();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(emu.requests.length, from, 'constructing the model contacts nobody');
  let changes = 0;
  tree.onDidChange(() => changes++);
  await Promise.all([tree.children(), tree.children()]);
  const once = emu.requests.slice(from).filter((r) => r.path === '/apis/apps/v1/deployments').length;
  assert.equal(once, 1, 'two asks share one read');
  tree.refresh();
  assert.equal(changes, 1);
  await tree.children();
  assert.equal(emu.requests.slice(from).filter((r) => r.path === '/apis/apps/v1/deployments').length, 2);
});

const textAt = (text: string, r: Range): string => {
  const lines = new LineIndex(text);
  return text.slice(lines.offsetAt(r.start), lines.offsetAt(r.end));
};

test('the live YAML: managedFields dropped, every finding at the range the engine gives on that text, explanations at their field', async () => {
  const tree = newTree();
  const roots = await tree.children();
  const doc = await tree.document({ kind: 'Deployment', namespace: 'web', name: 'iis' });
  assert.ok(doc);
  assert.equal(doc.title, 'Deployment web/iis');
  assert.equal(doc.context, 'lab');
  assert.doesNotMatch(doc.text, /^\s*managedFields:/m);
  assert.match(
    doc.text,
    /^# Deployment web\/iis on cluster "lab" as kube-windows read it at 2026-11-25T09:00:00\.000Z \(read-only\)\.\n/,
  );
  const findings = await tree.children(roots[0]);
  assert.deepEqual(
    doc.findings.map((f) => f.ruleId),
    findings.map((f) => f.label),
    'the document has the findings of the view, in its order',
  );
  // The engine's own check of the same text puts each rule finding at the same range.
  const engine = checkText(doc.text).findings;
  for (const f of doc.findings) {
    const same = engine.find((e) => e.ruleId === f.ruleId && e.message === f.message);
    assert.ok(same, `${f.ruleId} not found by the engine on the document text`);
    assert.deepEqual(f.range, same.range);
  }
  const privileged = doc.findings.find((f) => f.path.endsWith('securityContext.privileged'));
  assert.ok(privileged);
  assert.equal(textAt(doc.text, privileged.range), 'privileged');

  const pod0 = await tree.document({ kind: 'Pod', namespace: 'web', name: 'api-0' });
  assert.ok(pod0);
  const winf = pod0.findings.find((f) => f.ruleId === 'WINF001');
  assert.ok(winf);
  assert.equal(winf.path, 'spec.containers[0].image');
  assert.equal(textAt(pod0.text, winf.range), 'image');
  const line = pod0.text.split('\n')[winf.range.start.line];
  assert.match(line, /^\s+(- )?image: mcr\.microsoft\.com\/windows\/servercore:ltsc2019$/);
  assert.equal(await tree.document({ kind: 'Deployment', namespace: 'web', name: 'gone' }), undefined);
});
