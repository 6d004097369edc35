import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FEATURE_SUPPORT,
  PLATFORM_SUPPORT,
  featureSupported,
  parseOpenShiftRelease,
  platformVerdict,
  serverVerdict,
  supportedServers,
  windowsPlatform,
  withOpenShiftRelease,
  type WindowsPlatform,
} from '../../src/core/openshift/windows-support';

const r = (text: string) => {
  const v = parseOpenShiftRelease(text);
  assert.ok(v, text);
  return v;
};

test('OpenShift releases parse from the forms ClusterVersion and users write', () => {
  assert.deepEqual(parseOpenShiftRelease('4.16'), { major: 4, minor: 16 });
  assert.deepEqual(parseOpenShiftRelease('4.16.3'), { major: 4, minor: 16 });
  assert.deepEqual(parseOpenShiftRelease('v4.14.0-rc.1'), { major: 4, minor: 14 });
  assert.deepEqual(parseOpenShiftRelease(' 5.0 '), { major: 5, minor: 0 });
  for (const bad of ['4', 'four', '4.x', '4.16.3.1', '', '4.-1'])
    assert.equal(parseOpenShiftRelease(bad), undefined, bad);
});

test('every row of the table names its source and well-formed releases', () => {
  for (const [platform, row] of Object.entries(PLATFORM_SUPPORT)) {
    for (const span of [row.windows, ...Object.values(row.servers)]) {
      assert.ok(span);
      assert.ok(parseOpenShiftRelease(span.since), `${platform} ${span.since}`);
      if (span.until) assert.ok(parseOpenShiftRelease(span.until), `${platform} ${span.until}`);
      for (const url of span.source.split(' ; ')) assert.match(url, /^https:\/\//, platform);
    }
  }
  for (const [feature, row] of Object.entries(FEATURE_SUPPORT))
    for (const url of row.source.split(' ; ')) assert.match(url, /^https:\/\//, feature);
});

test('4.6: AWS and Azure only, Windows Server 2019 only, no proxy, no disconnected clusters, no private registries', () => {
  const v46 = r('4.6');
  const platforms = (Object.keys(PLATFORM_SUPPORT) as WindowsPlatform[]).filter(
    (p) => platformVerdict(p, v46).supported,
  );
  assert.deepEqual(platforms, ['AWS', 'Azure']);
  assert.deepEqual(supportedServers('AWS', v46), ['2019']);
  assert.deepEqual(supportedServers('Azure', v46), ['2019']);
  assert.equal(featureSupported('clusterWideProxy', v46), false);
  assert.equal(featureSupported('disconnected', v46), false);
  assert.equal(featureSupported('privateRegistries', v46), false);
  assert.equal(featureSupported('hybridOvnKubernetes', v46), true);
  assert.equal(featureSupported('csiStorage', v46), undefined);
  assert.equal(featureSupported('byoh', v46), false);
});

test('later releases add vSphere, BYOH, GCP, Nutanix, Windows Server 2022, proxy and disconnected support', () => {
  assert.ok(platformVerdict('VSphere', r('4.7')).supported);
  assert.ok(platformVerdict('None', r('4.8')).supported);
  assert.equal(featureSupported('byoh', r('4.8')), true);
  assert.deepEqual(supportedServers('VSphere', r('4.7')), ['20H2']);
  assert.deepEqual(supportedServers('VSphere', r('4.11')), ['2022']);
  assert.deepEqual(supportedServers('Azure', r('4.11')), ['2022', '2019']);
  assert.ok(platformVerdict('GCP', r('4.12')).supported);
  assert.ok(platformVerdict('Nutanix', r('4.14')).supported);
  assert.equal(featureSupported('clusterWideProxy', r('4.14')), true);
  assert.equal(featureSupported('disconnected', r('4.16')), true);
  assert.deepEqual(supportedServers('GCP', r('5.0')), ['2025', '2022']);
  assert.deepEqual(supportedServers('AWS', r('5.0')), ['2025', '2022']);
  assert.equal(PLATFORM_SUPPORT.VSphere.customVxlanPort, true);
});

test('verdicts say which release supports it instead of a version-blind warning', () => {
  assert.deepEqual(platformVerdict('GCP', r('4.11')), {
    supported: false,
    reason: 'Windows nodes on GCP are not supported on OpenShift 4.11 (supported from 4.12)',
    source: PLATFORM_SUPPORT.GCP.windows.source,
  });
  const v = serverVerdict('AWS', '2022', r('4.6'));
  assert.equal(v.supported, false);
  assert.equal(
    !v.supported && v.reason,
    'Windows Server 2022 on AWS is not supported on OpenShift 4.6 (supported from 4.11)',
  );
  const ended = serverVerdict('VSphere', '20H2', r('4.12'));
  assert.equal(
    !ended.supported && ended.reason,
    'Windows Server 20H2 on vSphere is not supported on OpenShift 4.12 (supported through 4.10)',
  );
  const never = serverVerdict('GCP', '2019', r('4.16'));
  assert.equal(
    !never.supported && never.reason,
    'Windows Server 2019 is not supported on GCP by any OpenShift release (OpenShift 4.16 supports Windows Server 2022 there)',
  );
  assert.deepEqual(serverVerdict('Azure', '2019', r('4.16')), { supported: true });
});

test('Infrastructure platform types map to the table, case-insensitively', () => {
  assert.equal(windowsPlatform('VSphere'), 'VSphere');
  assert.equal(windowsPlatform('vsphere'), 'VSphere');
  assert.equal(windowsPlatform('BareMetal'), undefined);
  assert.equal(windowsPlatform(undefined), undefined);
});

test('withOpenShiftRelease: the chosen release wins over a snapshot’s, the other facts stay', () => {
  const offline = withOpenShiftRelease(undefined, r('4.12'));
  assert.deepEqual(offline, {
    name: 'OpenShift 4.12',
    stated: true,
    windowsNodes: [],
    runtimeClasses: [],
    flavour: 'openshift',
    openshift: { version: '4.12' },
  });
  const live = withOpenShiftRelease(
    {
      name: 'prod',
      windowsNodes: [{ name: 'w1', build: '10.0.20348', taints: [] }],
      runtimeClasses: [],
      openshift: { version: '4.16.3', platform: 'Azure', wmcoInstalled: true },
    },
    r('4.6'),
  );
  assert.equal(live.name, 'prod');
  assert.equal(live.windowsNodes.length, 1);
  assert.deepEqual(live.openshift, { version: '4.6', platform: 'Azure', wmcoInstalled: true });
});
