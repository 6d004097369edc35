// A chart template opened in the language server: analysed with the chart's values, findings at the
// template's lines, and the hover says when a value comes from a template action.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HoverRequest, type MarkupContent } from 'vscode-languageserver-protocol';
import { TestClient } from '../support/lsp-client';

const clients: TestClient[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});

const TEMPLATE = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ include "demo.fullname" . }}
spec:
  selector:
    matchLabels: {app: demo}
  template:
    metadata:
      labels: {app: demo}
    spec:
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: agent
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          securityContext:
            privileged: {{ .Values.privileged }}
            runAsUser: {{ .Values.uid }}
          resources: {limits: {cpu: 100m, memory: 128Mi}}
`;

function chart(values: string, extra?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kw-helm-'));
  mkdirSync(join(dir, 'templates'));
  writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
  writeFileSync(join(dir, 'values.yaml'), values);
  if (extra !== undefined) writeFileSync(join(dir, 'prod.yaml'), extra);
  writeFileSync(join(dir, 'templates', 'ds.yaml'), TEMPLATE);
  return dir;
}

async function client(initializationOptions: unknown = { debounceMs: 0 }): Promise<TestClient> {
  const c = new TestClient({ initializationOptions });
  clients.push(c);
  await c.initialize();
  return c;
}

const lines = TEMPLATE.split('\n');
const privilegedLine = lines.findIndex((l) => l.includes('privileged:'));

test('a chart template gets diagnostics at its own lines, naming the value origin', async () => {
  const dir = chart('privileged: true\nnodeSelector:\n  kubernetes.io/os: windows\n');
  const c = await client();
  const uri = pathToFileURL(join(dir, 'templates', 'ds.yaml')).toString();
  await c.open(uri, TEMPLATE);
  const { diagnostics } = await c.diagnostics(uri, 1);
  const priv = diagnostics.find((d) => d.code === 'WIN041');
  assert.ok(priv, JSON.stringify(diagnostics.map((d) => d.code)));
  assert.equal(priv.range.start.line, privilegedLine);
  assert.match(String(priv.message), /\(value from values\.yaml:1\)$/);
  assert.ok(!diagnostics.some((d) => d.code === 'YAML002'));
});

test('the kubeWindows.helm.valuesFiles setting is read over values.yaml; an unset value prints nothing, as in Helm', async () => {
  const dir = chart('privileged: true\nnodeSelector:\n  kubernetes.io/os: windows\n', 'privileged: null\n');
  const c = await client({ debounceMs: 0, helm: { valuesFiles: ['prod.yaml'] } });
  const uri = pathToFileURL(join(dir, 'templates', 'ds.yaml')).toString();
  await c.open(uri, TEMPLATE);
  const { diagnostics } = await c.diagnostics(uri, 1);
  assert.deepEqual(
    diagnostics.filter((d) => d.range.start.line === privilegedLine),
    [],
  );
});

test('a value a template action computes is not checked: an info diagnostic and the hover say so', async () => {
  const dir = chart('nodeSelector:\n  kubernetes.io/os: windows\n');
  const computed = TEMPLATE.replace('{{ .Values.privileged }}', '{{ .Values.privileged | quote }}');
  writeFileSync(join(dir, 'templates', 'ds.yaml'), computed);
  const c = await client();
  const uri = pathToFileURL(join(dir, 'templates', 'ds.yaml')).toString();
  await c.open(uri, computed);
  const { diagnostics } = await c.diagnostics(uri, 1);
  const here = diagnostics.filter((d) => d.range.start.line === privilegedLine);
  assert.deepEqual(
    here.map((d) => [d.code, d.severity]),
    [['WIN040', 3]],
  );
  assert.match(
    String(here[0].message),
    /may apply once Helm renders the chart: the value here comes from `\{\{ \.Values\.privileged \| quote \}\}`/,
  );
  const h = await c.conn.sendRequest(HoverRequest.type, {
    textDocument: { uri },
    position: { line: privilegedLine, character: lines[privilegedLine].indexOf('privileged') + 2 },
  });
  assert.match(
    (h?.contents as MarkupContent).value,
    /value comes from `\{\{ \.Values\.privileged \| quote \}\}`: not checked/,
  );
});

test('a templates/ file outside a chart keeps the Helm notice', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-nochart-'));
  mkdirSync(join(dir, 'templates'));
  writeFileSync(join(dir, 'templates', 'ds.yaml'), TEMPLATE);
  const c = await client();
  const uri = pathToFileURL(join(dir, 'templates', 'ds.yaml')).toString();
  await c.open(uri, TEMPLATE);
  const { diagnostics } = await c.diagnostics(uri, 1);
  assert.equal(diagnostics.length, 0);
  const end = Date.now() + 5000;
  while (!c.statuses.some((s) => s.uri === uri) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  assert.match(c.statuses.find((s) => s.uri === uri)?.skipped ?? '', /Helm template/);
});

test('the chart\'s named templates are read as check reads them: `{{ template "label.os" . }}: windows` makes a Windows pod', async () => {
  const dir = chart('privileged: false\n');
  writeFileSync(
    join(dir, 'templates', '_helpers.tpl'),
    '{{- define "label.os" -}}\n{{- if semverCompare "^1.14-0" .Capabilities.KubeVersion.GitVersion -}}\nkubernetes.io/os\n{{- else -}}\nbeta.kubernetes.io/os\n{{- end -}}\n{{- end -}}\n',
  );
  const text = TEMPLATE.replace(
    '{{- with .Values.nodeSelector }}\n      nodeSelector:\n        {{- toYaml . | nindent 8 }}\n      {{- end }}',
    'nodeSelector:\n        {{ template "label.os" . }}: windows',
  ).replace('mcr.microsoft.com/windows/nanoserver:ltsc2022', 'example/agent:1');
  writeFileSync(join(dir, 'templates', 'ds.yaml'), text);
  const c = await client();
  const uri = pathToFileURL(join(dir, 'templates', 'ds.yaml')).toString();
  await c.open(uri, text);
  const { diagnostics } = await c.diagnostics(uri, 1);
  // privileged: false on a Windows container is WIN040 (Linux-only field); on a pod not known as Windows, nothing.
  const line = text.split('\n').findIndex((l) => l.includes('privileged:'));
  assert.deepEqual(
    diagnostics.filter((d) => d.range.start.line === line).map((d) => [d.code, d.severity]),
    [['WIN040', 2]],
  );
});
