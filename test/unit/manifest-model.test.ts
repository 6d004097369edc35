// The manifest model: splitting a stream into documents, the positional tree, and path ranges.
// Hand-written documents pin exact ranges for every construct; generated ones check, for every
// key and value, that the text of its range reads back as that key or value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadAll } from 'js-yaml';
import { YAML11_SCHEMA } from 'js-yaml';
import { forEachDocument, loadManifest, openManifest, type ManifestDocument } from '../../src/core/manifest/document';
import { splitDocuments } from '../../src/core/manifest/split';
import { locate, spanFor, type Path, type Target } from '../../src/core/manifest/path';
import { keyString, type PNode } from '../../src/core/manifest/positional-tree';
import { LineIndex } from '../../src/core/manifest/text';
import { positionProblems } from '../support/positions';
import { Rng, genDocument, genStream, seedFromEnv, toCrlf, withSeed } from '../support/yaml-gen';

/** The one document of `yaml` (or document `index`), with helpers that return the text a path's range covers. */
function docOf(yaml: string, index = 0) {
  const file = loadManifest(yaml);
  const doc = file.documents[index];
  assert.ok(doc, `no document ${index}`);
  assert.ok(doc.status === 'ok' || doc.status === 'empty', `document ${index} is ${doc.status}: ${doc.reason}`);
  const tree = doc.tree();
  const at = (path: Path, target: Target) => {
    const s = spanFor(tree, path, target);
    assert.ok(s, `no span for ${JSON.stringify(path)}`);
    return doc.text.slice(s.start, s.end);
  };
  return {
    file,
    doc,
    tree,
    key: (path: Path) => at(path, 'key'),
    value: (path: Path) => at(path, 'value'),
    pair: (path: Path) => at(path, 'pair'),
    node: (path: Path) => {
      const n = locate(tree, path).node;
      assert.ok(n, `no node at ${JSON.stringify(path)}`);
      return n;
    },
  };
}

/** Asserts `[path, key text, value text]` rows; `undefined` skips a column. */
function expectRanges(yaml: string, rows: [Path, string | undefined, string | undefined][], index = 0, reread = true) {
  const d = docOf(yaml, index);
  for (const [path, key, value] of rows) {
    if (key !== undefined) assert.equal(d.key(path), key, `key of ${JSON.stringify(path)}`);
    if (value !== undefined) assert.equal(d.value(path), value, `value of ${JSON.stringify(path)}`);
  }
  if (reread) assert.deepEqual(positionProblems(d.doc), [], 'every key and value reads back from its range');
  return d;
}

test('block maps and `- key:` sequence items: every key and value', () => {
  const yaml = `apiVersion: v1
kind: Pod
metadata:
  name: web   # trailing comment
  labels:
    app.kubernetes.io/name: web
spec:
  containers:
  - name: app
    image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"
    args: ['-c', "echo hi"]
  -   name: second
      image: 'it''s'
      ports:
        - containerPort: 80
          protocol: TCP
  nodeSelector:
    kubernetes.io/os: windows
`;
  expectRanges(yaml, [
    [['apiVersion'], 'apiVersion', 'v1'],
    [['kind'], 'kind', 'Pod'],
    [['metadata'], 'metadata', 'name'],
    [['metadata', 'name'], 'name', 'web'],
    [['metadata', 'labels', 'app.kubernetes.io/name'], 'app.kubernetes.io/name', 'web'],
    [['spec', 'containers'], 'containers', '- name'],
    [['spec', 'containers', 0], undefined, 'name'],
    [['spec', 'containers', 0, 'name'], 'name', 'app'],
    [['spec', 'containers', 0, 'image'], 'image', '"mcr.microsoft.com/windows/nanoserver:ltsc2022"'],
    [['spec', 'containers', 0, 'args'], 'args', `['-c', "echo hi"]`],
    [['spec', 'containers', 0, 'args', 0], undefined, `'-c'`],
    [['spec', 'containers', 0, 'args', 1], undefined, `"echo hi"`],
    [['spec', 'containers', 1, 'name'], 'name', 'second'],
    [['spec', 'containers', 1, 'image'], 'image', `'it''s'`],
    [['spec', 'containers', 1, 'ports'], 'ports', '- containerPort'],
    [['spec', 'containers', 1, 'ports', 0, 'containerPort'], 'containerPort', '80'],
    [['spec', 'containers', 1, 'ports', 0, 'protocol'], 'protocol', 'TCP'],
    [['spec', 'nodeSelector', 'kubernetes.io/os'], 'kubernetes.io/os', 'windows'],
  ]);
  const d = docOf(yaml);
  assert.equal(d.pair(['metadata', 'name']), 'name: web');
  assert.equal(d.pair(['spec', 'containers', 1, 'ports', 0, 'protocol']), 'protocol: TCP');
  // A missing path falls back to the deepest key on the way that exists.
  assert.equal(d.key(['spec', 'containers', 0, 'securityContext', 'privileged']), 'containers');
  assert.equal(d.key(['metadata', 'annotations']), 'metadata');
});

test('a sequence of sequences, and sequences not indented under their key', () => {
  expectRanges(
    `matrix:
- - a
  - b
- - [c, d]
list:
- x
-   y
`,
    [
      [['matrix'], 'matrix', '- - a'],
      [['matrix', 0], undefined, '- a'],
      [['matrix', 0, 1], undefined, 'b'],
      [['matrix', 1, 0], undefined, '[c, d]'],
      [['matrix', 1, 0, 1], undefined, 'd'],
      [['list', 1], undefined, 'y'],
    ],
  );
});

test('flow maps and sequences, nested in block and in each other, over several lines', () => {
  expectRanges(
    `m: {a: 1, b: [x, "y", {c: d}], 'e': f}
s: [ 1 , two,
  {k: v},   # comment inside
  ]
nest: {a: {b: {c: [1, [2, [3]]]}}}
e: {}
z: []
`,
    [
      [['m'], 'm', `{a: 1, b: [x, "y", {c: d}], 'e': f}`],
      [['m', 'a'], 'a', '1'],
      [['m', 'b'], 'b', '[x, "y", {c: d}]'],
      [['m', 'b', 1], undefined, '"y"'],
      [['m', 'b', 2], undefined, '{c: d}'],
      [['m', 'b', 2, 'c'], 'c', 'd'],
      [['m', 'e'], `'e'`, 'f'],
      [['s'], 's', '[ 1 , two,\n  {k: v},   # comment inside\n  ]'],
      [['s', 0], undefined, '1'],
      [['s', 1], undefined, 'two'],
      [['s', 2, 'k'], 'k', 'v'],
      [['nest', 'a', 'b', 'c', 1, 1, 0], undefined, '3'],
      [['e'], 'e', '{}'],
      [['z'], 'z', '[]'],
    ],
  );
});

test('quoted scalars: single, double, escapes, line folding', () => {
  expectRanges(
    `single: 'it''s # not a comment'
double: "tab\\there \\"q\\" \\u00e9 \\\\"
folded: "first
  second"
"quoted key": 1
'single key': 2
colon: "a: b"
`,
    [
      [['single'], 'single', `'it''s # not a comment'`],
      [['double'], 'double', `"tab\\there \\"q\\" \\u00e9 \\\\"`],
      [['folded'], 'folded', '"first\n  second"'],
      [['quoted key'], '"quoted key"', '1'],
      [['single key'], `'single key'`, '2'],
      [['colon'], 'colon', '"a: b"'],
    ],
  );
});

test('block scalars | and > with every chomping indicator, indentation indicators and header comments', () => {
  const d = expectRanges(
    `lit: |
  line1
  line2
strip: >-
  folded
  text
keep: |+
  kept

indented: |2
    two more
  base
commented: > # header comment
  body
empty: |
after: x
`,
    [
      [['lit'], 'lit', '|\n  line1\n  line2'],
      [['strip'], 'strip', '>-\n  folded\n  text'],
      [['keep'], 'keep', '|+\n  kept'],
      [['indented'], 'indented', '|2\n    two more\n  base'],
      [['commented'], 'commented', '> # header comment\n  body'],
      [['empty'], 'empty', '|'],
      [['after'], 'after', 'x'],
    ],
  );
  assert.deepEqual(d.doc.value, {
    lit: 'line1\nline2\n',
    strip: 'folded text',
    keep: 'kept\n\n',
    indented: '  two more\nbase\n',
    commented: 'body\n',
    empty: '',
    after: 'x',
  });
  // The blank line a `|+` scalar keeps belongs to it, past its underlined end.
  const keep = d.node(['keep']);
  assert.equal(d.doc.text.slice(keep.end, keep.tailEnd), '\n\n');
});

test('block scalars as sequence items and at the end of a text without a newline', () => {
  expectRanges('- |\n  one\n- >\n  two\n- |-\n  three', [
    [[0], undefined, '|\n  one'],
    [[1], undefined, '>\n  two'],
    [[2], undefined, '|-\n  three'],
  ]);
  expectRanges('a: |', [[['a'], 'a', '|']]);
});

test('empty values: `key:`, `-`, `{a, b}`, and empty values with a tag or an anchor', () => {
  const yaml = `a:
b: ~
c: !!str
d: &x
seq:
-
-   # a comment
- x
flow: {k: , j, l: 1}
last:`;
  const d = expectRanges(yaml, [
    [['a'], 'a', 'a'],
    [['b'], 'b', '~'],
    [['c'], 'c', '!!str'],
    [['d'], 'd', '&x'],
    [['seq', 2], undefined, 'x'],
    [['flow', 'l'], 'l', '1'],
    [['last'], 'last', 'last'],
  ]);
  assert.deepEqual(d.doc.value, {
    a: null,
    b: null,
    c: '',
    d: null,
    seq: [null, null, 'x'],
    flow: { k: null, j: null, l: 1 },
    last: null,
  });
  const text = d.doc.text;
  // An empty value sits right after its `:` or `-`, never somewhere later on the line.
  const at = (path: Path) => {
    const n = d.node(path);
    assert.equal(n.start, n.end, `${JSON.stringify(path)} is empty`);
    return n.start;
  };
  assert.equal(text.slice(at(['a']) - 2, at(['a'])), 'a:');
  assert.equal(text.slice(at(['seq', 0]) - 1, at(['seq', 0])), '-');
  assert.equal(text.slice(at(['seq', 1]) - 1, at(['seq', 1]) + 4), '-   #');
  assert.equal(text.slice(at(['flow', 'k']) - 2, at(['flow', 'k'])), 'k:');
  assert.equal(text.slice(at(['flow', 'j']) - 1, at(['flow', 'j']) + 1), 'j,');
  assert.equal(text.slice(at(['last']) - 5), 'last:');
  // A block map ending with an empty value ends after its `:`.
  const m = docOf('outer:\n  inner:\n    a: 1\n    b:\nnext: 1\n');
  const inner = m.node(['outer', 'inner']);
  assert.equal(m.doc.text.slice(inner.start, inner.end), 'a: 1\n    b:');
});

test('anchors, aliases and merge keys: ranges point at the text that gives the value', () => {
  const yaml = `base: &base
  cpu: 100m
  memory: 1Gi
list: &l [a, b]
one: &one x
limits:
  <<: *base
  memory: 2Gi
multi:
  <<: [*base, {zone: z1, cpu: 1}]
copy: *l
alias: *one
`;
  const d = expectRanges(yaml, [
    [['base'], 'base', 'cpu'],
    [['list'], 'list', '&l [a, b]'],
    [['one'], 'one', '&one x'],
    [['copy'], 'copy', '*l'],
    [['copy', 1], undefined, 'b'],
    [['alias'], 'alias', '*one'],
    [['limits', 'memory'], 'memory', '2Gi'],
    [['limits', 'cpu'], 'cpu', '100m'],
    [['multi', 'zone'], 'zone', 'z1'],
    // In `<<: [*a, *b]` the earlier map wins, as in the loader.
    [['multi', 'cpu'], 'cpu', '100m'],
  ]);
  assert.deepEqual(d.doc.value, {
    base: { cpu: '100m', memory: '1Gi' },
    list: ['a', 'b'],
    one: 'x',
    limits: { cpu: '100m', memory: '2Gi' },
    multi: { cpu: '100m', memory: '1Gi', zone: 'z1' },
    copy: ['a', 'b'],
    alias: 'x',
  });
  const text = d.doc.text;
  // The merged `cpu` is found in the anchored map, the local `memory` where it is written.
  const cpu = spanFor(d.tree, ['limits', 'cpu'], 'key')!;
  assert.equal(cpu.start, text.indexOf('cpu'));
  assert.equal(spanFor(d.tree, ['limits', 'memory'], 'value')!.start, text.indexOf('2Gi'));
  const viaMerge = locate(d.tree, ['limits', 'cpu']);
  assert.equal(viaMerge.viaAlias, true);
  assert.equal(viaMerge.mergeHost, locate(d.tree, ['limits']).node);
  assert.equal(locate(d.tree, ['limits', 'memory']).viaAlias, false);
  assert.equal(locate(d.tree, ['copy', 0]).viaAlias, true);
  // Anchored nodes know their aliases.
  assert.equal(d.node(['base']).aliases?.length, 2);
});

test('tags: on values, on keys, verbatim; the tag is part of the range', () => {
  const d = expectRanges(
    `a: !!str 123
b: !!int "7"
c: !<tag:yaml.org,2002:str> v
!!str 10: ten
d: !!map {x: 1}
e: !!seq
- 1
`,
    [
      [['a'], 'a', '!!str 123'],
      [['b'], 'b', '!!int "7"'],
      [['c'], 'c', '!<tag:yaml.org,2002:str> v'],
      [['10'], '!!str 10', 'ten'],
      [['d'], 'd', '!!map {x: 1}'],
      [['e', 0], undefined, '1'],
    ],
  );
  assert.deepEqual(d.doc.value, { a: '123', b: 7, c: 'v', '10': 'ten', d: { x: 1 }, e: [1] });
  assert.equal(d.value(['e']), '- 1', 'a block sequence is underlined from its first dash, not its tag');
});

test('keys that YAML 1.1 resolves to booleans, null and numbers are found by their property names', () => {
  const d = expectRanges(
    `y: 1
off: 2
~: 3
0x10: 4
1.50: 5
"yes": 6
plain: 7
`,
    [
      [['true'], 'y', '1'],
      [['false'], 'off', '2'],
      [['null'], '~', '3'],
      [['16'], '0x10', '4'],
      [['1.5'], '1.50', '5'],
      [['yes'], '"yes"', '6'],
      [['plain'], 'plain', '7'],
    ],
  );
  assert.deepEqual(Object.keys(d.doc.value as object).sort(), ['1.5', '16', 'false', 'null', 'plain', 'true', 'yes']);
  const root = d.tree as { pairs: { key: PNode }[] };
  assert.deepEqual(
    root.pairs.map((p) => keyString(p.key)),
    ['true', 'false', 'null', '16', '1.5', 'yes', 'plain'],
  );
});

test('comments everywhere stay out of ranges', () => {
  expectRanges(
    `# head comment
a: 1 # c1
# between
b: # after the key
  # before the nested map
  c: 2 # c2
  # trailing in the map
d: [1, # inside flow
  2]
e: "x # y" # real comment
f:
  - g # after an item
  # between items
  - h
`,
    [
      [['a'], 'a', '1'],
      [['b'], 'b', 'c'],
      [['b', 'c'], 'c', '2'],
      [['d'], 'd', '[1, # inside flow\n  2]'],
      [['d', 1], undefined, '2'],
      [['e'], 'e', '"x # y"'],
      [['f', 0], undefined, 'g'],
      [['f', 1], undefined, 'h'],
    ],
  );
});

test('CRLF line endings: ranges hold no carriage return; block scalars read as with LF', () => {
  const yaml = toCrlf(`a: 1
b:
  - c: "x"
    d: |
      l1
      l2
  - e
f: {g: h}
`);
  const d = expectRanges(yaml, [
    [['a'], 'a', '1'],
    [['b', 0, 'c'], 'c', '"x"'],
    [['b', 0, 'd'], 'd', '|\r\n      l1\r\n      l2'],
    [['b', 1], undefined, 'e'],
    [['f', 'g'], 'g', 'h'],
  ]);
  assert.equal(d.file.newline, '\r\n');
  assert.deepEqual(d.doc.value, { a: 1, b: [{ c: 'x', d: 'l1\nl2\n' }, 'e'], f: { g: 'h' } });
  const lines = d.file.lines();
  const s = spanFor(d.tree, ['f', 'g'], 'key')!;
  assert.deepEqual(lines.rangeOf({ start: d.doc.span.start + s.start, end: d.doc.span.start + s.end }), {
    start: { line: 7, character: 4 },
    end: { line: 7, character: 5 },
  });
  assert.equal(lines.lineEnd(0), 4, 'a line ends before its \\r\\n');
});

test('a byte order mark is not part of the first document; positions count it like an editor does', () => {
  const yaml = '\ufeffa: 1\nb: [x, z]\n';
  const d = expectRanges(yaml, [
    [['a'], 'a', '1'],
    [['b', 1], undefined, 'z'],
  ]);
  assert.equal(d.doc.span.start, 1);
  assert.deepEqual(d.doc.value, { a: 1, b: ['x', 'z'] });
  const s = spanFor(d.tree, ['a'], 'key')!;
  assert.deepEqual(d.file.lines().positionAt(d.doc.span.start + s.start), { line: 0, character: 1 });
});

test('tabs inside values, and a tab after the colon', () => {
  const d = expectRanges('a: "x\ty"\nb: x\ty z\nc:\tvalue\nd: [p\tq, r]\n', [
    [['a'], 'a', '"x\ty"'],
    [['b'], 'b', 'x\ty z'],
    [['c'], 'c', 'value'],
    [['d', 0], undefined, 'p\tq'],
  ]);
  assert.deepEqual(d.doc.value, { a: 'x\ty', b: 'x\ty z', c: 'value', d: ['p\tq', 'r'] });
});

test('tab-led continuation lines of quoted scalars are read as go-yaml (kubectl, the API server) reads them', () => {
  // Values as sigs.k8s.io/yaml v1.4.0 decodes these texts: the leading white space is folded away.
  const d = expectRanges(
    'args:\n  - "one \\n\n\t    two\n\t\t  three"\n  - \'a\n\t   b\'\nnext: 1\n',
    [
      [['args', 0], undefined, '"one \\n\n\t    two\n\t\t  three"'],
      [['args', 1], undefined, "'a\n\t   b'"],
      [['next'], 'next', '1'],
      // (not re-read with js-yaml's own loader, which rejects these texts)
    ],
    0,
    false,
  );
  assert.deepEqual(d.doc.value, { args: ['one \n two three', 'a b'], next: 1 });
  assert.equal(
    d.doc.text,
    'args:\n  - "one \\n\n\t    two\n\t\t  three"\n  - \'a\n\t   b\'\nnext: 1\n',
    'the document keeps its own text',
  );
  // Still not YAML, for go-yaml too: a tab indenting a block mapping key, a plain scalar's
  // continuation indented by a tab. (go-yaml also takes a quoted line indented less than its
  // scalar, `- "x\n\ty"` under a key at column 2; the spec and js-yaml do not, and neither do we.)
  for (const text of ['a:\n\tb: 1\n', 'a:\n  b: one\n\ttwo\n', 'a:\n  b:\n    - "x\n\ty"\n']) {
    const doc = loadManifest(text).documents[0];
    assert.equal(doc.status, 'syntax-error', JSON.stringify(text));
    assert.equal(doc.tree(), undefined);
  }
});

test('`---` with content on the same line, `...` end markers, comment-only documents', () => {
  const yaml = `--- {a: 1}
--- !!map
b: 2
--- |
  text
...
# only a comment, after an end marker
---
# only comments in this one
...
--- >-
  folded
--- # a comment on the marker line
c: 3
...
`;
  const file = loadManifest(yaml);
  assert.deepEqual(
    file.documents.map((d) => d.value),
    [{ a: 1 }, { b: 2 }, 'text\n', 'folded', { c: 3 }],
  );
  assert.deepEqual(
    file.documents.map((d) => d.index),
    [0, 1, 2, 3, 4],
  );
  expectRanges(yaml, [[['a'], 'a', '1']], 0);
  expectRanges(yaml, [[['b'], 'b', '2']], 1);
  expectRanges(yaml, [[['c'], 'c', '3']], 4);
  const scalar = docOf(yaml, 2);
  assert.equal(scalar.value([]), '|\n  text');
  // Every document's text is its span of the file.
  for (const d of file.documents) assert.equal(d.text, yaml.slice(d.span.start, d.span.end));
});

test('directives belong to the document their `---` opens', () => {
  const yaml = `a: 1
...
%YAML 1.1
%TAG !k! tag:yaml.org,2002:
---
b: !k!str 2
---
c: 3
`;
  assert.deepEqual(
    splitDocuments(yaml).map((s) => yaml.slice(s.start, s.end)),
    ['a: 1\n...\n', '%YAML 1.1\n%TAG !k! tag:yaml.org,2002:\n---\nb: !k!str 2\n', '---\nc: 3\n'],
  );
  const file = loadManifest(yaml);
  assert.deepEqual(
    file.documents.map((d) => [d.status, d.value]),
    [
      ['ok', { a: 1 }],
      ['ok', { b: '2' }],
      ['ok', { c: 3 }],
    ],
  );
  // (Read on their own, the ranges would miss the %TAG directive: no read-back check here.)
  expectRanges(yaml, [[['b'], 'b', '!k!str 2']], 1, false);
  const first = loadManifest('%YAML 1.1\n---\nx: 1\n');
  assert.equal(first.documents.length, 1);
  assert.equal(first.documents[0].span.start, 0);
});

test('splitDocuments: markers only at column 0 and followed by a blank; `---` inside scalars ends them (as in the spec)', () => {
  const yaml = 'a: "---"\nb: |\n  ---x\n  text\n---not-a-marker: 1\n  --- indented\n---\t\nc: 1\n';
  const spans = splitDocuments(yaml);
  assert.equal(spans.length, 2);
  assert.equal(yaml.slice(spans[1].start), '---\t\nc: 1\n');
  assert.deepEqual(splitDocuments(''), []);
  assert.deepEqual(splitDocuments('---'), [{ start: 0, end: 3 }]);
  assert.deepEqual(splitDocuments('\ufeff---\na: 1'), [{ start: 1, end: 9 }]);
});

test('multi-document files: ranges are relative to each document, file offsets add the span start', () => {
  const yaml = 'kind: A\n---\nkind: B\nspec:\n  x: 1\n---\n\n# c\nkind: C\n';
  const file = loadManifest(yaml);
  assert.equal(file.documents.length, 3);
  const lines = file.lines();
  const where = (i: number, path: Path) => {
    const d = file.documents[i];
    const s = spanFor(d.tree(), path, 'value')!;
    return lines.rangeOf({ start: d.span.start + s.start, end: d.span.start + s.end });
  };
  assert.deepEqual(where(1, ['spec', 'x']), { start: { line: 4, character: 5 }, end: { line: 4, character: 6 } });
  assert.deepEqual(where(2, ['kind']), { start: { line: 8, character: 6 }, end: { line: 8, character: 7 } });
});

test('LineIndex: UTF-16 characters, astral symbols, CRLF, offsets past the end', () => {
  const text = 'k: 😀x\r\nü: y\nlast';
  const lines = new LineIndex(text);
  assert.equal(lines.lineCount, 3);
  assert.deepEqual(lines.positionAt(text.indexOf('x')), { line: 0, character: 5 });
  assert.deepEqual(lines.positionAt(text.indexOf('y')), { line: 1, character: 3 });
  assert.equal(lines.offsetAt({ line: 0, character: 99 }), text.indexOf('\r'));
  assert.equal(lines.offsetAt({ line: 9, character: 0 }), text.length);
  assert.deepEqual(lines.positionAt(text.length + 10), { line: 2, character: 4 });
  for (let o = 0; o <= text.length; o++) {
    if (text[o - 1] === '\r') continue; // between \r and \n is not a place an editor can point at
    assert.equal(lines.offsetAt(lines.positionAt(o)), o, `round trip at ${o}`);
  }
});

test('document status: templates, syntax errors, too deep, recursive aliases, empty', () => {
  // Template syntax is a template in a document that names a Kubernetes object (or under templates/).
  const file = loadManifest(`kind: ConfigMap
a: {{ .Values.x }}
---
kind: ConfigMap
b: \${CLUSTER_NAME}
---
c: [unclosed
---
${'['.repeat(300)}${']'.repeat(300)}
---
r: &r [*r]
---
~
---
ok: 1
`);
  assert.deepEqual(
    file.documents.map((d) => d.status),
    ['template', 'template', 'syntax-error', 'too-complex', 'too-complex', 'empty', 'ok'],
  );
  const [helm, env, broken, deep, rec] = file.documents;
  assert.equal(file.text.slice(helm.reasonSpan!.start, helm.reasonSpan!.end), '{{ .Values.x }}');
  assert.equal(file.text.slice(env.reasonSpan!.start, env.reasonSpan!.end), '${CLUSTER_NAME}');
  assert.match(broken.reason!, /^not valid YAML: .*; this document was not analysed$/);
  assert.ok(
    broken.reasonSpan!.start >= broken.span.start && broken.reasonSpan!.end <= broken.span.end,
    'the error points into its document',
  );
  assert.match(deep.reason!, /nesting is deeper than 256 levels/);
  assert.match(rec.reason!, /refers to a node that contains it/);
  assert.equal(rec.value, undefined);
  for (const d of file.documents) if (d.status !== 'ok' && d.status !== 'empty') assert.equal(d.tree(), undefined);
});

test('the tree built while streaming (from the load events) equals the one built later (from a new parse)', () => {
  const r = new Rng(7);
  const text = genStream(r, 6);
  const file = openManifest(text);
  const streamed: string[] = [];
  forEachDocument(file, {}, (doc) => streamed.push(serialize(doc.tree())));
  const kept: ManifestDocument[] = [];
  forEachDocument(openManifest(text), {}, (doc) => kept.push(doc));
  assert.deepEqual(
    kept.map((d) => serialize(d.tree())),
    streamed,
  );
});

function serialize(node: PNode | undefined): string {
  return JSON.stringify(node, (k, v) => (k === 'target' || k === 'aliases' || k === 'keyString' ? undefined : v));
}

test('property: in random documents every key and value reads back from its range', () => {
  const base = seedFromEnv(20240601);
  const runs = 400;
  let checked = 0;
  for (let i = 0; i < runs; i++) {
    const seed = base + i;
    withSeed(seed, 'random document positions', () => {
      const r = new Rng(seed);
      let text = r.chance(0.5) ? genDocument(r) : genStream(r, 1 + r.int(3));
      if (r.chance(0.25)) text = toCrlf(text);
      if (r.chance(0.1)) text = `\ufeff${text}`;
      if (r.chance(0.2)) text = text.replace(/\r?\n$/, '');
      const file = loadManifest(text);
      for (const doc of file.documents) {
        assert.ok(
          doc.status === 'ok' || doc.status === 'empty',
          `generated document did not load: ${doc.reason}\n${doc.text}`,
        );
        assert.deepEqual(positionProblems(doc), [], doc.text);
        checked++;
      }
      // Splitting first finds the same documents as parsing the whole stream.
      const whole = (loadAll(text.replace(/^\ufeff/, ''), { schema: YAML11_SCHEMA }) as unknown[]).filter(
        (v) => v !== null && v !== undefined,
      );
      assert.deepEqual(
        file.documents.map((d) => d.value).filter((v) => v !== null && v !== undefined),
        whole,
      );
    });
  }
  assert.ok(checked >= runs, `${checked} documents checked`);
});

// The corpus vendored in the repository (test/fixtures/corpus), else the shared one it came from.
const CORPUS =
  [join(resolve(__dirname, '..', '..', '..'), 'test', 'fixtures', 'corpus'), '/work/shared/corpus'].find((d) =>
    existsSync(d),
  ) ?? '';

test(
  'property: every key and value of the real-world corpus reads back from its range',
  { skip: !CORPUS && 'no corpus here' },
  () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.ya?ml$/.test(name)) files.push(p);
      }
    };
    walk(CORPUS);
    assert.ok(files.length > 0);
    let docs = 0;
    for (const f of files) {
      for (const doc of loadManifest(readFileSync(f, 'utf8')).documents) {
        if (doc.status !== 'ok') continue;
        assert.deepEqual(positionProblems(doc), [], f);
        docs++;
      }
    }
    assert.ok(docs > 50, `${docs} corpus documents checked`);
  },
);
