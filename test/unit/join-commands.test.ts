// The "Join Windows node" commands against the fake vscode module: the question flow with scripted
// answers, where secrets go, the SSH prompts, progress and the plan log, failure handling, and the
// dry-run document. The engine is the real runner with small stand-in plans (through the
// registerJoinCommands seam), so no cluster or SSH server is involved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as vscode from 'vscode';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { JoinPlan, JoinRequest } from '../../src/bootstrap/join';
import type { Plan } from '../../src/bootstrap/plan';
import type { SshConnectorOptions } from '../../src/remote/ssh';
import type { WindowsHost } from '../../src/remote/windows-host';
import type { JoinDeps } from '../../src/extension/join-commands';
import { PreflightError } from '../../src/bootstrap/preflight';
import { joinPlan as realJoinPlan } from '../../src/bootstrap/join';
import { buildByohJoinPlan, type ByohContext } from '../../src/bootstrap/byoh';
import type { Finding } from '../../src/bootstrap/preflight';
import { prepare } from '../../src/bootstrap/prepared';
import { BACK, createFakeVscode, hookVscodeModule, type FakeVscode } from '../support/fake-vscode';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
test.after(() => unhook());

// Imported after the hook so that its `require('vscode')` gets the (delegating) fake.
const load = () => import('../../src/extension/join-commands');

const KEY = '/home/u/.ssh/id_ed25519';
const PASS = 'correct horse battery';
const BYOH = 'BYOH (Windows Machine Config Operator)';

function makeContext() {
  const global = new Map<string, unknown>();
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
  return {
    context: context as unknown as vscode.ExtensionContext,
    global,
    secrets,
    subscriptions: context.subscriptions,
  };
}

interface Harness {
  hosts: SshConnectorOptions[];
  requests: JoinRequest[];
  ran: string[];
  trusted: boolean;
  context: vscode.ExtensionContext;
  global: Map<string, unknown>;
  secrets: Map<string, string>;
  run(command: string, arg?: unknown): Promise<void>;
  dispose(): void;
}

/** What the stand-in plan does: `fail` makes the register step fail with that error on the next runs. */
interface Script {
  fail?: (Error | undefined)[];
  findings?: ConstructorParameters<typeof PreflightError>[0];
}

/**
 * A two-step plan: "connect" plays what SshConnector does with the prompts (host key, then the
 * passphrase up to three times), "register" logs and may fail.
 */
function standInPlan(r: JoinRequest, host: SshConnectorOptions, h: Harness, script: Script): JoinPlan {
  const plan: Plan<{ state: typeof state }> = {
    id: 'byoh-join',
    title: `Join ${r.address} through WMCO`,
    target: r.address,
    steps: [
      {
        id: 'connect',
        title: `Connect to ${r.address}`,
        preview: {},
        check: async () => 'todo',
        apply: async () => {
          // As known_hosts: a trusted key is not asked about again.
          if (!h.trusted) {
            const trusted = await host.confirmUnknownHost?.(
              r.address,
              22,
              'SHA256:q3Kx9T0aFakeFingerprint',
              'ssh-ed25519',
              [],
            );
            if (!trusted)
              throw new Error(
                `The host key of ${r.address} (SHA256:q3Kx9T0aFakeFingerprint) is not known and was not accepted; nothing was sent to the host.`,
              );
            h.trusted = true;
          }
          for (let attempt = 1; attempt <= 3; attempt++) {
            const p = await host.askPassphrase?.(KEY, attempt);
            if (p === undefined)
              throw new Error(`No passphrase was given for the SSH private key ${KEY}; authentication cancelled.`);
            if (p === PASS) return;
          }
          throw new Error(`Wrong passphrase for the SSH private key ${KEY} (3 attempts).`);
        },
        verify: async () => true,
      },
      {
        id: 'register',
        title: 'Add the host to windows-instances',
        preview: {},
        check: async () => 'todo',
        apply: async (_ctx, _signal, report) => {
          h.ran.push('register');
          report('patching the ConfigMap');
          const err = script.fail?.shift();
          if (script.findings && !r.installWmco) {
            state.findings = script.findings;
            throw new PreflightError(script.findings);
          }
          if (err) throw err;
        },
        verify: async () => true,
      },
    ],
  };
  const state: { findings?: ConstructorParameters<typeof PreflightError>[0] } = {};
  return prepare(plan, { state });
}

async function harness(script: Script = {}, overrides: Partial<JoinDeps> = {}): Promise<Harness> {
  fake = createFakeVscode();
  const { registerJoinCommands } = await load();
  const { context, global, secrets, subscriptions } = makeContext();
  const h: Harness = {
    hosts: [],
    requests: [],
    ran: [],
    trusted: false,
    context,
    global,
    secrets,
    run: async (command, arg) => {
      await fake.commands.get(command)?.(arg);
    },
    dispose: () => subscriptions.forEach((s) => s.dispose()),
  };
  const log = fake.module.window as unknown as typeof vscode.window;
  const deps: Partial<JoinDeps> = {
    contexts: async () => ({ ok: true, names: ['dev', 'prod'], current: 'prod' }),
    cluster: async () => ({ kube: { server: 'https://api.example:6443' } as unknown as KubeClient }),
    detectVia: async () => 'byoh',
    host: (options) => {
      h.hosts.push(options);
      return { label: `${options.username}@${options.host}:22`, close: () => undefined } as unknown as WindowsHost;
    },
    joinPlan: (r) => {
      h.requests.push(r);
      return standInPlan(r, h.hosts.at(-1) as SshConnectorOptions, h, script);
    },
    checkPassphrase: async (_path, p) => p === PASS,
    byohClusterProxy: async () => undefined,
    kubeadmNoProxyIncluded: async (_kube, address) => [
      'localhost',
      '127.0.0.1',
      '.svc',
      '.cluster.local',
      '10.96.0.0/12',
      '10.244.0.0/16',
      'api.example',
      address,
    ],
    ...overrides,
  };
  registerJoinCommands(
    context,
    log.createOutputChannel('kube-windows', { log: true }) as vscode.LogOutputChannel,
    deps,
  );
  return h;
}

/** Every place a secret must never reach: globalState, messages, logs, output channels, questions. */
function assertNowhere(h: Harness, secret: string) {
  assert.ok(!JSON.stringify([...h.global]).includes(secret), 'the passphrase reached globalState');
  assert.ok(!JSON.stringify(fake.shown).includes(secret), 'the passphrase reached a message');
  assert.ok(
    !JSON.stringify(fake.logs.map((l) => l.lines)).includes(secret),
    'the passphrase reached a log or output channel',
  );
  assert.ok(
    !JSON.stringify(fake.questions.map((q) => ({ ...q.options, validateInput: undefined }))).includes(secret),
    'the passphrase reached a question',
  );
}

test('joinNode: the questions, their defaults and validation; the plan runs with progress and a plan-log channel', async () => {
  const h = await harness();
  fake.replies.push('prod', BYOH, '', 'fe80::1', '10.0.0.5', 'Administrator', KEY, PASS);
  fake.answers.push('Trust and continue', 'Not now', undefined);
  await h.run('kubeWindows.joinNode');

  const [ctx, via, address, user, key, pass] = fake.questions;
  assert.deepEqual(ctx?.items, ['prod', 'dev'], 'the current context first');
  assert.equal(via?.kind, 'quickPick');
  assert.equal(via?.items?.[0], BYOH, 'the detected path first');
  assert.equal(address?.kind, 'input');
  assert.equal(address?.rejected?.length, 2, 'empty and IPv6 addresses are rejected for BYOH');
  assert.match(address?.rejected?.[1] ?? '', /IPv6/);
  assert.equal(user?.options.value, 'Administrator');
  assert.equal(key?.kind, 'open');
  assert.match(String((key?.options.defaultUri as { fsPath: string }).fsPath), /\.ssh$/);
  assert.equal(pass?.options.password, true);
  assert.equal(pass?.options.ignoreFocusOut, true);

  const modal = fake.shown[0];
  assert.equal(modal?.kind, 'warning');
  assert.equal(modal?.options?.modal, true);
  assert.match(modal?.options?.detail ?? '', /ssh-ed25519/);
  assert.match(modal?.options?.detail ?? '', /SHA256:q3Kx9T0aFakeFingerprint/);
  assert.match(modal?.message ?? '', /10\.0\.0\.5/);
  assert.deepEqual(modal?.items, ['Trust and continue']);
  assert.deepEqual(h.hosts[0], { ...h.hosts[0], host: '10.0.0.5', username: 'Administrator', privateKeyPath: KEY });

  // Declined: nothing stored; the key PATH only is remembered, per context.
  assert.equal(h.secrets.size, 0);
  assert.deepEqual(
    [...h.global],
    [
      ['kubeWindows.join.keyPaths', { prod: KEY }],
      ['kubeWindows.ssh.users', { prod: 'Administrator' }],
    ],
  );

  const channel = fake.logs.find((l) => l.name === 'kube-windows: join 10.0.0.5');
  assert.ok(channel, 'an output channel for the operation');
  assert.equal(channel.options, 'kube-windows-plan');
  const text = channel.lines.map((l) => l.text);
  assert.match(
    text[0] ?? '',
    /^\[\d\d:\d\d:\d\d\] PLAN byoh-join RUNNING {2}Join 10\.0\.0\.5 through WMCO on 10\.0\.0\.5 \(2 steps\)$/,
  );
  assert.ok(text.some((l) => /STEP register OK/.test(l)));
  assert.ok(text.every((l) => !l.endsWith('\n')));

  const progress = fake.progressRuns.at(-1);
  assert.equal(progress?.options.cancellable, true);
  assert.ok(progress?.reports.some((r) => r.message === 'step 1/2: Connect to 10.0.0.5'));
  assert.ok(
    progress?.reports.some((r) => r.message === 'step 2/2: Add the host to windows-instances — patching the ConfigMap'),
  );
  assert.equal(
    progress?.reports.reduce((n, r) => n + (r.increment ?? 0), 0),
    100,
  );

  const done = fake.shown.at(-1);
  assert.equal(done?.kind, 'information');
  assert.match(done?.message ?? '', /10\.0\.0\.5 joined prod/);
  assertNowhere(h, PASS);
  h.dispose();
});

test('the key: a quick pick of the key last used for the cluster and kubeWindows.ssh.privateKeyPath, "Browse…" opens the dialog', async () => {
  const h = await harness();
  const configured = '/home/u/keys/windows-fleet';
  fake.setSettings({ 'kubeWindows.ssh.privateKeyPath': configured });
  // First join: the setting is offered (nothing used for prod yet); the user picks it.
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', configured, PASS);
  fake.answers.push('Trust and continue', 'Not now', undefined);
  await h.run('kubeWindows.joinNode');
  const first = fake.questions.find((q) => /private key/.test(String(q.options.title)));
  assert.equal(first?.kind, 'quickPick');
  assert.deepEqual(first?.items, [configured, 'Browse…']);
  assert.equal(h.hosts.at(-1)?.privateKeyPath, configured);
  assert.deepEqual(h.global.get('kubeWindows.join.keyPaths'), { prod: configured });

  // Next time: the last key of the cluster first, then the setting's; "Browse…" opens the dialog.
  fake.questions.length = 0;
  h.trusted = true;
  fake.replies.push('prod', BYOH, '10.0.0.6', 'Administrator', 'Browse…', KEY, PASS);
  fake.answers.push(undefined);
  await h.run('kubeWindows.joinNode');
  const keyQuestions = fake.questions.filter((q) => /private key/.test(String(q.options.title)));
  assert.deepEqual(
    keyQuestions.map((q) => q.kind),
    ['quickPick', 'open'],
  );
  assert.deepEqual(keyQuestions[0]?.items, [configured, 'Browse…'], 'the same path once, not twice');
  assert.equal(h.hosts.at(-1)?.privateKeyPath, KEY);
  assert.deepEqual(h.global.get('kubeWindows.join.keyPaths'), { prod: KEY });
  fake.setSettings({ 'kubeWindows.ssh.privateKeyPath': '' });
  h.dispose();
});

test('kubeWindows.ssh.port and kubeWindows.ssh.knownHostsFile reach the connection; the trust prompt names that file', async () => {
  const h = await harness();
  fake.setSettings({ 'kubeWindows.ssh.port': 2222, 'kubeWindows.ssh.knownHostsFile': '/srv/sandbox/known_hosts' });
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', KEY, PASS);
  fake.answers.push(undefined);
  await h.run('kubeWindows.joinNode');
  assert.equal(h.hosts.at(-1)?.port, 2222);
  assert.equal(h.hosts.at(-1)?.knownHostsPath, '/srv/sandbox/known_hosts');
  const modal = fake.shown.find((s) => s.options?.modal);
  assert.match(modal?.options?.detail ?? '', /adds it to \/srv\/sandbox\/known_hosts/);
  fake.setSettings({ 'kubeWindows.ssh.port': 22, 'kubeWindows.ssh.knownHostsFile': '' });
  h.dispose();
});

test('passphrase: stored in SecretStorage only on "Remember", then reused; a stale one is deleted and asked again', async () => {
  const h = await harness();
  // From a cluster item: no context question; the item says OpenShift.
  const item = {
    id: `ctx/${encodeURIComponent('prod')}`,
    contextValue: 'cluster.openshift',
    label: 'prod',
    ref: { kind: 'cluster', context: 'prod' },
  };
  fake.replies.push(BYOH, 'win-1.example.com', 'Administrator', KEY, PASS);
  fake.answers.push('Trust and continue', 'Remember', undefined);
  await h.run('kubeWindows.joinNode', item);
  assert.equal(fake.questions[0]?.kind, 'quickPick');
  assert.equal(fake.questions[0]?.items?.[0], BYOH);
  assert.deepEqual([...h.secrets], [[`kubeWindows.ssh.passphrase:${KEY}`, PASS]]);
  assert.match(fake.shown[1]?.message ?? '', /remember the passphrase of .*id_ed25519/);
  assertNowhere(h, PASS);

  // Next join: the stored passphrase is used without asking, and nothing is offered.
  const before = fake.questions.length;
  const shownBefore = fake.shown.length;
  fake.replies.push(BYOH, 'win-1.example.com', 'Administrator', KEY);
  fake.answers.push(undefined);
  await h.run('kubeWindows.joinNode', item);
  assert.equal(fake.questions.length - before, 4, 'no passphrase question');
  assert.equal(fake.shown.length - shownBefore, 1);
  assert.match(fake.shown.at(-1)?.message ?? '', /joined/);

  // A wrong stored passphrase is deleted and the user asked again; the typed one can be remembered.
  h.secrets.set(`kubeWindows.ssh.passphrase:${KEY}`, 'stale');
  fake.replies.push(BYOH, 'win-1.example.com', 'Administrator', KEY, PASS);
  fake.answers.push('Remember', undefined);
  await h.run('kubeWindows.joinNode', item);
  const passQ = fake.questions.at(-1);
  assert.equal(passQ?.options.password, true);
  assert.match(String(passQ?.options.prompt), /Wrong passphrase/);
  assert.deepEqual([...h.secrets], [[`kubeWindows.ssh.passphrase:${KEY}`, PASS]], 'the stale one replaced');

  // "Not now" is not asked again for this key in the session.
  h.secrets.clear();
  fake.replies.push(BYOH, 'win-1.example.com', 'Administrator', KEY, PASS);
  fake.answers.push('Not now', undefined);
  await h.run('kubeWindows.joinNode', item);
  const shownMid = fake.shown.length;
  fake.replies.push(BYOH, 'win-1.example.com', 'Administrator', KEY, PASS);
  fake.answers.push(undefined);
  await h.run('kubeWindows.joinNode', item);
  assert.equal(fake.shown.length - shownMid, 1, 'only the result, no second offer');
  assert.equal(h.secrets.size, 0);
  assertNowhere(h, PASS);
  h.dispose();
});

test('a cancelled question ends the command quietly, at any point', async () => {
  for (const replies of [
    [undefined],
    ['prod', undefined],
    ['prod', BYOH, undefined],
    ['prod', BYOH, '10.0.0.5', undefined],
    ['prod', BYOH, '10.0.0.5', 'Administrator', undefined],
  ]) {
    const h = await harness();
    fake.replies.push(...replies);
    await h.run('kubeWindows.joinNode');
    assert.equal(fake.shown.length, 0, `no message after ${replies.length} answers`);
    assert.equal(fake.progressRuns.filter((r) => r.options.cancellable).length, 0, 'no plan ran');
    assert.equal(h.requests.length, 0);
    h.dispose();
  }
  // Escape on the passphrase: the plan stops, and no error is shown either.
  const h = await harness();
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', KEY, undefined);
  fake.answers.push('Trust and continue');
  await h.run('kubeWindows.joinNode');
  assert.deepEqual(h.ran, []);
  assert.equal(fake.shown.length, 1, 'only the host key question');
  h.dispose();
});

test('refusing the unknown host key stops before anything runs on the host, without an error', async () => {
  const h = await harness();
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', KEY);
  fake.answers.push(undefined); // the modal closed without "Trust and continue"
  await h.run('kubeWindows.joinNode');
  assert.deepEqual(h.ran, [], 'the register step never ran');
  assert.equal(fake.questions.filter((q) => q.options.password).length, 0, 'no passphrase asked');
  assert.equal(fake.shown.length, 1);
  assert.equal(fake.shown[0]?.options?.modal, true);
  h.dispose();
});

test('a failure shows its first line with "Show log" and "Run again"; Run again resumes', async () => {
  const h = await harness({
    fail: [new Error('WMCO did not register the node\n    at Object.<anonymous> (byoh.ts:12:3)')],
  });
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', KEY, PASS);
  fake.answers.push('Trust and continue', 'Not now', 'Run again', undefined);
  await h.run('kubeWindows.joinNode');
  const failed = fake.shown.find((m) => m.kind === 'error');
  assert.equal(failed?.message, 'kube-windows: joining 10.0.0.5 failed: WMCO did not register the node');
  assert.deepEqual(failed?.items, ['Show log', 'Run again']);
  assert.equal(h.requests.length, 2, 'ran again');
  assert.deepEqual(h.ran, ['register', 'register']);
  assert.match(fake.shown.at(-1)?.message ?? '', /joined/);
  assert.equal(
    fake.questions.filter((q) => q.options.password).length,
    1,
    'the passphrase is not asked again in the same operation',
  );
  for (const m of fake.shown) assert.doesNotMatch(m.message, /\n|\bat .+:\d+:\d+/);
  h.dispose();
});

/**
 * The real BYOH plan's steps (ids, titles and what each leaves behind) with stand-in bodies: every step applies at
 * once, except `hangAt`, which waits until the run is cancelled; the preflight records `findings`.
 */
function byohShaped(r: JoinRequest, o: { hangAt?: string; findings?: Finding[] } = {}): JoinPlan {
  const opts = { kube: r.kube, host: r.host, address: r.address, user: r.user };
  const real = buildByohJoinPlan(opts);
  const ctx: ByohContext = { opts, state: {} };
  const plan: Plan<ByohContext> = {
    ...real,
    steps: real.steps.map((step) => ({
      ...step,
      check: async () => 'todo',
      apply: async (c, signal) => {
        if (step.id === 'preflight') c.state.findings = o.findings ?? [];
        if (step.id === o.hangAt)
          await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      verify: async () => true,
    })),
  };
  return prepare(plan, ctx);
}

/** Runs the join and cancels its progress notification when `step` starts. */
async function joinCancelledAt(step: string, answer?: string): Promise<Harness> {
  const h = await harness(
    {},
    {
      joinPlan: (r) => byohShaped(r, { hangAt: step }),
      // What "Remove node…" then reads: no Node yet, the entry the join wrote.
      getNode: async () => undefined,
      windowsInstances: async () => ({ '10.0.0.5': 'username=Administrator' }),
    },
  );
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', KEY);
  if (answer) fake.answers.push(answer);
  const run = h.run('kubeWindows.joinNode');
  const title = (p: { title: string }) => /joining 10\.0\.0\.5/.test(p.title);
  const stepStarted = () =>
    fake.progressRuns.find(title)?.reports.some((r) => (r.message ?? '').includes(`: ${stepTitle(step)}`));
  while (!stepStarted()) await new Promise((resolve) => setImmediate(resolve));
  fake.progressRuns.find(title)?.cancel();
  await run;
  return h;
}

const stepTitle = (id: string): string =>
  buildByohJoinPlan({ kube: {} as KubeClient, host: {} as WindowsHost, address: '10.0.0.5', user: 'u' }).steps.find(
    (s) => s.id === id,
  )?.title ?? id;

test('cancel at "Wait for WMCO…" (after the windows-instances entry): the message says WMCO goes on, and "Remove node…" runs the remove command on that host', async () => {
  const h = await joinCancelledAt('node-registered', 'Remove node…');
  const cancelled = fake.shown.find((m) => /was cancelled/.test(m.message));
  assert.equal(cancelled?.kind, 'warning');
  assert.equal(
    cancelled?.message,
    'kube-windows: joining 10.0.0.5 was cancelled during “Wait for WMCO to configure the host and the Node to register”. The windows-instances ConfigMap lists 10.0.0.5: WMCO keeps configuring 10.0.0.5 on its own and the node joins without kube-windows following it. “Remove node…” undoes it.',
  );
  assert.doesNotMatch(cancelled?.message ?? '', /run it again to resume/i);
  assert.deepEqual(cancelled?.items, ['Remove node…', 'Show log', 'Run again']);
  const undo = fake.executed.find((e) => e[0] === 'kubeWindows.removeNode');
  assert.deepEqual(undo?.[1], { ref: { kind: 'node', context: 'prod', node: '10.0.0.5' } });
  // The remove command itself runs: its modal confirmation names the host.
  assert.match(fake.shown.at(-1)?.message ?? '', /Remove the Windows node 10\.0\.0\.5 from prod\?/);
  h.dispose();
});

test('cancel during the preflight (before the entry): "nothing was changed", no undo offered', async () => {
  const h = await joinCancelledAt('preflight');
  const cancelled = fake.shown.find((m) => /was cancelled/.test(m.message));
  assert.equal(cancelled?.kind, 'information');
  assert.equal(
    cancelled?.message,
    'kube-windows: joining 10.0.0.5 was cancelled during “Check the cluster and the host”. Nothing was changed in the cluster or on the host.',
  );
  assert.deepEqual(cancelled?.items, ['Show log', 'Run again']);
  h.dispose();
});

test('a join that succeeded with preflight warnings says so, and "Show details" opens them with their fixes', async () => {
  const findings: Finding[] = [
    {
      id: 'ssh-port',
      severity: 'warning',
      title: 'kube-windows reaches the host on SSH port 2222, but WMCO connects to it on port 22',
      fix: 'Make the host listen on 22 too.',
    },
    { id: 'csr-approval', severity: 'warning', title: 'No PTR record for 10.0.0.5', fix: 'Add a PTR record.' },
    { id: 'windows-build', severity: 'info', title: 'Windows Server 2022 (20348)' },
  ];
  const h = await harness({}, { joinPlan: (r) => byohShaped(r, { findings }) });
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', KEY);
  fake.answers.push('Show details');
  await h.run('kubeWindows.joinNode');
  const done = fake.shown.find((m) => /joined/.test(m.message));
  assert.equal(done?.kind, 'warning');
  assert.equal(
    done?.message,
    'kube-windows: 10.0.0.5 joined prod as a Windows node, with 2 warnings: kube-windows reaches the host on SSH port 2222, but WMCO connects to it on port 22 …',
  );
  assert.deepEqual(done?.items, ['Show details']);
  const doc = fake.documents.at(-1);
  assert.equal(doc?.shown, 1);
  assert.match(doc?.content ?? '', /WMCO connects to it on port 22\n\s+fix: Make the host listen on 22 too\./);
  assert.match(doc?.content ?? '', /No PTR record/);
  assert.doesNotMatch(doc?.content ?? '', /Windows Server 2022/, 'only the warnings');
  h.dispose();
});

test('a preflight finding with an offer: "Install WMCO (Automatic)" runs the plan again with installWmco', async () => {
  const findings = [
    {
      id: 'wmco',
      severity: 'error' as const,
      title: 'The Windows Machine Config Operator is not installed',
      fix: 'Install WMCO',
      offer: 'install-wmco' as const,
    },
    { id: 'address', severity: 'info' as const, title: '10.0.0.5 is IPv4' },
  ];
  const h = await harness({ findings });
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', KEY, PASS);
  fake.answers.push('Trust and continue', 'Not now', 'Install WMCO (Automatic)', undefined);
  await h.run('kubeWindows.joinNode');
  const offer = fake.shown.find((m) => m.kind === 'error');
  assert.match(offer?.message ?? '', /The Windows Machine Config Operator is not installed/);
  assert.deepEqual(offer?.items, ['Install WMCO (Automatic)', 'Install WMCO (Manual)', 'Show log']);
  assert.deepEqual(h.requests[1]?.installWmco, { approval: 'Automatic' });
  assert.match(fake.shown.at(-1)?.message ?? '', /joined/);
  h.dispose();
});

test('showJoinPlan: the same questions without SSH, and a kube-windows-plan document of the real plan', async () => {
  const h = await harness({}, { joinPlan: realJoinPlan });
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator');
  await h.run('kubeWindows.showJoinPlan');
  assert.equal(fake.questions.length, 4, 'no key file question');
  assert.ok(
    !h.hosts[0]?.askPassphrase && !h.hosts[0]?.confirmUnknownHost && !h.hosts[0]?.privateKeyPath,
    'no prompts: nothing connects',
  );
  const doc = fake.documents[0];
  assert.equal(doc?.languageId, 'kube-windows-plan');
  assert.equal(doc?.shown, 1);
  const plan = realJoinPlan({
    kube: {} as KubeClient,
    host: {} as WindowsHost,
    address: '10.0.0.5',
    user: 'Administrator',
    via: 'byoh',
  });
  assert.ok(doc?.content.startsWith(`# kube-windows plan: ${plan.title}`));
  for (const [i, step] of plan.steps.entries())
    assert.ok(doc?.content.includes(`STEP ${i + 1}/${plan.steps.length}  ${step.id}  ${step.title}`), step.id);
  assert.equal(fake.shown.length, 0);
  h.dispose();
});

test('showJoinPlan on kubeadm: the payload, taint and RuntimeClass questions reach the request', async () => {
  const payload = {
    containerd: {
      kind: 'url',
      name: 'containerd-1.7.27-windows-amd64.tar.gz',
      url: 'https://x/c.tar.gz',
      sha256: 'a'.repeat(64),
    },
  };
  const findings = [
    { id: 'cni', severity: 'info', title: 'CNI: calico v3.28.2 (DaemonSet kube-system/calico-node)' },
    {
      id: 'kubelet-skew',
      severity: 'error',
      title: 'kubelet v1.32.0 would be newer than the API server (v1.31.3)',
      fix: 'Use v1.31.3.',
    },
  ];
  const h = await harness(
    {},
    {
      detectVia: async () => 'kubeadm',
      resolvePayload: async () => payload as never,
      dryRunFindings: async () => ({ findings: findings as never }),
    },
  );
  fake.replies.push(
    'prod',
    'kubeadm',
    '10.0.0.5',
    'Administrator',
    '/payload',
    'Taint the node os=windows:NoSchedule',
    "Create the RuntimeClass of the node's Windows build",
    '', // no proxy
  );
  await h.run('kubeWindows.showJoinPlan');
  const q = fake.questions.at(-2);
  assert.equal(q?.options.title, 'kube-windows: create a RuntimeClass for the node?');
  assert.equal(h.requests[0]?.runtimeClass, true);
  assert.equal(h.requests[0]?.taint, true);
  const doc = fake.documents[0]?.content ?? '';
  assert.match(
    doc,
    /^# ✓ CNI: calico v3\.28\.2[\s\S]*# ✗ kubelet v1\.32\.0 would be newer than the API server \(v1\.31\.3\)\n#     fix: Use v1\.31\.3\.\n\n# kube-windows plan:/,
  );
  h.dispose();
});

test('address validation and the windows-instances key of a node', async () => {
  const { validateAddress, instanceKeyFor } = await import('../../src/core/windows/join-input');
  const { parseItem } = await import('../../src/extension/command-kit');
  assert.equal(validateAddress('10.0.0.5', 'byoh'), undefined);
  assert.equal(validateAddress('win-1.example.com', 'byoh'), undefined);
  assert.match(validateAddress('  ', 'byoh') ?? '', /Enter/);
  assert.match(validateAddress('2001:db8::5', 'byoh') ?? '', /IPv6/);
  assert.equal(validateAddress('2001:db8::5', 'kubeadm'), undefined);
  assert.match(validateAddress('10.0.0', 'byoh') ?? '', /IPv4/);
  assert.match(validateAddress('a b', 'kubeadm') ?? '', /spaces/);
  const node = { metadata: { name: 'win-1' }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] } };
  assert.equal(instanceKeyFor(node, 'win-1', ['10.0.0.9', '10.0.0.5']), '10.0.0.5');
  assert.equal(
    instanceKeyFor({ metadata: { name: 'win-1' } }, 'win-1', ['10.0.0.9', 'WIN-1.example.com']),
    'WIN-1.example.com',
  );
  assert.equal(instanceKeyFor(undefined, 'win-1', ['win-10.example.com']), undefined);
  // From the item's typed reference, never its id (a context name may hold "/" or "%").
  assert.deepEqual(
    parseItem({
      id: 'ctx/a%2Fb/node/win-1',
      contextValue: 'windowsNode',
      ref: { kind: 'node', context: 'a/b', node: 'win-1' },
    }),
    { context: 'a/b', node: 'win-1' },
  );
  assert.deepEqual(parseItem({ id: 'ctx/dev', contextValue: 'cluster', ref: { kind: 'cluster', context: 'dev' } }), {
    context: 'dev',
    openshift: false,
  });
  assert.deepEqual(
    parseItem({ id: 'ctx/dev', contextValue: 'cluster.openshift', ref: { kind: 'cluster', context: 'dev' } }),
    { context: 'dev', openshift: true },
  );
  assert.deepEqual(
    parseItem({ id: 'x', ref: { kind: 'pod', context: 'dev', node: 'win-1', namespace: 'a', name: 'p' } }),
    { context: 'dev' },
  );
  assert.deepEqual(parseItem({ id: 'ctx/dev/node/win-1' }), {}, 'an id alone is not parsed');
});

test('one address check: the VS Code prompt, the engine and the windows-instances rule agree on every input', async () => {
  const { validateAddress, addressProblem, classifyAddress } = await import('../../src/core/windows/join-input');
  const { joinPlan, JoinInputError } = await import('../../src/bootstrap/join');
  // The two disagreements this settles: the engine refused a trailing-dot FQDN that the prompt
  // accepted, and took "10.0.0" for a DNS name that the prompt and the rule call a bad IPv4 address.
  const table: [string, 'ok' | 'refused'][] = [
    ['10.0.0.5', 'ok'],
    ['win-1.example.com', 'ok'],
    ['win-1.example.com.', 'ok'],
    ['10.0.0', 'refused'],
    ['010.0.0.5', 'refused'],
    ['10.0.0.256', 'refused'],
    ['fe80::1', 'refused'],
    ['-bad.example.com', 'refused'],
    ['a b', 'refused'],
  ];
  for (const [address, want] of table) {
    const prompt = validateAddress(address, 'byoh');
    const engine = addressProblem(address, 'byoh');
    assert.equal(prompt === undefined ? 'ok' : 'refused', want, `prompt on ${address}`);
    assert.equal(engine, prompt, `engine and prompt on ${address}`);
    const rule = classifyAddress(address);
    assert.equal(
      rule === 'ipv4' || rule === 'dns' ? 'ok' : 'refused',
      want,
      `the windows-instances rule on ${address}`,
    );
    const build = () => joinPlan({ kube: {} as never, host: {} as never, address, user: 'Administrator', via: 'byoh' });
    if (want === 'refused') assert.throws(build, JoinInputError, `joinPlan on ${address}`);
    else assert.doesNotThrow(build, `joinPlan on ${address}`);
  }
});

test('manifest: the three commands, their menus, and the payload setting', () => {
  const pkg = JSON.parse(readFileSync(resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
  const c = pkg.contributes;
  const cmd = (id: string) => c.commands.find((x: { command: string }) => x.command === id);
  assert.deepEqual(
    ['kubeWindows.joinNode', 'kubeWindows.showJoinPlan', 'kubeWindows.removeNode'].map((id) => [
      cmd(id)?.category,
      cmd(id)?.icon,
    ]),
    [
      ['kube-windows', '$(add)'],
      ['kube-windows', '$(preview)'],
      ['kube-windows', '$(trash)'],
    ],
  );
  const menus: { command: string; when: string; group?: string }[] = c.menus['view/item/context'];
  const join = menus.filter((m) => m.command === 'kubeWindows.joinNode');
  assert.deepEqual(join.map((m) => m.group?.split('@')[0]).sort(), ['2_join', 'inline']);
  for (const m of [...join, ...menus.filter((x) => x.command === 'kubeWindows.showJoinPlan')])
    assert.match(m.when, /viewItem =~ \/\^cluster\//);
  const remove = menus.find((m) => m.command === 'kubeWindows.removeNode');
  assert.match(remove?.when ?? '', /viewItem =~ \/\^windowsNode\//);
  assert.match(remove?.group ?? '', /^7_modification/);
  assert.ok(
    c.menus.commandPalette.some(
      (m: { command: string; when: string }) => m.command === 'kubeWindows.removeNode' && m.when === 'false',
    ),
  );
  const setting = c.configuration.properties['kubeWindows.join.payloadFolder'];
  assert.equal(setting.type, 'string');
  assert.equal(setting.scope, 'machine');
  // Join commands add no activation event of their own (the Kubernetes extension's view is another feature's).
  assert.deepEqual(pkg.activationEvents, ['onLanguage:yaml', 'onView:extension.vsKubernetesExplorer']);
});

test('the join questions are one multi-step input: step counter, Back with the earlier answer shown, kubeadm-only steps counted', async () => {
  const h = await harness({}, { detectVia: async () => 'kubeadm', resolvePayload: async () => ({}) as never });
  fake.replies.push(
    'prod',
    'kubeadm',
    '10.0.0.5',
    BACK, // at the user: back to the address, which shows 10.0.0.5
    BACK, // back to the path: kubeadm is the active entry
    BYOH, // BYOH: the payload, taint and RuntimeClass steps leave the count
    '10.0.0.6',
    BACK,
    BACK,
    'kubeadm',
    '10.0.0.7',
    'Administrator',
    '/payload',
    'No taint',
    'No RuntimeClass',
    '',
  );
  await h.run('kubeWindows.showJoinPlan');
  const q = fake.questions;
  assert.deepEqual(
    q.map((x) => [x.kind, x.step, x.totalSteps, x.back]),
    [
      ['quickPick', 1, 4, false],
      ['quickPick', 2, 4, true],
      ['input', 3, 8, true],
      ['input', 4, 8, true],
      ['input', 3, 8, true],
      ['quickPick', 2, 8, true],
      ['input', 3, 4, true],
      ['input', 4, 4, true],
      ['input', 3, 4, true],
      ['quickPick', 2, 4, true],
      ['input', 3, 8, true],
      ['input', 4, 8, true],
      ['open', undefined, undefined, undefined],
      ['quickPick', 6, 8, true],
      ['quickPick', 7, 8, true],
      ['input', 8, 8, true],
    ],
  );
  assert.deepEqual(q[1]?.items, ['kubeadm', BYOH], 'the detected path first');
  assert.equal(q[4]?.options.value, '10.0.0.5', 'Back: the earlier address is in the box');
  assert.deepEqual(q[5]?.options.activeItems, ['kubeadm'], 'Back: the earlier answer is the active entry');
  assert.equal(q[10]?.options.value, '10.0.0.6');
  assert.equal(q[11]?.options.value, 'Administrator', 'the real default user');
  assert.ok(q.every((x) => x.kind === 'open' || x.options.ignoreFocusOut === true));
  assert.equal(h.requests.length, 1);
  assert.deepEqual(
    [h.requests[0]?.via, h.requests[0]?.address, h.requests[0]?.taint, h.requests[0]?.runtimeClass],
    ['kubeadm', '10.0.0.7', undefined, undefined],
  );
  h.dispose();
});

test('Remove node: the questions first, the modal confirmation last, worded for what this removal does', async () => {
  const removed: unknown[] = [];
  const h = await harness(
    {},
    {
      detectVia: async () => 'kubeadm',
      getNode: async () =>
        ({
          metadata: { name: 'win-9' },
          status: { addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] },
        }) as never,
      removePlanFor: async (r) => {
        removed.push(r);
        return prepare({ id: 'remove', title: 'Remove', target: 'win-9', steps: [] }, { state: {} }) as never;
      },
    },
  );
  const item = { ref: { kind: 'node', context: 'prod', node: 'win-9' } };
  // Escape at a question: no confirmation is shown, nothing is removed.
  fake.replies.push('Also run kubeadm reset on the host', undefined);
  await h.run('kubeWindows.removeNode', item);
  assert.equal(fake.shown.length, 0);
  assert.equal(fake.questions[1]?.options.value, '10.0.0.9', "the node's InternalIP is the default address");
  assert.deepEqual([fake.questions[1]?.step, fake.questions[1]?.totalSteps], [2, 4]);

  fake.replies.push('Also run kubeadm reset on the host', '10.0.0.9', 'Administrator', KEY);
  fake.answers.push(undefined);
  await h.run('kubeWindows.removeNode', item);
  const confirm = fake.shown[0];
  assert.equal(confirm?.options?.modal, true);
  assert.equal(confirm?.message, 'Remove the Windows node win-9 from prod?');
  assert.match(confirm?.options?.detail ?? '', /kubeadm reset runs on 10\.0\.0\.9 over SSH/);
  assert.equal(removed.length, 0, 'declined: nothing removed');
  h.dispose();
});

// ---------------------------------------------------------------------------------------------
// The proxy questions: kubeadm asks for the proxy of containerd and the kubelet and the
// NO_PROXY additions; BYOH says in their place that WMCO applies the cluster-wide proxy.

const PROXY_PASSWORD = 'pr0xy-s3cret';
const PROXY_URL = `http://win:${PROXY_PASSWORD}@proxy.corp.example:3128`;
const url = (name: string) => ({ kind: 'url', name, url: `https://x/${name}`, sha256: 'a'.repeat(64) });
const PAYLOAD = {
  containerd: url('containerd-1.7.27-windows-amd64.tar.gz'),
  kubelet: url('kubelet.exe'),
  kubeadm: url('kubeadm.exe'),
};
const KUBEADM_ANSWERS = ['prod', 'kubeadm', '10.0.0.5', 'Administrator'];

test('kubeadm join: the proxy question (optional, a URL), then NO_PROXY with what is always included; the answers are --proxy/--no-proxy and the password is nowhere', async () => {
  const h = await harness({}, { detectVia: async () => 'kubeadm', resolvePayload: async () => PAYLOAD as never });
  fake.replies.push(
    ...KUBEADM_ANSWERS,
    KEY,
    '/payload',
    'No taint',
    'No RuntimeClass',
    'proxy.corp.example:3128', // no scheme
    'http://proxy.corp.example:3128/wpad.dat', // a path: something else was pasted
    'ftp://proxy.corp.example', // not http(s)
    PROXY_URL,
    'http://registry.internal', // a URL is not a NO_PROXY entry
    'a b', // not a name
    ' .corp.example , 10.20.0.0/16 ,',
    PASS,
  );
  fake.answers.push('Trust and continue', 'Not now', undefined);
  await h.run('kubeWindows.joinNode');

  const proxyQ = fake.questions.find(
    (q) => q.options.title === 'kube-windows: HTTP(S) proxy for containerd and the kubelet',
  );
  assert.equal(proxyQ?.kind, 'input');
  assert.match(String(proxyQ?.options.prompt), /Blank: no proxy/);
  assert.deepEqual(proxyQ?.rejected?.length, 3, 'no scheme, a path and ftp:// are refused');
  assert.match(proxyQ?.rejected?.[0] ?? '', /http:\/\/ or https:\/\//);
  assert.match(proxyQ?.rejected?.[1] ?? '', /without a path/);
  assert.deepEqual([proxyQ?.step, proxyQ?.totalSteps], [9, 9], 'the last question, after RuntimeClass');

  const noProxyQ = fake.questions.find((q) => /NO_PROXY/.test(String(q.options.title)));
  assert.equal(
    noProxyQ?.options.title,
    'kube-windows: NO_PROXY for http://proxy.corp.example:3128 (credentials not shown)',
  );
  assert.equal(
    noProxyQ?.options.prompt,
    'Always included: localhost, 127.0.0.1, .svc, .cluster.local, 10.96.0.0/12, 10.244.0.0/16, api.example, 10.0.0.5. Add more, comma-separated (blank: none).',
  );
  assert.equal(noProxyQ?.rejected?.length, 2);
  assert.match(noProxyQ?.rejected?.[0] ?? '', /not URLs/);
  assert.match(noProxyQ?.rejected?.[1] ?? '', /"a b" is not a host name/);
  assert.deepEqual([noProxyQ?.step, noProxyQ?.totalSteps], [10, 10], 'counted once the proxy is given');

  // Exactly what `join --via kubeadm --proxy URL --no-proxy LIST` passes: the URL as typed, the user's entries only.
  assert.equal(h.requests.length, 1);
  assert.deepEqual(
    [h.requests[0]?.proxy, h.requests[0]?.noProxy, h.requests[0]?.via],
    [PROXY_URL, '.corp.example,10.20.0.0/16', 'kubeadm'],
  );
  const started = fake.logs.flatMap((l) => l.lines.map((x) => x.text)).find((t) => /: started$/.test(t));
  assert.equal(
    started,
    'join 10.0.0.5 (kubeadm) to prod with proxy http://proxy.corp.example:3128 (credentials not shown) (NO_PROXY adds .corp.example,10.20.0.0/16): started',
  );
  assertNowhere(h, PROXY_PASSWORD);
  h.dispose();
});

test('kubeadm join: a blank proxy is none, with no NO_PROXY question and nothing in the request', async () => {
  const h = await harness({}, { detectVia: async () => 'kubeadm', resolvePayload: async () => PAYLOAD as never });
  fake.replies.push(...KUBEADM_ANSWERS, '/payload', 'No taint', 'No RuntimeClass', '   ');
  await h.run('kubeWindows.showJoinPlan');
  assert.equal(fake.questions.filter((q) => /NO_PROXY/.test(String(q.options.title))).length, 0);
  assert.equal(fake.questions.at(-1)?.options.title, 'kube-windows: HTTP(S) proxy for containerd and the kubelet');
  assert.equal(h.requests.length, 1);
  assert.ok(!('proxy' in (h.requests[0] ?? {})) && !('noProxy' in (h.requests[0] ?? {})));
  assert.doesNotMatch(fake.documents[0]?.content ?? '', /proxy-environment|Proxy for containerd/);
  h.dispose();
});

test('kubeadm join: when the networks cannot be read, NO_PROXY still says what is always included, in words', async () => {
  const h = await harness(
    {},
    {
      detectVia: async () => 'kubeadm',
      resolvePayload: async () => PAYLOAD as never,
      kubeadmNoProxyIncluded: async () => {
        throw new Error('configmaps "kubeadm-config" is forbidden');
      },
    },
  );
  fake.replies.push(...KUBEADM_ANSWERS, '/payload', 'No taint', 'No RuntimeClass', 'http://proxy:3128', '');
  await h.run('kubeWindows.showJoinPlan');
  const noProxyQ = fake.questions.at(-1);
  assert.equal(
    noProxyQ?.options.prompt,
    "Always included: localhost, 127.0.0.1, .svc, .cluster.local, the cluster's Service and Pod networks (read when the join runs), api.example, 10.0.0.5. Add more, comma-separated (blank: none).",
  );
  assert.deepEqual([h.requests[0]?.proxy, h.requests[0]?.noProxy], ['http://proxy:3128', undefined]);
  h.dispose();
});

test('showJoinPlan on kubeadm with a proxy: the plan names the proxy step, its header the proxy without the password', async () => {
  const h = await harness(
    {},
    {
      detectVia: async () => 'kubeadm',
      resolvePayload: async () => PAYLOAD as never,
      dryRunFindings: async () => ({ findings: [] }),
      joinPlan: (r) => {
        h.requests.push(r);
        return realJoinPlan(r);
      },
    },
  );
  fake.replies.push(...KUBEADM_ANSWERS, '/payload', 'No taint', 'No RuntimeClass', PROXY_URL, '.corp.example');
  await h.run('kubeWindows.showJoinPlan');
  const doc = fake.documents[0]?.content ?? '';
  assert.match(
    doc,
    /^# Proxy for containerd and the kubelet: http:\/\/proxy\.corp\.example:3128 \(credentials not shown\) \(NO_PROXY adds \.corp\.example\)\n\n# kube-windows plan:/,
  );
  const plan = realJoinPlan(h.requests[0] as JoinRequest);
  const i = plan.steps.findIndex((s) => s.id === 'proxy-environment');
  assert.ok(i > 0, 'the plan has the proxy step');
  assert.ok(
    doc.includes(`STEP ${i + 1}/${plan.steps.length}  proxy-environment  Set the proxy for containerd and the kubelet`),
  );
  assert.ok(doc.includes('proxy-annotation'), 'and the annotation step');
  assert.ok(!doc.includes(PROXY_PASSWORD), 'the password is not in the plan');
  h.dispose();
});

test('BYOH on a cluster with a cluster-wide proxy: no proxy question, one line in its place saying WMCO applies it', async () => {
  const facts = {
    httpProxy: 'http://proxy.corp.example:3128',
    httpsProxy: 'http://proxy.corp.example:3128',
    noProxy: '.cluster.local,.svc,10.128.0.0/14',
    trustedCA: 'user-ca-bundle',
    credentials: true,
  };
  const h = await harness({}, { byohClusterProxy: async () => facts });
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator', 'Continue');
  await h.run('kubeWindows.showJoinPlan');
  const info = fake.questions.at(-1);
  assert.equal(info?.kind, 'quickPick');
  assert.equal(info?.options.title, 'kube-windows: the cluster-wide proxy');
  assert.equal(
    info?.options.placeHolder,
    'WMCO applies proxy http://proxy.corp.example:3128 to the node: nothing to set here',
  );
  assert.deepEqual(info?.items, ['Continue']);
  assert.deepEqual([info?.step, info?.totalSteps], [5, 5]);
  assert.equal(fake.questions.filter((q) => /HTTP\(S\) proxy|NO_PROXY/.test(String(q.options.title))).length, 0);
  assert.ok(!('proxy' in (h.requests[0] ?? {})), 'nothing for the engine to set: WMCO does it');

  // Without a cluster-wide proxy the flow is as before: nothing in its place.
  const plain = await harness();
  fake.replies.push('prod', BYOH, '10.0.0.5', 'Administrator');
  await plain.run('kubeWindows.showJoinPlan');
  assert.equal(fake.questions.length, 4);
  assert.equal(fake.documents.length, 1);
  h.dispose();
  plain.dispose();
});

test('the proxy and NO_PROXY checks: what a user types', async () => {
  const { proxyUrlProblem, noProxyProblem } = await import('../../src/core/windows/join-input');
  for (const ok of ['', '  ', 'http://proxy:3128', 'https://proxy.corp.example', 'http://u:p%40ss@10.0.0.1:8080/'])
    assert.equal(proxyUrlProblem(ok), undefined, ok);
  for (const bad of [
    'proxy:3128',
    'socks5://proxy:1080',
    'http://',
    'http://proxy:3128/x',
    'http://proxy?a=1',
    'http://a b',
  ])
    assert.ok(proxyUrlProblem(bad), bad);
  assert.doesNotMatch(proxyUrlProblem(`http://u:${PROXY_PASSWORD}@proxy/x`) ?? '', new RegExp(PROXY_PASSWORD));
  for (const ok of [
    '',
    '.corp.example',
    '*.corp.example, 10.0.0.0/8',
    'registry.internal:5000',
    '*',
    '[fd00::1]',
    'a_b.local',
  ])
    assert.equal(noProxyProblem(ok), undefined, ok);
  for (const bad of ['https://x', 'a b', 'x/y', 'corp..example', '10.0.0.0/8/1']) assert.ok(noProxyProblem(bad), bad);
});
