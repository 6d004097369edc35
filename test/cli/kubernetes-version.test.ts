// `check --kubernetes-version 1.N`, the release read from a snapshot, and `apiRejects` in JSON and SARIF.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Compiled to out/test/cli/: the repository root is three levels up.
const ROOT = resolve(__dirname, '..', '..', '..');
const CLI = resolve(ROOT, 'dist', 'cli.js');

function run(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface JsonFinding {
  ruleId: string;
  severity: string;
  apiRejects?: boolean;
  message: string;
}

const dir = mkdtempSync(join(tmpdir(), 'kw-release-'));
/** A declared Windows pod with pod-level resources (1.34+: rejected), runAsUser (rejected) and huge pages (Pending). */
const POD = join(dir, 'pod.yaml');
writeFileSync(
  POD,
  `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  os:
    name: windows
  nodeSelector:
    kubernetes.io/os: windows
  securityContext:
    runAsUser: 1000
  resources:
    limits: {cpu: '2', memory: 4Gi}
  containers:
    - name: web
      image: mcr.microsoft.com/windows/servercore:ltsc2022
      resources:
        limits:
          cpu: '1'
          memory: 1Gi
          hugepages-2Mi: 100Mi
`,
);

function json(args: string[]): { kubernetesVersion: string; findings: JsonFinding[] } {
  const r = run(['check', '--format', 'json', ...args, POD]);
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout) as { kubernetesVersion: string; files: { findings: JsonFinding[] }[] };
  return { kubernetesVersion: out.kubernetesVersion, findings: out.files.flatMap((f) => f.findings) };
}

const byRule = (list: JsonFinding[], id: string) => list.find((f) => f.ruleId === id);

test('check --kubernetes-version decides by that release, and JSON says which and apiRejects per error', () => {
  const latest = json([]);
  assert.equal(latest.kubernetesVersion, '1.37', 'the default is the newest release tested against');
  assert.deepEqual(
    latest.findings.map((f) => [f.ruleId, f.severity, f.apiRejects]),
    [
      ['WIN001', 'error', true],
      ['WIN058', 'error', true],
      ['WIN050', 'error', false],
    ],
  );
  const old = json(['--kubernetes-version', 'v1.33.4']);
  assert.equal(old.kubernetesVersion, '1.33');
  const win058 = byRule(old.findings, 'WIN058');
  assert.equal(win058?.severity, 'warning');
  assert.equal('apiRejects' in (win058 ?? {}), false, 'warnings carry no apiRejects');
  assert.match(win058?.message ?? '', /dropped silently by the API server on Kubernetes 1\.33/);
});

test('SARIF carries apiRejects on each error result, the rule descriptors and the release of the run', () => {
  const r = run(['check', '--format', 'sarif', '--kubernetes-version', '1.35', POD]);
  assert.equal(r.code, 1, r.stderr);
  const run0 = (
    JSON.parse(r.stdout) as {
      runs: {
        properties?: { kubernetesVersion?: string };
        tool: { driver: { rules: { id: string; properties: { apiRejects?: boolean; releases?: string } }[] } };
        results: { ruleId: string; level: string; properties?: { apiRejects?: boolean } }[];
      }[];
    }
  ).runs[0];
  assert.equal(run0.properties?.kubernetesVersion, '1.35');
  assert.deepEqual(
    run0.results.map((x) => [x.ruleId, x.properties?.apiRejects]),
    [
      ['WIN001', true],
      ['WIN058', true],
      ['WIN050', false],
    ],
  );
  const rule = run0.tool.driver.rules.find((x) => x.id === 'WIN058');
  assert.equal(rule?.properties.apiRejects, true);
  assert.match(rule?.properties.releases ?? '', /^1\.34 and later/);
});

test('the text output keeps one line per finding', () => {
  const r = run(['check', '--kubernetes-version', '1.35', POD]);
  assert.equal(r.code, 1);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.filter((l) => /^\S+pod\.yaml:\d+:\d+ (error|warning|info) /.test(l)).length, 3);
  assert.equal(lines.length, 5, 'three findings, a blank line and the summary');
});

test('a snapshot says which release the cluster runs; --kubernetes-version wins over it', () => {
  const snapshot = join(dir, 'facts.json');
  writeFileSync(
    snapshot,
    JSON.stringify({ name: 'old', serverVersion: 'v1.32.9', windowsNodes: [], runtimeClasses: [] }),
  );
  const fromCluster = json(['--snapshot', snapshot]);
  assert.equal(fromCluster.kubernetesVersion, '1.32');
  assert.equal(byRule(fromCluster.findings, 'WIN058')?.severity, 'warning');
  assert.match(byRule(fromCluster.findings, 'WIN058')?.message ?? '', /— from cluster old$/);
  assert.equal(json(['--snapshot', snapshot, '--kubernetes-version', '1.36']).kubernetesVersion, '1.36');
  writeFileSync(snapshot, JSON.stringify({ name: 'bad', serverVersion: 135, windowsNodes: [], runtimeClasses: [] }));
  const bad = run(['check', '--snapshot', snapshot, POD]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /serverVersion must be a string/);
});

test('--openshift-version gives the Kubernetes release it ships; a contradicting --kubernetes-version is refused', () => {
  assert.equal(json(['--openshift-version', '4.20']).kubernetesVersion, '1.33');
  assert.equal(json(['--openshift-version', '4.20', '--kubernetes-version', '1.33']).kubernetesVersion, '1.33');
  const r = run(['check', '--openshift-version', '4.20', '--kubernetes-version', '1.35', POD]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /--kubernetes-version 1\.35 contradicts --openshift-version 4\.20, which runs Kubernetes 1\.33/,
  );
});

test('--kubernetes-version refuses what is not a release it knows, and says what to give', () => {
  for (const [value, words] of [
    ['4.16.2', /takes a Kubernetes release such as 1\.37 \(got "4\.16\.2"\)/],
    ['latest', /got "latest"/],
    ['1.19', /1\.19 is older than 1\.25/],
  ] as const) {
    const r = run(['check', '--kubernetes-version', value, POD]);
    assert.equal(r.code, 2, value);
    assert.match(r.stderr, words);
  }
  assert.match(run(['check', '--help']).stdout, /--kubernetes-version 1\.N/);
});

test('rules --format json says each rule\u2019s releases and, for errors, apiRejects', () => {
  const r = run(['rules', '--format', 'json']);
  const rules = JSON.parse(r.stdout) as {
    id: string;
    severity: string;
    title: string;
    apiRejects?: boolean;
    releases: string;
  }[];
  for (const x of rules) {
    assert.ok(x.releases, x.id);
    assert.equal(typeof x.apiRejects === 'boolean', x.severity === 'error', x.id);
  }
  assert.equal(rules.find((x) => x.id === 'WIN002')?.apiRejects, true);
  assert.equal(rules.find((x) => x.id === 'WIN080')?.apiRejects, false);
  // Every error rule whose title says the API server rejects the object says so in apiRejects too.
  for (const x of rules.filter((r) => r.severity === 'error'))
    if (/rejected by the API server|API server rejects|the API server \(forbids|rejects\)/i.test(x.title))
      assert.equal(x.apiRejects, true, x.id);
});
