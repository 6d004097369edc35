// The simulated host's interactive PowerShell: what Windows OpenSSH with DefaultShell=PowerShell
// gives on a `shell` request with a pty. Enough for the SSH terminal's tests: a prompt, echo and line
// editing as a console host does it, a few commands, the window size as the pty reports it, `exit`.
import type { Session, ServerChannel } from 'ssh2';
import type { SimHostState } from './state';
import { findService } from './state';

export interface ShellSize {
  cols: number;
  rows: number;
}

/** The command the SSH terminal runs on a pty so that it gets PowerShell whatever the DefaultShell. */
export const POWERSHELL_ON_PTY = 'powershell.exe -NoLogo';

/**
 * Answers pty, window-change and shell requests on one SSH session (before it, the sim refused them).
 * Returns a check for exec requests: `powershell.exe -NoLogo` on a pty is the same interactive shell.
 */
export function attachShell(
  session: Session,
  user: () => string,
  state: SimHostState,
): (command: string, accept: () => ServerChannel) => boolean {
  const size: ShellSize = { cols: 80, rows: 24 };
  let pty = false;
  session.on('pty', (accept, _reject, info) => {
    pty = true;
    size.cols = info.cols;
    size.rows = info.rows;
    accept?.();
  });
  session.on('window-change', (accept, _reject, info) => {
    size.cols = info.cols;
    size.rows = info.rows;
    accept?.();
  });
  session.on('shell', (accept) => {
    const ch = accept();
    ch.on('error', () => undefined);
    runShell(ch, user(), state, size);
  });
  return (command, accept) => {
    if (!pty || command !== POWERSHELL_ON_PTY) return false;
    const ch = accept();
    ch.on('error', () => undefined);
    runShell(ch, user(), state, size);
    return true;
  };
}

function runShell(ch: ServerChannel, user: string, state: SimHostState, size: ShellSize): void {
  const prompt = `PS C:\\Users\\${user}> `;
  const out = (text: string): void => void (ch.destroyed ? undefined : ch.write(text.replace(/\r?\n/g, '\r\n')));
  out(`Windows PowerShell\nCopyright (C) Microsoft Corporation. All rights reserved.\n\n${prompt}`);
  let line = '';
  ch.on('data', (data: Buffer) => {
    for (const c of data.toString('utf8')) {
      if (c === '\r' || c === '\n') {
        out('\n');
        const command = line.trim();
        line = '';
        if (/^exit$/i.test(command)) {
          ch.exit(0);
          ch.end();
          return;
        }
        const answer = answer_(command, state, size);
        if (answer) out(answer.endsWith('\n') ? answer : `${answer}\n`);
        out(prompt);
      } else if (c === '\x7f' || c === '\b') {
        if (line) {
          line = line.slice(0, -1);
          out('\b \b');
        }
      } else if (c === '\x03') {
        line = '';
        out(`^C\n${prompt}`);
      } else if (c >= ' ') {
        line += c;
        out(c); // the console host echoes
      }
    }
  });
}

function answer_(command: string, state: SimHostState, size: ShellSize): string {
  if (!command) return '';
  if (/^hostname$/i.test(command)) return state.hostname;
  if (/^\$Host\.UI\.RawUI\.WindowSize$/i.test(command))
    return `\nWidth Height\n----- ------\n${String(size.cols).padStart(5)} ${String(size.rows).padStart(6)}\n`;
  const echo = /^(?:Write-Output|echo)\s+(?:'([^']*)'|"([^"]*)"|(\S+))$/i.exec(command);
  if (echo) return echo[1] ?? echo[2] ?? echo[3] ?? '';
  const svc = /^Get-Service\s+(?:-Name\s+)?'?([\w.-]+)'?$/i.exec(command);
  if (svc) {
    const found = findService(state, svc[1] ?? '');
    if (!found) return `Get-Service : Cannot find any service with service name '${svc[1]}'.`;
    const [name, s] = found;
    return `\nStatus   Name               DisplayName\n------   ----               -----------\n${s.status.padEnd(8)} ${name.padEnd(18)} ${name}\n`;
  }
  const word = command.split(/\s+/)[0] ?? command;
  return `${word} : The term '${word}' is not recognized as the name of a cmdlet, function, script file, or operable program.`;
}
