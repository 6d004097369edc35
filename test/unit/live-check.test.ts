import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { checkLive, isCheckedObject, withoutServerDefaults, type LiveState } from '../../src/core/live/check';
import { readSnapshotText } from '../../src/core/live/snapshot-file';
import { checkObject, checkText, gatherObjectFacts } from '../../src/core/rules/checker';
import { locate, pathString } from '../../src/core/manifest/path';
import { loadManifest } from '../../src/core/manifest/document';

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata: {name: iis, namespace: web}
spec:
  selector: {matchLabels: {app: iis}}
  template:
    metadata: {labels: {app: iis}}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, value: Windows, effect: NoSchedule}]
      securityContext: {runAsNonRoot: true}
      containers:
        - name: iis
          image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
          securityContext: {privileged: true, readOnlyRootFilesystem: true}
`;

test('checkObject runs the same rules as checkText: same ids, same messages, a field path where the text has a range', () => {
  const text = checkText(DEPLOY).findings;
  const value = load(DEPLOY) as Record<string, unknown>;
  const live = checkObject(value).findings;
  assert.ok(text.length >= 2);
  assert.deepEqual(
    live.map((f) => `${f.ruleId} ${f.message}`).sort(),
    text.map((f) => `${f.ruleId} ${f.message}`).sort(),
  );
  // Each field path names the node the text finding underlines.
  const doc = loadManifest(DEPLOY).documents[0];
  for (const f of live) {
    const segments = f.path
      .split(/\.|\[(\d+)\]/)
      .filter((x) => x !== undefined && x !== '')
      .map((x) => (/^\d+$/.test(x) ? Number(x) : x));
    assert.equal(pathString(segments), f.path);
    assert.ok(
      locate(doc.tree(), segments).node || locate(doc.tree(), segments.slice(0, -1)).node,
      `${f.path} is in the document`,
    );
  }
  assert.ok(live.some((f) => f.path === 'spec.template.spec.containers[0].securityContext.privileged'));
});

test('gatherObjectFacts reads Namespaces and RuntimeClasses from plain objects', () => {
  const facts = gatherObjectFacts([
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'web', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
    },
    {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'win' },
      handler: 'runhcs-wcow-process',
      scheduling: { nodeSelector: { 'kubernetes.io/os': 'windows' } },
    },
  ]);
  assert.equal(facts.namespaces.get('web')?.['pod-security.kubernetes.io/enforce'], 'restricted');
  assert.equal(facts.runtimeClasses.get('win')?.windows, true);
});

test('isCheckedObject: what a controller the check reads created is not checked twice', () => {
  const owned = (kind: string, owner: string) => ({
    kind,
    metadata: { name: 'x', ownerReferences: [{ kind: owner, name: 'o', controller: true }] },
  });
  assert.equal(isCheckedObject(owned('ReplicaSet', 'Deployment')), false);
  assert.equal(isCheckedObject(owned('ReplicaSet', 'SomeOperator')), true);
  assert.equal(isCheckedObject(owned('Job', 'CronJob')), false);
  assert.equal(isCheckedObject(owned('Pod', 'ReplicaSet')), false);
  assert.equal(isCheckedObject({ kind: 'Pod', metadata: { name: 'bare' } }), true);
  assert.equal(isCheckedObject(owned('Deployment', 'HelmRelease')), true);
});

test('withoutServerDefaults drops the 0644 defaultMode the API server writes, and nothing else', () => {
  const pod = {
    kind: 'Pod',
    spec: {
      volumes: [
        { name: 'a', projected: { defaultMode: 420, sources: [] } },
        { name: 'b', secret: { secretName: 's', defaultMode: 256 } },
      ],
    },
  };
  const clean = withoutServerDefaults(pod);
  assert.deepEqual(clean.spec, {
    volumes: [
      { name: 'a', projected: { sources: [] } },
      { name: 'b', secret: { secretName: 's', defaultMode: 256 } },
    ],
  });
  assert.equal(
    (pod.spec.volumes[0].projected as { defaultMode?: number }).defaultMode,
    420,
    'the input is not changed',
  );
  const none = { kind: 'Pod', spec: { containers: [] } };
  assert.equal(withoutServerDefaults(none), none);
});

test('checkLive: objects with findings in kind order, explanations on Windows pods only, summary counts', () => {
  const state: LiveState = {
    objects: [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'linux-0',
          namespace: 'a',
          ownerReferences: [{ kind: 'ReplicaSet', name: 'r', controller: true }],
        },
        spec: { nodeName: 'ip-1', containers: [{ name: 'c', image: 'nginx' }] },
        status: {
          containerStatuses: [
            {
              name: 'c',
              state: {
                waiting: {
                  reason: 'CreateContainerError',
                  message: 'The container operating system does not match the host operating system',
                },
              },
            },
          ],
        },
      },
      load(DEPLOY) as Record<string, unknown>,
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: 'iis-1',
          namespace: 'web',
          ownerReferences: [{ kind: 'Deployment', name: 'iis', controller: true }],
        },
        spec: (load(DEPLOY) as { spec: unknown }).spec,
      },
    ],
    events: [],
    windowsNodes: [],
    factObjects: [],
    snapshot: { name: 'c', windowsNodes: [], runtimeClasses: [] },
  };
  const report = checkLive(state);
  assert.deepEqual(
    report.objects.map((o) => `${o.kind}/${o.namespace}/${o.name}`),
    ['Deployment/web/iis'],
  );
  assert.equal(report.summary.objects, 1);
  assert.equal(
    report.summary.errors + report.summary.warnings + report.summary.infos,
    report.objects[0].findings.length,
  );
  const onlyErrors = checkLive(state, { minSeverity: 'error' });
  assert.ok(onlyErrors.objects[0].findings.every((f) => f.severity === 'error'));
});

test('readSnapshotText accepts what snapshot writes and says which field is wrong', () => {
  const good = {
    name: 'c',
    flavour: 'openshift',
    windowsNodes: [{ name: 'w', build: '10.0.20348', taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] }],
    runtimeClasses: [{ name: 'rc', handler: 'runhcs-wcow-process', nodeSelector: {}, tolerations: [] }],
    openshift: { version: '4.16.3' },
  };
  const r = readSnapshotText(JSON.stringify(good));
  assert.ok(r.ok);
  assert.deepEqual(r.snapshot, good);
  const bad = (v: unknown) => {
    const x = readSnapshotText(typeof v === 'string' ? v : JSON.stringify(v));
    return x.ok ? '' : x.message;
  };
  assert.match(bad('{'), /^is not JSON/);
  assert.match(bad({ ...good, name: 3 }), /name must be a string/);
  assert.match(bad({ ...good, flavour: 'k3s' }), /flavour must be "openshift" or "kubernetes"/);
  assert.match(
    bad({ ...good, windowsNodes: [{ name: 'w', build: '10.0.20348', taints: [{ key: 'os' }] }] }),
    /windowsNodes\[0\]\.taints must be/,
  );
  assert.match(bad({ ...good, runtimeClasses: [{ name: 'rc' }] }), /runtimeClasses\[0\] must be/);
});
