import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completionsAt, snippetToText, type CompletionItem } from '../../src/core/editor/completion';
import { hoverAt } from '../../src/core/editor/hover';
import { positionContext } from '../../src/core/editor/context';
import { nodeAt } from '../../src/core/editor/node-at';
import { getAt } from '../../src/core/manifest/path';
import { Rng, genWorkload, load11, mutate, seedFromEnv, toCrlf, withSeed } from '../support/yaml-gen';
import { cpuMillis } from '../support/cpu-time';

/** The text with the cursor marker `‸` removed, and the cursor offset. */
function at(src: string): { text: string; offset: number } {
  const offset = src.indexOf('‸');
  assert.ok(offset !== -1, 'no cursor marker');
  return { text: src.slice(0, offset) + src.slice(offset + 1), offset };
}

function complete(src: string): { text: string; offset: number; items: CompletionItem[] } {
  const { text, offset } = at(src);
  const items = completionsAt(text, offset);
  for (const item of items) {
    assert.ok(
      item.replaceRange.start <= offset && offset <= item.replaceRange.end,
      `${item.label}: the range contains the cursor`,
    );
    assert.ok(!text.slice(item.replaceRange.start, item.replaceRange.end).includes('\n'), `${item.label}: one line`);
  }
  return { text, offset, items };
}

/** The text after accepting `item` (snippet placeholders at their defaults). */
function accept(text: string, item: CompletionItem): string {
  const insert = item.isSnippet ? snippetToText(item.insertText) : item.insertText;
  return text.slice(0, item.replaceRange.start) + insert + text.slice(item.replaceRange.end);
}

function labels(items: CompletionItem[]): string[] {
  return items.map((i) => i.label);
}

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  nodeSelector:
    kubernetes.io/os: ‸
  containers:
  - name: web
    image: mcr.microsoft.com/windows/servercore:ltsc2022
`;

test('kubernetes.io/os values: windows first, then linux', () => {
  const { text, offset, items } = complete(POD);
  assert.deepEqual(labels(items), ['windows', 'linux']);
  assert.deepEqual(
    items.map((i) => i.insertText),
    ['windows', 'linux'],
  );
  assert.ok(items[0].sortText! < items[1].sortText!);
  assert.deepEqual(items[0].replaceRange, { start: offset, end: offset });
  assert.equal(
    (load11(accept(text, items[0])) as { spec: { nodeSelector: Record<string, string> } }).spec.nodeSelector[
      'kubernetes.io/os'
    ],
    'windows',
  );

  // A partly typed, quoted value is replaced whole.
  const typed = complete(POD.replace(': ‸', ': "Win‸"'));
  assert.equal(typed.text.slice(typed.items[0].replaceRange.start, typed.items[0].replaceRange.end), '"Win"');
  assert.equal(typed.items[0].filterText, '"windows');
  assert.match(accept(typed.text, typed.items[0]), /kubernetes\.io\/os: windows\n/);

  // Right after the colon, the value gets its space.
  const tight = complete(POD.replace('kubernetes.io/os: ‸', 'kubernetes.io/os:‸'));
  assert.equal(tight.items[0].insertText, ' windows');
  assert.match(accept(tight.text, tight.items[0]), /kubernetes\.io\/os: windows\n/);

  assert.deepEqual(labels(complete(POD.replace('kubernetes.io/os', 'beta.kubernetes.io/os')).items), [
    'windows',
    'linux',
  ]);
});

test('windows-build values: LTSC builds quoted, named in detail, end-of-life last', () => {
  const src = POD.replace('kubernetes.io/os: ‸', 'node.kubernetes.io/windows-build: ‸');
  const { text, items } = complete(src);
  assert.deepEqual(labels(items), ['10.0.26100', '10.0.20348', '10.0.17763', '10.0.14393']);
  assert.deepEqual(
    items.map((i) => i.insertText),
    ['"10.0.26100"', '"10.0.20348"', '"10.0.17763"', '"10.0.14393"'],
  );
  assert.match(items[1].detail!, /^Windows Server 2022$/);
  assert.match(items[2].detail!, /Windows Server 2019/);
  assert.match(items[3].detail!, /end of life/);
  assert.ok(!labels(items).includes('10.0.25398'), 'no annual-channel build');
  for (const item of items) {
    const doc = load11(accept(text, item));
    assert.equal(
      getAt(doc, ['spec', 'nodeSelector', 'node.kubernetes.io/windows-build']),
      item.label,
      'a string, not a number',
    );
  }
});

test('runAsUserName values: the accounts, quoted so that YAML keeps one backslash', () => {
  const src = POD.replace('kubernetes.io/os: ‸', 'zz: 1').replace(
    '    image:',
    '    securityContext:\n      windowsOptions:\n        runAsUserName: ‸\n    image:',
  );
  const { text, items } = complete(src);
  assert.deepEqual(labels(items), [
    'ContainerUser',
    'ContainerAdministrator',
    'NT AUTHORITY\\SYSTEM',
    'NT AUTHORITY\\Local service',
    'NT AUTHORITY\\NetworkService',
  ]);
  assert.deepEqual(
    items.map((i) => i.insertText),
    [
      'ContainerUser',
      'ContainerAdministrator',
      "'NT AUTHORITY\\SYSTEM'",
      "'NT AUTHORITY\\Local service'",
      "'NT AUTHORITY\\NetworkService'",
    ],
  );
  for (const item of items) {
    assert.ok(item.detail, `${item.label} has a detail`);
    assert.ok(!item.detail.includes('\n'), 'one line');
    const value = getAt(load11(accept(text, item)), [
      'spec',
      'containers',
      0,
      'securityContext',
      'windowsOptions',
      'runAsUserName',
    ]);
    assert.equal(value, item.label);
    assert.equal(String(value).split('\\').length - 1, item.label.includes('\\') ? 1 : 0, 'exactly one backslash');
  }
});

test('os.name values', () => {
  const src = 'kind: Pod\nspec:\n  os:\n    name: ‸\n';
  assert.deepEqual(labels(complete(src).items), ['windows', 'linux']);
  assert.deepEqual(complete('kind: Pod\nmetadata:\n  name: ‸\n').items, [], 'a name elsewhere');
});

test('match expressions: values of kubernetes.io/os and windows-build', () => {
  const src = `kind: Pod
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: KEY
            operator: In
            values:
            - ‸
`;
  assert.deepEqual(labels(complete(src.replace('KEY', 'kubernetes.io/os')).items), ['windows', 'linux']);
  const build = complete(src.replace('KEY', 'node.kubernetes.io/windows-build'));
  assert.equal(build.items[1].insertText, '"10.0.20348"');
  assert.deepEqual(complete(src.replace('KEY', 'topology.kubernetes.io/zone')).items, []);
});

test('keys inside a nodeSelector', () => {
  const src = POD.replace('    kubernetes.io/os: ‸', '    ‸');
  const { text, items } = complete(src);
  assert.deepEqual(labels(items), ['kubernetes.io/os: windows', 'node.kubernetes.io/windows-build']);
  assert.equal(items[0].insertText, 'kubernetes.io/os: windows');
  assert.equal(items[0].isSnippet, undefined);
  assert.equal(items[1].isSnippet, true);
  assert.equal(items[1].insertText, 'node.kubernetes.io/windows-build: "${1|10.0.26100,10.0.20348,10.0.17763|}"');
  assert.deepEqual(getAt(load11(accept(text, items[0])), ['spec', 'nodeSelector']), { 'kubernetes.io/os': 'windows' });
  assert.deepEqual(getAt(load11(accept(text, items[1])), ['spec', 'nodeSelector']), {
    'node.kubernetes.io/windows-build': '10.0.26100',
  });

  // Partly typed, and with a colon already there: only the key is replaced.
  const typed = complete(POD.replace('    kubernetes.io/os: ‸', '    kub‸'));
  assert.equal(typed.text.slice(typed.items[0].replaceRange.start, typed.items[0].replaceRange.end), 'kub');
  const colon = complete(POD.replace('    kubernetes.io/os: ‸', '    kube‸: windows'));
  assert.equal(colon.items[0].insertText, 'kubernetes.io/os');
  assert.equal(colon.items[1].insertText, 'node.kubernetes.io/windows-build');
  assert.match(accept(colon.text, colon.items[0]), /\n {4}kubernetes\.io\/os: windows\n/);

  // Keys already in the map (above or below) are not offered again.
  const existing = complete(POD.replace('    kubernetes.io/os: ‸', '    ‸\n    kubernetes.io/os: windows'));
  assert.deepEqual(labels(existing.items), ['node.kubernetes.io/windows-build']);
});

function snippet(items: CompletionItem[], label: string): CompletionItem {
  const item = items.find((i) => i.label === label);
  assert.ok(item, `${label} offered`);
  return item;
}

test('pod spec snippets in a Pod: block YAML at the cursor indentation', () => {
  const src = POD.replace('  nodeSelector:\n    kubernetes.io/os: ‸\n', '  ‸\n');
  const { text, items } = complete(src);
  assert.deepEqual(labels(items), ['os: windows', 'Windows scheduling', 'HostProcess pod']);
  assert.ok(items.every((i) => i.kind === 'snippet'));

  const os = snippet(items, 'os: windows');
  assert.equal(os.insertText, 'os:\n    name: windows');
  assert.deepEqual(getAt(load11(accept(text, os)), ['spec', 'os']), { name: 'windows' });

  const sched = snippet(items, 'Windows scheduling');
  assert.equal(
    sched.insertText,
    'nodeSelector:\n    kubernetes.io/os: windows\n  tolerations:\n  - key: os\n    operator: Exists\n    effect: NoSchedule',
    'indentless, as containers below',
  );
  const scheduled = load11(accept(text, sched));
  assert.deepEqual(getAt(scheduled, ['spec', 'nodeSelector']), { 'kubernetes.io/os': 'windows' });
  assert.deepEqual(getAt(scheduled, ['spec', 'tolerations']), [
    { key: 'os', operator: 'Exists', effect: 'NoSchedule' },
  ]);
  assert.equal(getAt(scheduled, ['spec', 'containers', 0, 'name']), 'web');

  const hpc = snippet(items, 'HostProcess pod');
  assert.equal(hpc.isSnippet, true);
  assert.match(
    hpc.insertText,
    /\$\{1\|'NT AUTHORITY\\\\Local service','NT AUTHORITY\\\\NetworkService','NT AUTHORITY\\\\SYSTEM'\|\}/,
  );
  assert.equal(
    snippetToText(hpc.insertText),
    "securityContext:\n    windowsOptions:\n      hostProcess: true\n      runAsUserName: 'NT AUTHORITY\\Local service'\n  hostNetwork: true",
  );
  const host = load11(accept(text, hpc));
  assert.equal(
    getAt(host, ['spec', 'securityContext', 'windowsOptions', 'runAsUserName']),
    'NT AUTHORITY\\Local service',
  );
  assert.equal(getAt(host, ['spec', 'securityContext', 'windowsOptions', 'hostProcess']), true);
  assert.equal(getAt(host, ['spec', 'hostNetwork']), true);
});

test('pod spec snippets in workload templates, with 4-space indentation and indented sequences', () => {
  const deploy = `apiVersion: apps/v1
kind: Deployment
metadata:
    name: web
spec:
    template:
        spec:
            ‸
            containers:
                - name: web
                  image: x
`;
  const { text, items } = complete(deploy);
  const sched = snippet(items, 'Windows scheduling');
  assert.equal(
    sched.insertText,
    'nodeSelector:\n                kubernetes.io/os: windows\n            tolerations:\n                - key: os\n                  operator: Exists\n                  effect: NoSchedule',
  );
  for (const item of items) {
    const doc = load11(accept(text, item));
    assert.equal(getAt(doc, ['spec', 'template', 'spec', 'containers', 0, 'name']), 'web', item.label);
  }
  assert.deepEqual(
    getAt(load11(accept(text, sched)), ['spec', 'template', 'spec', 'tolerations', 0, 'operator']),
    'Exists',
  );

  const cron = complete(`kind: CronJob
spec:
  jobTemplate:
    spec:
      template:
        spec:
          ‸
`);
  assert.deepEqual(labels(cron.items), ['os: windows', 'Windows scheduling', 'HostProcess pod']);
  assert.equal(
    getAt(load11(accept(cron.text, snippet(cron.items, 'os: windows'))), [
      'spec',
      'jobTemplate',
      'spec',
      'template',
      'spec',
      'os',
      'name',
    ]),
    'windows',
  );
});

test('pod spec snippets: CRLF files get CRLF lines; keys already there are left out', () => {
  const src = 'kind: Pod\r\nspec:\r\n  ‸\r\n  containers: []\r\n';
  const { text, items } = complete(src);
  const os = snippet(items, 'os: windows');
  assert.equal(os.insertText, 'os:\r\n    name: windows');
  const after = accept(text, snippet(items, 'HostProcess pod'));
  assert.ok(!/[^\r]\n/.test(after), 'no bare LF');
  assert.equal(
    getAt(load11(after), ['spec', 'securityContext', 'windowsOptions', 'runAsUserName']),
    'NT AUTHORITY\\Local service',
  );

  const busy = complete('kind: Pod\nspec:\n  os: {name: windows}\n  securityContext: {}\n  ‸\n  nodeSelector: {}\n');
  assert.deepEqual(labels(busy.items), ['Windows scheduling']);
  assert.equal(
    busy.items[0].insertText,
    'tolerations:\n    - key: os\n      operator: Exists\n      effect: NoSchedule',
    'indented sequences when the document has none',
  );

  const hostNet = complete('kind: Pod\nspec:\n  hostNetwork: true\n  ‸\n');
  assert.ok(!snippet(hostNet.items, 'HostProcess pod').insertText.includes('hostNetwork'));
});

test('nothing elsewhere', () => {
  for (const src of [
    'kind: Pod\nmetadata:\n  ‸\n',
    'kind: Pod\nspec:\n  containers:\n  - name: a\n    ‸\n',
    'kind: Pod\nspec:\n  containers:\n  - ‸\n',
    'kind: ConfigMap\nspec:\n  ‸\n',
    'kind: Deployment\nspec:\n  ‸\n',
    'kind: Pod\nspec:\n  ‸: x\n',
    'kind: Pod\nspec:\n  image: ‸\n',
    'kind: Pod\n‸',
    '# kubernetes.io/os: ‸\n',
    '‸',
  ]) {
    assert.deepEqual(complete(src).items, [], JSON.stringify(src));
  }
});

test('snippetToText resolves placeholders, choices and escapes', () => {
  assert.equal(snippetToText('a: ${1:x}$0'), 'a: x');
  assert.equal(snippetToText('${1|one\\,two,three|} \\$HOME \\}'), 'one,two $HOME }');
  assert.equal(snippetToText('${2:outer ${3:inner}}'), 'outer inner');
  assert.equal(snippetToText('plain $'), 'plain $');
});

test('never throws on mutated manifests; ranges always contain the cursor (seeded)', () => {
  const seed = seedFromEnv(20250611);
  const r = new Rng(seed);
  for (let round = 0; round < 250; round++) {
    let text = Array.from({ length: 1 + r.int(3) }, (_, i) => genWorkload(r, i)).join('---\n');
    for (let m = r.int(5); m > 0; m--) text = mutate(r, text);
    if (r.chance(0.2)) text = toCrlf(text);
    for (let probe = 0; probe < 8; probe++) {
      const offset = r.int(text.length + 1);
      withSeed(seed, `round ${round}, offset ${offset}`, () => {
        const ctx = positionContext(text, offset);
        if (ctx) assert.ok(ctx.replaceRange.start <= offset && offset <= ctx.replaceRange.end);
        for (const item of completionsAt(text, offset)) {
          assert.ok(item.replaceRange.start <= offset && offset <= item.replaceRange.end);
          assert.ok(!text.slice(item.replaceRange.start, item.replaceRange.end).includes('\n'));
        }
        const hover = hoverAt(text, offset);
        if (hover) assert.ok(hover.range.start <= offset && offset < hover.range.end);
        nodeAt(text, offset);
      });
    }
  }
});

test('fast on a 1000-document file: completion reads lines, hover parses one document', () => {
  const r = new Rng(7);
  const docs = Array.from({ length: 1000 }, (_, i) => genWorkload(r, i));
  const text = docs.join('---\n') + '---\nkind: Pod\nspec:\n  nodeSelector:\n    kubernetes.io/os: ';
  assert.ok(text.length > 300_000);
  const t0 = cpuMillis();
  for (let i = 0; i < 20; i++) completionsAt(text, text.length);
  const perCompletion = (cpuMillis() - t0) / 20;
  const mid = text.indexOf('image:', text.length >> 1);
  const t1 = cpuMillis();
  for (let i = 0; i < 20; i++) hoverAt(text, mid + 1);
  const perHover = (cpuMillis() - t1) / 20;
  assert.deepEqual(labels(completionsAt(text, text.length)), ['windows', 'linux']);
  assert.ok(perCompletion < 20, `completion took ${perCompletion.toFixed(2)} ms`);
  assert.ok(perHover < 50, `hover took ${perHover.toFixed(2)} ms`);
});
