// The real charts under test/fixtures/helm/ (SOURCES.tsv), each checked twice: with its own
// values.yaml, and with the switches that turn its Windows workloads on (test/fixtures/helm-values/).
// Per chart the Windows pod specs analysed and the findings are pinned; every finding has a verdict
// judged by hand in test/fixtures/helm/VERDICTS.tsv. DUMP_FINDINGS=1 prints the rows to judge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { checkChartTemplate, chartRootOf } from '../../src/core/helm/check';
import { loadValues, type ValuesSource } from '../../src/core/helm/values';

const FIXTURES = resolve(__dirname, '..', '..', '..', 'test', 'fixtures');
const ROOT = join(FIXTURES, 'helm');
const SWITCHES = join(FIXTURES, 'helm-values');

/** Per chart folder: Windows pod specs analysed and findings, with values.yaml / with the Windows switches. */
const EXPECTED: Record<string, { windows: [number, number]; findings: [number, number] }> = {
  'Azure+secrets-store-csi-driver-provider-azure': { windows: [0, 1], findings: [0, 0] },
  'DataDog+helm-charts': { windows: [0, 1], findings: [0, 8] },
  'antrea-io+antrea': { windows: [1, 1], findings: [0, 0] },
  'aws+aws-node-termination-handler': { windows: [0, 1], findings: [0, 5] },
  'aws-observability+helm-charts': { windows: [1, 1], findings: [0, 0] },
  'kubernetes-csi+csi-driver-smb': { windows: [1, 2], findings: [4, 7] },
  'kubernetes-sigs+aws-ebs-csi-driver': { windows: [1, 1], findings: [4, 4] },
  'kubernetes-sigs+azuredisk-csi-driver': { windows: [1, 1], findings: [4, 7] },
  'kubernetes-sigs+azurefile-csi-driver': { windows: [1, 1], findings: [4, 7] },
  'kubernetes-sigs+cloud-provider-azure': { windows: [1, 1], findings: [0, 0] },
  'kubernetes-sigs+secrets-store-csi-driver': { windows: [0, 1], findings: [0, 0] },
  'microsoft+Docker-Provider': { windows: [0, 1], findings: [0, 1] },
  'newrelic+helm-charts': { windows: [0, 1], findings: [0, 1] },
  'newrelic+nri-kubernetes': { windows: [0, 1], findings: [0, 5] },
  'prometheus-community+helm-charts': { windows: [1, 1], findings: [1, 1] },
  'signalfx+splunk-otel-collector-chart': { windows: [0, 2], findings: [0, 4] },
};

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? files(p) : /\.(ya?ml|tpl)$/.test(name) ? [p] : [];
    });
}

interface Row {
  chart: string;
  values: 'default' | 'windows';
  file: string;
  at: string;
  ruleId: string;
  subject: string;
}

const key = (r: Row) => [r.chart, r.values, r.file, r.at, r.ruleId, r.subject].join('\t');

function checkChart(chart: string, mode: Row['values']) {
  const rows: Row[] = [];
  let windows = 0;
  let templates = 0;
  const switches = join(SWITCHES, `${chart}.yaml`);
  const extra: ValuesSource[] =
    mode === 'windows' && existsSync(switches) ? [{ name: `${chart}.yaml`, text: readFileSync(switches, 'utf8') }] : [];
  for (const file of files(join(ROOT, chart))) {
    const root = chartRootOf(file, existsSync);
    if (!root) continue;
    templates++;
    const values = loadValues([
      { name: 'values.yaml', text: readFileSync(join(root, 'values.yaml'), 'utf8') },
      ...extra,
    ]);
    const result = checkChartTemplate(readFileSync(file, 'utf8'), values);
    windows += result.windowsWorkloads;
    for (const f of result.findings) {
      rows.push({
        chart,
        values: mode,
        file: relative(join(ROOT, chart), file),
        at: `${f.range.start.line + 1}:${f.range.start.character + 1}`,
        ruleId: f.ruleId,
        subject: f.message.split(' ')[0],
      });
    }
  }
  return { rows, windows, templates };
}

const charts = readdirSync(ROOT).filter((d) => statSync(join(ROOT, d)).isDirectory());
const runs = charts.map((chart) => ({
  chart,
  default: checkChart(chart, 'default'),
  windows: checkChart(chart, 'windows'),
}));

test('every chart fixture has a source line, and every Windows switch file a chart', () => {
  const sources = readFileSync(join(ROOT, 'SOURCES.tsv'), 'utf8').split('\n').slice(1).filter(Boolean);
  const listed = sources.map((l) => {
    const [repo, commit, path, licence] = l.split('\t');
    assert.match(commit, /^[0-9a-f]{40}$/, l);
    assert.match(licence, /^(MIT|Apache-2\.0)$/, l);
    assert.ok(existsSync(join(ROOT, repo.replace('/', '+'), path, 'Chart.yaml')), `${l}: no Chart.yaml there`);
    return repo.replace('/', '+');
  });
  assert.deepEqual([...listed].sort(), [...charts].sort());
  assert.ok(charts.length >= 15, `only ${charts.length} charts`);
  // `<chart>.yaml` turns its Windows workloads on; `<chart>.<what>.yaml` (required values, a variant) serve the
  // runs of SWITCHES.tsv (test/cli/helm-parity.test.ts).
  for (const f of readdirSync(SWITCHES).filter((n) => n.endsWith('.yaml')))
    assert.ok(charts.includes(f.replace(/(\.[a-z-]+)?\.yaml$/, '')), f);
});

test('real charts: Windows pod specs analysed and findings per chart, with values.yaml and with the Windows switches', (t) => {
  const got = Object.fromEntries(
    runs.map((r) => [
      r.chart,
      { windows: [r.default.windows, r.windows.windows], findings: [r.default.rows.length, r.windows.rows.length] },
    ]),
  );
  const total = (mode: 'default' | 'windows') => runs.reduce((n, r) => n + r[mode].windows, 0);
  t.diagnostic(
    `${runs.reduce((n, r) => n + r.default.templates, 0)} templates; Windows pod specs: ${total('default')} with values.yaml, ${total('windows')} with the Windows switches`,
  );
  if (process.env.DUMP_FINDINGS) {
    t.diagnostic(JSON.stringify(got));
    for (const r of runs) for (const row of [...r.default.rows, ...r.windows.rows]) t.diagnostic(key(row));
  }
  assert.deepEqual(got, EXPECTED);
});

test('real charts: every finding as judged in VERDICTS.tsv, none judged false', () => {
  const lines = readFileSync(join(ROOT, 'VERDICTS.tsv'), 'utf8').split('\n').slice(1).filter(Boolean);
  const judged = new Map<string, { verdict: string; reason: string }>();
  for (const line of lines) {
    const cols = line.split('\t');
    assert.equal(cols.length, 8, line);
    const [verdict, reason] = cols.slice(6);
    assert.ok(verdict === 'true' || verdict === 'false', line);
    assert.ok(reason.length > 20, `every verdict needs a reason: ${line}`);
    judged.set(cols.slice(0, 6).join('\t'), { verdict, reason });
  }
  const found = runs.flatMap((r) => [...r.default.rows, ...r.windows.rows]).map(key);
  assert.deepEqual(
    found.filter((k) => !judged.has(k)),
    [],
    'findings without a verdict',
  );
  assert.deepEqual(
    found.filter((k) => judged.get(k)?.verdict === 'false'),
    [],
    'findings judged false are reported',
  );
  assert.deepEqual(
    [...judged.keys()].filter((k) => judged.get(k)?.verdict === 'true' && !found.includes(k)),
    [],
    'findings judged true are gone',
  );
});
