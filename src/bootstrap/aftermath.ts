// What a plan that stopped (cancelled or failed) left behind, in words: the state of the last step
// that changed something (each step declares it: Step.leavesBehind), whether the step that was
// stopped may have taken effect, and the command that undoes it. The runner attaches it to every
// run that does not end done, so the CLI and VS Code say the same truth.

import type { LeavesBehind, Plan, Undo } from './plan';
import type { StepResult } from './runner';

export const NOTHING_CHANGED = 'Nothing was changed in the cluster or on the host.';

export interface Aftermath {
  /** The step the run stopped in (or before). */
  stoppedAt: { id: string; title: string };
  /** Whether any step changed something (or may have): false means `state` is the plan's "untouched" sentence. */
  changed: boolean;
  /** The state in one or a few sentences, without the undo. */
  state: string;
  undo?: Undo;
}

function leavesOf<Ctx>(step: Plan<Ctx>['steps'][number], ctx: Ctx): LeavesBehind | undefined {
  const l = step.leavesBehind;
  return typeof l === 'function' ? l(ctx) : l;
}

/** The aftermath of a run that stopped at `results`' first cancelled, failed or not-run step. */
export function aftermathOf<Ctx>(plan: Plan<Ctx>, ctx: Ctx, results: readonly StepResult[]): Aftermath | undefined {
  const stopIndex = results.findIndex((r) => r.outcome === 'cancelled' || r.outcome === 'failed');
  const at = stopIndex >= 0 ? stopIndex : results.findIndex((r) => r.outcome === 'not-run');
  if (at < 0) return undefined;
  const stopped = plan.steps[at];
  const result = results[at];
  if (!stopped || !result) return undefined;
  let last: LeavesBehind | undefined;
  for (let i = 0; i < at; i++) {
    const step = plan.steps[i];
    const r = results[i];
    // A step already done before this run (skipped) leaves its state as much as one applied now.
    if (step && (r?.outcome === 'applied' || r?.outcome === 'skipped')) last = leavesOf(step, ctx) ?? last;
  }
  // Stopped while it ran: its write may have reached the cluster or the host (a request sent is not taken back).
  const own = result.attempts > 0 ? leavesOf(stopped, ctx) : undefined;
  // The runner looked again once the step settled: done means its state holds now, like a completed step's.
  if (own && result.tookEffect === true) last = own;
  // Not done when looked at again: an all-or-nothing step had no effect; any other may have taken effect in part.
  const noEffect = result.tookEffect === true || (result.tookEffect === false && own?.whole);
  const partial = own?.observed || noEffect ? undefined : own;
  const parts: string[] = [];
  if (last) parts.push(last.state);
  if (partial)
    parts.push(
      `“${stopped.title}” was stopped while it ran and may already have taken effect; if it did: ${lowerFirst(unsaid(partial.state, last?.state ?? ''))}`,
    );
  if (parts.length === 0) parts.push(plan.untouched ?? NOTHING_CHANGED);
  const undo = partial?.undo ?? last?.undo;
  return {
    stoppedAt: { id: stopped.id, title: stopped.title },
    changed: Boolean(last || partial),
    state: parts.join(' '),
    ...(undo ? { undo } : {}),
  };
}

/** `text` without the sentences `said` holds already (two steps' states may end with the same note), never empty. */
function unsaid(text: string, said: string): string {
  const left = text.split(/(?<=\.)\s+(?=[A-Z“])/).filter((sentence) => !said.includes(sentence));
  return left.length > 0 ? left.join(' ') : text;
}

const lowerFirst = (s: string): string => (/^[A-Z][a-z]/.test(s) ? s[0]?.toLowerCase() + s.slice(1) : s);

/** The sentence a cancelled run ends with (the CLI's words: the undo as a command line). */
export function cancelMessage(a: Aftermath): string {
  return `Cancelled during “${a.stoppedAt.title}”. ${a.state}${a.undo ? ` ${a.undo.cli}` : ''}`;
}
