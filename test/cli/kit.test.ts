// The CLI kit (src/cli/kit.ts): the options, exit codes and messages every subcommand shares, and the
// disagreements between subcommands it settled, each pinned here through the built CLI. The
// cluster and the Windows host, where one is needed, are the API emulator and the simulated host.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { commandLine, EXIT, EXIT_CODES_HELP, progressLine, resumeLine, withCancel } from '../../src/cli/kit';
import { hostAddress, startRig, type Rig } from '../support/join-rig';
import { windowsNode } from '../support/kube-seed';

// Compiled to out/test/cli/: the repository root is three levels up.
const CLI = resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

/** Runs the built CLI without blocking this process (the emulator and the simulated host live here). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveP) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, SSH_AUTH_SOCK: '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolveP({ code, stdout, stderr }));
  });
}

// A kubeconfig whose cluster nobody answers: what runs against it must not need the cluster.
const dir = mkdtempSync(join(tmpdir(), 'kw-kit-'));
const KUBECONFIG = join(dir, 'kubeconfig');
writeFileSync(
  KUBECONFIG,
  `apiVersion: v1
kind: Config
clusters: [{name: nowhere, cluster: {server: 'https://127.0.0.1:1'}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: nowhere, context: {cluster: nowhere, user: u}}]
current-context: nowhere
`,
);
const KEY = join(dir, 'id_test');
writeFileSync(KEY, 'not read before a connection\n');
const NOWHERE = ['--kubeconfig', KUBECONFIG, '--context', 'nowhere'];

test('every --help ends with the same exit codes, and exits 0', async () => {
  for (const args of [
    ['--help'],
    ['check', '--help'],
    ['rules', '--help'],
    ['join', '--help'],
    ['remove', '--help'],
    ['nodes', '--help'],
    ['mirrors', '--help'],
    ['mirrors', 'diff', '--help'],
    ['mirrors', 'apply', '--help'],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(r.stdout.endsWith(EXIT_CODES_HELP), `${args.join(' ')} does not end with the exit codes`);
  }
  // check --help used to print the whole top-level help, and rules --help was an unknown option (exit 2).
  assert.match((await cli(['check', '--help'])).stdout, /^Usage:\n {2}kube-windows check/);
  assert.doesNotMatch((await cli(['check', '--help'])).stdout, /kube-windows join/);
});

test('docs/check.md documents the same exit codes as --help', () => {
  const doc = readFileSync(resolve(__dirname, '..', '..', '..', 'docs', 'check.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Options and exit codes every command shares'));
  const rows = [...section.matchAll(/^\| `(\d)` \| (.*) \|$/gm)].map(
    (m) => [Number(m[1]), m[2]!.replace(/`/g, '')] as const,
  );
  assert.deepEqual(
    rows.map(([code]) => code),
    [EXIT.OK, EXIT.FAILED, EXIT.USAGE],
  );
  const help = EXIT_CODES_HELP.replace(/\n {5}/g, ' ');
  for (const [code, meaning] of rows)
    assert.ok(
      help.includes(`  ${code}  ${meaning.split(':')[0]}:`),
      `docs/check.md's meaning of ${code} is not --help's`,
    );
});

test('--context is required, with the same message, by every command that reaches a cluster', async () => {
  for (const args of [
    ['join', '--address', '10.0.0.5'],
    ['remove', '--address', '10.0.0.5'],
    ['nodes', 'services', 'win-a'],
    ['mirrors', 'apply'],
    ['mirrors', 'diff', '--key', KEY],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, EXIT.USAGE, args.join(' '));
    assert.equal(r.stderr, 'kube-windows: --context is required (a context of your kubeconfig)\n', args.join(' '));
  }
  const missing = await cli(['nodes', 'services', 'win-a', '--kubeconfig', KUBECONFIG, '--context', 'prod']);
  assert.equal(missing.code, EXIT.USAGE);
  assert.match(missing.stderr, /the kubeconfig has no context "prod" \(it has: nowhere\)/);
});

test('join: --user defaults to Administrator, as for nodes, mirrors and the VS Code join', async () => {
  // It used to be required by join alone ("--user is required").
  const r = await cli(['join', ...NOWHERE, '--via', 'byoh', '--address', '10.0.0.5', '--dry-run']);
  assert.equal(r.code, EXIT.OK, r.stderr);
  assert.match(r.stdout, /username=Administrator/);
});

test('-y/--yes is accepted by every command that changes something (join, remove, nodes, mirrors)', async () => {
  const join = await cli(['join', ...NOWHERE, '--via', 'byoh', '--address', '10.0.0.5', '--dry-run', '-y']);
  assert.equal(join.code, EXIT.OK, join.stderr);
  const remove = await cli([
    'remove',
    ...NOWHERE,
    '--via',
    'kubeadm',
    '--node',
    'win-a',
    '--address',
    '10.0.0.5',
    '--dry-run',
    '--yes',
  ]);
  assert.equal(remove.code, EXIT.OK, remove.stderr);
  // Refused for another reason than the option: --yes itself is known.
  const apply = await cli(['mirrors', 'apply', '--yes', '--concurrency', '0']);
  assert.match(apply.stderr, /--concurrency must be a positive whole number/);
});

test('SSH options are checked before anything runs: a bad --port or an unreadable --key is a usage error (2) for every command', async () => {
  // join used to check --port per host while joining (exit 1, one failure per host) and --key not at
  // all (each host failed: 1), while nodes and mirrors said 2.
  const port = await cli([
    'join',
    ...NOWHERE,
    '--via',
    'byoh',
    '--address',
    '10.0.0.5',
    '--address',
    '10.0.0.6',
    '--port',
    '70000',
  ]);
  assert.equal(port.code, EXIT.USAGE);
  assert.equal(port.stderr, 'kube-windows: --port must be a TCP port number\n');
  assert.equal(port.stdout, '', 'nothing ran');
  for (const args of [
    ['join', ...NOWHERE, '--via', 'byoh', '--address', '10.0.0.5'],
    ['nodes', 'services', 'win-a', ...NOWHERE],
    ['mirrors', 'apply', ...NOWHERE],
    ['remove', ...NOWHERE, '--via', 'kubeadm', '--address', '10.0.0.5'],
  ]) {
    const r = await cli([...args, '--key', join(dir, 'no-such-key')]);
    assert.equal(r.code, EXIT.USAGE, args.join(' '));
    assert.match(
      r.stderr,
      /^kube-windows: --key .*no-such-key: cannot read the key file \(ENOENT\)\n$/,
      args.join(' '),
    );
  }
});

test('--dry-run never acts: commands without a plan to show refuse it (2) instead of running for real', async () => {
  // nodes logs and nodes services (even with --restart) used to ignore --dry-run and run.
  for (const args of [
    ['nodes', 'logs', 'win-a', ...NOWHERE, '--dry-run'],
    ['nodes', 'services', 'win-a', ...NOWHERE, '--restart', 'kubelet', '--yes', '--dry-run'],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, EXIT.USAGE, args.join(' '));
    assert.match(r.stderr, /--dry-run goes with nodes reboot/);
  }
  const apply = await cli(['mirrors', 'apply', ...NOWHERE, '--dry-run']);
  assert.equal(apply.code, EXIT.USAGE);
  assert.match(apply.stderr, /"kube-windows mirrors diff" shows what apply would change/);
});

test('remove: --key or --user reaches the host for kubeadm reset (--key alone used to be ignored)', async () => {
  const base = ['remove', ...NOWHERE, '--via', 'kubeadm', '--node', 'win-a', '--address', '10.0.0.5', '--dry-run'];
  assert.doesNotMatch((await cli(base)).stdout, /kubeadm reset/);
  assert.match((await cli([...base, '--key', KEY])).stdout, /Run kubeadm reset on the host/);
  assert.match((await cli([...base, '--user', 'Administrator'])).stdout, /Run kubeadm reset on the host/);
});

test('choices are checked the same way everywhere: rules --format too', async () => {
  // rules --format xml used to print the text list (exit 0).
  const rules = await cli(['rules', '--format', 'xml']);
  assert.equal(rules.code, EXIT.USAGE);
  assert.equal(rules.stderr, 'kube-windows: --format must be text or json, not "xml"\n');
  const via = await cli(['join', ...NOWHERE, '--address', '10.0.0.5', '--via', 'ssh']);
  assert.equal(via.stderr, 'kube-windows: --via must be byoh or kubeadm, not "ssh"\n');
  const mode = await cli(['mirrors', 'apply', '--mode', 'fast']);
  assert.equal(mode.stderr, 'kube-windows: --mode must be ordered or wmco, not "fast"\n');
});

test('progress lines name what a finished plan did; Ctrl-C cancels after the current step with exit code 1', async () => {
  const end = { type: 'plan-end', outcome: 'done', durationMs: 1234 } as const;
  assert.equal(progressLine('', end as never, 'removed'), 'removed (1.2 s)');
  assert.equal(progressLine('10.0.0.5', end as never, 'joined'), '[10.0.0.5] joined (1.2 s)');
  assert.equal(
    progressLine('', { type: 'plan-end', outcome: 'failed', message: 'no\nmore', durationMs: 0 } as never),
    'failed: no (0.0 s)',
  );

  const stderr: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((s: string) => (stderr.push(s), true)) as typeof process.stderr.write;
  try {
    const code = await withCancel('the plan stops after the current step', async (signal) => {
      process.emit('SIGINT');
      assert.ok(signal.aborted);
      throw signal.reason;
    });
    assert.equal(code, EXIT.FAILED);
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(stderr, [
    'kube-windows: cancelling (the plan stops after the current step)\n',
    'kube-windows: cancelled\n',
  ]);
  assert.equal(process.listenerCount('SIGINT'), 0, 'the handler is removed');
});

// ---------------------------------------------------------------------------------------------
// Against a cluster and a Windows host

let rig: Rig;
before(async () => {
  rig = await startRig({
    hosts: 1,
    objects: [
      windowsNode('win-a', { build: '10.0.20348', address: hostAddress(0), byoh: true }),
      windowsNode('win-k', { build: '10.0.20348', address: '10.9.9.9', byoh: true }),
    ],
  });
});
after(() => rig.stop());

test('remove prints "removed" when done (it said "joined")', async () => {
  const r = await cli([
    'remove',
    '--kubeconfig',
    rig.kubeconfigPath,
    '--context',
    'emulator',
    '--via',
    'kubeadm',
    '--address',
    '10.9.9.9',
    '--poll-interval',
    '20',
  ]);
  assert.equal(r.code, EXIT.OK, r.stdout + r.stderr);
  assert.match(r.stdout, /\nremoved \(\d+\.\d s\)\n$/);
  assert.doesNotMatch(r.stdout, /joined/);
  assert.equal(rig.emu.get('Node', 'win-k'), undefined);
});

test('nodes: an SSH failure on the node is the operation failing (1), as for join and mirrors apply', async () => {
  // nodes used to exit 2 for connection, authentication and host key failures.
  const emptyKnownHosts = join(dir, 'empty_known_hosts');
  writeFileSync(emptyKnownHosts, '');
  const ssh = [
    '--kubeconfig',
    rig.kubeconfigPath,
    '--context',
    'emulator',
    '--key',
    rig.keyPath,
    '--port',
    String(rig.port),
    '--known-hosts',
    emptyKnownHosts,
  ];
  const r = await cli(['nodes', 'services', 'win-a', ...ssh]);
  assert.equal(r.code, EXIT.FAILED, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    /host key of \[127\.0\.0\.2\]:\d+ \(SHA256:[A-Za-z0-9+/]+\) is not known and was not accepted/,
  );
  assert.equal(rig.sims[0]!.state.opLog.length, 0, 'nothing ran on an unverified host');
  // The cluster side is still an environment error: no such node.
  assert.equal((await cli(['nodes', 'services', 'nope', ...ssh])).code, EXIT.USAGE);
});

test('--wmco-namespace, --olm-source and --olm-channel reach the BYOH plan; a malformed one is a usage error', async () => {
  const r = await cli([
    'join',
    ...NOWHERE,
    '--via',
    'byoh',
    '--address',
    '10.0.0.5',
    '--dry-run',
    '--wmco-namespace',
    'windows-ops',
    '--install-wmco',
    'Manual',
    '--olm-source',
    'my-catalog',
    '--olm-channel',
    'preview',
  ]);
  assert.equal(r.code, EXIT.OK, r.stderr);
  assert.match(r.stdout, /\/api\/v1\/namespaces\/windows-ops\/configmaps\/windows-instances/);
  assert.doesNotMatch(r.stdout, /openshift-windows-machine-config-operator/);
  assert.match(r.stdout, /^ {6}source: my-catalog$/m);
  assert.match(r.stdout, /^ {6}channel: preview$/m);
  const remove = await cli([
    'remove',
    ...NOWHERE,
    '--via',
    'byoh',
    '--address',
    '10.0.0.5',
    '--dry-run',
    '--wmco-namespace',
    'windows-ops',
  ]);
  assert.equal(remove.code, EXIT.OK, remove.stderr);
  assert.match(remove.stdout, /namespaces\/windows-ops\/configmaps\/windows-instances/);
  const bad = await cli([
    'join',
    ...NOWHERE,
    '--via',
    'byoh',
    '--address',
    '10.0.0.5',
    '--dry-run',
    '--wmco-namespace',
    'Windows_Ops',
  ]);
  assert.equal(bad.code, EXIT.USAGE);
  assert.equal(bad.stderr, 'kube-windows: --wmco-namespace "Windows_Ops" is not a valid namespace\n');
});

test('resumeLine: the steps completed and not, and the exact command, quoted for a shell; nothing after a done run', () => {
  const step = (id: string, outcome: 'applied' | 'skipped' | 'cancelled' | 'not-run', tookEffect?: boolean) => ({
    id,
    title: id,
    outcome,
    durationMs: 0,
    attempts: outcome === 'not-run' ? 0 : 1,
    ...(tookEffect === undefined ? {} : { tookEffect }),
  });
  const stopped = {
    planId: 'p',
    outcome: 'cancelled' as const,
    durationMs: 0,
    steps: [
      step('cordon', 'skipped'),
      step('drain', 'cancelled', true),
      step('restart', 'cancelled'),
      step('uncordon', 'not-run'),
    ],
  };
  assert.equal(
    resumeLine(stopped, ['nodes', 'reboot', 'win a', '--known-hosts', "/tmp/it's/known_hosts"]),
    "cancelled: 2 of 4 steps completed (cordon, drain); not done: restart, uncordon. To resume, run: kube-windows nodes reboot 'win a' --known-hosts '/tmp/it'\\''s/known_hosts'",
  );
  assert.equal(resumeLine({ ...stopped, outcome: 'done' }, []), undefined);
  assert.equal(
    commandLine(['join', '--payload-url', 'kubelet=https://user:pw@example.com/k.exe#sha256=ab']),
    "kube-windows join --payload-url 'kubelet=https://•••@example.com/k.exe#sha256=ab'",
  );
});
