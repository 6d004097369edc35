// Which input files are Helm chart templates, and the values each chart is read with.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { chartRootOf, neutralText } from '../core/helm/check';
import { loadValues, type ChartValues, type ValuesSource } from '../core/helm/values';
import { UsageError } from './kit';
import type { InputFile } from './files';

export interface ChartTemplates {
  of(file: InputFile): { values: ChartValues; neutral: string } | undefined;
  /**
   * A file beside a Chart.yaml (values.yaml, ci/ values…): data, whose `{{ }}` and `${VAR}` strings are not templates.
   */
  isChartData(file: InputFile): boolean;
  problems: string[];
}

export function chartTemplates(texts: { file: InputFile; text?: string }[], valueFiles: string[]): ChartTemplates {
  const extra: ValuesSource[] = valueFiles.map((path) => {
    try {
      return { name: basename(path), text: readFileSync(path, 'utf8') };
    } catch (err) {
      throw new UsageError(`--helm-values ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  });
  const byRoot = new Map<string, ChartValues>();
  const byFile = new Map<InputFile, { values: ChartValues; neutral: string }>();
  const problems: string[] = [];
  for (const t of texts) {
    if (!t.file.absolute || t.text === undefined) continue;
    const root = chartRootOf(t.file.absolute, existsSync);
    if (!root) continue;
    let values = byRoot.get(root);
    if (!values) {
      const own = join(root, 'values.yaml');
      values = loadValues([
        ...(existsSync(own) ? [{ name: 'values.yaml', text: readFileSync(own, 'utf8') }] : []),
        ...extra,
      ]);
      problems.push(...values.problems);
      byRoot.set(root, values);
    }
    byFile.set(t.file, { values, neutral: neutralText(t.text, values) });
  }
  const isChartData = (file: InputFile) => {
    if (!file.absolute) return false;
    const dir = dirname(file.absolute);
    return existsSync(join(basename(dir) === 'ci' ? dirname(dir) : dir, 'Chart.yaml'));
  };
  return { of: (file) => byFile.get(file), isChartData, problems };
}
