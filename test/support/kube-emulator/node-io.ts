// What the emulator does where the API server hands a request to a kubelet: pods/exec (the
// container's command over the WebSocket channel protocol), pods/log, and the node proxy. The
// default command is a small scripted shell: cmd.exe, powershell.exe, pwsh and sh prompts and
// banners, `echo`, `exit N`; powershell.exe in a Nano Server image fails to start as it does there.
import type { ExecSession } from './types';

const CMD_BANNER =
  'Microsoft Windows [Version 10.0.20348.2849]\r\n(c) Microsoft Corporation. All rights reserved.\r\n\r\n';

/** The scripted shell the emulator runs for pods/exec when a test gives none. */
export function scriptedShell(s: ExecSession): void {
  const exe = (s.record.command[0] ?? '').toLowerCase();
  const nano = /nanoserver/i.test(s.image) && !/powershell|dotnet\/sdk/i.test(s.image);
  if (nano && /^(powershell|pwsh)/.test(exe)) {
    s.fail(
      `failed to exec in container: failed to start exec "6f1c2e0b9a7d4c3e": hcs::System::CreateProcess 6f1c2e0b9a7d: The system cannot find the file specified.: unknown`,
    );
    return;
  }
  const cmd = exe === 'cmd.exe';
  const ps = /^(powershell|pwsh)/.test(exe);
  const prompt = cmd ? 'C:\\>' : ps ? 'PS C:\\> ' : '$ ';
  const nl = s.record.tty ? '\r\n' : '\n';
  if (s.record.tty) s.stdout((cmd ? CMD_BANNER : '') + prompt);
  let line = '';
  let done = false;
  const run = (text: string): void => {
    const t = text.trim();
    const exit = /^exit(?:\s+(\d+))?$/i.exec(t);
    if (exit) {
      done = true;
      s.exit(Number(exit[1] ?? 0));
      return;
    }
    if (/^echo\s/i.test(t)) s.stdout(t.slice(5) + nl);
    else if (t === 'whoami') s.stdout(`user manager\\containeruser${nl}`);
    else if (t !== '') {
      const err = cmd
        ? `'${t.split(/\s/)[0]}' is not recognized as an internal or external command,${nl}operable program or batch file.${nl}`
        : ps
          ? `${t.split(/\s/)[0]}: The term '${t.split(/\s/)[0]}' is not recognized as a name of a cmdlet, function, script file, or executable program.${nl}`
          : `sh: 1: ${t.split(/\s/)[0]}: not found${nl}`;
      if (s.record.tty) s.stdout(err);
      else s.stderr(err);
    }
    if (s.record.tty) s.stdout(prompt);
  };
  s.onInput((text) => {
    for (const ch of text) {
      if (done) return;
      if (ch === '\r' || ch === '\n') {
        if (s.record.tty) s.stdout('\r\n');
        const l = line;
        line = '';
        if (ch === '\n' && l === '' && !s.record.tty) continue;
        run(l);
      } else {
        line += ch;
        if (s.record.tty) s.stdout(ch);
      }
    }
  });
  s.onStdinClosed(() => {
    if (done) return;
    if (line !== '') run(line);
    if (!done) s.exit(0);
  });
}
