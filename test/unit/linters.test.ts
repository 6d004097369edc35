import { test } from 'node:test';
import assert from 'node:assert/strict';
import { only, covered, fixAndRecheck, ids, findings, applyFix } from '../support/check';
import { fixText } from '../../src/core/rules/fix';
import { loadManifest } from '../../src/core/manifest/document';
import { objectsOf, podSpecOf } from '../../src/core/manifest/workloads';
import { isObj } from '../../src/core/manifest/path';
import { targetingOf } from '../../src/core/rules/targeting';
import { emptyFacts } from '../../src/core/rules/facts';

const SERVERCORE = 'mcr.microsoft.com/windows/servercore:ltsc2022';

const deploy = (annotations: string, podSpec: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
${annotations.replace(/^(?=.)/gm, '      ')}    spec:
${podSpec.replace(/^(?=.)/gm, '      ')}`;

const declared = `os:
  name: windows
nodeSelector:
  kubernetes.io/os: windows
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
containers:
  - name: app
    image: ${SERVERCORE}
`;

const linuxPod = `nodeSelector:
  kubernetes.io/os: linux
containers:
  - name: app
    image: nginx:1.27
`;

const hardening = `annotations:
  seccomp.security.alpha.kubernetes.io/pod: runtime/default   # asked for by a Linux linter
  container.apparmor.security.beta.kubernetes.io/app: runtime/default
  container.seccomp.security.alpha.kubernetes.io/app: runtime/default
  example.com/owner: team-a
`;

test('LNT001 flags seccomp and AppArmor annotations on a Windows pod template and deletes them', () => {
  const text = deploy(hardening, declared);
  const f = only(text, 'LNT001');
  assert.equal(f.length, 3);
  assert.ok(f.every((x) => x.severity === 'info'));
  assert.deepEqual(
    f.map((x) => covered(text, x)),
    [
      'seccomp.security.alpha.kubernetes.io/pod',
      'container.apparmor.security.beta.kubernetes.io/app',
      'container.seccomp.security.alpha.kubernetes.io/app',
    ],
  );
  assert.match(
    f[0].message,
    /^spec\.template\.metadata\.annotations\[seccomp\.security\.alpha\.kubernetes\.io\/pod\]: seccomp is a Linux kernel feature, so this annotation has no effect on a Windows pod\./,
  );
  assert.match(f[1].message, /AppArmor is a Linux kernel feature/);
  assert.match(f[0].message, /kube-linter, Polaris, kube-score/);
  const { fixed } = fixAndRecheck(text, 'LNT001');
  assert.ok(!fixed.includes('seccomp.security.alpha.kubernetes.io/pod'), fixed);
  assert.ok(fixed.includes('container.apparmor.security.beta.kubernetes.io/app: runtime/default'));
  assert.ok(fixed.includes('example.com/owner: team-a'));
  const all = fixText(text).text;
  assert.ok(all.includes('annotations:\n        example.com/owner: team-a\n'), all);
});

test('LNT001 on a bare Pod with flow-style annotations; the emptied annotations map goes', () => {
  const text = `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {container.apparmor.security.beta.kubernetes.io/app: runtime/default}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  containers:
    - {name: app, image: ${SERVERCORE}}
`;
  const f = only(text, 'LNT001');
  assert.equal(f.length, 1);
  assert.match(
    f[0].message,
    /^metadata\.annotations\[container\.apparmor\.security\.beta\.kubernetes\.io\/app\]: .*\(Windows inferred from nodeSelector kubernetes\.io\/os: windows\)/,
  );
  const { fixed } = fixAndRecheck(text, 'LNT001');
  assert.ok(!fixed.includes('annotations'), fixed);
  assert.ok(fixed.includes('metadata:\n  name: p\nspec:'), fixed);
});

test('LNT001 does not fire for Linux or unknown pods, nor for other annotations', () => {
  assert.deepEqual(ids(deploy(hardening, linuxPod)), []);
  assert.deepEqual(ids(deploy(hardening, linuxPod.replace(/nodeSelector:\n.*\n/, ''))), []);
  assert.deepEqual(only(deploy('annotations:\n  example.com/seccomp: "no"\n', declared), 'LNT001'), []);
});

// ---------------------------------------------------------------------------------------------
// Registry-wide: no fix, of any rule, ever hardens a Windows pod the Linux way.

const LINUX_HARDENING_FIELDS = [
  'readOnlyRootFilesystem',
  'capabilities',
  'seccompProfile',
  'allowPrivilegeEscalation',
  'runAsUser',
  'runAsGroup',
  'privileged',
];
const LINUX_HARDENING_ANNOTATION =
  /^(seccomp\.security\.alpha\.kubernetes\.io\/pod$|container\.(seccomp\.security\.alpha|apparmor\.security\.beta)\.kubernetes\.io\/)/;

/** Windows pod fixtures that provoke as many rules, and fixes, as possible. */
const FIXTURES: Record<string, string> = {
  'declared, hardened the Linux way': deploy(
    hardening,
    `os: {name: windows}
nodeSelector: {kubernetes.io/os: windows}
securityContext:
  runAsNonRoot: true
  runAsUser: 10001
  runAsGroup: 10001
  fsGroup: 10001
  seccompProfile: {type: RuntimeDefault}
containers:
  - name: app
    image: ${SERVERCORE}
    securityContext:
      readOnlyRootFilesystem: true
      allowPrivilegeEscalation: false
      privileged: false
      runAsUser: 0
      capabilities:
        drop: [ALL]
      seccompProfile:
        type: RuntimeDefault
`,
  ),
  'inferred, hardened the Linux way': deploy(
    hardening,
    `nodeSelector:
  kubernetes.io/os: windows
securityContext: {runAsUser: 10001, runAsGroup: 10001, seccompProfile: {type: RuntimeDefault}}
containers:
  - name: app
    image: ${SERVERCORE}
    securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}, privileged: true}
`,
  ),
  'bare Windows pod with no securityContext': `apiVersion: v1
kind: Pod
metadata:
  name: bare
spec:
  containers:
    - name: app
      image: ${SERVERCORE}
      command: [cmd, /c, ping -t localhost]
`,
  'runAsNonRoot on Server Core': deploy(
    '',
    `os: {name: windows}
nodeSelector: {kubernetes.io/os: windows}
securityContext:
  runAsNonRoot: true
containers:
  - name: app
    image: mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022
`,
  ),
  'HostProcess DaemonSet with mistakes': `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      nodeSelector:
        kubernetes.io/os: windows
      securityContext:
        runAsNonRoot: true
        windowsOptions:
          hostProcess: true
      containers:
        - name: agent
          image: mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0
          securityContext:
            privileged: true
            windowsOptions:
              hostProcess: false
        - name: side
          image: mcr.microsoft.com/windows/nanoserver:ltsc2022
          command: [powershell, -Command, "sleep 10"]
`,
  'runtime kitchen sink': deploy(
    '',
    `nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: 10.0.17763}
tolerations:
  - {key: os, value: windows, effect: NoSchedule}
shareProcessNamespace: true
dnsPolicy: ClusterFirstWithHostNet
hostNetwork: true
resources: {limits: {cpu: "2", hugepages-2Mi: 100Mi}}
containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    command: ["/bin/sh", "-c", "run"]
    securityContext: {runAsUser: 1000}
    resources:
      limits: {hugepages-1Gi: 1Gi}
    volumeMounts:
      - {name: cache, mountPath: /cache, mountPropagation: HostToContainer}
      - {name: tls, mountPath: /tls/key.pem, subPath: key.pem}
    livenessProbe:
      exec:
        command: [powershell, -Command, "exit 0"]
volumes:
  - {name: cache, emptyDir: {medium: Memory}}
  - name: tls
    secret:
      secretName: tls
      defaultMode: 0400
`,
  ),
  'CronJob with gMSA and runAsUserName': `apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
spec:
  schedule: "0 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          os: {name: windows}
          restartPolicy: Never
          nodeSelector:
            beta.kubernetes.io/os: windows
          tolerations:
            - {key: os, operator: Equal, value: Windows, Effect: NoSchedule}
          securityContext:
            windowsOptions:
              gmsaCredentialSpecName: gmsa-WebApp1
              runAsUserName: 'NT AUTHORITY\\\\SYSTEM'
          containers:
            - name: job
              image: mcr.microsoft.com/windows/servercore:1809
              securityContext:
                runAsNonRoot: true
`,
};

function hardeningCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const bump = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isObj(v)) {
      for (const [k, child] of Object.entries(v)) {
        if (LINUX_HARDENING_FIELDS.includes(k)) bump(k);
        walk(child);
      }
    }
  };
  for (const doc of loadManifest(text).documents) {
    for (const object of objectsOf(doc.value)) {
      const pod = podSpecOf(object);
      if (!pod) continue;
      walk(pod.spec);
      const annotations = pod.metadata.annotations;
      if (isObj(annotations))
        for (const k of Object.keys(annotations)) if (LINUX_HARDENING_ANNOTATION.test(k)) bump(`annotation ${k}`);
    }
  }
  return counts;
}

function assertNoHardeningAdded(before: string, after: string, what: string) {
  const a = hardeningCounts(before);
  const b = hardeningCounts(after);
  for (const [k, n] of b) {
    assert.ok(n <= (a.get(k) ?? 0), `${what} added ${k} to a Windows pod:\n${after}`);
  }
}

test('registry-wide: the fixtures are all Windows pods', () => {
  for (const [name, text] of Object.entries(FIXTURES)) {
    for (const doc of loadManifest(text).documents) {
      assert.equal(doc.status, 'ok', name);
      for (const object of objectsOf(doc.value)) {
        const pod = podSpecOf(object);
        assert.ok(pod, name);
        assert.equal(targetingOf(pod, emptyFacts()).os, 'windows', name);
      }
    }
  }
});

test('registry-wide: fixing everything never adds Linux hardening to a Windows pod', () => {
  for (const [name, text] of Object.entries(FIXTURES)) {
    const result = fixText(text);
    assertNoHardeningAdded(text, result.text, `fix-all of "${name}"`);
    assert.equal(result.result.ruleErrors.length, 0, `${name}: ${JSON.stringify(result.result.ruleErrors)}`);
  }
  // Where the API server or the kubelet would reject or ignore them, fix-all removes every one.
  for (const name of ['declared, hardened the Linux way', 'inferred, hardened the Linux way']) {
    const fixed = fixText(FIXTURES[name]).text;
    assert.deepEqual([...hardeningCounts(fixed)], [], `${name} after fix-all:\n${fixed}`);
  }
});

test('registry-wide: no single fix of any finding adds Linux hardening to a Windows pod', () => {
  let checked = 0;
  for (const [name, text] of Object.entries(FIXTURES)) {
    for (const f of findings(text)) {
      f.fixes.forEach((fix, i) => {
        const after = applyFix(text, f, i);
        assertNoHardeningAdded(text, after, `${f.ruleId} fix "${fix.title}" on "${name}"`);
        checked++;
      });
    }
  }
  assert.ok(checked >= 20, `only ${checked} fixes were exercised`);
});
