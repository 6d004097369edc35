// The LSP bench's statistics (scripts/bench/stats.mjs): interpolated quantiles, bootstrap intervals
// that hold the truth and say "within noise" only when they hold 0, and the per-round split of a
// whole-text edit against a range edit into transport and own work, which adds up. The case that once
// misled the bench's readers: two mixtures whose medians lie far apart while the median of their
// per-round differences is 0; the mean and the end-to-end figure must show the gap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describe,
  mean,
  meaning,
  median,
  quantile,
  roundDifferences,
  seeded,
  shuffled,
  withInterval,
} from '../../scripts/bench/stats.mjs';

test('quantiles interpolate between order statistics; the median of an even count is the middle pair’s mean', () => {
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(quantile([10, 20, 30, 40, 50], 0.95), 48);
  assert.equal(quantile([7], 0.95), 7);
  assert.ok(Number.isNaN(median([])));
  assert.equal(mean([1, 2, 6]), 3);
});

test('the seeded generator repeats itself, and a shuffle keeps every element', () => {
  const a = seeded(29);
  const b = seeded(29);
  const first = Array.from({ length: 5 }, a);
  assert.deepEqual(first, Array.from({ length: 5 }, b));
  assert.ok(first.every((x) => x >= 0 && x < 1));
  const xs = ['range', 'whole', 'floor', 'tiny'];
  const orders = new Set(Array.from({ length: 50 }, () => shuffled(xs, a).join()));
  assert.ok(orders.size > 5, 'the order varies from round to round');
  for (const order of orders) assert.deepEqual(order.split(',').sort(), [...xs].sort());
});

test('a bootstrap interval holds the value, and "within noise" only when it holds 0', () => {
  const random = seeded(1);
  const noise = Array.from({ length: 200 }, (_, i) => ((i * 37) % 21) - 10); // symmetric around 0
  const shifted = noise.map((x) => x + 25);
  const around0 = withInterval(noise, median, random);
  assert.ok(around0.low <= around0.value && around0.value <= around0.high);
  assert.equal(meaning(around0), 'within noise');
  const up = withInterval(shifted, median, random);
  assert.ok(up.low > 0, `interval ${up.low} .. ${up.high}`);
  assert.equal(meaning(up), 'whole-text dearer');
  assert.equal(
    meaning(
      withInterval(
        shifted.map((x) => -x),
        mean,
        random,
      ),
    ),
    'whole-text cheaper',
  );
  assert.equal(meaning(withInterval([1, Number.NaN], median, random)), 'n/a');
});

test('end to end = transport + own work, round by round', () => {
  const m = { range: [3, 4, 5], whole: [20, 30, 9], floor: [15, 22, 6], tiny: [1, 1, 2] };
  const d = roundDifferences(m);
  assert.deepEqual(d.end, [17, 26, 4]);
  assert.deepEqual(d.transport, [14, 21, 4]);
  assert.deepEqual(d.own, [3, 5, 0]);
  d.end.forEach((e, i) => assert.equal(e, d.transport[i] + d.own[i]));
});

test('two mixtures with medians far apart: the median of per-round differences can be 0, the mean cannot hide the gap', () => {
  // Each round is quick (2 ms) or waits for a CPU (30 ms); whole-text rounds wait more often. In most
  // rounds both are in the same mode, so the typical per-round difference is 0.
  const range: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < 100; i++) {
    range.push(i % 10 < 3 ? 30 : 2);
    whole.push(i % 10 < 6 ? 30 : 2);
  }
  assert.equal(median(whole) - median(range), 28);
  const d = describe(
    whole.map((w, i) => w - range[i]),
    seeded(2),
  );
  assert.equal(d.median.value, 0);
  assert.ok(Math.abs(d.mean.value - 8.4) < 1e-9);
  assert.equal(meaning(d.mean), 'whole-text dearer');
  assert.match(d.text, /^median \+0\.00 ms .*, mean \+8\.40 ms/);
});
