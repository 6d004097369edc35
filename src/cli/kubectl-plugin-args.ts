// kubectl's conventions turned into kube-windows arguments, for `kubectl windows …` (./kubectl-plugin.ts).
// kubectl hands a plugin everything after its name and parses none of its own flags for it, so the plugin
// reads them itself: -o/--output (kube-windows' --format where a command has one), --request-timeout
// (kube-windows' KUBE_WINDOWS_REQUEST_TIMEOUT), and whether a command needs the current context filled
// in. No I/O here: the kubeconfig's contexts are given.
import { basename } from 'node:path';
import { COMMANDS } from './commands';
import type { CommandDecl, OptionDecls } from './declare';
import { UsageError } from './kit';

/** How kubectl runs us: `kubectl windows`, from the executable kubectl-windows (kubectl's plugin naming). */
export const PLUGIN_COMMAND = 'kubectl windows';
/** The executables kubectl looks for: the plugin, and its shell completion (kubectl 1.26 and later). */
const EXECUTABLES = { 'kubectl-windows': 'plugin', 'kubectl_complete-windows': 'completion' } as const;
export type KubectlRole = (typeof EXECUTABLES)[keyof typeof EXECUTABLES];

/**
 * What this process was started as, by its script's name (dist/kubectl-windows.js, a kubectl-windows or
 * kubectl_complete-windows link to it): undefined for kube-windows itself.
 */
export function kubectlRole(script: string | undefined): KubectlRole | undefined {
  const name = script === undefined ? '' : basename(script).replace(/\.(js|cmd|exe)$/, '');
  return Object.hasOwn(EXECUTABLES, name) ? EXECUTABLES[name as keyof typeof EXECUTABLES] : undefined;
}

/** The declaration a command line runs ("mirrors diff …" is its own command), or undefined for an unknown one. */
export function commandOf(args: readonly string[]): CommandDecl<OptionDecls, string> | undefined {
  const [first, second] = args;
  return (
    COMMANDS.find((c) => c.name === `${first} ${second}`) ??
    COMMANDS.find((c) => c.name === first) ??
    COMMANDS.find((c) => c.name.startsWith(`${first} `))
  );
}

export interface OutputChoice {
  /** The arguments with -o/--output taken out (or left, for a command that declares its own). */
  args: string[];
  /** The -o value, when one was given to a command that prints --format instead. */
  output?: string;
}

/**
 * Takes kubectl's -o/--output (`-o json`, `-ojson`, `-o=json`, `--output json`, `--output=json`) out of a command line
 * whose command has --format rather than an -o of its own; `--` ends the options, as everywhere.
 */
export function takeOutput(decl: CommandDecl<OptionDecls, string>, args: readonly string[]): OutputChoice {
  if ('output' in decl.options || !('format' in decl.options)) return { args: [...args] };
  const rest: string[] = [];
  let output: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    const inline = /^(?:--output=|-o=?)(.+)$/.exec(a);
    if (inline && a !== '-o') output = inline[1];
    else if (a === '-o' || a === '--output') {
      if (i + 1 >= args.length) throw new UsageError(`${a} needs a value (${a} json)`);
      output = args[++i];
    } else rest.push(a);
  }
  return output === undefined ? { args: rest } : { args: rest, output };
}

/** kubectl's flags every kubectl command accepts, by the option names kube-windows declares them with. */
const KUBECTL_GLOBALS: readonly { name: string; short?: string; boolean?: boolean }[] = [
  { name: 'namespace', short: 'n' },
  { name: 'all-namespaces', short: 'A', boolean: true },
];

/**
 * Takes out kubectl's namespace flags where a command has no namespace (`kubectl windows nodes -n web`): kubectl
 * accepts them on every command and ignores them for what is not namespaced (`kubectl get nodes -n web`).
 */
export function dropUnusedGlobals(decl: CommandDecl<OptionDecls, string>, args: readonly string[]): string[] {
  const unused = KUBECTL_GLOBALS.filter((g) => !(g.name in decl.options));
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    const flag = unused.find(
      (g) =>
        a === `--${g.name}` ||
        a.startsWith(`--${g.name}=`) ||
        (g.short !== undefined && (a === `-${g.short}` || (!g.boolean && a.startsWith(`-${g.short}`)))),
    );
    if (!flag) rest.push(a);
    else if (!flag.boolean && !a.includes('=') && (a === `--${flag.name}` || a === `-${flag.short}`)) i++;
  }
  return rest;
}

/** The formats a command's --format takes, from its declaration ("text|json|sarif"). */
export function formatsOf(decl: CommandDecl<OptionDecls, string>): string[] {
  return (decl.options.format?.value ?? '').split('|').filter(Boolean);
}

/**
 * How -o becomes --format: its own value where --format takes it, json for yaml (printed as YAML afterwards, by
 * `asYaml`); anything else is a usage error that names what the command prints.
 */
export function formatFor(decl: CommandDecl<OptionDecls, string>, output: string): { format: string; asYaml: boolean } {
  const formats = formatsOf(decl);
  if (formats.includes(output)) return { format: output, asYaml: false };
  if (output === 'yaml' && formats.includes('json')) return { format: 'json', asYaml: true };
  const all = [...formats, ...(formats.includes('json') ? ['yaml'] : [])];
  throw new UsageError(`-o ${output}: ${decl.name} prints ${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}`);
}

/** kubectl's --request-timeout (`30s`, `1m30s`, `500ms`, a bare number of seconds; 0: no timeout) as seconds. */
export function requestTimeoutSeconds(value: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) === 0 ? NO_TIMEOUT_SECONDS : Number(v);
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  let seconds = 0;
  let rest = v;
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ms|h|m|s)/.exec(rest);
    if (!m) throw new UsageError(`--request-timeout ${JSON.stringify(value)} is not a duration (30s, 2m, 1h; 0: none)`);
    seconds += Number(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length);
  }
  return seconds === 0 ? NO_TIMEOUT_SECONDS : seconds;
}

/** "Don't time out" as a wait Node's timers can hold (about 24 days). */
const NO_TIMEOUT_SECONDS = 2_147_483;

/** Takes `--request-timeout D` / `--request-timeout=D` out of a command line (up to `--`). */
export function takeRequestTimeout(args: readonly string[]): { args: string[]; seconds?: number } {
  const rest: string[] = [];
  let seconds: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (a === '--request-timeout') {
      if (i + 1 >= args.length) throw new UsageError('--request-timeout needs a value (--request-timeout 30s)');
      seconds = requestTimeoutSeconds(args[++i]);
    } else if (a.startsWith('--request-timeout='))
      seconds = requestTimeoutSeconds(a.slice('--request-timeout='.length));
    else rest.push(a);
  }
  return seconds === undefined ? { args: rest } : { args: rest, seconds };
}

/** What the command line given says, parsed with the command's own declaration. */
export interface ParsedLine {
  values: Readonly<Record<string, unknown>>;
  positionals: readonly string[];
}

/**
 * Whether the current context is filled in: a command that reaches a cluster and was given no --context, asked for
 * no help, and, for `check`, given no paths and no --snapshot (`kubectl windows check` checks what is deployed, as
 * kubectl acts on the cluster; `kubectl windows check DIR` checks the files, offline, as kube-windows does).
 */
export function needsCurrentContext(decl: CommandDecl<OptionDecls, string>, line: ParsedLine): boolean {
  if (!('context' in decl.options) || line.values.context !== undefined || line.values.help) return false;
  // The command's own name ("mirrors diff") is not an operand.
  const words = decl.name.split(' ').length;
  const operands = line.positionals.slice(words);
  if (operands[0] === 'help') return false;
  if (decl.name === 'check') return operands.length === 0 && line.values.snapshot === undefined;
  return true;
}

/** The kubeconfig's contexts, as the plugin needs them. */
export interface KubeconfigContexts {
  names: readonly string[];
  current?: string | undefined;
}

/**
 * The context to use, or the error kubectl would give (its own words for a context it does not know, so that
 * `kubectl windows` and `kubectl` fail alike), with the contexts there are.
 */
export function contextToUse(given: string | undefined, kubeconfig: KubeconfigContexts): string {
  const known = kubeconfig.names.length ? kubeconfig.names.join(', ') : 'none';
  if (given !== undefined) {
    if (kubeconfig.names.includes(given)) return given;
    throw new PluginError(`context was not found for specified context: ${given} (the kubeconfig has: ${known})`);
  }
  if (kubeconfig.current && kubeconfig.names.includes(kubeconfig.current)) return kubeconfig.current;
  if (kubeconfig.current)
    throw new PluginError(
      `the current-context "${kubeconfig.current}" is not a context of the kubeconfig; pass --context (the kubeconfig has: ${known})`,
    );
  throw new PluginError(`the kubeconfig sets no current-context; pass --context (the kubeconfig has: ${known})`);
}

/** An error said as kubectl says its own: `error: …` on stderr; a usage or environment error (exit code 2). */
export class PluginError extends UsageError {}
