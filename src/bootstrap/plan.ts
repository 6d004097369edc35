// Plans for the bootstrap engine: a plan is an ordered list of idempotent steps, each one
// check (already done?) -> apply -> verify. Plans are plain data plus functions; they never
// import vscode and report only through the runner's callbacks.

/** What a step's check found: nothing to do, or something to do (optionally saying why). */
export type CheckResult = 'done' | 'todo' | { todo: string };

/** A Kubernetes API call a step will make, shown by the dry-run. */
export interface ApiCallPreview {
  verb: string;
  path: string;
  body?: unknown;
  /** Shown as comment lines above the body in the dry run: what made the object, for what. */
  comment?: string;
}

/** What the dry-run shows for a step, without running anything. */
export interface StepPreview {
  /** How the check decides whether the step is already done (one line). */
  check?: string;
  /** The PowerShell scripts the step will run, in order. */
  powershell?: string[];
  /** The API calls the step will make, in order. */
  api?: ApiCallPreview[];
  notes?: string[];
}

/** A command that undoes what a stopped plan left: VS Code offers it as a button, the CLI names it. */
export interface Undo {
  /** The VS Code command's id and its button ("Remove node…"). */
  command: 'kubeWindows.removeNode' | 'kubeWindows.uncordonNode';
  label: string;
  /** The node the command acts on: its name once known, else the host's address (a windows-instances key). */
  node: string;
  /** The CLI's words for it (one sentence, without the --context the user already gives). */
  cli: string;
}

/** What holds in the cluster and on the host once a step has run: the words a cancel (or failure) ends with. */
export interface LeavesBehind {
  /** One or two sentences, present tense, on the state (what keeps happening without kube-windows, what to do). */
  state: string;
  undo?: Undo;
  /** The step only waits and sees: its state holds once it completed, never when it was stopped halfway. */
  observed?: true;
  /**
   * The step's effect is all or nothing (one API write, one host command): when it was stopped and its check then
   * says it is not done, it had no effect at all.
   */
  whole?: true;
}

/** Lets a step's apply say what it is doing; fraction is 0..1 when known. */
export type StepReporter = (message: string, fraction?: number) => void;

export interface Step<Ctx> {
  /** Stable id: used to resume a plan and in logs. */
  id: string;
  title: string;
  description?: string;
  check(ctx: Ctx, signal: AbortSignal): Promise<CheckResult>;
  apply(ctx: Ctx, signal: AbortSignal, report: StepReporter): Promise<void>;
  /** true when the step had its effect, else why not. */
  verify(ctx: Ctx, signal: AbortSignal): Promise<true | string>;
  preview: StepPreview;
  /** Extra attempts of apply after a TransientError (default 0). */
  retries?: number;
  /** Limit for the whole step (check, apply with its retries, verify). */
  timeoutMs?: number;
  /**
   * What the step leaves once it has run, when it changes anything (absent: it only reads or waits). A plan that
   * stops later says the state of the last such step (src/bootstrap/aftermath.ts); a function reads what the run
   * learnt (the node's name).
   */
  leavesBehind?: LeavesBehind | ((ctx: Ctx) => LeavesBehind);
}

export interface Plan<Ctx> {
  id: string;
  title: string;
  /** What the plan acts on, e.g. a host or node name. */
  target: string;
  steps: Step<Ctx>[];
  /** What a stop before any step changed anything means (default: nothing changed in the cluster or on the host). */
  untouched?: string;
}

export const REDACTED = '•••';

/**
 * A secret value (private key, passphrase, token). It prints, serialises and inspects as "•••";
 * only reveal() gives the value, and the runner redacts revealed values from what it reports.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Secret(${REDACTED})`;
  }
}

/** Replaces every occurrence of each secret in text with "•••" (longest secrets first). */
export function redact(text: string, secrets: readonly (string | Secret)[]): string {
  const values = [...new Set(secrets.map((s) => (s instanceof Secret ? s.reveal() : s)).filter((s) => s.length > 0))];
  values.sort((a, b) => b.length - a.length);
  let out = text;
  for (const value of values) {
    if (out.includes(value)) out = out.split(value).join(REDACTED);
  }
  return out;
}

/** Collects the values of the Secret instances reachable from a plain value (objects, arrays, maps). */
export function collectSecrets(value: unknown, found: string[] = [], depth = 0, seen = new Set<unknown>()): string[] {
  if (value instanceof Secret) {
    found.push(value.reveal());
    return found;
  }
  if (value === null || typeof value !== 'object' || depth > 6 || seen.has(value)) return found;
  seen.add(value);
  const children = value instanceof Map ? [...value.values()] : Array.isArray(value) ? value : Object.values(value);
  for (const child of children) collectSecrets(child, found, depth + 1, seen);
  return found;
}

/** Returns a copy of a plain value with every string redacted (Secret instances become "•••"). */
export function redactDeep<T>(value: T, secrets: readonly (string | Secret)[]): T {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (v instanceof Secret) return REDACTED;
    if (v === null || typeof v !== 'object' || depth > 8) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x, depth + 1);
    return out;
  };
  return walk(value, 0) as T;
}
