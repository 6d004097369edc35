// `kube-windows policy apply|status|remove` against the REAL kube-apiserver: a server-side dry run and a
// diff first, server-side apply with the field manager kube-windows, idempotent, an older set upgraded
// in place, a change by another field manager reported and never forced, RBAC denial naming the
// permission, and remove deleting only ours. The policies are bound to this suite's namespace only
// (--namespace-selector), so the other suites sharing the server are not touched.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generatePolicies } from '../../src/core/policy/generate';
import { runCli } from '../support/run-cli';
import {
  CONTEXT_ADMIN,
  CONTEXT_RESTRICTED,
  ensureNamespace,
  expectStatus,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type Status,
} from '../support/real-apiserver';

let api: RealApiServer;
const NS = uniqueName('kw-policy-cli');
const FOREIGN = uniqueName('not-ours');
const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const SELECTOR = ['--namespace-selector', `kw-policy-cli=${NS}`];
const RULES = ['--rules', 'WIN040,WIN055'];

const cli = (args: string[], context = CONTEXT_ADMIN) =>
  runCli(['policy', ...args, '--context', context, '--kubeconfig', api.kubeconfigPath]);

interface Policy {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { validationActions?: string[]; validations?: unknown[] };
}

before(async () => {
  api = await useApiServer();
  await ensureNamespace(api, NS, { 'kw-policy-cli': NS });
  // Another tool's policy, which remove must leave alone.
  const foreign = await api.request(VAP, {
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: FOREIGN },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
        validations: [{ expression: 'true' }],
      },
    },
  });
  expectStatus(foreign, [201], 'creating the foreign policy');
});

after(async () => {
  await runCli(['policy', 'remove', '--yes', '--context', CONTEXT_ADMIN, '--kubeconfig', api.kubeconfigPath]);
  await api?.request(`${VAP}/${FOREIGN}`, { method: 'DELETE' });
  await api?.stop();
});

const SENTINEL = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'sentinel' },
  spec: {
    nodeSelector: { 'kubernetes.io/os': 'windows' },
    hostNetwork: true,
    containers: [{ name: 'c', image: 'mcr.microsoft.com/windows/servercore:ltsc2022' }],
  },
};

async function warnsInNamespace(): Promise<string[]> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const r = await api.request<Status>(`/api/v1/namespaces/${NS}/pods`, { body: SENTINEL, query: { dryRun: 'All' } });
    const ours = r.warnings.filter((w) => w.includes("ValidatingAdmissionPolicy 'kube-windows-pods'"));
    if (ours.length > 0 || Date.now() > deadline) return ours;
    await new Promise((res) => setTimeout(res, 250));
  }
}

test('status before anything is installed says so and how to install', async () => {
  const r = await cli(['status']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /No kube-windows admission policies on cluster "kube-windows-apiserver" \(Kubernetes v1\.\d+\.\d+\)\. "kube-windows policy apply --context kube-windows-apiserver" installs them\./,
  );
});

test('apply --dry-run: the server-side dry run and what would be created, nothing changed', async () => {
  const r = await cli(['apply', '--dry-run', ...RULES, ...SELECTOR]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /2 rules enforced at admission \(WIN040, WIN055\), action Warn\./);
  assert.match(r.stdout, /Not enforced in the system namespaces kube-system/);
  assert.match(r.stdout, /field manager kube-windows \(server-side dry run\):/);
  assert.equal(r.stdout.match(/^ {2}create {4}/gm)?.length, 6, r.stdout);
  assert.match(r.stdout, /Dry run: 6 changes shown, nothing changed\./);
  const list = expectStatus(
    await api.request<{ items: unknown[] }>(VAP, {
      query: { labelSelector: 'app.kubernetes.io/managed-by=kube-windows' },
    }),
    [200],
    'list',
  );
  assert.equal(list.items.length, 0, 'nothing created');
});

test('apply: created with the field manager kube-windows, in force, and idempotent', async () => {
  const r = await cli(['apply', '--yes', ...RULES, ...SELECTOR]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.match(/^created /gm)?.length, 6, r.stdout);
  const p = expectStatus(
    await api.request<Policy & { metadata: { managedFields: { manager: string; operation: string }[] } }>(
      `${VAP}/kube-windows-pods`,
    ),
    [200],
    'get',
  );
  assert.deepEqual(
    p.metadata.managedFields.map((f) => `${f.manager} ${f.operation}`),
    ['kube-windows Apply'],
  );
  const warnings = await warnsInNamespace();
  assert.match(warnings.join('\n'), /WIN055: spec\.hostNetwork: true does nothing for ordinary Windows containers/);
  const again = await cli(['apply', '--yes', ...RULES, ...SELECTOR]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout.match(/^ {2}unchanged /gm)?.length, 6, again.stdout);
  assert.match(again.stdout, /The policies are up to date: nothing to change\./);
});

test("an older kube-windows's set is shown as older by status and upgraded in place by apply, with a diff", async () => {
  // What an older release installed: fewer rules, its version.
  for (const o of generatePolicies({
    action: 'Warn',
    version: '0.0.1',
    rules: ['WIN040'],
    namespaceSelector: { matchLabels: { 'kw-policy-cli': NS } },
  })) {
    const base = o.kind === 'ValidatingAdmissionPolicy' ? VAP : VAPB;
    const r = await api.request(`${base}/${String(o.metadata.name)}`, {
      method: 'PATCH',
      body: o,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: 'kube-windows' },
    });
    expectStatus(r, [200], `downgrading ${String(o.metadata.name)}`);
  }
  const before = await cli(['status']);
  assert.equal(before.code, 0, before.stderr);
  assert.match(
    before.stdout,
    /kube-windows-pods: Warn, 1 rule \(WIN040\)\n {2}version 0\.0\.1 \(older than this kube-windows \S+: "kube-windows policy apply" upgrades it in place\)/,
  );
  const r = await cli(['apply', '--yes', ...RULES, ...SELECTOR]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.match(/^ {2}update {4}/gm)?.length, 6, r.stdout);
  assert.match(r.stdout, /^ {4}-.*kube-windows\.io\/version: 0\.0\.1$/m, 'the diff shows the version');
  assert.match(r.stdout, /^ {4}\+.*kube-windows\.io\/rules: WIN040,WIN055$/m, 'and the rules');
  const after = await cli(['status', '--format', 'json']);
  const rows = (
    JSON.parse(after.stdout) as {
      policies: { name: string; age: string; rules: string[]; action: string; problems: string[] }[];
    }
  ).policies;
  assert.deepEqual(
    rows.map((x) => [x.name, x.age, x.rules.join(','), x.action, x.problems.length]),
    ['cronjobs', 'pods', 'workloads'].map((s) => [`kube-windows-${s}`, 'same', 'WIN040,WIN055', 'Warn', 0]),
  );
});

test('a change by another field manager is reported, never forced', async () => {
  const r0 = await api.request(`${VAP}/kube-windows-pods`, {
    method: 'PATCH',
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'kube-windows-pods' },
      spec: { failurePolicy: 'Ignore' },
    },
    contentType: 'application/apply-patch+yaml',
    query: { fieldManager: 'other-tool', force: true },
  });
  expectStatus(r0, [200], 'the other tool takes failurePolicy');
  const r = await cli(['apply', '--yes', ...RULES, ...SELECTOR]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /ValidatingAdmissionPolicy kube-windows-pods: .*conflict.*other-tool.*kube-windows does not force a change another tool made/s,
  );
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  const p = expectStatus(
    await api.request<{ spec: { failurePolicy: string } }>(`${VAP}/kube-windows-pods`),
    [200],
    'get',
  );
  assert.equal(p.spec.failurePolicy, 'Ignore', 'left as the other tool set it');
});

test('RBAC: a user who may not read the policies is told which permission is missing', async () => {
  const r = await cli(['apply', '--yes', ...RULES, ...SELECTOR], CONTEXT_RESTRICTED);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /not allowed to list .*validatingadmissionpolicies/i);
  const s = await cli(['status'], CONTEXT_RESTRICTED);
  assert.equal(s.code, 2);
  assert.match(s.stderr, /validatingadmissionpolicies/);
});

test("remove deletes kube-windows's policies and bindings only", async () => {
  const dry = await cli(['remove', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(dry.stdout.match(/^ {2}delete /gm)?.length, 6, dry.stdout);
  assert.doesNotMatch(dry.stdout, new RegExp(FOREIGN));
  const r = await cli(['remove', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.match(/^deleted /gm)?.length, 6, r.stdout);
  expectStatus(await api.request(`${VAP}/${FOREIGN}`), [200], 'the foreign policy is still there');
  const none = await cli(['status']);
  assert.match(none.stdout, /No kube-windows admission policies/);
  const again = await cli(['remove', '--yes']);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /nothing to remove/);
});
