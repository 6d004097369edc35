// `check` as CI uses it: --fail-on decides the exit code (info never fails by default), inputs that
// cannot be read are said in the summary, JSON and SARIF (never "no findings in 0 files"), --fix
// applies only what keeps the object's meaning (--fix=all the rest, --dry-run shows a diff), and the
// command line's edges (a closed pipe, no command, an unknown option, broken YAML) read like a tool's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

function run(args: string[], cwd?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tmp(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kw-ci-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const pod = (spec: string) => `apiVersion: v1
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
${spec}`;

// An info finding only: a RuntimeClass that tolerates the upstream taint but not OpenShift's (RTC002,
// info off OpenShift).
const INFO_ONLY = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: windows-2022}
handler: runhcs-wcow-process
scheduling:
  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
`;

// A warning only: the deprecated beta OS label beside the current one.
const WARNING_ONLY = pod('').replace(
  'nodeSelector: {kubernetes.io/os: windows}',
  'nodeSelector: {kubernetes.io/os: windows, beta.kubernetes.io/os: windows}',
);

test('--fail-on: warning by default (info never fails a build), error, info, never', () => {
  const dir = tmp({ 'info.yaml': INFO_ONLY, 'warning.yaml': WARNING_ONLY });
  const info = run(['check', 'info.yaml'], dir);
  assert.match(info.stdout, /RTC002/);
  assert.match(info.stdout, /0 errors, 0 warnings, 1 info/);
  assert.equal(info.code, 0, 'an info finding does not fail by default');
  assert.equal(run(['check', '--fail-on', 'info', 'info.yaml'], dir).code, 1);
  const warning = run(['check', 'warning.yaml'], dir);
  assert.match(warning.stdout, /warning WIN071/);
  assert.equal(warning.code, 1);
  assert.equal(run(['check', '--fail-on', 'error', 'warning.yaml'], dir).code, 0);
  assert.equal(run(['check', '--fail-on', 'never', 'warning.yaml'], dir).code, 0);
  // --min-severity filters what is reported; --fail-on judges what is reported.
  assert.equal(run(['check', '--min-severity', 'error', '--fail-on', 'info', 'warning.yaml'], dir).code, 0);
  const bad = run(['check', '--fail-on', 'sometimes', 'info.yaml'], dir);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--fail-on must be error, warning, info or never/);
  const help = run(['check', '--help']).stdout;
  assert.match(help, /--fail-on LEVEL/);
  assert.match(help, /default warning: info findings\s+never fail a build/);
});

test('a missing path or a glob that matches nothing: the summary says so, JSON and SARIF record it, exit 2', () => {
  const dir = tmp({ 'good.yaml': pod(''), 'notes.txt': 'x' });
  const missing = run(['check', 'nope.yaml'], dir);
  assert.doesNotMatch(missing.stdout, /no findings in 0 files/);
  assert.equal(
    missing.stdout,
    '✖ 1 path could not be read: nope.yaml (no such file or directory)\n✖ nothing checked\n',
  );
  assert.equal(missing.stderr, 'kube-windows: nope.yaml: no such file or directory\n');
  assert.equal(missing.code, 2);

  const glob = run(['check', 'deploy/**/*.yaml', 'good.yaml'], dir);
  assert.match(glob.stdout, /could not be read: deploy\/\*\*\/\*\.yaml \(no files match this pattern\)/);
  assert.match(glob.stdout, /no findings in 1 file/);
  assert.equal(glob.code, 2);
  assert.match(run(['check', '*.txt'], dir).stdout, /no YAML file matches this pattern/);

  const json = JSON.parse(run(['check', '--format', 'json', 'nope.yaml', 'good.yaml'], dir).stdout);
  assert.deepEqual(json.unreadable, [{ path: 'nope.yaml', reason: 'no such file or directory' }]);
  assert.equal(json.summary.unreadable, 1);

  const sarif = JSON.parse(run(['check', '--format', 'sarif', 'nope.yaml'], dir).stdout);
  const invocation = sarif.runs[0].invocations[0];
  assert.equal(invocation.executionSuccessful, false);
  assert.deepEqual(invocation.toolExecutionNotifications, [
    {
      level: 'error',
      message: { text: 'nope.yaml: no such file or directory; it was not checked' },
      locations: [{ physicalLocation: { artifactLocation: { uri: 'nope.yaml' } } }],
    },
  ]);
});

// WIN002 (runAsUser on a Windows pod): its first fix replaces the identity (runAsUserName), its second
// removes the rejected field. A DeploymentConfig for Windows: its only fix converts the kind.
const RUN_AS_USER = pod(`      securityContext:
        runAsUser: 1000
`);
const DEPLOYMENT_CONFIG = `apiVersion: apps.openshift.io/v1
kind: DeploymentConfig
metadata: {name: web}
spec:
  replicas: 1
  selector: {app: web}
  template:
    metadata: {labels: {app: web}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, operator: Exists, effect: NoSchedule}]
      containers:
        - name: web
          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
          resources: {limits: {cpu: 500m, memory: 512Mi}}
`;

test('--fix applies only fixes that keep the meaning; --fix=all the rest; the text marks which', () => {
  const dir = tmp({ 'user.yaml': RUN_AS_USER, 'dc.yaml': DEPLOYMENT_CONFIG });
  const report = run(['check', 'user.yaml', 'dc.yaml'], dir).stdout;
  assert.match(report, /WIN002 .*\(fixable\)$/m);
  assert.match(report, /OCP001 .*\(fixable with --fix=all\)$/m);

  const safe = run(['check', '--fix', 'user.yaml', 'dc.yaml'], dir);
  const user = readFileSync(join(dir, 'user.yaml'), 'utf8');
  assert.doesNotMatch(user, /runAsUser/, 'the rejected field is removed');
  assert.doesNotMatch(user, /runAsUserName/, 'no identity is made up');
  assert.equal(readFileSync(join(dir, 'dc.yaml'), 'utf8'), DEPLOYMENT_CONFIG, 'the kind is not converted');
  assert.match(safe.stderr, /1 finding has a fix that changes the object .*--fix=all/);

  const all = run(['check', '--fix=all', 'dc.yaml'], dir);
  assert.match(readFileSync(join(dir, 'dc.yaml'), 'utf8'), /^kind: Deployment$/m);
  assert.doesNotMatch(all.stderr, /--fix=all/);
  assert.equal(run(['check', '--fix=some', 'dc.yaml'], dir).code, 2);

  const json = JSON.parse(run(['check', '--format', 'json', 'user.yaml'], tmp({ 'user.yaml': RUN_AS_USER })).stdout);
  assert.deepEqual(
    json.files[0].findings
      .find((f: { ruleId: string }) => f.ruleId === 'WIN002')
      .fixes.map((x: { kind: string }) => x.kind),
    ['rewrite', 'safe'],
  );
});

test('--fix --dry-run prints a unified diff and writes nothing', () => {
  const dir = tmp({ 'user.yaml': RUN_AS_USER });
  const r = run(['check', '--fix', '--dry-run', 'user.yaml'], dir);
  assert.equal(readFileSync(join(dir, 'user.yaml'), 'utf8'), RUN_AS_USER);
  assert.match(r.stdout, /^--- a\/user\.yaml\n\+\+\+ b\/user\.yaml\n@@ /);
  assert.match(r.stdout, /^- {6}securityContext:$/m);
  assert.match(r.stdout, /^- {8}runAsUser: 1000$/m);
  assert.doesNotMatch(r.stdout, /^\+(?!\+\+ )/m, 'only lines removed');
  assert.match(r.stderr, /--dry-run: 1 fix would be applied; no file was written/);
  assert.equal(r.code, 1, 'the findings are still there');
  // What docs/check.md shows: the diff is one git applies, and applied it is what --fix writes.
  const apply = spawnSync('git', ['apply', '--check', '-'], { cwd: dir, input: r.stdout, encoding: 'utf8' });
  assert.equal(apply.status, 0, apply.stderr);
  assert.equal(run(['check', '--dry-run', 'user.yaml'], dir).code, 2, '--dry-run goes with --fix');
  // Standard input can be shown a diff (it cannot be rewritten).
  const stdin = spawnSync(process.execPath, [CLI, 'check', '--fix', '--dry-run', '-'], {
    input: RUN_AS_USER,
    encoding: 'utf8',
  });
  assert.match(stdin.stdout, /^--- a\/<stdin>/);
});

test('a template in a templates/ folder without Chart.yaml is YAML002 from any working directory', () => {
  const dir = tmp({ 'templates/cm.yaml': '{{- if .Values.on }}\nfoo: {{ .Values.x }}\n{{- end }}\n' });
  for (const [cwd, path] of [
    [dir, 'templates/cm.yaml'],
    [join(dir, 'templates'), 'cm.yaml'],
  ]) {
    const r = run(['check', '--format', 'json', path], cwd);
    const rules = JSON.parse(r.stdout).files.flatMap((f: { findings: { ruleId: string }[] }) =>
      f.findings.map((x) => x.ruleId),
    );
    assert.deepEqual(rules, ['YAML002'], cwd);
  }
});

test('rules | head: a closed pipe ends the command quietly', async () => {
  const child = spawn(process.execPath, [CLI, 'rules', '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // the reader is gone before the first line
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
  assert.equal(stderr, '');
  assert.equal(code, 0);
});

test('no command and usage errors go to stderr with exit 2, in our words', () => {
  const none = run([]);
  assert.equal(none.code, 2);
  assert.equal(none.stdout, '');
  assert.match(none.stderr, /^kube-windows \S+: Windows compatibility checks/);
  const unknown = run(['check', '--frobnicate', '.']);
  assert.equal(
    unknown.stderr,
    'kube-windows: unknown option --frobnicate; "kube-windows check --help" lists the options\n',
  );
  assert.equal(unknown.code, 2);
  assert.equal(run(['check', '--format']).stderr, 'kube-windows: --format needs a value (--format text|json|sarif)\n');
  assert.equal(
    run(['rules', '--failures=yes']).stderr.trim(),
    'kube-windows: --failures takes no value; "kube-windows rules --help" lists the options',
  );
});

test('an unclosed flow mapping is reported where it was opened, in our words', () => {
  const dir = tmp({
    'broken.yaml': `apiVersion: v1
kind: Pod
metadata: {name: web
spec:
  containers: []
`,
  });
  const r = run(['check', 'broken.yaml'], dir);
  assert.match(
    r.stdout,
    /^broken\.yaml:3:11 error YAML001 not valid YAML: the flow mapping "\{" opened here is not closed \(\} missing\); this document was not analysed$/m,
  );
  assert.equal(r.code, 1);
});
