// `npm run soak`: a compressed day (test/soak/, KW_SOAK=day): 200,000 language-server
// edits over 50 documents, 10,000 tree refreshes and 1,000 watch restarts, then the figures of each part.
// `--scaled` runs the size `npm test` runs; `--only language-server|extension-host` one part. Needs
// `node scripts/build.mjs --tests` first (the npm script does it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const files = ['language-server', 'extension-host']
  .filter((s) => !only || s === only)
  .map((s) => join('out', 'test', 'soak', `${s}.test.js`));
if (files.length === 0 || !files.every((f) => existsSync(f))) {
  console.error(
    `soak: ${only ? `no suite "${only}"` : 'out/test/soak is not built'}: run node scripts/build.mjs --tests`,
  );
  process.exit(2);
}
// Not kw-…: test suites that clean up their own kw- folders must not take this one.
const reports = mkdtempSync(join(tmpdir(), 'kube-windows-soak-'));
const started = Date.now();
// The machine's load decides how long the day takes: said with the figures.
const loadAtStart = loadavg()[0];
// One suite at a time: each measures its own process and the server it runs, on a machine left to it.
const run = spawnSync(process.execPath, ['--test', '--test-force-exit', '--test-concurrency=1', ...files], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, KW_SOAK: args.includes('--scaled') ? '' : 'day', KW_SOAK_REPORT: reports },
});
const minutes = ((Date.now() - started) / 60000).toFixed(1);
const load = `load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`;
console.log(`\nsoak: ${args.includes('--scaled') ? 'scaled' : 'the compressed day'} in ${minutes} min (${load})`);
for (const name of readdirSync(reports).sort()) {
  const { suite, figures, verdict } = JSON.parse(readFileSync(join(reports, name), 'utf8'));
  console.log(`\n${suite}: ${JSON.stringify(figures)}`);
  for (const m of verdict.memory) {
    const pct = ((m.fittedGrowth / m.first) * 100).toFixed(1);
    const mb = (b) => (b / 1048576).toFixed(1);
    console.log(
      `  ${m.name}: ${mb(m.first)} MB after warm-up, ${mb(m.last)} MB at the end, min ${mb(m.min)}, max ${mb(m.max)}, fitted ${pct}%`,
    );
  }
  console.log(
    `  counts after warm-up -> end: ${verdict.counts.map((c) => `${c.name} ${c.first}->${c.last}`).join(', ')}`,
  );
  console.log(`  ${verdict.problems.length === 0 ? 'flat' : verdict.problems.join('; ')}`);
}
rmSync(reports, { recursive: true, force: true });
process.exit(run.status ?? 1);
