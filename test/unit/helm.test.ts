// Helm chart templates: neutralisation keeps positions, placeholders are never reported, values are
// put in where the chart's idiom is unambiguous and findings on them name their origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { neutralise, findActions, yamlLines } from '../../src/core/helm/neutralise';
import { checkChartTemplate, chartRootOf } from '../../src/core/helm/check';
import { loadValues, mergeValues } from '../../src/core/helm/values';
import { checkText } from '../../src/core/rules/engine';

const TEMPLATE = `{{- /* a Windows agent */ -}}
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ include "demo.fullname" . }}
  labels:
    {{- include "demo.labels" . | nindent 4 }}
spec:
  selector:
    matchLabels:
      app: demo
  template:
    metadata:
      labels:
        app: demo
    spec:
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: agent
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          securityContext:
            privileged: {{ .Values.privileged }}
            runAsUser: {{ .Values.uid }}
          resources:
            limits: {cpu: 100m, memory: 128Mi}
`;

const VALUES = `image:
  repository: mcr.microsoft.com/windows/nanoserver
  tag: ltsc2022
privileged: true
nodeSelector:
  kubernetes.io/os: windows
`;

const LITERAL = TEMPLATE.replace('privileged: {{ .Values.privileged }}', 'privileged: true').replace(
  '      {{- with .Values.nodeSelector }}\n      nodeSelector:\n        {{- toYaml . | nindent 8 }}\n      {{- end }}\n',
  '      nodeSelector:\n        kubernetes.io/os: windows\n',
);

test('neutralisation without values keeps every line and column', () => {
  const n = neutralise(TEMPLATE);
  assert.equal(n.identity, true);
  assert.equal(n.text.length, TEMPLATE.length);
  const src = TEMPLATE.split('\n');
  const out = n.text.split('\n');
  assert.equal(out.length, src.length);
  for (let i = 0; i < src.length; i++) assert.equal(out[i].length, src[i].length, `line ${i + 1}`);
  assert.doesNotMatch(n.text, /\{\{|\}\}/);
  // Control and include-only lines are blank; inline actions are placeholders over the same columns.
  assert.equal(out[0].trim(), '');
  assert.equal(out[6].trim(), '');
  const p = n.placeholders.find((x) => x.action === '{{ .Values.privileged }}');
  assert.ok(p);
  assert.equal(src[p.line].slice(p.start, p.end), '{{ .Values.privileged }}');
});

test('actions: strings and comments holding braces do not end an action early', () => {
  const acts = findActions('a: {{ printf "}}" }} b: {{/* }} */}} c');
  assert.equal(acts.length, 2);
  assert.equal(acts[0].inner, 'printf "}}"');
  assert.equal(acts[1].kind, 'comment');
});

test('a value from a template action is never reported; the same literal value is', () => {
  const literal = checkChartTemplate(LITERAL, undefined);
  assert.ok(
    literal.findings.some((f) => f.ruleId === 'WIN041'),
    'the literal privileged: true is a finding',
  );
  const templated = checkChartTemplate(TEMPLATE, undefined);
  assert.equal(templated.findings.filter((f) => f.ruleId === 'WIN041').length, 0);
  assert.ok(templated.findings.every((f) => f.ruleId !== 'YAML002'));
});

test('values: scalars and with/toYaml blocks are put in; a finding names the origin and points at the template line', () => {
  const values = loadValues([{ name: 'values.yaml', text: VALUES }]);
  const result = checkChartTemplate(TEMPLATE, values);
  assert.equal(result.windowsWorkloads, 1, 'the nodeSelector block made the pod a Windows pod');
  const priv = result.findings.find((f) => f.ruleId === 'WIN041');
  assert.ok(priv, JSON.stringify(result.findings.map((f) => f.ruleId)));
  assert.match(priv.message, /\(value from values\.yaml:4\)$/);
  const line = TEMPLATE.split('\n')[priv.range.start.line];
  assert.equal(line.trim(), 'privileged: {{ .Values.privileged }}');
  assert.equal(TEMPLATE.slice(priv.span.start, priv.span.end), line.slice(priv.range.start.character, priv.range.end.character));
  // runAsUser has no value anywhere: it stays a placeholder and no rule reports it.
  assert.ok(result.findings.every((f) => !/runAsUser/.test(f.message)));
});

test('later values files win, maps merge, null deletes', () => {
  const values = loadValues([
    { name: 'values.yaml', text: VALUES },
    { name: 'prod.yaml', text: 'privileged: false\nnodeSelector:\n  pool: win\n' },
  ]);
  assert.equal(values.value.privileged, false);
  assert.deepEqual(values.value.nodeSelector, { 'kubernetes.io/os': 'windows', pool: 'win' });
  assert.deepEqual(values.originOf(['privileged']), { name: 'prod.yaml', line: 1 });
  assert.deepEqual(values.originOf(['nodeSelector', 'kubernetes.io/os']), { name: 'values.yaml', line: 6 });
  assert.deepEqual(mergeValues({ a: 1, b: 2 }, { a: null }), { b: 2 });
  const result = checkChartTemplate(TEMPLATE, values);
  assert.equal(result.findings.filter((f) => f.ruleId === 'WIN041').length, 0);
});

test('if/else: values choose the branch; undecided keeps the first only (no duplicate keys)', () => {
  const tpl = 'a:\n  {{- if .Values.enabled }}\n  b: 1\n  {{- else }}\n  b: 2\n  {{- end }}\n';
  const on = neutralise(tpl, loadValues([{ name: 'values.yaml', text: 'enabled: true\n' }]));
  assert.match(on.text, /b: 1/);
  assert.doesNotMatch(on.text, /b: 2/);
  const off = neutralise(tpl, loadValues([{ name: 'values.yaml', text: 'enabled: false\n' }]));
  assert.match(off.text, /b: 2/);
  assert.doesNotMatch(off.text, /b: 1/);
  const undecided = neutralise(tpl);
  assert.match(undecided.text, /b: 1/);
  assert.doesNotMatch(undecided.text, /b: 2/);
});

test('toYaml lines read back as the value', () => {
  const value = { tolerations: [{ key: 'os', operator: 'Equal', value: 'windows' }], on: 'yes', n: 3, empty: {} };
  const lines = yamlLines(value, []);
  const n = neutralise('x:\n  {{- toYaml .Values.v | nindent 2 }}\n', loadValues([{ name: 'v.yaml', text: `v: ${JSON.stringify(value)}\n` }]));
  const back = checkText(n.text);
  assert.deepEqual(back.findings, [], n.text);
  assert.deepEqual(lines.map((l) => l.text).slice(0, 4), ['tolerations:', '- key: os', '  operator: Equal', '  value: windows']);
  assert.ok(lines.some((l) => l.text === '"on": "yes"'));
});

test('chart detection: a file under templates/ of a folder holding Chart.yaml', () => {
  const files = new Set(['/w/chart/Chart.yaml']);
  const has = (p: string) => files.has(p);
  assert.equal(chartRootOf('/w/chart/templates/ds.yaml', has), '/w/chart');
  assert.equal(chartRootOf('/w/chart/templates/windows/ds.yaml', has), '/w/chart');
  assert.equal(chartRootOf('/w/other/templates/ds.yaml', has), undefined);
  assert.equal(chartRootOf('/w/chart/ds.yaml', has), undefined);
});

test('a range over an empty value renders nothing; over a set one its body is checked', () => {
  const tpl = 'volumes:\n  {{- range $_, $m := .Values.extra }}\n  - name: {{ $m.name }}\n    emptyDir: {medium: Memory}\n  {{- end }}\n';
  const empty = neutralise(tpl, loadValues([{ name: 'values.yaml', text: 'extra: []\n' }]));
  assert.doesNotMatch(empty.text, /Memory/);
  const set = neutralise(tpl, loadValues([{ name: 'values.yaml', text: 'extra: [{name: a}]\n' }]));
  assert.match(set.text, /Memory/);
  assert.match(neutralise(tpl).text, /Memory/);
});

test('values files holding ${VAR} strings are still read', () => {
  const values = loadValues([{ name: 'values.yaml', text: 'env:\n  LEVEL: "${LOG_LEVEL}"\nprivileged: true\n' }]);
  assert.deepEqual(values.problems, []);
  assert.equal(values.value.privileged, true);
});
