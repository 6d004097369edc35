// The one plan runner: runs a plan's steps in order (check -> apply -> verify), with retries for
// transient errors, per-step timeouts, prompt cancellation through an AbortSignal and resume from a
// step id. It reports through onEvent only; every step-start gets its step-end and every run ends
// with plan-end. Known secrets are redacted from everything it reports.

import { collectSecrets, redact, redactDeep, Secret, type Plan, type Step } from './plan';
import { delay as wait } from '../core/delay';
import { aftermathOf, cancelMessage, type Aftermath } from './aftermath';

export { redact, Secret } from './plan';
export type { Aftermath } from './aftermath';

export type StepOutcome = 'skipped' | 'applied' | 'failed' | 'cancelled' | 'not-run';
export type PlanOutcome = 'done' | 'failed' | 'cancelled';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

interface EventBase {
  /** Milliseconds since the epoch. */
  time: number;
}

export type RunEvent =
  | (EventBase & {
      type: 'plan-start';
      planId: string;
      title: string;
      target: string;
      steps: { id: string; title: string }[];
      startAt?: string;
    })
  | (EventBase & { type: 'step-start'; stepId: string; title: string; index: number; total: number })
  | (EventBase & { type: 'step-check'; stepId: string; result: 'done' | 'todo'; reason?: string })
  | (EventBase & { type: 'step-apply'; stepId: string; attempt: number; attempts: number })
  | (EventBase & { type: 'step-verify'; stepId: string; ok: boolean; message?: string })
  | (EventBase & { type: 'step-end'; stepId: string; outcome: StepOutcome; durationMs: number; message?: string })
  | (EventBase & { type: 'log'; level: LogLevel; message: string; stepId?: string; fraction?: number })
  | (EventBase & { type: 'plan-end'; planId: string; outcome: PlanOutcome; durationMs: number; message?: string });

export interface StepResult {
  id: string;
  title: string;
  outcome: StepOutcome;
  durationMs: number;
  /** Number of apply attempts made (0 when apply did not run). */
  attempts: number;
  message?: string;
  /**
   * A step stopped while it applied, looked at again once its work settled: true when its check then says done (it
   * took effect), false when not; absent when it was not looked at (or the look did not answer in time).
   */
  tookEffect?: boolean;
}

export interface RunResult {
  planId: string;
  outcome: PlanOutcome;
  steps: StepResult[];
  durationMs: number;
  /** The first failure (or the cancellation), redacted. */
  error?: { stepId: string; message: string };
  /** When the run did not end done: what it left in the cluster and on the host, and what undoes it. */
  aftermath?: Aftermath;
}

export interface RunOptions {
  signal?: AbortSignal;
  onEvent?: (e: RunEvent) => void;
  /** Resume from this step id; earlier steps are still checked, and applied only if their check says todo. */
  startAt?: string;
  /** Secrets to redact besides the Secret instances found in ctx. */
  secrets?: readonly (string | Secret)[];
  /** First delay before retrying a transient failure; doubles each attempt (default 1000 ms). */
  backoffMs?: number;
  /** Upper bound of a retry delay (default 30 s). */
  maxBackoffMs?: number;
  /** Timeout for steps that set none (default: none). */
  defaultTimeoutMs?: number;
  /**
   * After a cancel: how long the stopped step's own clean-up may take (a temporary file removed, a channel closed)
   * before the run returns, and then how long its check may take to learn whether the step took effect (default 5 s
   * each). A caller closes the host's connection as soon as the run returns, so clean-up must happen before.
   */
  settleMs?: number;
  now?: () => number;
}

/** An error worth retrying (connection reset, API 429/503 ...): the runner retries apply after it. */
export class TransientError extends Error {
  override readonly name = 'TransientError';
  readonly transient = true;

  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The reason a step's signal is aborted with when the step runs out of time. */
class StepTimeoutError extends Error {
  override readonly name = 'StepTimeoutError';

  constructor(
    readonly stepId: string,
    readonly timeoutMs: number,
  ) {
    super(
      `Step ${stepId} timed out after ${timeoutMs} ms; it was stopped. Check the host, then run the plan again to resume from this step.`,
    );
  }
}

/** The first step a run did not complete (failed, cancelled or not run), or undefined if all are done. */
export function resumePoint(result: RunResult): string | undefined {
  return result.steps.find((s) => s.outcome !== 'skipped' && s.outcome !== 'applied')?.id;
}

function isTransient(err: unknown): boolean {
  return (
    err instanceof TransientError ||
    (typeof err === 'object' && err !== null && (err as { transient?: unknown }).transient === true)
  );
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** Calls fn, turning a synchronous throw into a rejection. */
function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Settles with promise, or rejects as soon as signal aborts (the promise is left to itself). */
function guard<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Waits for a stopped step's work to end (its clean-up included), at most ms. */
async function settle(work: Promise<unknown>, ms: number): Promise<void> {
  const ctl = new AbortController();
  await Promise.race([work, wait(ms, ctl.signal).catch(() => undefined)]);
  ctl.abort();
}

/** Whether a step stopped while it applied took effect after all: its check, with its own short limit. */
async function tookEffect<Ctx>(step: Step<Ctx>, ctx: Ctx, ms: number): Promise<boolean | undefined> {
  const signal = AbortSignal.timeout(ms);
  try {
    const checked = await guard(
      call(() => step.check(ctx, signal)),
      signal,
    );
    return checked === 'done';
  } catch {
    return undefined;
  }
}

export async function runPlan<Ctx>(plan: Plan<Ctx>, ctx: Ctx, options: RunOptions = {}): Promise<RunResult> {
  const now = options.now ?? Date.now;
  const outer = options.signal;
  const secrets = [...(options.secrets ?? []), ...collectSecrets(ctx)];
  const baseBackoff = options.backoffMs ?? 1000;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  const settleMs = options.settleMs ?? 5000;

  const startIndex = options.startAt === undefined ? 0 : plan.steps.findIndex((s) => s.id === options.startAt);
  if (startIndex < 0) {
    throw new RangeError(
      `Cannot resume plan ${plan.id} at step "${options.startAt}": the plan has no such step (steps: ${plan.steps.map((s) => s.id).join(', ')}).`,
    );
  }
  const seenIds = new Set<string>();
  for (const step of plan.steps) {
    if (seenIds.has(step.id))
      throw new RangeError(`Plan ${plan.id} has two steps with the id "${step.id}"; step ids must be unique.`);
    seenIds.add(step.id);
  }

  let ended = false;
  const emit = (e: RunEvent): void => {
    if (ended || !options.onEvent) return;
    try {
      options.onEvent(redactDeep(e, secrets));
    } catch {
      // A listener's failure must not break the run or leave it half-reported.
    }
  };
  const log = (level: LogLevel, message: string, stepId?: string): void =>
    emit({ type: 'log', time: now(), level, message, ...(stepId === undefined ? {} : { stepId }) });

  const planStarted = now();
  emit({
    type: 'plan-start',
    time: planStarted,
    planId: plan.id,
    title: plan.title,
    target: plan.target,
    steps: plan.steps.map((s) => ({ id: s.id, title: s.title })),
    ...(options.startAt === undefined ? {} : { startAt: options.startAt }),
  });

  const runStep = async (step: Step<Ctx>, index: number): Promise<StepResult> => {
    const started = now();
    const result: StepResult = { id: step.id, title: step.title, outcome: 'failed', durationMs: 0, attempts: 0 };
    emit({
      type: 'step-start',
      time: started,
      stepId: step.id,
      title: step.title,
      index: index + 1,
      total: plan.steps.length,
    });

    const ctl = new AbortController();
    const onOuterAbort = () => ctl.abort(outer?.reason);
    if (outer?.aborted) ctl.abort(outer.reason);
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const timeoutMs = step.timeoutMs ?? options.defaultTimeoutMs;
    const timer =
      timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)
        ? setTimeout(() => ctl.abort(new StepTimeoutError(step.id, timeoutMs)), timeoutMs)
        : undefined;
    const signal = ctl.signal;
    let live = true;
    // What the step is running now (check, apply or verify): a cancel lets it settle before the run returns.
    let inflight: Promise<unknown> = Promise.resolve();
    const track = <T>(p: Promise<T>): Promise<T> => {
      inflight = p.catch(() => undefined);
      return p;
    };
    const report = (message: string, fraction?: number): void => {
      if (!live) return;
      emit({
        type: 'log',
        time: now(),
        level: 'info',
        stepId: step.id,
        message: String(message),
        ...(typeof fraction === 'number' && Number.isFinite(fraction)
          ? { fraction: Math.min(1, Math.max(0, fraction)) }
          : {}),
      });
    };

    try {
      const checked = await guard(track(call(() => step.check(ctx, signal))), signal);
      const todo = checked !== 'done';
      const reason = typeof checked === 'object' && checked !== null ? checked.todo : undefined;
      emit({
        type: 'step-check',
        time: now(),
        stepId: step.id,
        result: todo ? 'todo' : 'done',
        ...(reason === undefined ? {} : { reason }),
      });
      if (!todo) {
        result.outcome = 'skipped';
        result.message = 'already done';
      } else {
        if (index < startIndex) {
          log(
            'warn',
            `Step ${step.id} comes before the resume point ${options.startAt} but its check says it is not done${reason ? ` (${reason})` : ''}; applying it again.`,
            step.id,
          );
        }
        const attempts = 1 + Math.max(0, Math.floor(step.retries ?? 0));
        for (let attempt = 1; ; attempt++) {
          result.attempts = attempt;
          emit({ type: 'step-apply', time: now(), stepId: step.id, attempt, attempts });
          try {
            await guard(track(call(() => step.apply(ctx, signal, report))), signal);
            break;
          } catch (err) {
            if (signal.aborted || !isTransient(err) || attempt >= attempts) throw err;
            const hinted = err instanceof TransientError ? err.retryAfterMs : undefined;
            const delay = Math.min(maxBackoff, Math.max(0, hinted ?? baseBackoff * 2 ** (attempt - 1)));
            log(
              'warn',
              `Step ${step.id}: attempt ${attempt} of ${attempts} failed (${messageOf(err)}); retrying in ${delay} ms.`,
              step.id,
            );
            await wait(delay, signal);
          }
        }
        const verified = await guard(track(call(() => step.verify(ctx, signal))), signal);
        const ok = verified === true;
        const why = ok ? undefined : typeof verified === 'string' && verified ? verified : 'verification failed';
        emit({ type: 'step-verify', time: now(), stepId: step.id, ok, ...(why === undefined ? {} : { message: why }) });
        if (ok) result.outcome = 'applied';
        else {
          result.outcome = 'failed';
          result.message = `Step ${step.id} ran but its verification failed: ${why}`;
        }
      }
    } catch (err) {
      if (outer?.aborted) {
        result.outcome = 'cancelled';
        result.message = `Cancelled during step ${step.id}.`;
        await settle(inflight, settleMs);
        if (result.attempts > 0) {
          const effect = await tookEffect(step, ctx, settleMs);
          if (effect !== undefined) result.tookEffect = effect;
        }
      } else if (signal.aborted && signal.reason instanceof StepTimeoutError) {
        result.outcome = 'failed';
        result.message = signal.reason.message;
      } else {
        result.outcome = 'failed';
        result.message = messageOf(err);
      }
    } finally {
      live = false;
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
    if (result.message !== undefined) result.message = redact(result.message, secrets);
    result.durationMs = Math.max(0, now() - started);
    emit({
      type: 'step-end',
      time: now(),
      stepId: step.id,
      outcome: result.outcome,
      durationMs: result.durationMs,
      ...(result.message === undefined ? {} : { message: result.message }),
    });
    return result;
  };

  const results: StepResult[] = [];
  let outcome: PlanOutcome = 'done';
  let error: RunResult['error'];
  for (const [index, step] of plan.steps.entries()) {
    if (outcome !== 'done') {
      results.push({ id: step.id, title: step.title, outcome: 'not-run', durationMs: 0, attempts: 0 });
      continue;
    }
    if (outer?.aborted) {
      outcome = 'cancelled';
      error = { stepId: step.id, message: `Cancelled before step ${step.id}.` };
      results.push({ id: step.id, title: step.title, outcome: 'not-run', durationMs: 0, attempts: 0 });
      continue;
    }
    const r = await runStep(step, index);
    results.push(r);
    if (r.outcome === 'failed' || r.outcome === 'cancelled') {
      outcome = r.outcome === 'failed' ? 'failed' : 'cancelled';
      error = { stepId: step.id, message: r.message ?? r.outcome };
    }
  }

  // A cancel says what state the run leaves (the last step that changed something), not only where it stopped.
  const aftermath = outcome === 'done' ? undefined : aftermathOf(plan, ctx, results);
  if (outcome === 'cancelled' && error && aftermath) error = { ...error, message: cancelMessage(aftermath) };

  const durationMs = Math.max(0, now() - planStarted);
  emit({
    type: 'plan-end',
    time: now(),
    planId: plan.id,
    outcome,
    durationMs,
    ...(error === undefined ? {} : { message: error.message }),
  });
  ended = true;
  return redactDeep(
    {
      planId: plan.id,
      outcome,
      steps: results,
      durationMs,
      ...(error === undefined ? {} : { error }),
      ...(aftermath === undefined ? {} : { aftermath }),
    },
    secrets,
  );
}

/**
 * Runs fn over items with at most `limit` running at once. Results keep the items' order; a
 * rejection is captured as { error } so one item's failure never stops the others.
 */
export async function runBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<({ ok: true; value: R } | { ok: false; error: unknown })[]> {
  const results: ({ ok: true; value: R } | { ok: false; error: unknown })[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { ok: true, value: await fn(items[i] as T, i) };
      } catch (error) {
        results[i] = { ok: false, error };
      }
    }
  };
  const n = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  return results;
}
