// The plumbing every kube-windows subcommand shares, so that an option or an exit code means the same
// in check, rules, join, remove, nodes and mirrors: parsing (a bad option is a usage error), the exit
// codes, the cluster options (--context, --kubeconfig), the SSH options (--user, --key, --port,
// --known-hosts, --accept-new-host-key), --yes and --dry-run, questions on the terminal, Ctrl-C,
// progress lines and error messages. Each command's own options and help are declared in ./commands;
// a new option group that two commands would share belongs here, declared the same way (./declare).

import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { UserError } from '../core/user-error';
import { counted } from '../core/plural';
import type { RunEvent, RunResult } from '../bootstrap/runner';

// ---------------------------------------------------------------------------------------------
// Exit codes

/** The exit codes of every subcommand; EXIT_CODES_HELP says the same for people. */
export const EXIT = {
  /** Done: no findings (at or above check's --fail-on), every host or node done, nothing to change. */
  OK: 0,
  /**
   * The command ran and the answer is no: findings, refused sources, changes to make, a host or node failed (SSH
   * included), Ctrl-C, a "no".
   */
  FAILED: 1,
  /**
   * Usage or environment error: a bad option, a file that cannot be read or written, the kubeconfig, context or
   * cluster, no terminal for a confirmation, an internal error.
   */
  USAGE: 2,
} as const;

export const EXIT_CODES_HELP = `Exit codes (the same for every command):
  0  done: no findings (check: none at or above --fail-on, default warning), every host or
     node done, nothing to change
  1  the command ran and the answer is no: findings at or above --fail-on (check), sources
     refused (mirrors render), changes to make (mirrors diff), a host or node failed, SSH
     connection, host key and authentication failures included (join, remove, nodes, mirrors
     apply), cancelled with Ctrl-C, or "no" to a confirmation
  2  usage or environment error: a bad option, a path that does not exist, a glob that matches
     no YAML file, a named file that is not YAML, a file that cannot be read or written (--key
     included), a kubeconfig, context or cluster that cannot be used, a confirmation with no
     terminal to ask it on (pass --yes), an internal error
`;

/** A mistake in the command line or its inputs: one line on stderr, exit code 2. */
export class UsageError extends UserError {}

/** The exit code and the one line on stderr for an error that reached the top of a subcommand. */
export function failure(err: unknown): number {
  if (err instanceof UsageError || isParseArgsError(err)) {
    warn((err as Error).message);
    return EXIT.USAGE;
  }
  // An unexpected failure: one line, no stack; the stack only with KUBE_WINDOWS_DEBUG set.
  warn(`internal error: ${(err as Error)?.message ?? String(err)}`);
  if (process.env.KUBE_WINDOWS_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  return EXIT.USAGE;
}

function isParseArgsError(err: unknown): boolean {
  return Boolean((err as { code?: string } | undefined)?.code?.startsWith('ERR_PARSE_ARGS'));
}

/** What to tell the user about an error met while working on a cluster or a host: the same words as VS Code's. */
export { userMessage } from '../cluster/errors';

// ---------------------------------------------------------------------------------------------
// Output

/** A line on stdout: results and progress. */
export function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A line on stderr, prefixed `kube-windows:`: errors, warnings, notes. */
export function warn(message: string): void {
  process.stderr.write(`kube-windows: ${message}\n`);
}

/**
 * One line per meaningful plan event, prefixed with the host when several run at once; `done` names a finished plan
 * ("joined", "removed").
 */
export function progressLine(prefix: string, e: RunEvent, done = 'done'): string | undefined {
  const p = prefix ? `[${prefix}] ` : '';
  switch (e.type) {
    case 'plan-start':
      return `${p}${e.title} (${e.steps.length} steps)`;
    case 'step-start':
      return `${p}${e.index}/${e.total} ${e.title}`;
    case 'step-end':
      return `${p}  ${e.outcome === 'skipped' ? '= already done' : e.outcome === 'applied' ? `✓ done in ${seconds(e.durationMs)}` : `✗ ${e.outcome}${e.message ? `: ${e.message}` : ''}`}`;
    case 'log':
      return e.stepId ? `${p}    ${e.message}` : `${p}${e.message}`;
    case 'plan-end':
      return `${p}${e.outcome === 'done' ? done : e.outcome}${e.outcome !== 'done' && e.message ? `: ${e.message.split('\n')[0]}` : ''} (${seconds(e.durationMs)})`;
    default:
      return undefined;
  }
}

/**
 * The one line after a run that did not complete: which steps completed and which not, and the exact command that
 * resumes it (the same command line: steps already done are checked and skipped).
 */
export function resumeLine(result: RunResult, args: readonly string[] = process.argv.slice(2)): string | undefined {
  if (result.outcome === 'done') return undefined;
  const done = result.steps.filter((s) => s.outcome === 'applied' || s.outcome === 'skipped' || s.tookEffect);
  const left = result.steps.filter((s) => !done.includes(s));
  const list = (steps: typeof done): string => steps.map((s) => s.id).join(', ');
  const parts = [
    `${done.length} of ${counted(result.steps.length, 'step')} completed${done.length > 0 ? ` (${list(done)})` : ''}`,
    ...(left.length > 0 ? [`not done: ${list(left)}`] : []),
  ];
  return `${result.outcome === 'cancelled' ? 'cancelled' : 'stopped'}: ${parts.join('; ')}. To resume, run: ${commandLine(args)}`;
}

/**
 * A command line as a POSIX shell reads it back. Options hold no secrets (keys are files, passphrases asked); a URL's
 * user:password, should one be given, prints as •••.
 */
export function commandLine(args: readonly string[], program = 'kube-windows'): string {
  const quote = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  const hide = (a: string): string => a.replace(/(:\/\/)[^/@\s]+@/g, '$1•••@');
  return [program, ...args.map((a) => quote(hide(a)))].join(' ');
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

// ---------------------------------------------------------------------------------------------
// Options

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/**
 * parseArgs with a usage error (exit code 2) for an unknown option or a missing value, in our words
 * (Node's text explains `--` separators to people who mistyped an option name).
 */
export function parse<const O extends Options>(args: string[], options: O, allowPositionals = false, command = '') {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    if (isParseArgsError(err)) throw new UsageError(parseArgsWords(err as Error & { code: string }, options, command));
    throw err;
  }
}

function parseArgsWords(err: Error & { code: string }, options: Options, command: string): string {
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? '';
  const help = `"kube-windows ${command ? `${command} ` : ''}--help" lists the options`;
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted}; ${help}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}"; ${help}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      // "Option '-n, --namespace <value>' argument missing" or "Option '--yes' does not take an argument".
      const name = /--([\w-]+)/.exec(quoted)?.[1] ?? '';
      const option = (options ?? {})[name] as { type?: string; value?: string } | undefined;
      if (option?.type === 'boolean') return `--${name} takes no value; ${help}`;
      return `--${name} needs a value${option?.value ? ` (--${name} ${option.value})` : ''}`;
    }
    default:
      return `${err.message.split('.')[0]}; ${help}`;
  }
}

export const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

// The option groups several commands share, declared once with their help (see ./declare).

/** Every command that talks to a cluster. */
export const CLUSTER_OPTIONS = {
  context: {
    type: 'string',
    value: 'C',
    section: 'Cluster options:',
    help: 'the context of the kubeconfig to use (required)',
  },
  kubeconfig: {
    type: 'string',
    value: 'FILE',
    section: 'Cluster options:',
    help: 'default: KUBECONFIG (its files merged as kubectl does), then ~/.kube/config',
  },
} as const;

export const DEFAULT_USER = 'Administrator';
/** Every command that connects to Windows hosts over SSH. */
export const SSH_OPTIONS = {
  user: { type: 'string', value: 'U', section: 'SSH options:', help: `the Windows account (default ${DEFAULT_USER})` },
  key: {
    type: 'string',
    value: 'FILE',
    section: 'SSH options:',
    help: 'private key (else the keys of ssh-agent, SSH_AUTH_SOCK)',
  },
  port: { type: 'string', value: 'N', section: 'SSH options:', help: 'SSH port (default 22)' },
  'known-hosts': { type: 'string', value: 'FILE', section: 'SSH options:', help: 'default ~/.ssh/known_hosts' },
  'accept-new-host-key': {
    type: 'boolean',
    default: false,
    section: 'SSH options:',
    help: 'trust an unknown host key on first use (a changed key is always refused)',
  },
} as const;

/**
 * Every command that changes a cluster or a host, whether or not it asks anything today, so scripts can pass it alike.
 */
export const YES_OPTION = {
  yes: {
    type: 'boolean',
    short: 'y',
    default: false,
    help: "answer yes to the command's confirmations (without a terminal, a confirmation needs it);\nhost keys are trusted only with --accept-new-host-key",
  },
} as const;

/** Where WMCO lives and which OLM catalog and channel install it (join and remove; VS Code: kubeWindows.wmco.*). */
export const WMCO_OPTIONS = {
  'wmco-namespace': {
    type: 'string',
    value: 'NS',
    section: 'WMCO options (BYOH):',
    help: 'the namespace WMCO is installed in (default openshift-windows-machine-config-operator)',
  },
  'olm-source': {
    type: 'string',
    value: 'NAME',
    section: 'WMCO options (BYOH):',
    help: 'the CatalogSource --install-wmco subscribes to (default redhat-operators, community-operators on OKD)',
  },
  'olm-channel': {
    type: 'string',
    value: 'NAME',
    section: 'WMCO options (BYOH):',
    help: 'the channel --install-wmco subscribes to (default stable)',
  },
} as const;

/** The WMCO options as the engine takes them; an empty or blank value is a usage error. */
export function wmcoOptions(values: { 'wmco-namespace'?: string; 'olm-source'?: string; 'olm-channel'?: string }): {
  namespace?: string;
  source?: string;
  channel?: string;
} {
  const out: { namespace?: string; source?: string; channel?: string } = {};
  for (const [option, key] of [
    ['wmco-namespace', 'namespace'],
    ['olm-source', 'source'],
    ['olm-channel', 'channel'],
  ] as const) {
    const v = values[option];
    if (v === undefined) continue;
    // Kubernetes object names: lowercase letters, digits, '-' and '.' (a namespace has no '.').
    if (
      !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(v) ||
      (option === 'wmco-namespace' && (v.includes('.') || v.length > 63))
    ) {
      throw new UsageError(
        `--${option} ${JSON.stringify(v)} is not a valid ${option === 'wmco-namespace' ? 'namespace' : 'name'}`,
      );
    }
    out[key] = v;
  }
  return out;
}
/** Every command that runs a plan: prints it and changes nothing. */
export const DRY_RUN_OPTION = {
  'dry-run': {
    type: 'boolean',
    default: false,
    help: 'print the plan (steps, PowerShell, API calls; secrets as •••) and change nothing',
  },
} as const;

/** How often plans poll the cluster, in milliseconds: for tests, not in the help. */
export const POLL_OPTION = { 'poll-interval': { type: 'string' } } as const;

/** The shared options of the commands that run plans on a cluster and its Windows hosts: join, remove, nodes. */
export const PLAN_COMMAND_OPTIONS = {
  ...CLUSTER_OPTIONS,
  ...SSH_OPTIONS,
  ...DRY_RUN_OPTION,
  ...YES_OPTION,
  ...POLL_OPTION,
  ...HELP_OPTION,
} as const;

/** The value when it is one of `allowed` (undefined when absent), else a usage error naming them. */
export function oneOf<const T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
  const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}` : allowed[0];
  throw new UsageError(`--${name} must be ${list}, not "${value}"`);
}

/** A whole number of at least 1, or undefined when absent. */
export function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive whole number`);
  return n;
}

/** A number above 0 (or at least 0 with `zero`), or undefined when absent. */
export function positiveNumber(name: string, value: string | undefined, zero = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || (n === 0 && !zero))
    throw new UsageError(`--${name} must be a ${zero ? 'non-negative' : 'positive'} number`);
  return n;
}

/** Refuses an option given to a command it does nothing for (rather than ignoring it). */
export function refuse(given: unknown, message: string): void {
  if (given !== undefined && given !== false) throw new UsageError(message);
}

// ---------------------------------------------------------------------------------------------
// Questions

/**
 * Asks a question on the terminal (undefined without one, or on Ctrl-C); `hidden` does not echo what is typed
 * (passphrases).
 */
export function ask(question: string, hidden: boolean): Promise<string | undefined> {
  if (!process.stdin.isTTY) return Promise.resolve(undefined);
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (!muted) process.stderr.write(chunk);
      cb();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolveP) => {
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolveP(answer);
    });
    muted = hidden;
    rl.on('SIGINT', () => {
      rl.close();
      resolveP(undefined);
    });
  });
}

/** A y/N confirmation: yes with --yes; without --yes and without a terminal, a usage error that says to pass --yes. */
export async function confirm(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  const answer = await ask(`${question} [y/N] `, false);
  if (answer === undefined)
    throw new UsageError(`${question.split('\n')[0]}: no terminal to ask on; pass --yes to confirm`);
  return isYes(answer);
}

export function isYes(answer: string): boolean {
  return /^y(es)?$/i.test(answer.trim());
}

// ---------------------------------------------------------------------------------------------
// Ctrl-C

/**
 * Runs a command that can be cancelled: the first Ctrl-C aborts the signal (plans stop after the
 * current command, `note` says what that means) instead of killing the process. A failure after
 * the abort is the cancellation: "cancelled", exit code 1.
 */
export async function withCancel(note: string, run: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const ctl = new AbortController();
  const onSigint = (): void => {
    warn(`cancelling (${note})`);
    ctl.abort(new Error('cancelled by the user'));
  };
  process.once('SIGINT', onSigint);
  try {
    return await run(ctl.signal);
  } catch (err) {
    if (!ctl.signal.aborted || err instanceof UsageError) throw err;
    warn('cancelled');
    return EXIT.FAILED;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
