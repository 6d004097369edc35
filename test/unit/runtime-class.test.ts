import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { only, covered, fixAndRecheck, ids } from '../support/check';
import { tolerates } from '../../src/core/rules/families/runtime-class';

const rc = (body: string, apiVersion = 'node.k8s.io/v1') => `apiVersion: ${apiVersion}
kind: RuntimeClass
metadata:
  name: windows-2022
${body}`;

const good = rc(`handler: runhcs-wcow-process
scheduling:
  nodeSelector:
    kubernetes.io/os: windows
    node.kubernetes.io/windows-build: 10.0.20348
  tolerations:
    - key: os
      operator: Equal
      value: windows
      effect: NoSchedule
    - key: os
      operator: Equal
      value: Windows
      effect: NoSchedule
`);

const rtcIds = (text: string, options = {}) => ids(text, options).filter((id) => id.startsWith('RTC'));

test('the OpenShift-documented RuntimeClass raises nothing', () => {
  assert.deepEqual(rtcIds(good), []);
  assert.deepEqual(rtcIds(good, { flavour: 'openshift' }), []);
});

test('RTC001: malformed windows-build value is an error, unknown build a warning naming the known ones', () => {
  const malformed = good.replace('10.0.20348', '"ltsc2022"');
  const f = only(malformed, 'RTC001');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(malformed, f[0]), '"ltsc2022"');
  assert.match(f[0].message, /10\.0\.20348 \(Windows Server 2022\)/);
  assert.equal(only(good.replace('10.0.20348', '10.0.20348.1'), 'RTC001')[0]?.severity, 'error');
  assert.equal(only(good.replace('10.0.20348', '17763'), 'RTC001')[0]?.severity, 'error');

  const unknown = good.replace('10.0.20348', '10.0.20349');
  const g = only(unknown, 'RTC001');
  assert.equal(g.length, 1);
  assert.equal(g[0].severity, 'warning');
  assert.match(g[0].message, /10\.0\.20349 is not a known Windows Server build/);
  assert.match(g[0].message, /10\.0\.17763/);
  assert.deepEqual(only(good.replace('10.0.20348', '10.0.17763'), 'RTC001'), []);
});

test('RTC002: Windows RuntimeClass without any Windows toleration gets {key: os, operator: Exists}', () => {
  const text = rc(`handler: runhcs-wcow-process
scheduling:
  nodeSelector:
    kubernetes.io/os: windows
`);
  const f = only(text, 'RTC002');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'scheduling');
  const { fixed } = fixAndRecheck(text, 'RTC002');
  const obj = load(fixed) as { scheduling: { tolerations: unknown } };
  assert.deepEqual(obj.scheduling.tolerations, [{ key: 'os', operator: 'Exists', effect: 'NoSchedule' }]);
});

test('RTC002: tolerating only os=windows misses the OpenShift taint (warning on OpenShift, info elsewhere)', () => {
  const text = rc(`handler: runhcs-wcow-process
scheduling:
  nodeSelector:
    kubernetes.io/os: windows
  tolerations:
    - key: os
      operator: Equal
      value: windows
      effect: NoSchedule
`);
  const f = only(text, 'RTC002', { flavour: 'openshift' });
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'tolerations');
  assert.match(f[0].message, /not os=Windows:NoSchedule, the taint OpenShift WMCO puts on Windows nodes/);
  assert.equal(only(text, 'RTC002')[0]?.severity, 'info');
  const { fixed } = fixAndRecheck(text, 'RTC002', { flavour: 'openshift' });
  assert.match(fixed, /effect: NoSchedule\n    - key: os\n      operator: Exists\n      effect: NoSchedule\n$/);

  // Tolerating only OpenShift's os=Windows is a warning everywhere.
  assert.equal(only(text.replace('value: windows', 'value: Windows'), 'RTC002')[0]?.severity, 'warning');
});

test('RTC002 accepts operator Exists and ignores Linux or unrelated RuntimeClasses', () => {
  assert.deepEqual(
    only(
      rc(
        `handler: runhcs-wcow-process\nscheduling:\n  nodeSelector: {kubernetes.io/os: windows}\n  tolerations: [{key: os, operator: Exists}]\n`,
      ),
      'RTC002',
    ),
    [],
  );
  assert.deepEqual(
    only(rc(`handler: runhcs-wcow-process\nscheduling:\n  tolerations: [{operator: Exists}]\n`), 'RTC002'),
    [],
  );
  assert.deepEqual(only(rc(`handler: runc\nscheduling:\n  nodeSelector: {kubernetes.io/os: linux}\n`), 'RTC002'), []);
  assert.deepEqual(only(rc(`handler: kata\n`), 'RTC002'), []);
  // Windows by handler only: the fix creates scheduling.tolerations.
  const byHandler = rc(`handler: runhcs-wcow-hypervisor\n`);
  assert.equal(covered(byHandler, only(byHandler, 'RTC002')[0]), 'handler');
  fixAndRecheck(byHandler, 'RTC002');
});

test('tolerates() follows Kubernetes matching', () => {
  const taint = { key: 'os', value: 'Windows', effect: 'NoSchedule' };
  assert.equal(tolerates({ key: 'os', value: 'windows' }, taint), false);
  assert.equal(tolerates({ key: 'os', value: 'Windows' }, taint), true);
  assert.equal(tolerates({ key: 'os', operator: 'Exists', effect: 'NoExecute' }, taint), false);
  assert.equal(tolerates({ operator: 'Exists' }, taint), true);
  assert.equal(tolerates({ key: 'node.kubernetes.io/os', operator: 'Exists' }, taint), false);
});

test('RTC003: node.k8s.io/v1beta1 is rejected; the fix moves to node.k8s.io/v1', () => {
  const text = good.replace('node.k8s.io/v1', 'node.k8s.io/v1beta1');
  const f = only(text, 'RTC003');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'node.k8s.io/v1beta1');
  const { fixed } = fixAndRecheck(text, 'RTC003');
  assert.equal(fixed, good);
  const alpha = only(rc(`spec:\n  runtimeHandler: runhcs-wcow-process\n`, 'node.k8s.io/v1alpha1'), 'RTC003');
  assert.equal(alpha.length, 1);
  assert.deepEqual(alpha[0].fixes, []);
  assert.deepEqual(only(good, 'RTC003'), []);
});

test('RTC004: kubernetes.io/os: Windows never matches; the fix lowercases it', () => {
  const text = good.replace('kubernetes.io/os: windows', 'kubernetes.io/os: Windows');
  const f = only(text, 'RTC004');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'Windows');
  const { fixed } = fixAndRecheck(text, 'RTC004');
  assert.equal(fixed, good);
  assert.equal(only(good.replace('kubernetes.io/os: windows', 'beta.kubernetes.io/os: WINDOWS'), 'RTC004').length, 1);
  assert.deepEqual(only(good, 'RTC004'), []);
});

test('RTC005: handler docker is the removed dockershim; fix only for Windows RuntimeClasses', () => {
  const text = good.replace('handler: runhcs-wcow-process', 'handler: docker');
  const f = only(text, 'RTC005');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'docker');
  const { fixed } = fixAndRecheck(text, 'RTC005');
  assert.equal(fixed, good);
  const noSelector = only(rc('handler: docker\n'), 'RTC005');
  assert.equal(noSelector.length, 1);
  assert.deepEqual(noSelector[0].fixes, []);
  assert.deepEqual(only(rc('handler: docker\nscheduling:\n  nodeSelector: {kubernetes.io/os: linux}\n'), 'RTC005'), []);
  assert.deepEqual(only(good, 'RTC005'), []);
});
