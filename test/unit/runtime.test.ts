import { test } from 'node:test';
import assert from 'node:assert/strict';
import { only, covered, fixAndRecheck, ids, findings } from '../support/check';
import { deployment } from '../support/manifests';

const RUNTIME_IDS = [
  'WIN040',
  'WIN041',
  'WIN050',
  'WIN051',
  'WIN052',
  'WIN053',
  'WIN054',
  'WIN055',
  'WIN056',
  'WIN057',
  'WIN058',
  'WIN060',
  'WIN061',
];

const deploy = deployment;

/** Declared Windows: spec.os.name plus the usual scheduling. */
const declared = `os:
  name: windows
nodeSelector:
  kubernetes.io/os: windows
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
`;

/** Windows only inferred from the node selector. */
const inferred = `nodeSelector:
  kubernetes.io/os: windows
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
`;

const linux = `nodeSelector:
  kubernetes.io/os: linux
`;

const hostProcess = `securityContext:
  windowsOptions:
    hostProcess: true
    runAsUserName: 'NT AUTHORITY\\Local service'
hostNetwork: true
`;

const SERVERCORE = 'mcr.microsoft.com/windows/servercore:ltsc2022';
const NANO = 'mcr.microsoft.com/windows/nanoserver:ltsc2022';

const runtimeIds = (text: string) => ids(text).filter((id) => RUNTIME_IDS.includes(id));

/** Every field this family looks at, in one pod. */
const kitchenSink = (base: string, image: string) => `${base}shareProcessNamespace: true
dnsPolicy: ClusterFirstWithHostNet
hostNetwork: true
resources:
  limits: {cpu: "2", hugepages-2Mi: 100Mi}
securityContext:
  runAsUser: 1000
containers:
  - name: app
    image: ${image}
    command: ["/bin/sh", "-c", "run"]
    securityContext:
      privileged: true
      readOnlyRootFilesystem: true
    resources:
      limits: {hugepages-1Gi: 1Gi}
    volumeDevices:
      - {name: raw, devicePath: /dev/xvda}
    volumeMounts:
      - {name: cache, mountPath: /cache, mountPropagation: HostToContainer}
      - {name: tls, mountPath: /tls/key.pem, subPath: key.pem}
    livenessProbe:
      exec:
        command: [powershell, -Command, "exit 0"]
volumes:
  - {name: cache, emptyDir: {medium: Memory}}
  - {name: tls, secret: {secretName: tls, defaultMode: 0400}}
  - {name: share, nfs: {server: nfs.local, path: /export}}
  - {name: raw, persistentVolumeClaim: {claimName: raw}}
`;

test('Linux and unknown pods never get a runtime finding, whatever they set', () => {
  assert.deepEqual(runtimeIds(deploy(kitchenSink(linux, 'nginx:1.27'))), []);
  assert.deepEqual(runtimeIds(deploy(kitchenSink('', 'nginx:1.27'))), []);
  // A Windows image does not override a Linux node selector.
  assert.deepEqual(runtimeIds(deploy(kitchenSink(linux, NANO))), []);
});

test('an inferred Windows pod gets every runtime rule; a declared one leaves WIN040/041/056 to WIN001/002', () => {
  const inf = new Set(runtimeIds(deploy(kitchenSink(inferred, NANO))));
  assert.deepEqual([...inf].sort(), [...RUNTIME_IDS].sort());
  const dec = new Set(runtimeIds(deploy(kitchenSink(declared, NANO))));
  assert.deepEqual([...dec].sort(), RUNTIME_IDS.filter((id) => !['WIN040', 'WIN041', 'WIN056'].includes(id)).sort());
  const decIds = ids(deploy(kitchenSink(declared, NANO)));
  assert.ok(decIds.includes('WIN001') && decIds.includes('WIN002'));
});

// ---------------------------------------------------------------------------------------------
// WIN040

test('WIN040 flags Linux-only fields of an inferred Windows pod and deletes them one by one', () => {
  const text = deploy(`${inferred}securityContext:
  runAsUser: 1000   # keep me
  runAsNonRoot: true
containers:
  - name: app
    image: ${SERVERCORE}
    securityContext:
      readOnlyRootFilesystem: true
      capabilities:
        drop: [ALL]
`);
  const f = only(text, 'WIN040');
  assert.equal(f.length, 3);
  assert.ok(f.every((x) => x.severity === 'warning'));
  assert.deepEqual(
    f.map((x) => covered(text, x)),
    ['runAsUser', 'readOnlyRootFilesystem', 'capabilities'],
  );
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.securityContext\.runAsUser is Linux-only \(Windows inferred from nodeSelector kubernetes\.io\/os: windows\)/,
  );
  assert.match(f[0].message, /kubelet silently ignores it.*PR #93475.*rejects it once spec\.os\.name: windows is set/);
  assert.match(f[1].message, /^spec\.template\.spec\.containers\[0\]\.securityContext\.readOnlyRootFilesystem/);
  const { fixed } = fixAndRecheck(text, 'WIN040');
  assert.ok(!fixed.includes('runAsUser'), fixed);
  assert.ok(fixed.includes('runAsNonRoot: true'), 'runAsNonRoot works on Windows and stays');
  const second = fixAndRecheck(fixed, 'WIN040').fixed;
  const third = fixAndRecheck(second, 'WIN040').fixed;
  assert.equal(third.match(/securityContext:/g)?.length, 1, third);
  assert.deepEqual(only(third, 'WIN040'), []);
});

test('WIN040 handles flow style, privileged: false, and leaves privileged: true to WIN041', () => {
  const text = deploy(`${inferred}containers:
  - name: app
    image: ${SERVERCORE}
    securityContext: {runAsUser: 1000, allowPrivilegeEscalation: false}
  - name: side
    image: ${SERVERCORE}
    securityContext: {privileged: false}
  - name: priv
    image: ${SERVERCORE}
    securityContext: {privileged: true}
`);
  const f = only(text, 'WIN040');
  assert.deepEqual(
    f.map((x) => covered(text, x)),
    ['runAsUser', 'allowPrivilegeEscalation', 'privileged'],
  );
  assert.match(f[2].message, /containers\[1\]\.securityContext\.privileged/);
  assert.equal(only(text, 'WIN041').length, 1);
  const { fixed } = fixAndRecheck(text, 'WIN040');
  assert.ok(fixed.includes('securityContext: {allowPrivilegeEscalation: false}'), fixed);
});

test('WIN040 does not fire for declared Windows pods (WIN001/WIN002 do), nor for shareProcessNamespace (WIN056)', () => {
  const body = `securityContext:
  runAsUser: 1000
shareProcessNamespace: true
containers:
  - name: app
    image: ${SERVERCORE}
    securityContext:
      readOnlyRootFilesystem: true
`;
  assert.deepEqual(only(deploy(declared + body), 'WIN040'), []);
  assert.equal(only(deploy(declared + body), 'WIN001').length, 2);
  const inf = only(deploy(inferred + body), 'WIN040');
  assert.equal(inf.length, 2);
  assert.ok(inf.every((x) => !x.message.includes('shareProcessNamespace')));
  assert.deepEqual(only(deploy(linux + body.replace(SERVERCORE, 'nginx')), 'WIN040'), []);
});

test('WIN040 flags privileged: true on a HostProcess container (ignored there, rejected with spec.os.name)', () => {
  const text = deploy(`${inferred}${hostProcess}containers:
  - name: agent
    image: mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0
    securityContext:
      privileged: true
`);
  assert.equal(only(text, 'WIN040').length, 1);
  assert.deepEqual(only(text, 'WIN041'), []);
  fixAndRecheck(text, 'WIN040');
});

// ---------------------------------------------------------------------------------------------
// WIN041

test('WIN041 flags privileged: true on an inferred Windows pod and removes it', () => {
  const text = deploy(`${inferred}containers:
  - name: app
    image: ${SERVERCORE}
    securityContext:
      privileged: true
`);
  const f = only(text, 'WIN041');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'privileged');
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.containers\[0\]\.securityContext\.privileged: privileged containers are not supported on Windows/,
  );
  assert.match(f[0].message, /HostProcess/);
  const { fixed } = fixAndRecheck(text, 'WIN041');
  assert.ok(!fixed.includes('securityContext'), fixed);
});

test('WIN041 does not fire for HostProcess, declared, Linux pods or privileged: false', () => {
  const c = (v: string) =>
    `containers:\n  - name: app\n    image: ${SERVERCORE}\n    securityContext: {privileged: ${v}}\n`;
  assert.deepEqual(only(deploy(inferred + hostProcess + c('true')), 'WIN041'), []);
  assert.deepEqual(only(deploy(declared + c('true')), 'WIN041'), []);
  assert.equal(only(deploy(declared + c('true')), 'WIN002').length, 1);
  assert.deepEqual(only(deploy(inferred + c('false')), 'WIN041'), []);
  assert.deepEqual(ids(deploy(linux + c('true').replace(SERVERCORE, 'nginx'))), []);
});

// ---------------------------------------------------------------------------------------------
// WIN050

test('WIN050 flags hugepages in container requests and limits: error when declared, warning when inferred', () => {
  const body = `containers:
  - name: app
    image: ${SERVERCORE}
    resources:
      requests:
        memory: 1Gi
        hugepages-2Mi: 100Mi
      limits:
        hugepages-2Mi: 100Mi
`;
  const text = deploy(declared + body);
  const f = only(text, 'WIN050');
  assert.equal(f.length, 2);
  assert.ok(f.every((x) => x.severity === 'error'));
  assert.deepEqual(
    f.map((x) => covered(text, x)),
    ['hugepages-2Mi', 'hugepages-2Mi'],
  );
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.containers\[0\]\.resources\.requests\.hugepages-2Mi: huge pages are not supported/,
  );
  assert.match(f[0].message, /stays Pending/);
  const { fixed } = fixAndRecheck(text, 'WIN050');
  assert.ok(fixed.includes('requests:\n              memory: 1Gi\n            limits:'), fixed);
  const again = fixAndRecheck(fixed, 'WIN050').fixed;
  assert.ok(!again.includes('limits'), 'an emptied limits map goes too');
  assert.ok(again.includes('memory: 1Gi'));

  const inf = only(deploy(inferred + body), 'WIN050');
  assert.equal(inf.length, 2);
  assert.ok(inf.every((x) => x.severity === 'warning'));
  assert.match(inf[0].message, /Windows inferred from/);
  assert.deepEqual(only(deploy(linux + body.replace(SERVERCORE, 'nginx')), 'WIN050'), []);
});

test('WIN050 covers pod-level resources and flow style', () => {
  const text = deploy(`${declared}resources: {limits: {hugepages-1Gi: 2Gi, cpu: "1"}}
containers:
  - {name: app, image: ${SERVERCORE}, resources: {limits: {hugepages-1Gi: 1Gi, memory: 1Gi}}}
`);
  const f = only(text, 'WIN050');
  assert.equal(f.length, 2);
  assert.match(f[0].message, /^spec\.template\.spec\.resources\.limits\.hugepages-1Gi/);
  assert.match(f[1].message, /^spec\.template\.spec\.containers\[0\]\.resources\.limits\.hugepages-1Gi/);
  const { fixed } = fixAndRecheck(text, 'WIN050');
  assert.ok(fixed.includes('resources: {limits: {cpu: "1"}}'), fixed);
});

// ---------------------------------------------------------------------------------------------
// WIN051 – WIN053

test('WIN051 flags emptyDir medium: Memory and keeps the emptyDir volume valid', () => {
  const block = deploy(`${declared}containers:
  - {name: app, image: ${SERVERCORE}}
volumes:
  - name: cache
    emptyDir:
      medium: Memory
  - name: big
    emptyDir:
      medium: Memory
      sizeLimit: 1Gi
`);
  const f = only(block, 'WIN051');
  assert.equal(f.length, 2);
  assert.equal(covered(block, f[0]), 'medium: Memory');
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.volumes\[0\]\.emptyDir\.medium: Memory is not supported on Windows/,
  );
  const { fixed } = fixAndRecheck(block, 'WIN051');
  assert.ok(fixed.includes('    emptyDir: {}\n'), fixed);
  const again = fixAndRecheck(fixed, 'WIN051').fixed;
  assert.match(again, /emptyDir:\n\s+sizeLimit: 1Gi/);

  const flow = deploy(`${inferred}containers:
  - {name: app, image: ${SERVERCORE}}
volumes:
  - {name: cache, emptyDir: {medium: Memory}}
`);
  const ff = fixAndRecheck(flow, 'WIN051').fixed;
  assert.ok(ff.includes('- {name: cache, emptyDir: {}}'), ff);

  assert.deepEqual(
    only(
      deploy(
        `${declared}containers:\n  - {name: a, image: ${SERVERCORE}}\nvolumes:\n  - {name: c, emptyDir: {medium: ""}}\n`,
      ),
      'WIN051',
    ),
    [],
  );
  assert.deepEqual(
    only(
      deploy(`${linux}containers:\n  - {name: a, image: nginx}\nvolumes:\n  - {name: c, emptyDir: {medium: Memory}}\n`),
      'WIN051',
    ),
    [],
  );
});

test('WIN052 flags volumeDevices without a fix', () => {
  const text = deploy(`${declared}containers:
  - name: app
    image: ${SERVERCORE}
    volumeDevices:
      - name: data
        devicePath: /dev/xvda
volumes:
  - {name: data, persistentVolumeClaim: {claimName: data}}
`);
  const f = only(text, 'WIN052');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'volumeDevices');
  assert.equal(f[0].fixes.length, 0);
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.containers\[0\]\.volumeDevices: raw block volumes are not supported on Windows/,
  );
  assert.deepEqual(
    only(deploy(`${declared}containers:\n  - {name: a, image: ${SERVERCORE}, volumeDevices: []}\n`), 'WIN052'),
    [],
  );
  assert.deepEqual(
    only(
      deploy(`${linux}containers:\n  - {name: a, image: nginx, volumeDevices: [{name: d, devicePath: /dev/x}]}\n`),
      'WIN052',
    ),
    [],
  );
});

test('WIN053 flags mountPropagation other than None and removes it', () => {
  const text = deploy(`${declared}containers:
  - name: app
    image: ${SERVERCORE}
    volumeMounts:
      - name: data
        mountPath: C:\\data
        mountPropagation: Bidirectional
      - {name: data, mountPath: C:\\ro, mountPropagation: None}
      - {mountPropagation: HostToContainer, name: data, mountPath: C:\\x}
volumes:
  - {name: data, emptyDir: {}}
`);
  const f = only(text, 'WIN053');
  assert.equal(f.length, 2);
  assert.deepEqual(
    f.map((x) => covered(text, x)),
    ['Bidirectional', 'HostToContainer'],
  );
  // Bidirectional on a declared Windows pod: the API server's own refusal (it needs privileged).
  assert.equal(f[0].severity, 'error');
  assert.match(
    f[0].message,
    /containers\[0\]\.volumeMounts\.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers/,
  );
  assert.equal(f[1].severity, 'warning');
  assert.match(f[1].message, /volumeMounts\[2\]\.mountPropagation: Windows does not support mount propagation/);
  const { fixed } = fixAndRecheck(text, 'WIN053');
  assert.ok(!fixed.includes('Bidirectional') && /mountPath: C:\\data\n\s+- \{name/.test(fixed), fixed);
  const again = fixAndRecheck(fixed, 'WIN053').fixed;
  assert.ok(again.includes('- {name: data, mountPath: C:\\x}'), again);
  assert.deepEqual(
    only(
      deploy(
        `${linux}containers:\n  - {name: a, image: nginx, volumeMounts: [{name: d, mountPath: /d, mountPropagation: Bidirectional}]}\n`,
      ),
      'WIN053',
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// WIN054 – WIN056

test('WIN054 replaces dnsPolicy ClusterFirstWithHostNet by ClusterFirst, except for HostProcess pods', () => {
  const text = deploy(`${declared}dnsPolicy: ClusterFirstWithHostNet
containers:
  - {name: app, image: ${SERVERCORE}}
`);
  const f = only(text, 'WIN054');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'ClusterFirstWithHostNet');
  assert.match(f[0].message, /^spec\.template\.spec\.dnsPolicy: ClusterFirstWithHostNet is not supported on Windows/);
  const { fixed } = fixAndRecheck(text, 'WIN054');
  assert.ok(fixed.includes('dnsPolicy: ClusterFirst\n'), fixed);
  const flow = `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {os: {name: windows}, dnsPolicy: ClusterFirstWithHostNet, containers: [{name: a, image: ${SERVERCORE}}]}\n`;
  assert.ok(fixAndRecheck(flow, 'WIN054').fixed.includes('dnsPolicy: ClusterFirst,'));

  assert.deepEqual(
    only(
      deploy(
        `${declared}${hostProcess}dnsPolicy: ClusterFirstWithHostNet\ncontainers:\n  - {name: a, image: ${NANO}}\n`,
      ),
      'WIN054',
    ),
    [],
  );
  assert.deepEqual(
    only(
      deploy(
        `${linux}dnsPolicy: ClusterFirstWithHostNet\nhostNetwork: true\ncontainers:\n  - {name: a, image: nginx}\n`,
      ),
      'WIN054',
    ),
    [],
  );
});

test('WIN055 flags hostNetwork: true without HostProcess containers and removes it', () => {
  const text = deploy(`${declared}hostNetwork: true
containers:
  - {name: app, image: ${SERVERCORE}}
`);
  const f = only(text, 'WIN055');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'hostNetwork');
  assert.match(f[0].message, /^spec\.template\.spec\.hostNetwork: true does nothing for ordinary Windows containers/);
  const { fixed } = fixAndRecheck(text, 'WIN055');
  assert.ok(!fixed.includes('hostNetwork'));
  // HostProcess at pod level, or on every container: not flagged.
  assert.deepEqual(only(deploy(`${declared}${hostProcess}containers:\n  - {name: a, image: ${NANO}}\n`), 'WIN055'), []);
  assert.deepEqual(
    only(
      deploy(
        `${declared}hostNetwork: true\ncontainers:\n  - name: a\n    image: ${NANO}\n    securityContext:\n      windowsOptions: {hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM'}\n`,
      ),
      'WIN055',
    ),
    [],
  );
  assert.deepEqual(
    only(deploy(`${declared}hostNetwork: false\ncontainers:\n  - {name: a, image: ${SERVERCORE}}\n`), 'WIN055'),
    [],
  );
  assert.deepEqual(only(deploy(`${linux}hostNetwork: true\ncontainers:\n  - {name: a, image: nginx}\n`), 'WIN055'), []);
});

test('WIN056 flags shareProcessNamespace on inferred Windows pods only', () => {
  const text = deploy(`${inferred}shareProcessNamespace: false
containers:
  - {name: app, image: ${SERVERCORE}}
`);
  const f = only(text, 'WIN056');
  assert.equal(f.length, 1);
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.shareProcessNamespace: process namespaces mean nothing on Windows \(Windows inferred from .*\), and the API server rejects the field, even false/,
  );
  fixAndRecheck(text, 'WIN056');
  const t = only(
    deploy(`${inferred}shareProcessNamespace: true\ncontainers:\n  - {name: app, image: ${SERVERCORE}}\n`),
    'WIN056',
  );
  assert.match(t[0].message, /cannot share a process namespace/);
  const dec = deploy(`${declared}shareProcessNamespace: true\ncontainers:\n  - {name: app, image: ${SERVERCORE}}\n`);
  assert.deepEqual(only(dec, 'WIN056'), []);
  assert.equal(only(dec, 'WIN001').length, 1);
  assert.deepEqual(
    ids(deploy(`${linux}shareProcessNamespace: true\ncontainers:\n  - {name: app, image: nginx}\n`)),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// WIN057, WIN058

// The volumes of antrea-io/antrea build/yamls/antrea-windows.yml (a render of its Helm chart).
test('WIN057 leaves defaultMode 420 (0644, the API server default) alone and still flags any other mode', () => {
  const volumes = (mode: string) => `volumes:
  - configMap:
      name: antrea-windows-config
    name: antrea-windows-config
  - configMap:
      defaultMode: ${mode}
      name: antrea-agent-windows
    name: antrea-agent-windows
`;
  const pod = (mode: string) =>
    deploy(`${inferred}${hostProcess}containers:
  - name: antrea-agent
    image: antrea/antrea-windows:latest
${volumes(mode)}`);
  assert.deepEqual(only(pod('420'), 'WIN057'), []);
  assert.deepEqual(
    only(pod('256'), 'WIN057').map((x) => [covered(pod('256'), x), x.severity]),
    [['defaultMode', 'info']],
  );
});

test('WIN057 flags NFS (warning), defaultMode and Secret subPath (info), not configMap subPath', () => {
  const text = deploy(`${declared}containers:
  - name: app
    image: ${SERVERCORE}
    volumeMounts:
      - {name: tls, mountPath: C:\\tls\\key.pem, subPath: key.pem}
      - {name: settings, mountPath: C:\\app\\appsettings.json, subPath: appsettings.json}
      - {name: tls, mountPath: C:\\tls-all}
volumes:
  - name: share
    nfs:
      server: nfs.example.com
      path: /exports
  - name: tls
    secret:
      secretName: tls
      defaultMode: 0400
  - name: settings
    configMap:
      name: settings
`);
  // Findings come in document order: the container's subPath mount precedes the volumes.
  const f = only(text, 'WIN057');
  assert.deepEqual(
    f.map((x) => [covered(text, x), x.severity]),
    [
      ['subPath', 'info'],
      ['nfs', 'warning'],
      ['defaultMode', 'info'],
    ],
  );
  f.push(f.shift()!);
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.volumes\[0\]\.nfs: NFS volumes are not supported on Windows nodes/,
  );
  assert.equal(f[0].fixes.length, 0);
  assert.match(f[1].message, /volumes\[1\]\.secret\.defaultMode is ignored on Windows/);
  assert.match(
    f[2].message,
    /containers\[0\]\.volumeMounts\[0\]\.subPath: Windows documents subPath mounts of Secret volumes as unsupported/,
  );
  assert.equal(f[2].fixes.length, 0);
  // The NFS finding has no fix; fix the defaultMode one in a copy without it.
  const withoutNfs = text.replace(/ *- name: share\n.*\n.*\n.*\n/, '');
  assert.equal(only(withoutNfs, 'WIN057')[0].severity, 'info');
  const fixed = fixAndRecheck(withoutNfs, 'WIN057').fixed;
  assert.ok(!fixed.includes('defaultMode') && fixed.includes('secretName: tls'), fixed);
});

test('WIN057 defaultMode in flow style and on projected/downwardAPI/configMap; Linux pods untouched', () => {
  const text = deploy(`${inferred}containers:
  - {name: app, image: ${SERVERCORE}}
volumes:
  - {name: a, configMap: {name: a, defaultMode: 256}}
  - {name: b, projected: {defaultMode: 256, sources: [{secret: {name: b}}]}}
  - {name: c, downwardAPI: {defaultMode: 256, items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}}
`);
  const f = only(text, 'WIN057');
  assert.equal(f.length, 3);
  const fixed = fixAndRecheck(text, 'WIN057').fixed;
  assert.ok(fixed.includes('{name: a, configMap: {name: a}}'), fixed);
  assert.deepEqual(
    only(text.replace('kubernetes.io/os: windows', 'kubernetes.io/os: linux').replace(SERVERCORE, 'nginx'), 'WIN057'),
    [],
  );
});

test('WIN058 flags pod-level resources and removes them', () => {
  const text = deploy(`${declared}resources:
  limits:
    cpu: "2"
    memory: 4Gi
containers:
  - {name: app, image: ${SERVERCORE}}
`);
  const f = only(text, 'WIN058');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'resources');
  assert.equal(f[0].severity, 'error');
  // The API server's own message (kube-apiserver 1.34+; checked against a real one in test/apiserver-suites).
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.resources: Forbidden: may not be set for a windows pod\. Pod-level resources are not supported on Windows/,
  );
  const { fixed } = fixAndRecheck(text, 'WIN058');
  assert.ok(!fixed.includes('memory: 4Gi'), fixed);
  assert.deepEqual(
    only(
      deploy(`${declared}containers:\n  - {name: app, image: ${SERVERCORE}, resources: {limits: {cpu: "1"}}}\n`),
      'WIN058',
    ),
    [],
  );
  assert.deepEqual(
    only(deploy(`${linux}resources: {limits: {cpu: "1"}}\ncontainers:\n  - {name: app, image: nginx}\n`), 'WIN058'),
    [],
  );
  // Windows only inferred: a warning that says what happens once spec.os.name is set.
  const inferredPod = deploy(
    `nodeSelector: {kubernetes.io/os: windows}\nresources: {limits: {cpu: "1"}}\ncontainers:\n  - {name: app, image: ${SERVERCORE}}\n`,
  );
  const g = only(inferredPod, 'WIN058');
  assert.equal(g.length, 1);
  assert.equal(g[0].severity, 'warning');
  assert.match(
    g[0].message,
    /rejects them once spec\.os\.name: windows is set \("Forbidden: may not be set for a windows pod"\)/,
  );
});

// ---------------------------------------------------------------------------------------------
// WIN060, WIN061

test('WIN060 flags POSIX shells in commands, probes and hooks, ranging the program', () => {
  const text = deploy(`${declared}containers:
  - name: app
    image: ${SERVERCORE}
    command: ["/bin/sh", "-c", "echo hi"]
    livenessProbe:
      exec:
        command:
          - sh
          - -c
          - test -f /tmp/healthy
    readinessProbe:
      exec: {command: [cmd, /c, dir, c:\\health.txt]}
    lifecycle:
      preStop:
        exec:
          command: [/usr/bin/env, bash, -c, "sleep 5"]
`);
  const f = only(text, 'WIN060');
  assert.deepEqual(
    f.map((x) => covered(text, x)),
    ['"/bin/sh"', 'sh', '/usr/bin/env'],
  );
  assert.ok(f.every((x) => x.severity === 'warning' && x.fixes.length === 0));
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.containers\[0\]\.command\[0\]: "\/bin\/sh" is a Linux program and Windows has no POSIX shell, so the container cannot start\. Use cmd \/c … or powershell -Command … instead\./,
  );
  assert.match(f[1].message, /livenessProbe\.exec\.command\[0\].*kubelet keeps restarting/);
  assert.match(f[2].message, /lifecycle\.preStop\.exec\.command\[0\]/);
});

test('WIN060 suggests only cmd on Nano Server, skips busybox images, Windows programs and Linux pods', () => {
  const nano = only(
    deploy(`${declared}containers:\n  - {name: a, image: ${NANO}, command: [bash, -c, x]}\n`),
    'WIN060',
  );
  assert.match(nano[0].message, /Use cmd \/c … \(Nano Server has no PowerShell\)/);
  assert.deepEqual(
    only(
      deploy(
        `${declared}containers:\n  - {name: a, image: registry.k8s.io/e2e-test-images/busybox:1.36.1-1, command: [sh, -c, x]}\n`,
      ),
      'WIN060',
    ),
    [],
  );
  assert.deepEqual(
    only(
      deploy(
        `${declared}containers:\n  - {name: a, image: ${SERVERCORE}, command: [powershell, -Command, x], args: [sh]}\n`,
      ),
      'WIN060',
    ),
    [],
  );
  assert.deepEqual(
    only(
      deploy(`${declared}containers:\n  - {name: a, image: ${SERVERCORE}, command: ["C:\\\\bin\\\\sh.exe"]}\n`),
      'WIN060',
    ),
    [],
  );
  assert.deepEqual(
    only(deploy(`${linux}containers:\n  - {name: a, image: nginx, command: [/bin/sh, -c, x]}\n`), 'WIN060'),
    [],
  );
  assert.deepEqual(only(deploy(`containers:\n  - {name: a, image: nginx, command: [/bin/sh, -c, x]}\n`), 'WIN060'), []);
});

test('WIN061 flags Windows PowerShell on Nano Server images, not pwsh on PowerShell images nor HostProcess', () => {
  const text = deploy(`${declared}containers:
  - name: app
    image: ${NANO}
    command: [powershell.exe, -Command, "Start-Sleep 3600"]
    startupProbe:
      exec: {command: ["C:\\\\Windows\\\\System32\\\\WindowsPowerShell\\\\v1.0\\\\powershell.exe", -c, "exit 0"]}
`);
  const f = only(text, 'WIN061');
  assert.equal(f.length, 2);
  assert.equal(covered(text, f[0]), 'powershell.exe');
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.containers\[0\]\.command\[0\]: Nano Server images have no Windows PowerShell \(image "mcr\.microsoft\.com\/windows\/nanoserver:ltsc2022"\), so the container cannot start\. Use cmd \/c …, or pwsh on an mcr\.microsoft\.com\/powershell nanoserver image\./,
  );
  assert.match(f[1].message, /startupProbe/);

  const c = (image: string, cmd: string) =>
    `containers:\n  - {name: a, image: ${image}, command: [${cmd}, -Command, x]}\n`;
  assert.equal(
    only(deploy(declared + c(NANO, 'pwsh')), 'WIN061').length,
    1,
    'the bare Nano Server image has no pwsh either',
  );
  assert.deepEqual(
    only(deploy(declared + c('mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022', 'pwsh')), 'WIN061'),
    [],
  );
  const ps = only(deploy(declared + c('mcr.microsoft.com/powershell:lts-nanoserver-1809', 'powershell')), 'WIN061');
  assert.equal(ps.length, 1);
  assert.match(ps[0].message, /has PowerShell 7 \(pwsh\), not Windows PowerShell.*Use pwsh instead\.$/);
  // windows_exporter's HostProcess init container runs the host's powershell: valid.
  assert.deepEqual(
    only(
      deploy(declared + hostProcess + c('mcr.microsoft.com/powershell:lts-nanoserver-1809', 'powershell')),
      'WIN061',
    ),
    [],
  );
  assert.deepEqual(
    only(deploy(declared + c('contoso.azurecr.io/app:1.0-nanoserver-ltsc2022', 'pwsh')), 'WIN061'),
    [],
    'custom Nano Server images may ship pwsh',
  );
  assert.deepEqual(only(deploy(declared + c(SERVERCORE, 'powershell')), 'WIN061'), []);
  assert.deepEqual(only(deploy(declared + hostProcess + c(NANO, 'powershell')), 'WIN061'), []);
  assert.deepEqual(only(deploy(linux + c(NANO, 'powershell')), 'WIN061'), []);
});

test('every runtime finding names its field and keeps long values out of the message', () => {
  const long = 'x'.repeat(5000);
  const text = deploy(`${declared}containers:
  - name: app
    image: ${NANO}
    command: ["/bin/sh${long}", -c, x]
    volumeMounts:
      - {name: d, mountPath: C:\\d, mountPropagation: "${long}"}
volumes:
  - {name: d, emptyDir: {}}
`);
  const f = findings(text).filter((x) => RUNTIME_IDS.includes(x.ruleId));
  assert.equal(f.length, 2);
  for (const x of f) {
    assert.ok(x.message.length < 400, x.message);
    assert.match(x.message, /^spec\.template\.spec\.containers\[0\]\./);
  }
});
