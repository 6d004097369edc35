// `npm run bench` (the CLI part): times `kube-windows check` as a whole process, on one thread
// (--jobs 1) and on every core (--jobs <cores>), next to a bare js-yaml loadAll of the same input in its
// own process (the fastest plain parse in JavaScript: our floor), and next to kube-score and
// kubeconform (built from their Go modules, scripts/bench/linters.mjs) on the same inputs in the
// same run. Inputs: generated files of 1 to 10 000 Windows Deployments (10% with a finding; the
// largest also with none and with one in every document), 10 000 workloads of varied shapes with a
// finding in each (scripts/bench/generate-varied.mjs), and a tree of 2 000 files of those. Wall
// and CPU (user + system) time both: a shared machine disturbs CPU time less.
import {
  mkdirSync,
  writeFileSync,
  readFileSync,
  rmSync,
  statSync,
  existsSync,
  readdirSync,
  copyFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { generateDeployments } from './bench/generate.mjs';
import { generateVaried } from './bench/generate-varied.mjs';
import { LINTERS, ensureLinter, schemaCache } from './bench/linters.mjs';

const root = resolve(new URL('..', import.meta.url).pathname);
const tmp = join(root, 'bench', 'tmp');
mkdirSync(tmp, { recursive: true });
const runs = Number(process.env.BENCH_RUNS ?? 5);
const sizes = (process.env.BENCH_SIZES ?? '1,100,1000,10000').split(',').map(Number);
const treeFiles = Number(process.env.BENCH_TREE_FILES ?? 2000);
const cli = join(root, 'dist', 'cli.js');
const rssHook = join(root, 'scripts', 'bench', 'rss.cjs');
const jsyaml = join(root, 'node_modules', 'js-yaml');

/** Runs a process to its end: its wall time, CPU time and peak RSS (from rss.cjs in Node; for other programs, CPU time from the kernel). */
function timeProcess(command, args, expectCodes, { node = true } = {}) {
  const rssFile = join(tmp, `rss-${process.pid}.txt`);
  rmSync(rssFile, { force: true });
  if (!node) childCpuMs();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, node ? ['-r', rssHook, ...args] : args, {
    env: { ...process.env, KW_RSS_FILE: rssFile },
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!expectCodes.includes(r.status))
    throw new Error(`${command} ${args.slice(0, 8).join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 2000)}`);
  if (!node) return { ms, rssMb: NaN, cpuMs: childCpuMs(), mainCpuMs: NaN };
  const [rssKb, cpuUs, mainUs] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { ms, rssMb: rssKb / 1024, cpuMs: cpuUs / 1000, mainCpuMs: mainUs >= 0 ? mainUs / 1000 : NaN };
}

let lastChildCpu = 0;
/** CPU time (ms) of the child processes waited for since the last call: cutime + cstime of /proc/self/stat (Linux; NaN elsewhere). */
function childCpuMs() {
  let fields;
  try {
    fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  } catch {
    return NaN;
  }
  const ms = ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // clock ticks of 10 ms
  const used = ms - lastChildCpu;
  lastChildCpu = ms;
  return used;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '–');

console.log(
  `kube-windows bench: node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, ${runs} runs each, median of whole processes`,
);

// The linters, built once (or skipped with the reason).
const linters = [];
for (const tool of LINTERS) {
  const r = await ensureLinter(tool, { log: (line) => console.log(`  ${line}`) });
  if (r.skipped) console.log(`${tool.name}: skipped: ${r.skipped}`);
  else linters.push({ ...tool, binary: r.binary });
}

// Every size with 10% of documents holding a finding; then the largest size without any finding
// (clean) and with a finding in every document (dense): a finding must cost about what parsing
// its line costs, so both stay close to the floor. Then varied shapes, as one file and as a tree.
const largest = Math.max(...sizes);
const inputs = [
  ...sizes.map((n) => ({ n, findings: 'sparse', shape: 'same' })),
  { n: largest, findings: 'none', shape: 'same' },
  { n: largest, findings: 'dense', shape: 'same' },
  { n: largest, findings: 'dense', shape: 'varied' },
  { n: largest, findings: 'dense', shape: 'varied', files: treeFiles },
];

function prepare(input) {
  const { n, findings, shape, files } = input;
  if (!files) {
    const path = join(tmp, `${shape === 'varied' ? 'varied' : 'deployments'}-${n}-${findings}.yaml`);
    writeFileSync(path, shape === 'varied' ? generateVaried(n) : generateDeployments(n, { findings }));
    return { path, paths: [path], mb: statSync(path).size / 1e6, kinds: kindsOf(readFileSync(path, 'utf8')) };
  }
  const dir = join(tmp, `tree-${files}`);
  rmSync(dir, { recursive: true, force: true });
  const docs = generateVaried(n).split(/^---\n/m);
  const per = Math.ceil(docs.length / files);
  const paths = [];
  let bytes = 0;
  for (let k = 0; k < files; k++) {
    const sub = join(dir, `team-${k % 40}`);
    mkdirSync(sub, { recursive: true });
    const text = docs.slice(k * per, k * per + per).join('---\n');
    const path = join(sub, `app-${k}.yaml`);
    writeFileSync(path, text);
    paths.push(path);
    bytes += Buffer.byteLength(text);
  }
  return { path: dir, paths, mb: bytes / 1e6, kinds: kindsOf(docs.join('---\n')) };
}

function kindsOf(text) {
  return [...new Set([...text.matchAll(/^kind: (\w+)/gm)].map((m) => m[1]))];
}

/** The floor: js-yaml's loadAll of every file, in one process. */
function floorScript(paths) {
  const list = join(tmp, 'floor-files.json');
  writeFileSync(list, JSON.stringify(paths));
  return `const y=require(${JSON.stringify(jsyaml)});const fs=require('fs');for(const f of JSON.parse(fs.readFileSync(${JSON.stringify(list)},'utf8')))y.loadAll(fs.readFileSync(f,'utf8'));`;
}

/** kubeconform reads schemas from the network on first use; offline, from what the cache holds (seeded from KW_BENCH_SCHEMAS). */
function kubeconformArgs(tool, input) {
  const cache = schemaCache(tool);
  const seed = process.env.KW_BENCH_SCHEMAS;
  if (seed && existsSync(seed))
    for (const f of readdirSync(seed).filter((x) => x.endsWith('.json')))
      copyFileSync(join(seed, f), join(cache, f.replace(/\.schema\.json$/, '.json')));
  const have = new Set(readdirSync(cache).map((f) => f.split('-')[0]));
  const missing = input.kinds.filter((k) => !have.has(k.toLowerCase()));
  if (missing.length > 0 && !online())
    return { skip: `no schema for ${missing.join(', ')} in ${cache} and the schema site is unreachable` };
  // The local schemas first (kubeconform tries each location in turn), then its default site.
  return {
    args: [
      '-summary',
      '-schema-location',
      `${cache}/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
      '-schema-location',
      'default',
      '-cache',
      cache,
      input.path,
    ],
  };
}

let reachable;
function online() {
  reachable ??=
    spawnSync(process.execPath, [
      '-e',
      "fetch('https://raw.githubusercontent.com/',{signal:AbortSignal.timeout(5000)}).then(()=>process.exit(0),()=>process.exit(1))",
    ]).status === 0;
  return reachable;
}

console.log('');
console.log(
  'input                         size_mb  1-thread_ms  cpu_ms  main_ms  all-cores_ms  cpu_ms  main_ms  speedup  floor_ms  cpu_ms  ratio  cpu_ratio  docs_per_s  rss_mb',
);
const results = [];
const sideBySide = [];
for (const input of inputs) {
  const prepared = { ...input, ...prepare(input) };
  const name = `${input.files ? `tree of ${input.files} files` : `${input.n} ${input.shape === 'varied' ? 'varied' : 'deployments'}`} ${input.findings}`;
  const floor = floorScript(prepared.paths);
  const one = [];
  const all = [];
  const floors = [];
  for (let i = 0; i < runs; i++) {
    // Alternated so that machine noise hits all three alike.
    one.push(timeProcess(process.execPath, [cli, 'check', '--jobs', '1', '--format', 'json', prepared.path], [0, 1]));
    // One thread per core, whatever the default (which is one thread on 2 cores): the speedup column says what it gives.
    const every = ['--jobs', String(availableParallelism())];
    all.push(timeProcess(process.execPath, [cli, 'check', ...every, '--format', 'json', prepared.path], [0, 1]));
    floors.push(timeProcess(process.execPath, ['-e', floor], [0]));
  }
  const m = (xs, k) => median(xs.map((x) => x[k]));
  const r = {
    name,
    ...input,
    mb: prepared.mb,
    oneMs: m(one, 'ms'),
    oneCpu: m(one, 'cpuMs'),
    oneMain: m(one, 'mainCpuMs'),
    allMs: m(all, 'ms'),
    allCpu: m(all, 'cpuMs'),
    allMain: m(all, 'mainCpuMs'),
    floorMs: m(floors, 'ms'),
    floorCpu: m(floors, 'cpuMs'),
    rss: Math.max(...one.map((c) => c.rssMb)),
  };
  r.speedup = r.oneMs / r.allMs;
  r.ratio = r.oneMs / r.floorMs;
  r.cpuRatio = r.oneCpu / r.floorCpu;
  results.push(r);
  console.log(
    `${name.padEnd(28)} ${fmt(r.mb, 2).padStart(8)}  ${fmt(r.oneMs).padStart(11)}  ${fmt(r.oneCpu).padStart(6)}  ${fmt(r.oneMain).padStart(7)}  ${fmt(r.allMs).padStart(12)}  ${fmt(r.allCpu).padStart(6)}  ${fmt(r.allMain).padStart(7)}  ${fmt(r.speedup, 2).padStart(7)}  ${fmt(r.floorMs).padStart(8)}  ${fmt(r.floorCpu).padStart(6)}  ${fmt(r.ratio, 2).padStart(5)}  ${fmt(r.cpuRatio, 2).padStart(9)}  ${fmt(input.n / (r.allMs / 1000)).padStart(10)}  ${fmt(r.rss).padStart(6)}`,
  );
  // The other linters on the largest inputs, in the same run.
  if (input.n !== largest || input.findings === 'none') continue;
  for (const tool of linters) {
    const plan =
      tool.name === 'kubeconform'
        ? kubeconformArgs(tool, prepared)
        : { args: tool.args(input.files ? prepared.paths : prepared.path) };
    if (plan.skip) {
      console.log(`  ${tool.name}: skipped on this input: ${plan.skip}`);
      continue;
    }
    const args =
      tool.name === 'kube-score' && input.files ? ['score', '--output-format', 'ci', ...prepared.paths] : plan.args;
    const times = [];
    for (let i = 0; i < runs; i++) times.push(timeProcess(tool.binary, args, [0, 1], { node: false }));
    const t = { tool: tool.name, input: name, ms: m(times, 'ms'), cpuMs: m(times, 'cpuMs') };
    sideBySide.push({ ...t, vs: t.ms / r.allMs });
    console.log(
      `  ${tool.name.padEnd(12)} ${fmt(t.ms).padStart(8)} ms wall, ${fmt(t.cpuMs).padStart(6)} ms CPU (${tool.note}): ${fmt(t.ms / r.allMs, 1)}× kube-windows' wall on all cores`,
    );
  }
}
for (const r of results.filter((x) => x.n === largest))
  console.log(
    `engine: input="${r.name}" one_thread_ms=${fmt(r.oneMs)} one_thread_cpu_ms=${fmt(r.oneCpu)} one_thread_main_cpu_ms=${fmt(r.oneMain)} all_cores_ms=${fmt(r.allMs)} all_cores_cpu_ms=${fmt(r.allCpu)} all_cores_main_cpu_ms=${fmt(r.allMain)} speedup=${fmt(r.speedup, 2)} floor_ms=${fmt(r.floorMs)} ratio=${fmt(r.ratio, 2)} cpu_ratio=${fmt(r.cpuRatio, 2)} rss_mb=${fmt(r.rss)}`,
  );
for (const s of sideBySide)
  console.log(
    `linter: tool=${s.tool} input="${s.input}" wall_ms=${fmt(s.ms)} cpu_ms=${fmt(s.cpuMs)} vs_kube_windows=${fmt(s.vs, 2)}`,
  );
