// `kubectl windows …`: kube-windows as a kubectl plugin. kubectl finds `kubectl-windows` on PATH and runs
// it with everything after "windows", parsing none of its own flags for it; so this reads kubectl's
// conventions (./kubectl-plugin-args.ts), fills in what kubectl users leave out (the current context),
// and runs the same commands as `kube-windows` (main.ts), speaking as `kubectl windows`: every usage
// line and every "try kube-windows COMMAND" in the output names `kubectl windows COMMAND`, rewritten as
// it is written so that each command's text stays declared once (./commands) and a new command needs
// nothing here.
import { version } from '../../package.json';
import { writeYaml } from '../core/manifest/yaml-writer';
import { allUsage, COMMANDS } from './commands';
import { parseCommand } from './declare';
import { EXIT, EXIT_CODES_HELP, failure } from './kit';
import { complete, completionText } from './kubectl-plugin-complete';
import {
  commandOf,
  contextToUse,
  dropUnusedGlobals,
  formatFor,
  needsCurrentContext,
  PLUGIN_COMMAND,
  PluginError,
  takeOutput,
  takeRequestTimeout,
  type KubectlRole,
} from './kubectl-plugin-args';

/** The text as `kubectl windows` says it: command references and the `kube-windows:` prefix of messages. */
export function asPluginText(text: string): string {
  return text.replace(COMMAND_REFERENCE, `${PLUGIN_COMMAND} `).replace(/^kube-windows: /gm, `${PLUGIN_COMMAND}: `);
}

/** "kube-windows check", "kube-windows COMMAND --help", "kube-windows --help": a command line, not the product's name. */
const COMMAND_REFERENCE = new RegExp(
  `\\bkube-windows (?=(?:${[...new Set(COMMANDS.map((c) => c.name.split(' ')[0])), 'COMMAND', 'lsp', '-h', '--help', '-v', '--version'].join('|')})(?![\\w-]))`,
  'g',
);

/** Runs a kube-windows command line as `kubectl windows` would: `run` is main.ts's dispatcher. */
export async function runAsKubectlPlugin(
  argv: readonly string[],
  run: (args: string[]) => number | Promise<number>,
  role: KubectlRole = 'plugin',
): Promise<number> {
  if (role === 'completion') return completeForKubectl(argv);
  speakAsPlugin();
  try {
    const first = argv[0];
    if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
      (first === undefined ? process.stderr : process.stdout).write(pluginHelp());
      return first === undefined ? EXIT.USAGE : EXIT.OK;
    }
    const timeout = takeRequestTimeout(argv);
    if (timeout.seconds !== undefined) process.env.KUBE_WINDOWS_REQUEST_TIMEOUT = String(timeout.seconds);
    const decl = commandOf(timeout.args);
    if (!decl) return await run(timeout.args);
    const { args, output } = takeOutput(decl, dropUnusedGlobals(decl, timeout.args));
    const choice = output === undefined ? undefined : formatFor(decl, output);
    const line = [...args, ...(choice ? ['--format', choice.format] : [])];
    const withContext = await addContext(decl, line);
    return choice?.asYaml ? await printedAsYaml(() => run(withContext)) : await run(withContext);
  } catch (err) {
    return pluginFailure(err);
  }
}

/** Prints the completions of the words kubectl gives (./kubectl-plugin-complete.ts); never fails the shell. */
async function completeForKubectl(words: readonly string[]): Promise<number> {
  const { loadKubeconfig } = await import('../cluster/kubeconfig');
  const at = words.indexOf('--kubeconfig');
  const explicit = at >= 0 ? words[at + 1] : undefined;
  const contexts = () => {
    const loaded = loadKubeconfig(explicit ? { explicit } : {});
    return loaded.ok ? loaded.contexts.map((c) => c.name) : [];
  };
  process.stdout.write(completionText(complete(words, contexts)));
  return EXIT.OK;
}

/** The line with --context filled in when the command needs a cluster and none was named (kubectl's current context). */
async function addContext(decl: Parameters<typeof needsCurrentContext>[0], line: string[]): Promise<string[]> {
  let parsed;
  try {
    parsed = parseCommand(decl, line);
  } catch {
    return line; // the command says what is wrong with its line, in its words
  }
  const { values } = parsed;
  const given = typeof values.context === 'string' ? values.context : undefined;
  const fill = needsCurrentContext(decl, parsed);
  if (given === undefined && !fill) return line;
  const explicit = typeof values.kubeconfig === 'string' ? values.kubeconfig : undefined;
  // Loaded here only: the Kubernetes client library costs a tenth of a second that a check of files never needs.
  const { loadKubeconfig } = await import('../cluster/kubeconfig');
  const loaded = loadKubeconfig(explicit ? { explicit } : {});
  if (!loaded.ok) throw new PluginError(loaded.message);
  const context = contextToUse(given, { names: loaded.contexts.map((c) => c.name), current: loaded.currentContext });
  return given === undefined ? [...line, '--context', context] : line;
}

/** Runs a command asked for JSON and prints what it wrote as YAML (-o yaml where the command itself prints JSON). */
async function printedAsYaml(run: () => number | Promise<number>): Promise<number> {
  const write = process.stdout.write;
  let text = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  let code: number;
  try {
    code = await run();
  } finally {
    process.stdout.write = write;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    process.stdout.write(text); // not JSON (nothing, or an error's text): as written
    return code;
  }
  process.stdout.write(writeYaml(value));
  return code;
}

/** Every write to stdout and stderr from here on names `kubectl windows` (see asPluginText). */
function speakAsPlugin(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(typeof chunk === 'string' ? asPluginText(chunk) : chunk, ...rest)) as typeof stream.write;
  }
}

/** kubectl's `error: …` for the plugin's own errors; the commands' errors as they word them. */
function pluginFailure(err: unknown): number {
  if (err instanceof PluginError) {
    process.stderr.write(`error: ${err.message}\n`);
    return EXIT.USAGE;
  }
  return failure(err);
}

function pluginHelp(): string {
  return `${PLUGIN_COMMAND}: Windows compatibility checks and Windows node operations for Kubernetes and
OpenShift, as a kubectl plugin (kube-windows ${version})

Usage:
${allUsage()}

kubectl's conventions hold:
  --context C                default: the kubeconfig's current-context (kubectl config current-context)
  --kubeconfig FILE          default: KUBECONFIG (its files merged as kubectl merges them), then
                             ~/.kube/config
  -n, --namespace NS         default: the context's namespace, else default (check, pods, shell);
                             ignored by the other commands, as kubectl ignores it for nodes
  -A, --all-namespaces       every namespace (check, pods); ignored by the other commands
  -o, --output FORMAT        where a command lists things: json or yaml (nodes, pods: also wide and name;
                             check: also sarif); kube-windows' --format is the same option
  -w, --watch                nodes, pods: after the list, a line per change until Ctrl-C
  --request-timeout D        how long one API request may take (30s, 2m; 0: no limit; default 1m)
kubectl's flags go after "windows": kubectl refuses flags before a plugin's name.
"kubectl windows check" without paths checks what is deployed in the current context's namespace;
"kubectl windows check DIR" checks the files, offline, as kube-windows does.
"kubectl windows COMMAND --help" lists a command's options.

  -h, --help                 this help
  -v, --version              print the version

${EXIT_CODES_HELP}`;
}
