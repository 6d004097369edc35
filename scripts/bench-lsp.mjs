// `npm run bench:lsp`: our language server and yaml-language-server (with the Kubernetes
// Deployment schema from ../shared/peer) on the same generated files of 100, 1000 and 5000
// Windows Deployments, in one run: time from open to first diagnostics, the distribution (median,
// p95, max) of the time from a one-character edit to fresh diagnostics (100 edits for us, 20 for
// yaml-language-server, whose edits take seconds), sent as a range edit and as the whole new text
// (as clients that sync full documents send it), the server's share of it (from the message written
// to the pipe), how many times faster we are, and peak RSS.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
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
    args: [join(root, 'dist', 'server.js'), '--stdio'],
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

if (!existsSync(schema)) {
  console.error(`peer schema not found: ${schema} (set KW_PEER_SCHEMA)`);
  process.exit(2);
}
const dir = join(root, 'bench', 'tmp');
mkdirSync(dir, { recursive: true });
console.log(
  `LSP bench: node ${process.version}; one-character edits (${EDITS} for kube-windows, ${PEER_EDITS} for yaml-language-server); yaml-language-server validates ${YAML_LS_DELAY} ms after an edit (fixed), we use debounceMs 0`,
);
console.log(
  'server                  docs  open_ms  sync   edits  edit_median_ms  edit_p95_ms  edit_max_ms  server_median_ms  edit_median_minus_delay  findings  peak_rss_mb',
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
  const medians = {};
  for (const server of servers) {
    const s = await start(server);
    const t0 = performance.now();
    const first = s.next(uri, 1);
    await s.conn.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'yaml', version: 1, text },
    });
    const opened = await first;
    const openMs = performance.now() - t0;
    // The same one-character edit sent both ways, alternately (so that the machine's load falls on
    // both alike): as a range (most clients) and as the whole new text (clients that sync the full
    // document on every change). `server` is the time from the message written to the pipe to the
    // diagnostics: the end-to-end time less what the client spends serialising and writing it.
    let current = text;
    let version = 1;
    const results = { range: { total: [], server: [] }, whole: { total: [], server: [] } };
    const offset = lineStarts[replicaLine] + col;
    for (let e = 0; e < server.edits; e++) {
      for (const sync of ['range', 'whole']) {
        version++;
        const digit = String((version % 8) + 1);
        current = current.slice(0, offset) + digit + current.slice(offset + 1);
        const wait = s.next(uri, version);
        const t = performance.now();
        await s.conn.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
          textDocument: { uri, version },
          contentChanges: [
            sync === 'range'
              ? {
                  range: {
                    start: { line: replicaLine, character: col },
                    end: { line: replicaLine, character: col + 1 },
                  },
                  text: digit,
                }
              : { text: current },
          ],
        });
        const sent = performance.now();
        await wait;
        const done = performance.now();
        results[sync].total.push(done - t);
        results[sync].server.push(done - sent);
      }
    }
    // The floor under any whole-text edit: a request as large as the file, which the server parses
    // and answers with no work (hover on a document it does not have), timed the same way.
    const floor = [];
    for (let e = 0; e < Math.min(server.edits, 20); e++) {
      const t = performance.now();
      await s.conn
        .sendRequest('textDocument/hover', {
          textDocument: { uri: `${uri}.absent` },
          position: { line: 0, character: 0 },
          padding: current,
        })
        .catch(() => null); // an error answer is as good a reply for the timing
      floor.push(performance.now() - t);
    }
    const rss = peakRssMb(s.proc.pid);
    const delay = server.name === 'yaml-language-server' ? YAML_LS_DELAY : 0;
    for (const sync of ['range', 'whole']) {
      const times = results[sync].total;
      console.log(
        [
          server.name.padEnd(21),
          String(n).padStart(5),
          openMs.toFixed(0).padStart(7),
          sync.padEnd(5),
          String(times.length).padStart(5),
          median(times).toFixed(1).padStart(14),
          quantile(times, 0.95).toFixed(1).padStart(11),
          Math.max(...times)
            .toFixed(1)
            .padStart(11),
          median(results[sync].server).toFixed(1).padStart(16),
          (median(times) - delay).toFixed(1).padStart(23),
          String(opened.diagnostics.length).padStart(8),
          rss.toFixed(0).padStart(11),
        ].join('  '),
      );
    }
    medians[server.name] = {
      range: median(results.range.total),
      whole: median(results.whole.total),
      rangeServer: median(results.range.server),
      wholeServer: median(results.whole.server),
      floor: median(floor),
      delay,
    };
    s.conn.dispose();
    s.proc.kill();
  }
  const ours = medians['kube-windows'];
  const peer = medians['yaml-language-server'];
  for (const sync of ['range', 'whole'])
    console.log(
      `${sync === 'range' ? 'range edit' : 'whole-text edit'} -> diagnostics at ${n} documents: kube-windows is ${(peer[sync] / ours[sync]).toFixed(0)}x faster than yaml-language-server (median), ${((peer[sync] - peer.delay) / ours[sync]).toFixed(0)}x without its fixed delay`,
    );
  console.log(
    `kube-windows at ${n} documents: whole-text edit median ${ours.whole.toFixed(1)} ms (server ${ours.wholeServer.toFixed(1)} ms), range edit median ${ours.range.toFixed(1)} ms (server ${ours.rangeServer.toFixed(1)} ms), a message of the file's size with no work ${ours.floor.toFixed(1)} ms; yaml-language-server: whole-text ${peer.whole.toFixed(1)} ms, range ${peer.range.toFixed(1)} ms`,
  );
}
