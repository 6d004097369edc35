// Real Helm as the oracle of the chart path: a chart is checked twice with the built CLI, once in place
// (`check chart/`, the templates read as they are) and once as `helm template` renders it (`check
// rendered.yaml`), and each finding on the rendered output is brought back to the template line that
// produced it: the rendered document's `# Source:` names the template, the finding's position names a
// path in that document, and the same path in the template (read as the chart path reads it) names the
// line. Findings then compare as (template, line, rule, severity).
import { spawnSync } from 'node:child_process';
import { dump as dumpYaml, load as loadYaml } from 'js-yaml';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { nodeAt } from '../../src/core/editor/node-at';
import { chartDefines } from '../../src/core/helm/defines';
import { neutralise } from '../../src/core/helm/neutralise';
import { loadValues, type ChartValues } from '../../src/core/helm/values';
import { loadDocument } from '../../src/core/manifest/document';
import { getAt, locate, spanFor, type Path } from '../../src/core/manifest/path';
import type { PNode } from '../../src/core/manifest/positional-tree';
import { splitDocuments } from '../../src/core/manifest/split';
import { LineIndex, type Range } from '../../src/core/manifest/text';

const REPO = resolve(__dirname, '..', '..', '..');
const CLI = join(REPO, 'dist', 'cli.js');

/** The cached helm binary, built from its Go module on first use (scripts/helm.mjs). */
export function helmBinary(): string {
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'helm.mjs'), '--path'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`scripts/helm.mjs could not provide helm (exit ${r.status ?? r.signal})`);
  return r.stdout.trim();
}

export interface JsonFinding {
  ruleId: string;
  severity: string;
  message: string;
  range: Range;
}

interface CheckJson {
  files: { path: string; findings: JsonFinding[] }[];
  summary: { windowsWorkloads: number };
}

function checkJson(args: string[], cwd: string): CheckJson {
  const r = spawnSync(process.execPath, [CLI, 'check', ...args, '--format', 'json'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0 && r.status !== 1) throw new Error(`check ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout) as CheckJson;
}

/** Where the dependency charts a fixture chart needs are (vendored under test/fixtures/helm-deps, SOURCES.tsv). */
export type DependencyDirs = Record<string, string>;

/**
 * The chart as `helm template` can read it: a copy with the dependencies Chart.yaml names put under charts/
 * (Helm refuses a chart whose dependencies are missing, even disabled ones). A dependency that the values
 * disable (its `condition` false) is dropped from the copy's Chart.yaml, as Helm would leave it out anyway; one
 * the values enable must be in `deps`.
 */
function renderable(chartDir: string, values: ChartValues, deps: DependencyDirs): string {
  const chart = loadYaml(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as {
    dependencies?: { name: string; alias?: string; condition?: string }[];
  };
  if (!chart.dependencies?.length) return chartDir;
  const copy = join(mkdtempSync(join(tmpdir(), 'kw-helm-chart-')), basename(chartDir));
  cpSync(chartDir, copy, { recursive: true });
  const kept = chart.dependencies.filter((d) => {
    if (deps[d.name]) {
      cpSync(deps[d.name], join(copy, 'charts', d.name), { recursive: true });
      return true;
    }
    const enabled = d.condition
      ?.split(',')
      .map((c) => getAt(values.value, c.trim().split('.')))
      .find((v) => typeof v === 'boolean');
    if (enabled === false) return false;
    throw new Error(
      `${basename(chartDir)}: dependency ${d.name} is enabled and not vendored (test/fixtures/helm-deps)`,
    );
  });
  writeFileSync(join(copy, 'Chart.yaml'), dumpYaml({ ...chart, dependencies: kept }));
  return copy;
}

/**
 * `helm template --output-dir` of a chart with its values.yaml and these files after it: the folder holding one
 * rendered file per template (`<chart name>/templates/…`), or Helm's error.
 */
export function renderChart(
  helm: string,
  chartDir: string,
  valueFiles: string[],
  kubeVersion: string,
): { dir?: string; error?: string } {
  const home = mkdtempSync(join(tmpdir(), 'kw-helm-home-'));
  const out = join(home, 'rendered');
  const r = spawnSync(
    helm,
    [
      'template',
      'kw',
      chartDir,
      '--namespace',
      'kw',
      '--kube-version',
      kubeVersion,
      '--output-dir',
      out,
      ...valueFiles.flatMap((f) => ['--values', f]),
    ],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      // Nothing from the user's Helm setup (repositories, plugins) takes part.
      env: {
        PATH: process.env.PATH,
        HOME: home,
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
      },
    },
  );
  return r.status === 0 ? { dir: out } : { error: (r.stderr || `exit ${r.status}`).trim() };
}

/** One finding, placed on a template line (1-based). */
export interface Placed {
  file: string;
  line: number;
  ruleId: string;
  severity: string;
  message: string;
}

export const placedKey = (p: Placed) => `${p.file}:${p.line} ${p.ruleId} ${p.severity}`;

export interface ChartRun {
  inPlace: Placed[];
  rendered: Placed[];
  /** Rendered findings whose path the template does not hold (placed on the nearest key that it does). */
  unplaced: number;
  windows: { inPlace: number; rendered: number };
}

/**
 * Both checks of one chart with `valueFiles` after its values.yaml. Only findings on the chart's own
 * templates count (a subchart's are Helm's to render and not in the fixture).
 */
export function runChart(
  helm: string,
  chartDir: string,
  valueFiles: string[],
  {
    deps = {},
    kubeVersion = '1.35.0',
    checkRelease = false,
  }: {
    deps?: DependencyDirs;
    kubeVersion?: string;
    /** Both checks are for the release Helm renders for (`check --kubernetes-version`). */
    checkRelease?: boolean;
  } = {},
): ChartRun | { error: string } {
  const release = checkRelease ? ['--kubernetes-version', kubeVersion.split('.').slice(0, 2).join('.')] : [];
  const values: ChartValues = loadValues([
    { name: 'values.yaml', text: readFileSync(join(chartDir, 'values.yaml'), 'utf8') },
    ...valueFiles.map((f) => ({ name: basename(f), text: readFileSync(f, 'utf8') })),
  ]);
  // The chart's named templates, as `check` reads them, so that template lines are found as the chart path finds them.
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : /\.(ya?ml|tpl)$/.test(e.name) ? [join(dir, e.name)] : [],
    );
  values.defines = chartDefines(walk(join(chartDir, 'templates')).map((f) => readFileSync(f, 'utf8')));
  const rendered = renderChart(helm, renderable(chartDir, values, deps), valueFiles, kubeVersion);
  if (rendered.dir === undefined) return { error: rendered.error ?? 'helm template failed' };

  const own = checkJson([chartDir, ...valueFiles.flatMap((f) => ['--helm-values', f]), ...release], REPO);
  const inPlace: Placed[] = own.files
    .filter((f) => isTemplate(relative(chartDir, resolve(REPO, f.path))))
    .flatMap((f) =>
      f.findings.map((x) => ({
        file: relative(chartDir, resolve(REPO, f.path)),
        line: x.range.start.line + 1,
        ruleId: x.ruleId,
        severity: x.severity,
        message: x.message,
      })),
    );

  // The chart's own templates, one rendered file each (a subchart's are under charts/ and not compared).
  const templates = join(rendered.dir, readdirSync(rendered.dir)[0], 'templates');
  const out = existsSync(templates)
    ? checkJson([templates, ...release], REPO)
    : { files: [], summary: { windowsWorkloads: 0 } };
  const placer = new Placer(chartDir, values);
  const placedRendered = out.files.flatMap((f) => {
    const source = join('templates', relative(templates, resolve(REPO, f.path)));
    const text = readFileSync(resolve(REPO, f.path), 'utf8');
    return f.findings.map((x) => ({
      ...placer.place(source, text, x.range),
      ruleId: x.ruleId,
      severity: x.severity,
      message: x.message,
    }));
  });
  return {
    inPlace,
    rendered: placedRendered,
    unplaced: placer.unplaced,
    windows: { inPlace: own.summary.windowsWorkloads, rendered: out.summary.windowsWorkloads },
  };
}

const isTemplate = (rel: string) => /^templates[\\/]/.test(rel);

/**
 * The path in the template for a path in the rendered document: itself when the template holds it, else with a
 * list index lowered until it does (items a `range` repeats, or that come after them, are fewer in the template).
 */
function templatePath(tree: PNode | undefined, path: Path): Path {
  const holds = (p: Path) => locate(tree, p).depth === p.length;
  if (holds(path)) return path;
  for (let i = path.length - 1; i >= 0; i--) {
    const index = path[i];
    if (typeof index !== 'number') continue;
    for (let k = index - 1; k >= 0; k--) {
      const lower = [...path.slice(0, i), k, ...path.slice(i + 1)];
      if (holds(lower)) return lower;
    }
  }
  return path;
}

/** Brings positions in `helm template` output back to template lines. */
class Placer {
  unplaced = 0;
  private readonly templates = new Map<string, { text: string; neutral: ReturnType<typeof neutralise> }>();

  constructor(
    private readonly chartDir: string,
    private readonly values: ChartValues,
  ) {}

  /** The template line of a position in the rendered file of template `source` (line 0: not placed). */
  place(source: string, rendered: string, range: Range): { file: string; line: number } {
    const offset = new LineIndex(rendered).offsetAt(range.start);
    const spans = splitDocuments(rendered);
    const index = spans.findIndex((d) => offset >= d.start && offset < d.end);
    const kindOf = (i: number) => {
      const doc = loadDocument(rendered, spans[i], i);
      return doc?.status === 'ok' ? String((doc.value as { kind?: unknown })?.kind) : undefined;
    };
    const kind = index === -1 ? undefined : kindOf(index);
    // The nth document of that kind in the rendered file is the nth one of that kind in the template.
    let nth = 0;
    for (let i = 0; i < index; i++) if (kindOf(i) === kind) nth++;
    const node = nodeAt(rendered, offset);
    // In the file Helm names or, when that file only includes a `define` holding the whole manifest, in the
    // .tpl file that defines it.
    const found =
      this.documentIn(source, kind, nth) ??
      this.tplFiles()
        .map((f) => this.documentIn(f, kind, 0))
        .find(Boolean);
    const span = found && node ? spanFor(found.tree, templatePath(found.tree, node.path), node.target) : undefined;
    if (!found || !span) {
      this.unplaced++;
      return { file: source, line: 0 };
    }
    const t = this.template(found.file);
    const neutralLine = new LineIndex(t.neutral.text).positionAt(span.start + found.start).line;
    return { file: found.file, line: (t.neutral.lines[neutralLine]?.tplLine ?? neutralLine) + 1 };
  }

  private documentIn(file: string, kind: string | undefined, nth: number) {
    const text = this.template(file).neutral.text;
    const docs = splitDocuments(text)
      .map((span, i) => ({ span, doc: loadDocument(text, span, i) }))
      .filter((c) => c.doc?.status === 'ok' && String((c.doc.value as { kind?: unknown })?.kind) === kind);
    const hit = docs[Math.min(nth, docs.length - 1)];
    return hit?.doc ? { file, start: hit.span.start, tree: hit.doc.tree() } : undefined;
  }

  private tplFiles(): string[] {
    const walk = (dir: string): string[] =>
      readdirSync(join(this.chartDir, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.tpl') ? [join(dir, e.name)] : [],
      );
    return (this.tpls ??= walk('templates'));
  }

  private tpls?: string[];

  private template(source: string) {
    let t = this.templates.get(source);
    if (!t) {
      const text = readFileSync(join(this.chartDir, source), 'utf8');
      t = { text, neutral: neutralise(text, this.values) };
      this.templates.set(source, t);
    }
    return t;
  }
}
