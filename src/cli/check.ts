// `kube-windows check` (Windows compatibility findings in manifests, the main job) and
// `kube-windows rules` (the rule catalogue).
import { version } from '../../package.json';
import { checkText, gatherFacts, type CheckOptions } from '../core/rules/checker';
import { fixText } from '../core/rules/fix';
import { RULES } from '../core/rules/registry';
import { DEFAULT_MAX_BYTES } from '../core/manifest/document';
import { SEVERITY_RANK, type Severity } from '../core/rules/types';
import type { ClusterSnapshot, Flavour } from '../core/rules/facts';
import { parseOpenShiftRelease, withOpenShiftRelease } from '../core/openshift/windows-support';
import { checkChartTemplate } from '../core/helm/check';
import { chartTemplates } from './helm';
import { expandInputs, readText, writeFileAtomic, type InputFile } from './files';
import { CLUSTER_HELP, CLUSTER_OPTIONS, EXIT, EXIT_CODES_HELP, HELP_OPTION, oneOf, parse, positiveInteger, positiveNumber, refuse, UsageError, userMessage, warn } from './kit';
import { formatJson, formatLiveJson, formatLiveSarif, formatLiveText, formatSarif, formatText, ruleExists, summarize, type FileReport } from './report';
import { checkLive } from '../core/live/check';
import { SIGNATURES } from '../core/live/signatures';
import { readSnapshotText } from '../core/live/snapshot-file';
import { readClusterSnapshot, readLiveState } from '../cluster/live';

const FORMATS = ['text', 'json', 'sarif'] as const;

export const CHECK_OPTIONS_HELP = `check options:
  --format text|json|sarif   output format (default text)
  --min-severity LEVEL       report only findings at or above info|warning|error (default info);
                             any reported finding makes the exit code 1
  --enable RULE[,RULE]       run only these rules (repeatable)
  --disable RULE[,RULE]      do not run these rules (repeatable)
  --flavour auto|openshift|kubernetes
                             cluster flavour for OpenShift-only rules (default auto)
  --openshift-version 4.N    check against this OpenShift release's Windows support (platforms,
                             Windows Server versions); implies --flavour openshift
  --fix                      apply safe fixes in place (atomically), then report what is left
  --max-file-size MIB        skip files larger than this (default ${DEFAULT_MAX_BYTES / 1048576})
  --no-color                 plain text output
  --helm-values FILE         values for Helm chart templates, over the chart's values.yaml
                             (repeatable; later files win, as with helm -f)
  --snapshot FILE            check the files against a cluster's facts saved by "kube-windows snapshot"
                             (node builds, taints, RuntimeClasses, OpenShift or not), offline

What is deployed (no paths): the live objects of a cluster, located by object and field path, and
the failing Windows pods explained (failure signatures WINF001 ...):
  --context C                the kubeconfig context of the cluster (with paths: check the files
                             against that cluster's facts instead)
  --kubeconfig FILE          default: KUBECONFIG, then ~/.kube/config
  -n, --namespace NS         one namespace (default: the context's namespace, else default)
  -A, --all-namespaces       every namespace
  --chunk-size N             objects per list page (default 500, as kubectl)

Directories are walked for *.yaml and *.yml, and *.tpl under a chart's templates/ (node_modules and
.git skipped); "-" reads standard input.
A file under a chart's templates/ folder (beside Chart.yaml) is checked with its template actions set
aside; values a template action computes are not checked.`;

const CHECK_HELP = `Usage:
  kube-windows check [options] [paths | globs | -]...
  kube-windows check --context C [--kubeconfig F] [-n NS | -A] [--format text|json|sarif]
  kube-windows check --snapshot facts.json [options] [paths | globs | -]...

${CHECK_OPTIONS_HELP}
${EXIT_CODES_HELP}`;

const RULES_HELP = `Usage:
  kube-windows rules [--format text|json] [--failures]

Lists every rule: id, default severity, title (json adds the family). With --failures, the failure
signatures the live check explains pods with (json adds cause, fix, source and recorded texts).
${EXIT_CODES_HELP}`;

function listOption(values: string[] | undefined): string[] {
  const out: string[] = [];
  for (const v of values ?? []) for (const id of v.split(',')) if (id.trim()) out.push(id.trim().toUpperCase());
  for (const id of out) if (!ruleExists(id)) throw new UsageError(`unknown rule "${id}"; "kube-windows rules" lists them`);
  return out;
}

/**
 * `--openshift-version 4.N`: the release the Windows support table is read for, offline. It names an
 * OpenShift cluster, so it cannot go with --flavour kubernetes. (A future live snapshot keeps its
 * other facts; the release given here wins over the one it reports: see withOpenShiftRelease.)
 */
function openshiftRelease(value: string | undefined, flavour: Flavour): ClusterSnapshot | undefined {
  if (value === undefined) return undefined;
  const release = parseOpenShiftRelease(value);
  if (!release || release.major < 4) throw new UsageError(`--openshift-version must be an OpenShift 4 (or later) release such as 4.16, not "${value}"`);
  if (flavour === 'kubernetes') throw new UsageError('--openshift-version names an OpenShift release; it cannot be used with --flavour kubernetes');
  return withOpenShiftRelease(undefined, release);
}

const CHECK_OPTIONS_SPEC = {
  ...HELP_OPTION,
  format: { type: 'string' },
  'min-severity': { type: 'string' },
  enable: { type: 'string', multiple: true },
  disable: { type: 'string', multiple: true },
  flavour: { type: 'string' },
  'openshift-version': { type: 'string' },
  fix: { type: 'boolean', default: false },
  'max-file-size': { type: 'string' },
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  snapshot: { type: 'string' },
  context: { type: 'string' },
  kubeconfig: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  'chunk-size': { type: 'string' },
  'helm-values': { type: 'string', multiple: true },
} as const;

export function runCheck(args: string[]): number | Promise<number> {
  const { values, positionals } = parseCheckArgs(args);
  if (values.help) {
    process.stdout.write(CHECK_HELP);
    return EXIT.OK;
  }
  const format = oneOf('format', values.format, FORMATS) ?? 'text';
  const minSeverity: Severity = oneOf('min-severity', values['min-severity'], ['info', 'warning', 'error']) ?? 'info';
  const flavour: Flavour = oneOf('flavour', values.flavour, ['auto', 'openshift', 'kubernetes']) ?? 'auto';
  const color = values['no-color'] ? false : (values.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR));
  if (values.namespace !== undefined && values['all-namespaces']) throw new UsageError('-n/--namespace and -A/--all-namespaces cannot be used together');
  if (values.context === undefined) {
    refuse(values.namespace, '-n/--namespace needs --context (it names a namespace of the cluster to check)');
    refuse(values['all-namespaces'], '-A/--all-namespaces needs --context (it checks every namespace of the cluster)');
    refuse(values.kubeconfig, '--kubeconfig needs --context');
    refuse(values['chunk-size'], '--chunk-size needs --context (it sizes the pages of the cluster lists)');
  } else {
    refuse(values.snapshot, '--snapshot and --context cannot be used together: --snapshot checks files offline against saved facts');
    if (positionals.length === 0) {
      refuse(values.fix, '--fix rewrites files; the live objects of a cluster are not changed');
      refuse(values['openshift-version'], '--openshift-version is for files; the cluster says which release it runs');
      return runLiveCheck(values, format, minSeverity, flavour, color);
    }
    refuse(values.namespace, '-n/--namespace is for the live check (no paths); with paths the files are checked');
    refuse(values['all-namespaces'], '-A/--all-namespaces is for the live check (no paths); with paths the files are checked');
  }
  if (values.context !== undefined || values.snapshot !== undefined) {
    if (values['openshift-version'] !== undefined) throw new UsageError('--openshift-version cannot be used with --snapshot or --context: the snapshot says which release the cluster runs');
    const saved = values.snapshot !== undefined ? snapshotFile(values.snapshot) : undefined;
    const live = saved ? Promise.resolve(saved) : liveSnapshot(values);
    return live.then((snapshot) => checkFiles(values, positionals, format, minSeverity, flavour, color, snapshot));
  }
  return checkFiles(values, positionals, format, minSeverity, flavour, color, openshiftRelease(values['openshift-version'], flavour));
}

type CheckValues = ReturnType<typeof parseCheckArgs>['values'];

function parseCheckArgs(args: string[]) {
  return parse(args, CHECK_OPTIONS_SPEC, true);
}

function snapshotFile(path: string): ClusterSnapshot {
  const { files, errors } = expandInputs([path]);
  const file = files[0];
  if (errors.length > 0 || !file) throw new UsageError(`--snapshot ${path}: ${errors[0] ?? 'not found'}`);
  const r = readText(file, DEFAULT_MAX_BYTES);
  if (r.error || r.text === undefined) throw new UsageError(`--snapshot ${path}: ${r.error ?? 'too large'}`);
  const read = readSnapshotText(r.text);
  if (!read.ok) throw new UsageError(`--snapshot ${path} ${read.message}`);
  return read.snapshot;
}

// Loaded on demand: checking files needs no Kubernetes client (see kit-remote.ts).
const clusterFor = async (values: { context?: string; kubeconfig?: string }) => (await import('./kit-remote')).clusterFor(values);

async function liveSnapshot(values: { context?: string; kubeconfig?: string }): Promise<ClusterSnapshot> {
  const cluster = await clusterFor(values);
  try {
    return await readClusterSnapshot(cluster.kube, { context: cluster.context });
  } catch (err) {
    throw new UsageError(userMessage(err, cluster.context));
  }
}

async function runLiveCheck(values: CheckValues, format: (typeof FORMATS)[number], minSeverity: Severity, flavour: Flavour, color: boolean): Promise<number> {
  const cluster = await clusterFor(values);
  const namespace = values['all-namespaces'] ? undefined : (values.namespace ?? cluster.namespace ?? 'default');
  let state;
  try {
    const pageSize = positiveInteger('chunk-size', values['chunk-size']);
    state = await readLiveState(cluster.kube, { context: cluster.context, ...(namespace !== undefined ? { namespace } : {}), ...(pageSize ? { pageSize } : {}), partial: true });
  } catch (err) {
    throw new UsageError(userMessage(err, cluster.context));
  }
  const report = checkLive(state, {
    check: { only: listOption(values.enable as string[] | undefined), disable: listOption(values.disable as string[] | undefined) },
    flavour,
    minSeverity,
  });
  for (const e of report.ruleErrors) warn(`rule ${e.ruleId} failed (${e.message}); please report this`);
  // A kind the user may not list: said once, the rest is checked (as the VS Code view does).
  for (const u of state.unread ?? []) warn(`${u.what} not read: ${u.message}`);
  process.stdout.write(format === 'json' ? formatLiveJson(report, state.unread) : format === 'sarif' ? formatLiveSarif(report, version) : formatLiveText(report, cluster.context, color));
  const s = report.summary;
  return s.errors + s.warnings + s.infos > 0 ? EXIT.FAILED : EXIT.OK;
}

function checkFiles(
  values: CheckValues,
  positionals: string[],
  format: (typeof FORMATS)[number],
  minSeverity: Severity,
  flavour: Flavour,
  color: boolean,
  cluster: ClusterSnapshot | undefined,
): number {
  const mib = positiveNumber('max-file-size', values['max-file-size']);
  const maxBytes = mib === undefined ? DEFAULT_MAX_BYTES : Math.floor(mib * 1048576);
  const inputs = positionals.length > 0 ? positionals : ['.'];
  if (values.fix && inputs.includes('-')) throw new UsageError('--fix cannot rewrite standard input; pass file paths');

  const { files, errors } = expandInputs(inputs);
  let ioError = errors.length > 0;
  for (const e of errors) warn(e);

  // Read everything first: cross-file facts (RuntimeClasses, Namespaces) feed every check.
  const texts: { file: InputFile; text?: string; skipped?: string }[] = [];
  for (const file of files) {
    const r = readText(file, maxBytes);
    if (r.error) {
      warn(`${file.path}: ${r.error}`);
      ioError = true;
      continue;
    }
    if (r.tooLarge !== undefined) {
      texts.push({ file, skipped: `file is ${(r.tooLarge / 1048576).toFixed(1)} MiB, over the ${(maxBytes / 1048576).toFixed(0)} MiB limit (--max-file-size); it was not analysed` });
      continue;
    }
    texts.push({ file, text: r.text });
  }
  const charts = chartTemplates(texts, (values['helm-values'] as string[] | undefined) ?? []);
  for (const p of charts.problems) warn(p);
  const facts = gatherFacts(
    texts.flatMap((t) => (t.text === undefined ? [] : [charts.of(t.file)?.neutral ?? t.text])),
    flavour,
    cluster,
  );
  const options: CheckOptions = {
    only: listOption(values.enable as string[] | undefined),
    disable: listOption(values.disable as string[] | undefined),
    flavour,
    cluster,
    facts,
    load: { maxBytes },
  };

  const reports: FileReport[] = [];
  const counts = { documents: 0, workloads: 0, windowsWorkloads: 0 };
  let fixesApplied = 0;
  const threshold = SEVERITY_RANK[minSeverity];
  for (const t of texts) {
    if (t.text === undefined) {
      reports.push({ path: t.file.path, findings: [], skipped: t.skipped });
      continue;
    }
    const chart = charts.of(t.file);
    const dataOptions = charts.isChartData(t.file) ? { ...options, load: { ...options.load, templateSyntax: false } } : options;
    let result = chart ? checkChartTemplate(t.text, chart.values, options) : checkText(t.text, dataOptions);
    if (!chart && values.fix && t.file.absolute && result.findings.some((f) => f.fixes.length > 0)) {
      const fixed = fixText(t.text, options);
      if (fixed.applied > 0 && fixed.text !== t.text) {
        const err = writeFileAtomic(t.file.absolute, fixed.text);
        if (err) {
          warn(`${t.file.path}: fixes not written: ${err}; the file is unchanged`);
          ioError = true;
        } else {
          fixesApplied += fixed.applied;
          result = fixed.result;
        }
      }
    }
    for (const e of result.ruleErrors) {
      warn(`${t.file.path}: rule ${e.ruleId} failed (${e.message}); please report this`);
    }
    counts.documents += result.documents;
    counts.workloads += result.workloads;
    counts.windowsWorkloads += result.windowsWorkloads;
    const findings = result.findings.filter((f) => SEVERITY_RANK[f.severity] >= threshold);
    reports.push({ path: t.file.path, findings, ...(result.skipped ? { skipped: result.skipped } : {}) });
  }

  const summary = summarize(reports, counts);
  if (values.fix) summary.fixesApplied = fixesApplied;
  const out = format === 'json' ? formatJson(reports, summary) : format === 'sarif' ? formatSarif(reports, version) : formatText(reports, summary, color);
  process.stdout.write(out);
  if (ioError) return EXIT.USAGE;
  return summary.findings > 0 ? EXIT.FAILED : EXIT.OK;
}

const SNAPSHOT_HELP = `Usage:
  kube-windows snapshot --context C [--kubeconfig F] > facts.json

Writes the cluster's facts as JSON: Windows nodes (build, taints), the RuntimeClasses that schedule
onto Windows, OpenShift or not (and on OpenShift its version, platform, network and WMCO facts),
the StorageClasses and the CSI drivers registered on each Windows node (CSINode).
"kube-windows check --snapshot facts.json FILES" then checks manifests against them without cluster
access.

${CLUSTER_HELP}
${EXIT_CODES_HELP}`;

export async function runSnapshot(args: string[]): Promise<number> {
  const { values } = parse(args, { ...HELP_OPTION, ...CLUSTER_OPTIONS });
  if (values.help) {
    process.stdout.write(SNAPSHOT_HELP);
    return EXIT.OK;
  }
  const snapshot = await liveSnapshot(values);
  process.stdout.write(`${JSON.stringify(snapshot, null, 2)}\n`);
  return EXIT.OK;
}

export function runRules(args: string[]): number {
  const { values } = parse(args, { ...HELP_OPTION, format: { type: 'string' }, failures: { type: 'boolean' } });
  if (values.help) {
    process.stdout.write(RULES_HELP);
    return EXIT.OK;
  }
  const json = oneOf('format', values.format, ['text', 'json']) === 'json';
  const list = values.failures
    ? SIGNATURES.map((x) => ({ id: x.id, severity: x.severity, family: 'failures', title: x.title, ...(json ? { cause: x.cause, fix: x.fix, source: x.source, examples: x.examples } : {}) }))
    : RULES.map((r) => ({ id: r.id, severity: r.severity, family: r.family, title: r.title }));
  if (json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  else for (const r of list) process.stdout.write(`${r.id.padEnd(8)} ${r.severity.padEnd(8)} ${r.title}\n`);
  return EXIT.OK;
}
