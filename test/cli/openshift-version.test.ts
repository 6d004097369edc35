import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Compiled to out/test/cli/: the repository root is three levels up.
const ROOT = resolve(__dirname, '..', '..', '..');
const CLI = resolve(ROOT, 'dist', 'cli.js');
const AZURE = resolve(ROOT, 'test', 'fixtures', 'machinesets', 'azure.yaml');
const GCP = resolve(ROOT, 'test', 'fixtures', 'machinesets', 'gcp.yaml');

function run(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function findings(stdout: string): { ruleId: string; message: string; range: { start: { line: number } } }[] {
  return (
    JSON.parse(stdout) as {
      files: { findings: { ruleId: string; message: string; range: { start: { line: number } } }[] }[];
    }
  ).files.flatMap((f) => f.findings);
}

test('check --openshift-version selects the support table row offline', () => {
  const clean = run(['check', '--format', 'json', AZURE]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.deepEqual(findings(clean.stdout), []);

  const old = run(['check', '--format', 'json', '--openshift-version', '4.6', AZURE]);
  assert.equal(old.code, 1, old.stderr);
  const list = findings(old.stdout);
  assert.deepEqual(
    list.map((f) => f.ruleId),
    ['WIN094'],
  );
  assert.match(
    list[0].message,
    /^Windows Server 2022 on Azure is not supported on OpenShift 4\.6 \(supported from 4\.11\)/,
  );
  assert.equal(list[0].range.start.line, 36);

  const gcp = run(['check', '--openshift-version', '4.10.3', GCP]);
  assert.equal(gcp.code, 1);
  assert.match(gcp.stdout, /WIN094 Windows nodes on GCP are not supported on OpenShift 4\.10 \(supported from 4\.12\)/);
  assert.equal(run(['check', '--openshift-version', '4.12', GCP]).code, 0);
});

test('check --openshift-version rejects a bad value or --flavour kubernetes with exit code 2', () => {
  for (const bad of ['four', '4', '3.11', '4.x', '']) {
    const r = run(['check', '--openshift-version', bad, AZURE]);
    assert.equal(r.code, 2, `${bad}: ${r.stdout}`);
    assert.match(
      r.stderr,
      new RegExp(
        `--openshift-version must be an OpenShift 4 \\(or later\\) release such as 4\\.16, not "${bad.replace('.', '\\.')}"`,
      ),
    );
    assert.equal(r.stdout, '');
  }
  const k = run(['check', '--openshift-version', '4.16', '--flavour', 'kubernetes', AZURE]);
  assert.equal(k.code, 2);
  assert.match(k.stderr, /cannot be used with --flavour kubernetes/);
});

test('check --help documents --openshift-version', () => {
  const r = run(['check', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /--openshift-version 4\.N/);
});

test('check --openshift-version: a Windows pod with imagePullSecrets is warned before 4.16 (OCP004), not from 4.16', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-ocp004-'));
  const file = join(dir, 'pull.yaml');
  writeFileSync(
    file,
    'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  os: {name: windows}\n  nodeSelector: {kubernetes.io/os: windows}\n  tolerations: [{key: os, operator: Exists, effect: NoSchedule}]\n  imagePullSecrets: [{name: creds}]\n  containers: [{name: c, image: mcr.microsoft.com/windows/servercore:ltsc2022, resources: {requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}}]\n',
  );
  const old = run(['check', '--format', 'json', '--openshift-version', '4.14', file]);
  assert.equal(old.code, 1, old.stderr);
  assert.deepEqual(
    findings(old.stdout).map((f) => [f.ruleId, f.range.start.line]),
    [['OCP004', 7]],
  );
  assert.equal(run(['check', '--openshift-version', '4.16.2', file]).code, 0);
});
