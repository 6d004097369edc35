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
// small message answered with no work. Two figures follow, round by round (paired differences, each
// with its median and mean and their 95% bootstrap intervals: "within noise" when an interval holds
// 0): whole-text against range end to end, what the user waits, and split into the transport of the
// whole text (the big no-work message less the small one) and the server's own work beyond a range
// edit's (each edit less its no-work twin). Besides the wall clock, the server's CPU time per
// message (all its threads, from /proc/PID/task/*/schedstat, on Linux) is measured: unlike the wall
// clock it does not grow when other processes load the machine.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { generateDeployments } from './bench/generate.mjs';
import { describe, median, quantile, roundDifferences, seeded, shuffled, signed } from './bench/stats.mjs';

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

const random = seeded(29);
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
/** Milliseconds of CPU this process (the client) has used. */
const clientCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The diagnostics message's size, and what one side spends serialising it and the other parsing it (CPU, median of 50). */
function diagnosticsCost(params) {
  const message = { jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params };
  const times = { serialise: [], parse: [] };
  let body = '';
  for (let i = 0; i < 50; i++) {
    const c0 = clientCpuMs();
    body = JSON.stringify(message);
    const bytes = Buffer.from(body, 'utf-8');
    const c1 = clientCpuMs();
    JSON.parse(bytes.toString('utf-8'));
    times.serialise.push(c1 - c0);
    times.parse.push(clientCpuMs() - c1);
  }
  return { bytes: Buffer.byteLength(body), serialise: median(times.serialise), parse: median(times.parse) };
}

/**
 * What a whole-text edit costs against a range edit, end to end and split: the client's serialisation,
 * the transport of the whole text (a message of the file's size that the server answers with no work,
 * against a small one: the client's serialisation and write, the pipe, the server's JSON-RPC read), the
 * server's own work, and the diagnostics back (the same message for both edits). Per-round differences
 * (stats.mjs says why both their median and their mean are given).
 */
function report(name, n, m) {
  const rounds = {
    wall: roundDifferences(m.wall),
    cpu: roundDifferences(m.cpu),
    client: roundDifferences(m.clientCpu),
  };
  const e = (xs) => describe(xs, random).text;
  const ofMedians = (kind, base) => median(m.wall[kind]) - median(m.wall[base]);
  console.log(
    [
      `${name} at ${n} documents, whole-text edit against range edit:`,
      `  edit -> diagnostics, median: range ${fmt(median(m.wall.range))} ms, whole-text ${fmt(median(m.wall.whole))} ms (a difference of medians of ${signed(ofMedians('whole', 'range'))} ms)`,
      `  end to end, round by round: wall ${e(rounds.wall.end)}`,
      `    server CPU ${e(rounds.cpu.end)}; client CPU ${e(rounds.client.end)}`,
      `  of which the transport of the whole text (${KIND_NAMES.floor}, less ${KIND_NAMES.tiny}): wall ${e(rounds.wall.transport)}`,
      `    the client's serialisation ${fmt(m.serialise)} ms of CPU, all its sending ${fmt(median(rounds.client.transport))} ms; the server's JSON-RPC read ${fmt(median(rounds.cpu.transport))} ms of CPU; the pipe and the waits for a CPU: the rest of the wall`,
      `  and the server's own work beyond a range edit's (each edit less its no-work twin): wall ${e(rounds.wall.own)}`,
      `    server CPU ${e(rounds.cpu.own)}`,
      `  the diagnostics back (the same for both edits): ${(m.diagnosticsBack.bytes / 1024).toFixed(1)} KB, ${fmt(m.diagnosticsBack.serialise)} ms to serialise, ${fmt(m.diagnosticsBack.parse)} ms to parse`,
    ].join('\n'),
  );
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
  'server                  docs  open_ms  message  rounds  median_ms  p95_ms  max_ms  server_cpu_median_ms  client_cpu_median_ms  findings  peak_rss_mb',
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
    const clientCpu = Object.fromEntries(KINDS.map((k) => [k, []]));
    const serialise = [];
    let lastDiagnostics = opened;
    const warmUp = server.name === 'kube-windows' ? 5 : 1;
    for (let round = -warmUp; round < server.edits; round++) {
      for (const kind of shuffled(KINDS, random)) {
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
            // The client's serialisation alone, as vscode-jsonrpc's encoder does it (part of both
            // the whole-text edit and its no-work twin); CPU, which the machine's load does not blur.
            const c0 = clientCpuMs();
            Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/didChange', params }), 'utf-8');
            serialise.push(clientCpuMs() - c0);
          }
          const wait = s.next(uri, version);
          send = async () => {
            await s.conn.sendNotification(rpc.DidChangeTextDocumentNotification.type, params);
            lastDiagnostics = await wait;
          };
        }
        const c = cpuMs(s.proc.pid);
        const cc = clientCpuMs();
        const t = performance.now();
        await send();
        const done = performance.now();
        await noWork();
        if (round < 0) continue;
        wall[kind].push(done - t);
        cpu[kind].push(cpuMs(s.proc.pid) - c);
        clientCpu[kind].push(clientCpuMs() - cc);
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
          fmt(median(clientCpu[kind])).padStart(20),
          String(opened.diagnostics.length).padStart(8),
          rss.toFixed(0).padStart(11),
        ].join('  '),
      );
    }
    summary[server.name] = {
      wall,
      cpu,
      clientCpu,
      serialise: median(serialise),
      diagnosticsBack: diagnosticsCost(lastDiagnostics),
      delay: server.name === 'yaml-language-server' ? YAML_LS_DELAY : 0,
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
  for (const [name, m] of Object.entries(summary)) report(name, n, m);
}
