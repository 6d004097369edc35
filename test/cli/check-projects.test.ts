// `check` groups its files into projects (src/cli/projects.ts): facts read from files and the
// OpenShift flavour apply within a project, never across unrelated folders of one run. Real
// manifests from test/fixtures/rule-sources (SOURCES.tsv says where each comes from).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SOURCES = join(ROOT, 'test', 'fixtures', 'rule-sources');

interface Report {
  files: { path: string; findings: { ruleId: string; severity: string; message: string }[] }[];
}

function check(args: string[], cwd: string): Report {
  const r = spawnSync(process.execPath, [CLI, 'check', '--format', 'json', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  return JSON.parse(r.stdout) as Report;
}

const rules = (report: Report, path: string) =>
  (report.files.find((f) => f.path === path)?.findings ?? []).map((f) => f.ruleId);
const finding = (report: Report, path: string, id: string) =>
  report.files.find((f) => f.path === path)?.findings.find((f) => f.ruleId === id);

test('OpenShift is decided per project: an SCC in the folder makes its plain Windows pod an OpenShift pod (OCP003)', () => {
  const report = check(['openshift-project', 'plain-project'], SOURCES);
  const ocp = finding(report, 'openshift-project/windows-app/pod-ps-script-probe.yaml', 'OCP003');
  assert.ok(ocp, JSON.stringify(report.files, null, 1));
  // The finding names what made the project OpenShift: the SCC's file and line.
  assert.match(
    ocp.message,
    /This project is OpenShift: SecurityContextConstraints in openshift-project\/fluent-bit-openshift-security-context-constraints\.yaml:2/,
  );
  // The same pod in an unrelated folder of the same run is not an OpenShift pod.
  assert.ok(!rules(report, 'plain-project/pod-ps-script-probe.yaml').includes('OCP003'));
  // Checked alone, the pod's own file says nothing of OpenShift: as before.
  assert.ok(
    !rules(
      check(['openshift-project/windows-app'], SOURCES),
      'openshift-project/windows-app/pod-ps-script-probe.yaml',
    ).includes('OCP003'),
  );
});

test('a RuntimeClass read from a file applies within its project only, and the finding names its file and line', () => {
  const report = check(['facts-projects/cluster-a', 'facts-projects/cluster-b'], SOURCES);
  const pinned = finding(report, 'facts-projects/cluster-a/iis.yaml', 'WIN080');
  assert.ok(pinned, JSON.stringify(report.files, null, 1));
  assert.match(
    pinned.message,
    /pinned to 10\.0\.17763 by RuntimeClass "windows-2019", defined in facts-projects\/cluster-a\/runtimeClasses\.yml:3/,
  );
  // cluster-b has no RuntimeClass: the one of cluster-a says nothing about its pods.
  assert.deepEqual(
    rules(report, 'facts-projects/cluster-b/iis.yaml').filter((id) => id === 'WIN080'),
    [],
  );
  // One folder argument holding both is one project: the RuntimeClass applies to both.
  const together = check(['facts-projects'], SOURCES);
  assert.ok(finding(together, 'facts-projects/cluster-b/iis.yaml', 'WIN080'));
});

test('a kustomization is a project, and an overlay sees the facts of the bases it builds on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-projects-'));
  const put = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const runtimeClass = readFileSync(join(SOURCES, 'facts-projects', 'cluster-a', 'runtimeClasses.yml'), 'utf8');
  const deployment = readFileSync(join(SOURCES, 'facts-projects', 'cluster-a', 'iis.yaml'), 'utf8');
  put('base/kustomization.yaml', 'resources:\n  - runtimeClasses.yml\n');
  put('base/runtimeClasses.yml', runtimeClass);
  put('overlays/prod/kustomization.yaml', 'resources:\n  - ../../base\n  - iis.yaml\n');
  put('overlays/prod/iis.yaml', deployment);
  put('other/kustomization.yaml', 'resources:\n  - iis.yaml\n');
  put('other/iis.yaml', deployment);
  const report = check(['.'], dir);
  const w = finding(report, 'overlays/prod/iis.yaml', 'WIN080');
  assert.ok(w, JSON.stringify(report.files, null, 1));
  assert.match(w.message, /defined in base\/runtimeClasses\.yml:3/);
  assert.ok(!rules(report, 'other/iis.yaml').includes('WIN080'), 'an unrelated kustomization');
});
