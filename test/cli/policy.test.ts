// `kube-windows policy` on the command line: export's output (YAML with what it does and what it leaves
// out, JSON as a List), each refusal with its one line and exit code 2, and a cluster that cannot hold
// the policies (older than 1.30, or without the API) refused naming its version. apply, status and
// remove against the real API server are in test/apiserver-suites/policy-cli.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAll } from 'js-yaml';
import { startEmulator, type Emulator } from '../support/kube-api-emulator';
import { runCli as run } from '../support/run-cli';
import { enforceableRules } from '../../src/core/policy/generate';

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
};

let emu: Emulator;
let kubeconfig: string;
before(async () => {
  emu = await startEmulator({ objects: [], openshift: false });
  kubeconfig = emu.kubeconfig({ context: 'lab' });
});
after(async () => {
  await emu.stop();
});

test('policy export: YAML policies and bindings for every enforceable rule, saying what is excluded', async () => {
  const r = await run(['policy', 'export']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^# kube-windows \S+: \d+ rules enforced at admission \(WIN013, WIN014, WIN040, /);
  assert.match(
    r.stdout,
    /# Not enforced in the system namespaces kube-system, .*openshift-\*; --include-system-namespaces includes them\./,
  );
  const docs = loadAll(r.stdout) as Obj[];
  assert.deepEqual(
    docs.map((d) => `${d.kind} ${d.metadata.name}`),
    ['pods', 'workloads', 'cronjobs'].flatMap((s) => [
      `ValidatingAdmissionPolicy kube-windows-${s}`,
      `ValidatingAdmissionPolicyBinding kube-windows-${s}`,
    ]),
  );
  const pods = docs[0];
  const ids = (pods.spec.validations as { messageExpression: string }[]).map(
    // The sentence follows the guard that builds it only once the validation has failed.
    (v) => / \? '' : '(\w+): ' \+ /.exec(v.messageExpression)?.[1],
  );
  assert.deepEqual(
    ids,
    enforceableRules().map((x) => x.id),
  );
  assert.deepEqual((docs[1].spec as { validationActions: string[] }).validationActions, ['Warn'], 'Warn by default');
});

test('policy export --rules --action --namespace-selector --openshift --format json: only those, bound as asked', async () => {
  const r = await run([
    'policy',
    'export',
    '--rules',
    'win040,WIN055',
    '--action',
    'deny',
    '--namespace-selector',
    'env in (prod,staging),!legacy,team=a',
    '--openshift',
    '--include-system-namespaces',
    '--format',
    'json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /2 rules enforced at admission \(WIN040, WIN055\), action Deny/,
    'JSON output: the summary on stderr',
  );
  assert.match(r.stderr, /System namespaces included/);
  const list = JSON.parse(r.stdout) as { kind: string; items: Obj[] };
  assert.equal(list.kind, 'List');
  assert.deepEqual(
    list.items.filter((o) => o.kind === 'ValidatingAdmissionPolicy').map((o) => o.metadata.name),
    ['kube-windows-pods', 'kube-windows-workloads', 'kube-windows-cronjobs', 'kube-windows-deploymentconfigs'],
  );
  for (const o of list.items) {
    assert.equal(o.metadata.annotations?.['kube-windows.io/rules'], 'WIN040,WIN055');
    if (o.kind === 'ValidatingAdmissionPolicy') {
      assert.equal((o.spec.validations as unknown[]).length, 2);
      assert.ok(
        !(o.spec.matchConditions as { name: string }[]).some((c) => c.name === 'not-a-system-namespace'),
        'no system-namespace exclusion when asked to include them',
      );
    } else {
      assert.deepEqual(o.spec.validationActions, ['Deny']);
      assert.deepEqual(o.spec.matchResources, {
        namespaceSelector: {
          matchLabels: { team: 'a' },
          matchExpressions: [
            { key: 'env', operator: 'In', values: ['prod', 'staging'] },
            { key: 'legacy', operator: 'DoesNotExist' },
          ],
        },
      });
    }
  }
});

test('policy: every refusal is one line on stderr with exit code 2', async () => {
  const cases: [string[], RegExp][] = [
    [['policy', 'export', '--rules', 'WIN999'], /--rules: WIN999 is not a kube-windows rule/],
    [['policy', 'export', '--rules', 'WIN040,,WIN055'], /--rules has an empty entry/],
    [
      ['policy', 'export', '--rules', 'WIN080'],
      /--rules: WIN080 cannot be enforced at admission: needs the nodes' or the cluster's facts \(needs the Windows builds of the pinned nodes\)\. Enforceable: WIN013, WIN014, WIN040/,
    ],
    [
      ['policy', 'export', '--rules', 'WIN001'],
      /WIN001 cannot be enforced at admission: the API server's own validation rejects it/,
    ],
    [['policy', 'export', '--action', 'Block'], /--action must be Deny, Warn or Audit, not "Block"/],
    [
      ['policy', 'export', '--namespace-selector', 'env in (a,b'],
      /The namespace selector "env in \(a,b" does not parse: a "\(" without its "\)"\./,
    ],
    [['policy', 'export', '--namespace-selector', 'tier>2'], /not < or >/],
    [['policy', 'export', '--namespace-selector', 'Bad Key=x'], /does not parse/],
    [['policy', 'export', '--namespace-selector', 'env=no spaces'], /does not parse/],
    [['policy', 'export', '--format', 'xml'], /--format must be yaml or json, not "xml"/],
    [['policy', 'export', '--dry-run'], /--dry-run goes with policy apply and policy remove/],
    [['policy', 'status', '--rules', 'WIN040', '--context', 'x'], /--rules goes with policy export and policy apply/],
    [['policy', 'apply'], /--context is required/],
    [['policy', 'frobnicate'], /policy takes export, apply, status or remove, not "frobnicate"/],
    [['policy', 'apply', '--context', 'lab', '--kubeconfig', '/nonexistent/kubeconfig'], /kubeconfig/i],
  ];
  for (const [args, message] of cases) {
    const r = await run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  }
});

test('policy apply on a bad option is refused before the cluster is reached', async () => {
  const from = emu.requests.length;
  const r = await run(['policy', 'apply', '--context', 'lab', '--kubeconfig', kubeconfig, '--rules', 'WIN999']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /WIN999 is not a kube-windows rule/);
  assert.equal(emu.requests.length, from, 'no request');
});

test('policy apply|status|remove on a cluster older than 1.30 is refused, naming its version', async () => {
  emu.setVersion('v1.29.7');
  try {
    for (const action of ['apply', 'status', 'remove']) {
      const yes = action === 'status' ? [] : ['--yes'];
      const r = await run(['policy', action, '--context', 'lab', '--kubeconfig', kubeconfig, ...yes]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /Cluster "lab" runs Kubernetes v1\.29\.7: ValidatingAdmissionPolicies \(admissionregistration\.k8s\.io\/v1\) need 1\.30 or later\./,
      );
    }
  } finally {
    emu.setVersion('v1.31.3');
  }
});

test('policy status on a cluster that does not serve the policy API says so', async () => {
  const r = await run(['policy', 'status', '--context', 'lab', '--kubeconfig', kubeconfig]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /does not serve ValidatingAdmissionPolicies \(admissionregistration\.k8s\.io\/v1\): the API is turned off there/,
  );
});
