import { test } from 'node:test';
import assert from 'node:assert/strict';
import { only, covered, fixAndRecheck, ids } from '../support/check';
import { deployment } from '../support/manifests';

const deploy = deployment;

const winBase = `os:
  name: windows
nodeSelector:
  kubernetes.io/os: windows
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
`;

test('WIN001 flags pod-level forbidden fields with the API message and removes them', () => {
  const text = deploy(`${winBase}hostPID: true
securityContext:
  fsGroup: 2000   # group for volumes
  windowsOptions:
    runAsUserName: ContainerUser
containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
`);
  const f = only(text, 'WIN001');
  assert.equal(f.length, 2);
  assert.match(f[0].message, /^spec\.template\.spec\.hostPID: Forbidden: cannot be set for a windows pod/);
  assert.equal(covered(text, f[0]), 'hostPID');
  assert.equal(covered(text, f[1]), 'fsGroup');
  const { fixed } = fixAndRecheck(text, 'WIN001');
  assert.ok(!fixed.includes('hostPID'));
  assert.ok(fixed.includes('fsGroup: 2000   # group for volumes'), 'only the one key goes');
});

test('WIN001 does not fire for hostPID: false, nor for Linux or unknown pods', () => {
  assert.deepEqual(
    only(
      deploy(
        `${winBase}hostPID: false\ncontainers:\n  - name: a\n    image: mcr.microsoft.com/windows/nanoserver:ltsc2022\n`,
      ),
      'WIN001',
    ),
    [],
  );
  assert.deepEqual(
    ids(deploy(`hostPID: true\nsecurityContext:\n  fsGroup: 1\ncontainers:\n  - name: a\n    image: nginx\n`)),
    [],
  );
});

test('WIN002 flags privileged: false too, and deleting the only key removes securityContext', () => {
  const text = deploy(`${winBase}containers:
  - name: app
    image: mcr.microsoft.com/windows/servercore:ltsc2022
    securityContext:
      privileged: false
`);
  const f = only(text, 'WIN002');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /containers\[0\]\.securityContext\.privileged: Forbidden/);
  const { fixed } = fixAndRecheck(text, 'WIN002');
  assert.ok(!fixed.includes('securityContext'), fixed);
  assert.ok(fixed.includes('image: mcr.microsoft.com/windows/servercore:ltsc2022'));
});

test('WIN002 runAsUser fix moves to windowsOptions.runAsUserName', () => {
  const text = deploy(`${winBase}containers:
  - name: app
    image: mcr.microsoft.com/windows/servercore:ltsc2022
    securityContext:
      runAsUser: 1000
      runAsNonRoot: true
`);
  const { fixed } = fixAndRecheck(text, 'WIN002');
  assert.match(fixed, /securityContext:\n\s+windowsOptions:\n\s+runAsUserName: ContainerUser\n\s+runAsNonRoot: true/);
});

test('WIN003 and WIN004', () => {
  const linux = deploy(`os: {name: linux}
containers:
  - name: a
    image: nginx
    securityContext:
      windowsOptions: {}
`);
  assert.equal(only(linux, 'WIN003').length, 1);
  fixAndRecheck(linux, 'WIN003');
  const bad = deploy(`os:
  name: Windows
nodeSelector: {kubernetes.io/os: windows}
tolerations: [{key: os, operator: Exists}]
containers:
  - {name: a, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}
`);
  const f = only(bad, 'WIN004');
  assert.equal(f.length, 1);
  assert.equal(covered(bad, f[0]), 'Windows');
  assert.match(f[0].message, /spec\.template\.spec\.os: Unsupported value: "Windows"/);
  const { fixed } = fixAndRecheck(bad, 'WIN004');
  assert.match(fixed, /name: windows/);
  // kube-apiserver 1.35 says only "Required value" (older ones added ": cannot be empty").
  const empty = only(bad.replace('name: Windows', 'name: ""'), 'WIN004');
  assert.match(empty[0].message, /^spec\.template\.spec\.os\.name: Required value\. Set it to windows or linux\.$/);
});
