// Fuzzing for a time budget (KW_FUZZ_SECONDS, default 60: two thirds for the engine, one third for
// the fixes), from every YAML the repository holds (examples, test fixtures, the corpus) mutated with
// what people and tools really do to YAML: byte flips, line deletions and duplications, indentation
// shifts, key renames, anchors and aliases, tabs, a BOM, CRLF, NUL and very long scalars.
// The engine: checkText never throws, answers each input within PER_INPUT_MS, keeps every finding
// inside the text. The fixes: every fixable finding's first fix, applied alone, gives YAML that
// loads, removes that finding, leaves the other documents byte for byte, keeps every comment it did
// not touch, and changes the parsed document under one path only.
// A failure names its seed: KW_SEED=<seed> reruns that input first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkText } from '../../src/core/rules/checker';
import { loadManifest } from '../../src/core/manifest/document';
import { LineIndex } from '../../src/core/manifest/text';
import { applyTextEdits, type TextEdit } from '../../src/core/manifest/edits';
import type { Finding } from '../../src/core/rules/types';
import { Rng, mutate, seedFromEnv, toCrlf, withSeed } from '../support/yaml-gen';
import { cpuMillis } from '../support/cpu-time';

const ROOT = resolve(__dirname, '..', '..', '..');
const BUDGET_MS = Number(process.env.KW_FUZZ_SECONDS ?? 60) * 1000;
const PER_INPUT_MS = 2000;
const FIRST_SEED = seedFromEnv(7_000_003);

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name) && statSync(p).size < 2_000_000) out.push(readFileSync(p, 'utf8'));
  }
  return out;
}

const SOURCES = [
  ...yamlFiles(join(ROOT, 'examples')),
  ...yamlFiles(join(ROOT, 'test', 'fixtures')),
  ...yamlFiles('/work/shared/corpus'),
];

const KEYS = [
  'name',
  'image',
  'nodeSelector',
  'tolerations',
  'securityContext',
  'runAsUser',
  'hostNetwork',
  'spec',
  'template',
  'containers',
  'kind',
  'apiVersion',
  'metadata',
];

/** One mutation of the kinds the shared generator does not make. */
function mutateMore(r: Rng, text: string): string {
  const lines = text.split('\n');
  const l = r.int(Math.max(1, lines.length));
  switch (r.int(8)) {
    case 0: {
      // A byte flip: one UTF-16 unit replaced by a random one (control characters included).
      if (!text) return text;
      const at = r.int(text.length);
      return text.slice(0, at) + String.fromCharCode(r.int(0x3000)) + text.slice(at + 1);
    }
    case 1:
      return `\uFEFF${text}`;
    case 2: {
      const at = r.int(text.length + 1);
      return `${text.slice(0, at)}\0${text.slice(at)}`;
    }
    case 3: {
      // A key renamed to another known key (a duplicate, or a field in the wrong place).
      const m = /^(\s*-?\s*)([A-Za-z][\w.-]*):/.exec(lines[l] ?? '');
      if (m) lines[l] = `${m[1]}${r.pick(KEYS)}:${lines[l]!.slice(m[0].length)}`;
      return lines.join('\n');
    }
    case 4: {
      // An anchor on one value and an alias to it elsewhere.
      const m = /^(\s*[\w.-]+:)\s+(\S.*)$/.exec(lines[l] ?? '');
      if (m) lines[l] = `${m[1]} &fz ${m[2]}`;
      const k = r.int(lines.length);
      const n = /^(\s*[\w.-]+:)\s+\S.*$/.exec(lines[k] ?? '');
      if (n) lines[k] = `${n[1]} *fz`;
      return lines.join('\n');
    }
    case 5: {
      const m = /^(\s*[\w.-]+:)\s+\S.*$/.exec(lines[l] ?? '');
      if (m) lines[l] = `${m[1]} ${'x'.repeat(50_000 + r.int(100_000))}`;
      return lines.join('\n');
    }
    case 6:
      lines[l] = (lines[l] ?? '').replace(/^( {2})+/, (s) => '\t'.repeat(s.length / 2));
      return lines.join('\n');
    default:
      // Indentation shifted for a run of lines.
      for (let i = l; i < Math.min(lines.length, l + 1 + r.int(6)); i++)
        lines[i] = r.chance(0.5) ? ` ${lines[i]}` : lines[i]!.replace(/^ /, '');
      return lines.join('\n');
  }
}

function fuzzInput(r: Rng): string {
  let text = SOURCES.length > 0 && r.chance(0.9) ? r.pick(SOURCES) : '';
  const n = r.int(5);
  for (let i = 0; i < n; i++) text = r.chance(0.5) ? mutate(r, text) : mutateMore(r, text);
  if (r.chance(0.15)) text = toCrlf(text);
  return text;
}

/** Runs `body` on seeded inputs until the budget is spent; the first seed is KW_SEED when set. */
function forBudget(ms: number, body: (seed: number, text: string) => void): number {
  const end = Date.now() + ms;
  let n = 0;
  for (let seed = FIRST_SEED; n === 0 || Date.now() < end; seed = (seed + 1) >>> 0, n++) {
    const text = fuzzInput(new Rng(seed));
    // An input that never comes back cannot be timed from inside: KW_FUZZ_TRACE names each seed first.
    if (process.env.KW_FUZZ_TRACE) writeSync(2, `seed ${seed}\n`);
    withSeed(seed, 'fuzzed input', () => body(seed, text));
  }
  return n;
}

function assertFindingsInside(text: string, findings: Finding[]): void {
  for (const f of findings) {
    assert.ok(
      f.span.start >= 0 && f.span.start <= f.span.end && f.span.end <= text.length,
      `${f.ruleId} span ${JSON.stringify(f.span)} outside the text (${text.length})`,
    );
    assert.ok(
      f.range.start.line <= f.range.end.line && f.range.start.line >= 0,
      `${f.ruleId} range ${JSON.stringify(f.range)}`,
    );
  }
}

test(`fuzz for a budget: checkText never throws, answers each input within ${PER_INPUT_MS} ms, keeps every finding inside the text`, () => {
  assert.ok(SOURCES.length >= 10, `${SOURCES.length} YAML files to start from`);
  const t0 = Date.now();
  let slowest = 0;
  const inputs = forBudget((BUDGET_MS * 2) / 3, (_seed, text) => {
    const s = cpuMillis();
    const result = checkText(text);
    const ms = cpuMillis() - s;
    slowest = Math.max(slowest, ms);
    assert.ok(ms < PER_INPUT_MS, `took ${ms.toFixed(0)} ms`);
    assert.deepEqual(result.ruleErrors, []);
    assertFindingsInside(text, result.findings);
  });
  console.log(
    `engine fuzz: ${inputs} inputs in ${((Date.now() - t0) / 1000).toFixed(1)} s from ${SOURCES.length} files, slowest ${slowest.toFixed(0)} ms (first seed ${FIRST_SEED})`,
  );
});

type Path = (string | number)[];

/** Paths where two parsed values differ (a whole subtree counts once). */
function differences(a: unknown, b: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (Object.is(a, b)) return out;
  const objA = typeof a === 'object' && a !== null;
  const objB = typeof b === 'object' && b !== null;
  if (!objA || !objB || Array.isArray(a) !== Array.isArray(b)) {
    out.push(path);
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) {
    out.push(path);
    return out;
  }
  const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
  for (const k of keys)
    differences(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
      [...path, Array.isArray(a) ? Number(k) : k],
      out,
    );
  return out;
}

function commonPrefix(paths: Path[]): Path {
  if (paths.length === 0) return [];
  let prefix = paths[0]!;
  for (const p of paths) {
    let i = 0;
    while (i < prefix.length && i < p.length && prefix[i] === p[i]) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}

const comments = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('#'));

test('fuzz for a budget: each fix alone loads, removes its finding, and changes nothing else', () => {
  const t0 = Date.now();
  let verified = 0;
  const inputs = forBudget(BUDGET_MS / 3, (_seed, text) => {
    // Whether a text with a NUL loads depends on where the NUL falls (only the first 8 KiB are
    // sniffed for binary data), so a fix that moves it can turn the file "binary": not a fix's fault.
    if (text.includes('\0')) return;
    const before = checkText(text);
    const fixable = before.findings.filter((f) => f.fixes.length > 0).slice(0, 6);
    if (fixable.length === 0) return;
    const file = loadManifest(text);
    const lines = new LineIndex(text);
    for (const f of fixable) {
      const edits: TextEdit[] = f.fixes[0]!.edits.map((e) => ({
        span: { start: lines.offsetAt(e.range.start), end: lines.offsetAt(e.range.end) },
        newText: e.newText,
      }));
      for (const e of edits)
        assert.ok(
          e.span.start >= 0 && e.span.end <= text.length && e.span.start <= e.span.end,
          `${f.ruleId}: fix edit outside the text`,
        );
      const out = applyTextEdits(text, edits);
      const after = loadManifest(out);
      const doc = file.documents[f.document]!;
      const fixedDoc = after.documents[f.document];
      assert.equal(
        after.documents.length,
        file.documents.length,
        `${f.ruleId}: the fix changed the number of documents`,
      );
      assert.equal(
        fixedDoc?.status,
        doc.status === 'ok' ? 'ok' : fixedDoc?.status,
        `${f.ruleId}: the fixed document no longer loads (${fixedDoc?.reason})\n${out}`,
      );
      for (const d of file.documents)
        if (d.index !== f.document)
          assert.equal(after.documents[d.index]!.text, d.text, `${f.ruleId}: document ${d.index} changed`);
      // The finding itself (its rule and message, which names its path) is gone; another place the
      // same rule then reports is a finding of its own.
      const count = (r: ReturnType<typeof checkText>) =>
        r.findings.filter((x) => x.ruleId === f.ruleId && x.document === f.document && x.message === f.message).length;
      const recheck = checkText(out);
      assert.ok(
        count(recheck) < count(before),
        `${f.ruleId} (${f.fixes[0]!.title}): still ${count(recheck)} finding(s) after its fix\n--- before\n${doc.text}\n--- after\n${fixedDoc?.text}`,
      );
      const touched = new Set<string>();
      for (const e of edits) for (const c of comments(text.slice(e.span.start, e.span.end))) touched.add(c);
      const kept = new Set(comments(fixedDoc!.text));
      for (const c of comments(doc.text))
        if (!touched.has(c)) assert.ok(kept.has(c), `${f.ruleId}: comment ${JSON.stringify(c)} lost`);
      if (doc.status === 'ok') {
        const changed = differences(doc.value, fixedDoc!.value);
        assert.ok(changed.length > 0, `${f.ruleId}: the fix changed nothing in the document`);
        if (changed.some((p) => p.length === 1 && p[0] === 'kind')) {
          // A conversion (DeploymentConfig to Deployment) rewrites the object around its pod: the
          // metadata and the pod template must come through whole.
          const whole = (v: unknown, k: string) => (v as Record<string, unknown> | null)?.[k];
          assert.deepEqual(
            whole(fixedDoc!.value, 'metadata'),
            whole(doc.value, 'metadata'),
            `${f.ruleId}: metadata lost`,
          );
          assert.deepEqual(
            whole(whole(fixedDoc!.value, 'spec'), 'template'),
            whole(whole(doc.value, 'spec'), 'template'),
            `${f.ruleId}: pod template lost`,
          );
        } else {
          assert.ok(
            commonPrefix(changed).length >= 1,
            `${f.ruleId}: the fix changed ${JSON.stringify(changed)}: more than one place`,
          );
        }
      }
      verified++;
    }
  });
  console.log(
    `fix fuzz: ${verified} fixes verified on ${inputs} inputs in ${((Date.now() - t0) / 1000).toFixed(1)} s (first seed ${FIRST_SEED})`,
  );
  assert.ok(verified > 0, 'no fix was verified');
});
