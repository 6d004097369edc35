// `check` on several threads (src/cli/check-workers.ts): the built CLI's workers check a tree of many
// files and the parts of one large file, and what comes out is what one thread gives: the same
// results for the pool, the same output (text, JSON, SARIF) and exit code for the command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatherFacts, type CheckOptions } from '../../src/core/rules/checker';
import {
  checkAll,
  defaultThreads,
  enableCheckWorkers,
  MIN_PARALLEL_CHARS,
  type CheckJob,
  type CheckStats,
} from '../../src/cli/check-workers';
import { CLI, runCli } from '../support/run-cli';
import { generateVaried } from '../../scripts/bench/generate-varied.mjs';

/** A tree of `files` files of a few varied workloads each, and one large file: over the size where workers start. */
function inputs(): { dir: string; texts: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'kw-threads-'));
  const texts: string[] = [];
  const many = generateVaried(1200).split(/^---\n/m);
  for (let k = 0; k < 300; k++) {
    const text = many.slice(k * 4, k * 4 + 4).join('---\n');
    const sub = join(dir, 'tree', `team-${k % 9}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `app-${k}.yaml`), text);
    texts.push(text);
  }
  const large = generateVaried(2600, { findings: 'sparse' });
  writeFileSync(join(dir, 'large.yaml'), large);
  texts.push(large);
  return { dir, texts };
}

const { dir, texts } = inputs();
const LARGE = texts[texts.length - 1];

function jobsOf(list: string[]): CheckJob[] {
  const facts = gatherFacts(list);
  return list.map((text) => ({ text, options: { facts } satisfies CheckOptions }));
}

test('the pool: workers check files and parts of a large file, and the results are those of one thread', async () => {
  assert.ok(LARGE.length > MIN_PARALLEL_CHARS, 'the large file alone is checked on several threads');
  enableCheckWorkers(CLI);
  const jobs = jobsOf(texts);
  const one = await checkAll(jobs, 1);
  const stats: CheckStats = { here: 0, workers: 0 };
  const two = await checkAll(jobs, 2, stats);
  assert.ok(stats.workers > 0, `the worker checked a share (${stats.workers} units)`);
  assert.ok(stats.here > 0, `this thread checked a share too (${stats.here} units)`);
  assert.deepEqual(two, one);
  const three: CheckStats = { here: 0, workers: 0 };
  assert.deepEqual(await checkAll(jobs, 3, three), one);
  assert.ok(three.workers > 0);
});

test('the pool: a worker that cannot start leaves its work to this thread, with the same results', async () => {
  enableCheckWorkers(join(dir, 'no-such-launcher.js'));
  try {
    const jobs = jobsOf(texts);
    const stats: CheckStats = { here: 0, workers: 0 };
    const results = await checkAll(jobs, 2, stats);
    assert.equal(stats.workers, 0);
    enableCheckWorkers(CLI);
    assert.deepEqual(results, await checkAll(jobs, 1));
  } finally {
    enableCheckWorkers(CLI);
  }
});

test('the pool: options a worker cannot be sent (a function) are checked on this thread, with the same results', async () => {
  enableCheckWorkers(CLI);
  const jobs = jobsOf(texts).map((j) => ({ ...j, options: { ...j.options, later: () => 1 } as CheckOptions }));
  const stats: CheckStats = { here: 0, workers: 0 };
  const results = await checkAll(jobs, 2, stats);
  assert.equal(stats.workers, 0);
  assert.ok(stats.here > 0);
  assert.deepEqual(results, await checkAll(jobsOf(texts), 1));
});

test('the pool: little text is checked on this thread alone (a worker would cost more than it saves)', async () => {
  enableCheckWorkers(CLI);
  const stats: CheckStats = { here: 0, workers: 0 };
  const small = jobsOf(texts.slice(0, 5));
  assert.deepEqual(await checkAll(small, 2, stats), await checkAll(small, 1));
  assert.deepEqual(stats, { here: 0, workers: 0 });
});

for (const format of ['text', 'json', 'sarif']) {
  for (const what of ['tree', 'large.yaml']) {
    test(`kube-windows check ${what} --format ${format}: the same output and exit code on 1 and 2 threads`, async () => {
      const args = ['check', '--format', format, join(dir, what)];
      const one = await runCli([...args, '--jobs', '1']);
      const two = await runCli([...args, '-j', '2']);
      assert.equal(one.code, 1, one.stderr);
      assert.ok(one.stdout.length > 10_000, 'findings to compare');
      assert.equal(two.code, one.code);
      assert.equal(two.stderr, one.stderr);
      assert.ok(two.stdout === one.stdout, 'identical output');
    });
  }
}

/**
 * Large files whose documents meet at every kind of boundary a part of a file can start or end on:
 * comment-only stretches, `...` and a directive, empty documents, a syntax error, a template, anchors
 * and aliases, `---` inside a block scalar, suppression comments; one with CRLF line ends and a BOM.
 * Each is cut into parts on whole documents (scanning for markers, without parsing) and checked on
 * both threads.
 */
function awkwardFiles(): string {
  const sub = join(dir, 'awkward');
  mkdirSync(sub, { recursive: true });
  const specials = [
    '# only comments in this document\n# and another line\n',
    'kind: ConfigMap\napiVersion: v1\nmetadata: {name: ended}\n...\n%YAML 1.1\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: after-directive}\n',
    '',
    'apiVersion: v1\nkind: Pod\nmetadata: {name: broken\nspec: [\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n',
    'apiVersion: v1\nkind: Pod\nmetadata: {name: aliased}\nspec:\n  nodeSelector: {kubernetes.io/os: windows}\n  containers: [&c {name: a, image: "mcr.microsoft.com/windows/nanoserver:1809", securityContext: {privileged: true}}]\n  initContainers: [*c]\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: scalar}\ndata:\n  file: |\n    ---\n    kind: Pod\n    ...\n',
    '# kube-windows-disable WIN041\napiVersion: v1\nkind: Pod\nmetadata: {name: suppressed}\nspec:\n  os: {name: windows}\n  # kube-windows-disable-next-line WIN002\n  containers: [{name: a, image: x, securityContext: {privileged: true}}]\n',
  ];
  const docs = generateVaried(1100, { findings: 'sparse' }).split(/^---\n/m);
  const mixed = docs.flatMap((d, k) => [d, specials[k % specials.length]]).join('---\n');
  writeFileSync(join(sub, 'mixed.yaml'), mixed);
  writeFileSync(join(sub, 'mixed-crlf.yaml'), `\uFEFF${mixed.replace(/\n/g, '\r\n')}`);
  return sub;
}
const AWKWARD = awkwardFiles();

test('the pool: large files cut where documents meet awkwardly give the results of one thread', async () => {
  enableCheckWorkers(CLI);
  const list = ['mixed.yaml', 'mixed-crlf.yaml'].map((f) => readFileSync(join(AWKWARD, f), 'utf8'));
  assert.ok(list[0].length + list[1].length > MIN_PARALLEL_CHARS);
  const jobs = jobsOf(list);
  const one = await checkAll(jobs, 1);
  const rules = new Set(one.flatMap((r) => r.findings.map((f) => f.ruleId)));
  for (const id of ['YAML001', 'YAML002', 'WIN041']) assert.ok(rules.has(id), `${id} among the findings`);
  const stats: CheckStats = { here: 0, workers: 0 };
  assert.deepEqual(await checkAll(jobs, 2, stats), one);
  assert.ok(stats.workers > 0 && stats.here > 0, `both threads checked parts (${JSON.stringify(stats)})`);
});

for (const format of ['text', 'json', 'sarif']) {
  test(`kube-windows check on large files cut where documents meet awkwardly, --format ${format}: the same on 1 and 2 threads`, async () => {
    const args = ['check', '--format', format, AWKWARD];
    const one = await runCli([...args, '--jobs', '1']);
    const two = await runCli([...args, '--jobs', '2']);
    assert.equal(one.code, 1, one.stderr);
    assert.ok(one.stdout.length > 10_000, 'findings to compare');
    assert.equal(two.code, one.code);
    assert.equal(two.stderr, one.stderr);
    assert.ok(two.stdout === one.stdout, 'identical output');
  });
}

test('the default number of threads: one on 2 cores (measured fastest there), more only where cores are free for them', () => {
  // One checking thread keeps about 1.5 cores busy (V8's collector and compiler run beside it).
  assert.deepEqual(
    [1, 2, 3, 4, 8, 16].map((cores) => defaultThreads(cores)),
    [1, 1, 2, 2, 5, 10],
  );
  assert.ok(defaultThreads() >= 1);
});

test('--jobs takes a positive whole number', async () => {
  const r = await runCli(['check', '--jobs', '0', join(dir, 'large.yaml')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--jobs must be a positive whole number/);
});
