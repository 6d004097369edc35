// A file checked in parts (on several threads, see src/cli/check-workers.ts) must give exactly what
// checking it whole gives: the same findings in the same order, with the same positions, fixes,
// document indexes, counts and suppressions, whatever the cut and whichever thread checks which part.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { documentParts } from '../../src/core/manifest/document';
import { splitDocuments } from '../../src/core/manifest/split';
import {
  checkText,
  gatherFacts,
  joinTextParts,
  textPartChecker,
  type CheckOptions,
  type PartCheck,
} from '../../src/core/rules/checker';
import { generateVaried } from '../../scripts/bench/generate-varied.mjs';

const CORPUS = resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'corpus');

function corpusText(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(name)) texts.push(readFileSync(p, 'utf8'));
    }
  };
  walk(CORPUS);
  assert.ok(texts.length > 20, 'the corpus of real manifests is there');
  return texts.map((t) => (t.endsWith('\n') ? t : `${t}\n`)).join('---\n');
}

// What the file-level steps do (suppressions, one template notice, document order) and what the
// splitter must get right at a cut (comment-only stretches, `...`, directives, a broken document).
const EDGES = `# a file of many shapes
%YAML 1.1
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  os: {name: windows}
  securityContext:
    runAsUser: 1000 # kube-windows-disable-next-line WIN002
  containers:
    - name: c
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
      securityContext:
        # kube-windows-disable-next-line WIN002
        privileged: false
        readOnlyRootFilesystem: true
...
# only a comment here
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Values.name }}}
spec: {}
---
apiVersion: v1
kind: Pod
metadata:
  name: broken
spec: [unclosed
---
# kube-windows-disable WIN070
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  os: {name: windows}
  containers: [{name: c, image: "mcr.microsoft.com/windows/servercore:1909", securityContext: {privileged: true}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Values.other }}}
spec: {}
---
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-workload}
data: {a: "1"}
`;

const INPUTS: [string, string][] = [
  ['varied workloads, a finding in each', generateVaried(240)],
  ['varied workloads, a finding in every tenth', generateVaried(120, { findings: 'sparse' })],
  ['real manifests (test/fixtures/corpus)', corpusText()],
  // A byte order mark starts the file only: one in the middle of a file is read as a new stream's there.
  ['edges: suppressions, templates, syntax errors, markers', `\uFEFF${EDGES.repeat(7)}`],
];

function options(text: string): CheckOptions {
  return { facts: gatherFacts([text]) };
}

/** Checks the parts as two threads would: each its own prepared checker, the parts dealt out in turn. */
function checkInParts(text: string, opts: CheckOptions, chars: number, threads: number) {
  const parts = documentParts(text, chars);
  const checkers = Array.from({ length: threads }, () => textPartChecker(text, opts));
  const results: PartCheck[] = parts.map((p, k) => checkers[k % threads](p));
  return { parts, joined: joinTextParts(text, opts, results) };
}

for (const [name, text] of INPUTS) {
  test(`checked in parts = checked whole: ${name}`, () => {
    const opts = options(text);
    const whole = checkText(text, opts);
    assert.ok(whole.findings.length > 0, 'the input has findings to compare');
    for (const chars of [1, 700, 5000, 64 * 1024]) {
      for (const threads of [1, 2, 3]) {
        const { parts, joined } = checkInParts(text, opts, chars, threads);
        if (chars === 1) assert.ok(parts.length > 3, 'cut into many parts');
        assert.deepEqual(joined, whole, `parts of ${chars} characters on ${threads} threads`);
      }
    }
  });
}

test('a part checker asked for an earlier part after a later one still places its findings right', () => {
  const text = generateVaried(60);
  const opts = options(text);
  const parts = documentParts(text, 4000);
  assert.ok(parts.length > 4);
  const checker = textPartChecker(text, opts);
  const backwards = [...parts].reverse().map((p) => checker(p));
  assert.deepEqual(joinTextParts(text, opts, backwards.reverse()), checkText(text, opts));
});

test('documentParts: the parts cover every document once, in order, each numbered as in the whole file', () => {
  const text = EDGES.repeat(3);
  const parts = documentParts(text, 200);
  assert.deepEqual(
    parts.flatMap((p) => p.spans),
    splitDocuments(text),
  );
  const indexes = parts.map((p) => p.firstIndex);
  const whole = checkText(text, options(text));
  // Each part's first index counts the documents with content before it (comment-only spans have none).
  assert.equal(indexes[0], 0);
  assert.ok(indexes.every((n, k) => k === 0 || n >= indexes[k - 1]));
  assert.ok(Math.max(...whole.findings.map((f) => f.document)) < indexes[indexes.length - 1] + 10);
});
