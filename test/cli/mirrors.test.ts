import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, mkdirSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';

// Compiled to out/test/cli/: the repository root is three levels up.
const CLI = resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

function run(args: string[], opts: { cwd?: string; input?: string } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    input: opts.input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tmp(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kw-mirrors-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** Every hosts.toml under `dir`, by `<sub>/hosts.toml`, each parsed back as TOML. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sub of readdirSync(dir).sort()) {
    const names = readdirSync(join(dir, sub));
    assert.deepEqual(names, ['hosts.toml'], `only hosts.toml in ${sub} (no temp files left)`);
    const text = readFileSync(join(dir, sub, 'hosts.toml'), 'utf8');
    parseToml(text);
    out[`${sub}/hosts.toml`] = text;
  }
  return out;
}

const MIRRORS = `apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: digest
spec:
  imageDigestMirrors:
    - source: registry.access.redhat.com/ubi9/ubi-minimal
      mirrors:
        - zeta.example.com/ubi9/ubi-minimal
        - mirror.example.com/redhat/ubi9/ubi-minimal
      mirrorSourcePolicy: NeverContactSource
    - source: registry.local:5000/team/app
      mirrors: [mirror.local:5000/team/app]
---
apiVersion: config.openshift.io/v1
kind: ImageTagMirrorSet
metadata:
  name: tags
spec:
  imageTagMirrors:
    - source: mcr.microsoft.com/powershell
      mirrors: [quay.io/testuser/testnamespace/powershell]
`;

const WILDCARD = `apiVersion: config.openshift.io/v1
kind: ImageTagMirrorSet
metadata:
  name: wild
spec:
  imageTagMirrors:
    - source: "*.example.com"
      mirrors: [mirror.local/example]
`;

test('mirrors render --mode wmco writes what WMCO writes, one directory per source registry', () => {
  const dir = tmp({ 'm.yaml': MIRRORS });
  const r = run(['mirrors', 'render', '--mode', 'wmco', '--out', 'out', 'm.yaml'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const files = tree(join(dir, 'out'));
  assert.deepEqual(Object.keys(files), [
    'mcr.microsoft.com/hosts.toml',
    'registry.access.redhat.com/hosts.toml',
    'registry.local:5000/hosts.toml',
  ]);
  assert.equal(
    files['registry.access.redhat.com/hosts.toml'],
    `server = "https://mirror.example.com/v2/redhat"

override_path = true

[host."https://mirror.example.com/v2/redhat"]
  capabilities = ["pull"]
  override_path = true

[host."https://zeta.example.com/v2"]
  capabilities = ["pull"]
  override_path = true
`,
  );
  assert.match(r.stdout, /^out\/\n/);
  assert.match(r.stdout, /├── mcr\.microsoft\.com\/\n│   └── hosts\.toml  \(1 mirror\)/);
  assert.match(r.stdout, /3 files written \(wmco mode\)/);
});

test('mirrors render (ordered, the default) keeps priority and writes host_port_', () => {
  const dir = tmp({ 'm.yaml': MIRRORS });
  const r = run(['mirrors', 'render', '--out', 'out', 'm.yaml'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const files = tree(join(dir, 'out'));
  assert.deepEqual(Object.keys(files), [
    'mcr.microsoft.com/hosts.toml',
    'registry.access.redhat.com/hosts.toml',
    'registry.local_5000_/hosts.toml',
  ]);
  assert.match(
    files['registry.access.redhat.com/hosts.toml'],
    /^server = "https:\/\/zeta\.example\.com\/v2"\n[\s\S]*zeta[\s\S]*mirror\.example\.com/,
  );
  assert.match(r.stdout, /registry\.local_5000_\/  \(source registry\.local:5000\)/);
});

test('refused sources exit 1 and write nothing for that source; the others are written', () => {
  const dir = tmp({ 'm.yaml': MIRRORS, 'w.yaml': WILDCARD });
  const r = run(['mirrors', 'render', '--mode', 'ordered', '--out', 'out', 'm.yaml', 'w.yaml'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /refused \*\.example\.com: wildcard source/);
  const files = tree(join(dir, 'out'));
  assert.equal(Object.keys(files).length, 3);
  assert.ok(!Object.keys(files).some((k) => k.includes('*')));
  // wmco mode reproduces WMCO: the wildcard directory is written as is.
  const w = run(['mirrors', 'render', '--mode', 'wmco', '--out', 'wmco', 'w.yaml'], { cwd: dir });
  assert.equal(w.code, 0, w.stderr);
  assert.deepEqual(Object.keys(tree(join(dir, 'wmco'))), ['*.example.com/hosts.toml']);
});

test('--pull-secret adds headers, the file is private, and the secret never reaches the output', () => {
  const token = Buffer.from('robot:s3cr3t-pa55').toString('base64');
  const dir = tmp({ 'm.yaml': MIRRORS, 'auth.json': JSON.stringify({ auths: { 'quay.io': { auth: token } } }) });
  const r = run(['mirrors', 'render', '--pull-secret', 'auth.json', '--out', 'out', 'm.yaml'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const file = join(dir, 'out', 'mcr.microsoft.com', 'hosts.toml');
  assert.match(
    readFileSync(file, 'utf8'),
    new RegExp(
      `\\[host\\."https://quay\\.io/v2/testuser/testnamespace"\\.header\\]\\n    authorization = "Basic ${token}"`,
    ),
  );
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.match(r.stdout, /1 mirror, with credentials/);
  assert.ok(!(r.stdout + r.stderr).includes(token) && !(r.stdout + r.stderr).includes('s3cr3t'));
  // A Secret object works too; a broken auth is an error that does not quote it.
  const secret = `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\nmetadata: {name: pull-secret, namespace: openshift-config}\ndata:\n  .dockerconfigjson: ${Buffer.from(JSON.stringify({ auths: { 'quay.io': { auth: token } } })).toString('base64')}\n`;
  writeFileSync(join(dir, 'secret.yaml'), secret);
  assert.equal(
    run(['mirrors', 'render', '--pull-secret', 'secret.yaml', '--out', 'out2', 'm.yaml'], { cwd: dir }).code,
    0,
  );
  assert.match(readFileSync(join(dir, 'out2', 'mcr.microsoft.com', 'hosts.toml'), 'utf8'), /authorization/);
  const bad = Buffer.from('no-colon-s3cr3t').toString('base64');
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ auths: { 'quay.io': { auth: bad } } }));
  const b = run(['mirrors', 'render', '--pull-secret', 'bad.json', '--out', 'out3', 'm.yaml'], { cwd: dir });
  assert.equal(b.code, 2);
  assert.match(b.stderr, /"quay\.io" is not base64 of username:password/);
  assert.ok(!(b.stdout + b.stderr).includes(bad) && !(b.stdout + b.stderr).includes('s3cr3t'));
  assert.ok(!existsSync(join(dir, 'out3')));
});

test('usage and input errors exit 2 without writing; diff/apply are dispatched', () => {
  const dir = tmp({ 'm.yaml': MIRRORS, 'broken.yaml': 'kind: [unclosed\n' });
  assert.match(run(['mirrors', 'render', 'm.yaml'], { cwd: dir }).stderr, /--out DIR is required/);
  const mode = run(['mirrors', 'render', '--mode', 'fast', '--out', 'o', 'm.yaml'], { cwd: dir });
  assert.equal(mode.code, 2);
  assert.match(mode.stderr, /--mode must be ordered or wmco/);
  assert.equal(run(['mirrors', 'render', '--out', 'o'], { cwd: dir }).code, 2);
  assert.equal(run(['mirrors', 'render', '--out', 'o', 'nope.yaml'], { cwd: dir }).code, 2);
  const broken = run(['mirrors', 'render', '--out', 'o', 'm.yaml', 'broken.yaml'], { cwd: dir });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /broken\.yaml: document 1 not read/);
  assert.ok(!existsSync(join(dir, 'o')));
  assert.equal(run(['mirrors', 'frob'], { cwd: dir }).code, 2);
  assert.equal(run(['mirrors', '--help'], { cwd: dir }).code, 0);
  // diff and apply are dispatched to ./mirrors-apply: a usage error of theirs, not an unknown subcommand.
  const diff = run(['mirrors', 'diff'], { cwd: dir });
  assert.notEqual(diff.code, 0);
  assert.doesNotMatch(diff.stderr, /unknown subcommand/);
});

test('standard input and re-rendering over an existing tree', () => {
  const dir = tmp({});
  const r = run(['mirrors', 'render', '--mode', 'wmco', '--out', 'out', '-'], { cwd: dir, input: MIRRORS });
  assert.equal(r.code, 0, r.stderr);
  const first = tree(join(dir, 'out'));
  assert.equal(run(['mirrors', 'render', '--mode', 'wmco', '--out', 'out', '-'], { cwd: dir, input: MIRRORS }).code, 0);
  assert.deepEqual(tree(join(dir, 'out')), first);
});
