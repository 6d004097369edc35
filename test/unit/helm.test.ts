// Helm chart templates: neutralisation keeps positions, placeholders are never reported, values are
// put in where the chart's idiom is unambiguous and findings on them name their origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartDefines } from '../../src/core/helm/defines';
import { neutralise, findActions } from '../../src/core/helm/neutralise';
import { yamlLines } from '../../src/core/helm/yaml-lines';
import { kubeMinorIs, kubeVersionSatisfies } from '../../src/core/helm/kube-version';
import { checkChartTemplate, chartRootOf } from '../../src/core/helm/check';
import { loadValues, mergeValues } from '../../src/core/helm/values';
import { checkText } from '../../src/core/rules/checker';
import { emptyFacts, type ClusterSnapshot } from '../../src/core/rules/facts';

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
  const src = TEMPLATE.split('\n');
  const out = n.text.split('\n');
  assert.equal(out.length, src.length);
  // Control and include-only lines are empty (spaces there could break a block scalar); every
  // other line keeps its columns, inline actions being placeholders over the same columns.
  for (let i = 0; i < src.length; i++)
    assert.equal(out[i].length, /^\s*\{\{[^}]*\}\}\s*$/.test(src[i]) ? 0 : src[i].length, `line ${i + 1}`);
  assert.doesNotMatch(n.text, /\{\{|\}\}/);
  assert.equal(out[0], '');
  assert.equal(out[6], '');
  assert.equal(n.identity, false, 'emptied lines move offsets: findings are mapped line by line');
  assert.equal(neutralise('a: 1\nb: {{ .Values.b }}\n').identity, true);
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
  assert.equal(
    TEMPLATE.slice(priv.span.start, priv.span.end),
    line.slice(priv.range.start.character, priv.range.end.character),
  );
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
  const n = neutralise(
    'x:\n  {{- toYaml .Values.v | nindent 2 }}\n',
    loadValues([{ name: 'v.yaml', text: `v: ${JSON.stringify(value)}\n` }]),
  );
  const back = checkText(n.text);
  assert.deepEqual(back.findings, [], n.text);
  assert.deepEqual(lines.map((l) => l.text).slice(0, 4), [
    'tolerations:',
    '- key: os',
    '  operator: Equal',
    '  value: windows',
  ]);
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
  const tpl =
    'volumes:\n  {{- range $_, $m := .Values.extra }}\n  - name: {{ $m.name }}\n    emptyDir: {medium: Memory}\n  {{- end }}\n';
  const empty = neutralise(tpl, loadValues([{ name: 'values.yaml', text: 'extra: []\n' }]));
  assert.doesNotMatch(empty.text, /Memory/);
  const set = neutralise(tpl, loadValues([{ name: 'values.yaml', text: 'extra: [{name: a}]\n' }]));
  assert.match(set.text, /Memory/);
  assert.match(neutralise(tpl).text, /Memory/);
});

test('a block scalar whose first lines are actions stays a block scalar', () => {
  const tpl =
    'apiVersion: v1\nkind: ConfigMap\ndata:\n  a.yml: |\n    {{- toYaml .Values.common | nindent 4 }}\n    kubelet:\n      enabled: true\n';
  const n = neutralise(tpl);
  assert.deepEqual(checkText(n.text).findings, [], n.text);
});

test('if/else inside one line: the branch Helm leaves out is blank', () => {
  const tpl = 'env:\n  - name: SOURCE\n    value: {{ if .Values.low }} "k8s" {{- else }} "kubernetes" {{- end }}\n';
  const undecided = neutralise(tpl);
  assert.match(undecided.text, /value: +"k8s" +$/m);
  assert.doesNotMatch(undecided.text, /kubernetes/);
  const off = neutralise(tpl, loadValues([{ name: 'values.yaml', text: 'low: false\n' }]));
  assert.match(off.text, /value: +"kubernetes" +$/m);
  assert.doesNotMatch(off.text, /k8s/);
});

/** The head of a Windows DaemonSet template, its pod spec's fields following at six spaces. */
const WINDOWS_DAEMONSET = `apiVersion: apps/v1
kind: DaemonSet
spec:
  template:
    spec:
      nodeSelector:
        kubernetes.io/os: windows
`;

test('`key: {{ … | nindent N }}` and `- {{ … | nindent N }}`: the value goes on the lines below', () => {
  const tpl = `${WINDOWS_DAEMONSET}      containers:
        - name: a
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          resources: {{- toYaml .Values.resources | nindent 12 }}
      tolerations:
        - {{ toYaml .Values.toleration | nindent 10 }}
          effect: NoSchedule
`;
  const unknown = checkChartTemplate(tpl, undefined);
  assert.deepEqual(
    unknown.findings.map((f) => [f.ruleId, f.severity, f.range.start.line]),
    [['WIN062', 'info', 10]],
    'resources a template computes are said to be undecided, and `- {{ … }}` followed by keys is read as one item',
  );
  assert.equal(unknown.windowsWorkloads, 1);
  const values = loadValues([
    {
      name: 'values.yaml',
      text: 'resources:\n  requests: {cpu: 10m, memory: 40Mi}\ntoleration:\n  key: os\n  operator: Exists\n',
    },
  ]);
  const known = checkChartTemplate(tpl, values);
  const win062 = known.findings.find((f) => f.ruleId === 'WIN062');
  assert.ok(win062, JSON.stringify(known.findings.map((f) => f.ruleId)));
  assert.match(win062.message, /no limits\.cpu, limits\.memory.*\(value from values\.yaml:1\)$/);
  assert.equal(win062.range.start.line, 10);
  const n = neutralise(tpl, values);
  assert.match(n.text, /- \s*\n {10}key: os\n {10}operator: Exists\n {10}effect: NoSchedule/);
});

test('values files holding ${VAR} strings are still read', () => {
  const values = loadValues([{ name: 'values.yaml', text: 'env:\n  LEVEL: "${LOG_LEVEL}"\nprivileged: true\n' }]);
  assert.deepEqual(values.problems, []);
  assert.equal(values.value.privileged, true);
});

test('conditions: and/or/not, eq/ne with strings, booleans and numbers, contains over lower, in pipelines too', () => {
  const values = loadValues([{ name: 'values.yaml', text: 'up: true\ndown: false\nos: Linux\nhp: true\nn: 2\n' }]);
  const kept = (cond: string) =>
    /b: 1/.test(neutralise(`a:\n  {{- if ${cond} }}\n  b: 1\n  {{- end }}\n`, values).text);
  assert.equal(kept('and .Values.up (not .Values.down)'), true);
  assert.equal(kept('and .Values.up .Values.down'), false);
  assert.equal(kept('and (include "x" .) .Values.down'), false, 'one false operand decides and');
  assert.equal(kept('or (include "x" .) .Values.up'), true, 'one true operand decides or');
  assert.equal(kept('eq .Values.hp true'), true);
  assert.equal(kept('ne .Values.hp true'), false);
  assert.equal(kept('eq .Values.n 2'), true);
  assert.equal(kept('eq "Linux" .Values.os'), true);
  assert.equal(kept('lower .Values.os | contains "windows"'), false);
  assert.equal(kept('contains "linux" (lower .Values.os)'), true);
});

test('a ternary on a value is put in; a finding on it names the value', () => {
  const tpl = `apiVersion: v1
kind: Pod
spec:
  nodeSelector:
    kubernetes.io/os: {{ .Values.isWindows | ternary "windows" "linux" }}
  containers:
    - name: a
      image: example/agent:1
      securityContext:
        capabilities: {drop: [ALL]}
      resources: {requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}
`;
  const win = checkChartTemplate(tpl, loadValues([{ name: 'values.yaml', text: 'isWindows: true\n' }]));
  assert.equal(win.windowsWorkloads, 1);
  assert.deepEqual(
    win.findings.map((f) => f.ruleId),
    ['WIN040'],
  );
  assert.equal(
    checkChartTemplate(tpl, loadValues([{ name: 'values.yaml', text: 'isWindows: false\n' }])).windowsWorkloads,
    0,
  );
});

test('inside a document, a finding under a branch the values cannot decide, or hidden by a computed key, is said to be undecided (info, naming the action)', () => {
  const tpl = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  template:
    spec:
      {{- if eq (include "host-pid" .) "true" }}
      hostPID: true
      {{- end }}
      nodeSelector:
        {{ template "label.os" . }}: windows
      tolerations:
        - {key: node.kubernetes.io/os, operator: Exists, effect: NoSchedule}
      containers:
        - name: a
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          resources: {requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}
`;
  const result = checkChartTemplate(tpl, loadValues([]));
  assert.equal(result.windowsWorkloads, 1);
  assert.deepEqual(
    result.findings.map((f) => [f.ruleId, f.severity]),
    [
      ['WIN070', 'info'],
      ['WIN040', 'info'],
    ],
  );
  assert.match(
    result.findings[1].message,
    /^WIN040 \(warning\) may apply once Helm renders the chart: this line is under `\{\{ if eq \(include "host-pid" \.\) "true" \}\}`, a condition the values cannot decide/,
  );
  assert.match(result.findings[0].message, /a key of this object comes from `\{\{ template "label\.os" \. \}\}`/);
  assert.deepEqual(result.unchecked.map((u) => [u.ruleId, u.action]).sort(), [
    ['WIN040', '{{ if eq (include "host-pid" .) "true" }}'],
    ['WIN070', '{{ template "label.os" . }}'],
  ]);
  // The same field written outside any condition is reported.
  const plain = checkChartTemplate(tpl.replace(/ *\{\{- (if|end)[^}]*\}\}\n/g, ''), loadValues([]));
  assert.ok(plain.findings.some((f) => f.ruleId === 'WIN040'));
});

test('a define holding a whole manifest (a .tpl file) is read as a document with the chart values; other defines stay text', () => {
  const tpl = `{{- define "helper" -}}
kind: NotADocument
{{- end }}
{{- define "node-windows" }}
{{- if .Values.enableWindows }}
---
${WINDOWS_DAEMONSET}      hostPID: true
      containers:
        - name: a
          image: example/driver:1
          resources: {requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}
{{- end }}
{{- end }}
`;
  const on = checkChartTemplate(tpl, loadValues([{ name: 'values.yaml', text: 'enableWindows: true\n' }]));
  assert.equal(on.windowsWorkloads, 1);
  assert.deepEqual(
    on.findings.map((f) => [f.ruleId, f.range.start.line]),
    [['WIN040', 13]],
  );
  assert.equal(
    checkChartTemplate(tpl, loadValues([{ name: 'values.yaml', text: 'enableWindows: false\n' }])).windowsWorkloads,
    0,
  );
});

test('a template still not YAML once set aside: YAML002 names the construct that stopped it', () => {
  const include = checkChartTemplate(
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {{ include "labels" . }}\n    app: x\n',
    undefined,
  );
  assert.deepEqual(
    include.findings.map((f) => f.ruleId),
    ['YAML002'],
  );
  assert.match(
    include.findings[0].message,
    /stopped by `\{\{ include "labels" \. \}\}` on line 4, whose output cannot be set aside/,
  );
  const quoted = checkChartTemplate(
    "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: a\n      command: ['sh', '-c', '\n      mkdir -p {{ .Values.dir }};\n      ']\n",
    undefined,
  );
  assert.deepEqual(
    quoted.findings.map((f) => f.ruleId),
    ['YAML002'],
  );
  assert.match(quoted.findings[0].message, /indented no deeper than its key, which go-yaml \(Helm, kubectl\) accepts/);
});

test('conditions on .Capabilities.KubeVersion are decided over the supported releases (1.29 to 1.37)', () => {
  assert.equal(kubeVersionSatisfies('^1.14-0'), true);
  assert.equal(kubeVersionSatisfies('>=1.16.0-0'), true);
  assert.equal(kubeVersionSatisfies('<1.19.0'), false);
  assert.equal(kubeVersionSatisfies('>=1.33'), undefined, 'true for some supported releases only');
  assert.equal(kubeVersionSatisfies('<1.20 || >=1.25'), true);
  assert.equal(kubeVersionSatisfies('~1.35'), undefined);
  assert.equal(kubeVersionSatisfies('>= 1.30, < 1.28'), false);
  assert.equal(kubeVersionSatisfies('not a version'), undefined);
  assert.equal(kubeMinorIs('21'), false);
  assert.equal(kubeMinorIs('35+'), undefined);
  const tpl = `a:
  {{- if semverCompare "^1.14-0" .Capabilities.KubeVersion.GitVersion }}
  new: 1
  {{- else }}
  old: 1
  {{- end }}
  {{- if eq .Capabilities.KubeVersion.Minor "21" }}
  minor21: 1
  {{- end }}
`;
  const text = neutralise(tpl, loadValues([])).text;
  assert.match(text, /new: 1/);
  assert.doesNotMatch(text, /old: 1|minor21/);
});

test('a chart\'s named template that prints one decided scalar is put in (`{{ template "label.os" . }}: windows`)', () => {
  const helpers = `{{- define "label.os" -}}
{{- if semverCompare "^1.14-0" .Capabilities.KubeVersion.GitVersion -}}
kubernetes.io/os
{{- else -}}
beta.kubernetes.io/os
{{- end -}}
{{- end -}}
{{- define "undecided" -}}{{ include "other" . }}{{- end -}}
`;
  const tpl = `${WINDOWS_DAEMONSET.replace('kubernetes.io/os: windows', '{{ template "label.os" . }}: {{ .Values.os }}')}      containers:
        - name: a
          image: example/agent:1
          resources: {requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}
          securityContext:
            runAsGroup: 1000
`;
  const values = { ...loadValues([{ name: 'values.yaml', text: 'os: windows\n' }]), defines: chartDefines([helpers]) };
  assert.deepEqual([...values.defines.keys()], ['label.os', 'undecided']);
  const result = checkChartTemplate(tpl, values);
  assert.equal(result.windowsWorkloads, 1);
  assert.deepEqual(
    result.findings.map((f) => [f.ruleId, f.severity]),
    [['WIN040', 'warning']],
  );
  // Without the chart's defines the key stays unknown, and the pod is not taken for a Windows one.
  assert.equal(
    checkChartTemplate(tpl, loadValues([{ name: 'values.yaml', text: 'os: windows\n' }])).windowsWorkloads,
    0,
  );
  // A define whose output is not decided is not put in.
  const other = checkChartTemplate(tpl.replace('template "label.os"', 'include "undecided"'), values);
  assert.equal(other.windowsWorkloads, 0);
});

const UNREAD = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      nodeSelector:
        kubernetes.io/os: {{ .Values.os }}
      imagePullSecrets:
        {{- include "agent.pullSecrets" . | nindent 8 }}
      containers:
        {{- include "agent.container" . | nindent 6 }}
        {{- if .Values.sidecar }}
        {{- include "agent.sidecar" . | nindent 6 }}
        {{- end }}
        - name: plain
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          {{- with include "agent.resources" . | fromYaml }}
          resources: {{- toYaml . | nindent 12 }}
          {{- end }}
`;

test('a Windows pod spec whose containers or fields a define prints as YAML: said at the key they fill, naming the define', () => {
  const notes = (os: string, sidecar: boolean) =>
    checkChartTemplate(UNREAD, loadValues([{ name: 'values.yaml', text: `os: ${os}\nsidecar: ${sidecar}\n` }]))
      .findings.filter((f) => f.ruleId === 'YAML002')
      .map((f) => `${f.range.start.line + 1}:${f.range.start.character + 1} ${f.severity} ${f.message}`);
  const windows = notes('windows', false);
  assert.equal(windows.length, 2, windows.join('\n'));
  // The containers: the define of the rendered branch only (the sidecar's `if` is false), at `containers:`.
  assert.match(
    windows[0],
    /^16:7 info chart template: `containers` here is printed by the named template "agent\.container" \(`\{\{- include "agent\.container" \. \| nindent 6 \}\}`\), whose YAML the chart path does not expand in place, so it is not checked here\. Check what Helm renders: helm template … \| kube-windows check -$/,
  );
  // `with include … | fromYaml`: the define the dot comes from, at `resources:`.
  assert.match(
    windows[1],
    /^24:11 info chart template: `resources` here is printed by the named template "agent\.resources"/,
  );
  // With the sidecar on, both of the containers' defines are named in one note.
  assert.match(notes('windows', true)[0], /named templates "agent\.container", "agent\.sidecar"/);
  // A Linux pod: nothing to say for Windows.
  assert.deepEqual(notes('linux', true), []);
  // Disabled with YAML002.
  const off = checkChartTemplate(UNREAD, loadValues([{ name: 'values.yaml', text: 'os: windows\n' }]), {
    disable: ['YAML002'],
  });
  assert.deepEqual(
    off.findings.filter((f) => f.ruleId === 'YAML002'),
    [],
  );
});

test('conditions on .Capabilities.KubeVersion are decided for the release given (flag, facts, cluster), as helm template --kube-version does', () => {
  assert.equal(kubeVersionSatisfies('>=1.33', '1.35'), true);
  assert.equal(kubeVersionSatisfies('>=1.33', '1.30'), false);
  assert.equal(kubeVersionSatisfies('~1.35', 'v1.35.4'), true);
  // A patch-level constraint is not decided by a minor release.
  assert.equal(kubeVersionSatisfies('>=1.35.2', '1.35'), undefined);
  assert.equal(kubeMinorIs('35+', '1.35'), true);
  assert.equal(kubeMinorIs('35', '1.36'), false);
  const tpl = `apiVersion: v1
kind: Pod
metadata:
  name: agent
spec:
  nodeSelector:
    kubernetes.io/os: {{ .Values.os }}
  {{- if semverCompare ">=1.34-0" .Capabilities.KubeVersion.GitVersion }}
  hostPID: true
  {{- end }}
  containers:
    - name: agent
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
      resources: {limits: {cpu: 100m, memory: 128Mi}}
`;
  const values = loadValues([{ name: 'values.yaml', text: 'os: windows\n' }]);
  const hostPid = (options: Parameters<typeof checkChartTemplate>[2]) =>
    checkChartTemplate(tpl, values, options)
      .findings.filter((f) => f.range.start.line === 8)
      .map((f) => `${f.ruleId} ${f.severity} ${/may apply/.test(f.message) ? 'may apply' : 'decided'}`);
  // No release given: 1.29 to 1.37 disagree, so it is said to be undecided.
  assert.deepEqual(hostPid({}), ['WIN040 info may apply']);
  // A release given: decided for it, whether by the flag, by facts gathered for it, or by the cluster's.
  assert.deepEqual(hostPid({ kubernetesVersion: '1.35' }), ['WIN040 warning decided']);
  assert.deepEqual(hostPid({ kubernetesVersion: '1.30' }), []);
  assert.deepEqual(hostPid({ facts: emptyFacts('auto', undefined, '1.33') }), []);
  assert.deepEqual(hostPid({ cluster: { serverVersion: 'v1.36.1' } as ClusterSnapshot }), ['WIN040 warning decided']);
  // Facts whose release is only the default do not decide it.
  assert.deepEqual(hostPid({ facts: emptyFacts() }), ['WIN040 info may apply']);
});

const EXPANDED = `apiVersion: v1
kind: Pod
metadata:
  name: agent
spec:
  nodeSelector:
    kubernetes.io/os: {{ .Values.os }}
  containers:
    - name: agent
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
      resources: {limits: {cpu: 100m, memory: 128Mi}}
  initContainers:
    {{- include "agent.init" . | nindent 4 }}
`;

test('a define printed with nindent is expanded in place with the chart values: its containers are checked at the include line', () => {
  const helpers = `{{- define "agent.init" -}}
- name: init
  image: {{ .Values.image }}
  securityContext:
    privileged: {{ .Values.privileged }}
    runAsUser: {{ include "agent.uid" . }}
  resources:
{{ toYaml .Values.resources | indent 4 }}
{{- end -}}
{{- define "agent.uid" -}}{{ printf "%d" 1000 }}{{- end -}}
`;
  const values = {
    ...loadValues([
      {
        name: 'values.yaml',
        text: 'os: windows\nimage: mcr.microsoft.com/windows/nanoserver:ltsc2022\nprivileged: true\nresources: {}\n',
      },
    ]),
    defines: chartDefines([helpers]),
  };
  const got = checkChartTemplate(EXPANDED, values).findings.map(
    (f) => `${f.range.start.line + 1} ${f.ruleId} ${f.severity}${/may apply/.test(f.message) ? ' may apply' : ''}`,
  );
  // The define's init container is read: privileged (WIN041), no resources (WIN062), at the include's line 13.
  assert.ok(got.includes('13 WIN041 error'), got.join(', '));
  assert.ok(got.includes('13 WIN062 info'), got.join(', '));
  // What the define cannot compute (runAsUser from a printf helper) is not checked as text: no runAsUser finding.
  assert.deepEqual(
    got.filter((g) => !/^13 WIN04[01] |^13 WIN062 /.test(g)),
    [],
  );
  // No note for the init containers: they were read.
  assert.ok(
    !checkChartTemplate(EXPANDED, values).findings.some((f) => /`initContainers` here is printed/.test(f.message)),
  );
});
