// `kube-windows check chart/`: chart templates analysed with values.yaml, and with --helm-values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const TEMPLATE = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .Release.Name }}-agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
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
          resources: {limits: {cpu: 100m, memory: 128Mi}}
`;

function chart(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kw-cli-helm-'));
  mkdirSync(join(dir, 'chart', 'templates'), { recursive: true });
  writeFileSync(join(dir, 'chart', 'Chart.yaml'), 'apiVersion: v2\nname: agent\nversion: 0.1.0\n');
  writeFileSync(join(dir, 'chart', 'values.yaml'), 'nodeSelector:\n  kubernetes.io/os: windows\nprivileged: true\n');
  writeFileSync(join(dir, 'chart', 'templates', 'ds.yaml'), TEMPLATE);
  writeFileSync(join(dir, 'off.yaml'), 'privileged: null\n');
  writeFileSync(join(dir, 'linux.yaml'), 'nodeSelector:\n  kubernetes.io/os: linux\n');
  return dir;
}

test('check chart/: a template is analysed and a finding names the values file and line', () => {
  const dir = chart();
  const r = run(['check', 'chart', '--format', 'json'], dir);
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout);
  const file = out.files.find((f: { path: string }) => f.path.endsWith('ds.yaml'));
  const priv = file.findings.find((f: { ruleId: string }) => f.ruleId === 'WIN041');
  assert.ok(priv, r.stdout);
  assert.equal(
    priv.range.start.line,
    TEMPLATE.split('\n').findIndex((l) => l.includes('privileged:')),
  );
  assert.match(priv.message, /\(value from values\.yaml:3\)$/);
  assert.equal(out.summary.windowsWorkloads, 1);
});

test('--helm-values: later files win; an unset value is not reported; a Linux selector makes it a Linux pod', () => {
  const dir = chart();
  const off = run(['check', 'chart', '--helm-values', 'off.yaml', '--format', 'json'], dir);
  const offOut = JSON.parse(off.stdout);
  assert.equal(offOut.summary.windowsWorkloads, 1);
  assert.deepEqual(
    offOut.files.flatMap((f: { findings: { ruleId: string }[] }) => f.findings.map((x) => x.ruleId)),
    [],
  );
  assert.equal(off.code, 0, off.stdout);
  const linux = JSON.parse(
    run(['check', 'chart', '--helm-values', 'off.yaml', '--helm-values', 'linux.yaml', '--format', 'json'], dir).stdout,
  );
  assert.equal(linux.summary.windowsWorkloads, 0);
  const missing = run(['check', 'chart', '--helm-values', 'nope.yaml'], dir);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--helm-values nope\.yaml: cannot read it/);
  assert.doesNotMatch(missing.stderr, /\n\s+at /);
});

test("a chart's values files are data: their ${VAR} and {{ }} strings do not make them templates", () => {
  const dir = chart();
  const values =
    'nodeSelector:\n  kubernetes.io/os: windows\nprivileged: false\nenv:\n  LEVEL: "${LOG_LEVEL}"\nconfig: |\n  endpoint {{ .Values.region }}\n';
  writeFileSync(join(dir, 'chart', 'values.yaml'), values);
  mkdirSync(join(dir, 'chart', 'ci'));
  writeFileSync(join(dir, 'chart', 'ci', 'test-values.yaml'), values);
  // The same text in a Kubernetes object outside a chart is still an envsubst template.
  writeFileSync(join(dir, 'loose.yaml'), `apiVersion: v1\nkind: ConfigMap\n${values}`);
  const out = JSON.parse(run(['check', '.', '--format', 'json'], dir).stdout);
  const rules = (suffix: string) =>
    out.files.find((f: { path: string }) => f.path.endsWith(suffix)).findings.map((f: { ruleId: string }) => f.ruleId);
  // Values files hold no Kubernetes object: counted as not Kubernetes, never a finding.
  assert.ok(out.notKubernetes.some((p: string) => p.endsWith(join('chart', 'values.yaml'))));
  assert.ok(out.notKubernetes.some((p: string) => p.endsWith('test-values.yaml')));
  assert.ok(!out.files.some((f: { path: string }) => f.path.endsWith('values.yaml')));
  assert.deepEqual(rules('loose.yaml'), ['YAML002']);
});

test('a chart template: `${VAR}` left once its actions are set aside is shell text, not envsubst', () => {
  const dir = chart();
  writeFileSync(
    join(dir, 'chart', 'templates', 'ds.yaml'),
    TEMPLATE.replace('securityContext:\n            privileged: {{ .Values.privileged }}\n          ', '').replace(
      'resources:',
      'args: ["echo ${NODE_NAME}"]\n          resources:',
    ),
  );
  const out = JSON.parse(run(['check', 'chart', '--format', 'json'], dir).stdout);
  assert.deepEqual(
    out.files.flatMap((f: { findings: { ruleId: string }[] }) => f.findings.map((x) => x.ruleId)),
    [],
  );
  assert.equal(out.summary.windowsWorkloads, 1);
});

test('check chart/: a .tpl file under templates/ that defines a whole manifest is checked; .tpl files elsewhere are not read', () => {
  const dir = chart();
  writeFileSync(join(dir, 'chart', 'templates', 'ds.yaml'), '{{- include "agent-windows" . }}\n');
  writeFileSync(
    join(dir, 'chart', 'templates', '_agent-windows.tpl'),
    `{{- define "agent-windows" }}\n${TEMPLATE}{{- end }}\n`,
  );
  writeFileSync(join(dir, 'loose.tpl'), 'kind: {{ .Values.x }}\n');
  const out = JSON.parse(run(['check', '.', '--format', 'json'], dir).stdout);
  assert.deepEqual(
    out.files.map((f: { path: string }) => f.path).filter((p: string) => p.endsWith('.tpl')),
    [join('chart', 'templates', '_agent-windows.tpl')],
  );
  const tpl = out.files.find((f: { path: string }) => f.path.endsWith('.tpl'));
  const priv = tpl.findings.find((f: { ruleId: string }) => f.ruleId === 'WIN041');
  assert.ok(priv, JSON.stringify(tpl));
  assert.match(priv.message, /\(value from values\.yaml:3\)$/);
  assert.equal(out.summary.windowsWorkloads, 1);
});
