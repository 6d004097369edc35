// The language server's part of the compressed day: the real server (dist/server.js over
// stdio, with --expose-gc and the test-only probe of server-probe.cjs on an IPC channel) and a real LSP
// client (vscode-languageserver-protocol), edits typed into many documents as a user does (comments typed
// character by character, image tags, replicas, the OS selector toggled, a document added and removed),
// documents closed and others opened all along, hovers and code actions in between. After warm-up the
// server's heap and RSS stay flat and no count of handles, descriptors or listeners grows.
// KW_SOAK=day runs the whole day (`npm run soak`); KW_SEED changes the edits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  PublishDiagnosticsNotification,
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  HoverRequest,
  CodeActionRequest,
  ShutdownRequest,
  ExitNotification,
} from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { SERVER } from '../support/lsp-client';
import { Rng, seedFromEnv } from '../support/yaml-gen';
import { describe, judge, type Measured, type Sample } from '../support/soak';
import { reportFigures, SOAK_SIZE } from '../support/soak-size';

const PROBE = resolve(__dirname, '..', '..', '..', 'test', 'soak', 'server-probe.cjs');
const SEED = seedFromEnv(30_030_003);
/** Documents open at any time (the rest wait closed; one is swapped every CHURN_EVERY edits). */
const OPEN = 12;
const CHURN_EVERY = 40;
/** Documents edited at once in a round (an editor with splits; the server works on several). */
const PARALLEL = 4;

/** A document of one to three workloads, some Windows with findings, some Linux, one ConfigMap. */
function documentText(i: number): string {
  const parts: string[] = [];
  for (let w = 0; w < 1 + (i % 3); w++) {
    const name = `app-${i}-${w}`;
    parts.push(
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        `metadata:\n  name: ${name}\n  namespace: team-${i % 7}`,
        'spec:',
        `  replicas: ${1 + ((i + w) % 9)}`,
        `  selector:\n    matchLabels:\n      app: ${name}`,
        '  template:',
        `    metadata:\n      labels:\n        app: ${name}`,
        '    spec:',
        `      nodeSelector:\n        kubernetes.io/os: ${(i + w) % 4 === 3 ? 'linux' : 'windows'}`,
        ...((i + w) % 2 === 0 ? ['      securityContext:', '        runAsUser: 1000'] : []),
        '      containers:',
        `        - name: web\n          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc${(i + w) % 2 ? '2019' : '2022'}`,
        ...(w === 1 ? ['          securityContext:', '            privileged: true'] : []),
        '          ports:\n            - containerPort: 80',
      ].join('\n'),
    );
  }
  parts.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-${i}\ndata:\n  mode: "day"`);
  return parts.join('\n---\n') + '\n# notes: ';
}

const EXTRA_DOCUMENT =
  '---\napiVersion: v1\nkind: Service\nmetadata:\n  name: extra\nspec:\n  ports:\n    - port: 80\n';

/** The next edit a user makes in this text: a range and its replacement, always keeping the size bounded. */
function nextEdit(doc: TextDocument, rng: Rng): { start: number; end: number; text: string } {
  const text = doc.getText();
  const swap = (pattern: RegExp, replace: (m: string) => string) => {
    const all = [...text.matchAll(pattern)];
    if (all.length === 0) return undefined;
    const m = rng.pick(all);
    return { start: m.index!, end: m.index! + m[0].length, text: replace(m[0]) };
  };
  const kind = rng.int(10);
  const swapped =
    kind === 0
      ? swap(/ltsc20(19|22)/g, (m) => (m.endsWith('19') ? 'ltsc2022' : 'ltsc2019'))
      : kind === 1
        ? swap(/(?<=replicas: )\d/g, () => String(1 + rng.int(9)))
        : kind === 2
          ? swap(/(?<=kubernetes\.io\/os: )(windows|linux)/g, (m) => (m === 'windows' ? 'linux' : 'windows'))
          : undefined;
  if (swapped) return swapped;
  if (kind === 3) {
    const at = text.indexOf(EXTRA_DOCUMENT);
    if (at >= 0) return { start: at, end: at + EXTRA_DOCUMENT.length, text: '' };
    const notes = text.lastIndexOf('\n# notes: ');
    return { start: notes + 1, end: notes + 1, text: EXTRA_DOCUMENT };
  }
  // Typing in the trailing comment, a character at a time; a long note is deleted in one edit.
  const notes = text.lastIndexOf('# notes: ') + '# notes: '.length;
  if (text.length - notes > 60) return { start: notes, end: text.length, text: '' };
  return { start: text.length, end: text.length, text: rng.pick(['a', 'b', ' ', 'x', 'é', '1', '-']) };
}

test(
  'the language server stays flat over a compressed day of edits, opens and closes',
  { timeout: 3_600_000 },
  async (t) => {
    const size = SOAK_SIZE;
    const started = Date.now();
    const rng = new Rng(SEED);
    const proc = spawn(process.execPath, ['--expose-gc', '--require', PROBE, SERVER, '--stdio'], {
      stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
    });
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr += String(d)));
    const conn = createProtocolConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    // The versions published per document, and who waits for which.
    const waiting = new Map<string, { version: number; resolve: () => void }>();
    const published = new Map<string, number>();
    let errorsSeen = 0;
    conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
      if (p.version !== undefined) published.set(p.uri, p.version);
      const w = waiting.get(p.uri);
      if (w && p.version !== undefined && p.version >= w.version) {
        waiting.delete(p.uri);
        w.resolve();
      }
    });
    conn.onNotification('window/logMessage', (p: { type: number; message: string }) => {
      if (p.type === 1) errorsSeen++;
    });
    conn.onRequest('client/registerCapability', () => null);
    conn.listen();
    const probeAnswers = new Map<number, (m: Measured) => void>();
    proc.on('message', (m: Measured & { sample: number }) => probeAnswers.get(m.sample)?.(m));
    let probes = 0;
    const measure = (): Promise<Measured> =>
      new Promise((res, rej) => {
        const id = ++probes;
        const timer = setTimeout(() => rej(new Error(`the probe did not answer; stderr: ${stderr}`)), 60_000);
        probeAnswers.set(id, (m) => {
          clearTimeout(timer);
          probeAnswers.delete(id);
          res(m);
        });
        proc.send({ sample: id });
      });

    await conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
      initializationOptions: { debounceMs: 0 },
    });
    await conn.sendNotification(InitializedNotification.type, {});

    const uri = (i: number) => `file:///soak/doc-${i}.yaml`;
    const docs = new Map<number, TextDocument>();
    for (let i = 0; i < size.documents; i++) docs.set(i, TextDocument.create(uri(i), 'yaml', 1, documentText(i)));
    const open = new Set<number>();
    const diagnosticsOf = (u: string, version: number): Promise<void> =>
      published.get(u)! >= version
        ? Promise.resolve()
        : new Promise((res, rej) => {
            const timer = setTimeout(
              () => rej(new Error(`no diagnostics for ${u} v${version} within 60 s; stderr: ${stderr}`)),
              60_000,
            );
            waiting.set(u, { version, resolve: () => (clearTimeout(timer), res()) });
          });
    const openDoc = async (i: number) => {
      const d = docs.get(i)!;
      // Reopened with the next version (an editor never reuses one it published for the document).
      const reopened = TextDocument.create(d.uri, 'yaml', d.version + 1, d.getText());
      docs.set(i, reopened);
      open.add(i);
      await conn.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: d.uri, languageId: 'yaml', version: reopened.version, text: reopened.getText() },
      });
      await diagnosticsOf(d.uri, reopened.version);
    };
    const closeDoc = async (i: number) => {
      open.delete(i);
      await conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: uri(i) } });
    };
    for (let i = 0; i < OPEN; i++) await openDoc(i);

    let edits = 0;
    let opens = OPEN;
    let requests = 0;
    const warmUp = Math.round(size.edits * size.warmUp);
    const every = Math.floor((size.edits - warmUp) / (size.samples - 1));
    const samples: Sample[] = [];
    let nextSample = warmUp;
    let nextChurn = CHURN_EVERY;
    while (edits < size.edits) {
      const round = [...open].sort(() => rng.next() - 0.5).slice(0, PARALLEL);
      await Promise.all(
        round.map(async (i) => {
          let d = docs.get(i)!;
          for (let n = 1 + rng.int(3); n > 0; n--) {
            const e = nextEdit(d, rng);
            const change = { range: { start: d.positionAt(e.start), end: d.positionAt(e.end) }, text: e.text };
            d = TextDocument.update(d, [change], d.version + 1);
            edits++;
            await conn.sendNotification(DidChangeTextDocumentNotification.type, {
              textDocument: { uri: d.uri, version: d.version },
              contentChanges: [change],
            });
          }
          docs.set(i, d);
          await diagnosticsOf(d.uri, d.version);
          if (rng.chance(0.05)) {
            const position = d.positionAt(rng.int(d.getText().length));
            requests += 2;
            await conn.sendRequest(HoverRequest.type, { textDocument: { uri: d.uri }, position });
            await conn.sendRequest(CodeActionRequest.type, {
              textDocument: { uri: d.uri },
              range: { start: position, end: position },
              context: { diagnostics: [] },
            });
          }
        }),
      );
      if (edits >= nextChurn) {
        nextChurn += CHURN_EVERY;
        const closing = rng.pick([...open]);
        const closed = [...docs.keys()].filter((i) => !open.has(i));
        await closeDoc(closing);
        await openDoc(rng.pick(closed));
        opens++;
      }
      if (edits >= nextSample || edits >= size.edits) {
        samples.push({ at: edits, ...(await measure()) });
        nextSample += every;
      }
    }

    await Promise.race([conn.sendRequest(ShutdownRequest.type), new Promise((r) => setTimeout(r, 5000))]);
    await conn.sendNotification(ExitNotification.type);
    conn.dispose();
    if (proc.exitCode === null) proc.kill();

    const verdict = judge(samples);
    const minutes = Math.round((Date.now() - started) / 6_000) / 10;
    const figures = { edits, documents: size.documents, opens, requests, samples: samples.length, minutes };
    for (const line of [JSON.stringify(figures), ...describe(verdict)]) t.diagnostic(line);
    reportFigures('language-server', figures, verdict);
    assert.equal(errorsSeen, 0, `the server logged errors; stderr: ${stderr}`);
    assert.ok(edits >= size.edits && samples.length >= size.samples, `${edits} edits, ${samples.length} samples`);
    assert.deepEqual(verdict.problems, [], describe(verdict).join('\n'));
  },
);
