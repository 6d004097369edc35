// `kube-windows check` (Windows compatibility findings in manifests, the main job) and
// `kube-windows rules` (the rule catalogue).
import { version } from '../../package.json';
import { checkText, gatherFacts, type CheckOptions } from '../core/rules/engine';
import { fixText } from '../core/rules/fix';
import { RULES } from '../core/rules/registry';
import { DEFAULT_MAX_BYTES } from '../core/manifest/document';
import { SEVERITY_RANK, type Severity } from '../core/rules/types';
import type { ClusterSnapshot, Flavour } from '../core/rules/facts';
import { parseOpenShiftRelease, withOpenShiftRelease } from '../core/openshift/windows-support';
import { expandInputs, readText, writeFileAtomic, type InputFile } from './files';
import { EXIT, EXIT_CODES_HELP, HELP_OPTION, oneOf, parse, positiveNumber, UsageError, warn } from './kit';
import { formatJson, formatSarif, formatText, ruleExists, summarize, type FileReport } from './report';

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

Directories are walked for *.yaml and *.yml (node_modules and .git skipped); "-" reads standard input.`;

const CHECK_HELP = `Usage:
  kube-windows check [options] [paths | globs | -]...

${CHECK_OPTIONS_HELP}
${EXIT_CODES_HELP}`;

const RULES_HELP = `Usage:
  kube-windows rules [--format text|json]

Lists every rule: id, default severity, title (json adds the family).
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

export function runCheck(args: string[]): number {
  const { values, positionals } = parse(
    args,
    {
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
    },
    true,
  );
  if (values.help) {
    process.stdout.write(CHECK_HELP);
    return EXIT.OK;
  }
  const format = oneOf('format', values.format, FORMATS) ?? 'text';
  const minSeverity: Severity = oneOf('min-severity', values['min-severity'], ['info', 'warning', 'error']) ?? 'info';
  const flavour: Flavour = oneOf('flavour', values.flavour, ['auto', 'openshift', 'kubernetes']) ?? 'auto';
  const cluster = openshiftRelease(values['openshift-version'], flavour);
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
  const facts = gatherFacts(
    texts.flatMap((t) => (t.text !== undefined ? [t.text] : [])),
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
    let result = checkText(t.text, options);
    if (values.fix && t.file.absolute && result.findings.some((f) => f.fixes.length > 0)) {
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
  const color = values['no-color'] ? false : (values.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR));
  const out = format === 'json' ? formatJson(reports, summary) : format === 'sarif' ? formatSarif(reports, version) : formatText(reports, summary, color);
  process.stdout.write(out);
  if (ioError) return EXIT.USAGE;
  return summary.findings > 0 ? EXIT.FAILED : EXIT.OK;
}

export function runRules(args: string[]): number {
  const { values } = parse(args, { ...HELP_OPTION, format: { type: 'string' } });
  if (values.help) {
    process.stdout.write(RULES_HELP);
    return EXIT.OK;
  }
  if (oneOf('format', values.format, ['text', 'json']) === 'json') {
    process.stdout.write(
      `${JSON.stringify(
        RULES.map((r) => ({ id: r.id, severity: r.severity, family: r.family, title: r.title })),
        null,
        2,
      )}\n`,
    );
  } else {
    for (const r of RULES) process.stdout.write(`${r.id.padEnd(8)} ${r.severity.padEnd(8)} ${r.title}\n`);
  }
  return EXIT.OK;
}
