// `kubectl windows …` without kubectl: how kubectl's conventions become kube-windows arguments
// (src/cli/kubectl-plugin-args.ts), how the plugin speaks (`kubectl windows`, kubectl's `error:` for a
// context it does not know), the Windows node list's wording against kubectl's (src/core/node-listing.ts),
// and dist/kubectl-windows.js run as kubectl runs a plugin, with kubeconfigs that exercise KUBECONFIG
// lists, --kubeconfig and current-context. The same plugin under a real kubectl and API server is
// kubectl-plugin-kubectl.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CHECK_COMMAND, NODES_COMMAND, RULES_COMMAND, SNAPSHOT_COMMAND } from '../../src/cli/commands';
import { actionOf, parseCommand } from '../../src/cli/declare';
import { UsageError } from '../../src/cli/kit';
import {
  commandOf,
  contextToUse,
  dropUnusedGlobals,
  formatFor,
  formatsOf,
  kubectlRole,
  needsCurrentContext,
  PluginError,
  requestTimeoutSeconds,
  takeOutput,
  takeRequestTimeout,
} from '../../src/cli/kubectl-plugin-args';
import { asPluginText } from '../../src/cli/kubectl-plugin';
import { complete, completionText } from '../../src/cli/kubectl-plugin-complete';
import { nodeVersionProblem } from '../../src/cli/node-version';
import {
  alignColumns,
  humanAge,
  nodeList,
  nodeNames,
  nodeRoles,
  nodeStatus,
  nodeTable,
  windowsRelease,
  type ListedNode,
} from '../../src/core/node-listing';

const PLUGIN = resolve(__dirname, '..', '..', '..', 'dist', 'kubectl-windows.js');

test('the plugin and its completion are recognised by their executable names, whatever the extension', () => {
  for (const name of ['/usr/local/bin/kubectl-windows', '/x/dist/kubectl-windows.js', '/k/kubectl-windows.exe'])
    assert.equal(kubectlRole(name), 'plugin', name);
  for (const name of ['/usr/local/bin/kubectl_complete-windows', '/x/lib/kubectl_complete-windows.js'])
    assert.equal(kubectlRole(name), 'completion', name);
  for (const name of ['/usr/bin/kube-windows', '/x/dist/cli.js', '/x/kubectl-windows-nodes', '/x/toString', undefined])
    assert.equal(kubectlRole(name), undefined, String(name));
});

test('completion: commands, actions, options with their help, choices and contexts from the declarations', () => {
  const contexts = () => ['prod', 'staging'];
  const c = (...words: string[]) => complete(words, contexts);
  assert.deepEqual(c('n'), { items: ['nodes'], directive: 4 });
  assert.deepEqual(c('m').items, ['mirrors', 'machineset']);
  assert.deepEqual(c('mirrors', '').items, ['render', 'diff', 'apply']);
  assert.deepEqual(c('nodes', 'dr').items, [
    'drain\tcordon, then evict its pods as reboot does (Eviction API, PodDisruptionBudgets honoured, DaemonSet and',
  ]);
  assert.deepEqual(c('nodes', '--context', '').items, ['prod', 'staging']);
  assert.deepEqual(c('nodes', '--context', 'st').items, ['staging']);
  assert.deepEqual(c('nodes', '-o', '').items, ['wide', 'json', 'yaml', 'name']);
  assert.deepEqual(c('check', '-o', '').items, ['text', 'json', 'sarif', 'yaml']);
  assert.deepEqual(c('check', '--format', 'j').items, ['json']);
  assert.ok(c('check', '--fail').items.every((i) => i.startsWith('--fail-on\t')));
  assert.ok(
    c('nodes', 'list', '--').items.includes(
      '--output\twide: more columns; name: node/NAME lines; json, yaml: a v1 List',
    ),
  );
  // Files where a command reads them, nothing where a name is wanted.
  assert.equal(c('check', '').directive, 0);
  assert.equal(c('check', '--snapshot', '').directive, 0);
  assert.deepEqual(c('nodes', 'cordon', ''), { items: [], directive: 4 });
  assert.ok(!c('nodes', 'reboot', '--').items.some((i) => /\{\w+\}/.test(i)), 'no unfilled {fact}');
  assert.equal(completionText({ items: ['a\tb'], directive: 4 }), 'a\tb\n:4\n');
});

test("an old Node is refused in words, against package.json's engines", () => {
  assert.equal(nodeVersionProblem('v20.19.0'), undefined);
  assert.equal(nodeVersionProblem('v22.1.0'), undefined);
  assert.equal(nodeVersionProblem(process.version), undefined, 'the Node running the tests');
  assert.equal(nodeVersionProblem('v20.11.1'), 'Node.js 20.19 or newer is needed, and this is v20.11.1');
  assert.equal(nodeVersionProblem('v18.20.4', '>=20.19'), 'Node.js 20.19 or newer is needed, and this is v18.20.4');
});

test('a command line names its declaration, mirrors subcommands included', () => {
  assert.equal(commandOf(['nodes', '-o', 'json'])?.name, 'nodes');
  assert.equal(commandOf(['mirrors', 'diff', '--context', 'c'])?.name, 'mirrors diff');
  assert.equal(commandOf(['check', 'manifests/'])?.name, 'check');
  assert.equal(commandOf(['frobnicate']), undefined);
});

test("kubectl's -o in all its spellings becomes --format where a command has one; -- ends the options", () => {
  for (const spelled of [['-o', 'json'], ['-ojson'], ['-o=json'], ['--output', 'json'], ['--output=json']])
    assert.deepEqual(takeOutput(CHECK_COMMAND, ['check', ...spelled, '-n', 'web']), {
      args: ['check', '-n', 'web'],
      output: 'json',
    });
  assert.deepEqual(takeOutput(CHECK_COMMAND, ['check', '--', '-o', 'json']), { args: ['check', '--', '-o', 'json'] });
  // nodes declares -o itself: left alone. snapshot prints JSON only: left for its parser to refuse.
  assert.deepEqual(takeOutput(NODES_COMMAND, ['nodes', '-o', 'wide']), { args: ['nodes', '-o', 'wide'] });
  assert.deepEqual(takeOutput(SNAPSHOT_COMMAND, ['snapshot', '-o', 'json']), { args: ['snapshot', '-o', 'json'] });
  assert.throws(() => takeOutput(CHECK_COMMAND, ['check', '-o']), /-o needs a value/);
});

test('-o yaml is JSON printed as YAML where a command prints JSON; what it cannot print is named', () => {
  assert.deepEqual(formatsOf(CHECK_COMMAND), ['text', 'json', 'sarif']);
  assert.deepEqual(formatFor(CHECK_COMMAND, 'sarif'), { format: 'sarif', asYaml: false });
  assert.deepEqual(formatFor(RULES_COMMAND, 'yaml'), { format: 'json', asYaml: true });
  assert.throws(() => formatFor(RULES_COMMAND, 'name'), { message: '-o name: rules prints text, json or yaml' });
  assert.throws(() => formatFor(CHECK_COMMAND, 'wide'), UsageError);
});

test("kubectl's -n and -A are accepted everywhere, and dropped where a command has no namespace, as kubectl does", () => {
  assert.deepEqual(dropUnusedGlobals(NODES_COMMAND, ['nodes', '-n', 'web', '-o', 'name', '-A']), [
    'nodes',
    '-o',
    'name',
  ]);
  assert.deepEqual(dropUnusedGlobals(NODES_COMMAND, ['nodes', '-nweb', '--namespace=web', '--all-namespaces']), [
    'nodes',
  ]);
  assert.deepEqual(dropUnusedGlobals(NODES_COMMAND, ['nodes', '--namespace', 'web', '--', '-n']), [
    'nodes',
    '--',
    '-n',
  ]);
  // check has both: kept for it to read.
  assert.deepEqual(dropUnusedGlobals(CHECK_COMMAND, ['check', '-n', 'web']), ['check', '-n', 'web']);
  assert.deepEqual(dropUnusedGlobals(CHECK_COMMAND, ['check', '-A']), ['check', '-A']);
});

test("kubectl's --request-timeout: durations, bare seconds, 0 for none; taken out of the line", () => {
  assert.equal(requestTimeoutSeconds('30s'), 30);
  assert.equal(requestTimeoutSeconds('1m30s'), 90);
  assert.equal(requestTimeoutSeconds('1h'), 3600);
  assert.equal(requestTimeoutSeconds('1500ms'), 1.5);
  assert.equal(requestTimeoutSeconds('45'), 45);
  assert.ok(requestTimeoutSeconds('0') > 86_400 * 20, '0 waits as long as a timer can');
  assert.throws(() => requestTimeoutSeconds('soon'), /not a duration/);
  assert.deepEqual(takeRequestTimeout(['nodes', '--request-timeout=2m', '-o', 'name']), {
    args: ['nodes', '-o', 'name'],
    seconds: 120,
  });
  assert.deepEqual(takeRequestTimeout(['nodes', '--request-timeout', '5s']), { args: ['nodes'], seconds: 5 });
  assert.deepEqual(takeRequestTimeout(['check', '--', '--request-timeout=1s']), {
    args: ['check', '--', '--request-timeout=1s'],
  });
});

test('the current context is filled in for commands that reach a cluster, and check only without paths', () => {
  const line = (decl: Parameters<typeof parseCommand>[0], args: string[]) => parseCommand(decl, args);
  assert.ok(needsCurrentContext(NODES_COMMAND, line(NODES_COMMAND, ['nodes'])));
  assert.ok(needsCurrentContext(NODES_COMMAND, line(NODES_COMMAND, ['nodes', 'cordon', 'win-1'])));
  assert.ok(!needsCurrentContext(NODES_COMMAND, line(NODES_COMMAND, ['nodes', '--context', 'other'])));
  assert.ok(!needsCurrentContext(NODES_COMMAND, line(NODES_COMMAND, ['nodes', '--help'])));
  assert.ok(!needsCurrentContext(NODES_COMMAND, line(NODES_COMMAND, ['nodes', 'help'])));
  assert.ok(needsCurrentContext(CHECK_COMMAND, line(CHECK_COMMAND, ['check', '-n', 'web'])));
  assert.ok(needsCurrentContext(CHECK_COMMAND, line(CHECK_COMMAND, ['check', '-A'])));
  assert.ok(!needsCurrentContext(CHECK_COMMAND, line(CHECK_COMMAND, ['check', 'manifests/'])));
  assert.ok(!needsCurrentContext(CHECK_COMMAND, line(CHECK_COMMAND, ['check', '--snapshot', 'facts.json'])));
  assert.ok(!needsCurrentContext(RULES_COMMAND, line(RULES_COMMAND, ['rules'])));
});

test("a context the kubeconfig lacks is kubectl's error, with the contexts there are", () => {
  const kc = { names: ['prod', 'staging'], current: 'staging' };
  assert.equal(contextToUse(undefined, kc), 'staging');
  assert.equal(contextToUse('prod', kc), 'prod');
  assert.throws(() => contextToUse('nope', kc), {
    name: 'Error',
    message: 'context was not found for specified context: nope (the kubeconfig has: prod, staging)',
  });
  assert.throws(() => contextToUse(undefined, { names: ['prod'] }), /sets no current-context; pass --context/);
  assert.throws(() => contextToUse(undefined, { names: [], current: 'gone' }), PluginError);
});

test('output names `kubectl windows` for command lines, never for the product', () => {
  assert.equal(
    asPluginText('  kube-windows check [options]\ntry "kube-windows nodes --help"; kube-windows --version'),
    '  kubectl windows check [options]\ntry "kubectl windows nodes --help"; kubectl windows --version',
  );
  assert.equal(asPluginText('kube-windows: unknown option --x\n'), 'kubectl windows: unknown option --x\n');
  const prose = 'for nodes kube-windows manages; the newest release kube-windows is tested against';
  assert.equal(asPluginText(prose), prose);
  assert.equal(asPluginText('"kube-windows checkout"'), '"kube-windows checkout"', 'a whole command word only');
});

test('nodes without an action lists them; the list takes no operand', () => {
  const parsed = parseCommand(NODES_COMMAND, ['nodes']);
  assert.deepEqual(actionOf(NODES_COMMAND, parsed.positionals.slice(1), parsed.values), {
    action: 'list',
    operand: '',
  });
  assert.throws(() => actionOf(NODES_COMMAND, ['list', 'win-1'], {}), { message: 'unexpected argument "win-1"' });
  assert.throws(() => actionOf(NODES_COMMAND, ['cordon'], {}), { message: 'nodes cordon needs the node name' });
  assert.throws(
    () => actionOf(NODES_COMMAND, ['cordon', 'win-1'], { output: 'json' }),
    /--output goes with nodes list/,
  );
});

// ---------------------------------------------------------------------------------------------
// The node list, worded as kubectl words nodes (apimachinery's HumanDuration, kubectl's printers)

test("AGE is kubectl's HumanDuration at each of its thresholds", () => {
  const s = 1000;
  const cases: [number, string][] = [
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [42 * s, '42s'],
    [119 * s, '119s'],
    [120 * s, '2m'],
    [310 * s, '5m10s'],
    [125 * 60 * s, '125m'],
    [(5 * 60 + 30) * 60 * s, '5h30m'],
    [6 * 3600 * s, '6h'],
    [40 * 3600 * s, '40h'],
    [(5 * 24 + 3) * 3600 * s, '5d3h'],
    [200 * 86400 * s, '200d'],
    [(3 * 365 + 100) * 86400 * s, '3y100d'],
    [10 * 365 * 86400 * s, '10y'],
  ];
  for (const [ms, text] of cases) assert.equal(humanAge(ms), text, `${ms} ms`);
});

const node = (name: string, extra: Partial<ListedNode> = {}, labels: Record<string, string> = {}): ListedNode => ({
  metadata: {
    name,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { 'kubernetes.io/os': 'windows', ...labels },
  },
  ...extra,
});

test('STATUS and ROLES as kubectl prints them; the Windows release from the build label, else the OS image', () => {
  const ready = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  assert.equal(nodeStatus(node('a', ready)), 'Ready');
  assert.equal(nodeStatus(node('a', { status: { conditions: [{ type: 'Ready', status: 'False' }] } })), 'NotReady');
  assert.equal(nodeStatus(node('a', { spec: { unschedulable: true } })), 'Unknown,SchedulingDisabled');
  assert.equal(nodeRoles(node('a')), '<none>');
  assert.equal(
    nodeRoles(node('a', {}, { 'node-role.kubernetes.io/worker': '', 'kubernetes.io/role': 'infra' })),
    'infra,worker',
  );
  assert.equal(
    windowsRelease(node('a', {}, { 'node.kubernetes.io/windows-build': '10.0.20348' })),
    'Windows Server 2022 (10.0.20348)',
  );
  assert.equal(
    windowsRelease(node('a', { status: { nodeInfo: { osImage: 'Windows Server 2025 Datacenter' } } })),
    'Windows Server 2025 Datacenter',
  );
  assert.equal(windowsRelease(node('a')), '<unknown>');
});

test("the table: kubectl's columns in kubectl's order and padding, WINDOWS last; -o name and the v1 List", () => {
  const now = Date.parse('2026-01-01T00:00:42Z');
  const nodes = [
    node('win-b', {
      status: {
        addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
        nodeInfo: {
          kubeletVersion: 'v1.35.4',
          osImage: 'Windows Server 2022 Datacenter',
          kernelVersion: '10.0.20348.2849',
        },
      },
    }),
    node('win-a'),
  ];
  const wide = nodeTable(nodes, now, true);
  assert.deepEqual(wide[0], [
    'NAME',
    'STATUS',
    'ROLES',
    'AGE',
    'VERSION',
    'INTERNAL-IP',
    'EXTERNAL-IP',
    'OS-IMAGE',
    'KERNEL-VERSION',
    'CONTAINER-RUNTIME',
    'WINDOWS',
  ]);
  assert.deepEqual(wide[2], [
    'win-b',
    'Unknown',
    '<none>',
    '42s',
    'v1.35.4',
    '10.0.0.5',
    '<none>',
    'Windows Server 2022 Datacenter',
    '10.0.20348.2849',
    '<unknown>',
    'Windows Server 2022 Datacenter',
  ]);
  assert.equal(
    alignColumns(nodeTable(nodes, now, false)),
    [
      'NAME    STATUS    ROLES    AGE   VERSION   WINDOWS',
      'win-a   Unknown   <none>   42s             <unknown>',
      'win-b   Unknown   <none>   42s   v1.35.4   Windows Server 2022 Datacenter',
    ].join('\n'),
  );
  assert.equal(nodeNames(nodes), 'node/win-a\nnode/win-b');
  const withFields = node('win-c');
  (withFields.metadata as Record<string, unknown>).managedFields = [{ manager: 'kubectl' }];
  const list = nodeList([withFields]);
  assert.deepEqual(list.metadata, { resourceVersion: '' });
  assert.deepEqual(list.items[0], { apiVersion: 'v1', kind: 'Node', metadata: node('win-c').metadata });
});

// ---------------------------------------------------------------------------------------------
// dist/kubectl-windows.js as kubectl runs it: the arguments after "windows", the environment as is

function runPlugin(args: string[], env: Record<string, string | undefined>) {
  const r = spawnSync(process.execPath, [PLUGIN, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, NO_COLOR: '1', HOME: env.HOME ?? tmpdir(), ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A kubeconfig of unreachable clusters: what is read is the kubeconfig, not a cluster. */
function kubeconfig(contexts: { name: string; namespace?: string }[], current?: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: nowhere',
    '  cluster: {server: "https://127.0.0.1:1"}',
    'users:',
    '- name: u',
    '  user: {token: not-a-secret}',
    'contexts:',
    ...contexts.map(
      (c) =>
        `- name: ${c.name}\n  context: {cluster: nowhere, user: u${c.namespace ? `, namespace: ${c.namespace}` : ''}}`,
    ),
    ...(current ? [`current-context: ${current}`] : []),
    '',
  ].join('\n');
}

test('the built plugin: help as `kubectl windows`, a missing context as kubectl says it, KUBECONFIG lists merged', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-plugin-'));
  try {
    const a = join(dir, 'a.yaml');
    const b = join(dir, 'b.yaml');
    writeFileSync(a, kubeconfig([{ name: 'first' }]));
    writeFileSync(b, kubeconfig([{ name: 'second', namespace: 'team' }], 'second'));
    const help = runPlugin(['--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^ {2}kubectl windows nodes \[list\]/m);
    assert.doesNotMatch(help.stdout, /^ {2}kube-windows /m);
    const nodesHelp = runPlugin(['nodes', '--help'], {});
    assert.match(nodesHelp.stdout, /^Usage:\n {2}kubectl windows nodes/);

    // Unknown context: kubectl's words and the contexts of both files; nothing else is tried.
    const missing = runPlugin(['nodes', '--context', 'nope'], { KUBECONFIG: `${a}:${b}` });
    assert.equal(missing.code, 2);
    assert.equal(
      missing.stderr,
      'error: context was not found for specified context: nope (the kubeconfig has: first, second)\n',
    );
    // --kubeconfig names one file: the other's contexts are not there.
    const one = runPlugin(['nodes', '--kubeconfig', a, '--context', 'second'], { KUBECONFIG: b });
    assert.match(
      one.stderr,
      /^error: context was not found for specified context: second \(the kubeconfig has: first\)/,
    );
    // No current-context in the only file: say so, rather than reach for a cluster.
    const none = runPlugin(['check', '-A'], { KUBECONFIG: a });
    assert.equal(none.code, 2);
    assert.match(
      none.stderr,
      /^error: the kubeconfig sets no current-context; pass --context \(the kubeconfig has: first\)/,
    );
    // The current context of the merged list (b's) is used; the request then fails against the
    // unreachable cluster, named by that context.
    const merged = runPlugin(['nodes', '--request-timeout', '5s'], { KUBECONFIG: `${a}:${b}` });
    assert.equal(merged.code, 2);
    assert.match(merged.stderr, /second/);
    assert.doesNotMatch(merged.stderr, /error: context/);
    // A check of files stays offline: no kubeconfig is read at all.
    const files = runPlugin(['check', '-o', 'json', resolve(PLUGIN, '..', '..', 'examples', 'good')], {
      KUBECONFIG: join(dir, 'missing.yaml'),
    });
    assert.equal(files.code, 0, files.stderr);
    assert.equal(JSON.parse(files.stdout).summary.errors, 0);
    // -o yaml where the command prints JSON.
    const rules = runPlugin(['rules', '-o', 'yaml'], {});
    assert.equal(rules.code, 0);
    assert.match(rules.stdout, /^- id: \w+\d+\n {2}severity: /);
    const wide = runPlugin(['rules', '-o', 'wide'], {});
    assert.equal(wide.code, 2);
    assert.equal(wide.stderr, 'kubectl windows: -o wide: rules prints text, json or yaml\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
