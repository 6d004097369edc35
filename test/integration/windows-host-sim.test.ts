// The simulated Windows host (test/support/windows-host-sim) driven by a plain ssh2 client with the
// exact commands the engine builds from src/core/windows/host-ops.ts: ops, SFTP, faults, reboot, auth.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Client, utils, type SFTPWrapper } from 'ssh2';
import { powershellCommand, encodeCommand } from '../../src/core/windows/powershell';
import * as ops from '../../src/core/windows/host-ops';
import { sampleOps } from '../support/sample-ops';
import type { HostOp } from '../../src/core/windows/host-ops';
import { startWindowsHostSim, type SimHost } from '../support/windows-host-sim';
import { HOSTILE } from '../support/hostile-strings';
import { sshKeyPair } from '../support/ssh-keys';

const admin = sshKeyPair();
const other = sshKeyPair();
const intruder = sshKeyPair();
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

function connect(sim: SimHost, username = 'Administrator', privateKey = admin.private): Promise<Client> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    const hostKey = Buffer.from(sim.hostKeyPublic.split(' ')[1]!, 'base64');
    c.once('ready', () => {
      c.setNoDelay(true); // else every exec waits on delayed ACKs (~90 ms)
      resolve(c);
    });
    c.once('error', reject);
    c.connect({
      host: sim.host,
      port: sim.port,
      username,
      privateKey,
      readyTimeout: 5000,
      hostVerifier: (key: Buffer) => key.equals(hostKey),
    });
  });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCommand(c: Client, command: string, timeoutMs = 5000): Promise<Run> {
  return new Promise((resolve, reject) => {
    c.exec(command, (err, ch) => {
      if (err) return reject(err);
      let stdout = '';
      let stderr = '';
      let code: number | null = null;
      const t = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      ch.on('data', (d: Buffer) => (stdout += d.toString()));
      ch.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      ch.on('exit', (n: number | null) => (code = n));
      ch.on('close', () => {
        clearTimeout(t);
        resolve({ code, stdout, stderr });
      });
    });
  });
}

const run = (c: Client, op: HostOp<unknown>): Promise<Run> => runCommand(c, powershellCommand(op.script).join(' '));

async function ok<R>(c: Client, op: HostOp<R>): Promise<R> {
  const r = await run(c, op as HostOp<unknown>);
  assert.equal(r.code, 0, `${op.name} failed: ${r.stderr}`);
  return op.parse(r.stdout);
}

function sftpOf(c: Client): Promise<SFTPWrapper> {
  return new Promise((resolve, reject) => c.sftp((err, s) => (err ? reject(err) : resolve(s))));
}

function put(s: SFTPWrapper, path: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => s.writeFile(path, data, (err) => (err ? reject(err) : resolve())));
}

/** Resolves when the client's connection closes. */
const closed = (c: Client): Promise<void> => new Promise((r) => c.once('close', () => r()));

describe('simulated Windows host', () => {
  let sim: SimHost;
  let c: Client;
  before(async () => {
    sim = await startWindowsHostSim({
      users: { Administrator: [admin.public], builder: [other.public] },
      administrators: ['Administrator'],
      hostname: 'WIN-BYOH-01',
      domain: 'corp.example.com',
      services: { docker: { status: 'Running' } },
      dns: { 'api-int.test.example.com': ['10.0.0.5'] },
      urls: { 'https://dl.example.com/kubeadm.exe': 'MZ kubeadm' },
      rebootDelayMs: 50,
      rebootDurationMs: 300,
    });
    c = await connect(sim);
  });
  after(async () => {
    c.end();
    await sim.stop();
  });

  test('host-facts answers with the state, in the shape HostFacts declares', async () => {
    const f = await ok(c, ops.hostFacts());
    assert.equal(f.hostname, 'WIN-BYOH-01');
    assert.equal(f.fqdn, 'WIN-BYOH-01.corp.example.com');
    assert.equal(f.build, 20348);
    assert.equal(f.containersFeature, 'Disabled');
    assert.deepEqual(f.services, { docker: 'Running', containerd: null, kubelet: null });
    assert.equal(f.defaultRouteIPv4, '10.0.140.25');
    assert.deepEqual(f.adapters, [{ name: 'Ethernet0', ipv4: ['10.0.140.25'] }]);
    assert.equal(f.isAdministrator, true);
  });

  test('authorized-keys: an administrator sees administrators_authorized_keys; other users cannot read it', async () => {
    assert.deepEqual((await ok(c, ops.authorizedKeys())).keys, [admin.public]);
    const b = await connect(sim, 'builder', other.private);
    const denied = await run(b, ops.authorizedKeys());
    assert.equal(denied.code, 1);
    assert.match(
      denied.stderr,
      /Access to the path 'C:\\ProgramData\\ssh\\administrators_authorized_keys' is denied\./,
    );
    assert.equal((await ok(b, ops.hostFacts())).isAdministrator, false);
    b.end();
  });

  test('resolve-name: DNS table, own names, literals, unknown names', async () => {
    assert.deepEqual(await ok(c, ops.resolveName('api-int.test.example.com')), { addresses: ['10.0.0.5'] });
    assert.deepEqual((await ok(c, ops.resolveName('win-byoh-01.corp.example.com'))).addresses, ['10.0.140.25']);
    const missing = await ok(c, ops.resolveName('nowhere.example.com'));
    assert.deepEqual(missing.addresses, []);
    assert.match(missing.error ?? '', /No such host/);
  });

  test('parameters are read from the parse tree exactly, hostile values included', async () => {
    for (const value of HOSTILE.filter((v) => !v.includes('\0'))) {
      await ok(c, ops.resolveName(value));
      const last = sim.state.opLog[sim.state.opLog.length - 1]!;
      assert.equal(last.name, 'resolve-name');
      assert.deepEqual(last.params, { Name: value }, JSON.stringify(value));
    }
    await ok(c, ops.ensureDirectories(['C:\\a\u2019b', "C:\\c'd"]));
    assert.deepEqual(sim.state.opLog[sim.state.opLog.length - 1]!.params, { Paths: ['C:\\a\u2019b', "C:\\c'd"] });
    await ok(c, ops.ensureDirectories(['C:\\single']));
    assert.deepEqual(sim.state.opLog[sim.state.opLog.length - 1]!.params, { Paths: ['C:\\single'] });
  });

  test('anything but the engine PowerShell form is refused like cmd.exe; broken scripts and unknown ops fail', async () => {
    const r = await runCommand(c, 'whoami');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /'whoami' is not recognized/);
    const plain = await runCommand(c, `powershell -Command "Get-Date"`);
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /'powershell' is not recognized/);
    const broken = await runCommand(c, powershellCommand('# kube-windows op: host-facts\n$x = (').join(' '));
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /does not parse/);
    const unwrapped = await runCommand(
      c,
      [
        'powershell',
        '-NoProfile',
        '-NonInteractive',
        '-ExecutionPolicy',
        'Bypass',
        '-EncodedCommand',
        encodeCommand('# kube-windows op: host-facts\n'),
      ].join(' '),
    );
    assert.equal(unwrapped.code, 1);
    const unknown = await runCommand(c, powershellCommand("# kube-windows op: format-disk\n$Disk = 'C'\n").join(' '));
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown op/);
  });

  test('sftp upload to a temporary file + commit-upload; corrupt uploads are deleted; missing directories fail', async () => {
    await ok(c, ops.ensureDirectories(['C:\\k']));
    const s = await sftpOf(c);
    const data = Buffer.from('MZ kubelet binary');
    await put(s, '/C:/k/kubelet.exe.kw-old.tmp', Buffer.from('leftover'));
    await put(s, '/C:/k/kubelet.exe.kw-1.tmp', data);
    assert.deepEqual(await ok(c, ops.commitUpload('C:\\k\\kubelet.exe.kw-1.tmp', 'C:\\k\\kubelet.exe', sha(data))), {
      moved: true,
    });
    assert.deepEqual(await ok(c, ops.fileHash('C:\\K\\KUBELET.EXE')), { exists: true, sha256: sha(data) });
    assert.deepEqual(await ok(c, ops.readTextFile('C:\\k\\kubelet.exe')), { exists: true, text: 'MZ kubelet binary' });
    assert.deepEqual(await ok(c, ops.readTextFile('C:\\k\\none.txt')), { exists: false, text: '' });
    assert.equal(sim.state.files.has('c:\\k\\kubelet.exe.kw-old.tmp'), false, 'leftover temporaries are removed');

    await put(s, 'C:/k/kubelet.exe.kw-2.tmp', Buffer.from('garbage'));
    const bad = await run(c, ops.commitUpload('C:\\k\\kubelet.exe.kw-2.tmp', 'C:\\k\\kubelet.exe', sha(data)));
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /The uploaded file is corrupt \(SHA-256 [0-9a-f]{64}, expected [0-9a-f]{64}\); it was deleted and C:\\k\\kubelet.exe was left as it was\./,
    );
    assert.equal((await ok(c, ops.fileHash('C:\\k\\kubelet.exe.kw-2.tmp'))).exists, false);
    assert.equal((await ok(c, ops.fileHash('C:\\k\\kubelet.exe'))).sha256, sha(data));

    await assert.rejects(
      put(s, '/C:/nope/x.exe', data),
      (e: Error & { code?: number }) => e.code === utils.sftp.STATUS_CODE.NO_SUCH_FILE,
    );
    s.end();
  });

  test('dropAfterSftpBytes: the connection goes mid-upload and a partial temporary file remains', async () => {
    const d = await connect(sim);
    const s = await sftpOf(d);
    sim.dropAfterSftpBytes(40_000);
    const gone = closed(d);
    // ssh2's writeFile never calls back once the connection is gone: wait for the close instead.
    s.writeFile('/C:/k/big.bin.kw-9.tmp', Buffer.alloc(100_000, 7), () => undefined);
    await gone;
    const partial = sim.state.files.get('c:\\k\\big.bin.kw-9.tmp');
    assert.ok(
      partial && partial.data.length > 0 && partial.data.length < 100_000,
      `partial length ${partial?.data.length}`,
    );
    // The fault is consumed: the next upload succeeds.
    const e = await connect(sim);
    const s2 = await sftpOf(e);
    await put(s2, '/C:/k/big.bin.kw-9.tmp', Buffer.alloc(100_000, 7));
    assert.equal(sim.state.files.get('c:\\k\\big.bin.kw-9.tmp')?.data.length, 100_000);
    e.end();
  });

  test('failOp, dropOnOp before/after and hangOp are consumed, then the op works', async () => {
    sim.failOp('file-hash', { message: 'Access is denied.' });
    const f = await run(c, ops.fileHash('C:\\k\\kubelet.exe'));
    assert.equal(f.code, 1);
    assert.match(f.stderr, /Access is denied\./);
    assert.equal((await ok(c, ops.fileHash('C:\\k\\kubelet.exe'))).exists, true);

    let d = await connect(sim);
    sim.dropOnOp('ensure-directories', { after: 'before' });
    // The channel closes without an exit status: what a client sees when the link drops.
    assert.deepEqual(await run(d, ops.ensureDirectories(['C:\\before'])), { code: null, stdout: '', stderr: '' });
    assert.equal(sim.state.directories.has('c:\\before'), false);

    d = await connect(sim);
    sim.dropOnOp('ensure-directories', { after: 'after' });
    assert.deepEqual(await run(d, ops.ensureDirectories(['C:\\after'])), { code: null, stdout: '', stderr: '' });
    assert.equal(sim.state.directories.has('c:\\after'), true, 'the op ran before the connection dropped');
    d = await connect(sim);
    assert.deepEqual(await ok(d, ops.ensureDirectories(['C:\\after'])), { created: [] });

    sim.hangOp('service-state');
    await assert.rejects(runCommand(d, powershellCommand(ops.serviceState('sshd').script).join(' '), 300), /timeout/);
    d.end();
    assert.equal((await ok(c, ops.serviceState('sshd'))).status, 'Running');
  });

  test('auth: unknown keys, unknown users and passwords are rejected', async () => {
    await assert.rejects(connect(sim, 'Administrator', intruder.private), /authentication/i);
    await assert.rejects(connect(sim, 'Guest', admin.private), /authentication/i);
    await assert.rejects(
      connect(sim, 'builder', admin.private),
      /authentication/i,
      'administrators_authorized_keys is for administrators only',
    );
    // Key rotation: the new key works, the old one no longer does.
    sim.setAuthorizedKeys('builder', [intruder.public]);
    (await connect(sim, 'builder', intruder.private)).end();
    await assert.rejects(connect(sim, 'builder', other.private), /authentication/i);
    sim.setAuthorizedKeys('builder', [other.public]);
    await assert.rejects(
      new Promise<void>((resolve, reject) => {
        const x = new Client();
        x.once('ready', () => resolve());
        x.once('error', reject);
        x.connect({
          host: sim.host,
          port: sim.port,
          username: 'Administrator',
          password: 'hunter2',
          readyTimeout: 5000,
        });
      }),
      /authentication/i,
    );
  });

  test('containerd archive, services, firewall, download', async () => {
    const s = await sftpOf(c);
    await put(s, '/C:/k/containerd-1.7.27-windows-amd64.tar.gz', Buffer.from('tgz'));
    s.end();
    const dest = 'C:\\Program Files\\containerd';
    const archive = 'C:\\k\\containerd-1.7.27-windows-amd64.tar.gz';
    assert.deepEqual(await ok(c, ops.expandArchive(archive, dest, sha('tgz'), 1)), { changed: true });
    assert.deepEqual(await ok(c, ops.expandArchive(archive, dest, sha('tgz'), 1)), { changed: false });
    assert.equal((await ok(c, ops.fileHash(`${dest}\\containerd.exe`))).exists, true);
    const missing = await run(c, ops.expandArchive('C:\\k\\nope.tar.gz', 'C:\\k\\nope', sha('x')));
    assert.equal(missing.code, 1);

    const spec = {
      name: 'containerd',
      binaryPathName: `"${dest}\\containerd.exe" --run-service`,
      displayName: 'containerd',
      description: 'OpenShift managed containerd',
      dependsOn: [],
    };
    assert.deepEqual(await ok(c, ops.ensureService(spec)), { created: true, changed: true });
    assert.deepEqual(await ok(c, ops.ensureService(spec)), { created: false, changed: false });
    assert.deepEqual(
      await ok(c, ops.ensureService({ ...spec, binaryPathName: spec.binaryPathName + ' --log-level debug' })),
      { created: false, changed: true },
    );
    assert.deepEqual(await ok(c, ops.startService('containerd')), { status: 'Running' });
    assert.deepEqual(await ok(c, ops.serviceState('containerd')), {
      exists: true,
      status: 'Running',
      startType: 'Auto',
      binaryPathName: spec.binaryPathName + ' --log-level debug',
    });

    // kubelet cannot start before kubeadm join has written its configuration.
    await ok(
      c,
      ops.ensureService({
        name: 'kubelet',
        binaryPathName: 'C:\\k\\kubelet.exe --windows-service',
        displayName: 'kubelet',
        description: 'kubelet',
        dependsOn: ['containerd'],
      }),
    );
    const k = await run(c, ops.startService('kubelet'));
    assert.equal(k.code, 1);
    assert.match(k.stderr, /The service did not start/);
    const none = await run(c, ops.startService('nosuch'));
    assert.match(none.stderr, /Cannot find any service with service name 'nosuch'/);

    assert.deepEqual(await ok(c, ops.ensureFirewallRule('kubelet', 10250)), { changed: true });
    assert.deepEqual(await ok(c, ops.ensureFirewallRule('kubelet', 10250)), { changed: false });

    assert.deepEqual(
      await ok(c, ops.downloadFile('https://dl.example.com/kubeadm.exe', 'C:\\k\\kubeadm.exe', sha('MZ kubeadm'))),
      { changed: true },
    );
    assert.deepEqual(
      await ok(c, ops.downloadFile('https://dl.example.com/kubeadm.exe', 'C:\\k\\kubeadm.exe', sha('MZ kubeadm'))),
      { changed: false },
    );
    const wrong = await run(
      c,
      ops.downloadFile('https://dl.example.com/kubeadm.exe', 'C:\\k\\other.exe', sha('something else')),
    );
    assert.match(wrong.stderr, /has SHA-256 [0-9a-f]{64}, expected [0-9a-f]{64}; it was deleted\./);
    assert.equal(sim.state.files.has('c:\\k\\other.exe.kw-download.tmp'), false);
  });

  test('kubeadm join: wrong token, success with the hook, already joined; reset', async () => {
    const joined: { nodeName: string; build: string }[] = [];
    sim.expectedJoin = {
      token: 'abcdef.0123456789abcdef',
      caCertHash: 'sha256:' + 'a'.repeat(64),
      endpoint: '10.0.0.5:6443',
    };
    sim.onKubeadmJoin = (info) => void joined.push(info);
    const params = {
      kubeadmPath: 'C:\\k\\kubeadm.exe',
      apiServerEndpoint: '10.0.0.5:6443',
      token: 'zzzzzz.0123456789abcdef',
      caCertHash: 'sha256:' + 'a'.repeat(64),
      nodeName: 'win-byoh-01',
    };
    const bad = await ok(c, ops.kubeadmJoin(params));
    assert.equal(bad.exitCode, 1);
    assert.match(bad.output, /could not find a JWS signature in the cluster-info ConfigMap for token ID "zzzzzz"/);
    const good = await ok(c, ops.kubeadmJoin({ ...params, token: 'abcdef.0123456789abcdef' }));
    assert.equal(good.exitCode, 0, good.output);
    assert.deepEqual(joined, [{ nodeName: 'win-byoh-01', build: '10.0.20348' }]);
    assert.equal((await ok(c, ops.serviceState('kubelet'))).status, 'Running');
    const again = await ok(c, ops.kubeadmJoin({ ...params, token: 'abcdef.0123456789abcdef' }));
    assert.equal(again.exitCode, 1);
    assert.match(
      again.output,
      /\[ERROR FileAvailable--etc-kubernetes-kubelet.conf\]: \/etc\/kubernetes\/kubelet.conf already exists/,
    );
    assert.equal((await ok(c, ops.kubeadmReset('C:\\k\\kubeadm.exe'))).exitCode, 0);
    assert.equal((await ok(c, ops.serviceState('kubelet'))).status, 'Stopped');
    assert.equal((await ok(c, ops.fileHash('C:\\etc\\kubernetes\\kubelet.conf'))).exists, false);
  });

  test('enable Containers, restart: connections drop, new ones are refused, then the feature is Enabled', async () => {
    assert.deepEqual(await ok(c, ops.enableContainersFeature()), { changed: true, restartNeeded: true });
    assert.equal((await ok(c, ops.hostFacts())).containersFeature, 'EnablePending');
    const gone = closed(c);
    assert.deepEqual(await ok(c, ops.restartComputer()), { scheduled: true });
    await gone;
    await assert.rejects(connect(sim));
    await sim.whenRebooted();
    c = await connect(sim);
    const f = await ok(c, ops.hostFacts());
    assert.equal(f.containersFeature, 'Enabled');
    assert.equal(f.rebootPending, false);
    assert.equal(sim.state.bootCount, 1);
    assert.deepEqual(await ok(c, ops.enableContainersFeature()), { changed: false, restartNeeded: false });
  });

  test('refuseConnections refuses, then connections work again', async () => {
    sim.refuseConnections(150);
    await assert.rejects(connect(sim));
    await new Promise((r) => setTimeout(r, 200));
    const d = await connect(sim);
    d.end();
  });

  test('remove-path and remove-service', async () => {
    assert.deepEqual(await ok(c, ops.removePath('C:\\k')), { removed: true });
    assert.equal(sim.state.files.has('c:\\k\\kubelet.exe'), false);
    assert.deepEqual(await ok(c, ops.removePath('C:\\k')), { removed: false });
    assert.deepEqual(await ok(c, ops.removeService('containerd')), { removed: true });
    assert.equal((await ok(c, ops.serviceState('kubelet'))).status, 'Stopped');
    assert.deepEqual(await ok(c, ops.removeService('containerd')), { removed: false });
  });

  test('every sample op parses and is recognised by the host', async () => {
    for (const op of sampleOps('C:\\sample')) {
      if (op.name === 'restart-computer') continue;
      const r = await run(c, op);
      assert.doesNotMatch(
        r.stderr,
        /unknown op|does not parse|simulator error|not recognized as an internal/,
        `${op.name}: ${r.stderr}`,
      );
    }
  });
});
