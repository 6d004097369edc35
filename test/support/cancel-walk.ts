// Walks every step of a long operation with a cancel: for each step k of the plan, a fresh world, a run
// cancelled when step k starts (and, for steps that apply something, a run cancelled once step k's apply
// is under way), the outcome checked, then a re-run to completion and its final state checked. The cancel
// is driven by the runner's own progress events, never by a timer. Test glue only.
import assert from 'node:assert/strict';
import type { RunEvent, RunOptions, RunResult } from '../../src/bootstrap/runner';
import { counted } from '../../src/core/plural';
import type { SimHost } from './windows-host-sim';

/** Where in a step the cancel lands: as the step starts, or just after its apply began. */
export type CancelAt = 'start' | 'apply';

export interface CancelPoint {
  index: number;
  stepId: string;
  title: string;
  at: CancelAt;
}

export interface Walk<World> {
  /** A fresh world (cluster, hosts) in which the operation has not run yet. */
  start(): Promise<World>;
  /** One run of the operation, as its command runs it (a new plan each time). */
  run(world: World, options: Pick<RunOptions, 'signal' | 'onEvent'>): Promise<RunResult>;
  stop(world: World): Promise<void>;
  /** What must hold after the cancel at `point` (beyond what every walk checks). */
  afterCancel?(world: World, result: RunResult, point: CancelPoint): Promise<void> | void;
  /** What must hold once the re-run completed. */
  afterDone(world: World, result: RunResult): Promise<void> | void;
  /** Simulated hosts whose file systems must hold no temporary file after a cancel. */
  hosts(world: World): SimHost[];
  /** Steps that are cancelled only at their start (their apply never runs in a fresh world). */
  applyless?: readonly string[];
  /** Points walked side by side, each in its own world (default 3). */
  concurrency?: number;
}

export interface WalkFigures {
  /** Every step id of the plan, in order. */
  steps: string[];
  /** The cancel points walked. */
  points: CancelPoint[];
  /** Longest time from the abort to the run's end, over every point (ms). */
  maxStopMs: number;
}

/** Temporary files and folders an interrupted upload or mirror staging could leave on a simulated host. */
export function temporaryFiles(sim: SimHost): string[] {
  const paths = [...[...sim.state.files.values()].map((f) => f.path), ...sim.state.directories.values()];
  return paths.filter((p) => /\.kw-[0-9a-f]+\.tmp$|\.kw-(staging|discard)-/i.test(p));
}

/** Runs the walk; fails with the cancel point named. */
export async function walkCancels<World>(walk: Walk<World>, log: (line: string) => void): Promise<WalkFigures> {
  // The plan's steps, from a first run's plan-start event (that world is then thrown away).
  let steps: { id: string; title: string }[] = [];
  {
    const world = await walk.start();
    try {
      const result = await walk.run(world, {
        onEvent: (e) => {
          if (e.type === 'plan-start') steps = e.steps;
        },
      });
      assert.equal(result.outcome, 'done', `the uncancelled run completes: ${JSON.stringify(result.error)}`);
      await walk.afterDone(world, result);
    } finally {
      await walk.stop(world);
    }
  }
  assert.ok(steps.length > 0, 'the plan has steps');
  const points: CancelPoint[] = [];
  steps.forEach((s, index) => {
    points.push({ index, stepId: s.id, title: s.title, at: 'start' });
    if (!walk.applyless?.includes(s.id)) points.push({ index, stepId: s.id, title: s.title, at: 'apply' });
  });
  let maxStopMs = 0;
  const walked: CancelPoint[] = [];
  // Each point has a world of its own: a few run side by side (most of a run is waiting on the doubles).
  const queue = [...points];
  const worker = async (): Promise<void> => {
    for (let point = queue.shift(); point; point = queue.shift()) await walkPoint(point);
  };
  const walkPoint = async (point: CancelPoint): Promise<void> => {
    const where = `cancel at ${point.at} of step ${point.index + 1}/${steps.length} ${point.stepId}`;
    const world = await walk.start();
    try {
      const ctl = new AbortController();
      let abortedAt = 0;
      const abort = (): void => {
        if (ctl.signal.aborted) return;
        abortedAt = performance.now();
        ctl.abort(new Error('cancelled by the user'));
      };
      const onEvent = (e: RunEvent): void => {
        if (!('stepId' in e) || e.stepId !== point.stepId) return;
        if (point.at === 'start' && e.type === 'step-start') abort();
        // Once apply has begun its first request or command (the next turn of the event loop), not before it.
        if (point.at === 'apply' && e.type === 'step-apply') setImmediate(abort);
      };
      const result = await walk.run(world, { signal: ctl.signal, onEvent });
      if (point.at === 'apply' && !ctl.signal.aborted) {
        // The step's check found it done in this world: its apply never ran, nothing to cancel there.
        assert.equal(result.outcome, 'done', `${where}: ${JSON.stringify(result.error)}`);
        return;
      }
      const stopMs = performance.now() - abortedAt;
      maxStopMs = Math.max(maxStopMs, stopMs);
      walked.push(point);
      // The step may have finished in the turn the abort came: then the run stops before the next one.
      assert.equal(result.outcome, 'cancelled', `${where}: ${JSON.stringify(result.error)}`);
      const stoppedAt = result.error?.stepId;
      const stoppedIndex = steps.findIndex((s) => s.id === stoppedAt);
      assert.ok(
        stoppedIndex === point.index || (point.at === 'apply' && stoppedIndex === point.index + 1),
        `${where}: stopped at ${stoppedAt}`,
      );
      assert.ok(result.aftermath, `${where}: the run says what it leaves`);
      assert.ok(!/\n\s+at /.test(result.error?.message ?? ''), `${where}: no stack in the message`);
      for (const sim of walk.hosts(world))
        assert.deepEqual(temporaryFiles(sim), [], `${where}: no temporary file on ${sim.host}`);
      await named(where, () => walk.afterCancel?.(world, result, point));
      // A restart sent before the cancel is still under way: a user re-runs once the host answers again
      // (an immediate re-run meets the restarting host's refused handshakes, as a real one would).
      await Promise.all(walk.hosts(world).map((sim) => sim.whenRebooted()));
      const rerunFrom = performance.now();
      const again = await walk.run(world, {});
      log(
        `${where}: stopped ${Math.round(stopMs)} ms after the cancel, re-run ${Math.round(performance.now() - rerunFrom)} ms`,
      );
      assert.equal(again.outcome, 'done', `${where}, then the re-run: ${JSON.stringify(again.error)}`);
      await named(`${where}, then the re-run`, () => walk.afterDone(world, again));
    } finally {
      await walk.stop(world);
    }
  };
  await Promise.all(Array.from({ length: Math.min(walk.concurrency ?? 3, points.length) }, worker));
  walked.sort((a, b) => a.index - b.index || a.at.localeCompare(b.at));
  log(
    `${counted(steps.length, 'step')}, ${counted(walked.length, 'cancel point')} walked; longest cancel-to-stop ${Math.round(maxStopMs)} ms`,
  );
  return { steps: steps.map((s) => s.id), points: walked, maxStopMs };
}

/** Runs a check, its failure prefixed with where the cancel was. */
async function named(where: string, check: () => Promise<void> | void): Promise<void> {
  try {
    await check();
  } catch (err) {
    if (err instanceof Error) err.message = `${where}: ${err.message}`;
    throw err;
  }
}
