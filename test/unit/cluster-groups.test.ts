// The groups of a cluster as a table (src/views/cluster-groups.ts) and their pure item builders: the
// rows a read makes, the typed refs, and the API paths the YAML view reads (from the cluster modules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_GROUPS, groupsOf, type Distribution } from '../../src/views/cluster-groups';
import type { GroupScope } from '../../src/views/cluster-item';
import { byohItems } from '../../src/views/items/byoh';
import { mirrorSetItems } from '../../src/views/items/mirror-set';
import { runtimeClassItems } from '../../src/views/items/runtime-class';
import { admissionPolicyItems } from '../../src/views/items/admission-policy';

const read: string[] = [];
const scope: GroupScope = {
  gid: 'ctx/c/group/g',
  ctxId: 'ctx/c',
  context: 'c',
  yamlOf: (path) => () => (read.push(path), Promise.resolve({})),
};

test('the table: unique keys in the order shown, the Windows nodes expanded, OpenShift furniture on OpenShift only', () => {
  assert.deepEqual(
    CLUSTER_GROUPS.map((g) => g.key),
    ['nodes', 'machineSets', 'byoh', 'mirrors', 'runtimeClasses', 'policies'],
  );
  assert.deepEqual(
    CLUSTER_GROUPS.filter((g) => g.expanded).map((g) => g.key),
    ['nodes'],
  );
  const shown = (flavour: Distribution) => groupsOf(flavour).map((g) => g.key);
  assert.deepEqual(shown('openshift'), ['nodes', 'machineSets', 'byoh', 'mirrors', 'runtimeClasses', 'policies']);
  // A kubeadm cluster has no WMCO (BYOH), no Machine API and no mirror set API: none of their groups.
  assert.deepEqual(shown('kubernetes'), ['nodes', 'runtimeClasses', 'policies']);
});

test('mirror sets and RuntimeClasses: one row each with its ref; the YAML view reads the path of its API', async () => {
  read.length = 0;
  const [ms] = mirrorSetItems(scope, {
    available: true,
    sets: [{ kind: 'ImageTagMirrorSet', name: 'a b', mirrors: [] }],
  });
  assert.equal(ms.id, 'ctx/c/mirrorSet/ImageTagMirrorSet/a%20b');
  assert.deepEqual(ms.ref, { kind: 'mirrorSet', context: 'c', setKind: 'ImageTagMirrorSet', name: 'a b' });
  const [rc] = runtimeClassItems(scope, [
    { name: 'win-2022', handler: 'runhcs-wcow-process', nodeSelector: {}, tolerations: [] },
  ]);
  assert.deepEqual(rc.ref, { kind: 'runtimeClass', context: 'c', name: 'win-2022' });
  await ms.yaml?.();
  await rc.yaml?.();
  assert.deepEqual(read, [
    '/apis/config.openshift.io/v1/imagetagmirrorsets/a%20b',
    '/apis/node.k8s.io/v1/runtimeclasses/win-2022',
  ]);
});

test('a group whose read failed or found nothing says so in one row', () => {
  const [error] = byohItems(scope, { kind: 'error', reason: 'forbidden', message: 'no', what: 'BYOH instances' });
  assert.deepEqual([error.id, error.contextValue], ['ctx/c/group/g/error', 'error']);
  const [none] = mirrorSetItems(scope, { available: false, sets: [] });
  assert.deepEqual([none.id, none.label], ['ctx/c/group/g/none', 'Not available']);
  const [empty] = runtimeClassItems(scope, []);
  assert.equal(empty.label, 'No Windows RuntimeClasses');
});

test('admission policies: not available before 1.30, not installed, or one row per policy with action, rules and age', () => {
  assert.deepEqual(
    admissionPolicyItems(scope, undefined, '1.0.0').map((r) => r.label),
    ['Not available (Kubernetes 1.30 or later)'],
  );
  const none = admissionPolicyItems(scope, [], '1.0.0');
  assert.deepEqual(
    none.map((r) => [r.label, r.contextValue]),
    [['Not installed', 'info']],
  );
  assert.match(String(none[0].tooltip), /Enforce Windows rules…/);
  const rows = admissionPolicyItems(
    scope,
    [
      {
        name: 'kube-windows-pods',
        action: 'Deny',
        rules: ['WIN040', 'WIN055'],
        version: '0.9.0',
        age: 'older',
        versionNote: 'older',
        problems: [],
      },
      {
        name: 'kube-windows-cronjobs',
        rules: ['WIN040'],
        version: '1.0.0',
        age: 'same',
        versionNote: 'this version',
        problems: ['no binding: the policy enforces nothing'],
      },
    ],
    '1.0.0',
  );
  assert.deepEqual(
    rows.map((r) => [r.id, r.label, r.description, r.icon?.id]),
    [
      [
        'ctx/c/policy/kube-windows-pods',
        'kube-windows-pods',
        'Deny · 2 rules · v0.9.0 · older than the extension',
        'warning',
      ],
      ['ctx/c/policy/kube-windows-cronjobs', 'kube-windows-cronjobs', 'no binding · 1 rule · v1.0.0', 'warning'],
    ],
  );
  assert.match(String(rows[0].tooltip), /older than the extension's 1\\.0\\.0: Enforce Windows rules… upgrades it/);
  assert.match(String(rows[1].tooltip), /⚠ no binding/);
});
