// The language server under abuse, through the protocol only (a black box): random incremental
// edits at random positions for thousands of steps over several documents, documents closed and
// opened again, requests cancelled mid-flight, a 30 MB document. The server never dies, the
// diagnostics of the latest version always match a fresh checkText of the same text, and its memory
// stays bounded. Seeded: KW_SEED reproduces; KW_LSP_STEPS sets the number of edits (default 5000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  CancellationTokenSource,
  HoverRequest,
  CodeActionRequest,
  type Diagnostic,
} from 'vscode-languageserver-protocol/node';
import { checkText } from '../../src/core/rules/checker';
import { LineIndex } from '../../src/core/manifest/text';
import { TestClient } from '../support/lsp-client';
import { Rng, seedFromEnv } from '../support/yaml-gen';

const SEED = seedFromEnv(5_000_011);
const STEPS = Number(process.env.KW_LSP_STEPS ?? 5000);
const MAX_RSS_MB = 1024;
const EXAMPLES = resolve(__dirname, '..', '..', '..', 'examples', 'bad');
const SNIPPETS = [
  'x',
  '\n',
  ': ',
  '- ',
  '  ',
  '\t',
  '#',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  '&a ',
  '*a',
  '---\n',
  'hostNetwork: true\n',
  'runAsUser: 0',
  '\r\n',
  'é',
  '😀',
  'kubernetes.io/os: windows',
];

const key = (code: unknown, line: number, character: number, message: string) =>
  `${String(code)} ${line}:${character} ${message}`;

// The server leaves alone YAML that does not look like Kubernetes (an apiVersion line and a kind or
// platform line, docs/editor.md); `check` reads every file it is given.
const looksLikeKubernetes = (text: string): boolean =>
  /^[ \t-]*apiVersion:[ \t]*\S/m.test(text) && (/^[ \t-]*kind:[ \t]*\S/m.test(text) || /^platform:/m.test(text));

function expected(text: string): string[] {
  if (!looksLikeKubernetes(text)) return [];
  return checkText(text)
    .findings.map((f) => key(f.ruleId, f.range.start.line, f.range.start.character, f.message))
    .sort();
}

const got = (ds: Diagnostic[]): string[] =>
  ds
    .map((d) =>
      key(
        d.code,
        d.range.start.line,
        d.range.start.character,
        typeof d.message === 'string' ? d.message : d.message.value,
      ),
    )
    .sort();

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

test(
  `LSP under abuse: ${STEPS} random incremental edits, closes and reopens, cancelled requests, a 30 MB document`,
  { timeout: 600_000 },
  async () => {
    const rng = new Rng(SEED);
    const c = new TestClient();
    const texts = new Map<string, string>();
    let compared = 0;
    let cancelled = 0;
    let cancelSent = 0;
    try {
      await c.initialize();
      const files = readdirSync(EXAMPLES).filter((n) => n.endsWith('.yaml'));
      for (const name of files.slice(0, 4)) {
        const uri = `file:///abuse/${name}`;
        const text = readFileSync(join(EXAMPLES, name), 'utf8');
        texts.set(uri, text);
        await c.open(uri, text);
      }
      const uris = [...texts.keys()];
      const versions = new Map<string, number>(uris.map((u) => [u, 1]));

      const compare = async (uri: string, step: number): Promise<void> => {
        const p = await c.diagnostics(uri, versions.get(uri), 30_000);
        const want = expected(texts.get(uri)!);
        if (JSON.stringify(got(p.diagnostics)) !== JSON.stringify(want)) {
          // Tell an incremental-analysis fault from a wrong text model: the same text, opened afresh.
          await c.close(uri);
          versions.set(uri, await c.open(uri, texts.get(uri)!, 'yaml', versions.get(uri)! + 1));
          const fresh = await c.diagnostics(uri, versions.get(uri), 30_000);
          if (process.env.KW_LSP_DUMP) writeFileSync(process.env.KW_LSP_DUMP, texts.get(uri)!);
          assert.deepEqual(
            got(p.diagnostics),
            want,
            `seed ${SEED}, step ${step}, ${uri}: after the edits the server's diagnostics differ from a fresh check (the same text reopened gives ${JSON.stringify(got(fresh.diagnostics))})\n--- text\n${texts.get(uri)}`,
          );
        }
        compared++;
      };
      for (const u of uris) await compare(u, 0);

      for (let step = 1; step <= STEPS; step++) {
        const uri = rng.pick(uris);
        const text = texts.get(uri)!;
        if (rng.chance(0.01)) {
          // Closed and opened again with the text it had.
          await c.close(uri);
          versions.set(uri, await c.open(uri, text, 'yaml', versions.get(uri)! + 1));
        } else {
          const lines = new LineIndex(text);
          const a = rng.int(text.length + 1);
          const b = rng.chance(0.5) ? a : Math.min(text.length, a + rng.int(20));
          const insert = rng.chance(0.7) ? rng.pick(SNIPPETS) : '';
          // Never split a surrogate pair or a CRLF: the editor would not either.
          const cut = (o: number) =>
            o > 0 && o < text.length && (/[\uDC00-\uDFFF]/.test(text[o]!) || (text[o] === '\n' && text[o - 1] === '\r'))
              ? o - 1
              : o;
          const [s, e] = [cut(a), cut(b)];
          const range = { start: lines.positionAt(s), end: lines.positionAt(e) };
          texts.set(uri, text.slice(0, s) + insert + text.slice(e));
          versions.set(uri, await c.change(uri, [{ range, text: insert }]));
        }
        if (rng.chance(0.05)) {
          // A request cancelled as soon as it is sent: answered or cancelled, never a dead server.
          const source = new CancellationTokenSource();
          const position = new LineIndex(texts.get(uri)!).positionAt(rng.int(texts.get(uri)!.length + 1));
          const req = rng.chance(0.5)
            ? c.conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position }, source.token)
            : c.conn.sendRequest(
                CodeActionRequest.type,
                { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } },
                source.token,
              );
          source.cancel();
          cancelSent++;
          await req.then(
            () => undefined,
            (err: { code?: number }) => {
              assert.equal(
                err.code,
                -32800,
                `seed ${SEED}, step ${step}: a cancelled request failed otherwise: ${JSON.stringify(err)}`,
              );
              cancelled++;
            },
          );
        }
        if (step % 100 === 0 || step === STEPS) {
          for (const u of uris) await compare(u, step);
          assert.ok(c.alive(), `seed ${SEED}, step ${step}: the server died: ${c.stderr}`);
        }
      }

      // 30 MB in one document: an answer (skipped over the size limit, or diagnostics), and still alive.
      const big = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n${'  k: v\n'.repeat(5_000_000)}`;
      const bigUri = 'file:///abuse/big.yaml';
      await c.open(bigUri, big);
      await c.diagnostics(bigUri, 1, 120_000);
      await c.close(bigUri);
      await compare(uris[0]!, STEPS + 1);
      assert.ok(c.alive(), c.stderr);
      const rss = rssMb(c.proc.pid!);
      console.log(
        `lsp abuse: ${STEPS} edit steps, ${compared} comparisons with a fresh check, ${cancelSent} requests cancelled as sent (${cancelled} answered as cancelled, the rest answered), server RSS ${rss.toFixed(0)} MB after a 30 MB document (seed ${SEED})`,
      );
      assert.ok(rss < MAX_RSS_MB, `server RSS ${rss.toFixed(0)} MB`);
    } finally {
      await c.dispose();
    }
  },
);

/** Peak resident memory of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * About `bytes` of YAML: a Windows Deployment with findings every 100 KB, between ConfigMaps of
 * plain data, so that the whole text is parsed and checked (under the 32 MiB limit).
 */
function bigManifest(bytes: number): string {
  const workload = readFileSync(join(EXAMPLES, 'forbidden-security-context.yaml'), 'utf8');
  const filler = (i: number) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: data-${i}}\ndata:\n${Array.from({ length: 1400 }, (_, k) => `  key-${k}: value-${i}-${k}-${'x'.repeat(40)}\n`).join('')}`;
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const part = `${workload.replace('name: api\n', `name: api-${i}\n`)}---\n${filler(i)}---\n`;
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

/** Equal lists of findings; on a difference, says the first one only (a diff of thousands of lines would swamp the runner). */
function sameFindings(actual: string[], want: string[], what: string): void {
  const i = actual.findIndex((a, k) => a !== want[k]);
  const first = i >= 0 ? i : actual.length === want.length ? -1 : Math.min(actual.length, want.length);
  assert.ok(
    first < 0,
    `${what}: ${actual.length} findings, ${want.length} expected; first difference at ${first}: ${JSON.stringify(actual[first])} instead of ${JSON.stringify(want[first])}`,
  );
}

const GIANT_MB = 30;
/** The server's peak RSS with a 30 MB document open, edited and closed (it idles around 100 MB). */
const GIANT_MAX_RSS_MB = 768;
/** How long another document may wait for its diagnostics while the 30 MB one is analysed, on a loaded 2-core machine. */
const OTHER_DOC_BOUND_MS = 120_000;

test(
  `LSP: a ${GIANT_MB} MB manifest opened, edited once and closed: analysed like check, the other documents still answered, memory bounded; over the size limit: not analysed, said so`,
  { timeout: 900_000 },
  async () => {
    const c = new TestClient();
    try {
      await c.initialize();
      const smallUri = 'file:///giant/small.yaml';
      let small = readFileSync(join(EXAMPLES, 'scheduling.yaml'), 'utf8');
      await c.open(smallUri, small);
      assert.deepEqual(got((await c.diagnostics(smallUri, 1, 30_000)).diagnostics), expected(small));

      const big = bigManifest(GIANT_MB * 1_000_000);
      assert.ok(big.length >= GIANT_MB * 1_000_000 && big.length < 32 * 1024 * 1024, `${big.length} characters`);
      const bigUri = 'file:///giant/big.yaml';
      const t0 = Date.now();
      await c.open(bigUri, big);
      // An edit of the small document sent behind the big one: answered within the bound.
      small = `# edited while the big one is analysed\n${small}`;
      const smallV = await c.change(smallUri, [
        {
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          text: '# edited while the big one is analysed\n',
        },
      ]);
      const t1 = Date.now();
      const smallAnswer = await c.diagnostics(smallUri, smallV, OTHER_DOC_BOUND_MS);
      const otherWaitMs = Date.now() - t1;
      assert.deepEqual(got(smallAnswer.diagnostics), expected(small));
      const first = await c.diagnostics(bigUri, 1, 300_000);
      const openMs = Date.now() - t0;
      const want = expected(big);
      assert.ok(want.length > 1000, `${want.length} findings expected`);
      sameFindings(got(first.diagnostics), want, 'the 30 MB document: the same findings as check');

      // One edit in the middle: a workload gets hostNetwork (an incremental change of one line).
      const at = big.indexOf('      os:\n', Math.floor(big.length / 2));
      const edited = `${big.slice(0, at)}      hostNetwork: true\n${big.slice(at)}`;
      const pos = new LineIndex(big).positionAt(at);
      const t2 = Date.now();
      const v2 = await c.change(bigUri, [{ range: { start: pos, end: pos }, text: '      hostNetwork: true\n' }]);
      const second = await c.diagnostics(bigUri, v2, 300_000);
      const editMs = Date.now() - t2;
      sameFindings(
        got(second.diagnostics),
        expected(edited),
        'after the edit: the same findings as check of the edited text',
      );
      assert.ok(second.diagnostics.length > first.diagnostics.length, 'the edit added a finding');

      await c.close(bigUri);
      const published = c.publishedFor(bigUri).length;
      for (const until = Date.now() + 60_000; c.publishedFor(bigUri).length === published && Date.now() < until;)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(c.publishedFor(bigUri).at(-1)?.diagnostics.length, 0, 'closed: its diagnostics are cleared');

      // Over the 32 MiB limit: no analysis, the status says why, and the server goes on.
      const hugeUri = 'file:///giant/huge.yaml';
      await c.open(hugeUri, `${big}${big.slice(0, 5_000_000)}`);
      assert.deepEqual((await c.diagnostics(hugeUri, 1, 120_000)).diagnostics, []);
      // The status follows the (empty) diagnostics.
      for (const until = Date.now() + 60_000; !c.statuses.some((s) => s.uri === hugeUri) && Date.now() < until;)
        await new Promise((r) => setTimeout(r, 20));
      const status = c.statuses.filter((s) => s.uri === hugeUri).at(-1);
      assert.match(
        status?.skipped ?? '',
        /^file is 33 MiB, over the 32 MiB limit for one manifest; split it or raise the limit$/,
      );
      await c.close(hugeUri);

      const smallV2 = await c.change(smallUri, [
        { range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, text: '' },
      ]);
      small = small.slice(small.indexOf('\n') + 1);
      assert.deepEqual(got((await c.diagnostics(smallUri, smallV2, 30_000)).diagnostics), expected(small));
      assert.ok(c.alive(), c.stderr);
      const peak = peakRssMb(c.proc.pid!);
      console.log(
        `lsp giant: ${(big.length / 1e6).toFixed(1)} MB, ${want.length} findings, first diagnostics in ${(openMs / 1000).toFixed(1)} s, after one edit in ${(editMs / 1000).toFixed(1)} s, another document answered in ${(otherWaitMs / 1000).toFixed(1)} s, server peak RSS ${peak.toFixed(0)} MB`,
      );
      assert.ok(peak < GIANT_MAX_RSS_MB, `server peak RSS ${peak.toFixed(0)} MB`);
    } finally {
      await c.dispose();
    }
  },
);
