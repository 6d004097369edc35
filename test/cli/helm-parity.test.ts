// Real Helm as the oracle of the chart path. Every chart under test/fixtures/helm is checked with each run of
// test/fixtures/helm-values/SWITCHES.tsv (its values.yaml, and each Windows switch the chart documents) twice:
// in place (`check chart/ --helm-values …`) and as `helm template` renders it (helm built from helm.sh/helm/v3 by
// scripts/helm.mjs). Each rendered finding is brought back to the template line that produced it
// (test/support/helm-oracle.ts); the two lists must be equal, rule for rule and severity for severity, except
// where the in-place finding itself says what the chart path could not know, or a difference is listed below
// with its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { helmBinary, placedKey, runChart, type ChartRun, type Placed } from '../support/helm-oracle';

const FIXTURES = resolve(__dirname, '..', '..', '..', 'test', 'fixtures');
const CHARTS = join(FIXTURES, 'helm');
const VALUES = join(FIXTURES, 'helm-values');
/** Dependency charts Helm needs present (test/fixtures/helm-deps/SOURCES.tsv); disabled ones are left out. */
const DEPS = {
  'common-library': join(FIXTURES, 'helm-deps', 'newrelic+helm-charts', 'library', 'common-library'),
  // The provider pins 1.5.6; the fixture is 1.6.0. Only the provider's own templates are compared.
  'secrets-store-csi-driver': join(
    CHARTS,
    'kubernetes-sigs+secrets-store-csi-driver',
    'charts',
    'secrets-store-csi-driver',
  ),
};
/** The release Helm renders for (`.Capabilities.KubeVersion`): the pinned test API server's. */
const KUBE_VERSION = '1.35.0';

/**
 * Differences that are not the chart path's: `check` reads `${VAR}` left in Helm's output (inside a ConfigMap's
 * data, a container's args) as an envsubst template (YAML002), where the chart path knows the template has been
 * rendered. Issue 27 §3 ("template-looking text inside data is not YAML002") is about that reading.
 */
const NOT_THE_CHART_PATH: { chart: string; key: RegExp; reason: string }[] = [
  {
    chart: '*',
    key: /^templates\/.* YAML002 info$/,
    reason: '`${VAR}` text in rendered output read as an envsubst template outside ConfigMap/Secret data (YAML002)',
  },
];

/**
 * What the chart path does not read yet: content a named template prints as a YAML block it cannot expand (a
 * define's output piped through `fromYaml`; one printed with `nindent` is expanded in place).
 * Each entry must still occur (the test fails once it is fixed, so that the list only shrinks), and the in-place
 * check must say so at its line (UNREAD_DEFINE, naming the define): no gap differs silently.
 */
const KNOWN_GAPS: { chart: string; run: string; key: string; count: number; define: string; reason: string }[] = [
  ...[
    'templates/kubelet/daemonset-windows.yaml:128 WIN062 info',
    'templates/kubelet/daemonset-windows.yaml:235 WIN062 info',
  ].map((key) => ({
    chart: 'newrelic+nri-kubernetes',
    run: 'windows-unprivileged',
    key,
    count: 2,
    define: key.includes(':128')
      ? 'nriKubernetes.kubelet.resources.windows.kubelet'
      : 'nriKubernetes.kubelet.resources.windows.agent',
    reason:
      'resources are `{{- with include "nriKubernetes.kubelet.resources.windows.…" $ | fromYaml }}`: a helper the chart path does not compute',
  })),
];

interface Run {
  chart: string;
  run: string;
  files: string[];
}

const sources = readFileSync(join(CHARTS, 'SOURCES.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .filter(Boolean)
  .map((l) => l.split('\t'));
const chartDir = new Map(
  sources.map(([repo, , path]) => [repo.replace('/', '+'), join(CHARTS, repo.replace('/', '+'), path)]),
);
const runs: Run[] = readFileSync(join(VALUES, 'SWITCHES.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .filter(Boolean)
  .map((l) => {
    const [chart, run, files] = l.split('\t');
    return { chart, run, files: files === '-' ? [] : files.split(' ').map((f) => join(VALUES, f)) };
  });

test('SWITCHES.tsv: every chart fixture has its values.yaml run, every values file it names exists and each is used', () => {
  assert.deepEqual(
    [...new Set(runs.filter((r) => r.run === 'values.yaml').map((r) => r.chart))].sort(),
    [...chartDir.keys()].sort(),
  );
  for (const r of runs) for (const f of r.files) assert.ok(existsSync(f), `${r.chart} ${r.run}: ${f}`);
  const used = new Set(runs.flatMap((r) => r.files));
  const unused = readdirSync(VALUES).filter((n) => n.endsWith('.yaml') && !used.has(join(VALUES, n)));
  assert.deepEqual(unused, []);
  for (const dir of Object.values(DEPS)) assert.ok(statSync(join(dir, 'Chart.yaml')).isFile(), dir);
});

/** The findings of one side that the other does not have, as keys (a multiset difference). */
function minus(a: Placed[], b: Placed[]): Placed[] {
  const left = new Map<string, number>();
  for (const p of b) left.set(placedKey(p), (left.get(placedKey(p)) ?? 0) + 1);
  return a.filter((p) => {
    const n = left.get(placedKey(p)) ?? 0;
    if (n > 0) left.set(placedKey(p), n - 1);
    return n === 0;
  });
}

/** An in-place finding that says the template cannot decide it (src/core/helm/check.ts, mayApply). */
const MAY_APPLY = /^(WIN|OCP|LNT|YAML)\d+ \((error|warning|info)\) may apply once Helm renders the chart: /;
/** An in-place finding under a `range`: Helm renders it once per item. */
const PER_ITEM = /\(under `\{\{ range .*\}\}`: Helm renders it once per item\)$/;

/** The in-place note on a key whose content a define prints and the chart path does not expand (unread-defines.ts). */
const UNREAD_DEFINE =
  /^chart template: .* is printed by the named templates? (.*), whose YAML the chart path does not expand in place, so it is not checked here\. Check what Helm renders: helm template … \| kube-windows check -$/;

const at = (p: Placed) => `${p.file}:${p.line} ${p.ruleId}`;

/**
 * The differences that are not explained: an in-place finding that says it may apply explains the rendered findings
 * of its rule on its line (any severity, any number, none); one under a `range` stands for any positive number of the
 * same rendered finding.
 */
function unexplained(chart: string, inPlace: Placed[], rendered: Placed[]) {
  const notes = new Set(inPlace.filter((p) => MAY_APPLY.test(p.message)).map(at));
  const perItem = new Set(inPlace.filter((p) => PER_ITEM.test(p.message)).map(placedKey));
  const plain = inPlace.filter((p) => !MAY_APPLY.test(p.message));
  const byNote = rendered.filter((p) => notes.has(at(p)));
  const elsewhere = rendered.filter((p) => !notes.has(at(p)) && other(chart, p));
  const renderedLeft = rendered.filter((p) => !notes.has(at(p)) && !other(chart, p));
  const onlyInPlace = minus(plain, renderedLeft).filter((p) => !other(chart, p));
  const onlyRendered = minus(renderedLeft, plain).filter((p) => !perItem.has(placedKey(p)));
  return { onlyInPlace, onlyRendered, byNote: byNote.length, elsewhere: elsewhere.length };
}

function other(chart: string, p: Placed): boolean {
  return NOT_THE_CHART_PATH.some((x) => (x.chart === '*' || x.chart === chart) && x.key.test(placedKey(p)));
}

let helm: string | undefined;

for (const [chart, dir] of chartDir) {
  test(`real Helm: ${chart}: check in place finds what check finds on helm template's output`, (t) => {
    helm ??= helmBinary();
    for (const r of runs.filter((x) => x.chart === chart)) {
      const got = runChart(helm, dir, r.files, { deps: DEPS, kubeVersion: KUBE_VERSION });
      if ('error' in got) assert.fail(`${chart} (${r.run}): helm template failed: ${got.error}`);
      const { inPlace, rendered } = got as ChartRun;
      const { onlyInPlace, onlyRendered, byNote, elsewhere } = unexplained(chart, inPlace, rendered);
      const agree = inPlace.length - minus(inPlace, rendered).length;
      const says = inPlace.filter((p) => MAY_APPLY.test(p.message)).length;
      const unread = inPlace.filter((p) => UNREAD_DEFINE.test(p.message)).length;
      const gapCount = KNOWN_GAPS.filter((g) => g.chart === chart && g.run === r.run).reduce((n, g) => n + g.count, 0);
      t.diagnostic(
        `parity ${chart} (${r.run}): in place ${inPlace.length} (${says} saying they may apply, ${unread} saying a define is not read), rendered ${rendered.length}; the same ${agree}; rendered ones an in-place note covers ${byNote}, YAML002 on rendered \${VAR} ${elsewhere}, known gaps ${gapCount}; Windows pod specs ${got.windows.inPlace} in place, ${got.windows.rendered} rendered`,
      );
      const gaps = KNOWN_GAPS.filter((g) => g.chart === chart && g.run === r.run);
      const count = (ps: Placed[], key: string) => ps.filter((p) => placedKey(p) === key).length;
      const show = (ps: Placed[]) =>
        ps.filter((p) => !gaps.some((g) => g.key === placedKey(p))).map((p) => `${placedKey(p)}: ${p.message}`);
      assert.deepEqual(
        { onlyInPlace: show(onlyInPlace), onlyRendered: show(onlyRendered) },
        { onlyInPlace: [], onlyRendered: [] },
        `${chart} (${r.run})`,
      );
      for (const g of gaps) {
        assert.equal(count(onlyRendered, g.key), g.count, `known gap ${g.key} (${g.reason}): fixed? Update KNOWN_GAPS`);
        const note = inPlace.find(
          (p) =>
            `${p.file}:${p.line}` === g.key.split(' ')[0] && p.ruleId === 'YAML002' && UNREAD_DEFINE.test(p.message),
        );
        assert.ok(note, `known gap ${g.key}: no in-place note at its line says the define is not read`);
        assert.ok(note.message.includes(`"${g.define}"`), `${g.key}: the note names ${g.define}: ${note.message}`);
      }
    }
  });
}

/** A chart that makes its pods Windows through values, the shapes the chart path has to get right. */
const WINDOWS_BY_VALUES = {
  'Chart.yaml': 'apiVersion: v2\nname: agent\nversion: 0.1.0\n',
  'values.yaml': [
    'os: windows',
    'nodeSelector:',
    '  kubernetes.io/os: windows',
    'init:',
    '  privileged: true',
    'securityContext:',
    '  runAsUser: 1000',
    '  readOnlyRootFilesystem: true',
    'hostPID: false',
    'extraContainers: [a, b]',
    '',
  ].join('\n'),
  'templates/ds.yaml': `apiVersion: apps/v1
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
      {{- if .Values.hostPID }}
      hostPID: true
      {{- end }}
      initContainers:
        - name: init
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          securityContext:
            privileged: {{ .Values.init.privileged }}
          resources: {limits: {cpu: 100m, memory: 128Mi}}
        - name: init-default
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          securityContext:
            privileged: {{ .Values.init.missing | default true }}
          resources: {limits: {cpu: 100m, memory: 128Mi}}
      containers:
        - name: agent
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          {{- with unset .Values.securityContext "runAsUser" }}
          securityContext:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          resources: {limits: {cpu: 100m, memory: 128Mi}}
        {{- range .Values.extraContainers }}
        - name: {{ . }}
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          securityContext:
            capabilities: {}
          resources: {limits: {cpu: 100m, memory: 128Mi}}
        {{- end }}
        {{- if eq (include "agent.sidecar" .) "true" }}
        - name: sidecar
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          securityContext:
            seccompProfile: {type: RuntimeDefault}
          resources: {limits: {cpu: 100m, memory: 128Mi}}
        {{- end }}
`,
  // A helper whose output the chart path does not compute (printf): its condition stays undecided in place.
  'templates/_helpers.tpl': '{{- define "agent.sidecar" -}}{{ printf "%v" .Values.sidecar }}{{- end -}}\n',
};

test('real Helm: a chart Windows by its values: privileged init containers are WIN041 both ways; `default`, `unset`, `range` and an undecided `if` are read or said', (t) => {
  helm ??= helmBinary();
  const dir = mkdtempSync(join(tmpdir(), 'kw-helm-windows-by-values-'));
  for (const [name, text] of Object.entries(WINDOWS_BY_VALUES)) {
    mkdirSync(join(dir, dirname(name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const got = runChart(helm, dir, [], { kubeVersion: KUBE_VERSION });
  if ('error' in got) assert.fail(got.error);
  const lineOf = (needle: string, from = 0) =>
    WINDOWS_BY_VALUES['templates/ds.yaml'].split('\n').findIndex((l, i) => i >= from && l.includes(needle)) + 1;
  const rows = (ps: Placed[]) => ps.map((p) => `${p.line} ${p.ruleId} ${p.severity}`).sort();
  t.diagnostic(`in place: ${rows(got.inPlace).join(', ')}; rendered: ${rows(got.rendered).join(', ')}`);
  const privileged = [lineOf('privileged: {{ .Values.init.privileged'), lineOf('privileged: {{ .Values.init.missing')];
  for (const side of [got.inPlace, got.rendered])
    assert.deepEqual(
      side.filter((p) => privileged.includes(p.line)).map((p) => `${p.line} ${p.ruleId} ${p.severity}`),
      privileged.map((l) => `${l} WIN041 error`),
    );
  const { onlyInPlace, onlyRendered } = unexplained('windows-by-values', got.inPlace, got.rendered);
  assert.deepEqual({ onlyInPlace, onlyRendered }, { onlyInPlace: [], onlyRendered: [] });
  // The range's findings are one in place, saying Helm renders them once per item; two rendered.
  const capabilities = lineOf('capabilities: {}');
  assert.equal(got.rendered.filter((p) => p.line === capabilities).length, 2);
  assert.match(got.inPlace.find((p) => p.line === capabilities)?.message ?? '', PER_ITEM);
  // The sidecar under a helper's condition: said to be undecided in place, not rendered.
  const seccomp = lineOf('seccompProfile: {type');
  assert.match(got.inPlace.find((p) => p.line === seccomp)?.message ?? '', MAY_APPLY);
  assert.deepEqual(
    got.rendered.filter((p) => p.line === seccomp),
    [],
  );
  // `with unset …`: readOnlyRootFilesystem is rendered into the container, runAsUser is not.
  const sc = lineOf('{{- toYaml . | nindent 12 }}');
  assert.deepEqual(rows(got.inPlace.filter((p) => p.line === sc)), [`${sc} WIN040 warning`]);
});

test('real Helm: `.Capabilities.KubeVersion` conditions are decided for the release given, as `helm template --kube-version` renders them', (t) => {
  helm ??= helmBinary();
  const dir = mkdtempSync(join(tmpdir(), 'kw-helm-kube-version-'));
  const template = `apiVersion: v1
kind: Pod
metadata:
  name: agent
spec:
  nodeSelector:
    kubernetes.io/os: windows
  {{- if semverCompare ">=1.34-0" .Capabilities.KubeVersion.GitVersion }}
  hostPID: true
  {{- end }}
  {{- if eq .Capabilities.KubeVersion.Minor "30" }}
  hostNetwork: true
  {{- end }}
  containers:
    - name: agent
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
      resources: {limits: {cpu: 100m, memory: 128Mi}}
`;
  for (const [name, text] of Object.entries({
    'Chart.yaml': 'apiVersion: v2\nname: agent\nversion: 0.1.0\n',
    'values.yaml': '{}\n',
    'templates/pod.yaml': template,
  })) {
    mkdirSync(join(dir, dirname(name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const lineOf = (needle: string) => template.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const rows = (ps: Placed[]) => ps.map((p) => `${p.line} ${p.ruleId} ${p.severity}`).sort();
  const seen: Record<string, string[]> = {};
  for (const kubeVersion of ['1.30.0', '1.35.0']) {
    const got = runChart(helm, dir, [], { kubeVersion, checkRelease: true });
    if ('error' in got) assert.fail(got.error);
    t.diagnostic(`${kubeVersion}: in place ${rows(got.inPlace).join(', ')}; rendered ${rows(got.rendered).join(', ')}`);
    assert.deepEqual(rows(got.inPlace), rows(got.rendered), kubeVersion);
    assert.equal(got.inPlace.filter((p) => MAY_APPLY.test(p.message)).length, 0, kubeVersion);
    seen[kubeVersion] = rows(got.inPlace);
  }
  // Each release renders its own branch: hostNetwork on 1.30, hostPID on 1.35.
  const hostPid = lineOf('hostPID: true');
  const hostNetwork = lineOf('hostNetwork: true');
  assert.ok(
    seen['1.30.0'].some((r) => r.startsWith(`${hostNetwork} `)),
    seen['1.30.0'].join(', '),
  );
  assert.ok(!seen['1.30.0'].some((r) => r.startsWith(`${hostPid} `)), seen['1.30.0'].join(', '));
  assert.ok(
    seen['1.35.0'].some((r) => r.startsWith(`${hostPid} `)),
    seen['1.35.0'].join(', '),
  );
  assert.ok(!seen['1.35.0'].some((r) => r.startsWith(`${hostNetwork} `)), seen['1.35.0'].join(', '));
});
