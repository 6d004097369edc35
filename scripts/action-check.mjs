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
const failOnFindings = (process.env.KW_FAIL_ON_FINDINGS || 'false').toLowerCase() === 'true';

if (extra.some((a) => a === '--format' || a.startsWith('--format=') || a === '--fix')) {
  console.error('kube-windows action: args may not set --format (the action writes SARIF) or --fix (it only reports)');
  process.exit(2);
}

const r = spawnSync(process.execPath, [cli, 'check', '--format', 'sarif', ...extra, ...paths], {
  encoding: 'utf8',
  maxBuffer: 1 << 30,
});
if (r.error) {
  console.error(`kube-windows action: could not run ${cli}: ${r.error.message}`);
  process.exit(2);
}
process.stderr.write(r.stderr);
const code = r.status ?? 2;
if (code === 2) {
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
process.exit(code === 1 && failOnFindings ? 1 : 0);
