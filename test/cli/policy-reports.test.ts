// The refusals of `check --write-reports` / `--format policyreport` that need no cluster: each one
// line and exit code 2, before any kubeconfig is read. The cluster's own refusals (no CRD, RBAC) are
// in test/apiserver-suites/policy-reports.test.ts, on the real API server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { runCli } from '../support/run-cli';

const refusals: [string[], string][] = [
  [['check', '--write-reports'], '--write-reports needs --context: the reports are of the live objects of a cluster'],
  [
    ['check', '--format', 'policyreport', 'examples'],
    '--format policyreport needs --context: the reports are of the live objects of a cluster',
  ],
  [
    ['check', '--context', 'nowhere', '--write-reports', '--report-api', 'kyverno'],
    '--report-api must be wgpolicyk8s or openreports, not "kyverno"',
  ],
  [
    ['check', '--context', 'nowhere', '--report-api', 'openreports'],
    '--report-api goes with --write-reports or --format policyreport (it names the report API)',
  ],
  [
    ['check', '--context', 'nowhere', '--write-reports', 'examples'],
    '--write-reports is for the live check (no paths); with paths the files are checked',
  ],
  [
    ['check', '--context', 'nowhere', '--write-reports', '--format', 'policyreport'],
    '--format policyreport prints the reports that --write-reports would write; give one of them',
  ],
  [['check', '--format', 'policyreports', 'examples'], '--format must be text, json or sarif, not "policyreports"'],
];

for (const [args, message] of refusals) {
  test(`kube-windows ${args.join(' ')}: refused in one line, exit code 2`, async () => {
    const r = await runCli(args, { env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `kube-windows: ${message}\n`);
  });
}

test("the in-cluster audit's manifests (docs/policy-reports/) pass kube-windows's own check: no finding", async () => {
  const r = await runCli([
    'check',
    '--format',
    'json',
    '--fail-on',
    'info',
    resolve(__dirname, '..', '..', '..', 'docs', 'policy-reports'),
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout) as { summary: { files: number; findings: number; workloads: number } };
  assert.deepEqual([out.summary.files, out.summary.findings, out.summary.workloads], [2, 0, 1]);
});
