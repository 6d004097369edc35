// `kube-windows lsp`: the language server, for editors other than VS Code. It runs the server's own
// bundle (dist/server.js, beside the CLI's), the same code as the kube-windows-language-server command.
import { join } from 'node:path';
import { languageServerInvocation } from '../shared/language-server-command';
import { LSP_COMMAND } from './commands';
import { commandHelp } from './declare';
import { EXIT } from './kit';

/** The language server's bundle, a sibling of the CLI's in dist/. */
const SERVER_BUNDLE = 'server.js';

export function runLsp(args: string[]): number | Promise<number> {
  if (args.includes('-h') || args.includes('--help')) {
    process.stdout.write(commandHelp(LSP_COMMAND));
    return EXIT.OK;
  }
  const invocation = languageServerInvocation(args, 'kube-windows lsp');
  if (!invocation.serve) {
    if (invocation.stdout) process.stdout.write(invocation.stdout);
    if (invocation.stderr) process.stderr.write(invocation.stderr);
    return invocation.code;
  }
  // A run-time require of the other bundle: the CLI's stays free of the server's libraries.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const server = require(join(__dirname, SERVER_BUNDLE)) as { runLanguageServer(args: readonly string[]): void };
  server.runLanguageServer(args);
  // Serves until the editor ends the session (the library exits the process on `exit`).
  return new Promise<number>(() => undefined);
}
