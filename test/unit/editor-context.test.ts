import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { positionContext, type PositionContext } from '../../src/core/editor/context';
import { nodeAt } from '../../src/core/editor/node-at';
import { loadManifest } from '../../src/core/manifest/document';
import { Rng, genWorkload, seedFromEnv, toCrlf, withSeed } from '../support/yaml-gen';

/** The text with the cursor marker `‸` removed, and the cursor offset. */
function at(src: string): { text: string; offset: number } {
  const offset = src.indexOf('‸');
  assert.ok(offset !== -1, 'no cursor marker');
  return { text: src.slice(0, offset) + src.slice(offset + 1), offset };
}

function ctxOf(src: string): PositionContext {
  const { text, offset } = at(src);
  const ctx = positionContext(text, offset);
  assert.ok(ctx, 'expected a context');
  assert.ok(
    ctx.replaceRange.start <= offset && offset <= ctx.replaceRange.end,
    'the replace range contains the cursor',
  );
  assert.ok(
    !text.slice(ctx.replaceRange.start, ctx.replaceRange.end).includes('\n'),
    'the replace range stays on the line',
  );
  return ctx;
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

test('value after a half-typed `key: ` line, in block style', () => {
  const { offset } = at(POD);
  const ctx = ctxOf(POD);
  assert.equal(ctx.kind, 'value');
  assert.deepEqual(ctx.path, ['spec', 'nodeSelector', 'kubernetes.io/os']);
  assert.equal(ctx.key, 'kubernetes.io/os');
  assert.equal(ctx.partial, '');
  assert.deepEqual(ctx.replaceRange, { start: offset, end: offset });
  assert.equal(ctx.indent, 4);
  assert.equal(ctx.needsSpace, false);
  assert.deepEqual(ctx.object, { kind: 'Pod', path: [] });
});

test('a partly typed value is replaced whole, quotes included', () => {
  const ctx = ctxOf(POD.replace(': ‸', ': wi‸n # comment'));
  const { text } = at(POD.replace(': ‸', ': wi‸n # comment'));
  assert.equal(ctx.kind, 'value');
  assert.equal(ctx.partial, 'wi');
  assert.equal(text.slice(ctx.replaceRange.start, ctx.replaceRange.end), 'win');

  const q = POD.replace('kubernetes.io/os: ‸', 'runAsUserName: "NT AUTH‸ORITY"');
  const qc = ctxOf(q);
  assert.equal(qc.partial, '"NT AUTH');
  assert.equal(at(q).text.slice(qc.replaceRange.start, qc.replaceRange.end), '"NT AUTHORITY"');
});

test('right after the colon, an insertion needs a space', () => {
  const ctx = ctxOf(POD.replace('kubernetes.io/os: ‸', 'kubernetes.io/os:‸'));
  assert.equal(ctx.kind, 'value');
  assert.equal(ctx.needsSpace, true);
  assert.equal(ctx.partial, '');
});

test('key position on an empty line inside a nodeSelector map, and in the pod spec', () => {
  const ns = ctxOf(POD.replace('    kubernetes.io/os: ‸', '    ‸'));
  assert.equal(ns.kind, 'key');
  assert.deepEqual(ns.path, ['spec', 'nodeSelector']);
  assert.equal(ns.indent, 4);
  assert.equal(ns.partial, '');

  const spec = ctxOf(POD.replace('    kubernetes.io/os: ‸', '  ‸'));
  assert.deepEqual(spec.path, ['spec']);
  assert.equal(spec.indent, 2);
  assert.equal(spec.indentUnit, 2);
  assert.ok('nodeSelector' in spec.siblings && 'containers' in spec.siblings, 'keys before and after the cursor line');
  assert.equal(spec.sequenceStyle, 'indentless', 'read from `containers:` below the cursor');
});

test('a key being typed: its token is the replace range; a colon after it is noted', () => {
  const src = POD.replace('    kubernetes.io/os: ‸', '    kubernetes.io/o‸');
  const ctx = ctxOf(src);
  assert.equal(ctx.kind, 'key');
  assert.equal(ctx.partial, 'kubernetes.io/o');
  assert.equal(ctx.hasColon, false);
  assert.equal(at(src).text.slice(ctx.replaceRange.start, ctx.replaceRange.end), 'kubernetes.io/o');

  const colon = ctxOf(POD.replace('    kubernetes.io/os: ‸', '    kube‸rnetes.io/os: windows'));
  assert.equal(colon.kind, 'key');
  assert.equal(colon.hasColon, true);
  assert.equal(colon.key, 'kubernetes.io/os');
  assert.equal(colon.partial, 'kube');
});

test('in a `- name:` sequence item', () => {
  const items = `kind: Pod
spec:
  containers:
  - name: a
    image: x
  - name: b
    securityContext:
      windowsOptions:
        runAsUserName: VALUE
  - KEY
`;
  const ctx = ctxOf(items.replace('VALUE', '‸').replace('KEY', 'na'));
  assert.deepEqual(ctx.path, ['spec', 'containers', 1, 'securityContext', 'windowsOptions', 'runAsUserName']);
  const item = ctxOf(items.replace('VALUE', '').replace('KEY', 'na‸'));
  assert.equal(item.kind, 'key');
  assert.equal(item.seqItem, true);
  assert.deepEqual(item.path, ['spec', 'containers', 2]);
  assert.equal(item.partial, 'na');
  assert.equal(item.indent, 4);
  assert.equal(item.sequenceStyle, 'indentless');

  const inItem = ctxOf(`kind: Pod
spec:
  containers:
    - name: a
      ima‸
`);
  assert.deepEqual(inItem.path, ['spec', 'containers', 0]);
  assert.equal(inItem.seqItem, false);
  assert.equal(inItem.sequenceStyle, 'indented');
});

test('in a multi-document file: the document around the cursor only', () => {
  const src = `apiVersion: v1
kind: Pod
spec:
  os:
    name: linux
---
# second
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      os:
        name: ‸
      containers: []
---
kind: Service
spec:
  ports: []
`;
  const ctx = ctxOf(src);
  assert.deepEqual(ctx.path, ['spec', 'template', 'spec', 'os', 'name']);
  assert.deepEqual(ctx.object, { kind: 'Deployment', path: [] });
  assert.equal(ctx.indent, 8);

  const key = ctxOf(
    src
      .replace('        name: ‸', '        name: windows')
      .replace('      containers: []', '      ‸\n      containers: []'),
  );
  assert.deepEqual(key.path, ['spec', 'template', 'spec']);
  assert.deepEqual(Object.keys(key.siblings).sort(), ['containers', 'os']);
});

test('the kind is found after the cursor, and in List items', () => {
  const after = ctxOf(`spec:
  ‸
kind: Pod
`);
  assert.deepEqual(after.object, { kind: 'Pod', path: [] });

  const list = ctxOf(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  spec:
    ‸
`);
  assert.deepEqual(list.path, ['items', 0, 'spec']);
  assert.deepEqual(list.object, { kind: 'Pod', path: ['items', 0] });

  const items = Array.from(
    { length: 4 },
    (_, i) =>
      `- kind: ${i === 3 ? 'Pod' : 'Service'}\n  metadata:\n    name: s${i}\n  spec:\n    ports:\n    - port: 80\n`,
  ).join('');
  const third = ctxOf(`apiVersion: v1\nkind: List\nitems:\n${items}  spec:\n    ‸\n`);
  assert.deepEqual(third.path, ['items', 3, 'spec']);
  assert.deepEqual(third.object, { kind: 'Pod', path: ['items', 3] });
  assert.equal(third.sequenceStyle, 'indentless');

  const rootSeq = ctxOf('- a: 1\n- b: 2\n  c: ‸\n');
  assert.deepEqual(rootSeq.path, [1, 'c']);
});

test('at the end of the file without a newline', () => {
  const ctx = ctxOf(`kind: Pod
spec:
  nodeSelector:
    node.kubernetes.io/windows-build: "10.0.2‸`);
  assert.equal(ctx.kind, 'value');
  assert.equal(ctx.key, 'node.kubernetes.io/windows-build');
  assert.equal(ctx.partial, '"10.0.2');

  const empty = ctxOf(`kind: Pod
spec:
  ‸`);
  assert.equal(empty.kind, 'key');
  assert.deepEqual(empty.path, ['spec']);
});

test('with CRLF line ends', () => {
  const src = POD.replace(/\n/g, '\r\n');
  const { offset } = at(src);
  const ctx = ctxOf(src);
  assert.equal(ctx.kind, 'value');
  assert.deepEqual(ctx.path, ['spec', 'nodeSelector', 'kubernetes.io/os']);
  assert.deepEqual(ctx.replaceRange, { start: offset, end: offset });
  assert.equal(ctx.newline, '\r\n');

  const typed = ctxOf(POD.replace(': ‸', ': win‸').replace(/\n/g, '\r\n'));
  assert.equal(typed.partial, 'win');
  assert.equal(typed.replaceRange.end - typed.replaceRange.start, 3, 'the \\r is not part of the value');

  const key = ctxOf(`kind: Pod\r\nspec:\r\n  ‸\r\n  containers: []\r\n`);
  assert.deepEqual(key.path, ['spec']);
  assert.equal(key.replaceRange.end, key.replaceRange.start, 'nothing but the line end after the cursor');
});

test('an indentless sequence closes at the next key of its parent', () => {
  const ctx = ctxOf(`kind: Pod
spec:
  containers:
  - name: a
    ports:
    - containerPort: 80
  volumes:
  - name: data
    ‸
`);
  assert.deepEqual(ctx.path, ['spec', 'volumes', 0]);
});

test('block scalars, flow collections and multi-line strings are skipped, not read as keys', () => {
  const ctx = ctxOf(`kind: ConfigMap
data:
  script: |
    spec:
      nodeSelector:
        x: y
  other: >-
    folded
    text
  list: [a,
    b: c]
  quoted: "multi
    line: here"
  ‸
`);
  assert.deepEqual(ctx.path, ['data']);
  assert.deepEqual(Object.keys(ctx.siblings), ['script', 'other', 'list', 'quoted']);

  const { text, offset } = at(`data:
  script: |
    inside: ‸
`);
  assert.equal(positionContext(text, offset), undefined, 'in a block scalar');
});

test('no context in comments, on markers, in flow collections', () => {
  for (const src of [
    'kind: Pod\nspec:\n  # a comm‸ent\n',
    'kind: Pod # trailing‸\n',
    '---‸\nkind: Pod\n',
    'kind: Pod\nspec:\n  nodeSelector: {kubernetes.io/os: ‸}\n',
    'kind: Pod\nspec:\n  args: [a, ‸]\n',
    '%YAML 1.1‸\n---\n',
  ]) {
    const { text, offset } = at(src);
    assert.equal(positionContext(text, offset), undefined, JSON.stringify(src));
  }
});

test('match expressions: the entries next to `values:` are in scopes', () => {
  const ctx = ctxOf(`kind: Pod
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: kubernetes.io/os
            operator: In
            values:
            - ‸
`);
  assert.equal(ctx.seqItem, true);
  const n = ctx.path.length;
  assert.equal(ctx.path[n - 2], 'values');
  assert.equal(ctx.scopes[n - 2]?.key, 'kubernetes.io/os');
});

test('offsets out of range and odd input do not throw', () => {
  for (const [text, offset] of [
    ['', 0],
    ['', 5],
    ['a: b', -3],
    ['\ufeffkind: Pod\nspec:\n  ', 0],
    ['\n\n\n', 1],
    ['- - - ', 6],
    ['key: "unterminated\n  more', 20],
  ] as [string, number][]) {
    assert.doesNotThrow(() => positionContext(text, offset));
  }
  assert.equal(positionContext('\ufeffkind: Pod\n', 0), undefined, 'before the byte order mark');
  const bom = positionContext('\ufeffkind: Pod\nspec:\n  ', 19);
  assert.deepEqual(bom?.path, ['spec']);
  assert.equal(bom?.object?.kind, 'Pod');
});

// ---------------------------------------------------------------------------------------------
// nodeAt

test('nodeAt: keys and values from the positional tree', () => {
  const text = POD.replace('‸', 'windows');
  const keyOffset = text.indexOf('kubernetes.io/os') + 3;
  const key = nodeAt(text, keyOffset);
  assert.ok(key);
  assert.equal(key.target, 'key');
  assert.deepEqual(key.path, ['spec', 'nodeSelector', 'kubernetes.io/os']);
  assert.equal(text.slice(key.span.start, key.span.end), 'kubernetes.io/os');
  assert.equal(key.value, 'windows');

  const value = nodeAt(text, text.indexOf('servercore'));
  assert.ok(value);
  assert.equal(value.target, 'value');
  assert.deepEqual(value.path, ['spec', 'containers', 0, 'image']);
  assert.equal(text.slice(value.span.start, value.span.end), 'mcr.microsoft.com/windows/servercore:ltsc2022');
  assert.equal(value.key, 'image');

  assert.equal(nodeAt(text, text.indexOf('  containers') + 1), undefined, 'indentation is on no node');
});

test('nodeAt: the document holding the offset, in a multi-document file, flow style and CRLF', () => {
  const text = 'kind: Pod\nspec: {os: {name: linux}}\n---\nkind: Pod\r\nspec: {os: {name: windows}}\r\n';
  const hit = nodeAt(text, text.indexOf('windows') + 2);
  assert.ok(hit);
  assert.deepEqual(hit.path, ['spec', 'os', 'name']);
  assert.equal(hit.target, 'value');
  assert.equal(hit.value, 'windows');
  assert.equal(text.slice(hit.span.start, hit.span.end), 'windows');
  assert.equal(hit.document.index, 1);

  const first = nodeAt(text, text.indexOf('linux'));
  assert.equal(first?.value, 'linux');
});

test('nodeAt: a broken document gives nothing, its neighbours still answer', () => {
  const text = 'kind: Pod\nspec: [\n---\nkind: Pod\nspec:\n  hostNetwork: true\n';
  assert.equal(nodeAt(text, 3), undefined);
  const hit = nodeAt(text, text.indexOf('hostNetwork'));
  assert.deepEqual(hit?.path, ['spec', 'hostNetwork']);
  assert.equal(hit?.target, 'key');
  assert.equal(nodeAt(text, text.length + 10), undefined);
});

test('nodeAt: sequence items and aliases', () => {
  const text = 'a: &x [one, two]\nb: *x\nc:\n- three\n';
  assert.deepEqual(nodeAt(text, text.indexOf('two'))?.path, ['a', 1]);
  const alias = nodeAt(text, text.indexOf('*x'));
  assert.deepEqual(alias?.path, ['b']);
  assert.deepEqual(alias?.value, ['one', 'two']);
  assert.deepEqual(nodeAt(text, text.indexOf('three'))?.path, ['c', 0]);
});

test("oracle: on valid YAML the line-based path of every scalar value is the parser's path (seeded)", () => {
  const seed = seedFromEnv(424242);
  const r = new Rng(seed);
  let compared = 0;
  for (let round = 0; round < 150; round++) {
    let text = Array.from({ length: 1 + r.int(3) }, (_, i) => genWorkload(r, i)).join(
      r.chance(0.5) ? '---\n' : '\n---\n',
    );
    if (r.chance(0.3)) text = toCrlf(text);
    if (loadManifest(text).documents.some((d) => d.status !== 'ok')) continue;
    const valueLine = /^[ -]*[A-Za-z0-9_./-]+: +([^\s#|>&*!{[][^\r\n]*)$/gm;
    for (let m = valueLine.exec(text); m; m = valueLine.exec(text)) {
      const offset = m.index + m[0].length - m[1].length + 1;
      const node = nodeAt(text, offset);
      if (node?.target !== 'value') continue;
      withSeed(seed, `round ${round}: ${m[0]}`, () => assert.deepEqual(positionContext(text, offset)?.path, node.path));
      compared++;
    }
  }
  assert.ok(compared > 1000, `${compared} values compared`);
});

test('completion never parses: nothing it imports, directly or not, loads a YAML document', () => {
  // Compiled to out/test/unit/: the repository root is three levels up.
  const root = resolve(__dirname, '..', '..', '..');
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^import (?!type )[^;]*? from '(\.[^']+)';/gms))
      visit(`${resolve(dirname(file), m[1])}.ts`);
  };
  visit(join(root, 'src', 'core', 'editor', 'completion.ts'));
  const reached = [...seen].map((f) => relative(root, f).split(sep).join('/'));
  assert.ok(reached.includes('src/core/editor/context.ts'));
  for (const loader of [
    'src/core/manifest/document.ts',
    'src/core/manifest/split.ts',
    'src/core/editor/node-at.ts',
    'src/core/editor/hover.ts',
  ]) {
    assert.ok(!reached.includes(loader), `completion reaches ${loader}`);
  }
});
