import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { covered, findings, fixAndRecheck, only } from '../support/check';
import type { ClusterSnapshot, OpenShiftFacts } from '../../src/core/rules/facts';
import type { Finding } from '../../src/core/rules/types';
import { withOpenShiftRelease } from '../../src/core/openshift/windows-support';
import { fixText } from '../../src/core/rules/fix';

const DIR = resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'machinesets');
const fixture = (name: string) => readFileSync(join(DIR, `${name}.yaml`), 'utf8');
const PLATFORMS = ['aws', 'azure', 'gcp', 'vsphere', 'nutanix'] as const;

/** The fixture with one exact piece of text replaced (fails loudly when the text is not there). */
function edit(name: string, from: string, to: string): string {
  const text = fixture(name);
  assert.ok(text.includes(from), `${name}.yaml lacks ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

function cluster(openshift: OpenShiftFacts): { cluster: ClusterSnapshot } {
  return { cluster: { name: 'prod', flavour: 'openshift', windowsNodes: [], runtimeClasses: [], openshift } };
}

function one(text: string, ruleId: string, options = {}): Finding {
  const list = only(text, ruleId, options);
  assert.equal(list.length, 1, `one ${ruleId} expected, got ${list.map((f) => f.message).join(' | ') || 'none'}`);
  return list[0];
}

const HEALTHY: OpenShiftFacts = {
  version: '4.16.3',
  wmcoInstalled: true,
  cloudPrivateKey: true,
  networkType: 'OVNKubernetes',
  hybridOverlay: true,
};

for (const name of PLATFORMS) {
  test(`the WMCO-documented Windows MachineSet for ${name} is clean, offline and against a supporting cluster`, () => {
    const text = fixture(name);
    assert.deepEqual(findings(text), []);
    const platform = { aws: 'AWS', azure: 'Azure', gcp: 'GCP', vsphere: 'VSphere', nutanix: 'Nutanix' }[name];
    assert.deepEqual(findings(text, cluster({ ...HEALTHY, platform, infrastructureName: 'prod-7xk2p' })), []);
  });
}

test('a Linux worker MachineSet (no os-id, RHCOS image) is not a Windows one: no finding', () => {
  // Named as a Linux worker too: a name that says windows is itself a sign (WIN086's other signals).
  const text = edit('aws', '        machine.openshift.io/os-id: Windows\n', '')
    .replace('name: windows-user-data', 'name: worker-user-data')
    .replaceAll('windows-worker', 'worker');
  assert.deepEqual(findings(text), []);
});

// ---- WIN086 ------------------------------------------------------------------------------------

test('WIN086: os-id spelled "windows": exact value required, fix sets Windows', () => {
  const text = edit('vsphere', 'machine.openshift.io/os-id: Windows', 'machine.openshift.io/os-id: windows');
  const f = one(text, 'WIN086');
  assert.equal(f.severity, 'error');
  assert.equal(covered(text, f), 'windows');
  assert.match(f.message, /exactly "Windows" \(case-sensitive\); "windows" does not match/);
  assert.match(f.message, /never become nodes/);
  const { fixed } = fixAndRecheck(text, 'WIN086');
  assert.ok(fixed.includes('machine.openshift.io/os-id: Windows\n'));
});

test('WIN086: os-id missing while the image is a Windows one: reported on the labels, fix adds it', () => {
  const text = edit('gcp', '        machine.openshift.io/os-id: Windows\n', '');
  const f = one(text, 'WIN086');
  assert.equal(covered(text, f), 'labels');
  assert.equal(f.range.start.line, 16);
  assert.match(
    f.message,
    /boots the Windows image "projects\/windows-cloud\/global\/images\/family\/windows-2022-core"/,
  );
  assert.match(f.message, /lacks machine\.openshift\.io\/os-id: Windows/);
  const { fixed } = fixAndRecheck(text, 'WIN086');
  assert.deepEqual(findings(fixed), []);
});

// ---- WIN087 ------------------------------------------------------------------------------------

test('WIN087: worker-user-data (the Linux copy mistake) is an error with the reason and a fix', () => {
  const text = edit('aws', 'name: windows-user-data', 'name: worker-user-data');
  const f = one(text, 'WIN087');
  assert.equal(f.severity, 'error');
  assert.equal(covered(text, f), 'worker-user-data');
  assert.match(
    f.message,
    /Linux workers' Ignition user data: a Windows VM ignores it, never gets the SSH key WMCO connects with, and never becomes a node/,
  );
  const { fixed } = fixAndRecheck(text, 'WIN087');
  assert.deepEqual(findings(fixed), []);
});

test('WIN087: another secret name is a warning; no userDataSecret at all is an error with a fix', () => {
  const other = edit('azure', 'name: windows-user-data', 'name: my-windows-data');
  const w = one(other, 'WIN087');
  assert.equal(w.severity, 'warning');
  assert.match(w.message, /WMCO creates and keeps up to date only windows-user-data/);
  const none = edit('gcp', '          userDataSecret:\n            name: windows-user-data\n', '');
  const e = one(none, 'WIN087');
  assert.equal(e.severity, 'error');
  assert.equal(covered(none, e), 'value');
  assert.match(e.message, /names no user-data secret/);
  const { fixed } = fixAndRecheck(none, 'WIN087');
  assert.deepEqual(findings(fixed), []);
});

// ---- WIN088 ------------------------------------------------------------------------------------

test('WIN088: each missing worker label is reported with a fix that adds it', () => {
  const text = edit('nutanix', '        machine.openshift.io/cluster-api-machine-type: worker\n', '').replace(
    '      metadata:\n        labels:\n          node-role.kubernetes.io/worker: ""\n',
    '',
  );
  const list = only(text, 'WIN088');
  assert.equal(list.length, 2);
  assert.ok(list.every((f) => f.severity === 'warning'));
  assert.match(list[0].message, /lacks machine\.openshift\.io\/cluster-api-machine-type: worker/);
  assert.match(
    list[1].message,
    /spec\.template\.spec\.metadata\.labels of MachineSet "prod-7xk2p-windows-worker-a" has no node-role\.kubernetes\.io\/worker: ""/,
  );
  assert.equal(covered(text, list[0]), 'labels');
  const { fixed } = fixAndRecheck(text, 'WIN088');
  const again = fixAndRecheck(fixed, 'WIN088').fixed;
  assert.deepEqual(findings(again), []);
  assert.ok(again.includes('machine.openshift.io/cluster-api-machine-type: worker'));
});

test('WIN088: an infra role label counts (infrastructure Windows machine sets)', () => {
  const text = edit('aws', 'node-role.kubernetes.io/worker: ""', 'node-role.kubernetes.io/infra: ""')
    .replace('cluster-api-machine-role: worker', 'cluster-api-machine-role: infra')
    .replace('cluster-api-machine-type: worker', 'cluster-api-machine-type: infra');
  assert.deepEqual(only(text, 'WIN088'), []);
});

// ---- WIN089 ------------------------------------------------------------------------------------

test('WIN089: a 10-character MachineSet name on Azure and vSphere is reported on the name, not on AWS', () => {
  for (const name of ['azure', 'vsphere'] as const) {
    const text = fixture(name).replace(/winworker/g, 'winworkers');
    const f = one(text, 'WIN089');
    assert.equal(f.severity, 'error');
    assert.equal(covered(text, f), 'winworkers');
    assert.equal(f.range.start.line, 6);
    assert.match(f.message, /named "winworkers-xxxxx" \(16 characters\)/);
    assert.match(f.message, /at most 9 characters/);
    assert.match(f.message, name === 'azure' ? /Azure refuses to create such a Windows VM/ : /On vSphere/);
  }
  assert.deepEqual(only(fixture('aws'), 'WIN089'), []);
});

test('WIN089: a Machine name longer than 15 characters on vSphere', () => {
  const machine = `apiVersion: machine.openshift.io/v1beta1
kind: Machine
metadata:
  name: winworker-abcdefg
  namespace: openshift-machine-api
  labels:
    machine.openshift.io/cluster-api-machine-role: worker
    machine.openshift.io/cluster-api-machine-type: worker
    machine.openshift.io/os-id: Windows
spec:
  metadata:
    labels:
      node-role.kubernetes.io/worker: ""
  providerSpec:
    value:
      kind: VSphereMachineProviderSpec
      template: windows-server-2022-golden
      userDataSecret:
        name: windows-user-data
`;
  const f = one(machine, 'WIN089');
  assert.equal(covered(machine, f), 'winworker-abcdefg');
  assert.match(f.message, /this Machine is named so \(17 characters\)/);
  assert.deepEqual(
    findings(machine).map((x) => x.ruleId),
    ['WIN089'],
  );
});

// ---- WIN090 ------------------------------------------------------------------------------------

test('WIN090: placeholders left in are reported per string, with what to put instead', () => {
  const text = fixture('aws')
    .replace(/prod-7xk2p/g, '<infrastructureID>')
    .replace('ami-0e4c8b1f3a2d5c6b7', '<windows_server_ami>');
  const list = only(text, 'WIN090');
  assert.equal(list.length, 11);
  assert.ok(list.every((f) => f.severity === 'error'));
  const name = list.find((f) => covered(text, f) === '<infrastructureID>-windows-worker-us-east-1a');
  assert.ok(name);
  assert.match(name.message, /the API server rejects it in a name or label/);
  assert.match(name.message, /oc get -o jsonpath='\{\.status\.infrastructureName\}' infrastructure cluster/);
  const ami = list.find((f) => covered(text, f) === '<windows_server_ami>');
  assert.ok(ami);
  assert.match(ami.message, /the AWS provider cannot resolve it, so the machines fail to provision/);
  assert.match(ami.message, /Windows Server AMI in the cluster's region/);
  assert.equal(ami.fixes.length, 0);
});

test('WIN090: with the cluster infrastructure name known, the fix fills it in', () => {
  const text = fixture('gcp').replace(/prod-7xk2p/g, '<infrastructure_id>');
  const options = cluster({ ...HEALTHY, platform: 'GCP', infrastructureName: 'prod-7xk2p' });
  const f = only(text, 'WIN090', options)[0];
  assert.match(f.message, /Replace it with this cluster's infrastructure name "prod-7xk2p"/);
  assert.equal(f.fixes[0].title, 'Replace with prod-7xk2p');
  fixAndRecheck(text, 'WIN090', options);
  // Filling in the infrastructure name changes the object: `check --fix=all`, not `--fix`.
  assert.equal(fixText(text, options).text, text);
  const all = fixText(text, options, { scope: 'all' });
  assert.equal(all.text, fixture('gcp'));
  assert.deepEqual(all.result.findings, []);
});

// ---- WIN091 ------------------------------------------------------------------------------------

test('WIN091: selector value that the template labels do not carry: the webhook words, fix aligns the template', () => {
  const text = edit(
    'azure',
    '      machine.openshift.io/cluster-api-machineset: winworker\n  template',
    '      machine.openshift.io/cluster-api-machineset: winwork\n  template',
  );
  const f = one(text, 'WIN091');
  assert.equal(f.severity, 'error');
  assert.equal(covered(text, f), 'winwork');
  assert.equal(f.range.start.line, 13);
  assert.match(
    f.message,
    /requires machine\.openshift\.io\/cluster-api-machineset="winwork" but the template labels say "winworker"/,
  );
  assert.match(
    f.message,
    /admission webhook rejects the MachineSet \(spec\.template\.metadata\.labels: Invalid value: …: `selector` does not match template `labels`\)/,
  );
  assert.equal(f.related?.length, 1);
  const { fixed } = fixAndRecheck(text, 'WIN091');
  assert.ok(fixed.includes('        machine.openshift.io/cluster-api-machineset: winwork\n'));
});

test('WIN091: matchExpressions are evaluated too', () => {
  const text = edit(
    'vsphere',
    '    matchLabels:\n      machine.openshift.io/cluster-api-cluster: prod-7xk2p\n',
    '    matchExpressions:\n      - key: machine.openshift.io/os-id\n        operator: In\n        values: [Linux]\n    matchLabels:\n      machine.openshift.io/cluster-api-cluster: prod-7xk2p\n',
  );
  const f = one(text, 'WIN091');
  assert.match(
    f.message,
    /expression machine\.openshift\.io\/os-id In \("Linux"\) does not match the template labels \(machine\.openshift\.io\/os-id is "Windows"\)/,
  );
  assert.equal(f.fixes.length, 0);
});

// ---- WIN092 ------------------------------------------------------------------------------------

test('WIN092: an RHCOS image under the Windows label, on vSphere, GCP and Azure', () => {
  const vsphere = edit('vsphere', 'template: windows-server-2022-golden', 'template: prod-7xk2p-rhcos');
  const f = one(vsphere, 'WIN092');
  assert.equal(f.severity, 'error');
  assert.equal(covered(vsphere, f), 'prod-7xk2p-rhcos');
  assert.match(
    f.message,
    /boots "prod-7xk2p-rhcos", a Linux image .* never becomes a Windows node\. Use a Windows Server golden-image template/,
  );
  const gcp = edit(
    'gcp',
    'projects/windows-cloud/global/images/family/windows-2022-core',
    'projects/rhcos-cloud/global/images/rhcos-416-94-202405291527-0-gcp-x86-64',
  );
  assert.equal(one(gcp, 'WIN092').severity, 'error');
  const azure = edit(
    'azure',
    'resourceID: ""',
    'resourceID: /resourceGroups/prod-7xk2p-rg/providers/Microsoft.Compute/galleries/gallery_prod_7xk2p/images/prod-7xk2p-gen2/versions/latest',
  )
    .replace('offer: WindowsServer\n', 'offer: ""\n')
    .replace('publisher: MicrosoftWindowsServer', 'publisher: ""')
    .replace('sku: 2022-datacenter', 'sku: ""')
    .replace('version: latest', 'version: ""');
  const a = one(azure, 'WIN092');
  assert.match(a.message, /cluster’s own RHCOS image/);
});

// ---- WIN093 ------------------------------------------------------------------------------------

test('WIN093: Azure Windows image with osDisk.osType Linux: fix sets Windows', () => {
  const text = edit('azure', 'osType: Windows', 'osType: Linux');
  const f = one(text, 'WIN093');
  assert.equal(covered(text, f), 'Linux');
  assert.match(f.message, /builds a Linux OS profile, which Azure cannot apply to a Windows image/);
  const { fixed } = fixAndRecheck(text, 'WIN093');
  assert.equal(fixed, fixture('azure'));
});

test('WIN093: a Windows Server version no release supports on the platform', () => {
  const azure = edit('azure', 'sku: 2022-datacenter', 'sku: 2016-datacenter');
  const f = one(azure, 'WIN093');
  assert.equal(covered(azure, f), '2016-datacenter');
  assert.match(
    f.message,
    /is Windows Server 2016, which no OpenShift release supports on Azure \(WMCO documents Windows Server 2019, Windows Server 2022, Windows Server 2025 there\)/,
  );
  const gcp = edit('gcp', 'windows-2022-core', 'windows-2019-core');
  assert.match(one(gcp, 'WIN093').message, /is Windows Server 2019, which no OpenShift release supports on GCP/);
});

test('WIN093: a GCP boot image outside the Windows families is a warning', () => {
  const text = edit(
    'gcp',
    'projects/windows-cloud/global/images/family/windows-2022-core',
    'projects/example-project/global/images/golden-2024',
  );
  const f = one(text, 'WIN093');
  assert.equal(f.severity, 'warning');
  assert.match(f.message, /not from a Windows image family/);
  assert.match(f.message, /projects\/windows-cloud\/global\/images\/family\/windows-2022-core/);
});

// ---- WIN094 ------------------------------------------------------------------------------------

test('WIN094: platform not supported on the cluster release says from which release it is', () => {
  const text = fixture('gcp');
  const f = one(text, 'WIN094', cluster({ version: '4.10.8' }));
  assert.equal(covered(text, f), 'GCPMachineProviderSpec');
  assert.equal(
    f.message,
    'Windows nodes on GCP are not supported on OpenShift 4.10 (supported from 4.12): WMCO does not configure these machines there. — from cluster prod',
  );
  assert.deepEqual(only(text, 'WIN094', cluster({ version: '4.12.0' })), []);
});

test('WIN094: Windows Server 2022 on Azure on OpenShift 4.6 (supported from 4.11), via the --openshift-version facts', () => {
  const text = fixture('azure');
  const options = { cluster: withOpenShiftRelease(undefined, { major: 4, minor: 6 }) };
  const f = one(text, 'WIN094', options);
  assert.equal(covered(text, f), '2022-datacenter');
  assert.match(f.message, /^Windows Server 2022 on Azure is not supported on OpenShift 4\.6 \(supported from 4\.11\)/);
  const ws2019 = edit('azure', 'sku: 2022-datacenter', 'sku: 2019-datacenter');
  assert.deepEqual(only(ws2019, 'WIN094', options), []);
  assert.match(
    one(ws2019, 'WIN094', { cluster: withOpenShiftRelease(undefined, { major: 5, minor: 0 }) }).message,
    /Windows Server 2019 on Azure is not supported on OpenShift 5\.0 \(supported through 4\.21\)/,
  );
});

test('WIN094: a MachineSet for another platform than the cluster runs on', () => {
  const f = one(fixture('aws'), 'WIN094', cluster({ version: '4.16.0', platform: 'Azure' }));
  assert.equal(f.severity, 'warning');
  assert.match(f.message, /This providerSpec is for AWS, but cluster "prod" runs on "Azure"/);
});

// ---- WIN095 ------------------------------------------------------------------------------------

test('WIN095: WMCO missing, cloud-private-key missing, no hybrid overlay', () => {
  const text = fixture('vsphere');
  const noWmco = one(text, 'WIN095', cluster({ ...HEALTHY, wmcoInstalled: false }));
  assert.equal(covered(text, noWmco), 'machine.openshift.io/os-id');
  assert.match(noWmco.message, /WMCO is not installed in cluster "prod"/);
  const noKey = one(text, 'WIN095', cluster({ ...HEALTHY, cloudPrivateKey: false }));
  assert.match(noKey.message, /the secret cloud-private-key is missing from openshift-windows-machine-config-operator/);
  const sdn = one(text, 'WIN095', cluster({ ...HEALTHY, networkType: 'OpenShiftSDN' }));
  assert.match(sdn.message, /uses "OpenShiftSDN", and WMCO requires OVN-Kubernetes with hybrid networking/);
  const noHybrid = one(text, 'WIN095', cluster({ ...HEALTHY, hybridOverlay: false }));
  assert.match(noHybrid.message, /cluster is not configured for OVN hybrid networking/);
  assert.deepEqual(only(text, 'WIN095', cluster({ version: '4.16.0' })), []);
});
