// The groups of a cluster as a table (src/views/cluster-groups.ts) and their pure item builders: the
// rows a read makes, the typed refs, and the API paths the YAML view reads (from the cluster modules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_GROUPS, groupsOf, type Distribution } from '../../src/views/cluster-groups';
import type { GroupScope } from '../../src/views/cluster-item';
import { byohItems } from '../../src/views/items/byoh';
import { mirrorSetItems } from '../../src/views/items/mirror-set';
import { runtimeClassItems } from '../../src/views/items/runtime-class';

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
    ['nodes', 'machineSets', 'byoh', 'mirrors', 'runtimeClasses'],
  );
  assert.deepEqual(
    CLUSTER_GROUPS.filter((g) => g.expanded).map((g) => g.key),
    ['nodes'],
  );
  const shown = (flavour: Distribution) => groupsOf(flavour).map((g) => g.key);
  assert.deepEqual(shown('openshift'), ['nodes', 'machineSets', 'byoh', 'mirrors', 'runtimeClasses']);
  // A kubeadm cluster has no WMCO (BYOH), no Machine API and no mirror set API: none of their groups.
  assert.deepEqual(shown('kubernetes'), ['nodes', 'runtimeClasses']);
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
