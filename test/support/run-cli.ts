// The built CLI (dist/cli.js) as a child process that does not block this one (the emulator and
// the doubles answer from here): its exit code, stdout and stderr. Test-only.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const CLI = resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `kube-windows ARGS`; `input` is its stdin (else none), `env` added to this process's; killed after 60 s. */
export function runCli(
  args: string[],
  opts: { input?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolveP) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveP({ code, stdout, stderr });
    });
    child.stdin?.end(opts.input);
  });
}
