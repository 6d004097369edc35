// Chart templates in the editor: the same check as `kube-windows check`, with the chart's values.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { openManifest } from '../core/manifest/document';
import { splitDocuments } from '../core/manifest/split';
import { checkChartTemplate, chartRootOf } from '../core/helm/check';
import { chartDefines } from '../core/helm/defines';
import { loadValues, type ChartValues } from '../core/helm/values';
import type { CheckOptions } from '../core/rules/checker';
import type { Analysis } from './analysis';
import { uriPath } from './uri';

/** The chart folder of a file: URI under a chart's templates/, or undefined. */
export function chartOfUri(uri: string): string | undefined {
  const path = uriPath(uri);
  return path === undefined ? undefined : chartRootOf(path, existsSync);
}

const cache = new Map<string, { stamp: string; values: ChartValues }>();

/** The chart's template files (named templates live in any of them, `_helpers.tpl` first of all). */
function templateFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? templateFiles(join(dir, e.name)) : /\.(ya?ml|tpl)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** The chart's values and named templates, read again only when one of their files changed on disk. */
function chartValues(root: string, extra: string[]): ChartValues {
  const files = [join(root, 'values.yaml'), ...extra.map((f) => (isAbsolute(f) ? f : join(root, f)))].filter((f) =>
    existsSync(f),
  );
  const templates = templateFiles(join(root, 'templates'));
  const stamp = [...files, ...templates].map((f) => `${f}:${statSync(f).mtimeMs}`).join('|');
  const have = cache.get(root);
  if (have && have.stamp === stamp) return have.values;
  const values = {
    ...loadValues(files.map((f) => ({ name: basename(f), text: readFileSync(f, 'utf8') }))),
    defines: chartDefines(templates.map((f) => readFileSync(f, 'utf8'))),
  };
  cache.set(root, { stamp, values });
  return values;
}

export type ChartAnalysis = Analysis & { unchecked: ReturnType<typeof checkChartTemplate>['unchecked'] };

export function analyseChartTemplate(
  root: string,
  text: string,
  version: number,
  valuesFiles: string[],
  options: CheckOptions,
): ChartAnalysis {
  let values: ChartValues | undefined;
  try {
    values = chartValues(root, valuesFiles);
  } catch {
    values = undefined; // unreadable values: the template is still checked, nothing is put in
  }
  const result = checkChartTemplate(text, values, options);
  return {
    version,
    text,
    file: openManifest(text),
    findings: result.findings,
    documents: splitDocuments(text).map((span, index) => ({ index, span })),
    workloads: result.workloads,
    windowsWorkloads: result.windowsWorkloads,
    rechecked: result.documents,
    ruleErrors: result.ruleErrors,
    unchecked: result.unchecked,
  };
}
