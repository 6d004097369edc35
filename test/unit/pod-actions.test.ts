// The pure parts of the pod and node actions: the Describe text (the explanation on top, the pod's own
// events only, ages), the rollout-restart decisions and patch, and taint editing as the API server
// validates taints (qualified-name keys, label values, known effects, unique by key and effect).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ageOf, describeNodeEvents, describePod, eventLines } from '../../src/core/live/describe';
import {
  parseTaint,
  parseTaints,
  restartPatch,
  restartStepOfPod,
  restartStepOfReplicaSet,
  taintChanges,
  taintText,
} from '../../src/core/workload-actions';

const NOW = new Date('2026-11-25T10:00:00Z');

const failing = {
  metadata: {
    name: 'api-1',
    namespace: 'shop',
    uid: 'u-api-1',
    ownerReferences: [{ kind: 'ReplicaSet', name: 'api-rs', controller: true }],
  },
  spec: { nodeName: 'win-2', containers: [{ name: 'api', image: 'contoso/api:2.1' }] },
  status: {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'api',
        ready: false,
        restartCount: 0,
        state: {
          waiting: {
            reason: 'ErrImagePull',
            message: 'no matching manifest for windows/amd64 10.0.20348 in the manifest list entries',
          },
        },
      },
    ],
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unready status: [api]',
      },
    ],
  },
};

const ev = (name: string, uid: string, reason: string, message: string, at: string) => ({
  type: 'Warning',
  reason,
  message,
  lastTimestamp: at,
  involvedObject: { kind: 'Pod', name, namespace: 'shop', uid },
  source: { component: 'kubelet' },
});

test('describePod: the explanation comes first, then status, conditions, containers and the pod’s own events', () => {
  const text = describePod({
    pod: failing,
    events: [
      ev(
        'api-1',
        'u-api-1',
        'Failed',
        'Failed to pull image "contoso/api:2.1": no matching manifest for windows/amd64 10.0.20348 in the manifest list entries',
        '2026-11-25T09:57:00Z',
      ),
      ev('api-1', 'u-older-api-1', 'Failed', 'an event of an earlier pod of the same name', '2026-11-25T09:00:00Z'),
    ],
    node: { name: 'win-2', os: 'windows', build: '10.0.20348' },
    now: NOW,
  });
  const order = ['== Why it fails', 'WINF002', '== Status', '== Conditions', '== Containers', '== Events'].map((s) =>
    text.indexOf(s),
  );
  assert.ok(order.every((i) => i >= 0));
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
  );
  assert.match(text, /Node: +win-2 \(Windows build 10\.0\.20348\)/);
  assert.match(text, /Controlled by: +ReplicaSet\/api-rs/);
  assert.match(text, /Ready +False \(ContainersNotReady\): containers with unready status: \[api\]/);
  assert.match(text, /State: +Waiting \(ErrImagePull\): no matching manifest/);
  assert.match(text, /Warning +Failed +3m +kubelet: Failed to pull image/);
  assert.doesNotMatch(text, /earlier pod/, 'an event of another uid is not this pod’s');
});

test('describePod: a healthy bare pod says no signature matches, and has no events', () => {
  const text = describePod({
    pod: {
      metadata: { name: 'ok', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'c',
            ready: true,
            restartCount: 2,
            state: { running: { startedAt: 'T' } },
            lastState: { terminated: { reason: 'Error', exitCode: 1 } },
          },
        ],
      },
    },
    events: [],
    now: NOW,
  });
  assert.match(text, /No known Windows failure matches/);
  assert.match(text, /Controlled by: +<none> \(a bare pod\)/);
  assert.match(text, /Last state: +Terminated \(Error, exit code 1\)/);
  assert.match(text, /== Events\n {2}<none>/);
});

test('ages and node events: kubectl-like ages, oldest first, repeats counted', () => {
  assert.deepEqual(
    [
      '2026-11-25T09:59:30Z',
      '2026-11-25T09:00:00Z',
      '2026-11-24T20:00:00Z',
      '2026-11-20T10:00:00Z',
      undefined,
      'garbage',
    ].map((t) => ageOf(t, NOW)),
    ['30s', '60m', '14h', '5d', '?', '?'],
  );
  const lines = eventLines(
    [
      {
        type: 'Normal',
        reason: 'B',
        message: 'second',
        lastTimestamp: '2026-11-25T09:59:00Z',
        count: 4,
        source: { component: 'kubelet' },
      },
      {
        type: 'Warning',
        reason: 'A',
        message: 'first',
        eventTime: '2026-11-25T09:58:00Z',
        reportingComponent: 'node-controller',
      },
    ],
    NOW,
  );
  assert.match(lines[0] ?? '', /Warning +A +2m +node-controller: first/);
  assert.match(lines[1] ?? '', /Normal +B +60s \(x4\) +kubelet: second/);
  assert.match(describeNodeEvents('win-1', [], NOW), /^Events of node win-1 \(oldest first\)\n\n {2}<none>\n$/);
});

test('restart: Deployment through its ReplicaSet, DaemonSet and StatefulSet directly; bare pods, Jobs and lone ReplicaSets refused', () => {
  assert.deepEqual(restartStepOfPod('Pod a/p', [{ kind: 'ReplicaSet', name: 'rs', controller: true }]), {
    read: { kind: 'ReplicaSet', name: 'rs' },
  });
  assert.deepEqual(restartStepOfPod('Pod a/p', [{ kind: 'DaemonSet', name: 'ds', controller: true }]), {
    read: { kind: 'DaemonSet', name: 'ds' },
  });
  assert.deepEqual(restartStepOfPod('Pod a/p', [{ kind: 'StatefulSet', name: 'ss', controller: true }]), {
    read: { kind: 'StatefulSet', name: 'ss' },
  });
  assert.match((restartStepOfPod('Pod a/p', undefined) as { refuse: string }).refuse, /^Pod a\/p is a bare pod/);
  assert.match(
    (restartStepOfPod('Pod a/p', [{ kind: 'ReplicaSet', name: 'rs' }]) as { refuse: string }).refuse,
    /bare pod/,
    'an owner that is not the controller does not count',
  );
  assert.match(
    (restartStepOfPod('Pod a/p', [{ kind: 'Job', name: 'j', controller: true }]) as { refuse: string }).refuse,
    /Job j: a Job cannot be rollout-restarted/,
  );
  assert.match(
    (restartStepOfPod('Pod a/p', [{ kind: 'Node', name: 'win-1', controller: true }]) as { refuse: string }).refuse,
    /controlled by Node win-1: only Deployments, DaemonSets and StatefulSets/,
  );
  assert.deepEqual(restartStepOfReplicaSet('rs', [{ kind: 'Deployment', name: 'web', controller: true }]), {
    read: { kind: 'Deployment', name: 'web' },
  });
  assert.match(
    (restartStepOfReplicaSet('rs', []) as { refuse: string }).refuse,
    /ReplicaSet rs is not managed by a Deployment/,
  );
  assert.deepEqual(restartPatch(new Date('2026-11-25T10:00:00.123Z')), {
    spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-25T10:00:00Z' } } } },
  });
});

test('taints: parsed and refused as the API server validates them', () => {
  assert.deepEqual(parseTaint('os=Windows:NoSchedule'), { key: 'os', value: 'Windows', effect: 'NoSchedule' });
  assert.deepEqual(parseTaint(' node.kubernetes.io/unschedulable:NoSchedule '), {
    key: 'node.kubernetes.io/unschedulable',
    effect: 'NoSchedule',
  });
  assert.deepEqual(parseTaint('k=:PreferNoSchedule'), { key: 'k', effect: 'PreferNoSchedule' });
  const refused = (t: string) => (parseTaint(t) as { error?: string }).error ?? '';
  assert.match(refused('os=Windows'), /has no effect/);
  assert.match(refused('os=Windows:noschedule'), /"noschedule" is not a taint effect/);
  assert.match(refused('=x:NoSchedule'), /the key "" must be/);
  assert.match(refused('-bad:NoSchedule'), /the key "-bad" must be/);
  assert.match(refused(`${'k'.repeat(64)}:NoSchedule`), /at most 63/);
  assert.match(refused('Example.com/k:NoSchedule'), /prefix "Example\.com" is not a DNS subdomain/);
  assert.match(refused('a/b/c:NoSchedule'), /more than one "\/"/);
  assert.match(refused('k=has space:NoExecute'), /the value "has space"/);
  assert.deepEqual(
    parseTaints('# dedicated nodes\nos=Windows:NoSchedule, gpu=true:NoExecute\n\n gpu=true:NoSchedule'),
    {
      taints: [
        { key: 'os', value: 'Windows', effect: 'NoSchedule' },
        { key: 'gpu', value: 'true', effect: 'NoExecute' },
        { key: 'gpu', value: 'true', effect: 'NoSchedule' },
      ],
    },
  );
  assert.deepEqual(parseTaints(''), { taints: [] });
  assert.deepEqual(parseTaints('gpu=a:NoSchedule,gpu=b:NoSchedule'), {
    error: 'gpu:NoSchedule appears twice: a node has one taint per key and effect',
  });
  assert.equal(taintText({ key: 'os', value: 'Windows', effect: 'NoSchedule' }), 'os=Windows:NoSchedule');
  assert.deepEqual(
    taintChanges(
      [
        { key: 'a', effect: 'NoSchedule' },
        { key: 'b', value: '1', effect: 'NoExecute' },
      ],
      [
        { key: 'b', value: '1', effect: 'NoExecute' },
        { key: 'c', effect: 'PreferNoSchedule' },
      ],
    ),
    {
      added: ['c:PreferNoSchedule'],
      removed: ['a:NoSchedule'],
    },
  );
});
