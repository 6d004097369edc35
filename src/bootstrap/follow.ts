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

/** Calls probe until it returns a value (not {waiting}); errors from probe end the wait at once. */
export async function waitFor<T>(probe: () => Promise<Poll<T>>, o: WaitOptions): Promise<T> {
  const deadline = Date.now() + o.timeoutMs;
  let last = '';
  for (;;) {
    o.signal?.throwIfAborted();
    const v = await probe();
    if (!isWaiting(v)) return v;
    if (v.waiting !== last) {
      last = v.waiting;
      o.report?.(`waiting: ${last}`);
    }
    if (Date.now() + o.intervalMs > deadline) throw new Error(o.timeoutMessage(last));
    await delay(o.intervalMs, o.signal);
  }
}

export { delay };
