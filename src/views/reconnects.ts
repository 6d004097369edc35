// When to try a cluster again that failed to connect: after a wait that doubles with each failure in a
// row (5 s, 10 s, 20 s … 5 min), never in a hot loop, one timer per cluster; stopped while the cluster is
// collapsed (nobody looks) and forgotten once it connects. What a retry does is the caller's.

export interface ReconnectOptions {
  /** The wait after the first failure. Default 5 s. */
  firstMs?: number;
  /** The longest wait. Default 5 min. */
  maxMs?: number;
}

/** The next automatic try of a cluster: when, and how many failures in a row led to it. */
export interface NextTry {
  at: number;
  failures: number;
}

interface Entry {
  /** The failure this entry is for (the session's state object): asked again, it schedules nothing new. */
  failure: object;
  failures: number;
  timer: NodeJS.Timeout | undefined;
  at: number;
  /** Stopped while collapsed: expanding the cluster again tries at once. */
  stopped: boolean;
}

/** The wait before try `failures + 1`: `firstMs` doubled per earlier failure, at most `maxMs`. */
function backoffMs(failures: number, options: ReconnectOptions = {}): number {
  const first = options.firstMs ?? 5_000;
  const max = options.maxMs ?? 300_000;
  return Math.min(max, first * 2 ** Math.max(0, Math.min(30, failures - 1)));
}

export class Reconnects {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: ReconnectOptions = {}) {}

  /**
   * A cluster failed with `failure`: schedules `retry` once for it (a failure seen before keeps its time), and
   * answers when it runs.
   */
  failed(key: string, failure: object, retry: () => void): NextTry {
    const entry = this.entries.get(key);
    if (entry?.failure === failure && entry.timer) return { at: entry.at, failures: entry.failures };
    if (entry?.timer) clearTimeout(entry.timer);
    const failures = entry?.failure === failure ? entry.failures : (entry?.failures ?? 0) + 1;
    const wait = backoffMs(failures, this.options);
    const next: Entry = { failure, failures, at: Date.now() + wait, stopped: false, timer: undefined };
    next.timer = setTimeout(() => {
      next.timer = undefined;
      retry();
    }, wait);
    next.timer.unref?.();
    this.entries.set(key, next);
    return { at: next.at, failures };
  }

  /** Whether the cluster's retries were stopped by a collapse (expanding it again should try at once). */
  stopped(key: string, failure: object): boolean {
    const entry = this.entries.get(key);
    return entry?.failure === failure && entry.stopped;
  }

  /** Stops the automatic tries of a cluster (collapsed); its count of failures stays. */
  stop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry?.timer) return;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.stopped = true;
  }

  /** The cluster connected (or is gone): no more tries, and the next failure starts from the first wait. */
  forget(key: string): void {
    const entry = this.entries.get(key);
    if (entry?.timer) clearTimeout(entry.timer);
    this.entries.delete(key);
  }

  /** The clusters with a try pending. */
  get pending(): string[] {
    return [...this.entries].filter(([, e]) => e.timer).map(([k]) => k);
  }

  dispose(): void {
    for (const key of [...this.entries.keys()]) this.forget(key);
  }
}
