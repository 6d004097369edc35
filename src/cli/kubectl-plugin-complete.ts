// Shell completion of `kubectl windows …`. kubectl (1.26 and later) completes a plugin's arguments by
// running `kubectl_complete-<plugin>` from the PATH with the words typed after the plugin's name and the
// word being completed, and reads one candidate per line (`value<TAB>description`), then optionally
// `:<directive>` (cobra's: 0 files may be completed, 4 no file completion). The candidates come from the
// commands' declarations (./commands), so every command and option completes without a list of its own.
import type { CommandDecl, OptionDecl, OptionDecls } from './declare';
import { COMMANDS } from './commands';
import { commandOf, formatsOf } from './kubectl-plugin-args';

/** cobra's ShellCompDirective values that kubectl understands. */
const FILES = 0;
const NO_FILES = 4;

export interface Completion {
  items: string[];
  directive: number;
}

/** The candidates for the last word of `words` (the words after "windows"; the last may be ""). */
export function complete(words: readonly string[], contexts: () => readonly string[]): Completion {
  const typed = words.slice(0, -1);
  const current = words[words.length - 1] ?? '';
  const matching = (items: readonly string[]) => items.filter((i) => i.startsWith(current));
  const firstWords = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))];
  if (typed.length === 0) return { items: matching(firstWords), directive: NO_FILES };
  const decl = commandOf(typed);
  if (!decl) return { items: [], directive: NO_FILES };
  const nameWords = decl.name.split(' ');
  // "mirrors" alone: its subcommands.
  if (nameWords.length > typed.length) {
    const subs = COMMANDS.filter((c) => c.name.startsWith(`${typed[0]} `)).map((c) => c.name.split(' ')[1]);
    return { items: matching(subs), directive: NO_FILES };
  }
  const previous = typed[typed.length - 1];
  const valueOf = optionTakingValue(decl, previous);
  if (valueOf) return optionValues(decl, valueOf, current, contexts);
  if (current.startsWith('-')) return { items: matching(optionNames(decl)), directive: NO_FILES };
  const positionals = typed.slice(nameWords.length).filter((w, i, all) => !isOptionOrItsValue(decl, all, i, w));
  if (decl.actions && positionals.length === 0) {
    const actions = Object.entries<string>(decl.actions).map(([a, help]) => `${a}\t${firstLine(help)}`);
    return { items: actions.filter((a) => a.startsWith(current)), directive: NO_FILES };
  }
  // Paths for the commands that read files (check, mirrors); nothing to offer for a node or pod name.
  return { items: [], directive: decl.name === 'check' || decl.name.startsWith('mirrors') ? FILES : NO_FILES };
}

/** The printed form kubectl reads: one candidate per line, then the directive. */
export function completionText(c: Completion): string {
  return `${[...c.items, `:${c.directive}`].join('\n')}\n`;
}

/** The option `word` names when it takes a value (--context, -o …), else undefined. */
function optionTakingValue(decl: CommandDecl<OptionDecls, string>, word: string | undefined): string | undefined {
  if (!word?.startsWith('-') || word.includes('=')) return undefined;
  if (word === '-o' || word === '--output') return 'output';
  if (word === '--request-timeout') return 'request-timeout';
  const entry = Object.entries<OptionDecl>(decl.options).find(([name, o]) =>
    word.startsWith('--') ? name === word.slice(2) : o.short === word.slice(1),
  );
  return entry && entry[1].type === 'string' ? entry[0] : undefined;
}

function isOptionOrItsValue(
  decl: CommandDecl<OptionDecls, string>,
  words: readonly string[],
  i: number,
  word: string,
): boolean {
  return word.startsWith('-') || (i > 0 && optionTakingValue(decl, words[i - 1]) !== undefined);
}

function optionValues(
  decl: CommandDecl<OptionDecls, string>,
  option: string,
  current: string,
  contexts: () => readonly string[],
): Completion {
  const matching = (items: readonly string[]) => items.filter((i) => i.startsWith(current));
  if (option === 'context') return { items: matching(contexts()), directive: NO_FILES };
  if (option === 'output') {
    const own = choices(decl.options.output?.value);
    const viaFormat = formatsOf(decl).length ? [...formatsOf(decl), 'yaml'] : [];
    return { items: matching([...new Set([...own, ...viaFormat])]), directive: NO_FILES };
  }
  const value = decl.options[option]?.value ?? '';
  // A declared choice (text|json|sarif) completes; a file or folder is the shell's to complete.
  if (choices(value).length) return { items: matching(choices(value)), directive: NO_FILES };
  return { items: [], directive: /FILE|DIR/.test(value) ? FILES : NO_FILES };
}

/** The options a command takes, as typed (--name, and -o where -o becomes --format), with their help's first line. */
function optionNames(decl: CommandDecl<OptionDecls, string>): string[] {
  const names = Object.entries<OptionDecl>(decl.options)
    .filter(([, o]) => o.help !== undefined)
    .map(([name, o]) => `--${name}\t${firstLine(o.help)}`);
  if (!('output' in decl.options) && formatsOf(decl).length) names.push('--output\tthe output format, as kubectl -o');
  names.push('--request-timeout\thow long one API request may take (30s, 2m; 0: no limit)');
  return names;
}

/** A help text's first line for a description; a `{fact}` the command fills in at run time is left out. */
function firstLine(help: string | undefined): string {
  return (help ?? '').split('\n')[0].replace(/ ?\(default \{[\w-]+\}\)|\{[\w-]+\}/g, '');
}

/** The values of a declared choice ("text|json|sarif"); none for a value name (FILE, N). */
function choices(value: string | undefined): string[] {
  return value && /^[\w-]+(\|[\w-]+)+$/.test(value) ? value.split('|') : [];
}
