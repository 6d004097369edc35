// The extension glue without VS Code: the status text (pure), and activation of the real bundle
// against a fake `vscode` module (commands, status item, settings, start failures). Starting a
// real language server inside VS Code is the e2e suite's job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { describeStatus } from '../../src/extension/status-text';
import { NOT_KUBERNETES, isStatusParams, type StatusParams } from '../../src/shared/protocol';
import { createFakeVscode, loadWithFakeVscode, type FakeVscode } from '../support/fake-vscode';
import { EXTENSION_COMMANDS } from '../support/commands';

const BUNDLE = resolve(__dirname, '..', '..', '..', 'dist', 'extension.js');

const status = (s: Partial<StatusParams>): StatusParams => ({
  uri: 'file:///a.yaml',
  workloads: 0,
  windowsWorkloads: 0,
  findings: 0,
  errors: 0,
  ...s,
});

test('status text: Windows workloads and findings of the active document', () => {
  assert.equal(
    describeStatus('running', status({ workloads: 5, windowsWorkloads: 3, findings: 2, errors: 1 })).text,
    'kube-windows: 3 Windows workloads, 2 findings',
  );
  assert.equal(
    describeStatus('running', status({ workloads: 1, windowsWorkloads: 1, findings: 1 })).text,
    'kube-windows: 1 Windows workload, 1 finding',
  );
  assert.equal(
    describeStatus('running', status({ workloads: 2, windowsWorkloads: 1 })).text,
    'kube-windows: 1 Windows workload, no findings',
  );
  assert.equal(
    describeStatus('running', status({ workloads: 4 })).text,
    'kube-windows: no Windows workloads, no findings',
  );
  assert.equal(describeStatus('running', status({})).text, 'kube-windows: no workloads');
  assert.equal(describeStatus('running', status({ findings: 3 })).text, 'kube-windows: no workloads, 3 findings');
  const detail = describeStatus(
    'running',
    status({ workloads: 5, windowsWorkloads: 3, findings: 2, errors: 1 }),
  ).detail;
  assert.match(detail, /5 workloads in this file, 3 of them for Windows/);
  assert.match(detail, /2 findings \(1 error\)/);
});

test('status text: skipped documents and server states', () => {
  assert.equal(
    describeStatus('running', status({ skipped: NOT_KUBERNETES })).text,
    'kube-windows: not a Kubernetes file',
  );
  assert.equal(
    describeStatus('running', status({ skipped: 'outside kubeWindows.files.include' })).text,
    'kube-windows: not analysed: outside kubeWindows.files.include',
  );
  const big = describeStatus(
    'running',
    status({ skipped: 'file is 12 MiB, over the 10 MiB limit for one manifest; split it or raise the limit' }),
  );
  assert.equal(big.text, 'kube-windows: not analysed: file is 12 MiB, over the 10 MiB limit for one manifest');
  assert.match(big.detail, /split it or raise the limit/);
  assert.equal(describeStatus('running', undefined).text, 'kube-windows: not checked yet');
  // Not running: the state wins over a stale status.
  const last = status({ workloads: 1, windowsWorkloads: 1 });
  assert.equal(describeStatus('disabled', last).text, 'kube-windows: off');
  assert.deepEqual(
    { ...describeStatus('starting', last), detail: '' },
    { text: 'kube-windows: starting', detail: '', severity: 'information', busy: true },
  );
  assert.equal(describeStatus('failed', last).severity, 'error');
  assert.equal(describeStatus('stopped', last).severity, 'warning');
});

test('status notifications are validated before they reach the UI', () => {
  assert.ok(isStatusParams(status({ workloads: 1 })));
  assert.ok(isStatusParams(status({ skipped: 'x' })));
  assert.ok(!isStatusParams(null));
  assert.ok(!isStatusParams({ uri: 'file:///a.yaml' }));
  assert.ok(!isStatusParams(status({ findings: -1 })));
  assert.ok(!isStatusParams(status({ workloads: 1.5 })));
  assert.ok(!isStatusParams({ ...status({}), skipped: 3 }));
});

interface Extension {
  activate(context: unknown): void;
  deactivate(): Promise<void> | undefined;
  sendClusterSnapshot(snapshot: unknown): Promise<void>;
}

function activate(
  settings: Record<string, unknown> = {},
  serverRoot = join(tmpdir(), 'kube-windows-no-such-extension'),
) {
  const fake = createFakeVscode(settings);
  const ext = loadWithFakeVscode<Extension>(BUNDLE, fake);
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    asAbsolutePath: (p: string) => join(serverRoot, p),
    globalState: { get: () => undefined, update: async () => undefined },
  };
  return { fake, ext, context };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

function noStack(fake: FakeVscode) {
  for (const m of fake.shown)
    assert.doesNotMatch(m.message, /\n|\bat .+:\d+:\d+/, `a stack trace reached the user: ${m.message}`);
}

test('activation: commands, log channel and a YAML language status item; a missing server is one clear message', async () => {
  const { fake, ext, context } = activate();
  fake.answers.push('Show log');
  ext.activate(context);
  await settle();

  assert.deepEqual([...fake.commands.keys()].sort(), EXTENSION_COMMANDS);
  assert.equal(fake.logs.length, 1);
  assert.equal(fake.logs[0].name, 'kube-windows');
  assert.deepEqual(fake.logs[0].options, { log: true });
  assert.equal(fake.statusItems.length, 1);
  const item = fake.statusItems[0];
  assert.deepEqual(item.selector, [
    { language: 'yaml', scheme: 'file' },
    { language: 'yaml', scheme: 'untitled' },
  ]);
  assert.equal(item.command?.command, 'kubeWindows.showLog');

  // dist/server.js does not exist under this fake extension folder.
  assert.equal(fake.shown.length, 1);
  assert.equal(fake.shown[0].kind, 'error');
  assert.match(
    fake.shown[0].message,
    /^kube-windows: the language server is missing from the extension .*dist[\\/]server\.js/,
  );
  assert.match(fake.shown[0].message, /Reinstall/);
  assert.deepEqual(fake.shown[0].items, ['Show log']);
  noStack(fake);
  assert.equal(fake.logs[0].shown, 1, '"Show log" opens the log');
  assert.ok(fake.logs[0].lines.some((l) => l.level === 'error'));
  assert.equal(item.text, 'kube-windows: server not running');
  assert.equal(item.severity, 2);

  await fake.commands.get('kubeWindows.showLog')?.();
  assert.equal(fake.logs[0].shown, 2);

  // Restart tries again, with a progress notification, and reports again (once).
  await fake.commands.get('kubeWindows.restartServer')?.();
  assert.deepEqual(fake.progress, ['kube-windows: restarting the language server…']);
  assert.equal(fake.shown.length, 2);
  noStack(fake);

  // The cluster explorer may send a snapshot while no server runs: kept, no error.
  await ext.sendClusterSnapshot({ name: 'c', windowsNodes: [], runtimeClasses: [] });

  await ext.deactivate();
  for (const d of context.subscriptions) d.dispose();
  assert.ok(item.disposed);
});

test('kubeWindows.enable: false keeps the server off, true starts it, without a reload', async () => {
  const { fake, ext, context } = activate({ 'kubeWindows.enable': false });
  ext.activate(context);
  await settle();
  const item = fake.statusItems[0];
  assert.equal(item.text, 'kube-windows: off');
  assert.equal(fake.shown.length, 0, 'turned off: nothing to report');

  // Restart while off says why, and offers the setting.
  fake.answers.push('Open setting');
  await fake.commands.get('kubeWindows.restartServer')?.();
  assert.equal(fake.shown.length, 1);
  assert.equal(fake.shown[0].kind, 'information');
  assert.match(fake.shown[0].message, /kubeWindows\.enable is false/);
  assert.deepEqual(fake.executed.at(-1), ['workbench.action.openSettings', 'kubeWindows.enable']);
  assert.equal(fake.progress.length, 0);

  // Other settings do not start or stop anything: they reach the server through configuration sync.
  fake.setSettings({ 'kubeWindows.debounceMs': 300 });
  await settle();
  assert.equal(item.text, 'kube-windows: off');

  // Turning it on starts the server (here: reports the missing module); off again stops quietly.
  fake.setSettings({ 'kubeWindows.enable': true });
  await settle();
  assert.equal(item.text, 'kube-windows: server not running');
  assert.equal(fake.shown.length, 2);
  fake.setSettings({ 'kubeWindows.enable': false });
  await settle();
  assert.equal(item.text, 'kube-windows: off');
  assert.equal(fake.shown.length, 2);
  noStack(fake);

  await ext.deactivate();
});

// A stand-in language server speaking the contract: it records what it receives, reports a status
// for one document, and exits when it receives a cluster snapshot named "crash".
function standInServer(): { root: string; events: () => Record<string, unknown>[] } {
  const root = mkdtempSync(join(tmpdir(), 'kw-ext-'));
  const events = join(root, 'events.jsonl');
  const lsp = resolve(__dirname, '..', '..', '..', 'node_modules', 'vscode-languageserver', 'lib', 'node', 'main.js');
  mkdirSync(join(root, 'dist'));
  writeFileSync(
    join(root, 'dist', 'server.js'),
    `const { createConnection, ProposedFeatures } = require(${JSON.stringify(lsp)});
const { appendFileSync } = require('fs');
const record = (e) => appendFileSync(${JSON.stringify(events)}, JSON.stringify({ pid: process.pid, ...e }) + '\\n');
const connection = createConnection(ProposedFeatures.all);
connection.onInitialize((p) => { record({ init: p.initializationOptions }); return { capabilities: { textDocumentSync: 1 } }; });
connection.onInitialized(() => connection.sendNotification('kubeWindows/status', { uri: 'file:///w/a.yaml', workloads: 2, windowsWorkloads: 1, findings: 3, errors: 1 }));
connection.onNotification('kubeWindows/clusterSnapshot', (s) => { record({ snapshot: s }); if (s && s.name === 'crash') process.exit(3); });
connection.onDidChangeConfiguration(() => record({ configurationChanged: true }));
connection.onShutdown(() => record({ shutdown: true }));
connection.listen();
`,
  );
  return {
    root,
    events: () => {
      try {
        return readFileSync(events, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
      } catch {
        return [];
      }
    },
  };
}

async function waitFor(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('lifecycle against a stand-in server: settings at start, status, snapshot, restart, enable, deactivate', async () => {
  const server = standInServer();
  const { fake, ext, context } = activate(
    { 'kubeWindows.debounceMs': 250, 'kubeWindows.rules': { LNT001: 'off' } },
    server.root,
  );
  fake.setActiveDocument('file:///w/a.yaml');
  // Sent before the server runs: kept and delivered once it does.
  await ext.sendClusterSnapshot({ name: 'dev', windowsNodes: [], runtimeClasses: [] });
  ext.activate(context);
  const item = fake.statusItems[0];

  await waitFor('the status of a.yaml', () => item.text === 'kube-windows: 1 Windows workload, 3 findings');
  assert.match(item.detail ?? '', /2 workloads in this file, 1 of them for Windows\. 3 findings \(1 error\)/);
  const [init] = server.events().filter((e) => e.init);
  assert.deepEqual(init.init, {
    enable: true,
    debounceMs: 250,
    rules: { LNT001: 'off' },
    flavour: 'auto',
    kubernetesVersion: '',
    exactApi: false,
    files: { include: ['**/*.yaml', '**/*.yml'], exclude: ['**/node_modules/**', '**/.git/**'] },
    helm: { valuesFiles: [] },
    trace: { server: 'off' },
  });
  await waitFor('the early snapshot', () =>
    server.events().some((e) => (e.snapshot as { name?: string } | null)?.name === 'dev'),
  );

  // Another document is active: its status is not known yet.
  fake.setActiveDocument('file:///w/b.yaml');
  assert.equal(item.text, 'kube-windows: not checked yet');
  fake.setActiveDocument('file:///w/a.yaml');
  assert.equal(item.text, 'kube-windows: 1 Windows workload, 3 findings');

  // Restart: a new server process, initialised again, and given the snapshot again.
  const firstPid = init.pid;
  await fake.commands.get('kubeWindows.restartServer')?.();
  assert.equal(fake.progress.length, 1);
  const inits = () => server.events().filter((e) => e.init);
  await waitFor('a second initialize', () => inits().length === 2);
  assert.notEqual(inits()[1].pid, firstPid);
  assert.ok(
    server.events().some((e) => e.shutdown && e.pid === firstPid),
    'the first server was shut down',
  );
  await waitFor('the snapshot re-sent', () => server.events().filter((e) => e.snapshot).length === 2);

  // Turning it off shuts the server down; null snapshots are fine while off.
  fake.setSettings({ 'kubeWindows.enable': false });
  await waitFor('off', () => item.text === 'kube-windows: off');
  assert.ok(server.events().some((e) => e.shutdown && e.pid === inits()[1].pid));
  await ext.sendClusterSnapshot(null);
  fake.setSettings({ 'kubeWindows.enable': true });
  await waitFor('a third initialize', () => inits().length === 3);
  await waitFor('running again', () => item.text === 'kube-windows: 1 Windows workload, 3 findings');
  assert.equal(fake.shown.length, 0, 'no message on a normal lifecycle');

  await ext.deactivate();
  await waitFor('the last server shut down', () => server.events().some((e) => e.shutdown && e.pid === inits()[2].pid));
  rmSync(server.root, { recursive: true, force: true });
});

test('a server that keeps crashing is restarted a few times, then reported once, without a stack', async () => {
  const server = standInServer();
  const { fake, ext, context } = activate({}, server.root);
  ext.activate(context);
  const item = fake.statusItems[0];
  await waitFor('running', () => item.text === 'kube-windows: not checked yet');
  // Every (re)started server gets the latest snapshot, and this one makes it exit.
  await ext.sendClusterSnapshot({ name: 'crash', windowsNodes: [], runtimeClasses: [] });
  await waitFor('the crash report', () => fake.shown.length > 0, 20_000);
  assert.equal(server.events().filter((e) => e.init).length, 5, 'the first run and four automatic restarts');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(fake.shown.length, 1);
  assert.match(fake.shown[0].message, /stopped unexpectedly 5 times in 3 minutes/);
  assert.deepEqual(fake.shown[0].items, ['Show log']);
  noStack(fake);
  assert.equal(item.text, 'kube-windows: server not running');

  // Restart after fixing the cause (here: forgetting the snapshot) brings it back.
  await ext.sendClusterSnapshot(null);
  await fake.commands.get('kubeWindows.restartServer')?.();
  await waitFor(
    'running again',
    () => item.text !== 'kube-windows: server not running' && item.text !== 'kube-windows: starting',
  );
  assert.equal(item.text, 'kube-windows: not checked yet');
  await ext.deactivate();
  rmSync(server.root, { recursive: true, force: true });
});

test('a server that dies while starting is reported once, with its output in the log, and not retried', async () => {
  const root = mkdtempSync(join(tmpdir(), 'kw-ext-'));
  mkdirSync(join(root, 'dist'));
  writeFileSync(
    join(root, 'dist', 'server.js'),
    "process.stderr.write('kube-windows server: cannot read its rule catalogue\\n'); process.exit(2);\n",
  );
  const { fake, ext, context } = activate({}, root);
  ext.activate(context);
  const item = fake.statusItems[0];
  await waitFor('the failure report', () => fake.shown.length > 0);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(fake.shown.length, 1);
  assert.match(
    fake.shown[0].message,
    /^kube-windows: the language server could not start \(its process exited while starting; the log shows its output\)\./,
  );
  noStack(fake);
  assert.equal(item.text, 'kube-windows: server not running');
  const outputs = fake.logs[0].lines.filter((l) => l.text.includes('cannot read its rule catalogue'));
  assert.equal(outputs.length, 1, 'the server output is in the log, from one start only');
  await ext.deactivate();
  rmSync(root, { recursive: true, force: true });
});
