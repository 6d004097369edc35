// What `check` must not pay again and again (docs/performance.md): work that is the same for every
// file or for every rule is done once; whole-text scans are one native search. Compute limits are in
// CPU time (test/support/cpu-time.ts) with a wide margin over what the code measured; the old code
// took three times as long or more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { openManifest } from '../../src/core/manifest/document';
import { objectsOf, podSpecOf, type PodSpecView } from '../../src/core/manifest/workloads';
import { hostProcessInfo } from '../../src/core/rules/helpers';
import { activeRules, checkText } from '../../src/core/rules/checker';
import { mayHoldFacts } from '../../src/core/rules/facts';
import { generateVaried } from '../../scripts/bench/generate-varied.mjs';
import { cpuMillis } from '../support/cpu-time';

function podOf(yaml: string): PodSpecView {
  const pod = podSpecOf(objectsOf(load(yaml))[0]);
  assert.ok(pod);
  return pod;
}

function cpuOf(work: () => void): number {
  const t0 = cpuMillis();
  work();
  return cpuMillis() - t0;
}

test('HostProcess membership is worked out once per pod, however many rules ask', () => {
  const pod = podOf(`kind: Pod
spec:
  securityContext: {windowsOptions: {hostProcess: true}}
  containers: [{name: a}, {name: b, securityContext: {windowsOptions: {hostProcess: false}}}]`);
  const info = hostProcessInfo(pod);
  assert.equal(hostProcessInfo(pod), info, 'the same answer, not a new one');
  assert.deepEqual(
    info.containers.map((c) => [c.c.name, c.hostProcess]),
    [
      ['a', true],
      ['b', false],
    ],
  );
  assert.equal(info.is(pod.containers[0]), true);
  assert.equal(info.is(pod.containers[1]), false);
  // Another view of the same text is another pod: its own answer.
  assert.notEqual(hostProcessInfo(podOf(`kind: Pod\nspec: {containers: [{name: a}]}`)), info);
});

test('the rules a check runs are selected once for every file checked with the same options', () => {
  const a = activeRules({ only: ['WIN001', 'WIN073'] });
  assert.equal(activeRules({ only: ['WIN001', 'WIN073'] }), a, 'same lists in new arrays: same selection');
  const b = activeRules({ only: ['WIN001'] });
  assert.notEqual(b, a);
  assert.ok(b.enabled('WIN001') && !b.enabled('WIN073'));
  const c = activeRules({ disable: ['WIN001'], severity: { WIN073: 'off' } });
  assert.ok(!c.enabled('WIN001') && !c.enabled('WIN073') && c.enabled('WIN002'));
  // A severity changed in place (an editor's settings object) is seen.
  const severity: Record<string, 'off' | 'error'> = { WIN002: 'error' };
  assert.ok(activeRules({ severity }).enabled('WIN002'));
  severity.WIN002 = 'off';
  assert.ok(!activeRules({ severity }).enabled('WIN002'));
  // A selection kept for its content does not follow the object it was made from.
  const first: Record<string, 'warning' | 'info'> = { WIN002: 'warning' };
  activeRules({ severity: first });
  first.WIN002 = 'info';
  assert.equal(activeRules({ severity: { WIN002: 'warning' } }).severityOf('WIN002', 'error'), 'warning');
  // And a check with other options than the last one runs its own rules.
  const text =
    'kind: Pod\nspec:\n  os: {name: windows}\n  hostPID: true\n  containers: [{name: a, image: x, securityContext: {privileged: true}}]\n';
  const all = checkText(text).findings.map((f) => f.ruleId);
  const one = checkText(text, { only: [all[0]] }).findings.map((f) => f.ruleId);
  assert.ok(all.length > 1);
  assert.deepEqual([...new Set(one)], [all[0]]);
});

test('a file is told binary as before, and a clean one costs one native search', () => {
  assert.match(openManifest('a: 1\n\0b').skipped ?? '', /NUL bytes/);
  assert.match(openManifest('\x01\x02\x03\x04 abc\n').skipped ?? '', /control characters/);
  assert.match(openManifest('\uFFFD\uFFFD\uFFFD\uFFFD a\n').skipped ?? '', /control characters/);
  // One control character in a long text is not binary; a tab, CR and LF are text.
  assert.equal(openManifest(`a: "\x07"\n${'b: 1\n'.repeat(100)}`).skipped, undefined);
  assert.equal(openManifest('a:\t1\r\nb: 2\r\n').skipped, undefined);
  // Past the first 8 KiB nothing is sampled.
  assert.equal(openManifest(`${'a: 1\n'.repeat(2000)}\0`).skipped, undefined);

  // 20 000 files of 8 KiB (a large repository): measured 0.14 s of CPU here, 0.5-0.6 s before.
  const sample = generateVaried(10).slice(0, 8000);
  const texts = Array.from({ length: 20_000 }, (_, i) => `${sample}# ${i}\n`);
  for (const t of texts) t.charCodeAt(t.length - 1); // made flat before the clock starts
  const ms = cpuOf(() => {
    for (const t of texts) assert.equal(openManifest(t).skipped, undefined);
  });
  assert.ok(ms < 350, `opening 20 000 files of 8 KiB took ${ms.toFixed(0)} ms of CPU (limit 350)`);
});

test('whether a text may hold facts is one pass over it', () => {
  for (const word of ['RuntimeClass', 'Namespace', 'HorizontalPodAutoscaler', 'PodMonitor', 'PersistentVolumeClaim'])
    assert.ok(mayHoldFacts(`kind: ${word}\n`), word);
  assert.ok(mayHoldFacts('apiVersion: route.openshift.io/v1\n'));
  assert.ok(!mayHoldFacts('kind: Deployment\nmetadata: {namespace: x}\n'), 'the field is not the kind');

  // 20 MB of workloads without any: measured 15 ms of CPU here, 50 ms before (six searches).
  const text = generateVaried(10_000);
  assert.ok(text.length > 15e6);
  const ms = cpuOf(() => {
    for (let i = 0; i < 4; i++) assert.equal(mayHoldFacts(text), false);
  });
  assert.ok(ms < 130, `4 scans of ${(text.length / 1e6).toFixed(0)} MB took ${ms.toFixed(0)} ms of CPU (limit 130)`);
});
