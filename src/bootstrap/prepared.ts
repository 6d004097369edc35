// The one shape every plan builder hands to its callers: what the dry run shows (the plan's outline,
// rendered by renderPlan) and how to run it (progress, cancel and resume through the one runner).
// The context stays inside, so callers never name it and never cast.

import type { Plan, Step } from './plan';
import { runPlan, type RunOptions, type RunResult } from './runner';

/** What the dry run shows of a step: everything but its functions. */
export type StepOutline = Omit<Step<never>, 'check' | 'apply' | 'verify'>;

/** What the dry run shows of a plan. */
export interface PlanOutline {
  id: string;
  title: string;
  /** What the plan acts on, e.g. a host or node name. */
  target: string;
  steps: readonly StepOutline[];
}

/** A plan bound to its context, ready to show (renderPlan) and to run. */
export interface PreparedPlan<State = unknown> extends PlanOutline {
  /** What the run learns on the way (findings, pods a drain left or was blocked by ...). */
  readonly state: State;
  /** Runs the steps: progress through onEvent, cancel through signal, resume with startAt. */
  run(options?: RunOptions): Promise<RunResult>;
}

/** The state a context carries (undefined for plans whose context is their options). */
export type StateOf<Ctx> = Ctx extends { state: infer S } ? S : undefined;

/** Binds a plan to the context its steps read and fill. */
export function prepare<Ctx>(plan: Plan<Ctx>, ctx: Ctx): PreparedPlan<StateOf<Ctx>> {
  return {
    id: plan.id,
    title: plan.title,
    target: plan.target,
    steps: plan.steps,
    get state() {
      return (ctx as { state?: unknown }).state as StateOf<Ctx>;
    },
    run: (options = {}) => runPlan(plan, ctx, options),
  };
}
