// The `kube-windows` command line: dispatches to the subcommands. The plumbing they share (options,
// exit codes, questions, progress) is in ./kit, cluster and SSH access in ./kit-remote; each subcommand's own
// options and help are in its module: check.ts (check, rules), join.ts (join, remove), nodes.ts, shell.ts,
// mirrors.ts (render), mirrors-apply.ts (diff, apply) and machineset.ts (create, follow, scale,
// delete-machine).
import { version } from '../../package.json';
import { CHECK_OPTIONS_HELP, runCheck, runRules, runSnapshot } from './check';
import { EXIT, EXIT_CODES_HELP, failure, UsageError } from './kit';

// The commands that reach clusters or hosts are loaded when run: their modules (the Kubernetes
// client, SSH) take a tenth of a second to set up, which `check` on files would pay for nothing.
const join = () => import('./join');

const HELP = `kube-windows ${version}: Windows compatibility checks for Kubernetes and OpenShift manifests

Usage:
  kube-windows check [options] [paths | globs | -]...
  kube-windows check --context C [--kubeconfig F] [-n NS | -A] [--format text|json|sarif]
  kube-windows check --snapshot facts.json [options] [paths | globs | -]...
  kube-windows snapshot --context C [--kubeconfig F] > facts.json
  kube-windows rules [--format text|json] [--failures]
  kube-windows join --context C --address A [--user U] [--key FILE] [--via byoh|kubeadm] [--dry-run]
  kube-windows remove --context C --address A [--node NAME]
  kube-windows nodes reboot|logs|services NODE --context C [--user U --key FILE]
  kube-windows nodes logs NODE --context C --path kubelet/kubelet.log | --query kubelet [--tail N] [--since 1h] [--pattern RE]
  kube-windows nodes cordon|uncordon|drain NODE --context C [--delete-emptydir-data] [--timeout MIN] [--yes]
  kube-windows nodes events NODE --context C
  kube-windows nodes taints NODE --context C [--set "key=value:Effect,..."] [--yes]
  kube-windows shell POD [-n NS] [-c CONTAINER] --context C [--shell cmd|powershell|pwsh|sh]
  kube-windows pods logs POD [-n NS] [-c CONTAINER] --context C [--follow] [--previous] [--tail N]
  kube-windows pods describe|restart|delete POD [-n NS] --context C [--yes]
  kube-windows mirrors render [--mode ordered|wmco] [--pull-secret FILE] --out DIR FILES...
  kube-windows mirrors diff|apply --context C ...
  kube-windows machineset create --context C --image IMAGE [--from LINUX_MACHINESET] [--name N]
                                 [--replicas N] [--dry-run] [--yes]
  kube-windows machineset follow NAME --context C
  kube-windows machineset scale NAME --replicas N --context C [--yes]
  kube-windows machineset delete-machine NAME --context C [--yes]

${CHECK_OPTIONS_HELP}

Every command that reaches a cluster takes --context C (required) and --kubeconfig FILE; every
command that reaches Windows hosts takes --user (default Administrator), --key, --port,
--known-hosts and --accept-new-host-key; every command that changes something takes -y/--yes,
and those that run a plan --dry-run. "kube-windows COMMAND --help" lists a command's options.

  -h, --help                 this help
  -v, --version              print the version

${EXIT_CODES_HELP}`;

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
      case '-v':
      case '--version':
        process.stdout.write(`${version}\n`);
        return EXIT.OK;
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(HELP);
        return command === undefined ? EXIT.USAGE : EXIT.OK;
      default:
        throw new UsageError(`unknown command "${command}"; try "kube-windows --help"`);
    }
  } catch (err) {
    return failure(err);
  }
}

// Set the exit code rather than exit: large JSON output must not be cut off when piped.
void Promise.resolve(main(process.argv.slice(2))).then((code) => {
  process.exitCode = code;
});
