// `kube-windows shell`, `nodes logs --path|--query|--out` and `nodes cordon|uncordon|drain` against
// the API emulator: the exec upgrade (path, query, subprotocol, command, channels, exit code), the
// node proxy to a kubelet double (the exact paths and query strings, the kubelet's refusals), and
// eviction with a PodDisruptionBudget. Also openContainerShell (what VS Code's terminal calls)
// with a tty: resize on channel 4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { linuxNode, namespace, pod, windowsNode } from '../support/kube-seed';
import { startKubeletDouble, type KubeletDouble } from '../support/kubelet-double';
import { KubeClient } from '../../src/cluster/kube-client';
import { loadKubeconfig, configForContext } from '../../src/cluster/kubeconfig';
import { openContainerShell } from '../../src/cluster/pod-exec';
import { runCli } from '../support/run-cli';

const run = (args: string[], input?: string) => runCli(args, { input: input ?? '', env: { SSH_AUTH_SOCK: '' } });

const running = (p: KubeObject, container?: string): KubeObject => {
  const spec = p.spec as { containers: { name: string; image: string }[] };
  (p.status as Record<string, unknown>).containerStatuses = spec.containers.map((c) => ({
    name: c.name,
    image: c.image,
    ready: true,
    restartCount: 0,
    state:
      container && c.name !== container
        ? { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' } }
        : { running: { startedAt: '2026-11-20T10:02:40Z' } },
  }));
  return p;
};

const LINUX_NODE = linuxNode('worker-1');
const WIN_NODE = windowsNode('win-a', { build: '10.0.20348' });
const winPod = (name: string, image: string) => running(pod(name, 'web', 'win-a', { windows: true, image }));

async function cluster(
  extra: KubeObject[] = [],
  kubelet?: KubeletDouble,
): Promise<{ emu: Emulator; base: string[]; restricted: string[] }> {
  const node = structuredClone(WIN_NODE);
  if (kubelet) Object.assign(node.status as object, kubelet.nodeStatus());
  const emu = await startEmulator({
    objects: [namespace('web'), node, LINUX_NODE, ...extra],
    tokens: {
      limited: {
        user: 'dev',
        deny: [
          { verb: 'create', resource: 'pods/exec' },
          { verb: 'get', resource: 'nodes/proxy' },
        ],
      },
    },
  });
  return {
    emu,
    base: ['--context', 'emu', '--kubeconfig', emu.kubeconfig({ context: 'emu' })],
    restricted: ['--context', 'dev', '--kubeconfig', emu.kubeconfig({ context: 'dev', token: 'limited' })],
  };
}

const noStack = (r: { stdout: string; stderr: string }): void =>
  assert.ok(!/\n\s+at /.test(r.stdout + r.stderr), `no stack trace:\n${r.stderr}`);

test('shell: the shell follows the image (Server Core, Nano Server, PowerShell 7, Linux), over pods/exec with v5.channel.k8s.io, stdin piped, the exit code returned', async () => {
  const c = await cluster([
    winPod('iis-7d9f8-abcde', 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022'),
    winPod('nano-1', 'mcr.microsoft.com/windows/nanoserver:ltsc2022'),
    winPod('pwsh-1', 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022'),
    running(pod('api-1', 'web', 'worker-1')),
  ]);
  try {
    const r = await run(['shell', 'iis-7d9f8-abcde', '-n', 'web', ...c.base], 'echo hello from iis\nexit 3\n');
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /hello from iis/);
    assert.match(r.stderr, /powershell\.exe exited with code 3/);
    const e = c.emu.execs[0]!;
    assert.equal(e.path, '/api/v1/namespaces/web/pods/iis-7d9f8-abcde/exec');
    assert.deepEqual(e.command, ['powershell.exe', '-NoLogo', '-NoProfile', '-Command', '-']);
    assert.equal(e.protocol, 'v5.channel.k8s.io');
    assert.deepEqual(e.offered.slice(0, 2), ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    assert.equal(e.container, 'iis-7d9f8');
    assert.deepEqual([e.stdin, e.stdout, e.stderr, e.tty], [true, true, true, false]);
    assert.match(e.query, /command=powershell\.exe&command=-NoLogo/);
    assert.equal(e.input, 'echo hello from iis\nexit 3\n');

    const nano = await run(['shell', 'nano-1', '-n', 'web', ...c.base], 'echo hi\n');
    assert.equal(nano.code, 0, nano.stderr);
    assert.deepEqual(c.emu.execs[1]!.command, ['cmd.exe']);
    assert.equal(c.emu.execs[1]!.stdinClosed, true, 'stdin ended with the v5 close signal');
    const pwsh = await run(['shell', 'pwsh-1', '-n', 'web', ...c.base], 'exit 0\n');
    assert.equal(pwsh.code, 0, pwsh.stderr);
    assert.deepEqual(c.emu.execs[2]!.command, ['pwsh.exe', '-NoLogo', '-NoProfile', '-Command', '-']);
    const linux = await run(['shell', 'api-1', '-n', 'web', ...c.base], 'nope\nexit 0\n');
    assert.equal(linux.code, 0);
    assert.deepEqual(c.emu.execs[3]!.command, ['sh']);
    assert.match(linux.stderr, /not found/, 'stderr of the shell on stderr without a tty');

    const forced = await run(['shell', 'nano-1', '-n', 'web', '--shell', 'powershell', ...c.base], 'exit 0\n');
    assert.equal(forced.code, 1);
    assert.deepEqual(c.emu.execs[4]!.command.slice(0, 1), ['powershell.exe']);
    assert.match(forced.stderr, /cannot find the file specified.*--shell/);
    noStack(forced);
  } finally {
    await c.emu.stop();
  }
});

test('shell: a missing pod, a container that is not running and a 403 on pods/exec are one line each, with kit exit codes', async () => {
  const crash = running(pod('crash-1', 'web', 'win-a', { windows: true }), 'other');
  const c = await cluster([crash, winPod('iis-1', 'mcr.microsoft.com/windows/servercore:ltsc2022')]);
  try {
    const missing = await run(['shell', 'nope', '-n', 'web', ...c.base]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^kube-windows: There is no pod "nope" in namespace "web"\.\n$/);
    const down = await run(['shell', 'crash-1', '-n', 'web', ...c.base]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /container crash-1 of web\/crash-1 is not running \(waiting: CrashLoopBackOff/);
    const noContainer = await run(['shell', 'iis-1', '-n', 'web', '-c', 'sidecar', ...c.base]);
    assert.equal(noContainer.code, 2);
    assert.match(noContainer.stderr, /has no container "sidecar" \(it has: iis-1\)/);
    const forbidden = await run(['shell', 'iis-1', '-n', 'web', ...c.restricted]);
    assert.equal(forbidden.code, 2, forbidden.stderr);
    assert.match(forbidden.stderr, /403 Forbidden.*`create` on `pods\/exec`/);
    assert.equal(forbidden.stderr.trim().split('\n').length, 1);
    const bad = await run(['shell', 'iis-1', '--shell', 'bash', ...c.base]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--shell must be cmd, powershell, pwsh or sh/);
    for (const r of [missing, down, forbidden]) noStack(r);
  } finally {
    await c.emu.stop();
  }
});

test('openContainerShell (the VS Code terminal): a tty session, resize on channel 4, the exit code at the end', async () => {
  const c = await cluster([winPod('nano-1', 'mcr.microsoft.com/windows/nanoserver:ltsc2022')]);
  try {
    const loaded = loadKubeconfig({ explicit: c.base[3]! });
    assert.ok(loaded.ok);
    const config = configForContext(loaded.config, 'emu');
    const session = await openContainerShell({
      kube: new KubeClient(config),
      config,
      namespace: 'web',
      pod: 'nano-1',
      tty: true,
      cols: 120,
      rows: 30,
    });
    let text = '';
    session.onData((t) => (text += t));
    const ended = new Promise<{ exitCode?: number; lost?: string }>((r) => session.onEnd(r));
    assert.equal(session.target.choice.shell, 'cmd');
    await new Promise((r) => setTimeout(r, 100));
    session.resize(100, 40);
    session.write('echo hi\r');
    await new Promise((r) => setTimeout(r, 100));
    session.write('exit 7\r');
    assert.deepEqual(await ended, { exitCode: 7 });
    assert.match(text, /Microsoft Windows \[Version 10\.0\.20348/);
    assert.match(text, /C:\\>echo hi\r\nhi/);
    const e = c.emu.execs[0]!;
    assert.equal(e.tty, true);
    assert.deepEqual(e.resizes, [
      { Width: 120, Height: 30 },
      { Width: 100, Height: 40 },
    ]);
  } finally {
    await c.emu.stop();
  }
});

const KUBELET_LOG =
  'I1120 10:02:31.101 server.go:484] "Kubelet version" kubeletVersion="v1.31.3"\nE1120 10:05:02.220 pod_workers.go:1301] "Error syncing pod" err="failed to \\"StartContainer\\""\n';
const CONTAINERD = [
  'time="2026-11-20T10:00:01Z" level=info msg="starting containerd"',
  'time="2026-11-20T10:00:02Z" level=error msg="hcs::CreateComputeSystem: error"',
  'time="2026-11-20T10:00:03Z" level=info msg="serving"',
].join('\n');

async function kubeletDouble(): Promise<KubeletDouble> {
  return startKubeletDouble({
    files: {
      'kubelet/kubelet.log': KUBELET_LOG,
      'kubelet/kubelet.err.log': 'E1120 fatal\n',
      'containerd/containerd.log': CONTAINERD,
      'kube-proxy/kube-proxy.log': 'I1120 proxier\n',
    },
    services: { containerd: { native: CONTAINERD }, kubelet: { file: 'kubelet/kubelet.log' } },
  });
}

test('nodes logs --path and --query: exactly GET /api/v1/nodes/NODE/proxy/logs/..., the kubelet double receives that path and query, the text goes to stdout', async () => {
  const kubelet = await kubeletDouble();
  const c = await cluster([], kubelet);
  try {
    const r = await run(['nodes', 'logs', 'win-a', ...c.base, '--path', 'kubelet/kubelet.log']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, KUBELET_LOG);
    const proxied = c.emu.requests.filter((q) => q.path.includes('/proxy/'));
    assert.deepEqual(
      proxied.map((q) => `${q.method} ${q.path}${q.query ? `?${q.query}` : ''}`),
      ['GET /api/v1/nodes/win-a/proxy/logs/kubelet/kubelet.log'],
    );
    assert.equal(c.emu.requests.length, 1, 'one request, nothing else');
    assert.deepEqual(kubelet.requests.at(-1), { method: 'GET', path: '/logs/kubelet/kubelet.log', query: '' });

    const before = Date.now();
    const q = await run([
      'nodes',
      'logs',
      'win-a',
      ...c.base,
      '--query',
      'containerd',
      '--tail',
      '2',
      '--since',
      '1h',
      '--pattern',
      'level=(error|info)',
    ]);
    assert.equal(q.code, 0, q.stderr);
    assert.equal(q.stdout, `${CONTAINERD.split('\n').slice(-2).join('\n')}\n`);
    const last = c.emu.requests.at(-1)!;
    assert.equal(last.path, '/api/v1/nodes/win-a/proxy/logs/');
    const params = new URLSearchParams(last.query);
    assert.deepEqual([...params.keys()], ['query', 'tailLines', 'sinceTime', 'pattern']);
    assert.equal(params.get('query'), 'containerd');
    assert.equal(params.get('tailLines'), '2');
    assert.equal(params.get('pattern'), 'level=(error|info)');
    const since = Date.parse(params.get('sinceTime')!);
    assert.match(params.get('sinceTime')!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.ok(Math.abs(before - 3_600_000 - since) < 5000, 'sinceTime is an hour ago');
    assert.equal(kubelet.requests.at(-1)!.query, last.query, 'the kubelet received the same query');

    const folder = await run(['nodes', 'logs', 'win-a', ...c.base, '--path', 'kubelet/']);
    assert.equal(folder.stdout, 'kubelet.err.log\nkubelet.log\n');

    const fileLogger = await run(['nodes', 'logs', 'win-a', ...c.base, '--query', 'kubelet', '--tail', '10']);
    assert.equal(fileLogger.code, 1);
    assert.match(fileLogger.stderr, /kubelet logs to a file.*--path \(on WMCO nodes: kubelet\/kubelet\.log\)/);

    const missing = await run(['nodes', 'logs', 'win-a', ...c.base, '--path', 'kubelet/nope.log']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /has no kubelet\/nope\.log \(404: 404 page not found\)/);

    const noNode = await run(['nodes', 'logs', 'win-zz', ...c.base, '--path', 'kubelet/kubelet.log']);
    assert.equal(noNode.code, 2);
    assert.match(noNode.stderr, /There is no node "win-zz"/);

    const usage = await run(['nodes', 'logs', 'win-a', ...c.base, '--path', 'kubelet/kubelet.log', '--tail', '5']);
    assert.equal(usage.code, 2);
    const escape = await run(['nodes', 'logs', 'win-a', ...c.base, '--path', '../../Windows/System32/config/SAM']);
    assert.equal(escape.code, 2);
    assert.match(escape.stderr, /may not leave the node's log folder/);
    const badTail = await run(['nodes', 'logs', 'win-a', ...c.base, '--query', 'kubelet', '--tail', '200000']);
    assert.equal(badTail.code, 2);
    assert.match(badTail.stderr, /--tail must be a whole number from 0 to 100000/);
    const badSince = await run(['nodes', 'logs', 'win-a', ...c.base, '--query', 'kubelet', '--since', 'yesterday']);
    assert.equal(badSince.code, 2);
    for (const x of [fileLogger, missing, noNode]) noStack(x);
  } finally {
    await c.emu.stop();
    await kubelet.stop();
  }
});

test('nodes logs: the node refusing (query off, handler off, 403 on nodes/proxy) says so, how to enable it, and offers SSH', async () => {
  const kubelet = await kubeletDouble();
  const c = await cluster([], kubelet);
  try {
    kubelet.set({ enableSystemLogQuery: false });
    const off = await run(['nodes', 'logs', 'win-a', ...c.base, '--query', 'kubelet']);
    assert.equal(off.code, 1);
    assert.match(off.stderr, /ignored the log query.*enableSystemLogQuery: true.*NodeLogQuery=true/);
    // The node's kubelet (1.31) still needs the gate: the refusal read its version to say so.
    assert.match(off.stderr, /its kubelet is 1\.31; from 1\.36 the gate is on/);
    assert.match(off.stderr, /Over SSH instead: kube-windows nodes logs win-a --context C --out DIR --key FILE/);
    // the folder still works without the query
    assert.equal(
      (await run(['nodes', 'logs', 'win-a', ...c.base, '--path', 'kube-proxy/kube-proxy.log'])).stdout,
      'I1120 proxier\n',
    );

    kubelet.set({ enableSystemLogHandler: false });
    const disabled = await run(['nodes', 'logs', 'win-a', ...c.base, '--path', 'kubelet/kubelet.log']);
    assert.equal(disabled.code, 1);
    assert.match(
      disabled.stderr,
      /does not serve its logs \(logs endpoint is disabled\.\).*enableSystemLogHandler: true/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'kw-logs-'));
    try {
      const noKey = await run(['nodes', 'logs', 'win-a', ...c.base, '--out', dir]);
      assert.equal(noKey.code, 1);
      assert.match(noKey.stderr, /enableSystemLogHandler[\s\S]*over SSH instead needs a key: pass --key FILE/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const forbidden = await run(['nodes', 'logs', 'win-a', ...c.restricted, '--path', 'kubelet/kubelet.log']);
    assert.equal(forbidden.code, 1);
    assert.match(forbidden.stderr, /403.*RBAC `get` on the `nodes\/proxy` resource/);
    for (const x of [off, disabled, forbidden]) noStack(x);
  } finally {
    await c.emu.stop();
    await kubelet.stop();
  }
});

test('nodes logs --out DIR: the whole log folder over the API (listing, then each file), names kept inside DIR, the size cap named', async () => {
  const kubelet = await kubeletDouble();
  kubelet.set({
    files: {
      'kubelet/kubelet.log': KUBELET_LOG,
      'containerd/containerd.log': CONTAINERD,
      'big.log': 'x'.repeat(3000),
      'we?ird#name.log': 'odd\n',
    },
  });
  const c = await cluster([], kubelet);
  const dir = mkdtempSync(join(tmpdir(), 'kw-logs-'));
  try {
    const r = await run(['nodes', 'logs', 'win-a', ...c.base, '--out', dir, '--max-size', '0.0005']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /Collected 3 log files.*through the API \(node proxy, no SSH\).*Skipped 1 file \(.*big\.log/,
    );
    const [folder] = readdirSync(dir);
    assert.match(folder!, /^win-a-\d{8}-\d{6}$/);
    assert.equal(readFileSync(join(dir, folder!, 'kubelet', 'kubelet.log'), 'utf8'), KUBELET_LOG);
    assert.equal(readFileSync(join(dir, folder!, 'we?ird#name.log'.replace(/[?]/g, '_')), 'utf8'), 'odd\n');
    assert.ok(!existsSync(join(dir, folder!, 'big.log')));
    assert.ok(!readdirSync(join(dir, folder!)).some((f) => f.endsWith('.part')), 'no partial file left');
    assert.match(readFileSync(join(dir, folder!, 'SKIPPED.txt'), 'utf8'), /big\.log\t3000\tover the/);
    const paths = c.emu.requests.map((q) => q.path);
    assert.ok(paths.includes('/api/v1/nodes/win-a/proxy/logs/'));
    assert.ok(paths.includes('/api/v1/nodes/win-a/proxy/logs/kubelet/'));
    assert.ok(paths.includes('/api/v1/nodes/win-a/proxy/logs/we%3Fird%23name.log'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await c.emu.stop();
    await kubelet.stop();
  }
});

test('nodes cordon, uncordon and drain: the reboot plan steps; emptyDir named, a question without --yes, a PDB blocks and is named, DaemonSet pods left', async () => {
  const web = pod('web-5c7d9-abcde', 'web', 'win-a', { windows: true, labels: { app: 'web' } });
  (web.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5c7d9', uid: 'u1', controller: true },
  ];
  const cache = pod('cache-1', 'web', 'win-a', { windows: true });
  (cache.spec as { volumes?: unknown[] }).volumes = [{ name: 'scratch', emptyDir: {} }];
  const ds = pod('node-exporter-x1', 'web', 'win-a', { windows: true });
  (ds.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'node-exporter', uid: 'u2', controller: true },
  ];
  const pdb: KubeObject = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web-pdb', namespace: 'web', generation: 1 },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
  };
  const c = await cluster([web, cache, ds, pdb]);
  try {
    const cordon = await run(['nodes', 'cordon', 'win-a', ...c.base]);
    assert.equal(cordon.code, 0, cordon.stderr);
    assert.match(cordon.stdout, /win-a cordoned\./);
    assert.equal((c.emu.get('Node', 'win-a')!.spec as { unschedulable?: boolean }).unschedulable, true);
    const patch = c.emu.requests.find((q) => q.method === 'PATCH')!;
    assert.equal(patch.path, '/api/v1/nodes/win-a');
    assert.match((await run(['nodes', 'cordon', 'win-a', ...c.base])).stdout, /already cordoned/);
    const uncordon = await run(['nodes', 'uncordon', 'win-a', ...c.base]);
    assert.equal(uncordon.code, 0);
    assert.equal((c.emu.get('Node', 'win-a')!.spec as { unschedulable?: boolean }).unschedulable, undefined);

    const emptyDir = await run(['nodes', 'drain', 'win-a', ...c.base, '--yes']);
    assert.equal(emptyDir.code, 1);
    assert.match(emptyDir.stderr, /web\/cache-1 use emptyDir volumes.*--delete-emptydir-data/);
    assert.equal(
      (c.emu.get('Node', 'win-a')!.spec as { unschedulable?: boolean }).unschedulable,
      undefined,
      'nothing done before the consent',
    );

    const ask = await run(['nodes', 'drain', 'win-a', ...c.base, '--delete-emptydir-data']);
    assert.equal(ask.code, 2);
    assert.match(ask.stderr, /Cordon win-a and evict 2 pods.*no terminal to ask on; pass --yes/);

    const blocked = await run([
      'nodes',
      'drain',
      'win-a',
      ...c.base,
      '--delete-emptydir-data',
      '--yes',
      '--eviction-retry',
      '0',
      '--poll-interval',
      '30',
    ]);
    assert.equal(blocked.code, 1, blocked.stderr);
    assert.match(blocked.stdout, /leaving web\/node-exporter-x1 \(a DaemonSet pod\)/);
    assert.match(blocked.stdout, /evicted web\/cache-1/);
    assert.match(
      blocked.stdout,
      /blocked by the PodDisruptionBudget web\/web-pdb: web\/web-5c7d9-abcde \(The disruption budget web-pdb needs 1 healthy pods and has 1 currently\)/,
    );
    assert.match(blocked.stdout, /stays cordoned.*run the drain again/);
    const evictions = c.emu.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/eviction'));
    assert.deepEqual(
      evictions.map((q) => `${q.path} ${q.status}`),
      ['/api/v1/namespaces/web/pods/cache-1/eviction 201', '/api/v1/namespaces/web/pods/web-5c7d9-abcde/eviction 429'],
    );
    noStack(blocked);

    c.emu.patch('PodDisruptionBudget', 'web-pdb', 'web', { status: { disruptionsAllowed: 1 } });
    const done = await run(['nodes', 'drain', 'win-a', ...c.base, '--yes', '--timeout', '1', '--poll-interval', '30']);
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.match(done.stdout, /win-a is drained and stays cordoned/);
    assert.deepEqual(
      c.emu.list('Pod').map((p) => p.metadata.name),
      ['node-exporter-x1'],
    );
  } finally {
    await c.emu.stop();
  }
});
