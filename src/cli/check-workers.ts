// `check` on every core: files (and the parts of a large file) are checked on worker threads and on
// this one at once, and the results are put back in the order a single thread finds them, so the
// output (order, text, JSON, SARIF, exit code) is the same with any number of threads. A worker
// runs the CLI's own bundle (through its launcher, with the V8 code cache); see serveCheckWorker.
import { availableParallelism } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { documentParts, type DocumentPart } from '../core/manifest/document';
import {
  checkText,
  joinTextParts,
  textPartChecker,
  type CheckOptions,
  type CheckResult,
  type PartCheck,
} from '../core/rules/checker';

/** One file to check: its text and options, or a check that only this thread runs (a chart template). */
export interface CheckJob {
  text: string;
  options: CheckOptions;
  here?: () => CheckResult;
}

/**
 * Below this much text in all, a worker costs more than it saves: it starts cold (its own heap, its
 * code optimised again, its caches empty) and spends about 0.6 s of CPU more than a warm thread would
 * on the same work, which is what one thread takes to check about 3 MB (measured on 10 000 Deployments).
 */
export const MIN_PARALLEL_CHARS = 4 << 20;
/** A file larger than this is cut into parts of about this size (whole documents); smaller files are batched up to it. */
const PART_CHARS = 256 * 1024;
/** Files sent to a worker in one message, at most: a message costs a little, a batch too long delays the end. */
const BATCH_FILES = 64;
/** Batches a worker holds at once, so that it never waits for this thread (busy with its own batch) to send more. */
const IN_FLIGHT = 2;
const WORKER_MARK = 'kube-windows-check-worker';

let launcher: string | undefined;

/** The CLI's entry script, which a worker runs: set by the CLI's main module; without it everything runs here. */
export function enableCheckWorkers(script: string): void {
  launcher = script;
}

/**
 * Cores one checking thread keeps busy: V8 collects garbage and compiles on helper threads beside
 * it (measured: 1.9-2.1 s of CPU in 1.4-1.5 s of wall time on 10 000 Deployments, docs/performance.md).
 */
const CORES_PER_THREAD = 1.5;

/**
 * How many threads `check` uses by default: as many as the cores the process may use can keep busy.
 * On 2 cores that is one, which measured fastest there: a second thread finds no free core and adds
 * its cold start (about 1 s of CPU) to the run.
 */
export function defaultThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / CORES_PER_THREAD));
}

/** A unit of work: a whole file, or one part of a large one. */
type Unit = { job: number; part?: { n: number; of: DocumentPart } };
type UnitResult = { job: number; n?: number; result: CheckResult | PartCheck };

/** Where the work went: units (whole files or parts of one) checked here and on workers. */
export interface CheckStats {
  here: number;
  workers: number;
}

/** What a worker is sent: texts it does not have yet, by job, and the units to check. */
interface Request {
  id: number;
  texts: [number, string][];
  units: { job: number; options: CheckOptions; text?: string; part?: DocumentPart; n?: number }[];
}
type Reply = { id: number; results: UnitResult[] } | { id: number; error: string };

/**
 * Checks every job and returns their results in the jobs' order: on `threads` threads (this one
 * and threads - 1 workers) when there is enough text to gain from it, else here, one after another.
 */
export async function checkAll(jobs: CheckJob[], threads: number, stats?: CheckStats): Promise<CheckResult[]> {
  const results: (CheckResult | undefined)[] = jobs.map(() => undefined);
  const spread = jobs.reduce((n, j) => n + (j.here ? 0 : j.text.length), 0);
  if (threads <= 1 || !launcher || spread < MIN_PARALLEL_CHARS) {
    return jobs.map((j) => j.here?.() ?? checkText(j.text, j.options));
  }
  const parts: (PartCheck | undefined)[][] = jobs.map(() => []);
  const partCount: number[] = jobs.map(() => 0);
  const batches = planBatches(jobs, partCount);
  const store = ({ job, n, result }: UnitResult, where: keyof CheckStats) => {
    if (stats) stats[where]++;
    if (n === undefined) results[job] = result;
    else parts[job][n] = result as PartCheck;
  };
  const partCheckers = new PartCheckers();
  const runHere = (batch: Unit[]) => {
    for (const u of batch) {
      const j = jobs[u.job];
      const result = u.part ? partCheckers.of(u.job, j.text, j.options)(u.part.of) : checkText(j.text, j.options);
      store({ job: u.job, n: u.part?.n, result }, 'here');
    }
  };
  const pool = Array.from({ length: threads - 1 }, () => new CheckWorker(launcher!, jobs, store));
  const feed = () => {
    for (const w of pool) while (w.ready() && batches.length > 0) w.send(batches.shift()!);
  };
  try {
    feed();
    jobs.forEach((j, k) => {
      if (j.here) results[k] = j.here();
    });
    for (;;) {
      feed();
      const batch = batches.shift();
      if (batch) {
        runHere(batch);
        // Let the workers' replies in (and send them more) between this thread's own batches.
        await new Promise((r) => setImmediate(r));
        continue;
      }
      // Nothing left to hand out: wait for the workers' last batches; a worker that failed gives its back.
      const busy = pool.filter((w) => !w.idle());
      if (busy.length === 0) break;
      batches.push(...(await Promise.race(busy.map((w) => w.idleOrFailed()))));
    }
  } finally {
    for (const w of pool) w.stop();
  }
  jobs.forEach((j, k) => {
    if (partCount[k] > 0) results[k] = joinTextParts(j.text, j.options, parts[k] as PartCheck[]);
  });
  return results as CheckResult[];
}

/** Whole files batched up to PART_CHARS (or BATCH_FILES), large files cut in parts; in the jobs' order. */
function planBatches(jobs: CheckJob[], partCount: number[]): Unit[][] {
  const batches: Unit[][] = [];
  let batch: Unit[] = [];
  let size = 0;
  const close = () => {
    if (batch.length > 0) batches.push(batch);
    batch = [];
    size = 0;
  };
  jobs.forEach((j, job) => {
    if (j.here) return;
    if (j.text.length > 2 * PART_CHARS) {
      const cut = documentParts(j.text, PART_CHARS);
      if (cut.length > 1) {
        partCount[job] = cut.length;
        cut.forEach((of, n) => batches.push([{ job, part: { n, of } }]));
        return;
      }
    }
    batch.push({ job });
    size += j.text.length;
    if (size >= PART_CHARS || batch.length >= BATCH_FILES) close();
  });
  close();
  return batches;
}

/** One worker thread and the batches it holds. A worker that fails gives its batches back to be run here. */
class CheckWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Unit[]>();
  private readonly has = new Set<number>();
  private failed = false;
  private nextId = 0;
  private wake: (() => void) | undefined;
  private returned: Unit[][] = [];

  constructor(
    script: string,
    private readonly jobs: CheckJob[],
    private readonly store: (r: UnitResult, where: 'workers') => void,
  ) {
    this.worker = new Worker(script, { workerData: { [WORKER_MARK]: true } });
    this.worker.on('message', (reply: Reply) => {
      const batch = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (!batch) return;
      if ('error' in reply) this.returned.push(batch);
      else for (const r of reply.results) this.store(r, 'workers');
      this.wake?.();
    });
    const fail = () => {
      if (this.failed) return;
      this.failed = true;
      this.returned.push(...this.pending.values());
      this.pending.clear();
      this.wake?.();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', fail);
  }

  ready(): boolean {
    return !this.failed && this.pending.size < IN_FLIGHT;
  }

  idle(): boolean {
    return this.pending.size === 0 && this.returned.length === 0;
  }

  send(batch: Unit[]): void {
    const id = this.nextId++;
    const texts: [number, string][] = [];
    for (const u of batch) {
      if (!u.part || this.has.has(u.job)) continue;
      // A large file's text goes once to each worker that checks a part of it.
      this.has.add(u.job);
      texts.push([u.job, this.jobs[u.job].text]);
    }
    const request: Request = {
      id,
      texts,
      units: batch.map((u) => ({
        job: u.job,
        options: this.jobs[u.job].options,
        ...(u.part ? { part: u.part.of, n: u.part.n } : {}),
        ...(u.part ? {} : { text: this.jobs[u.job].text }),
      })),
    };
    try {
      this.worker.postMessage(request);
      this.pending.set(id, batch);
    } catch {
      // Options a worker cannot be sent (a function in them: structured clone refuses it) are checked here.
      this.failed = true;
      this.returned.push(batch);
    }
  }

  /** Resolves when this worker has nothing in hand, or has batches to give back (it failed, or a check threw there). */
  idleOrFailed(): Promise<Unit[][]> {
    const take = () => this.returned.splice(0);
    if (this.pending.size === 0 || this.returned.length > 0) return Promise.resolve(take());
    return new Promise((resolve) => {
      this.wake = () => {
        if (this.pending.size > 0 && this.returned.length === 0) return;
        this.wake = undefined;
        resolve(take());
      };
    });
  }

  stop(): void {
    void this.worker.terminate();
  }
}

/**
 * In a worker started by checkAll: serves check requests and returns true; elsewhere returns false
 * at once. The CLI's main module calls it before anything else, since a worker runs the same bundle.
 */
export function serveCheckWorker(): boolean {
  if (isMainThread || !parentPort || (workerData as Record<string, unknown> | undefined)?.[WORKER_MARK] !== true)
    return false;
  const port = parentPort;
  const texts = new Map<number, string>();
  const partCheckers = new PartCheckers();
  port.on('message', (request: Request) => {
    try {
      for (const [job, text] of request.texts) texts.set(job, text);
      const results: UnitResult[] = request.units.map((u) => {
        const text = u.text ?? texts.get(u.job) ?? '';
        return u.part
          ? { job: u.job, n: u.n, result: partCheckers.of(u.job, text, u.options)(u.part) }
          : { job: u.job, result: checkText(text, u.options) };
      });
      port.postMessage({ id: request.id, results } satisfies Reply);
    } catch (err) {
      // Run again on the main thread, where the failure shows as it would without workers.
      port.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) } satisfies Reply);
    }
  });
  return true;
}

/** Each large file's part checker, prepared once per thread (its line table, facts and rules are shared by its parts). */
class PartCheckers {
  private readonly byJob = new Map<number, ReturnType<typeof textPartChecker>>();

  of(job: number, text: string, options: CheckOptions): ReturnType<typeof textPartChecker> {
    let checker = this.byJob.get(job);
    if (!checker) this.byJob.set(job, (checker = textPartChecker(text, options)));
    return checker;
  }
}
