// Hostile input: each case must come back from checkText within 5 s, with a clear message (a YAML00x
// finding or a `skipped` reason), no exception and no stack trace; a broken document in a large
// file must not hide the findings of the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkText, type CheckOptions, type CheckResult } from '../../src/core/rules/checker';
import { fixText } from '../../src/core/rules/fix';
import { Rng } from '../support/yaml-gen';
import { cpuMillis } from '../support/cpu-time';

const LIMIT_MS = 5000; // of CPU time (see cpu-time.ts)

/** checkText, timed; fails on an exception, a rule error, a stack trace in a message, or a slow answer. */
function timedCheck(text: string, options: CheckOptions = {}): CheckResult & { ms: number } {
  const t0 = cpuMillis();
  const result = checkText(text, options);
  const ms = cpuMillis() - t0;
  assert.ok(ms < LIMIT_MS, `took ${ms.toFixed(0)} ms (limit ${LIMIT_MS})`);
  assert.deepEqual(result.ruleErrors, []);
  for (const m of [result.skipped ?? '', ...result.findings.map((f) => f.message)]) {
    assert.ok(!/\n\s+at |Error:|\.ts:\d+|\.js:\d+/.test(m), `a message looks like a stack trace: ${m}`);
    assert.ok(m.length < 1000, `a message is ${m.length} characters long`);
  }
  return { ...result, ms };
}

function only(result: CheckResult, ruleId: string) {
  return result.findings.filter((f) => f.ruleId === ruleId);
}

test('an alias bomb (billion laughs) is reported as too complex, quickly', () => {
  let bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < 10; i++) {
    const [prev, cur] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)];
    bomb += `${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
  }
  const r = timedCheck(bomb);
  const f = only(r, 'YAML003');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /aliases expand this document to more than 100,000 nodes/);
  // The same bomb as mappings, and one document later in the file that is still checked.
  const mapBomb = `${bomb.replace(/\[("lol",?)+\]/, '{x: 1, y: 2}')}---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {kubernetes.io/os: windows}\n  hostPID: true\n  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]\n`;
  const r2 = timedCheck(mapBomb);
  assert.equal(only(r2, 'YAML003').length, 1);
  assert.ok(
    r2.findings.some((x) => x.document === 1 && !x.ruleId.startsWith('YAML')),
    'the pod after the bomb is still checked',
  );
});

test('a merge-key bomb and a self-referencing alias are reported as too complex', () => {
  let merge = 'base: &b {k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7, k8: 8, k9: 9, k10: 10}\n';
  for (let i = 0; i < 2000; i++) merge += `m${i}:\n  <<: [*b, *b, *b]\n`;
  const r = timedCheck(merge);
  assert.equal(only(r, 'YAML003').length, 1);
  assert.match(only(r, 'YAML003')[0].message, /merge keys/);
  const self = timedCheck('a: &a [1, *a]\n');
  assert.match(only(self, 'YAML003')[0].message, /recursive/);
});

test('3 MB of random binary is skipped as binary', () => {
  const r = new Rng(99);
  const bytes = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(256);
  for (const text of [bytes.toString('latin1'), bytes.toString('utf8')]) {
    const res = timedCheck(text);
    assert.match(res.skipped ?? '', /binary/);
    assert.deepEqual(res.findings, []);
  }
  // Without NUL bytes: control characters and undecodable bytes give it away.
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0) bytes[i] = 1;
  assert.match(timedCheck(bytes.toString('utf8')).skipped ?? '', /binary/);
});

test('binary after a valid start is still answered, document by document', () => {
  const r = new Rng(5);
  let junk = '';
  for (let i = 0; i < 200_000; i++) junk += String.fromCharCode(32 + r.int(95));
  const res = timedCheck(`a: 1\n---\n${junk}\n---\nb: 2\n`);
  assert.ok(
    res.findings.every((f) => f.ruleId === 'YAML001' || f.ruleId === 'YAML002'),
    res.findings.map((f) => f.message).join('\n'),
  );
});

test('10 000 levels of flow nesting `[[[…` are reported as too deep', () => {
  for (const text of [
    `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`,
    `a: ${'['.repeat(10_000)}\n`,
    `${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}\n`,
  ]) {
    const r = timedCheck(text);
    const f = only(r, 'YAML003');
    assert.equal(f.length, 1, r.findings.map((x) => x.message).join('\n'));
    assert.match(f[0].message, /nesting is deeper than 256 levels/);
  }
});

test('10 000 levels of block nesting are reported as too deep (or too large)', () => {
  // Compact block sequences: `- - - - … x`.
  const seqs = timedCheck(`${'- '.repeat(10_000)}x\n`);
  assert.match(only(seqs, 'YAML003')[0]?.message ?? '', /nesting is deeper than 256 levels/);
  // Indented block maps, one space per level: 10 000 levels are 50 MB of indentation.
  let maps = '';
  for (let i = 0; i < 10_000; i++) maps += `${' '.repeat(i)}k:\n`;
  const big = timedCheck(maps);
  assert.match(big.skipped ?? '', /over the 32 MiB limit/);
  // 2 000 levels still fit in the size limit: the depth guard answers.
  let fewer = '';
  for (let i = 0; i < 2_000; i++) fewer += `${' '.repeat(i)}k:\n`;
  assert.match(only(timedCheck(fewer), 'YAML003')[0]?.message ?? '', /nesting is deeper than 256 levels/);
  // Nesting within the limit is fine.
  let ok = '';
  for (let i = 0; i < 200; i++) ok += `${'  '.repeat(i)}k${i}:\n`;
  assert.deepEqual(timedCheck(`${ok}${'  '.repeat(200)}leaf: 1\n`).findings, []);
});

test('a 50 MB scalar: skipped by the size limit; under a raised limit it is parsed in time', () => {
  const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  blob: ${'x'.repeat(50 * 1024 * 1024)}\n`;
  const r = timedCheck(text);
  assert.match(
    r.skipped ?? '',
    /^file is 50 MiB, over the 32 MiB limit for one manifest; split it or raise the limit$/,
  );
  const raised = timedCheck(text, { load: { maxBytes: 64 * 1024 * 1024 } });
  assert.equal(raised.skipped, undefined);
  assert.deepEqual(raised.findings, []);
  assert.equal(raised.documents, 1);
  const quoted = timedCheck(`a: "${'y'.repeat(50 * 1024 * 1024)}"\n`, { load: { maxBytes: 64 * 1024 * 1024 } });
  assert.deepEqual(quoted.findings, []);
});

test('a 20 MB file of many documents with one broken document in the middle', () => {
  const docs: string[] = [];
  let size = 0;
  for (let i = 0; size < 20 * 1024 * 1024; i++) {
    const d = i % 3 === 2 ? configMap(i) : deployment(i, i % 10 === 0);
    docs.push(d);
    size += d.length + 4;
  }
  const broken = Math.floor(docs.length / 2);
  docs[broken] = 'apiVersion: v1\nkind: Pod\nmetadata: {name: broken\nspec: [\n';
  const text = docs.join('---\n');
  assert.ok(text.length >= 20 * 1024 * 1024);
  const r = timedCheck(text);
  assert.equal(r.documents, docs.length);
  const errors = only(r, 'YAML001');
  assert.equal(errors.length, 1);
  assert.equal(errors[0].document, broken);
  assert.match(errors[0].message, /^not valid YAML: .*; this document was not analysed$/);
  const lines = text.slice(0, text.indexOf('metadata: {name: broken')).split('\n').length - 1;
  assert.ok(
    errors[0].range.start.line >= lines - 1 && errors[0].range.start.line <= lines + 3,
    `error at line ${errors[0].range.start.line}, document at ${lines}`,
  );
  const others = r.findings.filter((f) => !f.ruleId.startsWith('YAML'));
  const expected = docs.filter((_, i) => i !== broken && i % 3 !== 2 && i % 10 === 0).length;
  assert.ok(
    others.filter((f) => f.document < broken).length > 0 && others.filter((f) => f.document > broken).length > 0,
    'findings before and after the broken document',
  );
  assert.ok(others.length >= expected, `${others.length} findings for ${expected} bad deployments`);
});

test('hundreds of thousands of empty documents, one huge line, many anchors', () => {
  timedCheck('---\n'.repeat(500_000));
  timedCheck(`---\n# c\n`.repeat(200_000));
  timedCheck(`a: ${'word '.repeat(2_000_000)}\n`);
  let anchors = '';
  for (let i = 0; i < 50_000; i++) anchors += `k${i}: &a${i} v${i}\n`;
  for (let i = 0; i < 50_000; i++) anchors += `r${i}: *a${i}\n`;
  assert.deepEqual(timedCheck(anchors).findings, []);
});

test('fixing a hostile file terminates and changes nothing it cannot read', () => {
  const text = `${'['.repeat(5000)}\n---\na: &a [*a]\n---\n\u0000\u0001binary`;
  const t0 = cpuMillis();
  const out = fixText(text);
  assert.ok(cpuMillis() - t0 < LIMIT_MS);
  assert.equal(out.text, text);
});

function deployment(i: number, bad: boolean): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-${i}
  namespace: team-${i % 17}
  labels: {app: web-${i}, tier: frontend}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web-${i}
  template:
    metadata:
      labels:
        app: web-${i}
    spec:
      os:
        name: windows
      nodeSelector:
        kubernetes.io/os: windows
      tolerations:
        - key: os
          operator: Exists
          effect: NoSchedule
      containers:
        - name: iis
          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
          ports:
            - containerPort: 80
          resources:
            limits: {cpu: "1", memory: 1Gi}
          securityContext:
            windowsOptions:
              runAsUserName: ContainerUser${bad ? '\n            privileged: true' : ''}
`;
}

function configMap(i: number): string {
  const body = Array.from(
    { length: 40 },
    (_, l) => `    $Setting${l} = "value ${i}-${l}" # configuration line ${l}`,
  ).join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-${i}\ndata:\n  setup.ps1: |\n${body}\n`;
}
