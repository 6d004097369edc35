// Secrets never leave: every command path that holds one (the kubeconfig's bearer token, an SSH
// private key and its passphrase, a pull secret's auth, Secret and ConfigMap values in the cluster)
// runs with recognisable values, and everything it writes is searched for them: stdout and stderr
// of text, JSON and SARIF output, plan previews, error texts, and the files it wrote. The only place
// a secret may be written is where it is needed (a pull secret's auth in hosts.toml's authorization
// header). The number of paths swept and the leaks found (0) are printed as figures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostAddress, startRig, type Rig } from '../support/join-rig';
import { namespace, pod, windowsNode } from '../support/kube-seed';
import { runCli } from '../support/run-cli';

const PASSPHRASE = 'kwleak-passphrase-7Q2v';
const PULL_PASSWORD = 'kwleak-pull-9Zr4';
const PULL_AUTH = Buffer.from(`robot:${PULL_PASSWORD}`).toString('base64');
const SECRET_VALUE = 'kwleak-secret-data-3Xy8';
const CONFIG_VALUE = 'kwleak-configmap-password-5Kp1';

let rig: Rig;
let dir: string;
let encryptedKey: string;
/** Name -> the strings that give the secret away (raw, base64, a slice of a key body). */
const secrets = new Map<string, string[]>();
let paths = 0;
let leaks = 0;

/** The forms a value can leak in: as is, and base64 (a Secret's data, a header). */
const forms = (v: string): string[] => [v, Buffer.from(v).toString('base64')];

/** Long slices of a key's private part: any one of them in an output is the key leaking. */
function keySlices(pem: string): string[] {
  const body = pem
    .split('\n')
    .filter((l) => l && !l.startsWith('-----'))
    .join('');
  const out: string[] = [];
  // The first half is the format header and the public key (the same in every key of a kind, and
  // public): the private part is in the second half.
  for (let i = Math.floor(body.length / 2); i + 24 <= body.length; i += 24) out.push(body.slice(i, i + 24));
  return out;
}

before(async () => {
  rig = await startRig({
    hosts: 1,
    objects: [
      namespace('web'),
      windowsNode('win-a', { build: '10.0.20348', address: hostAddress(0) }),
      pod('iis-1', 'web', 'win-a', { windows: true }),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'db', namespace: 'web' },
        type: 'Opaque',
        data: { password: Buffer.from(SECRET_VALUE).toString('base64') },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'app', namespace: 'web' },
        data: { 'db.password': CONFIG_VALUE },
      },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'kw-secrets-'));
  encryptedKey = join(dir, 'id_encrypted');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', PASSPHRASE, '-C', 'kw-leak', '-f', encryptedKey]);
  secrets.set('kubeconfig token', [rig.emu.token]);
  secrets.set('SSH private key', keySlices(readFileSync(rig.keyPath, 'utf8')));
  secrets.set('encrypted SSH key', keySlices(readFileSync(encryptedKey, 'utf8')));
  secrets.set('passphrase', forms(PASSPHRASE));
  secrets.set('pull-secret auth', [PULL_AUTH, PULL_PASSWORD]);
  secrets.set('Secret value', forms(SECRET_VALUE));
  secrets.set('ConfigMap password', forms(CONFIG_VALUE));
});

after(async () => {
  console.log(`secret sweep: ${paths} command paths, ${secrets.size} kinds of secret, ${leaks} leaks`);
  await rig?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The secrets found in `text`, by name. */
function found(text: string, except: string[] = []): string[] {
  return [...secrets]
    .filter(([name, vs]) => !except.includes(name) && vs.some((v) => text.includes(v)))
    .map(([name]) => name);
}

/** Every file under `root` with its text. */
function filesUnder(root: string): [string, string][] {
  const out: [string, string][] = [];
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push([p, readFileSync(p, 'utf8')]);
  }
  return out;
}

/** Runs one command path and asserts nothing it printed names a secret. */
async function sweep(
  label: string,
  args: string[],
  opts: { input?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runCli(args, { env: { SSH_AUTH_SOCK: '', KUBE_WINDOWS_DEBUG: '' }, ...opts });
  paths++;
  const hits = found(r.stdout + r.stderr);
  leaks += hits.length;
  assert.deepEqual(hits, [], `${label}: ${hits.join(', ')} in the output\n${r.stdout}\n${r.stderr}`);
  return r;
}

const cluster = (): string[] => ['--kubeconfig', rig.kubeconfigPath, '--context', 'emulator'];
const ssh = (key: string): string[] => ['--key', key, '--port', String(rig.port), '--known-hosts', rig.knownHostsPath];

test('the detector finds each secret where it is (a sweep that cannot fail proves nothing)', () => {
  assert.deepEqual(found(readFileSync(rig.keyPath, 'utf8')), ['SSH private key']);
  assert.deepEqual(found(readFileSync(encryptedKey, 'utf8')), ['encrypted SSH key']);
  assert.deepEqual(
    found(`{"password":"${Buffer.from(SECRET_VALUE).toString('base64')}"} token ${rig.emu.token} Basic ${PULL_AUTH}`),
    ['kubeconfig token', 'pull-secret auth', 'Secret value'],
  );
});

test('the live check in every format, and the snapshot, hold no token and no cluster secret', async () => {
  for (const format of ['text', 'json', 'sarif']) {
    const r = await sweep(`check --context --format ${format}`, ['check', ...cluster(), '-A', '--format', format]);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    assert.ok(r.stdout.length > 0);
  }
  const snap = await sweep('snapshot', ['snapshot', ...cluster()]);
  assert.equal(snap.code, 0, snap.stderr);
});

test('a token the cluster refuses (401) is not quoted in the error', async () => {
  const wrong = `kwleak-wrong-token-${'x'.repeat(12)}`;
  secrets.set('refused token', [wrong]);
  const kc = rig.emu.kubeconfig({ token: wrong, file: join(dir, 'wrong-kubeconfig') });
  const r = await sweep('check with a refused token', ['check', '--kubeconfig', kc, '--context', 'emulator', '-A']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /401 Unauthorized/);
});

test('an SSH command on the node, with the key, prints no key material', async () => {
  const r = await sweep('nodes services', ['nodes', 'services', 'win-a', ...cluster(), ...ssh(rig.keyPath)]);
  assert.equal(r.code, 0, r.stderr);
});

test('an encrypted key with no terminal to ask the passphrase on: a clear error without the key', async () => {
  const r = await sweep(
    'nodes services, encrypted key',
    ['nodes', 'services', 'win-a', ...cluster(), ...ssh(encryptedKey)],
    { input: `${PASSPHRASE}\n` },
  );
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /passphrase|encrypted/i);
});

test('plan previews show secrets as •••: BYOH with --create-key-secret, a reboot', async () => {
  const byoh = await sweep('join --via byoh --create-key-secret --dry-run', [
    'join',
    ...cluster(),
    '--via',
    'byoh',
    '--address',
    '10.0.0.5',
    '--create-key-secret',
    rig.keyPath,
    '--dry-run',
  ]);
  assert.equal(byoh.code, 0, byoh.stderr);
  assert.match(byoh.stdout, /•••/);
  const reboot = await sweep('nodes reboot --dry-run', [
    'nodes',
    'reboot',
    'win-a',
    ...cluster(),
    ...ssh(rig.keyPath),
    '--dry-run',
  ]);
  assert.equal(reboot.code, 0, reboot.stderr);
});

test('a key file that is not a key: the error does not quote it', async () => {
  const notAKey = join(dir, 'not-a-key');
  writeFileSync(notAKey, `password=${PASSPHRASE}\n${SECRET_VALUE}\n`);
  const r = await sweep('join --create-key-secret with garbage', [
    'join',
    ...cluster(),
    '--via',
    'byoh',
    '--address',
    '10.0.0.5',
    '--create-key-secret',
    notAKey,
    '--dry-run',
  ]);
  assert.ok(r.code !== null);
  const keyed = await sweep('nodes services with garbage key', [
    'nodes',
    'services',
    'win-a',
    ...cluster(),
    ...ssh(notAKey),
  ]);
  assert.notEqual(keyed.code, 0);
});

test('mirrors render: the pull secret reaches only the authorization header of hosts.toml', async () => {
  const idms = join(dir, 'm.yaml');
  writeFileSync(
    idms,
    'apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: m}\nspec:\n  imageDigestMirrors:\n  - source: mcr.microsoft.com\n    mirrors: [quay.io/mirror]\n',
  );
  const auth = join(dir, 'auth.json');
  writeFileSync(auth, JSON.stringify({ auths: { 'quay.io': { auth: PULL_AUTH } } }));
  const out = join(dir, 'out');
  const r = await sweep('mirrors render --pull-secret', [
    'mirrors',
    'render',
    '--pull-secret',
    auth,
    '--out',
    out,
    idms,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const files = filesUnder(out);
  assert.ok(files.length > 0);
  for (const [path, text] of files) {
    const outsideHeader = text
      .split('\n')
      .filter((l) => !/^\s*authorization = "Basic [A-Za-z0-9+/=]+"$/.test(l))
      .join('\n');
    const hits = found(outsideHeader);
    leaks += hits.length;
    assert.deepEqual(hits, [], `${path}: ${hits.join(', ')} outside the authorization header`);
    assert.equal(statSync(path).mode & 0o777, 0o600);
  }
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, `{"auths": {"quay.io": {"auth": "${PULL_AUTH}"`);
  const b = await sweep('mirrors render, broken pull secret', [
    'mirrors',
    'render',
    '--pull-secret',
    broken,
    '--out',
    join(dir, 'out2'),
    idms,
  ]);
  assert.equal(b.code, 2);
});
