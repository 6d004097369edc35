// Structural edits turned into minimal text edits: exact output for every op in block and flow
// style, `- key:` items, CRLF, no final newline, deep nesting and comments; then an oracle test
// that checks random edits of random documents against the same op applied to the loaded value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { loadManifest } from '../../src/core/manifest/document';
import { applyTextEdits, EditError, opToEdits, type EditOp, type TextEdit } from '../../src/core/manifest/edits';
import { applyOp, allPaths } from '../support/edit-oracle';
import { Rng, genDocument, seedFromEnv, toCrlf, withSeed } from '../support/yaml-gen';

/** Text edits of `ops` (one fix) on document `index` of `text`, in file offsets. */
function editsOf(text: string, ops: EditOp[], index = 0): TextEdit[] {
  const file = loadManifest(text);
  const doc = file.documents[index];
  assert.ok(doc && doc.status === 'ok', `document ${index} did not load: ${doc?.reason}`);
  const ctx = { text: doc.text, root: doc.tree(), newline: file.newline };
  return ops
    .flatMap((op) => opToEdits(ctx, op))
    .map((e) => ({
      span: { start: e.span.start + doc.span.start, end: e.span.end + doc.span.start },
      newText: e.newText,
    }));
}

/** Applies `ops` to document `index` and checks that the result loads, with the value the op means. */
function edit(text: string, op: EditOp | EditOp[], index = 0): string {
  const ops = Array.isArray(op) ? op : [op];
  const out = applyTextEdits(text, editsOf(text, ops, index));
  const before = loadManifest(text).documents;
  const after = loadManifest(out).documents;
  for (const d of after)
    assert.ok(d.status === 'ok' || d.status === 'empty', `the edit broke the YAML (${d.reason}):\n${out}`);
  // A kept collection emptied by a delete reads as {} in flow style, as null (`key:`) in block style.
  const expect = (emptied: 'empty' | 'null') => {
    let v = before[index].value;
    for (const o of ops) v = applyOp(v, o, emptied);
    return before.map((d, i) => (i === index ? v : d.value)).filter((x) => x !== null);
  };
  const got = after.map((d) => d.value).filter((v) => v !== null);
  if (!isDeepStrictEqual(got, expect('null'))) assert.deepEqual(got, expect('empty'), `value after the edit:\n${out}`);
  return out;
}

function refused(text: string, op: EditOp, message: RegExp) {
  assert.throws(
    () => editsOf(text, [op]),
    (e: unknown) => e instanceof EditError && message.test(e.message),
  );
}

// ---------------------------------------------------------------------------------------------
// delete

test('delete: block entry, its trailing comment, and a cascade of emptied parents', () => {
  const text = `a: 1
b:
  # about c
  c: 2 # trailing
  # about d
  d: 3
e:
  f:
    g: 1
`;
  assert.equal(
    edit(text, { op: 'delete', path: ['b', 'c'] }),
    'a: 1\nb:\n  # about c\n  # about d\n  d: 3\ne:\n  f:\n    g: 1\n',
  );
  assert.equal(
    edit(text, { op: 'delete', path: ['e', 'f', 'g'] }),
    'a: 1\nb:\n  # about c\n  c: 2 # trailing\n  # about d\n  d: 3\n',
  );
});

test('delete: the cascade stops at `keep`; the kept key stays, empty, for other ops of the fix to fill', () => {
  const text = 'a:\n  b:\n    c:\n      d: 1\nz: 1\n';
  assert.equal(edit(text, { op: 'delete', path: ['a', 'b', 'c', 'd'] }), 'z: 1\n');
  assert.equal(edit(text, { op: 'delete', path: ['a', 'b', 'c', 'd'], keep: 1 }), 'a:\nz: 1\n');
  assert.equal(edit(text, { op: 'delete', path: ['a', 'b', 'c', 'd'], keep: 2 }), 'a:\n  b:\nz: 1\n');
  assert.equal(edit(text, { op: 'delete', path: ['a', 'b', 'c', 'd'], keep: 3 }), 'a:\n  b:\n    c:\nz: 1\n');
  assert.equal(edit(text, { op: 'delete', path: ['a', 'b', 'c', 'd'], keep: 4 }), 'a:\n  b:\n    c:\nz: 1\n');
  assert.equal(edit('a:\n  - x\nz: 1\n', { op: 'delete', path: ['a', 0], keep: 1 }), 'a:\nz: 1\n');
  assert.equal(edit('a: # note\n  b: 1\n', { op: 'delete', path: ['a', 'b'], keep: 1 }), 'a: # note\n');
  assert.equal(edit('a: {b: 1}\nz: 1\n', { op: 'delete', path: ['a', 'b'], keep: 1 }), 'a: {}\nz: 1\n');
  assert.equal(edit('a: [x]\nz: 1\n', { op: 'delete', path: ['a', 0] }), 'z: 1\n');
  // With a set into the kept map, in one fix (WIN002 replaces runAsUser so).
  const sc = 'spec:\n  securityContext:\n    runAsUser: 1000 # why\n  x: 1\n';
  assert.equal(
    edit(sc, [
      { op: 'delete', path: ['spec', 'securityContext', 'runAsUser'], keep: 2 },
      { op: 'set', path: ['spec', 'securityContext', 'windowsOptions', 'runAsUserName'], value: 'ContainerUser' },
    ]),
    'spec:\n  securityContext:\n    windowsOptions:\n      runAsUserName: ContainerUser\n  x: 1\n',
  );
  assert.equal(
    edit('l:\n- a: 1\n', [
      { op: 'delete', path: ['l', 0, 'a'], keep: 2 },
      { op: 'set', path: ['l', 0, 'b'], value: 2 },
    ]),
    'l:\n-\n  b: 2\n',
  );
});

test('delete: flow maps and sequences, first, middle, last and only entries, trailing commas, comments', () => {
  assert.equal(edit('a: {x: 1, w: 2, z: 3}\n', { op: 'delete', path: ['a', 'x'] }), 'a: {w: 2, z: 3}\n');
  assert.equal(edit('a: {x: 1, w: 2, z: 3}\n', { op: 'delete', path: ['a', 'w'] }), 'a: {x: 1, z: 3}\n');
  assert.equal(edit('a: {x: 1, w: 2, z: 3}\n', { op: 'delete', path: ['a', 'z'] }), 'a: {x: 1, w: 2}\n');
  assert.equal(edit('a: [x, w, z]\n', { op: 'delete', path: ['a', 1] }), 'a: [x, z]\n');
  assert.equal(edit('a: [x, w, ]\n', { op: 'delete', path: ['a', 1] }), 'a: [x, ]\n');
  assert.equal(edit('a: {x: 1, }\nb: 1\n', { op: 'delete', path: ['a', 'x'], keep: 1 }), 'a: {}\nb: 1\n');
  assert.equal(edit('a: [\n    "x",\n    "y",\n  ]\n', { op: 'delete', path: ['a', 1] }), 'a: [\n    "x",\n  ]\n');
  assert.equal(edit('a: [\n    "x",\n    "y",\n  ]\n', { op: 'delete', path: ['a', 0] }), 'a: [\n    "y",\n  ]\n');
  // A comment between entries stays.
  assert.equal(edit('a: {x: 1, # c\n  w: 2}\n', { op: 'delete', path: ['a', 'w'] }), 'a: {x: 1 # c\n  }\n');
  assert.equal(edit('a: {x: 1, # c\n  w: 2}\n', { op: 'delete', path: ['a', 'x'] }), 'a: { # c\n  w: 2}\n');
});

test('delete: `- key:` sequence items, first key, other keys, the only key, whole items', () => {
  const text = 'list:\n- x: 1\n  w: 2\n- z: 3\n';
  assert.equal(edit(text, { op: 'delete', path: ['list', 0, 'x'] }), 'list:\n- w: 2\n- z: 3\n');
  assert.equal(edit(text, { op: 'delete', path: ['list', 0, 'w'] }), 'list:\n- x: 1\n- z: 3\n');
  assert.equal(edit(text, { op: 'delete', path: ['list', 1, 'z'] }), 'list:\n- x: 1\n  w: 2\n');
  assert.equal(edit(text, { op: 'delete', path: ['list', 1, 'z'], keep: 2 }), 'list:\n- x: 1\n  w: 2\n-\n');
  assert.equal(edit(text, { op: 'delete', path: ['list', 0] }), 'list:\n- z: 3\n');
  assert.equal(edit('l:\n  - - a\n    - b\n', { op: 'delete', path: ['l', 0, 0] }), 'l:\n  - - b\n');
  assert.equal(edit('l:\n  - -\n    - [b]\n', { op: 'delete', path: ['l', 0, 0] }), 'l:\n  - - [b]\n');
  assert.equal(edit('l:\n  - - a\n  - c\n', { op: 'delete', path: ['l', 0, 0], keep: 2 }), 'l:\n  -\n  - c\n');
  // Comment lines between the first key and the next move above the item instead of being lost.
  assert.equal(
    edit('list:\n  - x: 1 # about x\n    # about w\n    w: 2\n', { op: 'delete', path: ['list', 0, 'x'] }),
    'list:\n    # about w\n  - w: 2\n',
  );
});

test('delete: multi-line values go with their lines; a `|+` scalar takes its kept blank lines', () => {
  assert.equal(edit('b:\n  c: |\n    multi\n    line\n  d: 3\n', { op: 'delete', path: ['b', 'c'] }), 'b:\n  d: 3\n');
  assert.equal(edit('b:\n  c: |+\n    text\n\n  d: 3\n', { op: 'delete', path: ['b', 'c'] }), 'b:\n  d: 3\n');
  assert.equal(edit('b:\n  c:\n    x: [1,\n      2]\n  d: 3\n', { op: 'delete', path: ['b', 'c'] }), 'b:\n  d: 3\n');
  assert.equal(edit('b:\n  c:\n  d: 3\n', { op: 'delete', path: ['b', 'c'] }), 'b:\n  d: 3\n');
});

test('delete: CRLF and files without a final newline keep their line endings', () => {
  assert.equal(
    edit('a: 1\r\nb:\r\n  c: 2\r\n  d: 3\r\n', { op: 'delete', path: ['b', 'c'] }),
    'a: 1\r\nb:\r\n  d: 3\r\n',
  );
  assert.equal(edit('a: 1\r\nb: 2', { op: 'delete', path: ['b'] }), 'a: 1');
  assert.equal(edit('a: 1\nb: 2', { op: 'delete', path: ['b'] }), 'a: 1');
  assert.equal(edit('a: 1\nb: 2', { op: 'delete', path: ['a'] }), 'b: 2');
  // After a block scalar, its final line break is part of its value: it stays.
  assert.equal(edit('a: |\n  x\nb: 2', { op: 'delete', path: ['b'] }), 'a: |\n  x\n');
});

test('delete: deeply nested, only the one entry goes', () => {
  let text = '';
  for (let i = 0; i < 12; i++) text += `${'  '.repeat(i)}k${i}:\n${'  '.repeat(i + 1)}keep${i}: ${i}\n`;
  text += `${'  '.repeat(12)}leaf: x # the one\n`;
  const path = Array.from({ length: 12 }, (_, i) => `k${i}`).concat('leaf');
  const out = edit(text, { op: 'delete', path });
  assert.equal(out, text.replace(/^ *leaf: x # the one\n/m, ''));
});

test('delete: refused where it would break aliases or edit through one', () => {
  refused('a: &x 1\nb: *x\n', { op: 'delete', path: ['a'] }, /anchor &x is used elsewhere/);
  refused('a: &x {c: 1}\nb: *x\n', { op: 'delete', path: ['b', 'c'] }, /alias/);
  refused('a: 1\n', { op: 'delete', path: [] }, /root/);
  refused('a: 1\n', { op: 'delete', path: ['nope'] }, /not found/);
  // An anchor used only inside the removed text goes with it.
  assert.equal(edit('a:\n  x: &y 1\n  z: *y\nb: 2\n', { op: 'delete', path: ['a'] }), 'b: 2\n');
});

// ---------------------------------------------------------------------------------------------
// set

test('set: replacing scalars keeps comments, quoting follows YAML 1.1', () => {
  assert.equal(edit('a: 1  # comment\nb: 2\n', { op: 'set', path: ['a'], value: 'new' }), 'a: new  # comment\nb: 2\n');
  assert.equal(edit("a: 'q'  # comment\n", { op: 'set', path: ['a'], value: 5 }), 'a: 5  # comment\n');
  assert.equal(edit('a: 1\n', { op: 'set', path: ['a'], value: 'yes' }), "a: 'yes'\n");
  assert.equal(edit('a: 1\n', { op: 'set', path: ['a'], value: '10.0.20348' }), 'a: 10.0.20348\n');
  assert.equal(edit('a: 1\n', { op: 'set', path: ['a'], value: '1.5' }), "a: '1.5'\n");
  assert.equal(edit('a: 1\n', { op: 'set', path: ['a'], value: '0x1F' }), "a: '0x1F'\n");
  assert.equal(edit('a: 1\n', { op: 'set', path: ['a'], value: '' }), "a: ''\n");
  assert.equal(edit('a: 1\n', { op: 'set', path: ['a'], value: 'NT AUTHORITY\\SYSTEM' }), 'a: NT AUTHORITY\\SYSTEM\n');
  assert.equal(edit('a: 1\n', { op: 'set', path: ['a'], value: null }), 'a: null\n');
  assert.equal(edit('a: |\n  text\nb: 2\n', { op: 'set', path: ['a'], value: 'x' }), 'a: x\nb: 2\n');
  assert.equal(edit('a: !!str 1\n', { op: 'set', path: ['a'], value: 2 }), 'a: 2\n');
  assert.equal(edit('a: {b: 1}\n', { op: 'set', path: ['a', 'b'], value: 'it is: x' }), "a: {b: 'it is: x'}\n");
});

test('set: a multi-line string becomes a block scalar; a comment on the line moves to its header', () => {
  assert.equal(
    edit('a: 1\nb:\n  c: 2 # why\n', { op: 'set', path: ['b', 'c'], value: 'multi\nline' }),
    'a: 1\nb:\n  c: |- # why\n    multi\n    line\n',
  );
  assert.equal(edit('a: [x]\n', { op: 'set', path: ['a', 0], value: 'multi\nline' }), 'a: ["multi\\nline"]\n');
  assert.equal(
    edit('a: 1\r\nb: 2\r\n', { op: 'set', path: ['a'], value: 'l1\nl2' }),
    'a: |-\r\n  l1\r\n  l2\r\nb: 2\r\n',
  );
});

test('set: new keys at the end or first, nested maps created, indentation learned from the file', () => {
  const text = 'a: 1\nb:\n  c: 2\n';
  assert.equal(edit(text, { op: 'set', path: ['b', 'd'], value: 'x y' }), 'a: 1\nb:\n  c: 2\n  d: x y\n');
  assert.equal(edit(text, { op: 'set', path: ['b', 'd'], value: 'x', first: true }), 'a: 1\nb:\n  d: x\n  c: 2\n');
  assert.equal(
    edit(text, { op: 'set', path: ['b', 'e', 'f', 'g'], value: true }),
    'a: 1\nb:\n  c: 2\n  e:\n    f:\n      g: true\n',
  );
  assert.equal(edit(text, { op: 'set', path: ['x', 'y'], value: 's' }), "a: 1\nb:\n  c: 2\nx:\n  'y': s\n");
  assert.equal(
    edit('a:\n    b:\n        c: 1\n', { op: 'set', path: ['a', 'd'], value: { e: { f: 1 } } }),
    'a:\n    b:\n        c: 1\n    d:\n        e:\n          f: 1\n',
  );
  assert.equal(
    edit('a:\n   b:\n      c: 1\n', { op: 'set', path: ['a', 'b', 'x'], value: [1, { k: 'v' }] }),
    'a:\n   b:\n      c: 1\n      x:\n        - 1\n        - k: v\n',
  );
  assert.equal(
    edit('a: 1\nb:\n  c: 2 # trailing\n# end comment\n', { op: 'set', path: ['b', 'd'], value: 3 }),
    'a: 1\nb:\n  c: 2 # trailing\n  d: 3\n# end comment\n',
  );
});

test('set: into empty and null values, into flow maps, over collections', () => {
  assert.equal(edit('a: 1\nb:\nc: 2\n', { op: 'set', path: ['b', 'w'], value: 's' }), 'a: 1\nb:\n  w: s\nc: 2\n');
  assert.equal(edit('a: 1\nb: ~ # none\n', { op: 'set', path: ['b', 'w'], value: 's' }), 'a: 1\nb: # none\n  w: s\n');
  assert.equal(edit('a: 1\nb:\n  c:\n', { op: 'set', path: ['b', 'c'], value: 's' }), 'a: 1\nb:\n  c: s\n');
  assert.equal(
    edit('a: 1\nb:\n  c:\n    d:\n  e: 2\n', { op: 'set', path: ['b', 'c'], value: 's' }),
    'a: 1\nb:\n  c: s\n  e: 2\n',
  );
  assert.equal(
    edit('b: {c: 2}\n', { op: 'set', path: ['b', 'd'], value: { e: [1, 2] } }),
    'b: {c: 2, d: {e: [1, 2]}}\n',
  );
  assert.equal(edit('b: {c: 2}\n', { op: 'set', path: ['b', 'd'], value: 3, first: true }), 'b: {d: 3, c: 2}\n');
  assert.equal(edit('b: {}\n', { op: 'set', path: ['b', 'd'], value: 3 }), 'b: {d: 3}\n');
  assert.equal(edit('b: {c, d}\n', { op: 'set', path: ['b', 'c'], value: 1 }), 'b: {c: 1, d}\n');
  assert.equal(edit('b: {c: 1, }\n', { op: 'set', path: ['b', 'd'], value: 2 }), 'b: {c: 1, d: 2, }\n');
  assert.equal(edit('a: 1\nb:\n  c: 2\n', { op: 'set', path: ['b'], value: { x: 1 } }), 'a: 1\nb:\n  x: 1\n');
  assert.equal(edit('a: 1\nb:\n  c: 2\n', { op: 'set', path: ['b'], value: 's' }), 'a: 1\nb: s\n');
  assert.equal(
    edit('a: 1 # why\n', { op: 'set', path: ['a'], value: { x: 1, y: [2] } }),
    "a: # why\n  x: 1\n  'y':\n    - 2\n",
  );
  assert.equal(edit('a: 1\n', { op: 'set', path: ['a'], value: {} }), 'a: {}\n');
});

test('set: sequence items in block and flow style, `-` alone, items of `- key:` maps', () => {
  assert.equal(edit('a:\n- x: 1\n', { op: 'set', path: ['a', 0], value: 's' }), 'a:\n- s\n');
  assert.equal(edit('a:\n-\n- b\n', { op: 'set', path: ['a', 0], value: 's' }), 'a:\n- s\n- b\n');
  assert.equal(
    edit('a:\n  - x\n', { op: 'set', path: ['a', 0], value: { k: 'v', k2: 'v2' } }),
    'a:\n  - k: v\n    k2: v2\n',
  );
  assert.equal(edit('a: [x, y]\n', { op: 'set', path: ['a', 1], value: { k: 'v' } }), 'a: [x, {k: v}]\n');
  assert.equal(
    edit('a:\n- x: 1\n  y2: 2\n', { op: 'set', path: ['a', 0, 'z'], value: 3 }),
    'a:\n- x: 1\n  y2: 2\n  z: 3\n',
  );
  assert.equal(edit('a:\n- x: 1\n', { op: 'set', path: ['a', 0, 'z'], value: 3, first: true }), 'a:\n- z: 3\n  x: 1\n');
  assert.equal(
    edit('a:\n    - x: 1\n', { op: 'set', path: ['a', 0, 'z', 'w'], value: 3 }),
    'a:\n    - x: 1\n      z:\n        w: 3\n',
  );
  refused('a:\n  - x\n', { op: 'set', path: ['a', 1], value: 'y' }, /sequence items/);
});

test('set: anchors stay, aliases and merge keys are respected', () => {
  // An anchor no alias uses stays; one an alias uses is not edited (its aliases would change too).
  assert.equal(
    applyTextEdits('a: &anc 1\nb: 3\n', editsOf('a: &anc 1\nb: 3\n', [{ op: 'set', path: ['a'], value: 2 }])),
    'a: &anc 2\nb: 3\n',
  );
  refused('a: &anc 1\nb: *anc\n', { op: 'set', path: ['a'], value: 2 }, /anchor &anc is used elsewhere/);
  refused('a: [&i 1, 2]\nb: *i\n', { op: 'set', path: ['a', 0], value: 5 }, /anchor &i is used elsewhere/);
  refused(
    'kind: &k DeploymentConfig\nimage: *k\n',
    { op: 'set', path: ['kind'], value: 'Deployment' },
    /anchor &k is used elsewhere/,
  );
  refused('a: &anc 1\nb: *anc\n', { op: 'set', path: ['b'], value: 2 }, /alias/);
  refused('a: &m {x: 1}\nb: *m\n', { op: 'set', path: ['b', 'x'], value: 2 }, /alias/);
  // A key that only comes from a merge is overridden in the merging map.
  const merged = 'base: &b\n  cpu: 1\n  mem: 2\nuse:\n  <<: *b\n  other: 3\n';
  assert.equal(
    edit(merged, { op: 'set', path: ['use', 'cpu'], value: 5 }),
    'base: &b\n  cpu: 1\n  mem: 2\nuse:\n  <<: *b\n  other: 3\n  cpu: 5\n',
  );
  refused(merged, { op: 'set', path: ['use', 'cpu', 'deep'], value: 5 }, /alias/);
});

test('set: CRLF files, files without a final newline, a `|+` scalar before the insertion point', () => {
  assert.equal(
    edit('a: 1\r\nb:\r\n  c: 2\r\n', { op: 'set', path: ['b', 'd', 'e'], value: 3 }),
    'a: 1\r\nb:\r\n  c: 2\r\n  d:\r\n    e: 3\r\n',
  );
  assert.equal(edit('a: 1\nb: 2', { op: 'set', path: ['c'], value: 3 }), 'a: 1\nb: 2\nc: 3\n');
  assert.equal(
    edit('a: 1\nb:\n  c: |+\n    text\n\nz: 1\n', { op: 'set', path: ['b', 'd'], value: 3 }),
    'a: 1\nb:\n  c: |+\n    text\n\n  d: 3\nz: 1\n',
  );
});

// ---------------------------------------------------------------------------------------------
// renameKey, replacePair, append

test('renameKey: block, flow and `- key:` maps; keys quoted when YAML 1.1 needs it', () => {
  assert.equal(
    edit('a: 1\nb:\n  c: 2 # c\n', { op: 'renameKey', path: ['b', 'c'], newKey: 'd' }),
    'a: 1\nb:\n  d: 2 # c\n',
  );
  assert.equal(edit('b: {c: 2}\n', { op: 'renameKey', path: ['b', 'c'], newKey: 'yes' }), "b: {'yes': 2}\n");
  assert.equal(edit('b:\n- c: 2\n', { op: 'renameKey', path: ['b', 0, 'c'], newKey: 'd e' }), 'b:\n- d e: 2\n');
  refused('!!str a: 1\n', { op: 'renameKey', path: ['a'], newKey: 'b' }, /plain scalar/);
});

test('replacePair: in place, with the block rendered under the key and the comment kept', () => {
  assert.equal(
    edit('a: 1\nb:\n  c: 2 # x\n', { op: 'replacePair', path: ['b', 'c'], key: 'd', value: { e: 'f' } }),
    'a: 1\nb:\n  d: # x\n    e: f\n',
  );
  assert.equal(
    edit('b:\n  c:\n    x: 1\n  z: 2\n', { op: 'replacePair', path: ['b', 'c'], key: 'd', value: 'v' }),
    'b:\n  d: v\n  z: 2\n',
  );
  assert.equal(
    edit('b:\n- c: 1\n  z: 2\n', { op: 'replacePair', path: ['b', 0, 'c'], key: 'd', value: { e: { f: 1 } } }),
    'b:\n- d:\n    e:\n      f: 1\n  z: 2\n',
  );
  assert.equal(
    edit('b: {c: 1, z: 2}\n', { op: 'replacePair', path: ['b', 'c'], key: 'd', value: { e: { f: 1 } } }),
    'b: {d: {e: {f: 1}}, z: 2}\n',
  );
  assert.equal(
    edit('b:\n  c:\n  z: 2\n', { op: 'replacePair', path: ['b', 'c'], key: 'd', value: 'x' }),
    'b:\n  d: x\n  z: 2\n',
  );
});

test('append: block sequences keep their dash style and indentation; flow sequences their commas', () => {
  assert.equal(edit('b:\n  - x\n', { op: 'append', path: ['b'], value: 'y' }), "b:\n  - x\n  - 'y'\n");
  assert.equal(
    edit('b:\n- x\n', { op: 'append', path: ['b'], value: { k: 'v', k2: 'v2' } }),
    'b:\n- x\n- k: v\n  k2: v2\n',
  );
  assert.equal(
    edit('b:\n    -   x\n', { op: 'append', path: ['b'], value: { k: 'v', k2: 'v2' } }),
    'b:\n    -   x\n    -   k: v\n        k2: v2\n',
  );
  assert.equal(edit('b: [x]\n', { op: 'append', path: ['b'], value: { k: 'v' } }), 'b: [x, {k: v}]\n');
  assert.equal(edit('b: []\n', { op: 'append', path: ['b'], value: 'z' }), 'b: [z]\n');
  assert.equal(edit('b: [x, y, ]\n', { op: 'append', path: ['b'], value: 'z' }), 'b: [x, y, z, ]\n');
  assert.equal(edit('b: [x,\n  w]\n', { op: 'append', path: ['b'], value: 'z' }), 'b: [x,\n  w, z]\n');
  assert.equal(edit('b:\n  - - x\n', { op: 'append', path: ['b', 0], value: 'z' }), 'b:\n  - - x\n    - z\n');
  assert.equal(
    edit('b:\n  - x\n', { op: 'append', path: ['b'], value: 'multi\nline' }),
    'b:\n  - x\n  - |-\n    multi\n    line\n',
  );
});

test('append: creates the sequence when missing or empty; after comments and block scalars; CRLF; no final newline', () => {
  assert.equal(edit('a: 1\n', { op: 'append', path: ['b'], value: 'z' }), 'a: 1\nb:\n  - z\n');
  assert.equal(edit('a: 1\nb:\n', { op: 'append', path: ['b'], value: 'z' }), 'a: 1\nb:\n  - z\n');
  assert.equal(
    edit('b:\n  - x # comment\n# trailing comment\nc: 1\n', { op: 'append', path: ['b'], value: 'z' }),
    'b:\n  - x # comment\n  - z\n# trailing comment\nc: 1\n',
  );
  assert.equal(
    edit('b:\n- name: a\n  v: |\n    text\nc: 1\n', { op: 'append', path: ['b'], value: { name: 'b' } }),
    'b:\n- name: a\n  v: |\n    text\n- name: b\nc: 1\n',
  );
  assert.equal(
    edit('b:\r\n  - x\r\n', { op: 'append', path: ['b'], value: { k: 'v', k2: 'v2' } }),
    'b:\r\n  - x\r\n  - k: v\r\n    k2: v2\r\n',
  );
  assert.equal(edit('b:\n  - x', { op: 'append', path: ['b'], value: 'z' }), 'b:\n  - x\n  - z\n');
  refused('b: 1\n', { op: 'append', path: ['b'], value: 'z' }, /not a sequence/);
});

test('edits in one document of a multi-document file leave the others alone', () => {
  const text = 'kind: A\nx: 1\n---\nkind: B\nx: 1 # keep\n---\nkind: C\n';
  assert.equal(
    edit(text, { op: 'set', path: ['x'], value: 2 }, 1),
    'kind: A\nx: 1\n---\nkind: B\nx: 2 # keep\n---\nkind: C\n',
  );
  assert.equal(edit(text, { op: 'delete', path: ['x'] }, 1), 'kind: A\nx: 1\n---\nkind: B\n---\nkind: C\n');
});

test('several ops of one fix: edits that touch are applied together, overlapping ones are refused', () => {
  const text = 'spec:\n  securityContext:\n    runAsUser: 1000\n    runAsNonRoot: true\n';
  const set: EditOp = {
    op: 'set',
    path: ['spec', 'securityContext', 'windowsOptions', 'runAsUserName'],
    value: 'ContainerUser',
  };
  assert.equal(
    edit(text, [{ op: 'delete', path: ['spec', 'securityContext', 'runAsNonRoot'] }, set]),
    'spec:\n  securityContext:\n    runAsUser: 1000\n    windowsOptions:\n      runAsUserName: ContainerUser\n',
  );
  // Inserting before a key whose line goes: the edits overlap, and applying them says so.
  const overlapping = editsOf(text, [
    { op: 'delete', path: ['spec', 'securityContext', 'runAsUser'] },
    { ...set, first: true },
  ]);
  assert.throws(() => applyTextEdits(text, overlapping), EditError);
});

// ---------------------------------------------------------------------------------------------
// Oracle: random edits of random documents

test('property: random ops on random documents give the value the op means, or refuse cleanly', () => {
  const base = seedFromEnv(4242);
  const values: unknown[] = [
    'x',
    'multi\nline',
    42,
    true,
    null,
    { a: 1, 'b c': ['p', { q: 'yes' }] },
    [1, 'two'],
    {},
    [],
    'on',
    '1.5',
    'with: colon',
    'it\'s "q"',
  ];
  let ok = 0;
  let refusedCount = 0;
  for (let i = 0; i < 250; i++) {
    const seed = base + i;
    withSeed(seed, 'random edit', () => {
      const r = new Rng(seed);
      // No anchors here: editing an anchored value changes its aliases too, which the plain-value oracle cannot model.
      let text = genDocument(r, { anchors: false });
      const crlf = r.chance(0.25);
      if (crlf) text = toCrlf(text);
      if (r.chance(0.2)) text = text.replace(/\r?\n$/, '');
      const file = loadManifest(text);
      const doc = file.documents[0];
      assert.equal(doc.status, 'ok', doc.reason);
      const paths = allPaths(doc.value);
      for (let k = 0; k < 6; k++) {
        const path = paths.length > 0 ? r.pick(paths) : [];
        const value = structuredClone(r.pick(values));
        const last = path[path.length - 1];
        let op: EditOp;
        switch (r.int(6)) {
          case 0:
            op = { op: 'delete', path, keep: r.int(Math.max(path.length, 1)) };
            break;
          case 1:
            op = { op: 'set', path, value, first: r.chance(0.3) };
            break;
          case 2:
            op = { op: 'set', path: [...path.slice(0, -1), 'newKey', 'deeper'], value };
            break;
          case 3: {
            const parent = allPathsValue(doc.value, path.slice(0, -1));
            const newKey = r.pick(['renamed', 'a b', 'kubernetes.io/os']);
            if (typeof last !== 'string' || Object.keys(parent as object).includes(newKey)) continue;
            op = { op: 'renameKey', path, newKey };
            break;
          }
          case 4:
            if (typeof last !== 'string') continue;
            op = { op: 'replacePair', path, key: 'replaced', value };
            break;
          default:
            op = { op: 'append', path, value };
        }
        let expected: unknown;
        let orNull: unknown;
        try {
          expected = applyOp(doc.value, op);
          orNull = applyOp(doc.value, op, 'null');
        } catch {
          continue; // the op makes no sense for this value (set below a scalar, …)
        }
        let out: string;
        try {
          out = applyTextEdits(doc.text, opToEdits({ text: doc.text, root: doc.tree(), newline: file.newline }, op));
        } catch (e) {
          assert.ok(e instanceof EditError, `${JSON.stringify(op)} threw ${String(e)}`);
          refusedCount++;
          continue;
        }
        const after = loadManifest(out).documents[0];
        const what = `${JSON.stringify(op)}\n--- before\n${doc.text}\n--- after\n${out}`;
        assert.ok(
          !after || after.status === 'ok' || after.status === 'empty',
          `broke the YAML (${after?.reason}): ${what}`,
        );
        const got = after?.value ?? null;
        assert.ok(
          isDeepStrictEqual(got, expected) || isDeepStrictEqual(got, orNull),
          `wrong value ${JSON.stringify(after?.value)} vs ${JSON.stringify(expected)}: ${what}`,
        );
        if (crlf && doc.text.includes('\n')) assert.ok(!/(^|[^\r])\n/.test(out), `a bare LF in a CRLF file: ${what}`);
        ok++;
      }
    });
  }
  assert.ok(ok > refusedCount * 3, `${ok} edits checked, ${refusedCount} refused`);
});

function allPathsValue(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((v, s) => (v as Record<string | number, unknown>)[s], value);
}

test('scalars written into flow collections are quoted when flow indicators would change their meaning', async () => {
  const { parseEvents, load } = await import('js-yaml');
  const { buildTree } = await import('../../src/core/manifest/positional-tree');
  const { opToEdits, applyTextEdits } = await import('../../src/core/manifest/edits');
  const cases: [string, import('../../src/core/manifest/edits').EditOp, unknown][] = [
    ['a: {u: x, v: 1}\n', { op: 'set', path: ['a', 'u'], value: 'DOM,X\\user' }, { a: { u: 'DOM,X\\user', v: 1 } }],
    ['a: [x, y]\n', { op: 'set', path: ['a', 0], value: 'p{q}' }, { a: ['p{q}', 'y'] }],
    ['a: {u: x}\n', { op: 'set', path: ['a', 'w'], value: 'h #x, y' }, { a: { u: 'x', w: 'h #x, y' } }],
    ['a: [x]\n', { op: 'append', path: ['a'], value: 'k: v, [w]' }, { a: ['x', 'k: v, [w]'] }],
    ['a: {u: x}\n', { op: 'renameKey', path: ['a', 'u'], newKey: 'a,b' }, { a: { 'a,b': 'x' } }],
    ['a: {u: x}\n', { op: 'set', path: ['a', 'u'], value: 'plain-value' }, { a: { u: 'plain-value' } }],
  ];
  for (const [text, op, expected] of cases) {
    const out = applyTextEdits(
      text,
      opToEdits({ text, root: buildTree(text, parseEvents(text, {})), newline: '\n' }, op),
    );
    assert.deepEqual(load(out), expected, out);
  }
});
