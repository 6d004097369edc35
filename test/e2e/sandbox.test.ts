// The sandbox as a user starts it (out/sandbox/sandbox.js, the bundle `npm run sandbox` runs, built
// by the e2e preparation), as an ordinary user: when the tests run as root it is started as nobody,
// with its state in a folder that user owns. Then every feature is driven once against it, through
// the CLI with the endpoints it wrote (sandbox.json): services listed and one restarted, logs
// collected, a command in an SSH shell, live pods and a failure explanation, mirrors
// preview/apply/drift, a BYOH join and its removal, a graceful reboot to Ready and schedulable, a
// MachineSet whose machine becomes a Ready node, a kubeadm join with its networking steps through the
// sandbox's proxy, and the proxy-enabled context (a drifted node's proxy settings, OCP005). The
// code-server the sandbox prints answers HTTP 200.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSshSession } from '../../src/remote/interactive';
import type { SandboxInfo } from '../support/sandbox-world';
import { freePort, launchBrowser, openKubeWindows, openWorkbench, ROOT, screenshot } from './harness';

const SANDBOX = join(ROOT, 'out', 'sandbox', 'sandbox.js');
const CLI = join(ROOT, 'dist', 'cli.js');
const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
/** nobody:nogroup, the user the sandbox runs as when the tests run as root. */
const NOBODY = 65534;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Whether nobody can read every one of these paths (the folders above them included). */
function nobodyCanRead(paths: string[]): boolean {
  const probe = `for (const p of ${JSON.stringify(paths)}) require('fs').accessSync(p, require('fs').constants.R_OK)`;
  return (
    spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', probe], {
      stdio: 'ignore',
    }).status === 0
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The CLI with no ssh-agent (the key is given), bounded in time. */
function cli(args: string[], timeoutMs = 90_000): Promise<Run> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, SSH_AUTH_SOCK: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

const show = (r: Run) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

describe('the sandbox as users start it, as an ordinary user, every feature once', { timeout: 180_000 }, () => {
  let dir: string;
  let child: ChildProcess;
  let output = '';
  let info: SandboxInfo;
  let cluster: string[];
  let ssh: string[];
  let ranAs = '';

  before(async () => {
    for (const f of [SANDBOX, CLI, vsix])
      assert.ok(existsSync(f), `${f} is missing: run node scripts/e2e.mjs --prepare first`);
    const root = mkdtempSync(join(tmpdir(), 'kw-sandbox-test-'));
    // The state folder belongs to the user the sandbox runs as (mkdtemp's folder is root's, 0700).
    chmodSync(root, 0o755);
    dir = join(root, 'state');
    const asRoot = process.getuid?.() === 0;
    // A checkout in a folder only root may enter (/root/...) cannot be run by nobody: then the
    // sandbox runs as root, said in the test's output, and every feature is still driven.
    const dropRoot =
      asRoot &&
      nobodyCanRead([
        SANDBOX,
        vsix,
        join(ROOT, 'examples'),
        process.env.KW_CODE_SERVER ??
          join(ROOT, '.cache', 'code-server', 'node_modules', 'code-server', 'package.json'),
      ]);
    ranAs = dropRoot || !asRoot ? 'an ordinary user' : 'root (the checkout is not readable by nobody)';
    mkdirSync(dir);
    if (dropRoot) chownSync(dir, NOBODY, NOBODY);
    const env = {
      ...process.env,
      SANDBOX_DIR: dir,
      SANDBOX_PORT: String(await freePort()),
      SANDBOX_SSH_PORT: String(await freePort()),
      KW_VSIX: vsix,
      HOME: dir,
      SSH_AUTH_SOCK: '',
    };
    const argv = dropRoot
      ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, SANDBOX]
      : [process.execPath, SANDBOX];
    child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const file = join(dir, 'sandbox.json');
    const deadline = Date.now() + 120_000;
    while (!/SANDBOX running/.test(output)) {
      assert.equal(child.exitCode, null, `the sandbox exited:\n${output}`);
      assert.ok(Date.now() < deadline, `the sandbox did not start in 120 s:\n${output}`);
      await sleep(200);
    }
    info = JSON.parse(readFileSync(file, 'utf8')) as SandboxInfo;
    cluster = ['--kubeconfig', info.kubeconfig];
    ssh = ['--key', info.keyPath, '--port', String(info.sshPort), '--known-hosts', info.knownHosts];
  });

  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      // As nobody the sandbox cannot be signalled by the test's uid unless root: the test is root then.
      child.kill('SIGINT');
      await Promise.race([exited, sleep(20_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    if (dir) rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  test('it runs as an ordinary user, prints its endpoints (a host for every Windows node, on its own port) and code-server answers', async (t) => {
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
    t.diagnostic(`the sandbox ran as ${ranAs} (uid ${uid})`);
    if (ranAs === 'an ordinary user') assert.notEqual(uid, '0', 'the sandbox does not run as root');
    assert.notEqual(info.sshPort, 22);
    assert.deepEqual(info.nodes.map((n) => n.node).sort(), ['byoh-win2022-1', 'winworker-2019-a', 'winworker-2022-b']);
    for (const n of info.nodes)
      assert.ok(output.includes(`${n.address}:${info.sshPort}`), `the banner lists ${n.node}'s SSH endpoint`);
    // Every host key is pinned: nothing below is asked to trust a key (no --accept-new-host-key).
    const known = readFileSync(info.knownHosts, 'utf8');
    for (const a of [
      ...info.nodes.map((n) => n.address),
      ...info.joinable.map((h) => h.address),
      info.kubeadmHost.address,
    ])
      assert.ok(known.includes(`[${a}]:${info.sshPort} `), `${a} in known_hosts`);
    const res = await fetch(info.url);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<html/i);
  });

  test(
    "in its VS Code, a node's Services group reads the host over SSH with the settings the sandbox wrote (port, known_hosts, key)",
    { timeout: 120_000 },
    async () => {
      const browser = await launchBrowser();
      try {
        const page = await openWorkbench(browser, info.url);
        const rows = page.locator('.pane-body .monaco-list-row');
        const row = (text: string | RegExp) => rows.filter({ hasText: text }).first();
        await openKubeWindows(page);
        await row('winworker-2022-b').waitFor({ timeout: 60_000 });
        await row('winworker-2022-b').click();
        await row(/^Services/).waitFor({ timeout: 30_000 });
        await row(/^Services/).click();
        try {
          await rows
            .filter({ hasText: /kubelet/ })
            .filter({ hasText: /Running/ })
            .first()
            .waitFor({ timeout: 30_000 });
        } catch (err) {
          await screenshot(page, 'failed-sandbox-services');
          throw new Error(
            `no running kubelet under Services (rows: ${(await rows.allInnerTexts()).map((t) => t.split('\n').join(' ')).join(' | ')})`,
            { cause: err },
          );
        }
        await screenshot(page, 'sandbox-services');
      } finally {
        await browser.close();
      }
    },
  );

  test('services are listed and one is restarted; logs are collected; one command runs in an SSH shell', async () => {
    const ctx = ['--context', info.contexts.openshift, ...cluster];
    const list = await cli(['nodes', 'services', 'winworker-2022-b', ...ctx, ...ssh]);
    assert.equal(list.code, 0, show(list));
    assert.match(list.stdout, /kubelet\s+Running\s+Automatic/);
    assert.match(list.stdout, /containerd\s+Running/);
    const restart = await cli([
      'nodes',
      'services',
      'winworker-2022-b',
      ...ctx,
      ...ssh,
      '--restart',
      'kube-proxy',
      '--yes',
    ]);
    assert.equal(restart.code, 0, show(restart));
    assert.match(restart.stdout, /kube-proxy restarted on winworker-2022-b: Running/);

    const out = join(dir, '..', 'logs');
    const logs = await cli(['nodes', 'logs', 'byoh-win2022-1', ...ctx, ...ssh, '--out', out]);
    assert.equal(logs.code, 0, show(logs));
    const [folder] = readdirSync(out);
    const kubeletLog = join(out, folder!, 'kubelet', 'kubelet.log');
    assert.ok(statSync(kubeletLog).size > 0, 'the kubelet log is not empty');
    assert.match(readFileSync(kubeletLog, 'utf8'), /node="byoh-win2022-1"/);

    const node = info.nodes.find((n) => n.node === 'winworker-2019-a')!;
    // The session the extension's SSH terminal opens (PowerShell on a pty).
    const session = await openSshSession({
      host: node.address,
      port: info.sshPort,
      username: info.user,
      privateKeyPath: info.keyPath,
      knownHostsPath: info.knownHosts,
      cols: 100,
      rows: 30,
    });
    let seen = '';
    session.onData((text) => (seen += text));
    const until = async (re: RegExp) => {
      const end = Date.now() + 15_000;
      while (!re.test(seen)) {
        assert.ok(Date.now() < end, `waited for ${re} in: ${seen}`);
        await sleep(50);
      }
    };
    try {
      await until(/PS C:\\Users\\Administrator> $/);
      session.write('hostname\r');
      await until(/WINWORKER-2019-A\r\n/);
    } finally {
      session.close();
    }
  });

  test('live pods: the failing pods are explained (WINF001, WINF004) and a pod log is read through the kubelet', async () => {
    const ctx = ['--context', info.contexts.openshift, ...cluster];
    const check = await cli(['check', ...ctx, '-n', 'win-apps']);
    assert.equal(check.code, 1, show(check));
    assert.match(
      check.stdout,
      /Pod\/win-apps\/reports-6b7c8d9f5-mq2zt[\s\S]*?WINF001 image mcr\.microsoft\.com\/windows\/servercore:ltsc2022 needs Windows Server 2022/,
    );
    assert.match(check.stdout, /WINF004 3 Windows nodes carry the taint os=Windows:NoSchedule/);
    const describe = await cli(['pods', 'describe', 'reports-6b7c8d9f5-mq2zt', '-n', 'win-apps', ...ctx]);
    assert.equal(describe.code, 0, show(describe));
    assert.match(describe.stdout, /== Why it fails[\s\S]*WINF001/);
    const log = await cli(['pods', 'logs', 'worker-7d8e9f6a5-r4t8w', '-n', 'win-apps', ...ctx, '--previous']);
    assert.equal(log.code, 0, show(log));
    assert.match(log.stdout, /FileNotFoundException/);
  });

  test('mirrors: the preview shows the drifted node, apply goes through the API and the nodes converge, then nothing drifts', async () => {
    const ctx = ['--context', info.contexts.openshift, ...cluster];
    const before = await cli(['mirrors', 'diff', ...ctx, ...ssh]);
    assert.equal(before.code, 1, show(before));
    assert.match(before.stdout, /winworker-2019-a \(127\.0\.0\.\d+\): 1 added/);
    assert.match(before.stdout, /winworker-2022-b \(127\.0\.0\.\d+\): up to date/);
    const file = join(dir, '..', 'mirrors.yaml');
    writeFileSync(
      file,
      'apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: sandbox-test\nspec:\n  imageDigestMirrors:\n  - source: docker.io/library\n    mirrors: [mirror.example.internal:5000/library]\n',
    );
    const apply = await cli(['mirrors', 'apply', ...ctx, ...ssh, '--wait', '60', file]);
    assert.equal(apply.code, 0, show(apply));
    assert.match(apply.stdout, /ImageDigestMirrorSet sandbox-test: created/);
    assert.equal((apply.stdout.match(/ converged /g) ?? []).length, 3, apply.stdout);
    const afterwards = await cli(['mirrors', 'diff', ...ctx, ...ssh]);
    assert.equal(afterwards.code, 0, show(afterwards));
  });

  test("the proxy-enabled context: the drifted node's proxy settings, OCP005 on the example that fetches", async () => {
    const ctx = ['--context', info.contexts.openshift, ...cluster];
    assert.match(info.proxy?.url ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    const drifted = await cli(['nodes', 'proxy', info.proxy?.driftedNode ?? '', ...ctx, ...ssh]);
    assert.equal(drifted.code, 1, show(drifted));
    assert.match(drifted.stdout, /NO_PROXY {4}\.svc,\.cluster\.local {2}≠ expected /);
    assert.match(drifted.stdout, /Trusted CA bundle: all 1 certificate in LocalMachine\\Root\./);
    const equal = await cli(['nodes', 'proxy', 'winworker-2022-b', ...ctx, ...ssh]);
    assert.equal(equal.code, 0, show(equal));
    const check = await cli(['check', ...ctx, '--format', 'json', join(ROOT, 'examples', 'good', 'proxy-fetch.yaml')]);
    const ids = (JSON.parse(check.stdout) as { files: { findings: { ruleId: string }[] }[] }).files.flatMap((f) =>
      f.findings.map((x) => x.ruleId),
    );
    assert.deepEqual(ids, ['OCP005'], show(check));
  });

  test('a BYOH join then its removal, a graceful reboot, a MachineSet, and a kubeadm join with its networking steps', async () => {
    const ctx = ['--context', info.contexts.openshift, ...cluster];
    const host = info.joinable[0]!;
    // Independent of each other: the BYOH join and removal, the MachineSet, the kubeadm join (another cluster).
    const byoh = (async () => {
      const join = await cli(['join', ...ctx, ...ssh, '--address', host.address, '--yes']);
      assert.equal(join.code, 0, show(join));
      assert.match(join.stdout, /WMCO connects to it on port 22/, 'the port warning');
      assert.match(join.stdout, /joined/);
      // What WMCO set up on the host: its services are there to list.
      const services = await cli(['nodes', 'services', host.hostname.toLowerCase(), ...ctx, ...ssh]);
      assert.equal(services.code, 0, show(services));
      assert.match(services.stdout, /kubelet\s+Running/);
      const remove = await cli(['remove', ...ctx, '--address', host.address, '--yes']);
      assert.equal(remove.code, 0, show(remove));
      assert.match(remove.stdout, /removed/);
    })();
    const machines = (async () => {
      const create = await cli([
        'machineset',
        'create',
        ...ctx,
        '--image',
        'ami-0abcdef1234567890',
        '--yes',
        '--timeout',
        '2',
      ]);
      assert.equal(create.code, 0, show(create));
      // The Machine is named whatever the follow saw of it (its ": created" line only when it appeared during the
      // wait, not when it already existed as the step began), then mapped to its node.
      assert.match(create.stdout, /every Machine is a Ready node[\s\S]*-windows-worker-us-east-2a-\w+ → node /);
    })();
    const kubeadm = (async () => {
      const join = await cli(
        [
          'join',
          '--context',
          info.contexts.kubeadm,
          ...cluster,
          ...ssh,
          '--address',
          info.kubeadmHost.address,
          '--payload',
          info.payloadDir,
          // The sandbox's proxy stand-in, as its banner offers it for the kubeadm join's proxy question.
          '--proxy',
          info.proxy?.url ?? '',
          '--yes',
        ],
        120_000,
      );
      assert.equal(join.code, 0, show(join));
      assert.match(
        join.stdout,
        /reaches https:\/\/mcr\.microsoft\.com\/v2\/ through the proxy http:\/\/127\.0\.0\.1:\d+/,
      );
      assert.match(join.stdout, /CNI: calico/);
      assert.match(
        join.stdout,
        /created DaemonSet kube-system\/calico-node-windows[\s\S]*created DaemonSet kube-system\/kube-proxy-windows/,
      );
      assert.match(join.stdout, /the probe printed ok and succeeded[\s\S]*joined/);
    })();
    // The reboot evicts the node's pods: after the pod checks above.
    const reboot = await cli(['nodes', 'reboot', 'winworker-2022-b', ...ctx, ...ssh, '--yes', '--timeout', '2']);
    assert.equal(reboot.code, 0, show(reboot));
    assert.match(
      reboot.stdout,
      /169\.254\.169\.254[\s\S]*winworker-2022-b was rebooted and is Ready and schedulable again/,
    );
    await Promise.all([byoh, machines, kubeadm]);
  });
});
