import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEvents } from 'js-yaml';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { loadSpans } from '../../src/core/manifest/document';
import { splitDocuments, splitDocumentsFrom } from '../../src/core/manifest/split';
import { buildTree } from '../../src/core/manifest/positional-tree';
import { checkText } from '../../src/core/rules/checker';
import { Analyzer, widenWindow, type Analysis, type ChangeWindow } from '../../src/server/analysis';
import { DEFAULT_SETTINGS } from '../../src/shared/protocol';
import { deployment } from '../support/manifests';

const WIN = `os: {name: windows}
nodeSelector: {kubernetes.io/os: windows}
`;

/** Documents that between them exercise findings, facts, suppressions, templates and odd splits. */
const PIECES = [
  deployment(
    `${WIN}tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]\ncontainers:\n  - name: a\n    image: mcr.microsoft.com/windows/nanoserver:ltsc2022\n    securityContext: {privileged: true}\n`,
    'a',
  ),
  deployment(
    `${WIN}runtimeClassName: win2022\ncontainers:\n  - name: b\n    image: mcr.microsoft.com/windows/servercore:ltsc2019\n`,
    'b',
  ),
  'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: win2022}\nhandler: runhcs-wcow-process\nscheduling:\n  nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: "10.0.20348"}\n',
  '# only a comment here\n',
  deployment(
    `${WIN}hostNetwork: true # kube-windows-disable-next-line WIN002\ncontainers:\n  - name: c\n    image: mcr.microsoft.com/windows/nanoserver:ltsc2022\n    securityContext:\n      privileged: true\n`,
    'c',
  ),
  'apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Values.name }}\nspec: {}\n',
  deployment(
    `${WIN}containers:\n  - name: d\n    image: nginx\n    securityContext:\n      runAsUser: 1000\n      windowsOptions: {runAsUserName: ContainerUser}\n`,
    'd',
  ),
  // A broken Kubernetes document (`check` skips a broken document that names no object; the editor does not).
  'apiVersion: v1\nkind: ConfigMap\ndata:\n  key: [unclosed\n',
];

/** A small deterministic random generator, so that a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Insertions that change how the file splits and what it holds, besides plain characters.
const INSERTS = [
  '---\n',
  '\n---\n',
  '...\n',
  '%YAML 1.1\n',
  '# kube-windows-disable\n',
  'x',
  '-',
  '\n',
  ' ',
  'privileged: true\n',
  'kind: Namespace\n',
  '{{ x }}',
  '\r\n',
  ': ',
  '  ',
];

function randomEdit(
  rnd: () => number,
  doc: TextDocument,
): { range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string } {
  const length = doc.getText().length;
  const start = Math.floor(rnd() * (length + 1));
  const removed = rnd() < 0.4 ? Math.floor(rnd() * Math.min(60, length - start + 1)) : 0;
  const text = rnd() < 0.3 ? '' : INSERTS[Math.floor(rnd() * INSERTS.length)];
  return { range: { start: doc.positionAt(start), end: doc.positionAt(start + removed) }, text };
}

/** What a user sees of an analysis: findings, the documents' places and the counts. */
function visible(a: Analysis) {
  return {
    findings: a.findings,
    documents: a.documents,
    workloads: a.workloads,
    windowsWorkloads: a.windowsWorkloads,
    skipped: a.skipped,
  };
}

test('incremental analysis after random edit sequences gives what a fresh analysis gives', () => {
  let edits = 0;
  let rechecked = 0;
  let documents = 0;
  for (let seed = 1; seed <= 20; seed++) {
    const rnd = random(seed);
    const pieces = Array.from({ length: 12 }, () => PIECES[Math.floor(rnd() * PIECES.length)]);
    let doc = TextDocument.create('file:///t.yaml', 'yaml', 1, pieces.join('---\n'));
    const incremental = new Analyzer(DEFAULT_SETTINGS);
    incremental.analyze(doc.uri, doc.getText(), 1);
    for (let step = 0; step < 40; step++) {
      // One to three changes per version, as an editor sends them; the window is kept as the server keeps it.
      let window: ChangeWindow | undefined;
      const count = 1 + Math.floor(rnd() * 3);
      for (let k = 0; k < count; k++) {
        const change = randomEdit(rnd, doc);
        window = widenWindow(
          window,
          doc.getText().length,
          doc.offsetAt(change.range.start),
          doc.offsetAt(change.range.end),
        );
        doc = TextDocument.update(doc, [change], doc.version + 1);
      }
      const text = doc.getText();
      const got = incremental.analyze(doc.uri, text, doc.version, (o) => doc.positionAt(o).line, window);
      const fresh = new Analyzer(DEFAULT_SETTINGS).analyze(doc.uri, text, doc.version);
      assert.deepEqual(visible(got), visible(fresh), `seed ${seed}, step ${step}`);
      edits++;
      rechecked += got.rechecked;
      documents += got.documents.length;
    }
  }
  // The point of it: most documents were not checked again (edits here often touch facts, such as
  // a RuntimeClass, that change every document's results: those re-check everything).
  assert.ok(rechecked < documents / 2, `${rechecked} of ${documents} documents re-checked`);
  assert.equal(edits, 20 * 40);
});

test('the analysis finds what kube-windows check finds', () => {
  const text = PIECES.join('---\n');
  const a = new Analyzer(DEFAULT_SETTINGS).analyze('file:///t.yaml', text, 1);
  const cli = checkText(text);
  assert.ok(cli.findings.length >= 4);
  assert.deepEqual(
    a.findings.map((f) => [f.ruleId, f.range, f.span, f.message, f.fixes]),
    cli.findings.map((f) => [f.ruleId, f.range, f.span, f.message, f.fixes]),
  );
});

test('an edit in one document re-checks that document only, and moves the findings after it', () => {
  const text = Array.from({ length: 50 }, (_, i) =>
    PIECES[i % 2 === 0 ? 0 : 6].replace(/name: ([ad])$/m, `name: $1${i}`),
  ).join('---\n');
  let doc = TextDocument.create('file:///t.yaml', 'yaml', 1, text);
  const analyzer = new Analyzer(DEFAULT_SETTINGS);
  const before = analyzer.analyze(doc.uri, text, 1, (o) => doc.positionAt(o).line);
  const at = text.indexOf('name: a20');
  const change = { range: { start: doc.positionAt(at), end: doc.positionAt(at) }, text: 'labels: {x: y}\n  ' };
  const window = widenWindow(undefined, text.length, at, at);
  doc = TextDocument.update(doc, [change], 2);
  const after = analyzer.analyze(doc.uri, doc.getText(), 2, (o) => doc.positionAt(o).line, window);
  assert.equal(after.rechecked, 1);
  assert.equal(after.findings.length, before.findings.length);
  const last = (a: Analysis) => a.findings[a.findings.length - 1];
  assert.equal(last(after).range.start.line, last(before).range.start.line + 1);
  assert.equal(last(after).span.start, last(before).span.start + change.text.length);
});

test('a split resumed at a boundary past an edit matches a split of the whole text', () => {
  const texts = [
    'a: 1\n---\nb: 2\n...\n# c\n---\nd: 4\n',
    '\uFEFF%YAML 1.1\n---\na: 1\n--- x\n...\n...\n---\n',
    PIECES.join('---\n'),
  ];
  for (const text of texts) {
    const whole = splitDocuments(text);
    for (const span of whole) {
      const { spans, stoppedAt } = splitDocumentsFrom(text, span.start);
      assert.equal(stoppedAt, undefined);
      assert.deepEqual(spans, whole.slice(whole.indexOf(span)), JSON.stringify(text));
    }
    // Stopping at a boundary returns the spans up to it.
    if (whole.length > 2) {
      const { spans, stoppedAt } = splitDocumentsFrom(text, 0, (b) => b === whole[2].start);
      assert.equal(stoppedAt, whole[2].start);
      assert.deepEqual(spans, whole.slice(0, 2));
    }
  }
});

test('a tree built from a batch parse is the tree of a parse of the document alone', () => {
  const text =
    PIECES.filter((p) => !p.includes('{{') && !p.includes('unclosed')).join('---\n') +
    '---\nblock: |+\n  kept\n\nflow: {a: [1, 2], b: "q"}\n';
  let trees = 0;
  loadSpans(text, splitDocuments(text), {}, (doc) => {
    const alone = buildTree(doc.text, parseEvents(doc.text, {}));
    assert.deepEqual(doc.tree(), alone);
    trees++;
  });
  assert.equal(trees, 6);
});

test('a fix value rendered twice is the same text (renderings are memoized, not shared wrongly)', () => {
  const text = [
    PIECES[0],
    PIECES[0]
      .replace('name: a', 'name: a2')
      .replace(/^(\s+)tolerations: .*$/m, '$1tolerations:\n$1  - {key: os, operator: Equal, value: windows}'),
  ].join('---\n');
  const fixes = checkText(text)
    .findings.filter((f) => f.ruleId === 'WIN073')
    .map((f) => f.fixes[0].edits.map((e) => e.newText).join(''));
  assert.equal(fixes.length, 2);
  assert.match(fixes[0], /key: os/);
  assert.match(fixes[1], /key: os/);
});
