// --fix removes what its deletions empty: two fixes of one pass that each delete a key of the same
// securityContext must not leave `securityContext:` with a null value (the API server would keep an
// empty object, and the file reads as if something was meant there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { fixText } from '../../src/core/rules/fix';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: iis
spec:
  selector:
    matchLabels: {app: iis}
  template:
    metadata:
      labels: {app: iis}
    spec:
      os: {name: windows}
      securityContext:
        seLinuxOptions: {level: "s0:c123,c456"}
        sysctls:
        - {name: kernel.shm_rmid_forced, value: "1"}
      containers:
      - name: iis
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
        # what Windows cannot run
        securityContext:
          privileged: true
          capabilities:
            add: [NET_ADMIN]
          seLinuxOptions:
            level: "s0"
        ports:
        - containerPort: 80
`;

test('fixes that together empty a securityContext remove it, at pod and container level, and keep the rest', () => {
  const r = fixText(DEPLOYMENT, { disable: ['WIN073'] });
  assert.ok(r.applied >= 5, `${r.applied} fixes`);
  assert.doesNotMatch(r.text, /securityContext/);
  assert.equal(r.result.findings.filter((f) => f.severity === 'error').length, 0);
  const spec = (load(r.text) as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec;
  assert.equal(spec.securityContext, undefined);
  assert.deepEqual(spec.containers, [
    {
      name: 'iis',
      image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
      ports: [{ containerPort: 80 }],
    },
  ]);
  assert.match(r.text, /# what Windows cannot run\n {8}ports:/, 'the comment stays');
});

test('a map that keeps a key is left alone; a map that was already empty is not the fix’s to remove', () => {
  const keep = DEPLOYMENT.replace(
    '          privileged: true\n',
    '          privileged: true\n          windowsOptions: {runAsUserName: ContainerUser}\n',
  );
  const r = fixText(keep, { disable: ['WIN073'] });
  assert.match(r.text, / {8}securityContext:\n {10}windowsOptions: \{runAsUserName: ContainerUser\}\n {8}ports:/);
  const emptyBefore = DEPLOYMENT.replace(
    '      os: {name: windows}\n',
    '      os: {name: windows}\n      hostAliases: []\n      dnsConfig: {}\n',
  );
  assert.match(fixText(emptyBefore, { disable: ['WIN073'] }).text, /dnsConfig: \{\}/);
});
