// Polling for the follow steps (a Node to appear, CSRs to be approved, a phase to be reached):
// one place for intervals, deadlines, cancellation and "what are we still waiting for" reports.

import { delay } from '../core/delay';

export type Poll<T> = T | { waiting: string };

export interface WaitOptions {
  signal?: AbortSignal;
  intervalMs: number;
  timeoutMs: number;
  /** Called when the waiting message changes. */
  report?: (message: string) => void;
  /** The error message on timeout, given the last waiting message. */
  timeoutMessage: (last: string) => string;
  /**
   * A source of changes (a watch of what the probe reads): each poke probes at once instead of at the end of the
   * interval, so progress follows the cluster as its watchers (the tree) see it. Returns its unsubscribe.
   */
  wake?: (poke: () => void) => () => void;
}

function isWaiting<T>(v: Poll<T>): v is { waiting: string } {
  return (
    typeof v === 'object' &&
    v !== null &&
    'waiting' in v &&
    typeof (v as { waiting: unknown }).waiting === 'string' &&
    Object.keys(v).length === 1
  );
}

/** The shortest gap between two probes that changes wake: a burst of watch events probes once, not per event. */
const MIN_GAP_MS = 250;

/**
 * Calls probe until it returns a value (not {waiting}); errors from probe end the wait at once. With `wake`, a change
 * probes at once (one subscription for the whole wait), else every `intervalMs`.
 */
export async function waitFor<T>(probe: () => Promise<Poll<T>>, o: WaitOptions): Promise<T> {
  const deadline = Date.now() + o.timeoutMs;
  let last = '';
  let poked = false;
  let cutShort: AbortController | undefined;
  const unsubscribe = o.wake?.(() => {
    poked = true;
    cutShort?.abort();
  });
  try {
    for (;;) {
      o.signal?.throwIfAborted();
      poked = false;
      const v = await probe();
      if (!isWaiting(v)) return v;
      if (v.waiting !== last) {
        last = v.waiting;
        o.report?.(`waiting: ${last}`);
      }
      if (Date.now() + o.intervalMs > deadline) throw new Error(o.timeoutMessage(last));
      if (!unsubscribe) await delay(o.intervalMs, o.signal);
      else {
        await delay(Math.min(MIN_GAP_MS, o.intervalMs), o.signal);
        if (!poked) {
          // A poke or the caller's abort ends the nap (no AbortSignal.any: Node 20.0 lacks it).
          const cut = new AbortController();
          cutShort = cut;
          const onAbort = (): void => cut.abort(o.signal?.reason);
          o.signal?.addEventListener('abort', onAbort, { once: true });
          try {
            await delay(Math.max(0, o.intervalMs - MIN_GAP_MS), cut.signal);
          } catch (err) {
            if (o.signal?.aborted) throw err;
          } finally {
            o.signal?.removeEventListener('abort', onAbort);
            cutShort = undefined;
          }
        }
      }
    }
  } finally {
    unsubscribe?.();
  }
}

export { delay };
