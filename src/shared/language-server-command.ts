// The language server's own command line, for `kube-windows-language-server` (dist/server.js) and
// `kube-windows lsp` alike: --help, --version, and which transport the editor talks over. The transport
// itself is opened by vscode-languageserver, which reads the same arguments from process.argv.
import { version } from '../../package.json';

export const LANGUAGE_SERVER_COMMAND = 'kube-windows-language-server';

/** What a command line asks for: serve over a transport, or print (help, version, a usage error) and exit. */
export type ServerInvocation = { serve: true } | { serve: false; code: 0 | 2; stdout?: string; stderr?: string };

const TRANSPORTS = ['--stdio', '--node-ipc', '--socket', '--pipe'];

/** The transport options (vscode-languageserver's), declared once for this help and `kube-windows lsp --help`. */
export const LANGUAGE_SERVER_OPTIONS = {
  stdio: { type: 'boolean', help: 'talk LSP over standard input and output (what most editors use)' },
  socket: { type: 'string', value: 'PORT', help: 'connect to the editor on this TCP port' },
  pipe: { type: 'string', value: 'NAME', help: 'connect to the editor on this named pipe or Unix socket' },
  'node-ipc': { type: 'boolean', help: "Node's IPC channel (how the VS Code extension starts it)" },
  clientProcessId: { type: 'string', value: 'PID', help: "exit when the editor's process is gone" },
} as const;

function optionLines(): string {
  const rows: [string, string][] = [
    ...Object.entries(LANGUAGE_SERVER_OPTIONS).map(([name, o]): [string, string] => [
      `--${name}${'value' in o ? `=${o.value}` : ''}`,
      o.help,
    ]),
    ['-h, --help', 'this help'],
    ['-v, --version', 'print the version'],
  ];
  return rows.map(([flag, help]) => `  ${flag.padEnd(24)}${help}\n`).join('');
}

/** The help, with `name` as the command the user typed. */
export function languageServerHelp(name: string): string {
  return `${name} ${version}: the kube-windows language server, for any editor with an LSP client

Usage:
  ${name} --stdio
  ${name} --socket=PORT | --pipe=NAME | --node-ipc

Diagnostics on Kubernetes and OpenShift YAML for what Windows nodes cannot run (the rules of
"kube-windows check"), with quick fixes as code actions, hover and completion.
Settings: the "kubeWindows" section (as VS Code's settings name them, without the prefix), read from
initializationOptions and, when the client answers it, workspace/configuration; every setting has a
default, so none is needed. Editor setups (Neovim, Emacs, Vim, Helix, Zed): docs/editors/ in the
package, or https://github.com/kube-windows/kube-windows/tree/main/docs/editors

${optionLines()}`;
}

/** The invocation `args` (the arguments after the command) ask for. */
export function languageServerInvocation(args: readonly string[], name = LANGUAGE_SERVER_COMMAND): ServerInvocation {
  const usage = (message: string): ServerInvocation => ({
    serve: false,
    code: 2,
    stderr: `${name}: ${message}; try "${name} --help"\n`,
  });
  const transports: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.split(/=(.*)/s, 2);
    if (arg === '-h' || arg === '--help') return { serve: false, code: 0, stdout: languageServerHelp(name) };
    if (arg === '-v' || arg === '--version') return { serve: false, code: 0, stdout: `${version}\n` };
    if (flag === '--clientProcessId' || flag === '--socket' || flag === '--pipe') {
      const value = inline ?? args[++i];
      if (!value) return usage(`${flag} needs a value`);
      if ((flag === '--clientProcessId' || flag === '--socket') && !/^\d+$/.test(value))
        return usage(`${flag} takes a number, not "${value}"`);
      if (flag !== '--clientProcessId') transports.push(flag);
    } else if (arg === '--stdio' || arg === '--node-ipc') transports.push(arg);
    else return usage(`unknown argument "${arg}"`);
  }
  if (transports.length === 0)
    return usage(`say how the editor talks to the server: ${TRANSPORTS.slice(0, -1).join(', ')} or --pipe`);
  if (transports.length > 1) return usage(`${transports.join(' and ')}: give one transport`);
  return { serve: true };
}
