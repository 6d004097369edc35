// Which input files are Helm chart templates, and the values each chart is read with.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { chartRootOf, neutralText } from '../core/helm/check';
import { chartDefines } from '../core/helm/defines';
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
  const templates = texts.flatMap((t) => {
    const root = t.file.absolute && t.text !== undefined ? chartRootOf(t.file.absolute, existsSync) : undefined;
    return root && t.text !== undefined ? [{ file: t.file, text: t.text, root }] : [];
  });
  for (const t of templates) {
    let values = byRoot.get(t.root);
    if (!values) {
      const own = join(t.root, 'values.yaml');
      values = {
        ...loadValues([
          ...(existsSync(own) ? [{ name: 'values.yaml', text: readFileSync(own, 'utf8') }] : []),
          ...extra,
        ]),
        // The named templates of the chart's files being checked (its _helpers.tpl among them).
        defines: chartDefines(templates.filter((o) => o.root === t.root).map((o) => o.text)),
      };
      problems.push(...values.problems);
      byRoot.set(t.root, values);
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
