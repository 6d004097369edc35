// How a kube-windows command is declared, once: its usage lines, its options (type, value name, help,
// which actions take them) and its actions. Parsing (node's util.parseArgs underneath), the per-action
// checks, `--help` and the README's usage block all come from that declaration (./commands), so an
// option cannot be accepted without being documented, or documented without being accepted.

import { EXIT_CODES_HELP, parse, UsageError } from './kit';

export interface OptionDecl {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  readonly default?: boolean;
  /** The value's name in the help: `--timeout MIN`. */
  readonly value?: string;
  /**
   * The help, one or more lines; `{fact}` is filled from the facts given to commandHelp. Without it the option is
   * hidden (test hooks).
   */
  readonly help?: string;
  /** The heading the option is listed under (shared groups: "Cluster options:"); else beside its first action. */
  readonly section?: string;
  /** The actions that take it (every action when absent): any other action given it is a usage error. */
  readonly actions?: readonly string[];
  /** Actions that accept it and do nothing with it, as they always have (kept so that scripts do not break). */
  readonly ignoredBy?: readonly string[];
  /**
   * The usage error when an action that does not take it is given it; `{action}` is that action. Default: "--NAME goes
   * with CMD A and CMD B".
   */
  readonly refusal?: string;
}

export type OptionDecls = Readonly<Record<string, OptionDecl>>;

export interface CommandDecl<O extends OptionDecls = OptionDecls, A extends string = string> {
  readonly name: string;
  /** Usage lines, without the leading "kube-windows ". */
  readonly usage: readonly string[];
  /** Action name -> what it does (help); absent for commands without actions. */
  readonly actions?: Readonly<Record<A, string>>;
  /** What every action takes after its name ("node name"): a missing one is a usage error. */
  readonly operand?: string;
  /** Actions that take no operand (a list); the first is the action when none is given. */
  readonly noOperand?: readonly NoInfer<A>[];
  readonly options: O;
  /** Text between the options and the exit codes. */
  readonly notes?: string;
  /** Text between the usage lines and the options. */
  readonly intro?: string;
}

/** A command declaration, with its option types kept for the parser. */
export function command<const O extends OptionDecls, const A extends string = never>(
  decl: CommandDecl<O, A>,
): CommandDecl<O, A> {
  return decl;
}

/**
 * Shared options restricted to some actions of a command (the others refuse them, or ignore them as they always have).
 */
export function forActions<const O extends OptionDecls>(
  options: O,
  actions: readonly string[],
  ignoredBy: readonly string[] = [],
): { [K in keyof O]: O[K] & { actions: readonly string[] } } {
  return Object.fromEntries(Object.entries(options).map(([name, o]) => [name, { ...o, actions, ignoredBy }])) as {
    [K in keyof O]: O[K] & { actions: readonly string[] };
  };
}

// ---------------------------------------------------------------------------------------------
// Parsing

/** The options and positionals of one command line; an unknown option or a missing value is a usage error. */
export function parseCommand<const O extends OptionDecls>(decl: CommandDecl<O>, args: string[]) {
  return parse(args, decl.options, true, decl.name);
}

/**
 * The action and its operand from the positionals of a command with actions: an unknown or missing
 * action, a missing operand or an extra argument is a usage error; so is an option the action does
 * not take (see OptionDecl.actions). `help` when the action is "help".
 */
export function actionOf<A extends string>(
  decl: CommandDecl<OptionDecls, A>,
  positionals: readonly string[],
  values: Readonly<Record<string, unknown>>,
): { action: A; operand: string } {
  const [action = decl.noOperand?.[0], ...rest] = positionals;
  // An action without an operand takes no more positionals: the first is unexpected.
  const [operand, ...extra] = action && decl.noOperand?.includes(action as A) ? ['', ...rest] : rest;
  const names = Object.keys(decl.actions ?? {}) as A[];
  if (!action || !(names as string[]).includes(action))
    throw new UsageError(
      `${decl.name} takes ${orList(names)}${action ? `, not "${action}"` : ''}; try "kube-windows ${decl.name} --help"`,
    );
  if (decl.operand && !operand && !decl.noOperand?.includes(action as A))
    throw new UsageError(`${decl.name} ${action} needs the ${decl.operand}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  refuseOptionsOf(decl, action, values);
  return { action: action as A, operand: operand ?? '' };
}

/** A usage error for the first option given that `action` does not take. */
function refuseOptionsOf(
  decl: CommandDecl<OptionDecls, string>,
  action: string,
  values: Readonly<Record<string, unknown>>,
): void {
  for (const [name, option] of Object.entries(decl.options)) {
    if (!option.actions || option.actions.includes(action) || option.ignoredBy?.includes(action)) continue;
    const given = values[name];
    if (given === undefined || given === false) continue;
    throw new UsageError(
      (
        option.refusal ?? `--${name} goes with ${option.actions.map((a) => `${decl.name} ${a}`).join(' and ')}`
      ).replaceAll('{action}', action),
    );
  }
}

function orList(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : (names[0] ?? '');
}

// ---------------------------------------------------------------------------------------------
// Help

const OPTION_COLUMN = 28;

/** `--help` of a command: usage, actions with their options, the shared option groups, the exit codes. */
export function commandHelp(
  decl: CommandDecl<OptionDecls, string>,
  facts: Readonly<Record<string, string | number>> = {},
): string {
  return `Usage:\n${usageLines(decl)}\n\n${decl.intro ? `${decl.intro}\n\n` : ''}${optionsHelp(decl, facts)}${decl.notes ? `\n${decl.notes}` : ''}\n${EXIT_CODES_HELP}`;
}

/** The usage lines of a command, indented, as in the help and the README. */
export function usageLines(decl: CommandDecl<OptionDecls, string>): string {
  return decl.usage.map((u) => `  kube-windows ${u}`).join('\n');
}

/** The actions and options of a command as help lines (no usage, no exit codes). */
export function optionsHelp(
  decl: CommandDecl<OptionDecls, string>,
  facts: Readonly<Record<string, string | number>> = {},
): string {
  const fill = (text: string): string =>
    text.replace(/\{(\w[\w-]*)\}/g, (all, key: string) => (key in facts ? String(facts[key]) : all));
  const visible = Object.entries(decl.options).filter(([, o]) => o.help !== undefined);
  const lines: string[] = [];
  const actions = Object.entries<string>(decl.actions ?? {});
  const column = Math.max(10, ...actions.map(([a]) => a.length + 2));
  for (const [action, what] of actions) {
    lines.push(`${action.padEnd(column)}${fill(what).replace(/\n/g, `\n${' '.repeat(column)}`)}`);
    for (const [name, o] of visible) if (!o.section && o.actions?.[0] === action) lines.push(optionLine(name, o, fill));
  }
  for (const [name, o] of visible) if (!o.section && !o.actions) lines.push(optionLine(name, o, fill));
  const sections = [...new Set(visible.map(([, o]) => o.section).filter((s): s is string => s !== undefined))];
  for (const section of sections) {
    lines.push('', section);
    for (const [name, o] of visible) if (o.section === section) lines.push(optionLine(name, o, fill));
  }
  return `${lines.join('\n')}\n`;
}

function optionLine(name: string, o: OptionDecl, fill: (text: string) => string): string {
  // An optional value (`[=all]`) is written against the option's name, as it is typed.
  const value = o.value ? (o.value.startsWith('[') ? o.value : ` ${o.value}`) : '';
  const flags = `  ${o.short ? `-${o.short}, ` : ''}--${name}${value}`;
  const help = fill(o.help ?? '').replace(/\n/g, `\n${' '.repeat(OPTION_COLUMN)}`);
  return flags.length <= OPTION_COLUMN - 2
    ? `${flags.padEnd(OPTION_COLUMN)}${help}`
    : `${flags}\n${' '.repeat(OPTION_COLUMN)}${help}`;
}
