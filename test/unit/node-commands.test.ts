// The node operation commands of the VS Code extension against the fake vscode module: reboot with
// its consent questions (emptyDir data, the PDB bypass only after a modal confirmation), logs with
// the folder revealed, the terminal (SSH, the HostProcess fallback, pass-through, close), and the
// Services group's source and restart. The engine is replaced through the registerNodeCommands seam.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { NodeObject } from '../../src/cluster/nodes';
import type { RunResult } from '../../src/bootstrap/runner';
import type { RebootState } from '../../src/bootstrap/reboot';
import type { SshConnectorOptions } from '../../src/remote/ssh';
import type { WindowsHost } from '../../src/remote/windows-host';
import type { InteractiveSession, SessionEnd } from '../../src/remote/interactive';
import type { NodeDeps } from '../../src/extension/node-commands';
import type { WindowsNodeView } from '../../src/cluster/windows-nodes';
import { nodeAddress } from '../../src/bootstrap/node-services';
import { BACK, createFakeVscode, hookVscodeModule, type FakeVscode } from '../support/fake-vscode';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
test.after(() => unhook());
const load = () => import('../../src/extension/node-commands');

const KEY = '/home/u/.ssh/id_ed25519';
const NODE_ITEM = {
  id: 'ctx/kind/node/win-1',
  contextValue: 'windowsNode',
  ref: { kind: 'node', context: 'kind', node: 'win-1' },
};
const settle = () => new Promise((r) => setTimeout(r, 20));

const NODE: NodeObject = {
  metadata: {
    name: 'win-1',
    labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' },
  },
  status: {
    addresses: [
      { type: 'Hostname', address: 'win-1' },
      { type: 'ExternalIP', address: '203.0.113.9' },
      { type: 'InternalIP', address: '10.0.0.7' },
    ],
  },
};

function makeContext(keyPaths: Record<string, string> | null) {
  const global = new Map<string, unknown>(keyPaths ? [['kubeWindows.join.keyPaths', keyPaths]] : []);
  const secrets = new Map<string, string>();
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    globalState: {
      get: (k: string, d?: unknown) => (global.has(k) ? global.get(k) : d),
      update: async (k: string, v: unknown) => void global.set(k, v),
      keys: () => [...global.keys()],
    },
    secrets: {
      get: async (k: string) => secrets.get(k),
      store: async (k: string, v: string) => void secrets.set(k, v),
      delete: async (k: string) => void secrets.delete(k),
      onDidChange: () => ({ dispose: () => undefined }),
    },
  };
  return { context: context as unknown as vscode.ExtensionContext, global, subscriptions: context.subscriptions };
}

/** A scripted interactive session: records writes, resizes and close; `end()` plays the remote side ending. */
class StubSession implements InteractiveSession {
  written: string[] = [];
  resized: [number, number][] = [];
  closed = 0;
  private data: ((t: string) => void)[] = [];
  private ends: ((e: SessionEnd) => void)[] = [];
  constructor(readonly label: string) {}
  write(d: string) {
    this.written.push(d);
  }
  resize(c: number, r: number) {
    this.resized.push([c, r]);
  }
  onData(l: (t: string) => void) {
    this.data.push(l);
  }
  onEnd(l: (e: SessionEnd) => void) {
    this.ends.push(l);
  }
  close() {
    this.closed++;
    this.end({});
  }
  emit(t: string) {
    for (const l of this.data) l(t);
  }
  end(e: SessionEnd) {
    for (const l of this.ends.splice(0)) l(e);
  }
}

interface H {
  hosts: SshConnectorOptions[];
  plans: Record<string, unknown>[];
  pods: Record<string, unknown>[];
  global: Map<string, unknown>;
  run(command: string, arg?: unknown): Promise<void>;
  services: ReturnType<Awaited<ReturnType<typeof load>>['registerNodeCommands']>['services'];
}

const result = (outcome: RunResult['outcome'], error?: RunResult['error']): RunResult => ({
  planId: 'node-reboot',
  outcome,
  steps: [],
  durationMs: 1,
  ...(error ? { error } : {}),
});

async function harness(
  overrides: Partial<NodeDeps> = {},
  keyPaths: Record<string, string> | null = { kind: KEY },
): Promise<H> {
  fake = createFakeVscode();
  const { registerNodeCommands } = await load();
  const { context, global } = makeContext(keyPaths);
  const h: Partial<H> & Pick<H, 'hosts' | 'plans' | 'pods' | 'global'> = { hosts: [], plans: [], pods: [], global };
  const deps: Partial<NodeDeps> = {
    cluster: async () => ({ kube: {} as KubeClient }),
    getNode: async (_k, name) => (name === 'win-1' ? NODE : undefined),
    nodeAddress,
    host: (options) => {
      h.hosts.push(options);
      return { label: `${options.username}@${options.host}:22`, close: () => undefined } as unknown as WindowsHost;
    },
    checkPassphrase: async () => true,
    podsWithEmptyDir: async () => [],
    rebootSummary: (r, n) =>
      r.outcome === 'done'
        ? `${n} was rebooted and is Ready and schedulable again.`
        : `The reboot of ${n} failed at step ${r.error?.stepId}: ${r.error?.message} The node stays cordoned.`,
    logsDir: () => '/tmp/kw-logs',
    ...overrides,
  };
  const log = (fake.module.window as unknown as typeof vscode.window).createOutputChannel('kube-windows', {
    log: true,
  }) as vscode.LogOutputChannel;
  const { ReadOnlyDocs } = await import('../../src/extension/read-only-docs');
  const ops = registerNodeCommands(context, log, ReadOnlyDocs.register(context), deps);
  h.services = ops.services;
  h.run = async (command, arg) => {
    await fake.commands.get(command)?.(arg);
  };
  return h as H;
}

/** A reboot plan stand-in: its run plays `outcomes` in turn and sets blockedBy when told. */
function rebootDeps(
  h: { plans: Record<string, unknown>[] },
  outcomes: { outcome: RunResult['outcome']; blocked?: boolean }[],
): Partial<NodeDeps> {
  return {
    rebootPlanFor: async (opts) => {
      h.plans.push({ ...opts, kube: undefined, host: undefined });
      const state: RebootState = {};
      return {
        id: 'node-reboot',
        title: 'Reboot',
        target: 'win-1',
        steps: [],
        state,
        run: async (o) => {
          const next = outcomes.shift() ?? { outcome: 'done' };
          o?.onEvent?.({ type: 'log', stepId: 'drain', level: 'info', message: 'evicting default/web-0' } as never);
          if (next.blocked)
            state.blockedBy = [
              {
                pod: 'default/web-0',
                pdb: 'default/web-pdb',
                message: 'Cannot evict pod as it would violate the pod disruption budget.',
              },
            ];
          return next.outcome === 'done'
            ? result('done')
            : result(next.outcome, { stepId: 'drain', message: 'blocked by default/web-pdb' });
        },
      };
    },
  };
}

test('rebootNode: the modal confirmation comes last and says how the node is reached; declining it runs nothing', async () => {
  const plans: Record<string, unknown>[] = [];
  const h = await harness(rebootDeps({ plans }, []));
  fake.answers.push(undefined);
  await h.run('kubeWindows.rebootNode', NODE_ITEM);
  assert.equal(fake.shown.length, 1);
  assert.equal(fake.shown[0]?.options?.modal, true);
  assert.match(fake.shown[0]?.message ?? '', /Reboot the Windows node win-1 gracefully/);
  assert.match(fake.shown[0]?.options?.detail ?? '', /Over SSH as Administrator@10\.0\.0\.7\.$/);
  assert.deepEqual(fake.shown[0]?.items, ['Reboot']);
  assert.equal(plans.length, 0);
  assert.equal(fake.questions.length, 0, "the cluster's remembered user and key: nothing to ask");
});

test('rebootNode: SSH to the InternalIP with the remembered key, emptyDir consent asked, plan run with progress and a channel', async () => {
  const plans: Record<string, unknown>[] = [];
  const h = await harness({
    ...rebootDeps({ plans }, [{ outcome: 'done' }]),
    podsWithEmptyDir: async () => ['apps/cache-0'],
  });
  fake.answers.push('Reboot, deleting the emptyDir data');
  await h.run('kubeWindows.rebootNode', NODE_ITEM);
  assert.equal(fake.questions.length, 0, 'reached with the key remembered for the cluster');
  // One confirmation, last, with the emptyDir consent in it.
  const consent = fake.shown[0];
  assert.equal(consent?.options?.modal, true);
  assert.deepEqual(consent?.items, ['Reboot, deleting the emptyDir data']);
  assert.match(
    consent?.options?.detail ?? '',
    /1 pod on win-1 uses emptyDir volumes: draining deletes that data\.\napps\/cache-0/,
  );
  assert.equal(h.hosts[0]?.host, '10.0.0.7', 'InternalIP before ExternalIP');
  assert.equal(h.hosts[0]?.privateKeyPath, KEY);
  assert.equal(plans.length, 1);
  assert.equal(plans[0]?.deleteEmptyDirData, true);
  assert.equal(plans[0]?.disableEviction, false);
  assert.equal(plans[0]?.timeoutMs, 15 * 60_000, 'kubeWindows.reboot.timeoutMinutes default');
  assert.equal(fake.progressRuns.at(-1)?.options.cancellable, true);
  assert.ok(
    fake.logs.some(
      (l) => l.name === 'kube-windows: reboot win-1' && l.lines.some((x) => /evicting default\/web-0/.test(x.text)),
    ),
  );
  assert.match(fake.shown.at(-1)?.message ?? '', /win-1 was rebooted/);
});

test('rebootNode: declining the emptyDir consent stops before anything changes', async () => {
  const plans: Record<string, unknown>[] = [];
  const h = await harness({
    ...rebootDeps({ plans }, []),
    podsWithEmptyDir: async () => ['apps/cache-0'],
  });
  fake.answers.push(undefined);
  await h.run('kubeWindows.rebootNode', NODE_ITEM);
  assert.equal(plans.length, 0);
});

test('rebootNode: a PDB-blocked drain offers the disable-eviction path only through a modal, and re-runs with it', async () => {
  const plans: Record<string, unknown>[] = [];
  const h = await harness(rebootDeps({ plans }, [{ outcome: 'failed', blocked: true }, { outcome: 'done' }]));
  fake.answers.push('Reboot', 'Delete the pods, bypassing the budgets');
  await h.run('kubeWindows.rebootNode', NODE_ITEM);
  const pdb = fake.shown.find((s) => /PodDisruptionBudget/.test(s.message));
  assert.ok(pdb);
  assert.equal(pdb.options?.modal, true);
  assert.match(pdb.message, /default\/web-pdb/);
  assert.match(pdb.message, /stays cordoned/);
  assert.deepEqual(pdb.items, ['Delete the pods, bypassing the budgets']);
  assert.deepEqual(
    plans.map((p) => p.disableEviction),
    [false, true],
  );
  assert.match(fake.shown.at(-1)?.message ?? '', /was rebooted/);
});

test('rebootNode: declining the PDB bypass ends with the failure (node cordoned) and no second run', async () => {
  const plans: Record<string, unknown>[] = [];
  const h = await harness(rebootDeps({ plans }, [{ outcome: 'failed', blocked: true }]));
  fake.answers.push('Reboot', undefined, undefined);
  await h.run('kubeWindows.rebootNode', NODE_ITEM);
  assert.equal(plans.length, 1);
  const last = fake.shown.at(-1);
  assert.equal(last?.kind, 'error');
  assert.match(last?.message ?? '', /stays cordoned/);
  assert.deepEqual(last?.items, ['Show log', 'Run again']);
});

test('rebootNode: cancelling the progress reports a cancelled reboot; another user and key are asked and remembered', async () => {
  const plans: Record<string, unknown>[] = [];
  const h = await harness(rebootDeps({ plans }, [{ outcome: 'cancelled' }]), null);
  fake.answers.push('Reboot', undefined);
  fake.replies.push('admin2', KEY);
  await h.run('kubeWindows.rebootNode', NODE_ITEM);
  assert.equal(fake.questions[0]?.kind, 'input', 'no remembered key: straight to the user (no pod for a reboot)');
  assert.match(fake.questions[0]?.text ?? '', /how to reach win-1\? SSH user/);
  assert.equal(fake.questions[1]?.kind, 'open', 'no key known: the file dialog');
  assert.deepEqual(h.global.get('kubeWindows.ssh.reach'), {
    'kind/win-1': { via: 'ssh', user: 'admin2', keyPath: KEY },
  });
  assert.equal(h.hosts[0]?.username, 'admin2');
  assert.deepEqual(h.global.get('kubeWindows.ssh.users'), { kind: 'admin2' });
  assert.deepEqual(h.global.get('kubeWindows.join.keyPaths'), { kind: KEY });
  assert.equal(fake.shown.at(-1)?.kind, 'information', 'a cancel that changed nothing is not an error');
});

const LOGS = '/tmp/kw-logs/win-1-20261121-101500';

/** A collection that reports progress and returns LOGS; `seen` gets what the command passed. */
function collected(seen: { o?: Record<string, unknown> } = {}): Partial<NodeDeps> {
  return {
    collectNodeLogs: async (o) => {
      seen.o = { ...o, host: undefined };
      o.onProgress?.('downloading C:\\k\\log\\kubelet.log', 0.5);
      return {
        folder: LOGS,
        files: [],
        skipped: [],
        totalBytes: 0,
        message: `Collected 3 files (1.2 MB) into ${LOGS}.`,
      };
    },
  };
}

test('collectLogs on a local desktop window: progress, the cap from the setting, the path told with the OS file manager as a button', async () => {
  const seen: { o?: Record<string, unknown> } = {};
  const h = await harness(collected(seen));
  fake.strict.commands = true;
  fake.replies.push('SSH as Administrator');
  const label =
    process.platform === 'darwin'
      ? 'Reveal in Finder'
      : process.platform === 'win32'
        ? 'Reveal in File Explorer'
        : 'Open Containing Folder';
  fake.answers.push(label);
  await h.run('kubeWindows.collectLogs', NODE_ITEM);
  assert.equal(seen.o?.nodeName, 'win-1');
  assert.equal(seen.o?.dir, '/tmp/kw-logs');
  assert.equal(seen.o?.maxBytes, 200 * 1024 * 1024);
  assert.ok(fake.progressRuns.some((p) => p.reports.some((r) => /kubelet\.log/.test(r.message ?? ''))));
  const shown = fake.shown.at(-1);
  assert.match(shown?.message ?? '', new RegExp(`Collected 3 files .* into ${LOGS}`));
  assert.deepEqual(shown?.items, [label, 'Open Folder', 'Copy Path']);
  const reveal = fake.executed.find((e) => e[0] === 'revealFileInOS');
  assert.equal(
    (reveal?.[1] as { fsPath: string } | undefined)?.fsPath,
    LOGS,
    'revealed only when asked, on the desktop',
  );
});

for (const where of [
  { name: 'code-server (no revealFileInOS command)', remoteName: undefined, uiKind: 2, drop: true },
  {
    name: 'Remote-SSH (the OS file manager is on the other machine)',
    remoteName: 'ssh-remote',
    uiKind: 1,
    drop: false,
  },
]) {
  test(`collectLogs in ${where.name}: no revealFileInOS, no error; the path is in the message, Open Folder and Copy Path work`, async () => {
    const h = await harness(collected());
    fake.strict.commands = true;
    if (where.drop) fake.builtinCommands.delete('revealFileInOS');
    fake.env.remoteName = where.remoteName;
    fake.env.uiKind = where.uiKind;
    fake.replies.push('SSH as Administrator');
    fake.answers.push('Copy Path');
    await h.run('kubeWindows.collectLogs', NODE_ITEM);
    assert.deepEqual(
      fake.shown.filter((m) => m.kind === 'error'),
      [],
      'no error toast (before the fix: "command \'revealFileInOS\' not found")',
    );
    const shown = fake.shown.at(-1);
    assert.ok(shown?.message.includes(LOGS), 'the user learns where the logs are');
    assert.deepEqual(shown?.items, ['Open Folder', 'Copy Path']);
    assert.equal(fake.executed.filter((e) => e[0] === 'revealFileInOS').length, 0);
    assert.equal(fake.env.clipboardText, LOGS);
  });
}

test('collectLogs: a folder inside the workspace is revealed in the Explorer', async () => {
  const h = await harness(collected());
  fake.strict.commands = true;
  fake.builtinCommands.delete('revealFileInOS');
  fake.workspaceFolderPaths.push('/tmp/kw-logs');
  fake.replies.push('SSH as Administrator');
  fake.answers.push('Reveal in Explorer');
  await h.run('kubeWindows.collectLogs', NODE_ITEM);
  assert.deepEqual(fake.shown.at(-1)?.items, ['Reveal in Explorer', 'Open Folder', 'Copy Path']);
  const reveal = fake.executed.find((e) => e[0] === 'revealInExplorer');
  assert.equal((reveal?.[1] as { fsPath: string } | undefined)?.fsPath, LOGS);
});

test('collectLogs cancelled: says nothing changed on the host and where the partial download is, as information', async () => {
  const h = await harness({
    collectNodeLogs: async (o) =>
      new Promise((_resolve, reject) => o.signal?.addEventListener('abort', () => reject(o.signal?.reason))),
  });
  fake.replies.push('SSH as Administrator');
  const run = h.run('kubeWindows.collectLogs', NODE_ITEM);
  const collecting = () => fake.progressRuns.find((p) => /collecting the logs/.test(p.title));
  while (!collecting()) await new Promise((r) => setImmediate(r));
  collecting()?.cancel();
  await run;
  const shown = fake.shown.at(-1);
  assert.equal(shown?.kind, 'information');
  assert.match(shown?.message ?? '', /was cancelled\. Nothing was changed on the host .* stay under \/tmp\/kw-logs/);
});

test('collectLogs: a failure is one error line; nothing is revealed', async () => {
  const h = await harness({
    collectNodeLogs: async () => {
      throw new Error('Could not connect to Administrator@10.0.0.7:22: connection refused.');
    },
  });
  fake.replies.push('SSH as Administrator');
  await h.run('kubeWindows.collectLogs', NODE_ITEM);
  assert.equal(fake.executed.filter((e) => e[0] === 'revealFileInOS').length, 0);
  assert.match(fake.shown.at(-1)?.message ?? '', /failed: Could not connect/);
});

test('openTerminal over SSH: a pty terminal; input, output and resize pass through; closing ends the session', async () => {
  const session = new StubSession('Administrator@10.0.0.7:22');
  let opened: Record<string, unknown> | undefined;
  const h = await harness({
    openSsh: async (o) => {
      opened = { ...o };
      return session;
    },
  });
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  assert.equal(fake.questions.length, 0, "the cluster's remembered user and key");
  const t = fake.terminals[0];
  assert.ok(t?.pty, 'a Pseudoterminal');
  assert.equal(t.shown, 1);
  await settle();
  assert.equal(opened?.host, '10.0.0.7');
  assert.equal(opened?.cols, 120);
  assert.equal(opened?.rows, 30);
  assert.equal(typeof opened?.confirmUnknownHost, 'function', 'the join host-key rules');
  session.emit('PS C:\\Users\\Administrator> ');
  assert.match(t.output, /PS C:\\Users\\Administrator> $/);
  t.pty.handleInput?.('hostname\r');
  assert.deepEqual(session.written, ['hostname\r']);
  t.pty.setDimensions?.({ columns: 100, rows: 40 });
  assert.deepEqual(session.resized.at(-1), [100, 40]);
  t.pty.close();
  assert.equal(session.closed, 1);
});

test('openTerminal: a dropped connection prints a clear line, the next key closes the terminal', async () => {
  const session = new StubSession('Administrator@10.0.0.7:22');
  const h = await harness({ openSsh: async () => session });
  fake.replies.push('SSH as Administrator');
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  const t = fake.terminals[0]!;
  session.end({ lost: 'the connection to Administrator@10.0.0.7:22 was lost' });
  assert.match(t.output, /connection to Administrator@10\.0\.0\.7:22 was lost; the session has ended/);
  assert.equal(t.closedWith, undefined, 'still open so the line can be read');
  t.pty?.handleInput?.('x');
  assert.equal(t.closedWith, null);
  assert.deepEqual(session.written, [], 'the key is not sent anywhere');
});

test('openTerminal: `exit` in the remote shell closes the terminal', async () => {
  const session = new StubSession('x');
  const h = await harness({ openSsh: async () => session });
  fake.replies.push('SSH as Administrator');
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  session.end({ exitCode: 0 });
  assert.equal(fake.terminals[0]?.closedWith, null);
});

test('openTerminal: SSH unreachable offers the HostProcess pod, which gets the node and its labels', async () => {
  const pod = new StubSession('pod kube-system/kube-windows-shell-win-1-abc');
  let podArgs: Record<string, unknown> | undefined;
  const h = await harness({
    openSsh: async () => {
      throw Object.assign(new Error('Could not connect to Administrator@10.0.0.7:22: the TCP connection timed out.'), {
        name: 'RemoteError',
      });
    },
    openPod: async (o) => {
      podArgs = { ...o };
      o.onStatus?.('Pending: ContainerCreating');
      return pod;
    },
  });
  fake.answers.push('Use a HostProcess pod');
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  const offer = fake.shown.find((s) => s.items.includes('Use a HostProcess pod'));
  assert.match(offer?.message ?? '', /SSH to win-1 failed: .*timed out/);
  assert.equal(podArgs?.nodeName, 'win-1');
  assert.deepEqual(podArgs?.labels, NODE.metadata.labels);
  const t = fake.terminals[0]!;
  assert.match(t.output, /Starting a HostProcess pod on win-1/);
  assert.match(t.output, /ContainerCreating/);
  t.pty?.close();
  assert.equal(pod.closed, 1, 'closing the terminal ends the pod session (which deletes the pod)');
});

test('openTerminal: picking the pod skips SSH; a host key refusal never falls back', async () => {
  let sshCalls = 0;
  const pod = new StubSession('pod');
  const h = await harness(
    {
      openSsh: async () => {
        sshCalls++;
        throw Object.assign(new Error('The host key of 10.0.0.7 changed'), { name: 'HostKeyChangedError' });
      },
      openPod: async () => pod,
    },
    null,
  );
  fake.replies.push('Use a HostProcess pod');
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  assert.equal(sshCalls, 0);
  assert.match(fake.terminals[0]?.name ?? '', /pod/);
  assert.deepEqual(fake.questions[0]?.items, ['SSH', 'Use a HostProcess pod']);

  // "Change how to reach node…": SSH this time (the user, then the key's file dialog).
  fake.replies.push('SSH', 'Administrator', KEY);
  await h.run('kubeWindows.changeNodeAccess', NODE_ITEM);
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  const t = fake.terminals[1]!;
  assert.match(t.output, /host key/);
  assert.equal(fake.shown.filter((s) => s.items.includes('Use a HostProcess pod')).length, 0);
});

const VIEW = { name: 'win-1', addresses: NODE.status?.addresses ?? [] } as unknown as WindowsNodeView;

test('services source: connect item without a key; rows over SSH with one; connect again when it needs an answer', async () => {
  const none = await harness({}, null);
  assert.ok('connect' in (await none.services('kind', VIEW)));

  const rows = [{ name: 'kubelet', exists: true, status: 'Running', startType: 'Automatic' }];
  const h = await harness({ nodeServices: async () => rows });
  assert.deepEqual(await h.services('kind', VIEW), { services: rows });
  assert.equal(h.hosts[0]?.host, '10.0.0.7');
  // The tree never asks: the host key prompt answers no at once.
  assert.equal(await h.hosts[0]?.confirmUnknownHost?.('10.0.0.7', 22, 'SHA256:x', 'ssh-ed25519', []), false);
  assert.equal(fake.questions.length + fake.shown.length, 0);

  const locked = await harness({
    nodeServices: async (host) => {
      const o = locked.hosts.at(-1)!;
      void host;
      const p = await o.askPassphrase?.(KEY, 1);
      if (p === undefined) throw Object.assign(new Error('No passphrase was given'), { name: 'AuthenticationError' });
      return [];
    },
  });
  assert.ok('connect' in (await locked.services('kind', VIEW)));
});

test('the SSH port, known_hosts file and key of the settings: the services source (no key used yet) and the terminal use them', async () => {
  // Each harness makes a fresh fake VS Code: the settings are set on it.
  const settings = () =>
    fake.setSettings({
      'kubeWindows.ssh.port': 2222,
      'kubeWindows.ssh.knownHostsFile': '/srv/sandbox/known_hosts',
      'kubeWindows.ssh.privateKeyPath': '/srv/sandbox/id_ed25519',
    });
  const rows = [{ name: 'kubelet', exists: true, status: 'Running', startType: 'Automatic' }];
  const h = await harness({ nodeServices: async () => rows }, null);
  settings();
  assert.deepEqual(await h.services('kind', VIEW), { services: rows });
  assert.deepEqual(
    [h.hosts[0]?.port, h.hosts[0]?.knownHostsPath, h.hosts[0]?.privateKeyPath],
    [2222, '/srv/sandbox/known_hosts', '/srv/sandbox/id_ed25519'],
  );

  let opened: Record<string, unknown> | undefined;
  const t = await harness({
    openSsh: async (o) => {
      opened = { ...o };
      return new StubSession('Administrator@10.0.0.7:2222');
    },
  });
  settings();
  await t.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  assert.deepEqual([opened?.port, opened?.knownHostsPath], [2222, '/srv/sandbox/known_hosts']);
});

test('connectServices asks, reads the services and refreshes the group; restartService confirms modally first', async () => {
  const rows = [{ name: 'kubelet', exists: true, status: 'Running', startType: 'Automatic' }];
  const restarted: string[] = [];
  const h = await harness({
    nodeServices: async () => rows,
    restartNodeService: async (_host, name) => {
      restarted.push(name);
      return { name, status: 'Running' };
    },
  });
  // What the connect row's command passes: the node, by its typed reference.
  await h.run('kubeWindows.connectServices', { ref: { kind: 'node', context: 'kind', node: 'win-1' } });
  assert.ok(fake.executed.some((e) => e[0] === 'kubeWindows.refreshServices' && e[1] === 'kind' && e[2] === 'win-1'));

  const item = {
    id: 'ctx/kind/node/win-1/services/kubelet',
    contextValue: 'windowsService',
    ref: { kind: 'service', context: 'kind', node: 'win-1', service: 'kubelet' },
  };
  fake.answers.push(undefined);
  await h.run('kubeWindows.restartService', item);
  assert.deepEqual(restarted, []);
  assert.equal(fake.shown.at(-1)?.options?.modal, true);
  assert.match(fake.shown.at(-1)?.message ?? '', /Restart kubelet on win-1/);

  fake.answers.push('Restart');
  await h.run('kubeWindows.restartService', item);
  assert.deepEqual(restarted, ['kubelet']);
  assert.match(fake.shown.at(-1)?.message ?? '', /kubelet on win-1 was restarted/);
});

test('how to reach a node: asked once per node (counter, Back, defaults), remembered, shared with the Services group, changed on demand', async () => {
  const rows = [{ name: 'kubelet', exists: true, status: 'Running', startType: 'Automatic' }];
  const sessions: Record<string, unknown>[] = [];
  const h = await harness(
    {
      nodeServices: async () => rows,
      openSsh: async (o) => {
        sessions.push({ ...o });
        return new StubSession('x');
      },
    },
    null,
  );
  // Nothing known: the Services group does not ask, it offers to connect.
  assert.ok('connect' in (await h.services('kind', VIEW)));
  // The terminal asks: SSH or pod (1/3), the user (2/3, Back to 1/3), the key (the dialog: none known).
  fake.replies.push('SSH', BACK, 'SSH', 'ops', '/keys/win');
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  assert.deepEqual(
    fake.questions.map((q) => [q.kind, q.step, q.totalSteps, q.back]),
    [
      ['quickPick', 1, 3, false],
      ['input', 2, 3, true],
      ['quickPick', 1, 3, false],
      ['input', 2, 3, true],
      ['open', undefined, undefined, undefined],
    ],
  );
  assert.match(fake.questions[0]?.text ?? '', /how to reach win-1\?/);
  assert.equal(fake.questions[1]?.options.value, 'Administrator', 'the real default user');
  assert.deepEqual(fake.questions[2]?.options.activeItems, ['SSH'], 'Back shows the earlier answer');
  assert.deepEqual([sessions[0]?.username, sessions[0]?.privateKeyPath], ['ops', '/keys/win']);

  // Asked once: the next command on the node (and the Services group) reach it without a question.
  const asked = fake.questions.length;
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  assert.equal(fake.questions.length, asked);
  assert.deepEqual([sessions[1]?.username, sessions[1]?.privateKeyPath], ['ops', '/keys/win']);
  assert.deepEqual(await h.services('kind', VIEW), { services: rows });
  assert.deepEqual([h.hosts.at(-1)?.username, h.hosts.at(-1)?.privateKeyPath], ['ops', '/keys/win']);
  // Only paths and names are kept: never a passphrase.
  assert.deepEqual(h.global.get('kubeWindows.ssh.reach'), {
    'kind/win-1': { via: 'ssh', user: 'ops', keyPath: '/keys/win' },
  });

  // "Change how to reach node…": the current answers are the defaults; the services are read again.
  fake.replies.push('SSH', 'admin3', '/keys/win');
  await h.run('kubeWindows.changeNodeAccess', NODE_ITEM);
  const change = fake.questions.slice(asked);
  assert.equal(change[1]?.options.value, 'ops');
  assert.deepEqual(change[2]?.items, ['/keys/win', 'Browse…'], 'the key used so far first');
  assert.match(
    fake.shown.at(-1)?.message ?? '',
    /win-1 is reached over SSH as admin3 with the key \/keys\/win from now on/,
  );
  assert.ok(fake.executed.some((e) => e[0] === 'kubeWindows.refreshServices' && e[2] === 'win-1'));
  await h.run('kubeWindows.openTerminal', NODE_ITEM);
  await settle();
  assert.equal(sessions.at(-1)?.username, 'admin3');
});

// ---------------------------------------------------------------------------------------------
// Show proxy settings: what `kube-windows nodes proxy` reads, in a read-only document, with one line

test('showProxySettings: the node against the cluster in a read-only document; drift in one warning line, then equal, then drift with when it was last seen equal', async () => {
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const state = mkdtempSync(join(tmpdir(), 'kw-proxy-seen-'));
  const saved = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = state;
  const password = 'pr0xy-s3cret';
  const proxy = 'http://proxy.corp.example:3128';
  const noProxy = '.cluster.local,.svc,10.128.0.0/14,172.30.0.0/16';
  const thumbprint = 'A'.repeat(40);
  let machine: Record<string, string> = {
    HTTP_PROXY: `http://win:${password}@proxy.corp.example:3128`,
    HTTPS_PROXY: proxy,
    NO_PROXY: '.svc',
  };
  let certificates: Record<string, boolean> = { [thumbprint]: false };
  const ran: string[] = [];
  try {
    const h = await harness({
      proxyExpectation: async () => ({
        variables: { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, NO_PROXY: noProxy },
        from: 'proxies.config.openshift.io/cluster',
        managedBy: 'wmco',
        thumbprints: [thumbprint],
      }),
      host: (options) => {
        h.hosts.push(options);
        return {
          label: `${options.username}@${options.host}`,
          close: () => undefined,
          run: async (op: { name: string }) => {
            ran.push(op.name);
            return {
              machine,
              services: [
                { name: 'containerd', exists: true, environment: [] },
                { name: 'kubelet', exists: true, environment: [`NO_PROXY=${noProxy}`] },
                { name: 'kube-proxy', exists: false, environment: [] },
              ],
              certificates,
            };
          },
        } as unknown as WindowsHost;
      },
    });

    await h.run('kubeWindows.showProxySettings', NODE_ITEM);
    assert.deepEqual(ran, ['node-proxy-environment'], 'one round trip');
    assert.deepEqual(
      [h.hosts[0]?.host, h.hosts[0]?.username, h.hosts[0]?.privateKeyPath],
      ['10.0.0.7', 'Administrator', KEY],
    );
    assert.equal(fake.questions.length, 0, "the cluster's remembered user and key: nothing to ask");
    const doc = fake.documents.at(-1);
    assert.equal(doc?.uri?.toString(), 'kube-windows-text:/proxy/win-1.txt');
    assert.equal(doc?.shown, 1);
    const text = doc?.content ?? '';
    assert.match(text, /^Proxy settings of win-1\n\nExpected \(proxies\.config\.openshift\.io\/cluster\):/);
    assert.match(text, /Machine environment[^\n]*\n {2}HTTP_PROXY {2}http:\/\/proxy\.corp\.example:3128\n/);
    assert.match(text, /NO_PROXY {4}\.svc {2}≠ expected \.cluster\.local/);
    assert.match(
      text,
      /Service kubelet[^\n]*\n(?:.*\n){2} {2}NO_PROXY {4}\.cluster\.local,\.svc,10\.128\.0\.0\/14,172\.30\.0\.0\/16 \[service\]\n/,
    );
    assert.doesNotMatch(text, /Service kube-proxy/, 'a service the node does not have is left out');
    assert.match(text, /Trusted CA bundle: 1 certificate of 1 missing from LocalMachine\\Root/);
    const drift = fake.shown.at(-1);
    assert.equal(drift?.kind, 'warning');
    assert.equal(
      drift?.message,
      'kube-windows: win-1: Drift: machine NO_PROXY, trusted CA bundle differ from what the cluster expects (WMCO reconciles this periodically; never seen equal by kube-windows).',
    );
    assert.ok(!JSON.stringify([fake.documents, fake.shown, fake.logs]).includes(password), 'no password anywhere');

    // WMCO reconciled: equal, said in an information line; the document shows the new reading.
    machine = { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, NO_PROXY: noProxy };
    certificates = { [thumbprint]: true };
    await h.run('kubeWindows.showProxySettings', NODE_ITEM);
    assert.equal(
      fake.shown.at(-1)?.message,
      'kube-windows: the proxy settings of win-1 match what the cluster expects (proxies.config.openshift.io/cluster).',
    );
    assert.equal(fake.shown.at(-1)?.kind, 'information');
    assert.match(fake.documents.at(-1)?.content ?? '', /The proxy settings match what the cluster expects\./);

    // Drifted again: the line says when kube-windows last saw it equal (kept where the CLI keeps it).
    machine = { ...machine, HTTPS_PROXY: 'http://other-proxy:8080' };
    await h.run('kubeWindows.showProxySettings', NODE_ITEM);
    assert.match(
      fake.shown.at(-1)?.message ?? '',
      /^kube-windows: win-1: Drift: machine HTTPS_PROXY differs from what the cluster expects \(WMCO reconciles this periodically; last seen equal \d{4}-\d\d-\d\dT[\d:.]+Z \(just now\)\)\.$/,
    );
    const seen = JSON.parse(readFileSync(join(state, 'kube-windows', 'proxy-seen.json'), 'utf8'));
    assert.deepEqual(Object.keys(seen), ['kind/win-1']);
  } finally {
    if (saved === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = saved;
    rmSync(state, { recursive: true, force: true });
  }
});

test('showProxySettings: a cluster without a proxy and a node without one; a failed read is one error line and no document', async () => {
  let fail = false;
  const h = await harness({
    proxyExpectation: async () => ({
      variables: {},
      from: 'the cluster has no cluster-wide proxy',
      managedBy: 'wmco',
      thumbprints: [],
    }),
    recordProxySeen: () => undefined,
    host: (options) =>
      ({
        label: options.host,
        close: () => undefined,
        run: async () => {
          if (fail) throw new Error('Get-ItemProperty : Requested registry access is not allowed.\n    at line 3');
          return { machine: {}, services: [{ name: 'containerd', exists: true, environment: [] }], certificates: {} };
        },
      }) as unknown as WindowsHost,
  });
  await h.run('kubeWindows.showProxySettings', NODE_ITEM);
  assert.equal(
    fake.shown.at(-1)?.message,
    'kube-windows: win-1 has no proxy settings, and its cluster has no cluster-wide proxy.',
  );
  assert.equal(fake.documents.length, 1);
  fail = true;
  fake.answers.push(undefined); // the HostProcess pod offered instead is declined
  await h.run('kubeWindows.showProxySettings', NODE_ITEM);
  const failed = fake.shown.at(-1);
  assert.equal(failed?.kind, 'warning');
  assert.match(
    failed?.message ?? '',
    /^kube-windows: reading the proxy settings of win-1 over SSH failed: Get-ItemProperty : Requested registry access is not allowed\. Read through a HostProcess pod instead\?$/,
  );
  assert.deepEqual(failed?.items, ['Use a HostProcess pod']);
  assert.equal(fake.documents.length, 1, 'no document for a failed read');

  // Outside the tree: where to run it.
  await h.run('kubeWindows.showProxySettings');
  assert.match(fake.shown.at(-1)?.message ?? '', /run "Show proxy settings" on a Windows node in the Clusters view/);
});

// Show proxy settings through a HostProcess pod: when the node is reached through one, and offered when SSH fails.

const POD_PROXY = 'http://proxy.corp.example:3128';
const POD_NO_PROXY = '.cluster.local,.svc';
const podExpectation = async () => ({
  variables: { HTTP_PROXY: POD_PROXY, HTTPS_PROXY: POD_PROXY, NO_PROXY: POD_NO_PROXY },
  from: 'proxies.config.openshift.io/cluster',
  managedBy: 'wmco' as const,
  thumbprints: [],
});

/** The engine's pod read, replaced: records what it got, says the pod's status, reads a drifted node (real compare). */
function podRead(seen: Parameters<NodeDeps['readProxyThroughPod']>[0][]): NodeDeps['readProxyThroughPod'] {
  return async (o) => {
    seen.push(o);
    o.onStatus('creating pod kube-system/kube-windows-shell-win-1-abc on win-1');
    o.onStatus('Pending: ContainerCreating (pulling the image)');
    const { readNodeProxy } = await import('../../src/bootstrap/node-proxy');
    const podSide = {
      run: async () => ({
        machine: { HTTP_PROXY: POD_PROXY, HTTPS_PROXY: POD_PROXY, NO_PROXY: '.svc' },
        services: [{ name: 'kubelet', exists: true, environment: [] }],
        certificates: {},
      }),
    } as unknown as WindowsHost;
    return readNodeProxy(podSide, o.expected, o.signal);
  };
}

test('showProxySettings on a node reached through a HostProcess pod: no SSH, the pod read with its status as progress, the document and the verdict', async () => {
  const seen: Parameters<NodeDeps['readProxyThroughPod']>[0][] = [];
  const h = await harness(
    { proxyExpectation: podExpectation, recordProxySeen: () => undefined, readProxyThroughPod: podRead(seen) },
    null,
  );
  fake.replies.push('Use a HostProcess pod'); // "how to reach win-1?"
  await h.run('kubeWindows.showProxySettings', NODE_ITEM);
  assert.deepEqual(fake.questions[0]?.items, ['SSH', 'Use a HostProcess pod'], 'the pod is offered for this operation');
  assert.equal(h.hosts.length, 0, 'no SSH connection');
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.context, 'kind');
  assert.equal(seen[0]?.node, NODE);
  assert.equal(seen[0]?.expected.variables.HTTP_PROXY, POD_PROXY);
  const run = fake.progressRuns.find((r) => /through a HostProcess pod/.test(r.title));
  assert.equal(run?.title, 'kube-windows: reading the proxy settings of win-1 through a HostProcess pod');
  assert.equal(run?.options.cancellable, true);
  assert.deepEqual(
    run?.reports.map((r) => r.message),
    [
      'creating pod kube-system/kube-windows-shell-win-1-abc on win-1',
      'Pending: ContainerCreating (pulling the image)',
    ],
  );
  const doc = fake.documents.at(-1);
  assert.equal(doc?.uri?.toString(), 'kube-windows-text:/proxy/win-1.txt');
  assert.match(doc?.content ?? '', /NO_PROXY {4}\.svc {2}≠ expected \.cluster\.local,\.svc/);
  assert.equal(fake.shown.at(-1)?.kind, 'warning');
  assert.match(fake.shown.at(-1)?.message ?? '', /^kube-windows: win-1: Drift: machine NO_PROXY differs/);

  // Remembered: the next read goes through the pod again without a question.
  const asked = fake.questions.length;
  await h.run('kubeWindows.showProxySettings', NODE_ITEM);
  assert.equal(fake.questions.length, asked);
  assert.equal(seen.length, 2);
});

test('showProxySettings: SSH unreachable offers the HostProcess pod, which reads the node; a refused host key never falls back', async () => {
  const seen: Parameters<NodeDeps['readProxyThroughPod']>[0][] = [];
  let failure: Error = Object.assign(
    new Error('Could not connect to Administrator@10.0.0.7:22: the TCP connection timed out.'),
    { name: 'RemoteError' },
  );
  const h = await harness({
    proxyExpectation: podExpectation,
    recordProxySeen: () => undefined,
    readProxyThroughPod: podRead(seen),
    host: (options) => {
      h.hosts.push(options);
      return {
        label: options.host,
        close: () => undefined,
        run: async () => {
          throw failure;
        },
      } as unknown as WindowsHost;
    },
  });
  fake.answers.push('Use a HostProcess pod');
  await h.run('kubeWindows.showProxySettings', NODE_ITEM);
  const offer = fake.shown.find((s) => s.items.includes('Use a HostProcess pod'));
  assert.equal(offer?.kind, 'warning');
  assert.match(
    offer?.message ?? '',
    /^kube-windows: reading the proxy settings of win-1 over SSH failed: .*Could not connect to Administrator@10\.0\.0\.7:22: the TCP connection timed out\. Read through a HostProcess pod instead\?$/,
  );
  assert.equal(h.hosts.length, 1, 'SSH was tried first');
  assert.equal(seen.length, 1, 'then the pod');
  assert.equal(fake.documents.length, 1);
  assert.match(fake.shown.at(-1)?.message ?? '', /win-1: Drift: machine NO_PROXY differs/);

  // A host key that changed: an error line, no pod offered (that would work around a possible attack).
  failure = Object.assign(new Error('WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED for 10.0.0.7'), {
    name: 'HostKeyChangedError',
  });
  const offers = fake.shown.filter((s) => s.items.includes('Use a HostProcess pod')).length;
  await h.run('kubeWindows.showProxySettings', NODE_ITEM);
  assert.equal(fake.shown.filter((s) => s.items.includes('Use a HostProcess pod')).length, offers);
  assert.equal(fake.shown.at(-1)?.kind, 'error');
  assert.match(
    fake.shown.at(-1)?.message ?? '',
    /reading the proxy settings of win-1 failed: .*WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED/,
  );
  assert.equal(seen.length, 1, 'the pod was not used');
  assert.equal(fake.documents.length, 1);
});

test('showProxySettings through the pod: a node without an address is offered the pod; cancelling the pull says the pod is gone and shows no document; a pod failure is one error line', async () => {
  let mode: 'wait' | 'fail' = 'wait';
  const signals: AbortSignal[] = [];
  const h = await harness({
    getNode: async () => ({ ...NODE, status: { addresses: [{ type: 'Hostname', address: 'win-1' }] } }),
    proxyExpectation: podExpectation,
    recordProxySeen: () => undefined,
    readProxyThroughPod: async (o) => {
      signals.push(o.signal);
      o.onStatus('Pending: ContainerCreating (pulling the image)');
      if (mode === 'fail')
        throw new Error('pod kube-system/kube-windows-shell-win-1-abc did not start: ErrImagePull\n  details');
      // The image pull never ends: only the cancel does.
      return new Promise((_resolve, reject) =>
        o.signal.addEventListener('abort', () => reject(new Error('The operation was aborted')), { once: true }),
      );
    },
  });
  fake.answers.push('Use a HostProcess pod');
  const running = h.run('kubeWindows.showProxySettings', NODE_ITEM);
  await settle();
  assert.equal(
    fake.shown[0]?.message,
    'kube-windows: win-1 reports no InternalIP or ExternalIP address: SSH cannot reach it. Read through a HostProcess pod instead?',
  );
  assert.equal(h.hosts.length, 0, 'no SSH without an address');
  fake.progressRuns.find((r) => /through a HostProcess pod/.test(r.title))?.cancel();
  await running;
  assert.equal(signals[0]?.aborted, true, "the cancel reaches the engine's read (whose finally deletes the pod)");
  assert.equal(fake.shown.at(-1)?.kind, 'information');
  assert.equal(
    fake.shown.at(-1)?.message,
    'kube-windows: reading the proxy settings of win-1 was cancelled; the pod is deleted and nothing changed on the node.',
  );
  assert.equal(fake.documents.length, 0);

  mode = 'fail';
  fake.answers.push('Use a HostProcess pod');
  await h.run('kubeWindows.showProxySettings', NODE_ITEM);
  assert.equal(fake.shown.at(-1)?.kind, 'error');
  assert.equal(
    fake.shown.at(-1)?.message,
    'kube-windows: reading the proxy settings of win-1 through a HostProcess pod failed: pod kube-system/kube-windows-shell-win-1-abc did not start: ErrImagePull',
  );
  assert.equal(fake.documents.length, 0);
});

test('"Change how to reach node…" to the pod says what uses it: the terminal and Show proxy settings; SSH for the rest', async () => {
  const h = await harness({});
  fake.replies.push('Use a HostProcess pod');
  await h.run('kubeWindows.changeNodeAccess', NODE_ITEM);
  assert.equal(
    fake.shown.at(-1)?.message,
    'kube-windows: win-1 is reached through a HostProcess pod from now on: the terminal and "Show proxy settings" use it; SSH is asked for the rest (reboot, logs, services).',
  );
});
