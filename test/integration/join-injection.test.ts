// Injection: values with quotes, ";", "$()", backticks and newlines, wherever a user or a host can
// put them. They either reach the host as exactly the same string (never as code), or are refused
// with a clear message before anything is contacted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDirectories, fileHash, resolveName } from '../../src/core/windows/host-ops';
import { addressProblem, userProblem, joinPlan, JoinInputError } from '../../src/bootstrap/join';
import { buildByohJoinPlan, type ByohContext } from '../../src/bootstrap/byoh';
import { runPlan } from '../../src/bootstrap/runner';
import { HOSTILE } from '../support/hostile-strings';
import { startRig } from '../support/join-rig';
import { namespace, openshiftClusterConfig, wmcoCsv, WMCO_NAMESPACE } from '../support/kube-seed';
import { attachWmcoStandin } from '../support/wmco-standin';
import type { KubeObject } from '../support/kube-api-emulator';

const NASTY = [
  "a'b",
  'a;b',
  'a$(calc)b',
  'a`nb',
  'a\nb',
  '"a"',
  "'; Remove-Item -Recurse C:\\ ; '",
  '$env:PATH',
  'a\u2019b',
];

test('hostile paths and names reach the simulated host as exactly the strings sent, through SSH and PowerShell', async () => {
  const rig = await startRig({ hosts: 1 });
  try {
    const host = rig.hostFor(0);
    const values = [...HOSTILE.filter((v) => v.length > 0 && !/[\uD800-\uDFFF]/.test(v)), ...NASTY];
    for (const v of values) {
      const path = `C:\\k\\${v}`;
      await host.run(ensureDirectories([path]), undefined);
      await host.run(fileHash(`${path}\\x`), undefined);
      await host.run(resolveName(v), undefined);
    }
    const seen = rig.sims[0]!.state.opLog;
    for (const v of values) {
      assert.ok(
        seen.some(
          (r) =>
            r.name === 'ensure-directories' && JSON.stringify(r.params['Paths']) === JSON.stringify([`C:\\k\\${v}`]),
        ),
        `directory ${JSON.stringify(v)} arrived intact`,
      );
      assert.ok(
        seen.some((r) => r.name === 'resolve-name' && r.params['Name'] === v),
        `name ${JSON.stringify(v)} arrived intact`,
      );
    }
    // Only our ops ran: nothing else was parsed out of the values.
    assert.deepEqual([...new Set(seen.map((r) => r.name))].sort(), ['ensure-directories', 'file-hash', 'resolve-name']);
    host.close();
  } finally {
    await rig.stop();
  }
});

test('hostile addresses and user names are refused before anything is contacted, with the value shown escaped', () => {
  for (const v of [
    '10.0.0.1;calc',
    '$(whoami).example.com',
    '`id`',
    'a\nb',
    "a'b",
    '10.0.0.1 && calc',
    'host"name',
    '',
  ]) {
    const problem = addressProblem(v, 'byoh');
    assert.ok(problem, `address ${JSON.stringify(v)} refused`);
    assert.ok(!problem.includes('\n'), 'the message has no raw newline');
  }
  assert.equal(addressProblem('win-1.example.com', 'byoh'), undefined);
  assert.equal(addressProblem('10.0.0.7', 'byoh'), undefined);
  assert.match(addressProblem('fd00::7', 'byoh') ?? '', /IPv6/);
  assert.equal(addressProblem('fd00::7', 'kubeadm'), undefined);
  for (const v of ['a;b', 'a\nb', 'a"b', 'a:b', 'a|b', 'a=b', 'a\u0000b', '', 'a\\b\\c'])
    assert.ok(userProblem(v), `user ${JSON.stringify(v)} refused`);
  // Legal in Windows account names, and kept exactly: they never meet a shell.
  for (const v of ["o'brien", 'svc$', 'a$(b)', 'tick`s', 'CORP\\admin']) assert.equal(userProblem(v), undefined, v);
  assert.throws(
    () =>
      joinPlan({
        kube: undefined as never,
        host: undefined as never,
        address: '10.0.0.1;calc',
        user: 'Administrator',
        via: 'byoh',
      }),
    JoinInputError,
  );
});

test("a user named o'brien$(x)`y joins: the ConfigMap value carries the name exactly, and the host saw only our ops", async () => {
  const user = "o'brien$(x)`y";
  const rig = await startRig({
    hosts: 1,
    user,
    objects: [namespace(WMCO_NAMESPACE), ...openshiftClusterConfig({ hybridOverlay: true }), wmcoCsv('Succeeded')],
    host: () => ({
      hostname: 'WIN-Q0',
      containersFeature: 'Enabled',
      dns: { 'api-int.test.example.com': ['10.0.0.2'] },
    }),
  });
  try {
    rig.emu.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cloud-private-key', namespace: WMCO_NAMESPACE },
      data: { 'private-key.pem': Buffer.from(readFileSync(rig.keyPath, 'utf8')).toString('base64') },
    } as KubeObject);
    const wmco = attachWmcoStandin(rig.emu, {
      hosts: new Map([[rig.addresses[0]!, { hostname: 'WIN-Q0', build: '10.0.20348' }]]),
      stepMs: 10,
    });
    const host = rig.hostFor(0);
    const opts = {
      kube: rig.kube,
      host,
      address: rig.addresses[0]!,
      user,
      resolver: { lookup4: async (n: string) => [n], reverse: async () => [] },
      pollMs: 20,
      timeouts: { node: 10_000 },
    };
    const result = await runPlan(buildByohJoinPlan(opts), { opts, state: {} } as ByohContext, {});
    host.close();
    wmco.stop();
    assert.equal(result.outcome, 'done', JSON.stringify(result.error));
    const cm = rig.emu.get('ConfigMap', 'windows-instances', WMCO_NAMESPACE) as KubeObject & {
      data: Record<string, string>;
    };
    assert.equal(cm.data[rig.addresses[0]!], `username=${user}`);
    assert.ok(rig.sims[0]!.state.opLog.every((r) => r.user === user));
    assert.deepEqual([...new Set(rig.sims[0]!.state.opLog.map((r) => r.name))].sort(), [
      'authorized-keys',
      'host-facts',
      'resolve-name',
    ]);
  } finally {
    await rig.stop();
  }
});

test('CLI: hostile --address and --user are refused (exit 2, one line, nothing contacted); a key path with quotes and $() works', async () => {
  const rig = await startRig({ hosts: 1, objects: [] });
  try {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['dist/cli.js', ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, SSH_AUTH_SOCK: '' },
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.on('close', (code) => resolve({ code, out }));
      });
    const base = [
      'join',
      '--kubeconfig',
      rig.kubeconfigPath,
      '--context',
      'emulator',
      '--port',
      String(rig.port),
      '--known-hosts',
      rig.knownHostsPath,
      '--via',
      'kubeadm',
    ];
    const before = rig.emu.requests.length;
    const badAddress = await run([
      ...base,
      '--user',
      'Administrator',
      '--key',
      rig.keyPath,
      '--address',
      '127.0.0.2;$(touch /tmp/kw-pwned)',
    ]);
    assert.equal(badAddress.code, 2);
    assert.match(
      badAddress.out,
      /^kube-windows: --address "127\.0\.0\.2;\$\(touch \/tmp\/kw-pwned\)": an address has no spaces\.\n$/,
    );
    const badUser = await run([
      ...base,
      '--user',
      'Admin\nistrator',
      '--key',
      rig.keyPath,
      '--address',
      rig.addresses[0]!,
    ]);
    assert.equal(badUser.code, 2);
    assert.match(badUser.out, /--user "Admin\\nistrator" contains a character/);
    assert.equal(rig.emu.requests.length, before, 'the cluster was not contacted');
    assert.equal(rig.sims[0]!.state.opLog.length, 0, 'the host was not contacted');
    // A local key path full of shell syntax is just a path.
    const oddKey = join(rig.dir, "key '; $(touch x) `y`");
    copyFileSync(rig.keyPath, oddKey);
    const dry = await run([
      ...base,
      '--user',
      'Administrator',
      '--key',
      oddKey,
      '--address',
      rig.addresses[0]!,
      '--dry-run',
      '--payload',
      rig.dir,
    ]);
    // No payload files in rig.dir: a clear payload error, not a shell error.
    assert.equal(dry.code, 2);
    assert.match(dry.out, /needs containerd, kubelet, kubeadm/);
  } finally {
    await rig.stop();
  }
});
