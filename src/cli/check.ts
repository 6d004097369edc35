// `kube-windows check` (Windows compatibility findings in manifests, the main job) and
// `kube-windows rules` (the rule catalogue).
import { version } from '../../package.json';
import type { CheckOptions, CheckResult } from '../core/rules/checker';
import { fixAllowed, fixText, type FixScope } from '../core/rules/fix';
import { isUnderTemplates } from '../core/manifest/kubernetes-document';
import { unifiedDiff } from '../core/unified-diff';
import { RULES } from '../core/rules/registry';
import { DEFAULT_MAX_BYTES } from '../core/manifest/document';
import { SEVERITY_RANK, type Severity } from '../core/rules/types';
import type { ClusterSnapshot, Flavour } from '../core/rules/facts';
import { parseOpenShiftRelease, withOpenShiftRelease } from '../core/openshift/windows-support';
import { checkChartTemplate } from '../core/helm/check';
import {
  DEFAULT_KUBERNETES_RELEASE,
  effectiveRelease,
  kubernetesOfOpenShift,
  kubernetesReleaseProblem,
  normalizeRelease,
} from '../core/kubernetes-release';
import { chartTemplates } from './helm';
import { expandInputs, readText, writeFileAtomic, type InputFile } from './files';
import { factsPerProject } from './projects';
import { EXIT, oneOf, positiveInteger, positiveNumber, refuse, UsageError, userMessage, warn } from './kit';
import { commandHelp, parseCommand } from './declare';
import { CHECK_COMMAND, RULES_COMMAND, SNAPSHOT_COMMAND } from './commands';
import {
  formatJson,
  formatLiveJson,
  formatLiveSarif,
  formatLiveText,
  formatSarif,
  formatText,
  ruleExists,
  summarize,
  type FileReport,
} from './report';
import { checkLive } from '../core/live/check';
import { checkAll, defaultThreads, type CheckJob } from './check-workers';
import { SIGNATURES } from '../core/live/signatures';
import { readSnapshotText } from '../core/live/snapshot-file';
import { readClusterSnapshot, readLiveState } from '../cluster/live';
import { printReports, reportRequest, requireReportApi, writeReports, type ReportRequest } from './policy-reports';
import { admissionCode, admissionText } from '../core/policy/admission-words';

const FORMATS = ['text', 'json', 'sarif'] as const;

/** What `rules --format json` (and so docs/rules.md) says of a rule whose truth is the same in every release. */
const ALL_RELEASES = 'all releases';

/** The defaults the help names. */
export const HELP_FACTS = { maxFileSize: DEFAULT_MAX_BYTES / 1048576, kubernetesRelease: DEFAULT_KUBERNETES_RELEASE };

function listOption(values: string[] | undefined): string[] {
  const out: string[] = [];
  for (const v of values ?? []) for (const id of v.split(',')) if (id.trim()) out.push(id.trim().toUpperCase());
  for (const id of out)
    if (!ruleExists(id)) throw new UsageError(`unknown rule "${id}"; "kube-windows rules" lists them`);
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
  if (!release || release.major < 4)
    throw new UsageError(`--openshift-version must be an OpenShift 4 (or later) release such as 4.16, not "${value}"`);
  if (flavour === 'kubernetes')
    throw new UsageError('--openshift-version names an OpenShift release; it cannot be used with --flavour kubernetes');
  return withOpenShiftRelease(undefined, release);
}

/**
 * `--kubernetes-version 1.N`: the release the rules decide by, over the cluster's. With
 * --openshift-version it must be that OpenShift release's Kubernetes (4.N ships 1.(N+13)).
 */
function kubernetesRelease(value: string | undefined, openshiftVersion: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = kubernetesReleaseProblem(value);
  if (problem) throw new UsageError(`--kubernetes-version ${problem}`);
  const release = normalizeRelease(value);
  const shipped = kubernetesOfOpenShift(openshiftVersion);
  if (shipped !== undefined && release !== shipped)
    throw new UsageError(
      `--kubernetes-version ${release} contradicts --openshift-version ${openshiftVersion}, which runs Kubernetes ${shipped}; give one of them`,
    );
  return release;
}

export function runCheck(args: string[]): number | Promise<number> {
  const { values, positionals } = parseCheckArgs(args);
  if (values.help) {
    process.stdout.write(commandHelp(CHECK_COMMAND, HELP_FACTS));
    return EXIT.OK;
  }
  const reports = reportRequest({ ...values, live: values.context !== undefined && positionals.length === 0 });
  const format = reports && !reports.write ? 'text' : (oneOf('format', values.format, FORMATS) ?? 'text');
  const minSeverity: Severity = oneOf('min-severity', values['min-severity'], ['info', 'warning', 'error']) ?? 'info';
  const failOn: FailOn = oneOf('fail-on', values['fail-on'], FAIL_ON) ?? 'warning';
  const fix = fixMode(values, format);
  const flavour: Flavour = oneOf('flavour', values.flavour, ['auto', 'openshift', 'kubernetes']) ?? 'auto';
  const color = values['no-color'] ? false : (values.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR));
  const exactApi = exactApiRelease(values);
  const release = kubernetesRelease(values['kubernetes-version'], values['openshift-version']) ?? exactApi.release;
  if (values.namespace !== undefined && values['all-namespaces'])
    throw new UsageError('-n/--namespace and -A/--all-namespaces cannot be used together');
  if (values.context === undefined) {
    refuse(values.namespace, '-n/--namespace needs --context (it names a namespace of the cluster to check)');
    refuse(values['all-namespaces'], '-A/--all-namespaces needs --context (it checks every namespace of the cluster)');
    refuse(values.kubeconfig, '--kubeconfig needs --context');
    refuse(values['chunk-size'], '--chunk-size needs --context (it sizes the pages of the cluster lists)');
  } else {
    refuse(
      values.snapshot,
      '--snapshot and --context cannot be used together: --snapshot checks files offline against saved facts',
    );
    if (positionals.length === 0) {
      refuse(values.fix, '--fix rewrites files; the live objects of a cluster are not changed');
      refuse(
        values['exact-api'],
        '--exact-api is for files: the live objects of a cluster were accepted by its API server',
      );
      refuse(values['openshift-version'], '--openshift-version is for files; the cluster says which release it runs');
      return runLiveCheck(values, format, minSeverity, failOn, flavour, color, release, reports);
    }
    refuse(values.namespace, '-n/--namespace is for the live check (no paths); with paths the files are checked');
    refuse(
      values['all-namespaces'],
      '-A/--all-namespaces is for the live check (no paths); with paths the files are checked',
    );
  }
  if (values.context !== undefined || values.snapshot !== undefined) {
    if (values['openshift-version'] !== undefined)
      throw new UsageError(
        '--openshift-version cannot be used with --snapshot or --context: the snapshot says which release the cluster runs',
      );
    const saved = values.snapshot !== undefined ? snapshotFile(values.snapshot) : undefined;
    const live = saved ? Promise.resolve(saved) : liveSnapshot(values);
    return live.then((snapshot) =>
      checkFiles(
        values,
        positionals,
        { format, minSeverity, failOn, fix, flavour, color, release, exactApi },
        snapshot,
      ),
    );
  }
  return checkFiles(
    values,
    positionals,
    { format, minSeverity, failOn, fix, flavour, color, release, exactApi },
    openshiftRelease(values['openshift-version'], flavour),
  );
}

const FAIL_ON = ['error', 'warning', 'info', 'never'] as const;
type FailOn = (typeof FAIL_ON)[number];

/** How the reported findings are presented and judged. */
interface Presentation {
  format: (typeof FORMATS)[number];
  minSeverity: Severity;
  failOn: FailOn;
  fix: FixMode | undefined;
  flavour: Flavour;
  color: boolean;
  /** `--kubernetes-version`, normalised ("1.35"); undefined: the cluster's, else the default. */
  release: string | undefined;
  exactApi: ExactApiChoice;
}

/** `--exact-api[=1.N]`: whether to ask the API server's own validation, and of which release (default: the rules'). */
interface ExactApiChoice {
  on: boolean;
  release?: string;
}

function exactApiRelease(values: CheckValues): ExactApiChoice {
  const asked = values['exact-api-release'];
  if (!values['exact-api']) {
    refuse(values.validator, '--validator goes with --exact-api (it says where the validator module is)');
    return { on: false };
  }
  if (asked === undefined) return { on: true };
  const problem = kubernetesReleaseProblem(asked);
  if (problem) throw new UsageError(`--exact-api ${problem}`);
  const release = normalizeRelease(asked);
  const rules = values['kubernetes-version'];
  if (rules !== undefined && !kubernetesReleaseProblem(rules) && normalizeRelease(rules) !== release)
    throw new UsageError(
      `--exact-api=${release} contradicts --kubernetes-version ${normalizeRelease(rules)}: the rules and the API server's validation decide by one release; give one of them`,
    );
  return { on: true, release };
}

/** `--fix` (fixes that keep the object's meaning), `--fix=all` (every fix), `--dry-run` (show, write nothing). */
function fixMode(values: CheckValues, format: Presentation['format']): FixMode | undefined {
  if (!values.fix) {
    refuse(values['dry-run'], '--dry-run goes with --fix (it shows the fixes as a diff and writes nothing)');
    return undefined;
  }
  const scope = oneOf('fix', values['fix-scope'], ['safe', 'all']) ?? 'safe';
  const dryRun = values['dry-run'] === true;
  if (dryRun && format !== 'text')
    throw new UsageError('--fix --dry-run prints a unified diff; it cannot be used with --format json or sarif');
  return { scope, dryRun };
}

type CheckValues = ReturnType<typeof parseCheckArgs>['values'];

function parseCheckArgs(args: string[]) {
  // `--fix=all`: parseArgs takes no value for a boolean option, so the value travels in a hidden one.
  const split = args.flatMap((a) =>
    a.startsWith('--fix=')
      ? ['--fix', '--fix-scope', a.slice('--fix='.length)]
      : a.startsWith('--exact-api=')
        ? ['--exact-api', '--exact-api-release', a.slice('--exact-api='.length)]
        : [a],
  );
  return parseCommand(CHECK_COMMAND, split);
}

function snapshotFile(path: string): ClusterSnapshot {
  const { files, unreadable } = expandInputs([path]);
  const file = files[0];
  if (unreadable.length > 0 || !file)
    throw new UsageError(`--snapshot ${path}: ${unreadable[0]?.reason ?? 'not found'}`);
  const r = readText(file, DEFAULT_MAX_BYTES);
  if (r.error || r.text === undefined) throw new UsageError(`--snapshot ${path}: ${r.error ?? 'too large'}`);
  const read = readSnapshotText(r.text);
  if (!read.ok) throw new UsageError(`--snapshot ${path} ${read.message}`);
  return read.snapshot;
}

// Loaded on demand: checking files needs no Kubernetes client (see kit-remote.ts).
const clusterFor = async (values: { context?: string; kubeconfig?: string }) =>
  (await import('./kit-remote')).clusterFor(values);

async function liveSnapshot(values: { context?: string; kubeconfig?: string }): Promise<ClusterSnapshot> {
  const cluster = await clusterFor(values);
  try {
    return await readClusterSnapshot(cluster.kube, { context: cluster.context });
  } catch (err) {
    throw new UsageError(userMessage(err, cluster.context));
  }
}

async function runLiveCheck(
  values: CheckValues,
  format: (typeof FORMATS)[number],
  minSeverity: Severity,
  failOn: FailOn,
  flavour: Flavour,
  color: boolean,
  release: string | undefined,
  reports: ReportRequest | undefined,
): Promise<number> {
  const cluster = await clusterFor(values);
  if (reports?.write) await requireReportApi(cluster.kube, cluster.context, reports.api);
  const namespace = values['all-namespaces'] ? undefined : (values.namespace ?? cluster.namespace ?? 'default');
  let state;
  try {
    const pageSize = positiveInteger('chunk-size', values['chunk-size']);
    state = await readLiveState(cluster.kube, {
      context: cluster.context,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(pageSize ? { pageSize } : {}),
      partial: true,
    });
  } catch (err) {
    throw new UsageError(userMessage(err, cluster.context));
  }
  const report = checkLive(state, {
    check: {
      only: listOption(values.enable as string[] | undefined),
      disable: listOption(values.disable as string[] | undefined),
      ...(release !== undefined ? { kubernetesVersion: release } : {}),
    },
    flavour,
    minSeverity,
  });
  const kubernetesVersion = effectiveRelease(release, state.snapshot);
  for (const e of report.ruleErrors) warn(`rule ${e.ruleId} failed (${e.message}); please report this`);
  // A kind the user may not list: said once, the rest is checked (as the VS Code view does).
  for (const u of state.unread ?? []) warn(`${u.what} not read: ${u.message}`);
  if (reports && !reports.write) printReports(report, reports.api, version);
  else
    process.stdout.write(
      format === 'json'
        ? formatLiveJson(report, state.unread, kubernetesVersion)
        : format === 'sarif'
          ? formatLiveSarif(report, version, kubernetesVersion)
          : formatLiveText(report, cluster.context, color),
    );
  if (reports?.write)
    await writeReports(cluster.kube, cluster.context, { ...reports, namespace, version, unread: state.unread }, report);
  const s = report.summary;
  const failing =
    failOn === 'never'
      ? 0
      : failOn === 'error'
        ? s.errors
        : failOn === 'warning'
          ? s.errors + s.warnings
          : s.errors + s.warnings + s.infos;
  return failing > 0 ? EXIT.FAILED : EXIT.OK;
}

async function checkFiles(
  values: CheckValues,
  positionals: string[],
  { format, minSeverity, failOn, fix, flavour, color, release, exactApi }: Presentation,
  cluster: ClusterSnapshot | undefined,
): Promise<number> {
  // Loaded before any file is read, so a missing validator is said at once.
  const validator = exactApi.on
    ? await (await import('./exact-api')).openExactApi(effectiveRelease(release, cluster), values.validator)
    : undefined;
  // A kustomize patch is a partial object: what the API server sees is the kustomization's output.
  const isPatch = validator ? (await import('./exact-api')).kustomizePatchTest() : undefined;
  const mib = positiveNumber('max-file-size', values['max-file-size']);
  const maxBytes = mib === undefined ? DEFAULT_MAX_BYTES : Math.floor(mib * 1048576);
  const inputs = positionals.length > 0 ? positionals : ['.'];
  if (fix && !fix.dryRun && inputs.includes('-'))
    throw new UsageError('--fix cannot rewrite standard input; pass file paths (or add --dry-run for a diff)');

  const { files, unreadable } = expandInputs(inputs);

  // Read everything first: cross-file facts (RuntimeClasses, Namespaces) feed every check.
  const texts: { file: InputFile; text?: string; skipped?: string }[] = [];
  for (const file of files) {
    const r = readText(file, maxBytes);
    if (r.error) {
      unreadable.push({ path: file.path, reason: r.error });
      continue;
    }
    if (r.tooLarge !== undefined) {
      texts.push({
        file,
        skipped: `file is ${(r.tooLarge / 1048576).toFixed(1)} MiB, over the ${(maxBytes / 1048576).toFixed(0)} MiB limit (--max-file-size); it was not analysed`,
      });
      continue;
    }
    texts.push({ file, text: r.text });
  }
  for (const u of unreadable) warn(`${u.path}: ${u.reason}`);
  const charts = chartTemplates(texts, (values['helm-values'] as string[] | undefined) ?? []);
  for (const p of charts.problems) warn(p);
  // Facts from files (RuntimeClasses, OpenShift objects) apply within each file's project (projects.ts).
  const factsOf = factsPerProject(
    texts.flatMap((t) => (t.text === undefined ? [] : [{ file: t.file, text: charts.of(t.file)?.neutral ?? t.text }])),
    flavour,
    cluster,
    release,
  );
  const options: CheckOptions = {
    only: listOption(values.enable as string[] | undefined),
    disable: listOption(values.disable as string[] | undefined),
    flavour,
    cluster,
    ...(release !== undefined ? { kubernetesVersion: release } : {}),
    load: { maxBytes },
  };

  const jobs = texts.map((t): CheckJob & { chart?: boolean } => {
    if (t.text === undefined) return { text: '', options };
    const text = t.text;
    const chart = charts.of(t.file);
    const fileOptions: CheckOptions = {
      ...options,
      facts: factsOf(t.file),
      load: {
        ...options.load,
        ...(charts.isChartData(t.file) ? { templateSyntax: false } : {}),
        ...(isUnderTemplates(t.file.absolute ?? t.file.path) ? { underTemplates: true } : {}),
      },
    };
    return chart
      ? {
          text,
          options: fileOptions,
          chart: true,
          here: () => checkChartTemplate(text, chart.values, { ...options, facts: fileOptions.facts }),
        }
      : { text, options: fileOptions };
  });
  // Every file is checked first, on every core (check-workers.ts); fixes and reports follow in order.
  const results = await checkAll(
    jobs.filter((_, k) => texts[k].text !== undefined),
    threads(values['jobs'] as string | undefined),
  );

  const reports: FileReport[] = [];
  const counts = { documents: 0, workloads: 0, windowsWorkloads: 0 };
  const fixing = { applied: 0, writeFailed: false, diffs: [] as string[], rewritesLeft: 0 };
  const threshold = SEVERITY_RANK[minSeverity];
  let checked = 0;
  for (const [k, t] of texts.entries()) {
    if (t.text === undefined) {
      reports.push({ path: t.file.path, findings: [], skipped: t.skipped });
      continue;
    }
    let result = results[checked++];
    if (!jobs[k].chart && fix) result = applyFixes(t.file, t.text, result, jobs[k].options, fix, fixing);
    // A chart template's text is not what Helm renders: the API server's verdict is for rendered YAML.
    if (validator && !jobs[k].chart && !(t.file.absolute && isPatch?.(t.file.absolute))) {
      // After --fix the file holds the fixed text, which the findings now describe.
      const now = fix && !fix.dryRun && t.file.absolute ? (readText(t.file, maxBytes).text ?? t.text) : t.text;
      result = (await import('./exact-api')).withApiVerdicts(now, result, validator, jobs[k].options);
    }
    for (const e of result.ruleErrors) {
      warn(`${t.file.path}: rule ${e.ruleId} failed (${e.message}); please report this`);
    }
    counts.documents += result.documents;
    counts.workloads += result.workloads;
    counts.windowsWorkloads += result.windowsWorkloads;
    const findings = result.findings.filter((f) => SEVERITY_RANK[f.severity] >= threshold);
    // Another tool's YAML (a workflow, docker-compose, mkdocs.yml …): counted, never reported.
    const notKubernetes = result.documents === 0 && result.notKubernetes > 0 && findings.length === 0;
    reports.push({
      path: t.file.path,
      findings,
      ...(result.skipped ? { skipped: result.skipped } : {}),
      ...(notKubernetes ? { notKubernetes } : {}),
    });
  }

  const summary = summarize(reports, counts, unreadable);
  if (fix) summary.fixesApplied = fixing.applied;
  if (fix?.dryRun) {
    // The diff alone on standard output (it can be piped to `git apply`); the rest on standard error.
    process.stdout.write(fixing.diffs.join(''));
    warn(`--dry-run: ${plural(fixing.applied, 'fix', 'fixes')} would be applied; no file was written`);
  } else
    process.stdout.write(
      format === 'json'
        ? formatJson(reports, summary, unreadable, effectiveRelease(release, cluster))
        : format === 'sarif'
          ? formatSarif(reports, version, unreadable, effectiveRelease(release, cluster))
          : formatText(reports, summary, color, unreadable),
    );
  if (fixing.rewritesLeft > 0)
    warn(
      `${plural(fixing.rewritesLeft, 'finding')} ${fixing.rewritesLeft === 1 ? 'has a fix' : 'have fixes'} that change${fixing.rewritesLeft === 1 ? 's' : ''} the object (another image tag, a converted kind …): applied only with --fix=all, offered one by one in the editor`,
    );
  if (unreadable.length > 0 || fixing.writeFailed) return EXIT.USAGE;
  return failsBuild(reports, failOn) ? EXIT.FAILED : EXIT.OK;
}

/** `--jobs N`: threads to check on (default: as many as the cores can keep busy, see defaultThreads). */
function threads(value: string | undefined): number {
  return positiveInteger('jobs', value) ?? defaultThreads();
}

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** `--fix`, `--fix=all`, and `--dry-run` with either. */
interface FixMode {
  scope: FixScope;
  dryRun: boolean;
}

/**
 * Applies the fixes `fix` allows to one file: written atomically, or kept as a unified diff with
 * --dry-run. Returns the check of the fixed text (of the file as it is, with --dry-run).
 */
function applyFixes(
  file: InputFile,
  text: string,
  result: CheckResult,
  options: CheckOptions,
  fix: FixMode,
  fixing: { applied: number; writeFailed: boolean; diffs: string[]; rewritesLeft: number },
): CheckResult {
  let after = result;
  if (result.findings.some((f) => f.fixes.some((x) => fixAllowed(x.kind, fix.scope)))) {
    const fixed = fixText(text, options, { scope: fix.scope });
    if (fixed.applied > 0 && fixed.text !== text) {
      if (fix.dryRun) {
        fixing.diffs.push(unifiedDiff(text, fixed.text, `a/${file.path}`, `b/${file.path}`));
        fixing.applied += fixed.applied;
        after = fixed.result;
      } else {
        const err = file.absolute ? writeFileAtomic(file.absolute, fixed.text) : 'standard input cannot be rewritten';
        if (err) {
          warn(`${file.path}: fixes not written: ${err}; the file is unchanged`);
          fixing.writeFailed = true;
        } else {
          fixing.applied += fixed.applied;
          after = fixed.result;
        }
      }
    }
  }
  if (fix.scope === 'safe')
    fixing.rewritesLeft += after.findings.filter(
      (f) => f.fixes.length > 0 && !f.fixes.some((x) => x.kind === 'safe'),
    ).length;
  // A dry run reports the file as it is: nothing was written.
  return fix.dryRun ? result : after;
}

/** Whether the reported findings fail the build: any at or above --fail-on (never: none does). */
function failsBuild(reports: FileReport[], failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  const rank = SEVERITY_RANK[failOn];
  return reports.some((r) => r.findings.some((f) => SEVERITY_RANK[f.severity] >= rank));
}

export async function runSnapshot(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(SNAPSHOT_COMMAND, args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (values.help) {
    process.stdout.write(commandHelp(SNAPSHOT_COMMAND));
    return EXIT.OK;
  }
  const snapshot = await liveSnapshot(values);
  process.stdout.write(`${JSON.stringify(snapshot, null, 2)}\n`);
  return EXIT.OK;
}

export function runRules(args: string[]): number {
  const { values, positionals } = parseCommand(RULES_COMMAND, args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (values.help) {
    process.stdout.write(commandHelp(RULES_COMMAND));
    return EXIT.OK;
  }
  const json = oneOf('format', values.format, ['text', 'json']) === 'json';
  const list = values.failures
    ? SIGNATURES.map((x) => ({
        id: x.id,
        severity: x.severity,
        family: 'failures',
        title: x.title,
        ...(json ? { cause: x.cause, fix: x.fix, source: x.source, examples: x.examples } : {}),
      }))
    : RULES.map((r) => ({
        id: r.id,
        severity: r.severity,
        family: r.family,
        title: r.title,
        ...(json && r.severity === 'error' ? { apiRejects: r.apiRejects === true } : {}),
        ...(json ? { releases: r.releases ?? ALL_RELEASES } : {}),
        admission: json ? { ...r.admission, text: admissionText(r.admission) } : admissionCode(r.admission),
      }));
  if (json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  else
    for (const r of list)
      process.stdout.write(
        `${r.id.padEnd(8)} ${r.severity.padEnd(8)} ${'admission' in r ? `${String(r.admission).padEnd(24)} ` : ''}${r.title}\n`,
      );
  return EXIT.OK;
}
