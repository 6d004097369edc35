// The cluster explorer's VS Code side: descriptor → TreeItem mapping (with the fake vscode module),
// the view's registration at activation without contacting a cluster, and its manifest entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import type * as vscode from 'vscode';
import { toTreeItem } from '../../src/extension/tree-item';
import { errorNode } from '../../src/views/items/error';
import { machineNode, machineSetNode } from '../../src/views/items/machine-set';
import { podNode } from '../../src/views/items/pod';
import { windowsNodeNode } from '../../src/views/items/windows-node';
import { forDisplay } from '../../src/views/for-display';
import { podView } from '../../src/cluster/node-pods';
import type { Explanation } from '../../src/core/live/explain';
import { windowsNodeView } from '../../src/cluster/windows-nodes';
import {
  createFakeVscode,
  loadWithFakeVscode,
  FakeMarkdownString,
  FakeThemeIcon,
  type FakeTreeItem,
} from '../support/fake-vscode';

const ROOT = resolve(__dirname, '..', '..', '..');
const BUNDLE = join(ROOT, 'dist', 'extension.js');
const api = () => createFakeVscode().module as unknown as typeof vscode;

test('a Windows node descriptor becomes a TreeItem with a stable id, a colored ThemeIcon and a Markdown tooltip', () => {
  const view = windowsNodeView({
    metadata: {
      name: 'win-1',
      labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' },
    },
    spec: { unschedulable: true },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const node = windowsNodeNode('ctx/c/node/win-1', view);
  assert.equal(node.description, 'Windows Server 2022 · Ready · cordoned');
  assert.equal(node.contextValue, 'windowsNode.cordoned');
  const item = toTreeItem(node, api()) as unknown as FakeTreeItem;
  assert.equal(item.id, 'ctx/c/node/win-1');
  assert.equal(item.label, 'win-1');
  assert.equal(item.collapsibleState, 1);
  assert.equal(item.contextValue, 'windowsNode.cordoned');
  assert.ok(item.iconPath instanceof FakeThemeIcon);
  assert.equal((item.iconPath as FakeThemeIcon).id, 'vm-active');
  assert.equal((item.iconPath as FakeThemeIcon).color?.id, 'testing.iconPassed');
  assert.ok(item.tooltip instanceof FakeMarkdownString);
  assert.match((item.tooltip as FakeMarkdownString).value, /\*\*win\\-1\*\*/);
  assert.equal(item.command, undefined);
});

test('an error descriptor maps to an error icon and the retry command with its id', () => {
  const node = errorNode('ctx/c/group/byoh/error', {
    kind: 'error',
    reason: 'forbidden',
    message: 'You are not allowed to get configmaps.',
    what: 'BYOH instances',
  });
  const item = toTreeItem(node, api()) as unknown as FakeTreeItem;
  assert.equal(item.contextValue, 'error');
  assert.equal(item.collapsibleState, 0);
  assert.equal((item.iconPath as FakeThemeIcon).color?.id, 'problemsErrorIcon.foreground');
  assert.deepEqual(item.command, {
    command: 'kubeWindows.retry',
    title: 'Retry',
    arguments: ['ctx/c/group/byoh/error'],
  });
});

test('MachineSet and Machine descriptors: ready/desired and platform; phase, node, age and error, with icons that say it', () => {
  const ms = toTreeItem(
    machineSetNode('ctx/c/machineSet/winworker', {
      name: 'winworker',
      desired: 2,
      ready: 1,
      available: 1,
      platform: 'VSphere',
      deleting: false,
    }),
    api(),
  ) as unknown as FakeTreeItem;
  assert.deepEqual(
    [ms.id, ms.label, ms.description, ms.contextValue, ms.collapsibleState],
    ['ctx/c/machineSet/winworker', 'winworker', '1/2 ready · vSphere', 'machineSet', 2],
  );
  assert.equal((ms.iconPath as FakeThemeIcon).color?.id, 'problemsWarningIcon.foreground', 'not all ready');
  const now = Date.parse('2026-11-20T08:10:00Z');
  const created = '2026-11-20T08:00:00Z';
  const running = machineNode(
    'ctx/c/machineSet/winworker/machine/winworker-ab12c',
    {
      name: 'winworker-ab12c',
      machineSet: 'winworker',
      phase: 'Running',
      node: 'winworker-ab12c',
      created,
      deleting: false,
    },
    now,
  );
  assert.equal(running.description, 'Running · node winworker-ab12c · 10m');
  assert.deepEqual([running.icon.id, running.contextValue, running.collapsible], ['vm-running', 'machine', 'none']);
  const failed = machineNode(
    'x',
    { name: 'w-1', phase: 'Failed', error: 'InvalidConfiguration: InvalidAMIID.NotFound', created, deleting: false },
    now,
  );
  assert.equal(failed.description, 'Failed · 10m · InvalidConfiguration: InvalidAMIID.NotFound');
  assert.deepEqual([failed.icon.id, failed.icon.color], ['error', 'problemsErrorIcon.foreground']);
  assert.match(failed.tooltip, /Error: InvalidConfiguration: InvalidAMIID\\.NotFound/);
  const going = machineNode('y', { name: 'w-2', phase: 'Running', deleting: true }, now);
  assert.equal(going.description, 'Deleting');
  assert.equal(going.icon.id, 'trash');
});

test('pod rows: phase, ready x/y, restarts and age; Terminating; the worst explanation as icon and title, all of them in the tooltip', () => {
  const now = Date.parse('2026-11-20T10:07:40Z');
  const pod = (extra: Record<string, unknown> = {}, statuses: Record<string, unknown>[] = []) =>
    podView({
      metadata: {
        name: 'web-0',
        namespace: 'shop',
        creationTimestamp: '2026-11-20T10:02:33Z' as unknown as Date,
        ...extra,
      },
      spec: {
        containers: [
          { name: 'web', image: 'mcr.microsoft.com/windows/servercore/iis:ltsc2022' },
          { name: 'log', image: 'fluent`bit' },
        ],
      },
      status: { phase: 'Running', containerStatuses: statuses as never },
    });
  const ready = (name: string, restartCount: number, isReady = true) => ({
    name,
    ready: isReady,
    restartCount,
    image: '',
    imageID: '',
  });
  const running = podNode('ctx/c/node/n/pods/shop/web-0', pod({}, [ready('web', 1), ready('log', 2)]), [], now);
  assert.equal(running.description, 'Running · 2/2 · 3 restarts · 5m');
  assert.deepEqual(
    [running.label, running.contextValue, running.collapsible, running.icon.id],
    ['web-0', 'pod', 'none', 'pass'],
  );
  assert.match(running.tooltip, /- Namespace: shop\n- Ready: 2\/2 containers\n- Restarts: 3\n- Age: 5m/);
  assert.match(running.tooltip, /`fluent'bit`/, 'a backquote in an image cannot end the code span');
  const one = podNode(
    'x',
    pod({}, [
      ready('web', 1, false),
      { ...ready('log', 0, false), state: { waiting: { reason: 'CrashLoopBackOff' } } },
    ]),
    [],
    now,
  );
  assert.equal(one.description, 'Running · 0/2 · 1 restart · 5m');
  assert.match(one.tooltip, /Reason: CrashLoopBackOff/);
  assert.equal(
    podNode('y', pod({ deletionTimestamp: '2026-11-20T10:07:00Z' }), [], now).description,
    'Terminating · 0/2 · 0 restarts · 5m',
  );
  const explanation = (id: string, severity: Explanation['severity'], title: string): Explanation => ({
    id,
    severity,
    title,
    message: `${id} happened.`,
    fix: `Fix ${id}.`,
    source: '',
    path: 'status',
    evidence: [],
  });
  const bad = podNode(
    'z',
    pod({}, [ready('web', 0, false)]),
    [explanation('WINF017', 'warning', 'Exit code'), explanation('WINF001', 'error', 'Builds differ')],
    now,
  );
  assert.equal(bad.description, 'Running · 0/2 · 0 restarts · 5m · Builds differ');
  assert.deepEqual(bad.icon, { id: 'error', color: 'problemsErrorIcon.foreground' });
  assert.match(
    bad.tooltip,
    /\$\(warning\) \*\*WINF017\*\* Exit code\n\nWINF017 happened\\\.\n\n_Fix:_ Fix WINF017\\\./,
  );
  assert.match(
    bad.tooltip,
    /\$\(error\) \*\*WINF001\*\* Builds differ[^]*\$\(warning\) \*\*WINF017\*\*/,
    'the worst first',
  );
  const warn = podNode('w', pod({}, [ready('web', 0)]), [explanation('WINF018', 'warning', 'HCS timed out')], now);
  assert.deepEqual(warn.icon, { id: 'warning', color: 'problemsWarningIcon.foreground' });
});

test('the YAML view drops managedFields and never shows a Secret', () => {
  assert.deepEqual(forDisplay({ kind: 'Node', metadata: { name: 'n', managedFields: [{}] } }), {
    kind: 'Node',
    metadata: { name: 'n' },
  });
  assert.throws(
    () => forDisplay({ kind: 'Secret', metadata: { name: 's' }, data: { a: 'b' } }),
    /Secrets are not shown/,
  );
});

test('activation registers the view and its commands; the welcome state contacts nothing', async () => {
  const home = mkdtempSync(join(tmpdir(), 'kw-view-'));
  try {
    const fake = createFakeVscode({
      'kubeWindows.enable': false,
      'kubeWindows.kubeconfig': join(home, 'no-such-config'),
    });
    const ext = loadWithFakeVscode<{ activate(c: unknown): void; deactivate(): Promise<void> | undefined }>(
      BUNDLE,
      fake,
    );
    const context = {
      subscriptions: [] as { dispose(): unknown }[],
      asAbsolutePath: (p: string) => join(home, p),
      globalState: { get: () => undefined, update: async () => undefined },
    };
    ext.activate(context);
    assert.deepEqual(
      fake.treeViews.map((v) => v.id),
      ['kubeWindows.clusters', 'kubeWindows.problems'],
    );
    assert.ok(fake.contentProviders.has('kube-windows'));
    for (const id of ['kubeWindows.refresh', 'kubeWindows.copyName', 'kubeWindows.openYaml', 'kubeWindows.retry'])
      assert.ok(fake.commands.has(id), id);
    const roots = await fake.treeViews[0].options.treeDataProvider.getChildren();
    assert.deepEqual(roots, []);
    assert.deepEqual(fake.executed.at(-1), ['setContext', 'kubeWindows.noKubeconfig', true]);
    await ext.deactivate();
    for (const d of context.subscriptions) d.dispose();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('manifest: view container, view, welcome, menus and palette hiding', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const c = pkg.contributes;
  assert.deepEqual(pkg.activationEvents, ['onLanguage:yaml', 'onView:extension.vsKubernetesExplorer']);
  assert.equal(c.viewsContainers.activitybar[0].id, 'kubeWindows');
  assert.equal(c.viewsContainers.activitybar[0].icon, 'media/kube-windows.svg');
  assert.ok(readFileSync(join(ROOT, 'media', 'kube-windows.svg'), 'utf8').includes('<svg'));
  assert.deepEqual(
    c.views.kubeWindows.map((v: { id: string }) => v.id),
    ['kubeWindows.clusters', 'kubeWindows.problems'],
  );
  const welcome = c.viewsWelcome.find((w: { view: string }) => w.view === 'kubeWindows.clusters');
  assert.match(welcome.contents, /command:workbench\.action\.openSettings\?.*kubeWindows\.kubeconfig/);
  assert.equal(welcome.when, 'kubeWindows.noKubeconfig');
  const icons = Object.fromEntries(c.commands.map((x: { command: string; icon?: string }) => [x.command, x.icon]));
  assert.deepEqual(
    [
      icons['kubeWindows.refresh'],
      icons['kubeWindows.copyName'],
      icons['kubeWindows.openYaml'],
      icons['kubeWindows.retry'],
    ],
    ['$(refresh)', '$(copy)', '$(go-to-file)', '$(debug-rerun)'],
  );
  // Our views' menus; the Kubernetes extension's explorer gets one entry of its own.
  const all: { command: string; when: string; group?: string }[] = c.menus['view/item/context'];
  const ours = all.filter((m) => !m.when.startsWith('view == extension.vsKubernetesExplorer'));
  assert.deepEqual(
    all.filter((m) => !ours.includes(m)).map((m) => m.command),
    ['kubeWindows.showInClusterTree'],
  );
  for (const m of ours) assert.match(m.when, /^view == kubeWindows\.(clusters|problems)( |$)/);
  // The cluster explorer's item menus (the problems view's are tested in problems-view.test.ts).
  const ctx = ours.filter((m) => /^view == kubeWindows\.clusters( |$)/.test(m.when));
  assert.equal(ctx.find((m) => m.command === 'kubeWindows.retry')?.group, 'inline');
  const yamlWhen = ctx.find((m) => m.command === 'kubeWindows.openYaml')?.when ?? '';
  const re = new RegExp(/viewItem =~ \/(.*)\//.exec(yamlWhen)?.[1] ?? '$^');
  for (const v of [
    'windowsNode',
    'windowsNode.cordoned',
    'byohInstance',
    'pod',
    'mirrorSet',
    'runtimeClass',
    'machineSet',
    'machine',
  ])
    assert.match(v, re);
  for (const v of ['cluster', 'error', 'group']) assert.doesNotMatch(v, re);
  assert.equal(c.menus['view/title'][0].command, 'kubeWindows.refresh');
  const hidden = c.menus.commandPalette
    .filter((m: { when: string }) => m.when === 'false')
    .map((m: { command: string }) => m.command)
    .sort();
  assert.deepEqual(hidden, [
    'kubeWindows.changeNodeAccess',
    'kubeWindows.collectLogs',
    'kubeWindows.connectServices',
    'kubeWindows.copyName',
    'kubeWindows.cordonNode',
    'kubeWindows.deleteMachine',
    'kubeWindows.deletePod',
    'kubeWindows.describePod',
    'kubeWindows.drainNode',
    'kubeWindows.editTaints',
    'kubeWindows.followMachineSet',
    'kubeWindows.nodeEvents',
    'kubeWindows.nodeLogs',
    'kubeWindows.openLiveObject',
    'kubeWindows.openTerminal',
    'kubeWindows.openYaml',
    'kubeWindows.podLogs',
    'kubeWindows.podShell',
    'kubeWindows.quickFixApplied',
    'kubeWindows.rebootNode',
    'kubeWindows.refreshMachineSets',
    'kubeWindows.refreshServices',
    'kubeWindows.removeNode',
    'kubeWindows.restartService',
    'kubeWindows.restartWorkload',
    'kubeWindows.retry',
    'kubeWindows.scaleMachineSet',
    'kubeWindows.showInClusterTree',
    'kubeWindows.showProxySettings',
    'kubeWindows.uncordonNode',
  ]);
  // Pod actions on pod items only; Cordon on schedulable nodes, Uncordon on cordoned ones, the other node actions on both.
  const matchesOf = (command: string, values: string[]) =>
    values.filter((v) =>
      ctx
        .filter((m) => m.command === command)
        .some((m) =>
          new RegExp(
            /viewItem =~ \/(.*)\//.exec(m.when)?.[1] ?? `^${/viewItem == (\S+)/.exec(m.when)?.[1] ?? '$^'}$`,
          ).test(v),
        ),
    );
  const items = ['cluster', 'windowsNode', 'windowsNode.cordoned', 'pod', 'windowsService', 'group'];
  for (const command of ['podLogs', 'podShell', 'describePod', 'deletePod', 'restartWorkload'])
    assert.deepEqual(matchesOf(`kubeWindows.${command}`, items), ['pod'], command);
  assert.deepEqual(matchesOf('kubeWindows.cordonNode', items), ['windowsNode']);
  assert.deepEqual(matchesOf('kubeWindows.uncordonNode', items), ['windowsNode.cordoned']);
  for (const command of ['drainNode', 'editTaints', 'nodeEvents', 'nodeLogs'])
    assert.deepEqual(matchesOf(`kubeWindows.${command}`, items), ['windowsNode', 'windowsNode.cordoned'], command);
  assert.equal(
    c.menus.commandPalette.find((m: { command: string }) => m.command === 'kubeWindows.stopFollowingLogs')?.when,
    'kubeWindows.followingLogs',
  );
  // Node operations on Windows node items (cordoned too), restart on service items only.
  const on = (command: string) => ctx.filter((m) => m.command === command);
  for (const command of ['kubeWindows.openTerminal', 'kubeWindows.rebootNode', 'kubeWindows.collectLogs']) {
    assert.ok(on(command).length > 0, command);
    for (const m of on(command)) {
      const r = new RegExp(/viewItem =~ \/(.*)\//.exec(m.when)?.[1] ?? '$^');
      for (const v of ['windowsNode', 'windowsNode.cordoned']) assert.match(v, r, `${command} on ${v}`);
      for (const v of ['windowsService', 'cluster', 'pod']) assert.doesNotMatch(v, r, `${command} not on ${v}`);
    }
  }
  for (const m of on('kubeWindows.restartService')) {
    const r = new RegExp(/viewItem =~ \/(.*)\//.exec(m.when)?.[1] ?? '$^');
    for (const v of ['windowsService', 'windowsService.stopped']) assert.match(v, r);
    assert.doesNotMatch('windowsNode', r);
  }
  assert.equal(icons['kubeWindows.openTerminal'], '$(terminal-powershell)');
  // MachineSets: create on clusters (OpenShift or not yet known: the flavour is learnt on connect and
  // refused with a reason elsewhere), follow and scale on MachineSets, delete on Machines only.
  const only = (command: string, yes: string[], no: string[]) => {
    assert.ok(on(command).length > 0, command);
    for (const m of on(command)) {
      const when = m.when.replace(/^view == kubeWindows\.clusters && /, '');
      const eq = /^viewItem == (\w+)$/.exec(when)?.[1];
      const r = eq ? new RegExp(`^${eq}$`) : new RegExp(/viewItem =~ \/(.*)\//.exec(when)?.[1] ?? '$^');
      for (const v of yes) assert.match(v, r, `${command} on ${v}`);
      for (const v of no) assert.doesNotMatch(v, r, `${command} not on ${v}`);
    }
  };
  only('kubeWindows.createMachineSet', ['cluster', 'cluster.openshift'], ['machineSet', 'windowsNode', 'group']);
  only('kubeWindows.followMachineSet', ['machineSet'], ['machine', 'cluster', 'windowsNode']);
  only('kubeWindows.scaleMachineSet', ['machineSet'], ['machine', 'cluster']);
  only('kubeWindows.deleteMachine', ['machine'], ['machineSet', 'windowsNode', 'cluster']);
  const palette = (command: string) =>
    c.menus.commandPalette.find((m: { command: string }) => m.command === command)?.when;
  assert.equal(
    palette('kubeWindows.createMachineSet'),
    undefined,
    'Create Windows MachineSet… is in the palette (it asks the cluster)',
  );
  assert.equal(palette('kubeWindows.applyMachineSet'), 'editorLangId == yaml');
});
