// Seeded fuzzing: real-world and generated manifests, mutated by deleting, duplicating and swapping
// characters and lines and by inserting YAML syntax. Whatever comes in, checkText answers quickly
// without throwing or rule errors, documents that load keep exact positions, edits either apply
// cleanly or refuse, and fixText never breaks the YAML nor adds findings of the rules it fixed.
// Reproduce a failure with KW_SEED=<seed printed in the message>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkText } from '../../src/core/rules/checker';
import { fixText } from '../../src/core/rules/fix';
import { loadManifest } from '../../src/core/manifest/document';
import { applyTextEdits, EditError, opToEdits, type EditOp } from '../../src/core/manifest/edits';
import { spanFor } from '../../src/core/manifest/path';
import { allPaths } from '../support/edit-oracle';
import { positionProblems } from '../support/positions';
import { Rng, genDocument, genStream, genWorkload, mutate, seedFromEnv, toCrlf, withSeed } from '../support/yaml-gen';
import { cpuMillis } from '../support/cpu-time';

// The corpus vendored in the repository (test/fixtures/corpus), else the shared one it came from.
const CORPUS =
  [join(resolve(__dirname, '..', '..', '..'), 'test', 'fixtures', 'corpus'), '/work/shared/corpus'].find((d) =>
    existsSync(d),
  ) ?? '';
const PER_INPUT_MS = 2000;

function corpusTexts(): string[] {
  if (!CORPUS) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(name)) out.push(readFileSync(p, 'utf8'));
    }
  };
  walk(CORPUS);
  return out;
}

const corpus = corpusTexts();

/** A starting text: a corpus file, generated workloads, or a generated document in every style. */
function seedText(r: Rng): string {
  const roll = r.int(10);
  if (roll < 4 && corpus.length > 0) return r.pick(corpus);
  if (roll < 8) {
    const n = 1 + r.int(4);
    return Array.from({ length: n }, (_, i) => genWorkload(r, i)).join(r.chance(0.5) ? '---\n' : '\n---\n');
  }
  return r.chance(0.5) ? genDocument(r) : genStream(r, 1 + r.int(3));
}

function fuzzInput(r: Rng): string {
  let text = seedText(r);
  const n = r.int(6);
  for (let i = 0; i < n; i++) text = mutate(r, text);
  if (r.chance(0.15)) text = toCrlf(text);
  return text;
}

function count(ids: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const id of ids) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
}

test('fuzz: checkText never throws, never reports rule errors, and answers each input quickly', () => {
  const base = seedFromEnv(1_000_003);
  let slowest = 0;
  for (let i = 0; i < 700; i++) {
    const seed = base + i;
    const r = new Rng(seed);
    const text = fuzzInput(r);
    withSeed(seed, 'checkText on a mutated manifest', () => {
      const t0 = cpuMillis();
      const result = checkText(text);
      const ms = cpuMillis() - t0;
      slowest = Math.max(slowest, ms);
      assert.deepEqual(result.ruleErrors, [], text);
      assert.ok(ms < PER_INPUT_MS, `took ${ms.toFixed(0)} ms`);
      for (const f of result.findings) {
        assert.ok(
          f.span.start >= 0 && f.span.start <= f.span.end && f.span.end <= text.length,
          `${f.ruleId} span ${JSON.stringify(f.span)} outside the text`,
        );
        assert.ok(f.message.length > 0 && !/\n\s+at /.test(f.message), `${f.ruleId} message: ${f.message}`);
      }
    });
  }
  assert.ok(slowest < PER_INPUT_MS);
});

test('fuzz: documents that still load keep exact positions, and every edit applies or refuses cleanly', () => {
  const base = seedFromEnv(2_000_003);
  let loaded = 0;
  let edits = 0;
  for (let i = 0; i < 500; i++) {
    const seed = base + i;
    const r = new Rng(seed);
    const text = fuzzInput(r);
    withSeed(seed, 'positions and edits of a mutated manifest', () => {
      const file = loadManifest(text);
      for (const doc of file.documents) {
        if (doc.status !== 'ok') continue;
        loaded++;
        assert.deepEqual(positionProblems(doc, 5), [], doc.text);
        const paths = allPaths(doc.value).slice(0, 400);
        for (const p of paths) for (const t of ['key', 'value', 'pair'] as const) spanFor(doc.tree(), p, t);
        if (paths.length === 0) continue;
        const path = r.pick(paths);
        const ops: EditOp[] = [
          { op: 'delete', path, keep: r.int(path.length) },
          { op: 'set', path, value: r.pick(['x', 7, { a: [1] }, 'two\nlines']) },
          { op: 'set', path: [...path.slice(0, -1), 'added'], value: { k: 'v' }, first: r.chance(0.5) },
          { op: 'append', path, value: r.pick(['x', { name: 'y' }]) },
        ];
        if (typeof path[path.length - 1] === 'string')
          ops.push(
            { op: 'renameKey', path, newKey: 'renamedKey' },
            { op: 'replacePair', path, key: 'replacedKey', value: 'v' },
          );
        for (const op of ops) {
          let out: string;
          try {
            out = applyTextEdits(doc.text, opToEdits({ text: doc.text, root: doc.tree(), newline: file.newline }, op));
          } catch (e) {
            assert.ok(e instanceof EditError, `${JSON.stringify(op)} threw ${String(e)}`);
            continue;
          }
          edits++;
          const after = loadManifest(out).documents;
          for (const d of after) {
            // Keys renamed or added next to existing ones may collide; anything else must still load.
            if (d.status === 'syntax-error' && /duplicated mapping key/.test(d.reason ?? '')) continue;
            assert.ok(
              d.status === 'ok' || d.status === 'empty',
              `${JSON.stringify(op)} broke the document (${d.reason}):\n--- before\n${doc.text}\n--- after\n${out}`,
            );
          }
        }
      }
    });
  }
  assert.ok(loaded > 300, `${loaded} documents loaded`);
  assert.ok(edits > 300, `${edits} edits applied`);
});

test('fuzz: fixText output parses again and has no more findings of the rules it fixed', () => {
  const base = seedFromEnv(3_000_017);
  let fixed = 0;
  for (let i = 0; i < 150; i++) {
    const seed = base + i;
    const r = new Rng(seed);
    // Fewer mutations here: the point is texts that have fixable findings.
    let text = seedText(r);
    if (r.chance(0.5)) text = mutate(r, text);
    if (r.chance(0.2)) text = toCrlf(text);
    withSeed(seed, 'fixText on a manifest', () => {
      const before = checkText(text);
      const t0 = cpuMillis();
      const out = fixText(text);
      assert.ok(cpuMillis() - t0 < PER_INPUT_MS * 3, 'fixText is slow');
      assert.deepEqual(out.result.ruleErrors, []);
      const after = checkText(out.text);
      const yamlBefore = before.findings.filter((f) => f.ruleId === 'YAML001').length;
      const yamlAfter = after.findings.filter((f) => f.ruleId === 'YAML001').length;
      assert.ok(
        yamlAfter <= yamlBefore,
        `a fix broke the YAML:\n--- before\n${text}\n--- after\n${out.text}\n${after.findings
          .filter((f) => f.ruleId === 'YAML001')
          .map((f) => f.message)
          .join('\n')}`,
      );
      const fixedRules = new Set(before.findings.filter((f) => f.fixes.length > 0).map((f) => f.ruleId));
      const nBefore = count(before.findings.map((f) => f.ruleId));
      const nAfter = count(after.findings.map((f) => f.ruleId));
      for (const id of fixedRules) {
        assert.ok(
          (nAfter.get(id) ?? 0) <= (nBefore.get(id) ?? 0),
          `${id}: ${nBefore.get(id)} findings before the fixes, ${nAfter.get(id)} after:\n--- before\n${text}\n--- after\n${out.text}`,
        );
      }
      if (out.applied > 0) fixed++;
      // Fixes leave the text alone where nothing was fixed, and the CRLF convention is kept.
      if (out.applied === 0) assert.equal(out.text, text);
      if (text.includes('\r\n') && !/(^|[^\r])\n/.test(text))
        assert.ok(!/(^|[^\r])\n/.test(out.text), 'a fix wrote a bare LF into a CRLF file');
    });
  }
  assert.ok(fixed > 20, `${fixed} texts fixed`);
});
