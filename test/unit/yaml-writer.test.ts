// YAML written for people (manifest/yaml-writer.ts): a fix that adds a block keeps the user's
// comments; what is generated reads back as the very object (with the check's loader and the
// `yaml` package), never with anchors or aliases, and long strings stay on one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, YAML11_SCHEMA } from 'js-yaml';
import { parseAllDocuments, parseDocument, visit } from 'yaml';
import { writeYaml, yamlDocument, yamlText } from '../../src/core/manifest/yaml-writer';
import { loadManifest } from '../../src/core/manifest/document';
import { applyTextEdits, opToEdits } from '../../src/core/manifest/edits';
import { checkText } from '../../src/core/rules/checker';
import { fixText } from '../../src/core/rules/fix';
import { liveYaml } from '../../src/core/live/document';
import { renderPlan } from '../../src/bootstrap/render';
import type { Plan } from '../../src/bootstrap/plan';
import { runtimeClassFor, windowsNetworkingObjects } from '../../src/core/windows/kubeadm-networking';

const LONG = `${'a long annotation value that a folding writer would break over several lines '.repeat(6)}end`;

/** Strings that change meaning when written plain, in YAML 1.1, 1.2 or Go's decoder. */
const TRICKY = [
  'yes',
  'on',
  'N',
  'null',
  '~',
  '',
  '0777',
  '0o17',
  '0X1F',
  '1_000',
  '1.0',
  '1e3',
  '.inf',
  '2024-01-01',
  '1:20',
  'a: b',
  'a #b',
  '#c',
  '- x',
  '@x',
  "it's",
  '"q"',
  '{a}',
  '[a]',
  '*x',
  '&x',
  '!x',
  '%x',
  '|x',
  '>x',
  ' lead',
  'trail ',
  'tab\tin',
  'é ünïcode',
  'x\ny',
  'x\ny\n',
  '  indented\nfirst line',
  'x\n\n',
  LONG,
];

/** A value as the check reads it (js-yaml, YAML 1.1) and as the `yaml` package reads it with 1.1. */
function readBoth(text: string): { checkPath: unknown; yamlPackage: unknown } {
  return {
    checkPath: load(text, { schema: YAML11_SCHEMA }),
    yamlPackage: parseDocument(text, { version: '1.1' }).toJS(),
  };
}

function assertRoundTrip(value: unknown, text: string): void {
  const { checkPath, yamlPackage } = readBoth(text);
  assert.deepEqual(checkPath, value, `js-yaml read back something else:\n${text}`);
  assert.deepEqual(yamlPackage, value, `yaml read back something else:\n${text}`);
}

/** No `&anchor` or `*alias` anywhere in the text (the parser says, not a regex on the text). */
function assertNoAnchors(text: string): void {
  for (const doc of parseAllDocuments(text)) {
    assert.ok(!('errors' in doc && doc.errors.length > 0), `does not parse:\n${text}`);
    visit(doc, {
      Node: (_key, node) => assert.equal((node as { anchor?: string }).anchor, undefined, `an anchor in:\n${text}`),
      Alias: () => assert.fail(`an alias in:\n${text}`),
    });
  }
}

test('written values read back as the same value, tricky strings included, in block and in flow style', () => {
  const object = {
    metadata: { name: 'x', annotations: Object.fromEntries(TRICKY.map((s, i) => [`k${i}`, s])) },
    list: TRICKY,
    numbers: [0, -1, 1.5, 1e21, -2.5e-7, 1e-7, true, false, null],
  };
  for (const flow of [false, true]) {
    const text = writeYaml(object, { flow });
    assertRoundTrip(object, text);
    assertNoAnchors(text);
  }
  // Keys too.
  const keyed = Object.fromEntries(TRICKY.filter((s) => !s.includes('\n')).map((s) => [s, 1]));
  assertRoundTrip(keyed, writeYaml(keyed));
  // Go's decoder (the API server's) reads 0o17 / 0X1F as integers: they are quoted.
  assert.match(writeYaml({ a: '0o17', b: '0X1F' }), /^a: '0o17'\nb: '0X1F'\n$/);
});

test('the house style: 2-space indent, block style, sequences under their key, no folding of long strings', () => {
  const text = writeYaml({ spec: { containers: [{ name: 'a', args: ['x', 'z'] }], note: LONG } });
  assert.equal(text, `spec:\n  containers:\n    - name: a\n      args:\n        - x\n        - z\n  note: ${LONG}\n`);
  // YAML 1.1 reads y, n, yes, on as booleans: quoted.
  assert.equal(writeYaml(['y', 'n', 'yes', 'On']), "- 'y'\n- 'n'\n- 'yes'\n- 'On'\n");
  assert.equal(writeYaml({ a: { b: [1, 'two'] } }, { flow: true }), '{a: {b: [1, two]}}\n');
});

test('an object used twice is written out twice, never as an anchor and an alias', () => {
  const shared = { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' };
  const object = { a: shared, b: [shared, shared], c: { d: shared } };
  const text = writeYaml(object);
  assertNoAnchors(text);
  assertRoundTrip(object, text);
  assert.equal(text.match(/key: os/g)?.length, 4);
});

test('a generated document carries its comments; they do not change the object', () => {
  const doc = yamlDocument(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
    { comment: 'made by kube-windows\nfor a test' },
  );
  const text = yamlText(doc);
  assert.match(text, /^# made by kube-windows\n# for a test\n\napiVersion: v1\n/);
  assertRoundTrip({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, text);
});

test('generated objects round-trip: the RuntimeClass, the Windows networking objects, a live object, plan bodies', () => {
  const objects = [
    runtimeClassFor(20348)!,
    ...windowsNetworkingObjects({
      cni: { kind: 'flannel', via: 'x', namespace: 'kube-flannel', daemonSet: 'kube-flannel-ds', version: 'v0.25.6' },
      serverVersion: 'v1.31.3',
      endpoint: '10.0.0.10:6443',
      serviceSubnet: '10.96.0.0/12',
    }),
  ];
  assert.ok(objects.length >= 3, 'a RuntimeClass, DaemonSets and their ConfigMaps');
  for (const o of objects) {
    const text = writeYaml(o);
    assertRoundTrip(o, text);
    assertNoAnchors(text);
    // What the check reads from it is the object itself: no YAML finding on our own output.
    assert.deepEqual(
      checkText(text).findings.filter((f) => f.ruleId.startsWith('YAML')),
      [],
    );
  }
  const live = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': LONG } },
    data: { yes: 'on' },
  };
  const liveText = liveYaml(live, ['header']);
  assertRoundTrip(live, liveText);
  assert.ok(liveText.split('\n').includes(`    kubectl.kubernetes.io/last-applied-configuration: ${LONG}`), liveText);

  const plan: Plan<unknown> = {
    id: 'p',
    title: 't',
    target: 'h',
    steps: objects.map((o, i) => ({
      id: `s${i}`,
      title: 'create',
      preview: {
        api: [
          { verb: 'POST', path: '/x', body: o, ...(i === 0 ? { comment: 'Made by a test,\nfor the dry run.' } : {}) },
        ],
      },
      check: async () => 'todo' as const,
      apply: async () => undefined,
      verify: async () => true as const,
    })),
  };
  const text = renderPlan(plan);
  const bodies = text.split(/^ {2}API POST \/x\n/m).slice(1);
  assert.equal(bodies.length, objects.length);
  bodies.forEach((b, i) => {
    const lines = b.split('\n');
    const end = lines.findIndex((l) => l !== '' && !l.startsWith('    '));
    const body = lines.slice(0, end).map((l) => l.slice(4));
    assertRoundTrip(objects[i], `${body.join('\n')}\n`);
  });
  assert.match(
    text,
    /^ {2}API POST \/x\n {4}# Made by a test,\n {4}# for the dry run\.\n\n {4}apiVersion: node\.k8s\.io\/v1\n/m,
  );
});

const COMMENTED = `# IIS front end (owned by the web team)
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: iis # the Service selects on this
  namespace: web
spec:
  serviceName: iis
  replicas: 2   # one per zone
  selector:
    matchLabels:
      app: iis
  template:
    metadata:
      labels:
        app: iis # must match the selector
    spec:
      # Windows Server 2022 nodes only
      nodeSelector:
        kubernetes.io/os: windows
      containers:
        # the site itself
        - name: iis
          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022 # pinned by digest in prod
          ports:
            - containerPort: 80 # http
# trailing note
`;

const commentsOf = (text: string) =>
  text.split('\n').flatMap((l) => (l.includes('#') ? [l.slice(l.indexOf('#'))] : []));

test("a fix that adds a block (the missing tolerations) keeps every comment of the user's document and its formatting", () => {
  const r = fixText(COMMENTED, { only: ['WIN073'], flavour: 'openshift' }, { scope: 'all' });
  assert.ok(r.applied > 0, 'the fix ran');
  const fixed = r.text;
  assert.deepEqual(commentsOf(fixed), commentsOf(COMMENTED));
  // Only lines were added: every original line is still there, in order.
  const added = fixed.split('\n');
  let at = 0;
  for (const line of COMMENTED.split('\n')) {
    at = added.indexOf(line, at);
    assert.ok(at >= 0, `line lost or changed: ${line}\n${fixed}`);
  }
  assert.match(fixed, /^ {6}tolerations:\n {8}- key: os\n/m);
  const value = load(fixed, { schema: YAML11_SCHEMA }) as { spec: { template: { spec: { tolerations: unknown[] } } } };
  assert.ok(value.spec.template.spec.tolerations.length > 0);
  assert.deepEqual(
    checkText(fixed, { only: ['WIN073'], flavour: 'openshift' }).findings.map((f) => f.ruleId),
    [],
  );
});

test('edits insert blocks whose long strings stay on one line and whose multi-line strings read back', () => {
  const text = '# keep me\na: 1 # and me\n';
  const doc = loadManifest(text).documents[0]!;
  const insert = (value: unknown) =>
    applyTextEdits(
      text,
      opToEdits({ text: doc.text, root: doc.tree(), newline: '\n' }, { op: 'set', path: ['b'], value }),
    );
  const long = insert({ note: LONG, list: [LONG] });
  assert.ok(long.includes(`  note: ${LONG}\n`) && long.includes(`    - ${LONG}\n`), long);
  assert.deepEqual(commentsOf(long), ['# keep me', '# and me']);
  assertNoAnchors(long);
  for (const s of TRICKY) {
    const out = insert(s);
    assert.deepEqual(load(out, { schema: YAML11_SCHEMA }), { a: 1, b: s }, `${JSON.stringify(s)}:\n${out}`);
    const nested = insert({ c: [s] });
    assert.deepEqual(
      load(nested, { schema: YAML11_SCHEMA }),
      { a: 1, b: { c: [s] } },
      `${JSON.stringify(s)}:\n${nested}`,
    );
  }
});
