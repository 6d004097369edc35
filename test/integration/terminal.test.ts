// The node terminal end to end over real SSH: the VS Code Pseudoterminal (SessionPty, with the fake
// vscode module) on an ssh2 shell channel to the simulated Windows host's interactive PowerShell.
// Input and output pass through, resize reaches the host's pty, closing the terminal ends the channel
// and the connection, `exit` closes the terminal, a dropped link prints a clear line. Also the
// "Open SSH terminal" command with the join host-key rules (trust on first use, then known).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshKeyPair } from '../support/ssh-keys';
import type * as vscode from 'vscode';
import { startWindowsHostSim, type SimHost } from '../support/windows-host-sim';
import { createFakeVscode, hookVscodeModule, type FakeTerminal, type FakeVscode } from '../support/fake-vscode';
import { openSshSession } from '../../src/remote/interactive';
import { nodeAddress } from '../../src/bootstrap/node-services';
import type { KubeClient } from '../../src/cluster/kube-client';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
const loadTerminal = () => import('../../src/extension/terminal');
const loadCommands = () => import('../../src/extension/node-commands');

const admin = sshKeyPair();
let sim: SimHost;
let dir: string;
let keyPath: string;
let knownHosts: string;

before(async () => {
  sim = await startWindowsHostSim({
    users: { Administrator: [admin.public] },
    hostname: 'WIN-NODE-07',
    services: { kubelet: { status: 'Running' } },
  });
  dir = mkdtempSync(join(tmpdir(), 'kw-terminal-'));
  keyPath = join(dir, 'id_ed25519');
  writeFileSync(keyPath, admin.private, { mode: 0o600 });
  knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, `${sim.knownHostsLine()}\n`);
});
after(async () => {
  unhook();
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A terminal on a SessionPty over a real SSH shell to the simulator. */
async function openTerminal(): Promise<{
  t: FakeTerminal;
  pty: InstanceType<Awaited<ReturnType<typeof loadTerminal>>['SessionPty']>;
}> {
  fake = createFakeVscode();
  const { SessionPty } = await loadTerminal();
  const pty = new SessionPty((io) =>
    openSshSession({
      host: sim.host,
      port: sim.port,
      username: 'Administrator',
      privateKeyPath: keyPath,
      knownHostsPath: knownHosts,
      cols: io.size.cols,
      rows: io.size.rows,
      signal: io.signal,
    }),
  );
  (fake.module.window as unknown as typeof vscode.window).createTerminal({ name: 'win (SSH)', pty });
  const t = fake.terminals[0]!;
  await pty.ready;
  await until('the prompt', () => t.output.includes('PS C:\\Users\\Administrator> '));
  return { t, pty };
}

test('input and output pass through: the prompt, the echo, command answers', async () => {
  const { t, pty } = await openTerminal();
  assert.match(t.output, /Windows PowerShell/);
  pty.handleInput('hostname\r');
  await until('hostname', () => t.output.includes('WIN-NODE-07'));
  assert.match(t.output, /hostname\r\nWIN-NODE-07\r\nPS C:\\Users\\Administrator> $/);
  // Typed in pieces, with a correction, as a user does.
  pty.handleInput('Get-Sv');
  pty.handleInput('\x7f\x7fService kubelet\r');
  await until('the service', () => /Running\s+kubelet/.test(t.output));
  const multi = 'Write-Output "héllo wörld ✓"\r';
  pty.handleInput(multi);
  await until('UTF-8 text', () => t.output.includes('héllo wörld ✓\r\n'));
  pty.close();
});

test('resize is forwarded to the host pty (the initial size too)', async () => {
  const { t, pty } = await openTerminal();
  pty.handleInput('$Host.UI.RawUI.WindowSize\r');
  await until('the size', () => /\s120\s+30\r\n/.test(t.output));
  pty.setDimensions({ columns: 132, rows: 43 });
  pty.handleInput('$Host.UI.RawUI.WindowSize\r');
  await until('the new size', () => /\s132\s+43\r\n/.test(t.output));
  pty.close();
});

test('closing the terminal ends the channel and the connection; `exit` closes the terminal', async () => {
  await until('earlier connections to end', () => sim.connections === 0);
  const before = 0;
  const { t, pty } = await openTerminal();
  assert.equal(sim.connections, before + 1);
  pty.close();
  await until('the connection to close', () => sim.connections === before);
  assert.equal(t.closedWith, undefined, 'closed by the user: nothing to report');

  const second = await openTerminal();
  second.pty.handleInput('exit\r');
  await until('the terminal to close', () => second.t.closedWith !== undefined);
  assert.equal(second.t.closedWith, null, 'exit code 0');
  await until('the connection to close', () => sim.connections === before);
});

test('a dropped connection prints a clear line; the next key closes the terminal', async () => {
  const { t, pty } = await openTerminal();
  sim.dropConnections();
  await until('the lost line', () => /was lost; the session has ended/.test(t.output));
  assert.match(t.output, /Press any key to close this terminal/);
  assert.equal(t.closedWith, undefined);
  pty.handleInput('x');
  assert.equal(t.closedWith, null);
});

test('"Open SSH terminal" on a node item: the host key is asked (join rules) and trusted once, then the shell runs', async () => {
  fake = createFakeVscode();
  const { registerNodeCommands } = await loadCommands();
  const fresh = join(dir, 'known_hosts_fresh');
  writeFileSync(fresh, '');
  const global = new Map<string, unknown>([['kubeWindows.join.keyPaths', { kind: keyPath }]]);
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    globalState: {
      get: (k: string, d?: unknown) => (global.has(k) ? global.get(k) : d),
      update: async (k: string, v: unknown) => void global.set(k, v),
      keys: () => [...global.keys()],
    },
    secrets: {
      get: async () => undefined,
      store: async () => undefined,
      delete: async () => undefined,
      onDidChange: () => ({ dispose: () => undefined }),
    },
  } as unknown as vscode.ExtensionContext;
  const log = (fake.module.window as unknown as typeof vscode.window).createOutputChannel('kube-windows', {
    log: true,
  }) as vscode.LogOutputChannel;
  const { ReadOnlyDocs } = await import('../../src/extension/read-only-docs');
  registerNodeCommands(context, log, ReadOnlyDocs.register(context), {
    cluster: async () => ({ kube: {} as KubeClient }),
    getNode: async () => ({
      metadata: { name: 'win-7' },
      status: { addresses: [{ type: 'InternalIP', address: sim.host }] },
    }),
    nodeAddress,
    // The real SSH session; only the port and the known_hosts file are the test's.
    openSsh: (o) => openSshSession({ ...o, port: sim.port, knownHostsPath: fresh }),
  });
  fake.replies.push('SSH as Administrator');
  fake.answers.push('Trust and continue');
  await fake.commands.get('kubeWindows.openTerminal')?.({
    id: 'ctx/kind/node/win-7',
    contextValue: 'windowsNode',
    ref: { kind: 'node', context: 'kind', node: 'win-7' },
  });
  const t = fake.terminals[0]!;
  await until('the prompt', () => t.output.includes('PS C:\\Users\\Administrator> '));
  const trust = fake.shown.find((s) => s.items.includes('Trust and continue'));
  assert.equal(trust?.options?.modal, true);
  assert.match(trust?.options?.detail ?? '', /SHA256:/);
  assert.match(readFileSync(fresh, 'utf8'), /ssh-ed25519/, 'trusted: added to known_hosts');
  t.pty?.handleInput?.('hostname\r');
  await until('hostname', () => t.output.includes('WIN-NODE-07'));
  t.pty?.close();
  for (const s of context.subscriptions) s.dispose();
});
