// Rules whose premise was once wrong or too narrow (WIN030, WIN053, RuntimeClass handler families,
// unrunnable builds, WIN086, template text, projects), each on a real manifest from a public
// repository (test/fixtures/rule-sources/SOURCES.tsv says where each comes from and what, if
// anything, the test changes in it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkText, gatherFacts } from '../../src/core/rules/checker';
import { handlerFamily, runtimeClassIsWindows } from '../../src/core/rules/facts';
import { isWindowsMachineSet } from '../../src/core/openshift/machines';
import { load } from 'js-yaml';

const FIXTURES = resolve(__dirname, '..', '..', '..', 'test', 'fixtures');
const read = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');
const source = (path: string) => read(join('rule-sources', path));

function replaced(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `fixture lacks ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

test('WIN030 (kubernetes/kubernetes#112469): runAsNonRoot on a Server Core image is not enforced, a warning that says so', () => {
  const text = source('kubernetes+kubernetes/issue-112469-run-as-nonroot-demo.yaml');
  const f = checkText(text).findings.filter((x) => x.ruleId === 'WIN030');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.match(f[0].message, /runAsNonRoot: true is not enforced for container "run-as-nonroot-demo"/);
  assert.match(f[0].message, /runs as ContainerAdministrator/);
  assert.doesNotMatch(f[0].message, /refuses|CreateContainerConfigError/, 'the kubelet does not refuse this pod');
  assert.deepEqual(
    f[0].fixes.map((x) => x.title),
    ['Set windowsOptions.runAsUserName: ContainerUser'],
  );

  // What the kubelet does refuse (the e2e test "should not be able to create pods with containers running
  // as ContainerAdministrator when runAsNonRoot is true"): the same pod naming the account: an error.
  const named = replaced(
    text,
    '      runAsNonRoot: true\n',
    '      runAsNonRoot: true\n      windowsOptions:\n        runAsUserName: ContainerAdministrator\n',
  );
  const declared = replaced(named, 'spec:\n', 'spec:\n  os:\n    name: windows\n');
  const g = checkText(declared).findings.filter((x) => x.ruleId === 'WIN030');
  assert.equal(g.length, 1);
  assert.equal(g[0].severity, 'error');
  assert.match(g[0].message, /the kubelet refuses to start it \(CreateContainerConfigError\)/);
});

test('WIN053: Bidirectional mount propagation on a declared Windows pod (WMCO azure-file node DaemonSet) is the API rejection', () => {
  const path =
    'precision-corpus/openshift+windows-machine-config-operator/hack/manifests/csi/azure/01-example-driver-daemonset.yaml';
  const original = read(path);
  assert.deepEqual(
    checkText(original).findings.filter((x) => x.ruleId === 'WIN053'),
    [],
  );
  // The driver's Linux node DaemonSet mounts the kubelet directory with Bidirectional propagation; ported as is:
  const text = replaced(
    original,
    '            - name: kubelet-dir\n              mountPath: /var/lib/kubelet\n            - name: plugin-dir\n              mountPath: /csi\n            - name: azure-config',
    '            - name: kubelet-dir\n              mountPath: /var/lib/kubelet\n              mountPropagation: Bidirectional\n            - name: plugin-dir\n              mountPath: /csi\n            - name: azure-config',
  );
  const f = checkText(text).findings.filter((x) => x.ruleId === 'WIN053');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  // The API server's own words, with its field path (no index on volumeMounts, as it prints it).
  assert.match(
    f[0].message,
    /spec\.template\.spec\.containers\[1\]\.volumeMounts\.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers/,
  );
  assert.deepEqual(
    f[0].fixes.map((x) => [x.title, x.kind]),
    [['Remove mountPropagation', 'safe']],
  );
  // HostToContainer is accepted and does nothing: still the warning it was.
  const soft = text.replace('mountPropagation: Bidirectional', 'mountPropagation: HostToContainer');
  assert.deepEqual(
    checkText(soft)
      .findings.filter((x) => x.ruleId === 'WIN053')
      .map((x) => x.severity),
    ['warning'],
  );
});

test('Hyper-V handlers with a build suffix (KEP-1001) are recognised as Windows and as Hyper-V', () => {
  const text = source('kubernetes+enhancements/kep-1001-option-b-hyperv.yaml');
  const facts = gatherFacts([text]);
  assert.equal(facts.runtimeClasses.get('windows-1809-hyperv')?.windows, true);
  assert.equal(facts.runtimeClasses.get('windows-1903-hyperv')?.windows, true);
  const f = checkText(text).findings.filter((x) => x.ruleId === 'WIN083');
  assert.equal(f.length, 1, 'the pod runs under Hyper-V isolation');
  assert.match(
    f[0].message,
    /handler "runhcs-wcow-hypervisor-1809" \(Hyper-V isolation, a utility VM for build 1809\)/,
  );

  assert.deepEqual(handlerFamily('runhcs-wcow-hypervisor-17763'), { family: 'hypervisor', suffix: '17763' });
  assert.deepEqual(handlerFamily('runhcs-wcow-process'), { family: 'process' });
  assert.deepEqual(handlerFamily('runhcs-privileged'), { family: 'privileged' });
  assert.deepEqual(handlerFamily('runhcs-wcow-privileged'), { family: 'privileged' });
  assert.equal(handlerFamily('runhcs-lcow'), undefined, 'Linux containers on Windows are not Windows containers');
  assert.equal(handlerFamily('runc'), undefined);
  assert.equal(runtimeClassIsWindows('runhcs-wcow-hypervisor-19041', {}), true);
});

test('RTC005: a prototype privileged handler (runhcs-privileged) is one no containerd configures', () => {
  const text = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: windows-privileged}
handler: runhcs-privileged
`;
  const f = checkText(text).findings.filter((x) => x.ruleId === 'RTC005');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /prototype of privileged Windows containers/);
  assert.match(f[0].message, /hostProcess: true/);
  assert.deepEqual(
    checkText(text.replace('runhcs-privileged', 'runhcs-wcow-process')).findings.filter((x) => x.ruleId === 'RTC005'),
    [],
  );
});

test('WIN081: images no supported Windows Server node can run are named so, in any repository', () => {
  // The Kubernetes docs' own DaemonSet example (test/fixtures/corpus) pins microsoft/windowsservercore:1709.
  const daemonset = read('corpus/kubernetes+website/content/en/examples/windows/daemonset.yaml');
  const d = checkText(daemonset).findings.filter((x) => x.ruleId === 'WIN081');
  assert.equal(d.length, 1);
  assert.equal(d[0].severity, 'error');
  assert.match(d[0].message, /no supported Windows Server node \(2019 and later\) can run it/);
  // The same pod on today's MCR repositories: ltsc2016 and 1803 are no more runnable there.
  for (const [image, release] of [
    [
      'mcr.microsoft.com/windows/servercore:ltsc2016',
      /Windows Server 2016 \(1607\), build 10\.0\.14393, an end-of-life release/,
    ],
    ['mcr.microsoft.com/windows/servercore:1803', /Windows Server 1803, build 10\.0\.17134/],
    ['mcr.microsoft.com/windows/nanoserver:sac2016', /build 10\.0\.14393/],
    ['mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2016', /build 10\.0\.14393/],
  ] as const) {
    const text = replaced(daemonset, '"microsoft/windowsservercore:1709"', JSON.stringify(image));
    const f = checkText(text).findings.filter((x) => x.ruleId === 'WIN081');
    assert.equal(f.length, 1, image);
    assert.equal(f[0].severity, 'error', image);
    assert.match(f[0].message, release);
  }
  // A HostProcess container runs on the host: its image's build does not have to match.
  const hostProcess = `apiVersion: v1
kind: Pod
metadata: {name: hpc}
spec:
  os: {name: windows}
  hostNetwork: true
  securityContext: {windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\Local service"}}
  containers: [{name: hpc, image: mcr.microsoft.com/windows/nanoserver:sac2016}]
`;
  assert.deepEqual(
    checkText(hostProcess).findings.filter((x) => x.ruleId === 'WIN081'),
    [],
  );
  const supported = replaced(
    daemonset,
    '"microsoft/windowsservercore:1709"',
    '"mcr.microsoft.com/windows/servercore:ltsc2019"',
  );
  assert.deepEqual(
    checkText(supported).findings.filter((x) => x.ruleId === 'WIN081'),
    [],
  );
});

test('WIN086: a MachineSet without the os-id label is recognised as Windows by its other signals, each alone', () => {
  const base = replaced(read('machinesets/aws.yaml'), '        machine.openshift.io/os-id: Windows\n', '');
  // The AMI id says nothing about the OS; the name and the windows-user-data secret do.
  const named = checkText(base).findings.filter((x) => x.ruleId === 'WIN086');
  assert.equal(named.length, 1);
  assert.match(named[0].message, /is meant to be Windows \(its userDataSecret is windows-user-data/);
  assert.match(named[0].message, /lacks machine\.openshift\.io\/os-id: Windows/);

  const renamed = base.replaceAll('windows-worker', 'worker');
  const bySecret = checkText(renamed).findings.filter((x) => x.ruleId === 'WIN086');
  assert.equal(bySecret.length, 1, 'the secret WMCO creates for Windows machines alone');

  const linuxSecret = renamed.replace('name: windows-user-data', 'name: worker-user-data');
  assert.deepEqual(
    checkText(linuxSecret).findings.filter((x) => x.ruleId === 'WIN086'),
    [],
    'a Linux worker: no signal left',
  );
  const nodeLabel = replaced(
    linuxSecret,
    'node-role.kubernetes.io/worker: ""',
    'node-role.kubernetes.io/worker: ""\n          kubernetes.io/os: windows',
  );
  const byLabel = checkText(nodeLabel).findings.filter((x) => x.ruleId === 'WIN086');
  assert.equal(byLabel.length, 1);
  assert.match(byLabel[0].message, /nodes are labelled kubernetes\.io\/os=windows/);

  const byName = base.replace('name: windows-user-data', 'name: worker-user-data');
  const n = checkText(byName).findings.filter((x) => x.ruleId === 'WIN086');
  assert.equal(n.length, 1);
  assert.match(n[0].message, /name "prod-7xk2p-windows-worker-us-east-1a" says Windows/);
  // The same decision where the API serves the object (the tree, the CLI's machineset commands).
  assert.equal(isWindowsMachineSet(load(byName) as { spec?: Record<string, unknown> }), true);
  assert.equal(isWindowsMachineSet(load(linuxSecret) as { spec?: Record<string, unknown> }), false);
});

test('YAML002: ${VAR} in a ConfigMap of fluent-bit is data, not a template; a templated structure still is', () => {
  const text = source('fluent+fluent-bit-kubernetes-logging/fluent-bit-configmap.yaml');
  const r = checkText(text);
  assert.deepEqual(r.findings, []);
  assert.equal(r.documents, 1, 'analysed as the ConfigMap it is');
  // A value the program reads at run time, single-line: Prometheus' and Alertmanager's Go templates.
  const rule = `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: windows}
spec:
  groups:
  - name: windows
    rules:
    - alert: WindowsServerDown
      expr: up{job="windows"} == 0
      annotations:
        summary: "Windows Server {{ $labels.instance }} is down"
`;
  assert.deepEqual(checkText(rule).findings, []);
  // Helm's actions in a value, and a templated structure, are templates still.
  const helm = text.replace('namespace: logging', 'namespace: "{{ .Release.Namespace }}"');
  assert.deepEqual(
    checkText(helm).findings.map((f) => f.ruleId),
    ['YAML002'],
  );
  const structure = text.replace('data:\n', 'data:\n{{- if .Values.es }}\n');
  assert.deepEqual(
    checkText(structure).findings.map((f) => f.ruleId),
    ['YAML002'],
  );
  // A generator's placeholder in a one-line value (Jinja, gomplate …) is rendered before the object is applied.
  const jinja = text.replace('namespace: logging', 'namespace: "{{ log_namespace }}"');
  assert.deepEqual(
    checkText(jinja).findings.map((f) => f.ruleId),
    ['YAML002'],
  );
  const envsubst = text.replace('namespace: logging', 'namespace: ${NAMESPACE}');
  const e = checkText(envsubst).findings;
  assert.deepEqual(
    e.map((f) => f.ruleId),
    ['YAML002'],
  );
  assert.match(e[0].message, /\$\{NAMESPACE\}/, 'points at the structural variable, not the data ones');
});

test('a finding built on a RuntimeClass read from a file names the file and line (WIN072, WIN082, WIN083)', () => {
  const kep = source('kubernetes+enhancements/kep-1001-option-b-hyperv.yaml');
  const facts = gatherFacts([{ text: kep, path: 'hyperv/runtimeclasses.yaml' }]);
  assert.deepEqual(facts.runtimeClasses.get('windows-1903-hyperv')?.origin, {
    file: 'hyperv/runtimeclasses.yaml',
    line: 12,
  });
  const hyperv = checkText(kep, { facts }).findings.find((f) => f.ruleId === 'WIN083');
  assert.match(
    hyperv?.message ?? '',
    /\(RuntimeClass windows-1809-hyperv is defined in hyperv\/runtimeclasses\.yaml:2\)/,
  );

  const website = source('facts-projects/cluster-a/runtimeClasses.yml');
  const linux = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: linux}
handler: runc
scheduling:
  nodeSelector: {kubernetes.io/os: linux}
`;
  const pod = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  os: {name: windows}
  runtimeClassName: linux
  containers: [{name: web, image: mcr.microsoft.com/windows/servercore:ltsc2022}]
`;
  const withLinux = gatherFacts([
    { text: website, path: 'cluster/windows.yml' },
    { text: linux, path: 'cluster/linux.yaml' },
  ]);
  const w72 = checkText(pod, { facts: withLinux }).findings.find((f) => f.ruleId === 'WIN072');
  assert.match(w72?.message ?? '', /\(RuntimeClass linux is defined in cluster\/linux\.yaml:2\)/);

  // Two files pinning different builds: the notice names where each pin comes from.
  const second = website.replaceAll('windows-2019', 'windows-2022').replace('10.0.17763', '10.0.20348');
  const mixed = gatherFacts([
    { text: website, path: 'cluster/2019.yml' },
    { text: second, path: 'cluster/2022.yml' },
  ]);
  const unpinned = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  os: {name: windows}
  nodeSelector: {kubernetes.io/os: windows}
  containers: [{name: web, image: mcr.microsoft.com/windows/servercore:ltsc2022}]
`;
  const w82 = checkText(unpinned, { facts: mixed }).findings.find((f) => f.ruleId === 'WIN082');
  assert.match(w82?.message ?? '', /windows-2019 in cluster\/2019\.yml:3, windows-2022 in cluster\/2022\.yml:3/);
  // Without paths (the editor, a single text): the same findings, no origin.
  assert.doesNotMatch(
    checkText(unpinned, { facts: gatherFacts([website, second]) }).findings.find((f) => f.ruleId === 'WIN082')
      ?.message ?? '',
    /defined in|\.yml:/,
  );
});
