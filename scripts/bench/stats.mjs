// The LSP bench's statistics (scripts/bench-lsp.mjs), apart so that a unit test can hold them
// (test/unit/bench-stats.test.ts). Two questions, kept apart because they have different answers:
// "what does a whole-text edit cost the user against a range edit, end to end" (transport included)
// and "what does our server do for it beyond a range edit" (the transport subtracted). A median of
// per-round differences is not a difference of medians: on a loaded machine the times are a mixture
// (rounds that wait for a CPU and rounds that do not), and the median difference of two such series
// can sit near 0 while their medians lie far apart. So each difference is given with its mean too,
// which adds up (end to end = transport + own work, round by round), and its 95% bootstrap interval.

/** The q-quantile of `xs`, interpolated between order statistics (R's type 7, numpy's default); NaN when empty. */
export function quantile(xs, q) {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

export const median = (xs) => quantile(xs, 0.5);
export const mean = (xs) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/** A seeded generator, so that a run's shuffles and resamples are the same each time. */
export function seeded(seed) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** Fisher–Yates with `random`. */
export function shuffled(xs, random) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** `statistic` of `xs` with a 95% percentile-bootstrap interval (2,000 resamples). */
export function withInterval(xs, statistic, random, resamples = 2000) {
  if (xs.length === 0 || xs.some((x) => !Number.isFinite(x))) return { value: NaN, low: NaN, high: NaN };
  const values = [];
  for (let r = 0; r < resamples; r++) values.push(statistic(xs.map(() => xs[Math.floor(random() * xs.length)])));
  return { value: statistic(xs), low: quantile(values, 0.025), high: quantile(values, 0.975) };
}

/** `a[i] - b[i]` for each round. */
export const differences = (a, b) => a.map((x, i) => x - b[i]);

/**
 * Per round, from the four messages of the round (range edit, whole-text edit, a no-work message of
 * the file's size, a small no-work message): the whole-text edit against the range edit end to end,
 * the transport of the whole text (the big no-work message against the small one), and the server's
 * own work for it beyond a range edit's (each edit less its no-work twin). end = transport + own.
 */
export function roundDifferences({ range, whole, floor, tiny }) {
  const end = differences(whole, range);
  const transport = differences(floor, tiny);
  return { end, transport, own: differences(end, transport) };
}

const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
export const signed = (x, digits = 2) => (x >= 0 ? `+${fmt(x, digits)}` : fmt(x, digits));

/** "within noise" when the interval holds 0, else which way it leans. */
export function meaning({ value, low, high }) {
  if (!Number.isFinite(value)) return 'n/a';
  return low <= 0 && high >= 0 ? 'within noise' : high < 0 ? 'whole-text cheaper' : 'whole-text dearer';
}

/** The median and the mean of per-round differences, each with its interval and meaning. */
export function describe(xs, random) {
  const m = withInterval(xs, median, random);
  const a = withInterval(xs, mean, random);
  const show = (s) => `${signed(s.value)} ms (${signed(s.low)} .. ${signed(s.high)}, ${meaning(s)})`;
  return { median: m, mean: a, text: `median ${show(m)}, mean ${show(a)}` };
}
