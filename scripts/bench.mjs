// `npm run bench`: times `kube-windows check` as a whole process on generated files of 1, 100,
// 1000 and 10000 Windows Deployments (10% with a finding; the largest also with none and with one
// in every document), next to a bare js-yaml loadAll of the same file in its own process (the
// fastest plain parse in JavaScript: our floor).
import { mkdirSync, writeFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { generateDeployments } from './bench/generate.mjs';

const root = resolve(new URL('..', import.meta.url).pathname);
const tmp = join(root, 'bench', 'tmp');
mkdirSync(tmp, { recursive: true });
const runs = Number(process.env.BENCH_RUNS ?? 5);
const sizes = (process.env.BENCH_SIZES ?? '1,100,1000,10000').split(',').map(Number);
const cli = join(root, 'dist', 'cli.js');
const rssHook = join(root, 'scripts', 'bench', 'rss.cjs');
const jsyaml = join(root, 'node_modules', 'js-yaml');

function timeProcess(args, expectCodes) {
  const rssFile = join(tmp, `rss-${process.pid}.txt`);
  rmSync(rssFile, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', rssHook, ...args], {
    env: { ...process.env, KW_RSS_FILE: rssFile },
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!expectCodes.includes(r.status)) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [rssKb, cpuUs] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { ms, rssMb: rssKb / 1024, cpuMs: cpuUs / 1000 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`kube-windows bench: node ${process.version}, ${runs} runs each, median wall time of whole processes`);
// Every size with 10% of documents holding a finding; then the largest size without any finding
// (clean) and with a finding in every document (dense): a finding must cost about what parsing
// its line costs, so both stay close to the floor.
const largest = Math.max(...sizes);
const inputs = [
  ...sizes.map((n) => ({ n, findings: 'sparse' })),
  { n: largest, findings: 'none' },
  { n: largest, findings: 'dense' },
];
// The ratio is of wall times; cpu_ratio, of CPU times (user + system), which other work on a
// shared machine disturbs less.
console.log('docs     findings  size_mb  check_ms  floor_ms  ratio  cpu_ratio  docs_per_s  mb_per_s  rss_mb');
const results = [];
for (const { n, findings } of inputs) {
  const file = join(tmp, `deployments-${n}-${findings}.yaml`);
  writeFileSync(file, generateDeployments(n, { findings }));
  const mb = statSync(file).size / 1e6;
  const floorScript = `const y=require(${JSON.stringify(jsyaml)});const t=require('fs').readFileSync(${JSON.stringify(file)},'utf8');y.loadAll(t);`;
  const checks = [];
  const floors = [];
  for (let i = 0; i < runs; i++) {
    // Alternate the two so that machine noise hits both alike.
    checks.push(timeProcess([cli, 'check', '--format', 'json', file], [0, 1]));
    floors.push(timeProcess(['-e', floorScript], [0]));
  }
  const checkMs = median(checks.map((c) => c.ms));
  const floorMs = median(floors.map((c) => c.ms));
  const rss = Math.max(...checks.map((c) => c.rssMb));
  const ratio = checkMs / floorMs;
  const cpuRatio = median(checks.map((c) => c.cpuMs)) / median(floors.map((c) => c.cpuMs));
  console.log(
    `${String(n).padEnd(8)} ${findings.padEnd(8)} ${mb.toFixed(2).padStart(8)}  ${checkMs.toFixed(0).padStart(8)}  ${floorMs.toFixed(0).padStart(8)}  ${ratio.toFixed(2).padStart(5)}  ${cpuRatio.toFixed(2).padStart(9)}  ${(n / (checkMs / 1000)).toFixed(0).padStart(10)}  ${(mb / (checkMs / 1000)).toFixed(2).padStart(8)}  ${rss.toFixed(0).padStart(6)}`,
  );
  results.push({ n, findings, checkMs, floorMs, ratio, cpuRatio, rss });
}
for (const r of results.filter((x) => x.n === largest))
  console.log(
    `engine: docs=${r.n} findings=${r.findings} check_ms=${r.checkMs.toFixed(0)} floor_ms=${r.floorMs.toFixed(0)} ratio=${r.ratio.toFixed(2)} cpu_ratio=${r.cpuRatio.toFixed(2)} rss_mb=${r.rss.toFixed(0)}`,
  );
