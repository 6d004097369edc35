import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { only, covered, fixAndRecheck, ids } from '../support/check';
import { loadManifest } from '../../src/core/manifest/document';
import { applyTextEdits, opToEdits } from '../../src/core/manifest/edits';
import { spanFor } from '../../src/core/manifest/path';
import { emptyFacts } from '../../src/core/rules/facts';
import { ipv4Range, networkRules, overlapsClassE } from '../../src/core/rules/families/network';
import { INSTALL_CONFIG_KIND, looksLikeInstallConfig } from '../../src/core/manifest/workloads';
import type { ObjectRule, Report } from '../../src/core/rules/types';

const configNetwork = (cidr: string, type = 'OVNKubernetes') => `apiVersion: config.openshift.io/v1
kind: Network
metadata:
  name: cluster
spec:
  clusterNetwork:
    - cidr: ${cidr}
      hostPrefix: 23
  serviceNetwork:
    - 172.30.0.0/16
  networkType: ${type}
`;

const operatorNetwork = (defaultNetwork: string, cidr = '10.128.0.0/14') => `apiVersion: operator.openshift.io/v1
kind: Network
metadata:
  name: cluster
spec:
  clusterNetwork:
    - cidr: ${cidr}
      hostPrefix: 23
  serviceNetwork:
    - 172.30.0.0/16
  defaultNetwork:
${defaultNetwork.replace(/^(?=.)/gm, '    ')}`;

const hybrid = `type: OVNKubernetes
ovnKubernetesConfig:
  hybridOverlayConfig:
    hybridClusterNetwork:
      - cidr: 10.132.0.0/14
        hostPrefix: 23
`;

const installConfig = (cidr: string, type = 'OVNKubernetes') => `apiVersion: v1
baseDomain: example.com
metadata:
  name: winc
networking:
  clusterNetwork:
    - cidr: ${cidr}
      hostPrefix: 23
  machineNetwork:
    - cidr: 10.0.0.0/16
  networkType: ${type}
  serviceNetwork:
    - 172.30.0.0/16
platform:
  aws:
    region: us-east-1
pullSecret: '{"auths":{}}'
`;

const netIds = (text: string) => ids(text).filter((id) => id.startsWith('NET'));

test('class-E arithmetic', () => {
  assert.deepEqual(ipv4Range('10.128.0.0/14'), { first: 176160768, last: 176422911 });
  assert.equal(overlapsClassE('240.0.0.0/4'), true);
  assert.equal(overlapsClassE('250.10.0.0/16'), true);
  assert.equal(overlapsClassE('224.0.0.0/3'), true);
  assert.equal(overlapsClassE('239.255.0.0/16'), false);
  assert.equal(overlapsClassE('10.128.0.0/14'), false);
  assert.equal(overlapsClassE('fd01::/48'), false);
  assert.equal(overlapsClassE('300.0.0.0/8'), false);
});

test('a Windows-ready cluster network raises nothing', () => {
  assert.deepEqual(netIds(configNetwork('10.128.0.0/14')), []);
  assert.deepEqual(netIds(operatorNetwork(hybrid)), []);
});

test('NET001: a class-E clusterNetwork in a config.openshift.io Network is an error', () => {
  const text = configNetwork('240.0.0.0/14');
  const f = only(text, 'NET001');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), '240.0.0.0/14');
  assert.match(f[0].message, /class-E range 240\.0\.0\.0\/4/);
  assert.equal(only(operatorNetwork(hybrid, '250.0.0.0/14'), 'NET001').length, 1);
  assert.deepEqual(only(configNetwork('fd01::/48'), 'NET001'), []);
});

test('NET002: a network type other than OVNKubernetes is a warning (no fix on a live Network)', () => {
  const text = configNetwork('10.128.0.0/14', 'OpenShiftSDN');
  const f = only(text, 'NET002');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'OpenShiftSDN');
  assert.deepEqual(f[0].fixes, []);
  const op = operatorNetwork('type: OpenShiftSDN\n');
  assert.equal(covered(op, only(op, 'NET002')[0]), 'OpenShiftSDN');
});

test('NET003: an OVN-Kubernetes operator Network without hybridOverlayConfig is a warning', () => {
  const bare = operatorNetwork('type: OVNKubernetes\n');
  const f = only(bare, 'NET003');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.match(f[0].message, /cluster is not configured for OVN hybrid networking/);
  assert.equal(covered(bare, f[0]), 'type');
  const withOvn = operatorNetwork('type: OVNKubernetes\novnKubernetesConfig:\n  mtu: 1400\n');
  assert.equal(covered(withOvn, only(withOvn, 'NET003')[0]), 'ovnKubernetesConfig');
  assert.deepEqual(only(operatorNetwork('type: OpenShiftSDN\n'), 'NET003'), []);
  // A config.openshift.io Network has no defaultNetwork: NET003 is about the operator object only.
  assert.deepEqual(only(configNetwork('10.128.0.0/14'), 'NET003'), []);
});

test('network rules ignore Network kinds of other API groups', () => {
  assert.deepEqual(
    netIds(configNetwork('240.0.0.0/14', 'Calico').replace('config.openshift.io/v1', 'networking.gke.io/v1')),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// install-config: recognised by `looksLikeInstallConfig`, presented to rules as kind InstallConfig.

test('looksLikeInstallConfig recognises an install-config and nothing else', () => {
  assert.equal(looksLikeInstallConfig(load(installConfig('10.128.0.0/14'))), true);
  assert.equal(looksLikeInstallConfig({ apiVersion: 'v1', platform: { none: {} }, networking: {} }), true);
  assert.equal(looksLikeInstallConfig({ apiVersion: 'v1', kind: 'ConfigMap', platform: {}, baseDomain: 'x' }), false);
  assert.equal(looksLikeInstallConfig({ apiVersion: 'v1', baseDomain: 'x' }), false);
  assert.equal(looksLikeInstallConfig({ apiVersion: 'v2', platform: {}, baseDomain: 'x' }), false);
  assert.equal(looksLikeInstallConfig(load(configNetwork('10.128.0.0/14'))), false);
});

/** Runs the NET rules on an install-config directly, as the engine will once it dispatches InstallConfig. */
function checkInstallConfig(text: string) {
  const doc = loadManifest(text).documents[0];
  assert.ok(looksLikeInstallConfig(doc.value));
  const object = {
    path: [],
    value: doc.value as Record<string, unknown>,
    apiVersion: 'v1',
    kind: INSTALL_CONFIG_KIND,
    name: 'winc',
    namespace: undefined,
  };
  const out: { id: string; report: Report; covered: string }[] = [];
  for (const rule of networkRules as ObjectRule[]) {
    if (!rule.kinds.includes(INSTALL_CONFIG_KIND)) continue;
    rule.check({ object, facts: emptyFacts() }, (report) => {
      const span = spanFor(doc.tree(), report.path, report.target ?? 'key');
      out.push({ id: rule.id, report, covered: span ? text.slice(span.start, span.end) : '' });
    });
  }
  return { doc, out };
}

test('NET001/NET002 on an install-config (rules called directly)', () => {
  assert.deepEqual(checkInstallConfig(installConfig('10.128.0.0/14')).out, []);
  const classE = checkInstallConfig(installConfig('240.0.0.0/14')).out;
  assert.deepEqual(
    classE.map((x) => [x.id, x.covered]),
    [['NET001', '240.0.0.0/14']],
  );

  const text = installConfig('10.128.0.0/14', 'OpenShiftSDN');
  const { doc, out } = checkInstallConfig(text);
  assert.deepEqual(
    out.map((x) => [x.id, x.covered]),
    [['NET002', 'OpenShiftSDN']],
  );
  const fix = out[0].report.fixes?.[0];
  assert.ok(fix, 'install-configs get a fix: nothing is installed yet');
  const edits = fix.ops.flatMap((op) => opToEdits({ text: doc.text, root: doc.tree(), newline: '\n' }, op));
  const fixed = applyTextEdits(text, edits);
  assert.equal(fixed, installConfig('10.128.0.0/14'));
  assert.deepEqual(checkInstallConfig(fixed).out, []);
});

test('NET001 on an install-config through the engine', () => {
  const text = installConfig('240.0.0.0/14');
  const f = only(text, 'NET001');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), '240.0.0.0/14');
});

test('NET002 on an install-config through the engine, with its fix', () => {
  const text = installConfig('10.128.0.0/14', 'OpenShiftSDN');
  assert.equal(only(text, 'NET002').length, 1);
  const { fixed } = fixAndRecheck(text, 'NET002');
  assert.equal(fixed, installConfig('10.128.0.0/14'));
});
