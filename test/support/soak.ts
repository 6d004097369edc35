// Long-session measurement for the soak suites (test/soak/): what one sample of a process holds after a
// full garbage collection (heap, RSS, open handles by kind, armed timers, file descriptors, listener counts,
// live objects of the kinds tracked), and the
// verdict on a series of samples taken after warm-up: memory flat (the fitted growth over the run and the
// final sample within a tolerance of the first), and no count of handles or listeners that grows.
import { readdirSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface Sample {
  /** Work done when the sample was taken (edits, refreshes …): the x of the fit. */
  at: number;
  heapUsed: number;
  rss: number;
  /** Counts that must not grow: process.getActiveResourcesInfo() by kind, armed timers, open fds, listener counts, live objects. */
  counts: Record<string, number>;
}

/** A process's memory and handles, as the soak probe reports them (test/soak/server-probe.cjs gives the same shape). */
export type Measured = Omit<Sample, 'at'>;

/** This process's garbage collector, without --expose-gc on the command line (node --test does not pass it on). */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

let gc: (() => void) | undefined;

/** Two full collections (the second frees what the first's finalizers let go); after a turn of the event
 * loop, so that the objects a WeakRef was made to in this one may go (V8 keeps them until the job ends). */
export async function collectGarbage(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  gc ??= collector();
  gc();
  gc();
}

/** Counts of handles by kind: Timeout, TLSSocketWrap, FSReqCallback … (libuv and node's own names). */
export function handleCounts(kinds: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of kinds) counts[`handles.${kind}`] = (counts[`handles.${kind}`] ?? 0) + 1;
  return counts;
}

/** The timers setTimeout and setInterval armed since trackTimers(), until they fire or are cleared. */
let armed: Set<{ _destroyed?: boolean }> | undefined;

/** Lets go of the timers that fired or were cleared (held, they and their callbacks would weigh on the heap). */
function pruneTimers(): number {
  if (!armed) return 0;
  for (const t of armed) if (t._destroyed) armed.delete(t);
  return armed.size;
}

/**
 * Counts this process's armed timers from now on, ref'd or not: process.getActiveResourcesInfo() counts
 * only the ref'd ones ("Timeout"), and the extension unrefs most of its own, so a leak of those would go
 * unseen. Node marks a timer `_destroyed` once it fired (a timeout) or was cleared, however it was cleared
 * (clearTimeout with the object or its id, close()). Call it before the code under soak is loaded.
 */
export function trackTimers(): void {
  if (armed) return;
  const timers = new Set<{ _destroyed?: boolean }>();
  armed = timers;
  const wrap = <F extends (...args: never[]) => NodeJS.Timeout>(original: F): F =>
    Object.assign((...args: Parameters<F>) => {
      const timer = original(...args);
      if (timers.add(timer as { _destroyed?: boolean }).size % 1024 === 0) pruneTimers();
      return timer;
    }, original);
  globalThis.setTimeout = wrap(globalThis.setTimeout);
  globalThis.setInterval = wrap(globalThis.setInterval);
}

/**
 * Objects of one kind, held weakly: after a full collection, how many are still alive (held by something).
 * Cheap, unlike v8.queryObjects (each of its counts walks the whole heap: about 1 s on the loaded machine).
 */
export class LiveObjects {
  private readonly refs = new Set<WeakRef<object>>();
  private readonly seen = new WeakSet<object>();

  /** Tracks `o` (once, however often it is given) and answers it. */
  track<T extends object>(o: T): T {
    if (this.seen.has(o)) return o;
    this.seen.add(o);
    this.refs.add(new WeakRef(o));
    return o;
  }

  /** Those not collected yet (right after a collection: those something holds). */
  count(): number {
    for (const r of this.refs) if (r.deref() === undefined) this.refs.delete(r);
    return this.refs.size;
  }
}

/**
 * This process after two full collections (the second frees what the first's finalizers let go): memory,
 * handles, armed timers (once trackTimers() was called), fds, the listener counts given, and the live
 * objects of each kind tracked (a session kept after it was closed counts).
 */
export function measureSelf(
  listeners: Record<string, number> = {},
  objects: Record<string, LiveObjects> = {},
): Measured {
  pruneTimers();
  gc ??= collector();
  gc();
  gc();
  const memory = process.memoryUsage();
  return {
    heapUsed: memory.heapUsed,
    rss: memory.rss,
    counts: {
      ...handleCounts(process.getActiveResourcesInfo()),
      ...(armed ? { timers: pruneTimers() } : {}),
      fds: readdirSync('/proc/self/fd').length,
      ...Object.fromEntries(Object.entries(listeners).map(([k, v]) => [`listeners.${k}`, v])),
      ...Object.fromEntries(Object.entries(objects).map(([k, o]) => [`objects.${k}`, o.count()])),
    },
  };
}

/** Least-squares line through the points. */
export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number } {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

export interface Series {
  name: string;
  first: number;
  last: number;
  min: number;
  max: number;
  /** The fitted line's rise from the first sample's x to the last's. */
  fittedGrowth: number;
}

export interface Verdict {
  problems: string[];
  memory: Series[];
  counts: Series[];
  /** RSS of each sample, to see where it settles. */
  rssSeries: number[];
}

/** The middle value (the mean of the two middle ones). */
function median(ys: readonly number[]): number {
  const sorted = [...ys].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * `first` is the median of the first quarter of the samples (at least 3), `last` the mean of the last two:
 * one sample's noise (RSS moves by the pages the young generation touched) is no trend, and a first sample
 * taken before the memory freed in warm-up went back to the system must not raise the bar for the rest.
 */
function series(name: string, xs: number[], ys: number[]): Series {
  const { slope } = linearFit(xs, ys);
  return {
    name,
    first: median(ys.slice(0, Math.max(3, Math.ceil(ys.length / 4)))),
    last: (ys[ys.length - 2] + ys[ys.length - 1]) / 2,
    min: Math.min(...ys),
    max: Math.max(...ys),
    fittedGrowth: slope * (xs[xs.length - 1] - xs[0]),
  };
}

/**
 * Judges samples taken after warm-up. Memory (heap, RSS): the fitted growth over the run and the last
 * sample stay within `tolerance` of the first sample. Counts: the last is no higher than the highest of
 * the first half (something in flight at one sample is not a leak), and the fitted growth is under
 * `countSlack` (a leak of one handle per cycle grows by hundreds).
 */
export function judge(samples: readonly Sample[], tolerance = 0.1, countSlack = 2): Verdict {
  if (samples.length < 4) throw new Error(`at least 4 samples are needed to judge a trend, got ${samples.length}`);
  const xs = samples.map((s) => s.at);
  const problems: string[] = [];
  const memory = (['heapUsed', 'rss'] as const).map((k) =>
    series(
      k,
      xs,
      samples.map((s) => s[k]),
    ),
  );
  for (const m of memory) {
    const bound = m.first * tolerance;
    if (m.fittedGrowth > bound)
      problems.push(`${m.name} grows: fitted +${mb(m.fittedGrowth)} over the run (bound ${mb(bound)})`);
    if (m.last - m.first > bound)
      problems.push(`${m.name} ends at ${mb(m.last)}, over ${mb(m.first)} after warm-up + ${mb(bound)}`);
  }
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.counts)))].sort();
  const half = samples.slice(0, Math.ceil(samples.length / 2));
  const counts = names.map((name) =>
    series(
      name,
      xs,
      samples.map((s) => s.counts[name] ?? 0),
    ),
  );
  for (const c of counts) {
    const early = Math.max(...half.map((s) => s.counts[c.name] ?? 0));
    const last = samples[samples.length - 1].counts[c.name] ?? 0;
    if (last > early) problems.push(`${c.name} grows: at most ${early} in the first half, ${last} at the end`);
    else if (c.fittedGrowth > countSlack)
      problems.push(`${c.name} grows: fitted +${c.fittedGrowth.toFixed(1)} over the run`);
  }
  return { problems, memory, counts, rssSeries: samples.map((s) => s.rss) };
}

const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

/** One line per memory series and the counts that were not zero, for a test's diagnostics and `npm run soak`. */
export function describe(verdict: Verdict): string[] {
  return [
    ...verdict.memory.map(
      (m) =>
        `${m.name}: ${mb(m.first)} after warm-up, ${mb(m.last)} at the end (min ${mb(m.min)}, max ${mb(m.max)}, fitted ${m.fittedGrowth >= 0 ? '+' : ''}${((m.fittedGrowth / m.first) * 100).toFixed(1)}%)`,
    ),
    `rss by sample: ${verdict.rssSeries.map((b) => (b / 1048576).toFixed(0)).join(' ')} MB`,
    `counts (after warm-up -> end): ${verdict.counts.map((c) => `${c.name} ${c.first}->${c.last}`).join(', ')}`,
  ];
}
