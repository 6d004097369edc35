// `kube-windows check --context … --write-reports` against a real kube-apiserver of this file's own
// (the report CRDs from their Go modules, kyverno v1.19.1 and reports-api v0.2.1, installed by
// scripts/apiserver-crds.mjs; own, because -A writes in every namespace and one test deletes a CRD):
// reports written and validated by the server against the published schemas (fieldValidation=Strict:
// a field the CRD does not know is refused, never dropped), a re-run updating in place, results of a
// fixed and of a deleted object removed, a report no longer needed deleted, both report APIs, the
// in-cluster audit's RBAC and kubeconfig from docs/policy-reports/ (least privilege: the denial named
// without the write role, the whole run with it), and the refusal when the CRD is not installed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { runCli } from '../support/run-cli';
import {
  CONTEXT_ADMIN,
  ROOT,
  ensureNamespace,
  expectStatus,
  resourceInfo,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

const NS = uniqueName('kw-reports');
const NS2 = uniqueName('kw-reports-b');
let api: RealApiServer;

interface Report {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  source?: string;
  summary: Record<string, number>;
  results: {
    source: string;
    policy: string;
    rule: string;
    category?: string;
    severity?: string;
    result: string;
    scored?: boolean;
    message: string;
    timestamp: { seconds: number; nanos: number };
    resources: {
      apiVersion: string;
      kind: string;
      name: string;
      namespace?: string;
      uid?: string;
      fieldPath?: string;
    }[];
    properties?: Record<string, string>;
  }[];
}

const POLR = (ns: string) => `/apis/wgpolicyk8s.io/v1alpha2/namespaces/${ns}/policyreports`;

const RESOURCES = { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } };

function deployment(name: string, ns: string, privileged: boolean): SeedObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: { 'kubernetes.io/os': 'windows' },
          tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
          // A clean one says it is for Windows (OCP003 on this OpenShift-like server) and sizes its container (WIN062).
          ...(privileged ? {} : { os: { name: 'windows' } }),
          containers: [
            {
              name,
              image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
              ...(privileged ? { securityContext: { privileged: true } } : { resources: RESOURCES }),
            },
          ],
        },
      },
    },
  };
}

const linux: SeedObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx', namespace: NS },
  spec: {
    selector: { matchLabels: { app: 'nginx' } },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    },
  },
};

const uidOf = (o: Record<string, unknown>) => (o.metadata as { uid: string }).uid;
const live = (...args: string[]) =>
  runCli(['check', '--context', CONTEXT_ADMIN, '--kubeconfig', api.kubeconfigPath, ...args]);

async function reports(ns: string, path = POLR(ns)): Promise<Report[]> {
  const r = await api.request<{ items: Report[] }>(path, {
    query: { labelSelector: 'app.kubernetes.io/managed-by=kube-windows' },
  });
  return expectStatus(r, [200], `listing reports in ${ns}`).items;
}

/** What a result says, without the time it was observed. */
const stable = (r: Report) => r.results.map(({ timestamp: _, ...rest }) => rest);

let iisUid = '';
let webUid = '';

before(async () => {
  api = await useApiServer({ own: true });
  await ensureNamespace(api, NS);
  await ensureNamespace(api, NS2);
  const [iis, web] = await seed(api, [deployment('iis', NS, true), deployment('web', NS, false), linux]);
  iisUid = uidOf(iis);
  webUid = uidOf(web);
  await seed(api, [deployment('api', NS2, true)]);
});

after(async () => {
  await api?.stop();
});

test('--write-reports writes one PolicyReport for the namespace, validated by the server against the published CRD', async () => {
  const r = await live('-n', NS, '--write-reports', '--format', 'json');
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `kube-windows: wrote 1 PolicyReport (${NS})\n`);
  const findings = JSON.parse(r.stdout) as { objects: { name: string; findings: { ruleId: string }[] }[] };
  const [report, ...others] = await reports(NS);
  assert.equal(others.length, 0);
  assert.equal(report.kind, 'PolicyReport');
  assert.equal(report.metadata.name, 'kube-windows');
  const fails = report.results.filter((x) => x.result === 'fail');
  const warns = report.results.filter((x) => x.result === 'warn');
  // Every finding of the check is a result, on the object it is about, with its uid and field path.
  assert.deepEqual(
    [...fails, ...warns].map((x) => `${x.resources[0].name} ${x.rule}`).sort(),
    findings.objects.flatMap((o) => o.findings.map((f) => `${o.name} ${f.ruleId}`)).sort(),
  );
  const privileged = fails.find((x) => x.resources[0].fieldPath?.endsWith('securityContext.privileged'));
  assert.ok(privileged, JSON.stringify(fails));
  assert.deepEqual(privileged.resources, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'iis',
      namespace: NS,
      uid: iisUid,
      fieldPath: 'spec.template.spec.containers[0].securityContext.privileged',
    },
  ]);
  assert.equal(privileged.severity, 'high');
  assert.equal(privileged.source, 'kube-windows');
  assert.equal(privileged.policy, 'kube-windows');
  assert.equal(privileged.category, 'runtime');
  assert.match(privileged.properties?.docs ?? '', /#win\d+$/);
  // The clean Windows Deployment passes; the Linux one is not a Windows object and is not in the report.
  const passes = report.results.filter((x) => x.result === 'pass');
  assert.deepEqual(
    passes.map((x) => x.resources[0]),
    [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: NS, uid: webUid }],
  );
  assert.ok(!report.results.some((x) => x.resources[0].name === 'nginx'));
  // Severities are the CRD's enum: an error is high and fails, a warning medium and fails, an info finding warns.
  assert.deepEqual(
    report.results.filter((x) => x.result !== 'pass').map((x) => `${x.rule} ${x.severity} ${x.result}`),
    ['OCP003 medium fail', 'WIN041 high fail', 'WIN062 info warn'],
  );
  assert.deepEqual(report.summary, { pass: 1, fail: 2, warn: 1, error: 0, skip: 0 });
});

test('the printed reports (--format policyreport) are what the server stored: no field dropped by the schema', async () => {
  const printed = await live('-n', NS, '--format', 'policyreport');
  assert.equal(printed.code, 1, printed.stderr);
  const docs = loadAll(printed.stdout) as Report[];
  assert.equal(docs.length, 1);
  const [stored] = await reports(NS);
  // Every top-level field and every field of the metadata we set: what the schema does not know would be missing.
  const { metadata, ...rest } = docs[0];
  const { metadata: storedMeta, ...storedRest } = stored;
  assert.deepEqual(Object.keys(storedRest).sort(), Object.keys(rest).sort());
  for (const k of Object.keys(metadata) as (keyof typeof metadata)[]) assert.deepEqual(storedMeta[k], metadata[k], k);
  assert.deepEqual(stable(stored), stable(docs[0]));
  assert.deepEqual(stored.summary, docs[0].summary);
});

test('a re-run updates the report in place: the same object, no duplicate', async () => {
  const [before] = await reports(NS);
  const r = await live('-n', NS, '--write-reports', '--fail-on', 'never');
  assert.equal(r.code, 0, r.stderr);
  const after = await reports(NS);
  assert.equal(after.length, 1);
  assert.equal(after[0].metadata.uid, before.metadata.uid);
  assert.deepEqual(stable(after[0]), stable(before));
});

test("a fixed object's failures leave the report (it passes now); a deleted object's results leave it too", async () => {
  const path = `/apis/apps/v1/namespaces/${NS}/deployments/iis`;
  expectStatus(
    await api.request(path, {
      method: 'PATCH',
      contentType: 'application/json-patch+json',
      body: [
        { op: 'remove', path: '/spec/template/spec/containers/0/securityContext' },
        { op: 'add', path: '/spec/template/spec/os', value: { name: 'windows' } },
        { op: 'add', path: '/spec/template/spec/containers/0/resources', value: RESOURCES },
      ],
    }),
    [200],
    'fixing iis',
  );
  let r = await live('-n', NS, '--write-reports');
  assert.equal(r.code, 0, r.stderr);
  let [report] = await reports(NS);
  assert.deepEqual(
    report.results.map((x) => `${x.result} ${x.resources[0].name}`),
    ['pass iis', 'pass web'],
  );
  assert.deepEqual(report.summary, { pass: 2, fail: 0, warn: 0, error: 0, skip: 0 });

  expectStatus(await api.request(path, { method: 'DELETE' }), [200], 'deleting iis');
  r = await live('-n', NS, '--write-reports');
  assert.equal(r.code, 0, r.stderr);
  [report] = await reports(NS);
  assert.deepEqual(
    report.results.map((x) => `${x.result} ${x.resources[0].name}`),
    ['pass web'],
  );
});

test('a namespace left without Windows objects loses its report', async () => {
  expectStatus(
    await api.request(`/apis/apps/v1/namespaces/${NS}/deployments/web`, { method: 'DELETE' }),
    [200],
    'deleting web',
  );
  const r = await live('-n', NS, '--write-reports');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    'kube-windows: no Windows objects found: no PolicyReport written; deleted 1 report no longer needed\n',
  );
  assert.deepEqual(await reports(NS), []);
  // Put a Windows workload back for the tests that follow.
  await seed(api, [deployment('iis', NS, true)]);
});

test('-A writes a report in every namespace with Windows objects and deletes ours elsewhere; --report-api openreports writes Reports', async () => {
  // A report of ours in a namespace without Windows objects (left by an earlier run): deleted by -A.
  const empty = uniqueName('kw-reports-empty');
  await ensureNamespace(api, empty);
  expectStatus(
    await api.request(POLR(empty), {
      body: {
        apiVersion: 'wgpolicyk8s.io/v1alpha2',
        kind: 'PolicyReport',
        metadata: {
          name: 'kube-windows',
          namespace: empty,
          labels: { 'app.kubernetes.io/managed-by': 'kube-windows' },
        },
        results: [],
      },
    }),
    [201],
    'an old report',
  );
  // A namespace being deleted (with no controller manager here, it stays Terminating with its objects):
  // its objects are read, its report cannot be written; said, and the rest is written.
  const gone = uniqueName('kw-reports-gone');
  await ensureNamespace(api, gone);
  await seed(api, [deployment('old', gone, true)]);
  expectStatus(await api.request(`/api/v1/namespaces/${gone}`, { method: 'DELETE' }), [200], 'deleting a namespace');
  let r = await live('-A', '--write-reports', '--fail-on', 'never');
  assert.equal(r.code, 0, r.stderr);
  const [first, second, ...more] = r.stderr.split('\n');
  assert.equal(first, `kube-windows: PolicyReport ${gone}/kube-windows not written: its namespace is being deleted`);
  assert.match(second, /^kube-windows: wrote 2 PolicyReports \(.*\); deleted 1 report no longer needed$/);
  assert.deepEqual(more, ['']);
  r.stderr = second;
  assert.ok(r.stderr.includes(NS) && r.stderr.includes(NS2), r.stderr);
  assert.deepEqual(await reports(empty), []);
  assert.equal((await reports(NS2))[0].results[0].resources[0].name, 'api');

  r = await live('-n', NS2, '--write-reports', '--report-api', 'openreports', '--fail-on', 'never');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, `kube-windows: wrote 1 Report (${NS2})\n`);
  const [rep] = await reports(NS2, `/apis/openreports.io/v1alpha1/namespaces/${NS2}/reports`);
  assert.equal(rep.kind, 'Report');
  assert.equal(rep.source, 'kube-windows');
  assert.deepEqual(stable(rep), stable((await reports(NS2))[0]));
});

test("the audit's least-privilege RBAC and in-cluster kubeconfig (docs/policy-reports/) run the audit; without the write role the denial is named", async () => {
  const dir = join(ROOT, 'docs', 'policy-reports');
  const rbac = loadAll(readFileSync(join(dir, 'audit-rbac.yaml'), 'utf8')) as SeedObject[];
  const cron = loadAll(readFileSync(join(dir, 'audit-cronjob.yaml'), 'utf8')) as SeedObject[];
  // Applied as they are, with a server-side dry run first (strict: an unknown field is an error).
  for (const o of [...rbac, ...cron]) {
    const info = await resourceInfo(api, o.apiVersion, o.kind, o.metadata.namespace);
    assert.ok(info, `${o.apiVersion} ${o.kind} is served`);
    if (o.kind !== 'Namespace' && o.metadata.namespace) await ensureNamespace(api, o.metadata.namespace);
    const path = `${info.path}/${o.metadata.name}`;
    const dry = await api.request(path, {
      method: 'PATCH',
      contentType: 'application/apply-patch+yaml',
      body: o,
      query: { fieldManager: 'kube-windows-test', fieldValidation: 'Strict', dryRun: 'All' },
    });
    expectStatus(dry, [200, 201], `server-side dry run of ${o.kind} ${o.metadata.name}`);
  }
  // The audit runs as the restricted user here (a ServiceAccount's token needs the controller manager):
  // the docs' ClusterRoles bound to it in place of the ServiceAccount.
  const bind = async (role: string) =>
    expectStatus(
      await api.request('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `${role}-test` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'User', name: 'kube-windows-restricted', apiGroup: 'rbac.authorization.k8s.io' }],
        },
      }),
      [201],
      `binding ${role}`,
    );
  for (const o of rbac.filter((x) => x.kind === 'ClusterRole'))
    expectStatus(
      await api.request('/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: o }),
      [201],
      `ClusterRole ${o.metadata.name}`,
    );
  await bind('kube-windows-audit-read');

  // The CronJob's kubeconfig, its token and CA files put where a pod would have them (here: a folder).
  const tmp = mkdtempSync(join(tmpdir(), 'kw-audit-'));
  try {
    const kubeconfig = (cron.find((o) => o.kind === 'ConfigMap') as unknown as { data: { kubeconfig: string } }).data
      .kubeconfig;
    writeFileSync(join(tmp, 'token'), api.restrictedToken);
    writeFileSync(join(tmp, 'ca.crt'), api.ca);
    writeFileSync(
      join(tmp, 'kubeconfig'),
      kubeconfig
        .replaceAll('/var/run/secrets/kubernetes.io/serviceaccount', tmp)
        .replace('https://kubernetes.default.svc', api.server),
    );
    const job = cron.find((o) => o.kind === 'CronJob') as unknown as {
      spec: { jobTemplate: { spec: { template: { spec: { containers: { command: string[]; args: string[] }[] } } } } };
    };
    const container = job.spec.jobTemplate.spec.template.spec.containers[0];
    assert.deepEqual(container.command, ['kube-windows']);
    const args = container.args.map((a) => (a === '/etc/kube-windows/kubeconfig' ? join(tmp, 'kubeconfig') : a));

    const denied = await runCli(args);
    assert.equal(denied.code, 2, denied.stderr);
    assert.match(
      denied.stderr,
      /^kube-windows: You are not allowed to (list|patch|create) (cluster)?policyreports\.wgpolicyk8s\.io (cluster-wide|in namespace "[^"]+") on cluster "in-cluster" \(403 Forbidden\)\. Ask a cluster administrator for this permission\.\n$/,
    );

    await bind('kube-windows-audit-reports');
    const r = await runCli(args);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^kube-windows: wrote \d+ PolicyReports \(/m);
    assert.equal((await reports(NS2))[0].results[0].resources[0].name, 'api');

    // A reader that may not list DaemonSets: a report would drop their results, so none is written.
    const [before] = await reports(NS2);
    const readRole = rbac.find(
      (x) => x.kind === 'ClusterRole' && x.metadata.name === 'kube-windows-audit-read',
    ) as unknown as {
      rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    };
    expectStatus(
      await api.request('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'kw-read-no-daemonsets' },
          rules: readRole.rules.map((x) => ({ ...x, resources: x.resources.filter((res) => res !== 'daemonsets') })),
        },
      }),
      [201],
      'a read role without daemonsets',
    );
    expectStatus(
      await api.request('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kube-windows-audit-read-test', {
        method: 'DELETE',
      }),
      [200],
      'unbinding the read role',
    );
    await bind('kw-read-no-daemonsets');
    const partial = await runCli(args);
    assert.equal(partial.code, 2, partial.stderr);
    assert.match(
      partial.stderr.split('\n').at(-2) ?? '',
      /^kube-windows: reports not written: DaemonSets could not be read, and a report without them would drop their results; grant list on them \(docs\/policy-reports\.md has the RBAC\)$/,
    );
    assert.equal((await reports(NS2))[0].metadata.resourceVersion, before.metadata.resourceVersion);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a report whose fields another field manager owns is a conflict, named, never forced', async () => {
  const path = `${POLR(NS2)}/kube-windows`;
  expectStatus(
    await api.request(path, {
      method: 'PATCH',
      contentType: 'application/apply-patch+yaml',
      body: {
        apiVersion: 'wgpolicyk8s.io/v1alpha2',
        kind: 'PolicyReport',
        metadata: { name: 'kube-windows', namespace: NS2 },
        summary: { pass: 99 },
      },
      // It takes the field by force, as a tool that forces would.
      query: { fieldManager: 'someone-else', force: true },
    }),
    [200],
    'another manager taking summary.pass',
  );
  const r = await live('-n', NS2, '--write-reports');
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(
      `^kube-windows: the PolicyReport ${NS2}/kube-windows on cluster "${CONTEXT_ADMIN}" has fields another field manager owns \\(.*someone-else.*\\.summary\\.pass.*\\); kube-windows writes as "kube-windows" and never forces: delete that report or let its owner stop writing it\n$`,
    ),
  );
  const [report] = await reports(NS2);
  assert.equal(report.summary.pass, 99);
});

test('without the CRD installed: one line that says so and how to install it, exit code 2, nothing read', async () => {
  expectStatus(
    await api.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/reports.openreports.io', {
      method: 'DELETE',
    }),
    [200],
    'deleting the Report CRD',
  );
  // The group stays served until the deletion is done: wait until discovery no longer lists reports.
  for (let i = 0; i < 300; i++) {
    const d = await api.request<{ resources?: { name: string }[] }>('/apis/openreports.io/v1alpha1');
    if (d.status === 404 || !(d.body.resources ?? []).some((x) => x.name === 'reports')) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const r = await live('-n', NS, '--write-reports', '--report-api', 'openreports');
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(
    r.stderr,
    `kube-windows: cluster "${CONTEXT_ADMIN}" does not serve openreports.io/v1alpha1 Report and ClusterReport (their CRDs are not installed): install them with \`kubectl apply --server-side -f https://raw.githubusercontent.com/openreports/reports-api/v0.2.1/config/crd/openreports.io_reports.yaml -f https://raw.githubusercontent.com/openreports/reports-api/v0.2.1/config/crd/openreports.io_clusterreports.yaml\`, or write the other API with --report-api wgpolicyk8s\n`,
  );
});
