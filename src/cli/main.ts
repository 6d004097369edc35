import { parseArgs } from 'node:util';
import { writeFileSync, renameSync, unlinkSync, statSync, chmodSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { version } from '../../package.json';
import { checkText, gatherFacts, type CheckOptions } from '../core/rules/engine';
import { fixText } from '../core/rules/fix';
import { RULES } from '../core/rules/registry';
import { DEFAULT_MAX_BYTES } from '../core/manifest/document';
import { SEVERITY_RANK, type Severity } from '../core/rules/types';
import type { Flavour } from '../core/rules/facts';
import { expandInputs, readText, type InputFile } from './files';
import { JoinUsageError, runJoin, runRemove } from './join';
import { runNodes } from './nodes';
import { runMirrors } from './mirrors';
import { formatJson, formatSarif, formatText, ruleExists, summarize, type FileReport } from './report';

const EXIT_CLEAN = 0;
const EXIT_FINDINGS = 1;
const EXIT_USAGE = 2;

class UsageError extends Error {}

const HELP = `kube-windows ${version}: Windows compatibility checks for Kubernetes and OpenShift manifests

Usage:
  kube-windows check [options] [paths | globs | -]...
  kube-windows rules [--format text|json]
  kube-windows join --context C --address A --user U [--key FILE] [--via byoh|kubeadm] [--dry-run]
  kube-windows remove --context C --address A [--node NAME]
  kube-windows nodes reboot|logs|services NODE --context C [--user U --key FILE]
  kube-windows mirrors render [--mode ordered|wmco] [--pull-secret FILE] --out DIR FILES...
  kube-windows mirrors diff|apply --context C ...

check options:
  --format text|json|sarif   output format (default text)
  --min-severity LEVEL       report only findings at or above info|warning|error (default info);
                             any reported finding makes the exit code 1
  --enable RULE[,RULE]       run only these rules (repeatable)
  --disable RULE[,RULE]      do not run these rules (repeatable)
  --flavour auto|openshift|kubernetes
                             cluster flavour for OpenShift-only rules (default auto)
  --fix                      apply safe fixes in place (atomically), then report what is left
  --max-file-size MIB        skip files larger than this (default ${DEFAULT_MAX_BYTES / 1048576})
  --no-color                 plain text output
  -h, --help                 this help
  -v, --version              print the version

join and remove: "kube-windows join --help" lists their options; "kube-windows mirrors --help" the mirrors ones; "kube-windows nodes --help" the nodes ones.

Directories are walked for *.yaml and *.yml (node_modules and .git skipped); "-" reads standard input.
Exit codes: 0 no findings, 1 findings at or above --min-severity, 2 usage or I/O error.
`;

export function main(argv: string[]): number | Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'check':
        return runCheck(rest);
      case 'rules':
        return runRules(rest);
      case 'join':
        return runJoin(rest).catch(failure);
      case 'remove':
        return runRemove(rest).catch(failure);
      case 'nodes':
        return runNodes(rest).catch(failure);
      case 'mirrors':
        return runMirrors(rest).catch(failure);
      case '-v':
      case '--version':
        process.stdout.write(`${version}\n`);
        return EXIT_CLEAN;
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(HELP);
        return command === undefined ? EXIT_USAGE : EXIT_CLEAN;
      default:
        throw new UsageError(`unknown command "${command}"; try "kube-windows --help"`);
    }
  } catch (err) {
    return failure(err);
  }
}

function failure(err: unknown): number {
  if (err instanceof UsageError || err instanceof JoinUsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`kube-windows: ${(err as Error).message}\n`);
    return EXIT_USAGE;
  }
  // An unexpected failure: one line, no stack; the stack only with KUBE_WINDOWS_DEBUG set.
  process.stderr.write(`kube-windows: internal error: ${(err as Error)?.message ?? String(err)}\n`);
  if (process.env.KUBE_WINDOWS_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  return EXIT_USAGE;
}

function listOption(values: string[] | undefined): string[] {
  const out: string[] = [];
  for (const v of values ?? []) for (const id of v.split(',')) if (id.trim()) out.push(id.trim().toUpperCase());
  for (const id of out) if (!ruleExists(id)) throw new UsageError(`unknown rule "${id}"; "kube-windows rules" lists them`);
  return out;
}

function runCheck(args: string[]): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string', default: 'text' },
      'min-severity': { type: 'string', default: 'info' },
      enable: { type: 'string', multiple: true },
      disable: { type: 'string', multiple: true },
      flavour: { type: 'string', default: 'auto' },
      fix: { type: 'boolean', default: false },
      'max-file-size': { type: 'string' },
      color: { type: 'boolean' },
      'no-color': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return EXIT_CLEAN;
  }
  const format = values.format as string;
  if (!['text', 'json', 'sarif'].includes(format)) throw new UsageError(`--format must be text, json or sarif, not "${format}"`);
  const minSeverity = values['min-severity'] as Severity;
  if (!(minSeverity in SEVERITY_RANK)) throw new UsageError(`--min-severity must be info, warning or error, not "${minSeverity}"`);
  const flavour = values.flavour as Flavour;
  if (!['auto', 'openshift', 'kubernetes'].includes(flavour)) throw new UsageError(`--flavour must be auto, openshift or kubernetes, not "${flavour}"`);
  let maxBytes = DEFAULT_MAX_BYTES;
  if (values['max-file-size'] !== undefined) {
    const mib = Number(values['max-file-size']);
    if (!Number.isFinite(mib) || mib <= 0) throw new UsageError(`--max-file-size takes a positive number of MiB`);
    maxBytes = Math.floor(mib * 1048576);
  }
  const inputs = positionals.length > 0 ? positionals : ['.'];
  if (values.fix && inputs.includes('-')) throw new UsageError('--fix cannot rewrite standard input; pass file paths');

  const { files, errors } = expandInputs(inputs);
  let ioError = errors.length > 0;
  for (const e of errors) process.stderr.write(`kube-windows: ${e}\n`);

  // Read everything first: cross-file facts (RuntimeClasses, Namespaces) feed every check.
  const texts: { file: InputFile; text?: string; skipped?: string }[] = [];
  for (const file of files) {
    const r = readText(file, maxBytes);
    if (r.error) {
      process.stderr.write(`kube-windows: ${file.path}: ${r.error}\n`);
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
  );
  const options: CheckOptions = {
    only: listOption(values.enable as string[] | undefined),
    disable: listOption(values.disable as string[] | undefined),
    flavour,
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
        const err = writeAtomic(t.file.absolute, fixed.text);
        if (err) {
          process.stderr.write(`kube-windows: ${t.file.path}: fixes not written: ${err}; the file is unchanged\n`);
          ioError = true;
        } else {
          fixesApplied += fixed.applied;
          result = fixed.result;
        }
      }
    }
    for (const e of result.ruleErrors) {
      process.stderr.write(`kube-windows: ${t.file.path}: rule ${e.ruleId} failed (${e.message}); please report this\n`);
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
  if (ioError) return EXIT_USAGE;
  return summary.findings > 0 ? EXIT_FINDINGS : EXIT_CLEAN;
}

/** Writes next to the target and renames over it: readers see the old file or the new one, never half. */
function writeAtomic(path: string, text: string): string | undefined {
  const tmp = join(dirname(path), `.${basename(path)}.kube-windows-${process.pid}.tmp`);
  try {
    const mode = statSync(path).mode;
    writeFileSync(tmp, text, { encoding: 'utf8', flag: 'wx' });
    chmodSync(tmp, mode & 0o7777);
    renameSync(tmp, path);
    return undefined;
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to clean up
    }
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOSPC' ? 'disk full' : `write failed (${code ?? 'error'})`;
  }
}

function runRules(args: string[]): number {
  const { values } = parseArgs({ args, options: { format: { type: 'string', default: 'text' } } });
  if (values.format === 'json') {
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
  return EXIT_CLEAN;
}

// Set the exit code rather than exit: large JSON output must not be cut off when piped.
void Promise.resolve(main(process.argv.slice(2))).then((code) => {
  process.exitCode = code;
});
