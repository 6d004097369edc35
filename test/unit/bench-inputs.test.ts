// The benchmark's inputs and its side-by-side tools (scripts/bench*): the varied generator really
// varies the shapes a check meets (kinds, probes, ports, resources, windowsOptions) and gives every
// document a finding, and a linter that cannot be built is skipped with the reason, never a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { splitDocuments } from '../../src/core/manifest/split';
import { checkText, gatherFacts } from '../../src/core/rules/checker';
import { generateVaried } from '../../scripts/bench/generate-varied.mjs';

const ROOT = resolve(__dirname, '..', '..', '..');

test('the varied bench input: six workload kinds, every probe type, ports, resources and windowsOptions in many forms', () => {
  const text = generateVaried(600);
  const kinds = new Set([...text.matchAll(/^kind: (\w+)$/gm)].map((m) => m[1]));
  assert.deepEqual([...kinds].sort(), ['CronJob', 'DaemonSet', 'Deployment', 'Job', 'Pod', 'StatefulSet']);
  for (const shape of ['httpGet:', 'tcpSocket:', 'exec:', 'grpc:', 'containerPort:', '{containerPort:', 'limits:']) {
    assert.ok(text.includes(shape), shape);
  }
  for (const shape of ['runAsUserName:', 'gmsaCredentialSpecName:', 'initContainers:', 'affinity:', 'envFrom:', '- |'])
    assert.ok(text.includes(shape), shape);
  // Not one shape repeated: documents of one kind differ in size.
  const sizes = new Set(splitDocuments(text).map((s) => s.end - s.start));
  assert.ok(sizes.size > 300, `${sizes.size} distinct document sizes`);
  assert.equal(generateVaried(600), text, 'the same input every run');
});

test('the varied bench input, dense: every document has a finding, and the findings are of many rules', () => {
  const text = generateVaried(300);
  const result = checkText(text, { facts: gatherFacts([text]) });
  const docs = splitDocuments(text).length;
  const withFinding = new Set(result.findings.map((f) => f.document));
  assert.equal(withFinding.size, docs);
  assert.ok(new Set(result.findings.map((f) => f.ruleId)).size >= 10);
  assert.deepEqual(result.ruleErrors, []);
  const sparse = generateVaried(300, { findings: 'sparse' });
  assert.ok(checkText(sparse).findings.length < result.findings.length);
});

test('a linter that cannot be built (no Go toolchain) is skipped with the reason', () => {
  const cache = mkdtempSync(join(tmpdir(), 'kw-linters-'));
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'bench', 'linters.mjs')], {
    env: { ...process.env, KW_APISERVER_CACHE: cache, GO: join(cache, 'no-such-go') },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^kube-score: skipped: no Go toolchain .*kube-score@v1\.20\.0/m);
  assert.match(r.stdout, /^kubeconform: skipped: no Go toolchain .*kubeconform@v0\.8\.0/m);
});

test("the bench's process probe: peak RSS, CPU of the whole process, and of its main thread alone", () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-rss-'));
  const file = join(dir, 'rss.txt');
  // A worker thread does the same work as the main thread: its CPU counts for the process, not for the main thread.
  const spin = 'let x=0;for(let i=0;i<3e8;i++)x=(x+i)%7;';
  const script = `const {Worker}=require('worker_threads');const w=new Worker(${JSON.stringify(spin)},{eval:true});w.on('exit',()=>{${spin}});`;
  const r = spawnSync(process.execPath, ['-r', join(ROOT, 'scripts', 'bench', 'rss.cjs'), '-e', script], {
    env: { ...process.env, KW_RSS_FILE: file },
  });
  assert.equal(r.status, 0, String(r.stderr));
  const [rssKb, cpuUs, mainUs] = readFileSync(file, 'utf8').trim().split(' ').map(Number);
  assert.ok(rssKb > 10_000, `${rssKb} KiB`);
  if (process.platform !== 'linux') return assert.equal(mainUs, -1);
  assert.ok(mainUs >= 50_000, `main thread ${mainUs} µs`);
  assert.ok(cpuUs - mainUs >= mainUs / 2, `process ${cpuUs} µs, main thread ${mainUs} µs: the worker did as much`);
});
