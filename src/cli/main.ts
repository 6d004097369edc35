// The `kube-windows` command line: dispatches to the subcommands. The plumbing they share (options,
// exit codes, questions, progress) is in ./kit, cluster and SSH access in ./kit-remote; every command's
// options, usage and help are declared once in ./commands (made into parsers and help by ./declare); each
// runs in its module: check.ts (check, snapshot, rules), join.ts (join, remove), nodes.ts, shell.ts, pods.ts,
// mirrors.ts (render), mirrors-apply.ts (diff, apply), machineset.ts (create, follow, scale,
// delete-machine), lsp.ts (the language server) and policy.ts (export; apply, status and remove in
// policy-cluster.ts).
import { version } from '../../package.json';
import { HELP_FACTS, runCheck, runRules, runSnapshot } from './check';
import { allUsage, CHECK_COMMAND } from './commands';
import { optionsHelp } from './declare';
import { EXIT, EXIT_CODES_HELP, failure, UsageError } from './kit';
import { enableCheckWorkers, serveCheckWorker } from './check-workers';
import { LAUNCHER } from './bundle-loader';
import { kubectlRole } from './kubectl-plugin-args';
import { runLsp } from './lsp';
import { join as joinPath } from 'node:path';

// The commands that reach clusters or hosts are loaded when run: their modules (the Kubernetes
// client, SSH) take a tenth of a second to set up, which `check` on files would pay for nothing.
const join = () => import('./join');

/** The top-level help: every command's usage lines and check's options, from their declarations (./commands). */
function help(): string {
  return `kube-windows ${version}: Windows compatibility checks for Kubernetes and OpenShift manifests

Usage:
${allUsage()}

check options:
${optionsHelp(CHECK_COMMAND, HELP_FACTS)}
Every command that reaches a cluster takes --context C (required) and --kubeconfig FILE; every
command that reaches Windows hosts takes --user (default Administrator), --key, --port,
--known-hosts and --accept-new-host-key; every command that changes something takes -y/--yes,
and those that run a plan --dry-run. "kube-windows COMMAND --help" lists a command's options.

  -h, --help                 this help
  -v, --version              print the version

${EXIT_CODES_HELP}`;
}

export function main(argv: string[]): number | Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'check': {
        const code = runCheck(rest);
        return typeof code === 'number' ? code : code.catch(failure);
      }
      case 'snapshot':
        return runSnapshot(rest).catch(failure);
      case 'rules':
        return runRules(rest);
      case 'join':
        return join()
          .then((m) => m.runJoin(rest))
          .catch(failure);
      case 'remove':
        return join()
          .then((m) => m.runRemove(rest))
          .catch(failure);
      case 'nodes':
        return import('./nodes').then((m) => m.runNodes(rest)).catch(failure);
      case 'shell':
        return import('./shell').then((m) => m.runShell(rest)).catch(failure);
      case 'pods':
        return import('./pods').then((m) => m.runPods(rest)).catch(failure);
      case 'mirrors':
        return import('./mirrors').then((m) => m.runMirrors(rest)).catch(failure);
      case 'machineset':
        return import('./machineset').then((m) => m.runMachineSet(rest)).catch(failure);
      case 'lsp':
        return runLsp(rest);
      case 'policy':
        return import('./policy').then((m) => m.runPolicy(rest)).catch(failure);
      case '-v':
      case '--version':
        process.stdout.write(`${version}\n`);
        return EXIT.OK;
      case undefined:
        // No command is a usage error: the help goes where errors go, so `kube-windows > out` shows it.
        process.stderr.write(help());
        return EXIT.USAGE;
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(help());
        return EXIT.OK;
      default:
        throw new UsageError(`unknown command "${command}"; try "kube-windows --help"`);
    }
  } catch (err) {
    return failure(err);
  }
}

// `kube-windows rules | head`: the reader left, nothing more is wanted; stop quietly, as cat does.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.OK);
  throw err;
});

// A worker thread of `check` runs this same bundle (see check-workers.ts): it serves checks, nothing else.
if (!serveCheckWorker()) {
  enableCheckWorkers(joinPath(__dirname, LAUNCHER));
  // Started as kubectl-windows (kubectl's plugin naming): the same commands, with kubectl's conventions;
  // as kubectl_complete-windows: their shell completion.
  const args = process.argv.slice(2);
  const role = kubectlRole(process.argv[1]);
  const run = role ? import('./kubectl-plugin').then((m) => m.runAsKubectlPlugin(args, main, role)) : main(args);
  // Set the exit code rather than exit: large JSON output must not be cut off when piped.
  void Promise.resolve(run).then((code) => {
    process.exitCode = code;
  });
}
