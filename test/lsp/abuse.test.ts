// The language server under abuse, through the protocol only (a black box): random incremental
// edits at random positions for thousands of steps over several documents, documents closed and
// opened again, requests cancelled mid-flight, a 30 MB document. The server never dies, the
// diagnostics of the latest version always match a fresh checkText of the same text, and its memory
// stays bounded. Seeded: KW_SEED reproduces; KW_LSP_STEPS sets the number of edits (default 5000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CancellationTokenSource, HoverRequest, CodeActionRequest, type Diagnostic } from 'vscode-languageserver-protocol/node';
import { checkText } from '../../src/core/rules/engine';
import { LineIndex } from '../../src/core/manifest/text';
import { TestClient } from '../support/lsp-client';
import { Rng, seedFromEnv } from '../support/yaml-gen';

const SEED = seedFromEnv(Date.now() >>> 0);
const STEPS = Number(process.env.KW_LSP_STEPS ?? 5000);
const MAX_RSS_MB = 1024;
const EXAMPLES = resolve(__dirname, '..', '..', '..', 'examples', 'bad');
const SNIPPETS = ['x', '\n', ': ', '- ', '  ', '\t', '#', '{', '}', '[', ']', '"', "'", '&a ', '*a', '---\n', 'hostNetwork: true\n', 'runAsUser: 0', '\r\n', 'é', '😀', 'kubernetes.io/os: windows'];

const key = (code: unknown, line: number, character: number, message: string) => `${String(code)} ${line}:${character} ${message}`;

// The server leaves alone YAML that does not look like Kubernetes (an apiVersion line and a kind or
// platform line, README "In the editor"); `check` reads every file it is given.
const looksLikeKubernetes = (text: string): boolean => /^[ \t-]*apiVersion:[ \t]*\S/m.test(text) && (/^[ \t-]*kind:[ \t]*\S/m.test(text) || /^platform:/m.test(text));

function expected(text: string): string[] {
  if (!looksLikeKubernetes(text)) return [];
  return checkText(text)
    .findings.map((f) => key(f.ruleId, f.range.start.line, f.range.start.character, f.message))
    .sort();
}

const got = (ds: Diagnostic[]): string[] => ds.map((d) => key(d.code, d.range.start.line, d.range.start.character, typeof d.message === 'string' ? d.message : d.message.value)).sort();

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

test(`LSP under abuse: ${STEPS} random incremental edits, closes and reopens, cancelled requests, a 30 MB document`, { timeout: 600_000 }, async () => {
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
        const cut = (o: number) => (o > 0 && o < text.length && (/[\uDC00-\uDFFF]/.test(text[o]!) || (text[o] === '\n' && text[o - 1] === '\r')) ? o - 1 : o);
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
          : c.conn.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } }, source.token);
        source.cancel();
        cancelSent++;
        await req.then(
          () => undefined,
          (err: { code?: number }) => {
            assert.equal(err.code, -32800, `seed ${SEED}, step ${step}: a cancelled request failed otherwise: ${JSON.stringify(err)}`);
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
});
