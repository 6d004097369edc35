// Which YAML documents are Kubernetes objects (core/manifest/kubernetes-document.ts), what the check
// does with the others, and where a syntax error is placed (core/manifest/unclosed.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadManifest } from '../../src/core/manifest/document';
import { classifyDocument, isUnderTemplates } from '../../src/core/manifest/kubernetes-document';
import { checkText } from '../../src/core/rules/checker';
import { Analyzer } from '../../src/server/analysis';

const classes = (text: string, underTemplates = false) =>
  loadManifest(text, { underTemplates }).documents.map((d) => classifyDocument(d, { underTemplates }));

test('objects, Lists, Kustomizations, install-configs and objects missing their apiVersion are Kubernetes', () => {
  assert.deepEqual(
    classes(`apiVersion: v1
kind: Pod
metadata: {name: a}
---
apiVersion: v1
kind: List
items: []
---
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [web.yaml]
---
kind: Deployment
metadata: {name: typed-so-far}
---
apiVersion: v1
baseDomain: example.com
platform: {aws: {region: us-east-1}}
compute: []
`),
    ['kubernetes', 'kubernetes', 'kubernetes', 'kubernetes', 'kubernetes'],
  );
});

test("other tools' YAML, Chart.yaml, top-level lists and scalars are not; empty documents are empty", () => {
  assert.deepEqual(
    classes(`name: ci
on: push
jobs: {build: {runs-on: "\${{ matrix.os }}"}}
---
apiVersion: v2
name: chart
version: 1.0.0
---
- hosts: all
  tasks: []
---
just a string
---
# only a comment
---
null
`),
    ['not-kubernetes', 'not-kubernetes', 'not-kubernetes', 'not-kubernetes', 'empty'],
  );
});

test('template syntax is a template only in a document that names a Kubernetes object, or under templates/', () => {
  const workflow = 'env:\n  TOKEN: ${{ secrets.TOKEN }}\n  IMAGE: ${REGISTRY}/web\n';
  const [doc] = loadManifest(workflow).documents;
  assert.equal(doc.status, 'ok', 'parsed as the YAML it is');
  assert.equal(classifyDocument(doc), 'not-kubernetes');
  assert.deepEqual(checkText(workflow).findings, []);
  assert.equal(checkText(workflow).notKubernetes, 1);

  const manifest = 'apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: web\n    image: ${REGISTRY}/web\n';
  assert.deepEqual(
    checkText(manifest).findings.map((f) => f.ruleId),
    ['YAML002'],
  );
  // In a ConfigMap's data the same text is a program's, read at run time: the document is analysed.
  const data = 'apiVersion: v1\nkind: ConfigMap\ndata:\n  image: ${REGISTRY}/web\n';
  assert.deepEqual(checkText(data).findings, []);
  const helmish = '{{- if .Values.on }}\nfoo: {{ .Values.x }}\n{{- end }}\n';
  assert.deepEqual(checkText(helmish).findings, [], 'no Kubernetes header: not ours to judge');
  assert.deepEqual(
    checkText(helmish, { load: { underTemplates: true } }).findings.map((f) => f.ruleId),
    ['YAML002'],
  );
  assert.ok(isUnderTemplates('charts/web/templates/deploy.yaml'));
  assert.ok(isUnderTemplates('templates\\x.yaml'));
  assert.ok(!isUnderTemplates('my-templates/x.yaml'));
});

test('a syntax error is YAML001 in a Kubernetes document, and skipped in YAML of another tool', () => {
  const broken = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web\n';
  assert.deepEqual(
    checkText(broken).findings.map((f) => f.ruleId),
    ['YAML001'],
  );
  // mkdocs' python tags are not YAML 1.1 the API server would read; not a Kubernetes file either.
  const mkdocs = 'site_name: x\nemoji_index: !!python/name:material.extensions.emoji.twemoji\n';
  assert.deepEqual(checkText(mkdocs).findings, []);
  assert.equal(checkText(mkdocs).notKubernetes, 1);
});

test('the editor still diagnoses a document being typed in a Kubernetes file (every document is checked)', () => {
  const text = 'apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nmetadata: {name: [\n';
  const analysis = new Analyzer({ flavour: 'auto', rules: {} }).analyze('file:///a.yaml', text, 1);
  assert.deepEqual(
    analysis.findings.map((f) => [f.ruleId, f.range.start.line]),
    [['YAML001', 4]],
  );
});

test('an unclosed flow mapping, flow sequence or quote is placed where it was opened, in our words', () => {
  const at = (text: string) => {
    const f = checkText(text).findings.find((x) => x.ruleId === 'YAML001');
    return f && [f.range.start.line, f.range.start.character, f.message];
  };
  assert.deepEqual(at('apiVersion: v1\nkind: Pod\nmetadata: {name: web\nspec:\n  containers: []\n'), [
    2,
    10,
    'not valid YAML: the flow mapping "{" opened here is not closed (} missing); this document was not analysed',
  ]);
  assert.deepEqual(at('apiVersion: v1\nkind: ConfigMap\ndata:\n  key: [unclosed\nother: 1\n')?.slice(0, 2), [3, 7]);
  assert.match(
    String(at('apiVersion: v1\nkind: ConfigMap\ndata:\n  key: "open\nother: 1\n')?.[2]),
    /double-quoted string opened here/,
  );
  // Closed further down: the error is the continuation's indentation, not an unclosed quote.
  const continued =
    "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: a\n      command: ['sh', '-c', '\n      mkdir -p x;\n      ']\n";
  assert.match(String(at(continued)?.[2]), /^not valid YAML: deficient indentation/);
  // Braces inside a plain scalar open nothing.
  assert.equal(at('apiVersion: v1\nkind: ConfigMap\ndata:\n  a: x{y\n  b: [1, 2]\n'), undefined);
});
