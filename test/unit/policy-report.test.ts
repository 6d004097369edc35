// The live findings as policy reports (core/reports/policy-report.ts): grouping by namespace, the
// cluster-scoped report, the CRDs' enums, pass results, both APIs, and the size cap. The real API
// server validates the same objects against the published CRDs in test/apiserver-suites/policy-reports.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLive, type LiveReport, type LiveState } from '../../src/core/live/check';
import {
  LEFT_OUT_ANNOTATION,
  MANAGED_BY_LABEL,
  PASS_RULE,
  REPORT_MAX_BYTES,
  REPORT_NAME,
  REPORT_POLICY,
  REPORT_SOURCE,
  policyReports,
} from '../../src/core/reports/policy-report';

const NOW = new Date('2026-11-27T10:00:00.500Z');
const options = { api: 'wgpolicyk8s' as const, now: NOW, version: '9.9.9' };

const empty: LiveReport = {
  objects: [],
  passed: [],
  summary: { objects: 0, errors: 0, warnings: 0, infos: 0 },
  ruleErrors: [],
};

function windowsDeployment(name: string, namespace: string, container: Record<string, unknown>): unknown {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, uid: `uid-${name}` },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          os: { name: 'windows' },
          nodeSelector: { 'kubernetes.io/os': 'windows' },
          containers: [
            {
              name,
              image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
              resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } },
              ...container,
            },
          ],
        },
      },
    },
  };
}

const state = (objects: unknown[]): LiveState => ({
  objects: objects as LiveState['objects'],
  events: [],
  windowsNodes: [],
  factObjects: [],
  snapshot: {
    name: 'test',
    flavour: 'kubernetes',
    windowsNodes: [],
    runtimeClasses: [],
  } as unknown as LiveState['snapshot'],
});

test('the live check lists the Windows objects it checked without a finding (pass), with their uid; not Linux ones', () => {
  const live = checkLive(
    state([
      windowsDeployment('clean', 'web', {}),
      windowsDeployment('bad', 'web', { securityContext: { privileged: true } }),
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'nginx', namespace: 'web', uid: 'uid-nginx' },
        spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
      },
    ]),
    { flavour: 'kubernetes' },
  );
  assert.deepEqual(live.passed, [
    { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'web', name: 'clean', uid: 'uid-clean' },
  ]);
  assert.deepEqual(
    live.objects.map((o) => [o.name, o.uid]),
    [['bad', 'uid-bad']],
  );
});

test('one report per namespace, sorted, the cluster-scoped one for objects without a namespace; results in the CRD enums', () => {
  const live: LiveReport = {
    ...empty,
    objects: [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'b',
        name: 'iis',
        uid: 'u1',
        findings: [
          {
            ruleId: 'WIN041',
            severity: 'error',
            message: 'privileged',
            path: 'spec.template.spec.containers[0].securityContext.privileged',
            apiRejects: false,
          },
          { ruleId: 'WIN062', severity: 'info', message: 'sizes', path: 'spec.template.spec.containers[0]' },
        ],
      },
      {
        apiVersion: 'v1',
        kind: 'Node',
        name: 'win-1',
        findings: [{ ruleId: 'WINF001', severity: 'warning', message: 'node says', path: '' }],
      },
    ],
    passed: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'a', name: 'agent', uid: 'u2' }],
  };
  const reports = policyReports(live, options);
  assert.deepEqual(
    reports.map((r) => `${r.kind} ${r.metadata.namespace ?? '-'} ${r.metadata.name}`),
    [`ClusterPolicyReport - ${REPORT_NAME}`, `PolicyReport a ${REPORT_NAME}`, `PolicyReport b ${REPORT_NAME}`],
  );
  for (const r of reports) {
    assert.equal(r.apiVersion, 'wgpolicyk8s.io/v1alpha2');
    assert.deepEqual(r.metadata.labels, { [MANAGED_BY_LABEL]: REPORT_SOURCE });
    assert.equal(r.metadata.annotations?.['kube-windows.io/version'], '9.9.9');
    // wgpolicyk8s.io has no report-level source (the CRD would refuse it): it is on each result.
    assert.equal(r.source, undefined);
  }
  const [cluster, a, b] = reports;
  assert.deepEqual(cluster.results[0].resources, [{ apiVersion: 'v1', kind: 'Node', name: 'win-1' }]);
  assert.equal(cluster.results[0].category, 'failures');
  assert.deepEqual(a.results, [
    {
      source: REPORT_SOURCE,
      policy: REPORT_POLICY,
      rule: PASS_RULE,
      result: 'pass',
      scored: true,
      message: 'DaemonSet agent passes every kube-windows rule that ran',
      timestamp: { seconds: Math.floor(NOW.getTime() / 1000), nanos: 0 },
      resources: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', namespace: 'a', uid: 'u2' }],
    },
  ]);
  assert.deepEqual(a.summary, { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 });
  assert.deepEqual(
    b.results.map((x) => [x.rule, x.severity, x.result, x.resources[0].fieldPath, x.properties?.apiRejects]),
    [
      ['WIN041', 'high', 'fail', 'spec.template.spec.containers[0].securityContext.privileged', 'false'],
      ['WIN062', 'info', 'warn', 'spec.template.spec.containers[0]', undefined],
    ],
  );
  assert.deepEqual(b.summary, { pass: 0, fail: 1, warn: 1, error: 0, skip: 0 });
  assert.match(b.results[0].properties?.docs ?? '', /#win041$/);
});

test('openreports.io: Report and ClusterReport, with the report-level source', () => {
  const live: LiveReport = { ...empty, passed: [{ apiVersion: 'v1', kind: 'Pod', namespace: 'x', name: 'p' }] };
  const [r] = policyReports(live, { ...options, api: 'openreports' });
  assert.equal(r.apiVersion, 'openreports.io/v1alpha1');
  assert.equal(r.kind, 'Report');
  assert.equal(r.source, REPORT_SOURCE);
  assert.deepEqual(policyReports(empty, { ...options, api: 'openreports' }), []);
});

test('a report over the size limit leaves out passes and the least severe results first, says how many, and counts them all', () => {
  const findings = Array.from({ length: 4000 }, (_, i) => ({
    ruleId: i % 2 === 0 ? 'WIN041' : 'WIN062',
    severity: (i % 2 === 0 ? 'error' : 'info') as 'error' | 'info',
    message: 'x'.repeat(300),
    path: `spec.containers[${i}]`,
  }));
  const live: LiveReport = {
    ...empty,
    objects: [{ apiVersion: 'v1', kind: 'Pod', namespace: 'big', name: 'p', findings }],
    passed: [{ apiVersion: 'v1', kind: 'Pod', namespace: 'big', name: 'q' }],
  };
  const [r] = policyReports(live, options);
  assert.ok(new TextEncoder().encode(JSON.stringify(r.results)).length <= REPORT_MAX_BYTES);
  const left = Number(r.metadata.annotations?.[LEFT_OUT_ANNOTATION]);
  assert.equal(r.results.length + left, 4001);
  assert.ok(left > 0);
  // The pass and every warning went before any failure; the failures kept are the first ones.
  assert.ok(!r.results.some((x) => x.result === 'pass' || x.result === 'warn'));
  const kept = r.results.map((x) => x.resources[0].fieldPath);
  assert.deepEqual(
    kept,
    Array.from({ length: kept.length }, (_, k) => `spec.containers[${2 * k}]`),
  );
  assert.deepEqual(r.summary, { pass: 1, fail: 2000, warn: 2000, error: 0, skip: 0 });
});

test('an object whose findings are all below --min-severity is hidden, not passed; --disable makes a rule not run', () => {
  const sized = windowsDeployment('noisy', 'web', {});
  // Without requests and limits: WIN062 (info) only.
  delete (sized as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } }).spec.template.spec
    .containers[0].resources;
  const atInfo = checkLive(state([sized]), { flavour: 'kubernetes' });
  assert.deepEqual(
    atInfo.objects.flatMap((o) => o.findings.map((f) => f.ruleId)),
    ['WIN062'],
  );
  const atWarning = checkLive(state([sized]), { flavour: 'kubernetes', minSeverity: 'warning' });
  assert.deepEqual([atWarning.objects, atWarning.passed], [[], []]);
  const disabled = checkLive(state([sized]), { flavour: 'kubernetes', check: { disable: ['WIN062'] } });
  assert.deepEqual(
    disabled.passed.map((o) => o.name),
    ['noisy'],
  );
});
