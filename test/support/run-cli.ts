// Runs the built CLI (dist/cli.js) as a child process without blocking this one: the API emulator
// (or anything else the test serves) keeps answering from here while the command runs.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const CLI = resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveP) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveP({ code, stdout, stderr });
    });
  });
}
