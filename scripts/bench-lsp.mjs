// `npm run bench:lsp`: our language server and yaml-language-server (with the Kubernetes Deployment
// schema from ../shared/peer) on the same generated files of 100, 1000 and 5000 Windows Deployments,
// in one run: time from open to first diagnostics, and the distribution (median, p95, max) of the
// time from a one-character edit to fresh diagnostics (100 edits for us, 20 for yaml-language-server,
// whose edits take seconds), sent as a range edit and as the whole new text (as clients that sync
// full documents send it), how many times faster we are, and peak RSS.
//
// Whole-text against range, fairly: every edit is timed from the same point (before the client
// serialises the message) to the same notification (the diagnostics of that version), and each round
// sends, in a shuffled order, the range edit, the whole-text edit, a message of the file's size that
// the server answers with no work (the transport every whole-text sync pays: the client serialises
// the text as JSON, the pipe carries it, the server's JSON-RPC reader decodes and parses it) and a
// small message answered with no work. The server's own work is an edit less its message's no-work
// twin, compared round by round (a paired difference, with a 95% bootstrap interval of its median:
// "within noise" when the interval holds 0). Besides the wall clock, the server's CPU time per
// message (all its threads, from /proc/PID/task/*/schedstat, on Linux) is measured: unlike the wall
// clock it does not grow when other processes load the machine.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { generateDeployments } from './bench/generate.mjs';

const require = createRequire(import.meta.url);
const rpc = require('vscode-languageserver-protocol/node');
const root = resolve(new URL('..', import.meta.url).pathname);
const sizes = (process.env.BENCH_SIZES ?? '100,1000,5000').split(',').map(Number);
const EDITS = Number(process.env.BENCH_EDITS ?? 100);
const PEER_EDITS = Number(process.env.BENCH_PEER_EDITS ?? 20);
const schema = process.env.KW_PEER_SCHEMA ?? resolve(root, '..', 'shared', 'peer', 'deployment-apps-v1.schema.json');

// The peer is installed here, by the bench only, never by `npm ci`: yaml-language-server 2 wants a
// newer Node than the one kube-windows supports, and an install would warn every user (EBADENGINE).
const PEER = 'yaml-language-server@2.0.0';
const peerDir = join(root, '.cache', 'bench-peer');
const peerBin = join(peerDir, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');
if (!existsSync(peerBin)) {
  console.log(`LSP bench: installing ${PEER} into ${peerDir} (once)`);
  mkdirSync(peerDir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    ['install', '--prefix', peerDir, '--no-save', '--no-audit', '--no-fund', '--engine-strict=false', PEER],
    {
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) {
    console.error(`LSP bench: could not install ${PEER} (npm exited ${r.status})`);
    process.exit(2);
  }
}
const YAML_LS_DELAY = 200; // yaml-language-server waits this long before validating (yamlSettings.validationDelayMs, fixed)

const servers = [
  {
    name: 'kube-windows',
    edits: EDITS,
    // KW_BENCH_SERVER: another build of our server (an older commit's, to compare before and after).
    args: [process.env.KW_BENCH_SERVER ?? join(root, 'dist', 'server.js'), '--stdio'],
    init: { debounceMs: 0 },
    config: () => ({ debounceMs: 0 }),
  },
  {
    name: 'yaml-language-server',
    edits: PEER_EDITS,
    args: [peerBin, '--stdio'],
    init: {},
    config: (section) =>
      section === 'yaml'
        ? {
            validate: true,
            hover: true,
            completion: true,
            schemas: { [pathToFileURL(schema).href]: '*.yaml' },
            schemaStore: { enable: false },
          }
        : section === 'http'
          ? {}
          : null,
  },
];

function peakRssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmHWM:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function start(server) {
  const proc = spawn(process.execPath, server.args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const conn = rpc.createProtocolConnection(
    new rpc.StreamMessageReader(proc.stdout),
    new rpc.StreamMessageWriter(proc.stdin),
  );
  const waiters = [];
  conn.onNotification(rpc.PublishDiagnosticsNotification.type, (p) => {
    for (const w of [...waiters])
      if (w.match(p)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(p);
      }
  });
  conn.onRequest(rpc.ConfigurationRequest.type, (params) => params.items.map((i) => server.config(i.section)));
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onNotification(() => undefined);
  conn.listen();
  await conn.sendRequest(rpc.InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(join(root, 'bench', 'tmp')).href,
    capabilities: {
      workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
      textDocument: { publishDiagnostics: { versionSupport: true } },
    },
    initializationOptions: server.init,
  });
  await conn.sendNotification(rpc.InitializedNotification.type, {});
  await conn.sendNotification(rpc.DidChangeConfigurationNotification.type, { settings: {} });
  await new Promise((r) => setTimeout(r, 300)); // let both pull their configuration
  const next = (uri, version, timeout = 120_000) =>
    new Promise((resolvePromise, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${server.name}: no diagnostics for v${version}; ${stderr.slice(-300)}`)),
        timeout,
      );
      waiters.push({
        match: (p) => p.uri === uri && (p.version === undefined || p.version === version),
        resolve: (p) => (clearTimeout(timer), resolvePromise(p)),
      });
    });
  return { proc, conn, next };
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
const median = (xs) => quantile(xs, 0.5);

/** Milliseconds of CPU the process has used, all its threads (the collector's included); NaN off Linux. */
function cpuMs(pid) {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // a thread that ended between the listing and the read
      }
    }
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

/** A seeded generator, so that a run's shuffles and resamples are the same each time. */
function seeded(seed) {
  return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
}
const random = seeded(29);
const shuffled = (xs) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

/** The median of `xs` with a 95% bootstrap interval. */
function medianWithInterval(xs) {
  const medians = [];
  for (let r = 0; r < 2000; r++) medians.push(median(xs.map(() => xs[Math.floor(random() * xs.length)])));
  return { median: median(xs), low: quantile(medians, 0.025), high: quantile(medians, 0.975) };
}

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const signed = (x) => (x >= 0 ? `+${fmt(x)}` : fmt(x));
function verdict({ median: m, low, high }) {
  if (!Number.isFinite(m)) return 'n/a';
  const meaning =
    low <= 0 && high >= 0
      ? 'within noise'
      : high < 0
        ? 'whole-text cheaper, beyond noise'
        : 'whole-text dearer, beyond noise';
  return `${signed(m)} ms (95% interval ${signed(low)} .. ${signed(high)}): ${meaning}`;
}

if (!existsSync(schema)) {
  console.error(`peer schema not found: ${schema} (set KW_PEER_SCHEMA)`);
  process.exit(2);
}
const dir = join(root, 'bench', 'tmp');
mkdirSync(dir, { recursive: true });
const KINDS = ['range', 'whole', 'floor', 'tiny'];
const KIND_NAMES = {
  range: 'range edit',
  whole: 'whole-text edit',
  floor: "a message of the file's size, no work",
  tiny: 'a small message, no work',
};
console.log(
  `LSP bench: node ${process.version}; one-character edits (${EDITS} for kube-windows, ${PEER_EDITS} for yaml-language-server), each round also sends a message of the file's size and a small one that the server answers with no work, in a shuffled order; yaml-language-server validates ${YAML_LS_DELAY} ms after an edit (fixed), we use debounceMs 0`,
);
console.log(
  'server                  docs  open_ms  message  rounds  median_ms  p95_ms  max_ms  server_cpu_median_ms  findings  peak_rss_mb',
);
for (const n of sizes) {
  const text = generateDeployments(n);
  const file = join(dir, `lsp-${n}.yaml`);
  writeFileSync(file, text);
  const uri = pathToFileURL(file).href;
  // The one character we flip: a replica count in the middle document.
  const lines = text.split('\n');
  const middle = lines.findIndex((l) => l.includes(`name: web-${Math.floor(n / 2)}`));
  const replicaLine = lines.findIndex((l, i) => i > middle && l.includes('replicas: '));
  const col = lines[replicaLine].indexOf('replicas: ') + 'replicas: '.length;
  const lineStarts = [0];
  for (const l of lines) lineStarts.push(lineStarts[lineStarts.length - 1] + l.length + 1);
  const offset = lineStarts[replicaLine] + col;
  const summary = {};
  // BENCH_PEER_EDITS=0: our server alone (quicker, for before/after comparisons).
  for (const server of servers.filter((sv) => sv.edits > 0)) {
    const s = await start(server);
    const t0 = performance.now();
    const first = s.next(uri, 1);
    await s.conn.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'yaml', version: 1, text },
    });
    const opened = await first;
    const openMs = performance.now() - t0;
    // A small request the server answers with no work: after each message, it makes sure the server
    // has finished with it (messages are handled in order) before its CPU time is read.
    const noWork = (padding) =>
      s.conn
        .sendRequest('textDocument/hover', {
          textDocument: { uri: `${uri}.absent` },
          position: { line: 0, character: 0 },
          ...(padding === undefined ? {} : { padding }),
        })
        .catch(() => null); // an error answer is as good a reply for the timing
    let current = text;
    let version = 1;
    const wall = Object.fromEntries(KINDS.map((k) => [k, []]));
    const cpu = Object.fromEntries(KINDS.map((k) => [k, []]));
    const serialise = [];
    const warmUp = server.name === 'kube-windows' ? 5 : 1;
    for (let round = -warmUp; round < server.edits; round++) {
      for (const kind of shuffled(KINDS)) {
        let send;
        if (kind === 'floor') send = () => noWork(current);
        else if (kind === 'tiny') send = () => noWork();
        else {
          version++;
          const digit = String((version % 8) + 1);
          current = current.slice(0, offset) + digit + current.slice(offset + 1);
          const params = {
            textDocument: { uri, version },
            contentChanges: [
              kind === 'range'
                ? {
                    range: {
                      start: { line: replicaLine, character: col },
                      end: { line: replicaLine, character: col + 1 },
                    },
                    text: digit,
                  }
                : { text: current },
            ],
          };
          if (kind === 'whole' && round >= 0) {
            // What the client alone spends on the message (part of both whole and floor).
            const ts = performance.now();
            Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/didChange', params }));
            serialise.push(performance.now() - ts);
          }
          const wait = s.next(uri, version);
          send = async () => {
            await s.conn.sendNotification(rpc.DidChangeTextDocumentNotification.type, params);
            await wait;
          };
        }
        const c = cpuMs(s.proc.pid);
        const t = performance.now();
        await send();
        const done = performance.now();
        await noWork();
        if (round < 0) continue;
        wall[kind].push(done - t);
        cpu[kind].push(cpuMs(s.proc.pid) - c);
      }
    }
    const rss = peakRssMb(s.proc.pid);
    for (const kind of KINDS) {
      console.log(
        [
          server.name.padEnd(21),
          String(n).padStart(5),
          openMs.toFixed(0).padStart(7),
          kind.padEnd(7),
          String(wall[kind].length).padStart(6),
          median(wall[kind]).toFixed(1).padStart(9),
          quantile(wall[kind], 0.95).toFixed(1).padStart(6),
          Math.max(...wall[kind])
            .toFixed(1)
            .padStart(6),
          fmt(median(cpu[kind])).padStart(20),
          String(opened.diagnostics.length).padStart(8),
          rss.toFixed(0).padStart(11),
        ].join('  '),
      );
    }
    // Round by round: (whole-text edit - its no-work twin) - (range edit - its no-work twin).
    const paired = (m) => m.whole.map((w, i) => w - m.floor[i] - (m.range[i] - m.tiny[i]));
    const own = (m, kind, base) => median(m[kind].map((x, i) => x - m[base][i]));
    summary[server.name] = {
      wall,
      cpu,
      serialise: median(serialise),
      delay: server.name === 'yaml-language-server' ? YAML_LS_DELAY : 0,
      ownWall: { whole: own(wall, 'whole', 'floor'), range: own(wall, 'range', 'tiny') },
      ownCpu: { whole: own(cpu, 'whole', 'floor'), range: own(cpu, 'range', 'tiny') },
      pairedWall: medianWithInterval(paired(wall)),
      pairedCpu: Number.isFinite(median(cpu.whole)) ? medianWithInterval(paired(cpu)) : { median: NaN },
    };
    s.conn.dispose();
    s.proc.kill();
  }
  const ours = summary['kube-windows'];
  const peer = summary['yaml-language-server'];
  for (const kind of peer ? ['range', 'whole'] : [])
    console.log(
      `${KIND_NAMES[kind]} -> diagnostics at ${n} documents: kube-windows is ${(median(peer.wall[kind]) / median(ours.wall[kind])).toFixed(0)}x faster than yaml-language-server (median), ${((median(peer.wall[kind]) - peer.delay) / median(ours.wall[kind])).toFixed(0)}x without its fixed delay`,
    );
  for (const [name, m] of Object.entries(summary)) {
    console.log(
      `${name} at ${n} documents: edit -> diagnostics median: range ${fmt(median(m.wall.range))} ms, whole-text ${fmt(median(m.wall.whole))} ms. ` +
        `The transport of the whole text (${KIND_NAMES.floor}): ${fmt(median(m.wall.floor))} ms, ${fmt(median(m.cpu.floor))} ms of the server's CPU, ${fmt(m.serialise)} ms of the client's JSON serialisation. ` +
        `The server's own work (an edit less its no-work twin): whole-text ${fmt(m.ownWall.whole)} ms (CPU ${fmt(m.ownCpu.whole)} ms), range ${fmt(m.ownWall.range)} ms (CPU ${fmt(m.ownCpu.range)} ms); ` +
        `whole-text - range, round by round: wall ${verdict(m.pairedWall)}; CPU ${verdict(m.pairedCpu)}`,
    );
  }
}
