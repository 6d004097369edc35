// One cause gives one finding in the live check: for every pair of a failure signature and a rule
// naming the same cause (SAME_CAUSE), the rule fires on the spec and the signature on the failure
// when each is run alone, and the live check keeps exactly one of them: the workload's rule finding
// for pods it created (naming the pods), the signature on the object itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLive, type LiveState } from '../../src/core/live/check';
import { explainEvents, explainPod } from '../../src/core/live/explain';
import { SAME_CAUSE } from '../../src/core/live/same-cause';
import { SIGNATURES_BY_ID } from '../../src/core/live/signatures';
import { checkObject, checkText } from '../../src/core/rules/checker';
import type { ClusterSnapshot } from '../../src/core/rules/facts';
import type { Obj } from '../../src/core/manifest/path';

const NS = 'web';
const TAINT = { key: 'os', value: 'Windows', effect: 'NoSchedule' };
const SNAPSHOT: ClusterSnapshot = {
  name: 'prod',
  windowsNodes: [{ name: 'win-1', build: '10.0.20348', taints: [TAINT] }],
  runtimeClasses: [],
};
const NODE = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'win-1',
    labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.20348' },
  },
  spec: { taints: [TAINT] },
};
const WINDOWS = 'mcr.microsoft.com/windows/servercore:ltsc2022';
const TOLERATE = [{ key: 'os', operator: 'Exists', effect: 'NoSchedule' }];
const SELECT = { 'kubernetes.io/os': 'windows' };
const RESOURCES = { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } };
const container = (extra: Obj = {}) => ({ name: 'app', image: WINDOWS, resources: RESOURCES, ...extra });

/** A pod spec that makes the rule fire, and the words of the failure (one of the signature's recorded texts). */
interface Pair {
  signature: string;
  rule: string;
  spec: Obj;
  /** The event's reason; `FailedCreate` events sit on the controller (admission refused its pods). */
  reason: string;
  example?: number;
  /** Where the failure is seen: a pod the Deployment made (default), or the controller itself. */
  on?: 'pod' | 'controller';
}

const PAIRS: Pair[] = [
  {
    signature: 'WINF001',
    rule: 'WIN080',
    reason: 'Failed',
    spec: {
      nodeSelector: SELECT,
      tolerations: TOLERATE,
      containers: [container({ image: 'mcr.microsoft.com/windows/servercore:ltsc2019' })],
    },
  },
  {
    signature: 'WINF002',
    rule: 'WIN080',
    reason: 'Failed',
    spec: {
      nodeSelector: SELECT,
      tolerations: TOLERATE,
      containers: [container({ image: 'mcr.microsoft.com/windows/servercore:ltsc2019' })],
    },
  },
  {
    signature: 'WINF003',
    rule: 'WIN085',
    reason: 'Failed',
    spec: { nodeSelector: SELECT, tolerations: TOLERATE, containers: [container({ image: 'redis:7' })] },
  },
  {
    signature: 'WINF003',
    rule: 'WIN084',
    reason: 'Failed',
    spec: {
      nodeSelector: SELECT,
      tolerations: TOLERATE,
      containers: [container({ image: 'redis:7' }), { name: 'iis', image: WINDOWS, resources: RESOURCES }],
    },
  },
  {
    signature: 'WINF004',
    rule: 'WIN073',
    reason: 'FailedScheduling',
    spec: { nodeSelector: SELECT, containers: [container()] },
  },
  {
    signature: 'WINF005',
    rule: 'WIN071',
    reason: 'FailedScheduling',
    spec: { nodeSelector: { 'kubernetes.io/os': 'Windows' }, tolerations: TOLERATE, containers: [container()] },
  },
  {
    signature: 'WINF005',
    rule: 'WIN075',
    reason: 'FailedScheduling',
    spec: {
      nodeSelector: { ...SELECT, 'kubernetes.io/arch': 'arm64' },
      tolerations: TOLERATE,
      containers: [container()],
    },
  },
  {
    signature: 'WINF007',
    rule: 'WIN011',
    reason: 'FailedCreate',
    example: 1,
    on: 'controller',
    spec: {
      nodeSelector: SELECT,
      tolerations: TOLERATE,
      securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } },
      containers: [container()],
    },
  },
  {
    signature: 'WINF007',
    rule: 'WIN010',
    reason: 'FailedCreate',
    on: 'controller',
    spec: {
      nodeSelector: SELECT,
      tolerations: TOLERATE,
      hostNetwork: true,
      containers: [
        container({
          securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } },
        }),
        { name: 'side', image: WINDOWS, resources: RESOURCES },
      ],
    },
  },
  {
    signature: 'WINF009',
    rule: 'WIN029',
    reason: 'FailedCreate',
    on: 'controller',
    spec: {
      nodeSelector: SELECT,
      tolerations: TOLERATE,
      securityContext: { windowsOptions: { gmsaCredentialSpec: '{"CmsPlugins":["ActiveDirectory"]}' } },
      containers: [container()],
    },
  },
  {
    signature: 'WINF012',
    rule: 'WIN059',
    reason: 'FailedMount',
    spec: {
      nodeSelector: SELECT,
      tolerations: TOLERATE,
      volumes: [{ name: 'v', csi: { driver: 'smb.csi.k8s.io' } }],
      containers: [container({ volumeMounts: [{ name: 'v', mountPath: 'C:\\data' }] })],
    },
  },
  {
    signature: 'WINF015',
    rule: 'WIN072',
    reason: 'PodOSNotSupported',
    spec: {
      os: { name: 'windows' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: TOLERATE,
      containers: [container()],
    },
  },
  {
    signature: 'WINF016',
    rule: 'WIN060',
    reason: 'Failed',
    spec: { nodeSelector: SELECT, tolerations: TOLERATE, containers: [container({ command: ['sh', '-c', 'run'] })] },
  },
  {
    signature: 'WINF016',
    rule: 'WIN061',
    reason: 'Failed',
    spec: {
      nodeSelector: SELECT,
      tolerations: TOLERATE,
      containers: [
        container({ image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022', command: ['powershell', '-c', 'run'] }),
      ],
    },
  },
];

function scenario(p: Pair): { state: LiveState; deployment: Obj; pod: Obj } {
  const spec = structuredClone(p.spec);
  const deployment: Obj = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'app', namespace: NS, uid: 'd-1' },
    spec: { selector: { matchLabels: { app: 'app' } }, template: { metadata: { labels: { app: 'app' } }, spec } },
  };
  const replicaSet: Obj = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'app-7d9',
      namespace: NS,
      uid: 'rs-1',
      ownerReferences: [{ kind: 'Deployment', name: 'app', uid: 'd-1', controller: true }],
    },
    spec: { template: { spec } },
  };
  const scheduling = p.reason === 'FailedScheduling';
  const pod: Obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'app-7d9-x2k9q',
      namespace: NS,
      uid: 'p-1',
      ownerReferences: [{ kind: 'ReplicaSet', name: 'app-7d9', uid: 'rs-1', controller: true }],
    },
    spec: { ...structuredClone(spec), ...(scheduling ? {} : { nodeName: 'win-1' }) },
    status: { phase: 'Pending' },
  };
  const text = SIGNATURES_BY_ID.get(p.signature)!.examples[p.example ?? 0];
  const onController = p.on === 'controller';
  const event = {
    type: 'Warning',
    reason: p.reason,
    message: text,
    involvedObject: onController
      ? { kind: 'Deployment', namespace: NS, name: 'app', uid: 'd-1' }
      : {
          kind: 'Pod',
          namespace: NS,
          name: 'app-7d9-x2k9q',
          uid: 'p-1',
          // The scheduler's events are about the pod; the kubelet's name the container.
          ...(scheduling ? {} : { fieldPath: 'spec.containers{app}' }),
        },
  };
  return {
    state: {
      objects: onController ? [deployment] : [deployment, replicaSet, pod],
      events: [event],
      windowsNodes: [NODE],
      factObjects: [],
      snapshot: SNAPSHOT,
    },
    deployment,
    pod,
  };
}

test('every same-cause signature has a pair below', () => {
  const covered = new Set(PAIRS.map((p) => `${p.signature} ${p.rule}`));
  for (const [signature, rules] of Object.entries(SAME_CAUSE))
    assert.ok(
      rules.some((r) => covered.has(`${signature} ${r}`)),
      `${signature}: no test pair`,
    );
});

for (const p of PAIRS) {
  test(`${p.signature} and ${p.rule} name one cause: the live check shows one of them`, () => {
    assert.ok(SAME_CAUSE[p.signature]?.includes(p.rule), 'the pair is declared');
    const { state, deployment, pod } = scenario(p);
    // Each alone says it: the rule on the spec, the signature on the failure.
    const ruled = checkObject(deployment, { cluster: SNAPSHOT }).findings.map((f) => f.ruleId);
    assert.ok(ruled.includes(p.rule), `${p.rule} fires on the spec (${ruled.join(', ')})`);
    const explained = (
      p.on === 'controller'
        ? explainEvents(state.events, { cluster: SNAPSHOT })
        : explainPod(pod, state.events, { name: 'win-1', build: '10.0.20348', os: 'windows' }, { cluster: SNAPSHOT })
    ).map((e) => e.id);
    assert.ok(explained.includes(p.signature), `${p.signature} explains the failure (${explained.join(', ')})`);

    const report = checkLive(state);
    const all = report.objects.flatMap((o) => o.findings.map((f) => ({ object: `${o.kind}/${o.name}`, ...f })));
    const rule = all.filter((f) => f.ruleId === p.rule);
    const signature = all.filter((f) => f.ruleId === p.signature);
    if (p.on === 'controller') {
      // On the object itself, what is happening wins.
      assert.deepEqual(rule, [], JSON.stringify(all));
      assert.equal(signature.length, 1, JSON.stringify(all));
    } else {
      // On a pod the Deployment made, the Deployment's rule finding wins and names the pod.
      assert.deepEqual(signature, [], JSON.stringify(all));
      assert.equal(rule.length, 1, JSON.stringify(all));
      assert.equal(rule[0].object, 'Deployment/app');
      assert.match(rule[0].message, new RegExp(`Pod app-7d9-x2k9q shows it \\(${p.signature}\\)\\.$`));
    }
  });
}

test('a bare pod: the signature wins over the rule, and its fix is the rule’s toleration', () => {
  const { state, pod } = scenario(PAIRS.find((p) => p.signature === 'WINF004')!);
  delete (pod.metadata as Obj).ownerReferences;
  state.objects = [pod];
  const [o] = checkLive(state).objects;
  assert.deepEqual(
    o.findings.map((f) => f.ruleId),
    ['WINF004'],
  );
  assert.match(o.findings[0].message, /Fix: Add tolerations: \[\{key: os, operator: Exists, effect: NoSchedule\}\]/);
  const win073 = checkObject(pod, { cluster: SNAPSHOT }).findings.find((f) => f.ruleId === 'WIN073');
  assert.ok(win073, 'WIN073 fires on the same pod alone');
  assert.match(win073.message, /operator: Exists for os/);
});

test('several pods of one workload: one finding, naming two pods and how many more', () => {
  const { state, pod } = scenario(PAIRS.find((p) => p.signature === 'WINF004')!);
  const more = [1, 2, 3].map((i) => {
    const copy = structuredClone(pod);
    (copy.metadata as Obj).name = `app-7d9-${i}`;
    (copy.metadata as Obj).uid = `p-${i + 1}`;
    return copy;
  });
  state.objects.push(...more);
  state.events = [pod, ...more].map((x) => ({
    type: 'Warning',
    reason: 'FailedScheduling',
    message: SIGNATURES_BY_ID.get('WINF004')!.examples[0],
    involvedObject: {
      kind: 'Pod',
      namespace: NS,
      name: String((x.metadata as Obj).name),
      uid: String((x.metadata as Obj).uid),
    },
  }));
  const report = checkLive(state);
  assert.deepEqual(
    report.objects.map((o) => `${o.kind}/${o.name}: ${o.findings.map((f) => f.ruleId).join(' ')}`),
    ['Deployment/app: WIN073'],
  );
  assert.match(
    report.objects[0].findings[0].message,
    /Pods app-7d9-x2k9q, app-7d9-1 and 2 more show it \(WINF004\)\.$/,
  );
  assert.equal(report.summary.warnings + report.summary.errors + report.summary.infos, 1);
});

// Two rules on one cause, in the files: the one that names the real cause wins, with its one fix.

const deploymentText = (spec: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
${spec.replace(/^/gm, '      ')}
      containers:
      - name: app
        image: mcr.microsoft.com/windows/nanoserver:ltsc2022
        resources: {limits: {cpu: 500m, memory: 512Mi}, requests: {cpu: 500m, memory: 512Mi}}
`;

const findings = (text: string) =>
  checkText(text).findings.map((f) => `${f.ruleId} ${f.fixes.map((x) => x.title).join(' | ')}`);

test('WIN071 and WIN072: `Linux` on a windows pod is the OS conflict (change it to windows), not a wrong case (linux)', () => {
  assert.deepEqual(findings(deploymentText('os: {name: windows}\nnodeSelector: {kubernetes.io/os: Linux}')), [
    'WIN072 Change nodeSelector kubernetes.io/os to windows',
  ]);
  assert.deepEqual(
    findings(
      deploymentText(`os: {name: windows}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/os, operator: In, values: [Linux]}]`),
    ),
    ['WIN072 Change the affinity value to windows'],
  );
  // Without the conflict, the wrong case is WIN071's alone.
  assert.deepEqual(findings(deploymentText('os: {name: windows}\nnodeSelector: {kubernetes.io/os: Windows}')), [
    'WIN071 Change to windows',
  ]);
});

test('WIN028 and WIN029: an empty gmsaCredentialSpec is refused by the API server before the webhook sees it', () => {
  const empty = deploymentText(
    'os: {name: windows}\nnodeSelector: {kubernetes.io/os: windows}\ntolerations: [{key: os, operator: Exists}]\nsecurityContext: {windowsOptions: {gmsaCredentialSpec: ""}}',
  );
  assert.deepEqual(findings(empty), ['WIN028 Remove gmsaCredentialSpec']);
  const inline = empty.replace('gmsaCredentialSpec: ""', 'gmsaCredentialSpec: "{}"');
  assert.deepEqual(findings(inline), ['WIN029 ']);
});
