import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, mkdirSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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
  const dir = mkdtempSync(join(tmpdir(), 'kw-cli-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const BAD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  os:
    name: windows
  nodeSelector:
    kubernetes.io/os: windows
  tolerations:
    - {key: os, operator: Exists, effect: NoSchedule}
  containers:
    - name: web
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
      securityContext:
        privileged: false   # copied from a Linux template
      resources: {limits: {cpu: 500m, memory: 512Mi}}
`;

const GOOD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  os: {name: windows}
  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{key: os, operator: Exists, effect: NoSchedule}]
  containers:
    - name: web
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
      resources: {limits: {cpu: 500m, memory: 512Mi}}
`;

test('exit codes: 0 clean, 1 findings, 2 usage and I/O errors', () => {
  const dir = tmp({ 'good.yaml': GOOD, 'bad.yaml': BAD });
  assert.equal(run(['check', 'good.yaml'], { cwd: dir }).code, 0);
  assert.equal(run(['check', 'bad.yaml'], { cwd: dir }).code, 1);
  const missing = run(['check', 'nope.yaml'], { cwd: dir });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope\.yaml: no such file or directory/);
  const badOpt = run(['check', '--format', 'xml', 'good.yaml'], { cwd: dir });
  assert.equal(badOpt.code, 2);
  assert.match(badOpt.stderr, /--format must be text, json or sarif/);
  assert.equal(run(['check', '--disable', 'NOPE999', 'good.yaml'], { cwd: dir }).code, 2);
  assert.equal(run(['frobnicate']).code, 2);
  assert.doesNotMatch(badOpt.stderr + missing.stderr, /\n\s+at /, 'no stack traces');
});

test('text output: path:line:col severity RULE message, and a summary line', () => {
  const dir = tmp({ 'bad.yaml': BAD });
  const r = run(['check', 'bad.yaml'], { cwd: dir });
  assert.match(
    r.stdout,
    /^bad\.yaml:16:9 error WIN002 spec\.containers\[0\]\.securityContext\.privileged: Forbidden: cannot be set for a windows pod\./m,
  );
  assert.match(r.stdout, /✖ 1 finding \(1 error, 0 warnings, 0 info\) in 1 of 1 file/);
  assert.doesNotMatch(r.stdout, /\u001b\[/, 'no colour when not a terminal');
  assert.match(run(['check', '--color', 'bad.yaml'], { cwd: dir }).stdout, /\u001b\[31merror/);
});

test('JSON output follows the contract, with 0-based LSP positions and fix edits', () => {
  const dir = tmp({ 'bad.yaml': BAD, 'good.yaml': GOOD });
  const r = run(['check', '--format', 'json', 'bad.yaml', 'good.yaml'], { cwd: dir });
  const out = JSON.parse(r.stdout);
  assert.deepEqual(
    out.files.map((f: { path: string }) => f.path),
    ['bad.yaml', 'good.yaml'],
  );
  const f = out.files[0].findings[0];
  // An error says whether the API server rejects the object (WIN002: it does).
  assert.deepEqual(Object.keys(f).sort(), ['apiRejects', 'fixes', 'message', 'range', 'ruleId', 'severity']);
  assert.equal(f.ruleId, 'WIN002');
  assert.equal(f.apiRejects, true);
  assert.equal(out.kubernetesVersion, '1.37');
  assert.deepEqual(f.range, { start: { line: 15, character: 8 }, end: { line: 15, character: 18 } });
  assert.equal(f.fixes[0].title, 'Remove securityContext.privileged');
  assert.deepEqual(f.fixes[0].edits[0].range.start, { line: 14, character: 0 });
  assert.equal(out.files[1].findings.length, 0);
  assert.equal(out.summary.findings, 1);
  assert.equal(out.summary.errors, 1);
  assert.equal(out.summary.windowsWorkloads, 2);
  // One finding per line, so the JSON stays greppable and a dense run writes half the bytes.
  const lines = r.stdout.split('\n').filter((l) => l.includes('"ruleId"'));
  assert.equal(lines.length, 1);
  assert.deepEqual(JSON.parse(lines[0]!.trim()), f);
});

test('SARIF 2.1.0 output has what GitHub code scanning needs', () => {
  const dir = tmp({ 'deploy/bad.yaml': BAD });
  const r = run(['check', '--format', 'sarif', 'deploy'], { cwd: dir });
  assert.equal(r.code, 1);
  const sarif = JSON.parse(r.stdout);
  assert.equal(sarif.version, '2.1.0');
  assert.match(sarif.$schema, /sarif-2\.1\.0/);
  const run0 = sarif.runs[0];
  assert.equal(run0.tool.driver.name, 'kube-windows');
  const rule = run0.tool.driver.rules[0];
  assert.equal(rule.id, 'WIN002');
  assert.ok(rule.shortDescription.text.length > 10);
  assert.match(rule.helpUri, /^https:\/\//);
  assert.equal(rule.defaultConfiguration.level, 'error');
  const res = run0.results[0];
  assert.equal(res.ruleId, 'WIN002');
  assert.equal(res.ruleIndex, 0);
  assert.equal(res.level, 'error');
  const loc = res.locations[0].physicalLocation;
  assert.equal(loc.artifactLocation.uri, 'deploy/bad.yaml');
  assert.deepEqual(loc.region, { startLine: 16, startColumn: 9, endLine: 16, endColumn: 19 });
});

test('--fix rewrites files atomically, keeps comments, and reports what is left', () => {
  const dir = tmp({ 'bad.yaml': BAD });
  const r = run(['check', '--fix', 'bad.yaml'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const fixed = readFileSync(join(dir, 'bad.yaml'), 'utf8');
  assert.ok(!fixed.includes('privileged'));
  assert.ok(!fixed.includes('securityContext'), 'the emptied securityContext goes too');
  assert.ok(fixed.includes('image: mcr.microsoft.com/windows/nanoserver:ltsc2022\n'));
  assert.match(r.stdout, /1 fix applied/);
  assert.deepEqual(readdirSync(dir), ['bad.yaml'], 'no temporary file left behind');
});

test(
  '--fix on a read-only directory leaves the file untouched and exits 2',
  { skip: process.getuid?.() === 0 ? 'root can write anywhere' : false },
  () => {
    const dir = tmp({ 'ro/bad.yaml': BAD });
    chmodSync(join(dir, 'ro'), 0o555);
    const r = run(['check', '--fix', 'ro/bad.yaml'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /fixes not written: permission denied; the file is unchanged/);
    assert.equal(readFileSync(join(dir, 'ro/bad.yaml'), 'utf8'), BAD);
  },
);

test('--fix cannot rewrite stdin; stdin is checked with -', () => {
  assert.equal(run(['check', '--fix', '-'], { input: BAD }).code, 2);
  const r = run(['check', '--format', 'json', '-'], { input: BAD });
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).files[0].path, '<stdin>');
});

test('directories are walked for *.yaml and *.yml, skipping node_modules and .git', () => {
  const dir = tmp({
    'a/x.yaml': BAD,
    'a/y.yml': GOOD,
    'a/notes.txt': BAD,
    'node_modules/m/z.yaml': BAD,
    '.git/q.yaml': BAD,
  });
  const out = JSON.parse(run(['check', '--format', 'json', '.'], { cwd: dir }).stdout);
  assert.deepEqual(
    out.files.map((f: { path: string }) => f.path),
    ['a/x.yaml', 'a/y.yml'],
  );
});

test('globs expand; --min-severity, --enable and --disable filter', () => {
  const dir = tmp({ 'm/one.yaml': BAD, 'm/two.yaml': GOOD });
  const globbed = JSON.parse(run(['check', '--format', 'json', 'm/*.yaml'], { cwd: dir }).stdout);
  assert.equal(globbed.files.length, 2);
  assert.equal(run(['check', '--disable', 'WIN002', 'm'], { cwd: dir }).code, 0);
  assert.equal(run(['check', '--enable', 'WIN001', 'm'], { cwd: dir }).code, 0);
  assert.equal(run(['check', '--enable', 'win002', 'm'], { cwd: dir }).code, 1);
});

test('a broken file is reported and the other files are still checked', () => {
  const dir = tmp({
    'a.yaml': 'apiVersion: v1\nkind: ConfigMap\ndata:\n  key: [unclosed\n',
    'b.yaml': BAD,
    'c.bin.yaml': Buffer.from([0, 1, 2, 3, 0, 255]).toString('latin1'),
  });
  const out = JSON.parse(run(['check', '--format', 'json', '.'], { cwd: dir }).stdout);
  const byPath = Object.fromEntries(out.files.map((f: { path: string }) => [f.path, f]));
  assert.equal(byPath['a.yaml'].findings[0].ruleId, 'YAML001');
  assert.equal(byPath['b.yaml'].findings[0].ruleId, 'WIN002');
  assert.match(byPath['c.bin.yaml'].skipped, /binary/);
});

test('a file over --max-file-size is skipped with a clear reason, quickly', () => {
  const dir = tmp({ 'big.yaml': `data: "${'x'.repeat(3 * 1024 * 1024)}"\n` });
  const t0 = Date.now();
  const out = JSON.parse(run(['check', '--format', 'json', '--max-file-size', '1', 'big.yaml'], { cwd: dir }).stdout);
  assert.ok(Date.now() - t0 < 5000);
  assert.match(out.files[0].skipped, /over the 1 MiB limit/);
});

test('rules lists every rule with its severity', () => {
  const r = run(['rules', '--format', 'json']);
  const rules = JSON.parse(r.stdout);
  assert.ok(rules.some((x: { id: string }) => x.id === 'WIN001'));
  for (const x of rules) assert.match(x.severity, /^(error|warning|info)$/);
});

test('join: the kubeadm options are checked before anything is read (exit 2, one line saying what is expected)', () => {
  const cases: [string[], RegExp][] = [
    [['--cni', 'weave'], /--cni must be calico, flannel or auto, not "weave"/],
    [
      ['--kubernetes-version', '1.31.3'],
      /--kubernetes-version takes a release version vX\.Y\.Z, such as v1\.31\.3 \(got "1\.31\.3"\)/,
    ],
    [['--kube-reserved', 'cpu=500m,memory=1GB'], /--kube-reserved "1GB" is not a quantity/],
    [['--system-reserved', 'gpu=1'], /--system-reserved cannot reserve "gpu"/],
    [
      ['--system-reserved', 'memory'],
      /--system-reserved takes resource=quantity pairs separated by commas, such as cpu=500m,memory=1Gi/,
    ],
  ];
  for (const [args, message] of cases) {
    const r = run(['join', '--address', '10.0.0.5', '--via', 'kubeadm', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
  }
  const help = run(['join', '--help']);
  for (const option of [
    '--cni calico|flannel|auto',
    '--runtime-class',
    '--kube-reserved',
    '--system-reserved',
    '--kubernetes-version vX.Y.Z',
  ])
    assert.ok(help.stdout.includes(option), option);
});
