// The GitHub Action's step (action.yml): runs `kube-windows check --format sarif` on the paths the
// workflow names and writes the SARIF file for code scanning. Inputs arrive as environment variables,
// never pasted into a shell line; paths and extra options are split on whitespace and passed as
// separate arguments. Also runnable by hand: KW_PATHS=examples node scripts/action-check.mjs
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const cli = resolve(here, '..', 'dist', 'cli.js');
const words = (s) => (s ?? '').split(/\s+/).filter(Boolean);

const paths = words(process.env.KW_PATHS || '.');
const extra = words(process.env.KW_ARGS);
const sarifFile = resolve(process.env.KW_SARIF || 'kube-windows.sarif');
// fail-on (error|warning|info|never, default never: code scanning shows the findings); the older
// fail-on-findings: 'true' meant "fail on what is reported", which is now warning and above.
const legacy = (process.env.KW_FAIL_ON_FINDINGS || 'false').toLowerCase() === 'true';
const failOn = (process.env.KW_FAIL_ON || (legacy ? 'warning' : 'never')).trim().toLowerCase();

const owned = (a) => ['--format', '--fix', '--fail-on'].some((o) => a === o || a.startsWith(`${o}=`));
if (extra.some(owned)) {
  console.error(
    'kube-windows action: args may not set --format (the action writes SARIF), --fix (it only reports) or --fail-on (use the fail-on input)',
  );
  process.exit(2);
}

const r = spawnSync(process.execPath, [cli, 'check', '--format', 'sarif', '--fail-on', failOn, ...extra, ...paths], {
  encoding: 'utf8',
  maxBuffer: 1 << 30,
});
if (r.error) {
  console.error(`kube-windows action: could not run ${cli}: ${r.error.message}`);
  process.exit(2);
}
process.stderr.write(r.stderr);
const code = r.status ?? 2;
// Exit code 2 with a SARIF log: a path could not be read (the log says which); without one, check
// could not run at all (a bad option).
const sarifWritten = r.stdout.trimStart().startsWith('{');
if (code === 2 && !sarifWritten) {
  console.error('kube-windows action: check could not run (exit code 2); no SARIF written');
  process.exit(2);
}
// Written beside, then renamed: a half-written SARIF file is never uploaded.
const tmp = join(dirname(sarifFile), `.${Date.now()}.kube-windows.sarif.tmp`);
writeFileSync(tmp, r.stdout);
renameSync(tmp, sarifFile);

const results = JSON.parse(readFileSync(sarifFile, 'utf8')).runs?.[0]?.results ?? [];
const count = (level) => results.filter((x) => x.level === level).length;
const summary = `kube-windows: ${results.length} finding(s): ${count('error')} error(s), ${count('warning')} warning(s), ${count('note')} note(s); SARIF in ${sarifFile}`;
console.log(summary);
if (process.env.GITHUB_OUTPUT)
  appendFileSync(process.env.GITHUB_OUTPUT, `exit-code=${code}\nfindings=${results.length}\nsarif-file=${sarifFile}\n`);
if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, `${summary}\n`);
// check applied --fail-on: 1 means a finding at or above it, 2 an input that could not be read.
process.exit(code);
