import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  explainEvents,
  explainPod,
  nodeFactsOf,
  podTargetsWindows,
  type EventFacts,
  type ExplainFacts,
  type NodeFacts,
} from '../../src/core/live/explain';
import { SIGNATURES } from '../../src/core/live/signatures';
import type { ClusterSnapshot } from '../../src/core/rules/facts';

// Texts below are the runtime's and the API server's own words as reported in public issue trackers
// (each signature names its thread in `source`); names and hashes shortened.

const NODE: NodeFacts = {
  name: 'win-2',
  build: '10.0.20348',
  os: 'windows',
  labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' },
};
const CLUSTER: ClusterSnapshot = {
  name: 'prod',
  windowsNodes: [
    { name: 'win-1', build: '10.0.20348', taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] },
    { name: 'win-2', build: '10.0.20348', taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] },
  ],
  runtimeClasses: [
    {
      name: 'windows-2022',
      handler: 'runhcs-wcow-process',
      nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' },
      tolerations: [],
    },
  ],
};
const MIRRORS: ExplainFacts['mirrorSets'] = [
  {
    kind: 'ImageDigestMirrorSet',
    name: 'mcr-mirror',
    mirrors: [{ source: 'mcr.microsoft.com', mirrors: ['mirror.corp.example/mcr'] }],
  },
];

function pod(
  opts: {
    image?: string;
    command?: string[];
    nodeName?: string;
    status?: Record<string, unknown>;
    nodeSelector?: Record<string, string>;
  } = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'iis-7d9c-abcde', namespace: 'web', uid: 'u-1' },
    spec: {
      nodeSelector: opts.nodeSelector ?? { 'kubernetes.io/os': 'windows' },
      ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
      containers: [
        {
          name: 'iis',
          image: opts.image ?? 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019',
          ...(opts.command ? { command: opts.command } : {}),
        },
      ],
    },
    status: opts.status ?? { phase: 'Pending' },
  };
}

/** A pending pod whose PodScheduled condition carries the scheduler's message. */
const unschedulable = (message: string, opts: Parameters<typeof pod>[0] = {}) =>
  pod({
    ...opts,
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }],
    },
  });

const event = (reason: string, message: string, fieldPath?: string): EventFacts => ({
  type: 'Warning',
  reason,
  message,
  involvedObject: {
    kind: 'Pod',
    name: 'iis-7d9c-abcde',
    namespace: 'web',
    uid: 'u-1',
    ...(fieldPath ? { fieldPath } : {}),
  },
});

/** The pod, events and node that carry one example text of a signature, as a cluster shows it. */
function carrier(
  sig: (typeof SIGNATURES)[number],
  text: string,
): { p: ReturnType<typeof pod>; events: EventFacts[]; node?: NodeFacts } {
  const kind = sig.kinds[0];
  const reason = sig.reasons?.[0];
  switch (kind) {
    case 'waiting':
      return {
        p: pod({
          nodeName: 'win-2',
          status: {
            phase: 'Pending',
            containerStatuses: [
              { name: 'iis', state: { waiting: { reason: reason ?? 'CreateContainerError', message: text } } },
            ],
          },
        }),
        events: [],
        node: NODE,
      };
    case 'terminated': {
      const code = /^exit code (-?\d+)$/.exec(text);
      const terminated = code
        ? { reason: 'Error', exitCode: Number(code[1]) }
        : { reason: 'StartError', exitCode: 128, message: text };
      return {
        p: pod({
          nodeName: 'win-2',
          status: {
            phase: 'Running',
            containerStatuses: [
              { name: 'iis', state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated } },
            ],
          },
        }),
        events: [],
        node: NODE,
      };
    }
    case 'scheduling':
      return { p: unschedulable(text), events: [] };
    case 'node':
      return {
        p: pod({ nodeName: 'win-2' }),
        events: [],
        node: { ...NODE, conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: text }] },
      };
    case 'pod':
      return {
        p: pod({
          nodeName: 'win-2',
          status: { phase: 'Failed', reason: text.includes('PodOS') ? 'PodOSNotSupported' : 'Failed', message: text },
        }),
        events: [],
        node: NODE,
      };
    default:
      return {
        p: pod({ nodeName: 'win-2' }),
        events: [event(reason ?? 'Failed', text, 'spec.containers{iis}')],
        node: NODE,
      };
  }
}

for (const sig of SIGNATURES) {
  test(`${sig.id}: every recorded text is recognised (${sig.title.slice(0, 60)}…)`, () => {
    for (const text of sig.examples) {
      const { p, events, node } = carrier(sig, text);
      // WINF014 is a pull a mirror should have served: give the cluster one (and a pull by tag of a mirrored image).
      const facts: ExplainFacts = { cluster: CLUSTER, mirrorSets: MIRRORS };
      if (sig.id === 'WINF014') p.spec.containers[0].image = 'mcr.microsoft.com/windows/servercore:ltsc2022';
      const ids = explainPod(p, events, node, facts).map((e) => e.id);
      assert.ok(ids.includes(sig.id), `${sig.id} not found for: ${text}\n got ${ids.join(', ') || 'nothing'}`);
    }
    assert.match(sig.source, /^https:\/\//);
    assert.ok(sig.cause.length > 20 && sig.fix.length > 20);
  });
}

test('signature ids are unique and well-formed', () => {
  const ids = SIGNATURES.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^WINF\d{3}$/);
});

test('WINF001 names the image build, the node build, the tag to use and the label to schedule by', () => {
  const p = pod({
    image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
    nodeName: 'win-2',
    status: {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'iis',
          state: {
            waiting: {
              reason: 'CreateContainerError',
              message:
                'failed to create containerd task: hcs::CreateComputeSystem iis: The container operating system does not match the host operating system.: unknown',
            },
          },
        },
      ],
    },
  });
  const [e] = explainPod(p, [], NODE, { cluster: CLUSTER });
  assert.equal(e.id, 'WINF001');
  assert.equal(e.container, 'iis');
  assert.equal(
    e.message,
    'image mcr.microsoft.com/windows/servercore:ltsc2019 needs Windows Server 2019 (10.0.17763); node win-2 runs 10.0.20348 (2022).',
  );
  assert.equal(
    e.fix,
    'Use mcr.microsoft.com/windows/servercore:ltsc2022 or schedule by the node.kubernetes.io/windows-build label (node.kubernetes.io/windows-build: 10.0.17763).',
  );
  assert.equal(e.evidence[0].from, 'container iis waiting (CreateContainerError)');
});

test("WINF001 from a sandbox event (no container named) uses the pod's Windows image", () => {
  const p = pod({ image: 'mcr.microsoft.com/windows/nanoserver:1809', nodeName: 'win-2' });
  const ev = event(
    'FailedCreatePodSandBox',
    'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to start sandbox container: The operating system of the container does not match the operating system of the host. (0xc0370101)',
  );
  const [e] = explainPod(p, [ev], NODE, {});
  assert.equal(e.id, 'WINF001');
  assert.equal(
    e.message,
    'image mcr.microsoft.com/windows/nanoserver:1809 needs Windows Server 2019 (10.0.17763); node win-2 runs 10.0.20348 (2022).',
  );
  assert.match(e.fix, /^Use mcr\.microsoft\.com\/windows\/nanoserver:ltsc2022 /);
});

test('WINF004 names the taint the nodes carry and the toleration to add', () => {
  const p = unschedulable(
    "0/5 nodes are available: 2 node(s) had untolerated taint {os: Windows}, 3 node(s) didn't match Pod's node affinity/selector.",
  );
  const e = explainPod(p, [], undefined, { cluster: CLUSTER }).find((x) => x.id === 'WINF004');
  assert.ok(e);
  assert.equal(e.message, '2 Windows nodes carry the taint os=Windows:NoSchedule and the pod does not tolerate it.');
  // The same toleration as WIN073's fix: one cause, one fix wherever it is shown.
  assert.match(e.fix, /tolerations: \[\{key: os, operator: Exists, effect: NoSchedule\}\]/);
});

test('WINF005 names the build the pod selects and the builds the cluster has', () => {
  const p = unschedulable("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", {
    nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' },
  });
  const [e] = explainPod(p, [], undefined, { cluster: CLUSTER });
  assert.equal(e.id, 'WINF005');
  assert.equal(
    e.message,
    'the pod selects node.kubernetes.io/windows-build=10.0.17763 (2019), which no Windows node runs; the Windows nodes run 10.0.20348 (2022) (2 nodes).',
  );
});

test('WINF005 is left out when the selector only kept the pod off the other nodes (the Windows ones failed for another reason)', () => {
  const p = unschedulable(
    "0/5 nodes are available: 2 node(s) had untolerated taint {os: Windows}, 3 node(s) didn't match Pod's node affinity/selector.",
  );
  assert.deepEqual(
    explainPod(p, [], undefined, { cluster: CLUSTER }).map((e) => e.id),
    ['WINF004'],
  );
});

test('WINF005 is not a Windows failure for a Linux pod', () => {
  const p = unschedulable("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", {
    image: 'nginx:1.27',
    nodeSelector: { 'kubernetes.io/os': 'linux' },
  });
  assert.deepEqual(explainPod(p, [], undefined, { cluster: CLUSTER }), []);
});

test('WINF003: a Linux-only image failing to pull on a Windows node, whatever the runtime says', () => {
  const p = pod({
    image: 'redis:7',
    nodeName: 'win-2',
    status: {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'iis',
          state: {
            waiting: {
              reason: 'ErrImagePull',
              message:
                'failed to pull and unpack image "docker.io/library/redis:7": no match for platform in manifest: not found',
            },
          },
        },
      ],
    },
  });
  const ids = explainPod(p, [], NODE, {}).map((e) => `${e.id}:${e.message}`);
  assert.deepEqual(ids, [
    'WINF003:image redis:7 cannot run on node win-2 (Windows 10.0.20348): the Docker Hub official image redis is published for Linux only.',
  ]);
});

test('WINF006 lists the Windows RuntimeClasses the cluster has', () => {
  const events = [
    {
      type: 'Warning',
      reason: 'FailedCreate',
      message:
        'Error creating: pods "iis-5d8f7c9b4-" is forbidden: pod rejected: RuntimeClass "windows-2019" not found',
      involvedObject: { kind: 'ReplicaSet', name: 'iis-5d8f7c9b4', namespace: 'web' },
    },
  ];
  const [e] = explainEvents(events, { cluster: CLUSTER });
  assert.equal(e.id, 'WINF006');
  assert.equal(
    e.message,
    `RuntimeClass "windows-2019" does not exist; the cluster's Windows RuntimeClasses are windows-2022.`,
  );
  assert.equal(e.evidence[0].from, 'event FailedCreate on ReplicaSet iis-5d8f7c9b4');
});

test('WINF014: a tag pull of an image only a digest mirror set covers', () => {
  const msg =
    'failed to resolve reference "mcr.microsoft.com/windows/servercore:ltsc2022": failed to do request: Head "https://mcr.microsoft.com/v2/windows/servercore/manifests/ltsc2022": dial tcp 204.79.197.219:443: i/o timeout';
  const p = pod({
    image: 'mcr.microsoft.com/windows/servercore:ltsc2022',
    nodeName: 'win-2',
    status: {
      phase: 'Pending',
      containerStatuses: [{ name: 'iis', state: { waiting: { reason: 'ErrImagePull', message: msg } } }],
    },
  });
  const [e] = explainPod(p, [], NODE, { mirrorSets: MIRRORS });
  assert.equal(e.id, 'WINF014');
  assert.match(
    e.message,
    /referenced by tag, and only ImageDigestMirrorSet mcr-mirror mirrors mcr\.microsoft\.com \(to mirror\.corp\.example\/mcr\)/,
  );
  // Without a mirror set this is an unreachable registry, not a mirror problem.
  assert.deepEqual(explainPod(p, [], NODE, {}), []);
});

test('WINF016 names a Linux shell as the command', () => {
  const p = pod({
    command: ['sh', '-c', 'echo hi'],
    nodeName: 'win-2',
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'iis',
          state: {
            waiting: {
              reason: 'RunContainerError',
              message:
                'failed to start containerd task "iis": hcs::System::CreateProcess iis: The system cannot find the file specified.: unknown',
            },
          },
        },
      ],
    },
  });
  const [e] = explainPod(p, [], NODE);
  assert.equal(
    e.message,
    'container iis could not start its process (sh): sh is a Linux shell, absent from Windows images.',
  );
});

test('WINF017 decodes the NTSTATUS exit code', () => {
  const p = pod({
    image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022',
    nodeName: 'win-2',
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'iis', state: { terminated: { reason: 'Error', exitCode: -1073741515 } } }],
    },
  });
  const [e] = explainPod(p, [], NODE);
  assert.equal(
    e.message,
    'container iis exited with -1073741515 (0xC0000135: a DLL was not found); mcr.microsoft.com/windows/nanoserver:ltsc2022 is Nano Server based, which lacks most Server Core DLLs.',
  );
});

test('events of other pods are not read; a healthy pod has no explanation', () => {
  const other = {
    ...event('Failed', 'The container operating system does not match the host operating system.'),
    involvedObject: { kind: 'Pod', name: 'other', namespace: 'web', uid: 'u-2' },
  };
  assert.deepEqual(explainPod(pod({ nodeName: 'win-2', status: { phase: 'Running' } }), [other], NODE), []);
});

test('nodeFactsOf and podTargetsWindows read live objects', () => {
  const n = nodeFactsOf({
    metadata: {
      name: 'w',
      labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' },
    },
    spec: { taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  });
  assert.equal(n.build, '10.0.17763');
  assert.deepEqual(n.taints, [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }]);
  assert.equal(podTargetsWindows(pod(), undefined), true);
  assert.equal(podTargetsWindows(pod({ image: 'nginx', nodeSelector: {} }), undefined), false);
  assert.equal(podTargetsWindows(pod({ image: 'nginx', nodeSelector: {} }), n), true);
});
