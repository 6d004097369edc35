// `kube-windows check .` in an ordinary repository (test/fixtures/ordinary-repo): a GitHub workflow
// full of ${{ … }}, action.yml, docker-compose with ${VAR}, an Ansible playbook with Jinja, an
// OpenAPI spec, .pre-commit-config.yaml, mkdocs.yml with python tags, a README, and one real Windows
// Deployment with its Kustomization. Only the Kubernetes files are checked; the rest is counted as
// "not Kubernetes" and never gets a finding, so CI passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const CLI = resolve(ROOT, 'dist', 'cli.js');
const REPO = resolve(ROOT, 'test', 'fixtures', 'ordinary-repo');

function check(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, 'check', ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const NOT_KUBERNETES = [
  '.github/dependabot.yml',
  '.github/workflows/ci.yml',
  '.pre-commit-config.yaml',
  'action.yml',
  'ansible/playbook.yml',
  'api/openapi.yaml',
  'docker-compose.yml',
  'mkdocs.yml',
];

test('check . passes on an ordinary repository and says what it skipped', () => {
  const r = check(['.']);
  assert.equal(r.stderr, '');
  assert.equal(
    r.stdout,
    '✔ no findings in 2 files (1 workload, 1 for Windows); 8 YAML files not Kubernetes, skipped\n',
  );
  assert.equal(r.code, 0);
});

test('JSON lists the files of other tools under notKubernetes and counts them; SARIF has no result for them', () => {
  const r = check(['--format', 'json', '.']);
  assert.equal(r.code, 0);
  const json = JSON.parse(r.stdout) as {
    files: { path: string; findings: unknown[] }[];
    notKubernetes: string[];
    summary: { files: number; notKubernetes: number; findings: number; unreadable: number };
  };
  assert.deepEqual(
    json.files.map((f) => f.path),
    ['deploy/kustomization.yaml', 'deploy/web.yaml'],
  );
  assert.deepEqual([...json.notKubernetes].sort(), NOT_KUBERNETES);
  assert.equal(json.summary.notKubernetes, 8);
  assert.equal(json.summary.files, 2);
  assert.equal(json.summary.findings, 0);
  assert.equal(json.summary.unreadable, 0);
  const sarif = JSON.parse(check(['--format', 'sarif', '.']).stdout);
  assert.deepEqual(sarif.runs[0].results, []);
  assert.equal(sarif.runs[0].invocations[0].executionSuccessful, true);
});

test('each file of another tool, named alone, gets no finding (no YAML002 for ${{ }} or ${VAR})', () => {
  for (const path of NOT_KUBERNETES) {
    const r = check(['--format', 'json', '--fail-on', 'info', path]);
    assert.equal(r.code, 0, `${path}: ${r.stdout}${r.stderr}`);
    const json = JSON.parse(r.stdout);
    assert.deepEqual(json.notKubernetes, [path], path);
    assert.deepEqual(json.files, [], path);
  }
});

test('a named file that is not YAML is refused with one line; in a directory walk it is simply not read', () => {
  const r = check(['README.md', 'deploy/web.yaml']);
  assert.equal(r.stderr, 'kube-windows: README.md: not a YAML file (.md); check reads .yaml, .yml and .json files\n');
  assert.match(r.stdout, /✖ 1 path could not be read: README\.md \(not a YAML file/);
  assert.equal(r.code, 2);
  // docs/index.md is walked past, not refused; and a folder without YAML is not "no findings in 0 files".
  const docs = check(['docs']);
  assert.equal(docs.stderr, '');
  assert.equal(docs.stdout, 'nothing checked: no YAML file found\n');
  assert.equal(docs.code, 0);
});
