import { test } from 'node:test';
import assert from 'node:assert/strict';
import { only, covered, fixAndRecheck, ids } from '../support/check';

const HP_IDS = ['WIN010', 'WIN011', 'WIN012', 'WIN013', 'WIN014', 'WIN015'];
const hpIds = (text: string) => ids(text).filter((id) => HP_IDS.includes(id));

const daemonSet = (podSpec: string, namespace = '') => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
${namespace ? `  namespace: ${namespace}\n` : ''}spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
${podSpec.replace(/^(?=.)/gm, '      ')}`;

/** A valid HostProcess pod spec, as sig-windows-tools ships them. */
const goodHp = `securityContext:
  windowsOptions:
    hostProcess: true
    runAsUserName: "NT AUTHORITY\\\\system"
hostNetwork: true
nodeSelector:
  kubernetes.io/os: windows
containers:
  - name: agent
    image: mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0
`;

test('a valid HostProcess DaemonSet gets no host-process finding', () => {
  assert.deepEqual(hpIds(daemonSet(goodHp)), []);
});

test('WIN010 flags a HostProcess pod with a normal init container and makes every container HostProcess', () => {
  const text = daemonSet(`hostNetwork: true
securityContext:
  windowsOptions:
    runAsUserName: "NT AUTHORITY\\\\Local service"
nodeSelector:
  kubernetes.io/os: windows
initContainers:
  - name: setup
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
containers:
  - name: agent
    image: mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0
    securityContext:
      windowsOptions:
        hostProcess: true
`);
  const f = only(text, 'WIN010');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.match(
    f[0].message,
    /^spec\.template\.spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers\. Not HostProcess: init container "setup"/,
  );
  assert.equal(covered(text, f[0]), 'hostProcess');
  assert.equal(f[0].related?.length, 1);
  const { fixed } = fixAndRecheck(text, 'WIN010');
  assert.match(
    fixed,
    /spec:\n {6}hostNetwork: true\n {6}securityContext:\n {8}windowsOptions:\n {10}runAsUserName: "NT AUTHORITY\\\\Local service"\n {10}hostProcess: true\n/,
  );
});

test('WIN010 fix removes explicit hostProcess: false of the other containers (flow style)', () => {
  const text = daemonSet(`hostNetwork: true
securityContext: {windowsOptions: {runAsUserName: "NT AUTHORITY\\\\SYSTEM"}}
containers:
  - {name: a, image: base, securityContext: {windowsOptions: {hostProcess: true}}}
  - {name: b, image: base, securityContext: {windowsOptions: {hostProcess: false}}}
`);
  const f = only(text, 'WIN010');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /Not HostProcess: container "b"\./);
  const { fixed } = fixAndRecheck(text, 'WIN010');
  assert.match(
    fixed,
    /securityContext: \{windowsOptions: \{runAsUserName: "NT AUTHORITY\\\\SYSTEM", hostProcess: true\}\}/,
  );
  assert.match(fixed, /- \{name: b, image: base\}/);
});

test('WIN010 fires regardless of spec.os (validateWindowsHostProcessPod runs for every pod)', () => {
  const text = daemonSet(`os: {name: linux}
hostNetwork: true
containers:
  - name: a
    image: base
    securityContext: {windowsOptions: {hostProcess: true}}
  - name: b
    image: base
`);
  assert.equal(only(text, 'WIN010').length, 1);
  // Windows-only advice stays quiet: WIN003 already says windowsOptions cannot be there.
  assert.deepEqual(only(text, 'WIN013'), []);
});

test('WIN011 flags a missing or false hostNetwork and sets it to true', () => {
  const missing = daemonSet(goodHp.replace('hostNetwork: true\n', ''));
  const f = only(missing, 'WIN011');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers\./,
  );
  assert.equal(covered(missing, f[0]), 'hostProcess');
  const { fixed } = fixAndRecheck(missing, 'WIN011');
  assert.match(fixed, /hostNetwork: true/);

  const off = daemonSet(goodHp.replace('hostNetwork: true', 'hostNetwork: false'));
  const g = only(off, 'WIN011');
  assert.equal(covered(off, g[0]), 'false');
  const { fixed: fixed2 } = fixAndRecheck(off, 'WIN011');
  assert.ok(fixed2.includes('hostNetwork: true') && !fixed2.includes('hostNetwork: false'));
});

test('WIN011 in flow style', () => {
  const text = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"securityContext": {"windowsOptions": {"hostProcess": true, "runAsUserName": "NT AUTHORITY\\\\SYSTEM"}}, "containers": [{"name": "a", "image": "base"}]}}\n`;
  const f = only(text, 'WIN011');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /^spec\.hostNetwork:/);
  const { fixed } = fixAndRecheck(text, 'WIN011');
  assert.match(fixed, /"hostNetwork": true|hostNetwork: true/);
});

test('WIN012 flags a container value that differs from the pod value and removes it', () => {
  const text = daemonSet(`${goodHp}  - name: sidecar
    image: base
    securityContext:
      windowsOptions:
        hostProcess: false
`);
  const f = only(text, 'WIN012');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.containers\[1\]\.securityContext\.windowsOptions\.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true\./,
  );
  assert.equal(covered(text, f[0]), 'false');
  // One error per cause: WIN010 leaves the contradicting container to WIN012.
  assert.deepEqual(only(text, 'WIN010'), []);
  const { fixed } = fixAndRecheck(text, 'WIN012');
  assert.match(fixed, /- name: sidecar\n\s+image: base\n?$/);
});

test('WIN012 does not fire when the values agree', () => {
  const text = daemonSet(`${goodHp}    securityContext:
      windowsOptions: {hostProcess: true}
`);
  assert.deepEqual(hpIds(text), []);
});

test('WIN013 flags a HostProcess pod without runAsUserName and sets Local service', () => {
  const text = daemonSet(goodHp.replace('    runAsUserName: "NT AUTHORITY\\\\system"\n', ''));
  const f = only(text, 'WIN013');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'hostProcess');
  const { fixed } = fixAndRecheck(text, 'WIN013');
  assert.match(fixed, /hostProcess: true\n\s+runAsUserName: NT AUTHORITY\\Local service\n/);
});

test('WIN013 per container when hostProcess is set on the container (flow style)', () => {
  const text = daemonSet(`hostNetwork: true
containers:
  - {name: a, image: base, securityContext: {windowsOptions: {hostProcess: true}}}
`);
  const f = only(text, 'WIN013');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /container "a"/);
  const { fixed } = fixAndRecheck(text, 'WIN013');
  assert.ok(fixed.includes('{windowsOptions: {hostProcess: true, runAsUserName: NT AUTHORITY\\Local service}}'), fixed);
  // A container-level user is enough.
  assert.deepEqual(only(fixed, 'WIN013'), []);
});

test('WIN014 flags runAsNonRoot: true on HostProcess pods, pod- and container-level', () => {
  const text = daemonSet(goodHp.replace('securityContext:\n', 'securityContext:\n  runAsNonRoot: true\n'));
  const f = only(text, 'WIN014');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'runAsNonRoot');
  const { fixed } = fixAndRecheck(text, 'WIN014');
  assert.ok(!fixed.includes('runAsNonRoot'));

  const c = daemonSet(`${goodHp}    securityContext: {runAsNonRoot: true}
`);
  const g = only(c, 'WIN014');
  assert.equal(g.length, 1);
  assert.match(g[0].message, /container "agent"/);
  const { fixed: fixed2 } = fixAndRecheck(c, 'WIN014');
  assert.ok(!fixed2.includes('securityContext: {'), 'the emptied securityContext goes too');
});

test('WIN014 on a container whose pod also says runAsNonRoot: true: the fix sets false (removing it would let the pod value apply)', () => {
  const text =
    daemonSet(`${goodHp.replace('securityContext:\n', 'securityContext:\n  runAsNonRoot: true\n')}    securityContext: {runAsNonRoot: true}
`);
  const container = only(text, 'WIN014').find(
    (f) => /container "agent"/.test(f.message) && covered(text, f) === 'runAsNonRoot',
  );
  assert.ok(container);
  const { fixed, after } = fixAndRecheck(text, 'WIN014');
  assert.match(fixed, /securityContext: \{runAsNonRoot: false\}/);
  assert.equal(after.filter((f) => f.ruleId === 'WIN014').length, 0, 'fixed for good, not moved to the pod level');
});

test('WIN014 does not fire for runAsNonRoot: false or for normal containers', () => {
  assert.deepEqual(
    only(daemonSet(goodHp.replace('securityContext:\n', 'securityContext:\n  runAsNonRoot: false\n')), 'WIN014'),
    [],
  );
  const normal = daemonSet(`securityContext:
  runAsNonRoot: true
  windowsOptions: {runAsUserName: ContainerUser}
nodeSelector: {kubernetes.io/os: windows}
containers:
  - name: a
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
`);
  assert.deepEqual(hpIds(normal), []);
});

const namespace = (level: string) => `apiVersion: v1
kind: Namespace
metadata:
  name: agents
  labels:
    pod-security.kubernetes.io/enforce: ${level}
---
`;

test('WIN015 flags HostProcess pods in a baseline or restricted namespace with the PSA detail', () => {
  for (const level of ['baseline', 'restricted']) {
    const text = namespace(level) + daemonSet(goodHp, 'agents');
    const f = only(text, 'WIN015');
    assert.equal(f.length, 1, level);
    assert.equal(f[0].severity, 'warning');
    // As the API server words it (checked against a real one in test/apiserver-suites): hostNetwork comes first, as a host namespace.
    assert.match(
      f[0].message,
      new RegExp(
        `violates PodSecurity "${level}:latest": host namespaces \\(hostNetwork=true\\), hostProcess \\(pod must not set securityContext\\.windowsOptions\\.hostProcess=true\\)${level === 'restricted' ? ', and whatever else' : '\\. '}`,
      ),
    );
    assert.match(f[0].message, /pod-security\.kubernetes\.io\/enforce: privileged/);
    assert.equal(covered(text, f[0]), 'hostProcess');
    assert.equal(f[0].fixes.length, 0);
  }
});

test('WIN015 names containers that set hostProcess themselves', () => {
  const text =
    namespace('baseline') +
    daemonSet(
      `hostNetwork: true
containers:
  - name: a
    image: base
    securityContext: {windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}}
  - name: b
    image: base
    securityContext: {windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}}
`,
      'agents',
    );
  const f = only(text, 'WIN015');
  assert.equal(f.length, 1);
  assert.match(
    f[0].message,
    /: host namespaces \(hostNetwork=true\), hostProcess \(containers "a", "b" must not set securityContext\.windowsOptions\.hostProcess=true\)\. /,
  );
});

test('WIN015 words hostPath volumes, hostPorts and privileged containers as PodSecurity does, in its order', () => {
  const spec = (level: string) =>
    namespace(level) +
    daemonSet(
      `hostNetwork: true
securityContext: {windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}}
volumes:
  - {name: logs, hostPath: {path: 'C:\\var\\log'}}
  - {name: scratch, emptyDir: {}}
  - {name: k, hostPath: {path: 'C:\\k'}}
initContainers:
  - {name: init, image: base, securityContext: {privileged: true}}
containers:
  - {name: a, image: base, ports: [{containerPort: 9182, hostPort: 9182}, {containerPort: 10250, hostPort: 10250}]}
`,
      'agents',
    );
  const baseline = only(spec('baseline'), 'WIN015');
  assert.equal(baseline.length, 1);
  assert.match(
    baseline[0].message,
    /violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true\), hostPath volumes \(volumes "logs", "k"\), hostPort \(container "a" uses hostPorts 10250, 9182\), privileged \(container "init" must not set securityContext\.privileged=true\), hostProcess \(pod must not set securityContext\.windowsOptions\.hostProcess=true\)\. /,
  );
  // restricted reports hostPath volumes later, as restricted volume types
  const restricted = only(spec('restricted'), 'WIN015');
  assert.match(
    restricted[0].message,
    /"restricted:latest": host namespaces \(hostNetwork=true\), hostPort \(container "a" uses hostPorts 10250, 9182\), privileged/,
  );
});

test('WIN015 stays quiet for privileged, unlabelled or unknown namespaces', () => {
  assert.deepEqual(only(namespace('privileged') + daemonSet(goodHp, 'agents'), 'WIN015'), []);
  assert.deepEqual(only(namespace('baseline') + daemonSet(goodHp, 'other'), 'WIN015'), []);
  assert.deepEqual(only(namespace('baseline') + daemonSet(goodHp), 'WIN015'), []);
});

test('a Linux pod gets no host-process finding', () => {
  const text = daemonSet(
    `securityContext:
  runAsNonRoot: true
hostNetwork: false
nodeSelector: {kubernetes.io/os: linux}
containers:
  - name: a
    image: nginx
`,
    'agents',
  );
  assert.deepEqual(hpIds(namespace('restricted') + text), []);
});
