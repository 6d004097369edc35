// The real charts under test/fixtures/helm/ (SOURCES.tsv): how many Windows pod specs are analysed
// with each chart's own values.yaml, and the findings judged by hand (all true: Linux-only fields
// written in Windows node plugins, and hostPID from prometheus-windows-exporter's values).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkChartTemplate, chartRootOf } from '../../src/core/helm/check';
import { loadValues } from '../../src/core/helm/values';

const ROOT = resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'helm');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.ya?ml$/.test(name) ? [p] : [];
  });
}

test('real charts: Windows pod specs analysed and every finding as judged', () => {
  let windows = 0;
  const found: string[] = [];
  const charts = new Set<string>();
  for (const file of files(ROOT)) {
    const root = chartRootOf(file, existsSync);
    if (!root) continue;
    charts.add(root);
    const values = loadValues([{ name: 'values.yaml', text: readFileSync(join(root, 'values.yaml'), 'utf8') }]);
    const result = checkChartTemplate(readFileSync(file, 'utf8'), values);
    windows += result.windowsWorkloads;
    for (const f of result.findings) if (f.ruleId !== 'YAML002') found.push(`${f.ruleId} ${f.message.split(' ')[0]}`);
  }
  assert.equal(charts.size, 12);
  assert.equal(windows, 9);
  assert.equal(found.length, 24, found.join('\n'));
  assert.ok(
    found.every((f) => /^WIN040 spec\.template\.spec\.(securityContext\.seccompProfile|hostPID|(init)?[cC]ontainers\[\d\]\.securityContext\.capabilities)$/.test(f)),
    found.join('\n'),
  );
});
