// The soak suites' verdict (test/support/soak.ts): flat series pass; a heap, an RSS or a count that grows
// fails, with the series named; one sample's noise is no trend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, linearFit, LiveObjects, measureSelf, trackTimers, type Sample } from '../support/soak';

const MB = 1048576;
const series = (heap: (i: number) => number, rss: (i: number) => number, timers: (i: number) => number): Sample[] =>
  Array.from({ length: 10 }, (_, i) => ({
    at: 1000 * (i + 1),
    heapUsed: heap(i) * MB,
    rss: rss(i) * MB,
    counts: { 'handles.Timeout': timers(i), fds: 20 },
  }));

test('a least-squares line', () => {
  assert.deepEqual(linearFit([0, 1, 2, 3], [1, 3, 5, 7]), { slope: 2, intercept: 1 });
  assert.deepEqual(linearFit([1, 1], [4, 6]), { slope: 0, intercept: 5 });
});

test('flat memory and counts pass, noise included', () => {
  const wobble = (i: number) => [0, 3, -2, 4, -3, 2, 5, -1, 0, 3][i];
  const verdict = judge(
    series(
      (i) => 10 + wobble(i) / 10,
      (i) => 100 + wobble(i),
      (i) => 3 + (i === 2 ? 2 : 0),
    ),
  );
  assert.deepEqual(verdict.problems, []);
  assert.equal(verdict.memory[1].name, 'rss');
  assert.equal(verdict.rssSeries.length, 10);
});

test('a heap that grows steadily fails, though each step is small', () => {
  const verdict = judge(
    series(
      (i) => 10 + i * 0.2,
      () => 100,
      () => 3,
    ),
  );
  assert.deepEqual(verdict.problems, [
    'heapUsed grows: fitted +1.8 MB over the run (bound 1.0 MB)',
    'heapUsed ends at 11.7 MB, over 10.2 MB after warm-up + 1.0 MB',
  ]);
});

test('an RSS that ends high fails; a count that grows fails; one that only grows by its fit fails too', () => {
  assert.match(
    judge(
      series(
        () => 10,
        (i) => (i < 8 ? 100 : 130),
        () => 3,
      ),
    ).problems.join('\n'),
    /^rss ends at 130\.0 MB/m,
  );
  assert.deepEqual(
    judge(
      series(
        () => 10,
        () => 100,
        (i) => 3 + i,
      ),
    ).problems,
    ['handles.Timeout grows: at most 7 in the first half, 12 at the end'],
  );
  // Up and down again, but higher on average in the second half: the fit sees the drift.
  const drift = [0, 0, 0, 9, 1, 9, 9, 9, 9, 0];
  assert.deepEqual(
    judge(
      series(
        () => 10,
        () => 100,
        (i) => drift[i],
      ),
    ).problems,
    ['handles.Timeout grows: fitted +6.3 over the run'],
  );
});

test('a high first sample does not raise the bar: RSS that grows from where it settled fails', () => {
  // The first sample still holds pages warm-up freed (134 MB); RSS then settles at 104 MB and grows by
  // 16 MB (15%). Judged from the first sample, it would end no higher than it began.
  const verdict = judge(
    series(
      () => 10,
      (i) => (i === 0 ? 134 : 102 + 2 * i),
      () => 3,
    ),
  );
  assert.deepEqual(verdict.problems, ['rss ends at 119.0 MB, over 106.0 MB after warm-up + 10.6 MB']);
});

test('too few samples to judge is an error, not a pass', () => {
  assert.throws(
    () =>
      judge(
        series(
          () => 10,
          () => 100,
          () => 3,
        ).slice(0, 3),
      ),
    /at least 4 samples/,
  );
});

test('measureSelf collects garbage first and counts this process', () => {
  let garbage: unknown[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i }));
  const before = process.memoryUsage().heapUsed;
  assert.ok(garbage.length > 0);
  garbage = undefined;
  const m = measureSelf({ mine: 2 });
  assert.ok(m.heapUsed < before, `${m.heapUsed} after collection, ${before} before`);
  assert.equal(m.counts['listeners.mine'], 2);
  assert.ok(m.counts.fds >= 3, 'stdin, stdout and stderr at least');
});

test("measureSelf counts armed timers, unref'd ones too, until they fire or are cleared however", async () => {
  trackTimers();
  const armed = () => measureSelf().counts.timers;
  const before = armed();
  assert.equal(typeof before, 'number');
  // Unref'd as the extension's own are: process.getActiveResourcesInfo() does not list these.
  const left = [1, 2, 3, 4].map(() => setTimeout(() => undefined, 60_000).unref());
  const interval = setInterval(() => undefined, 60_000).unref();
  const fired = new Promise((r) => setTimeout(r, 1));
  assert.equal(armed(), before + 6);
  await fired;
  assert.equal(armed(), before + 5, 'a timeout that fired is no longer armed');
  clearTimeout(left[0]);
  clearTimeout(Number(left[1]));
  left[2].close();
  clearInterval(interval);
  assert.equal(armed(), before + 1, 'cleared by the object, by its id, or closed');
  clearTimeout(left[3]);
  assert.equal(armed(), before);
});

test('measureSelf counts the objects tracked that something still holds, after collection', async () => {
  const tracked = new LiveObjects();
  // Made and tracked in functions of their own, so that no variable of this one holds the last of them.
  const make = (n: number) => Array.from({ length: n }, (_, i) => tracked.track({ i }));
  const again = (objects: object[]) => objects.forEach((o) => tracked.track(o));
  const held: { objects?: object[] } = { objects: make(5) };
  make(3);
  again(held.objects!); // given again: still one each
  // A weak reference keeps its object until the job that made it ends.
  await new Promise((r) => setImmediate(r));
  assert.equal(measureSelf({}, { kept: tracked }).counts['objects.kept'], 5);
  delete held.objects;
  await new Promise((r) => setImmediate(r));
  assert.equal(measureSelf({}, { kept: tracked }).counts['objects.kept'], 0);
});
