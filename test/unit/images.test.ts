import { test } from 'node:test';
import assert from 'node:assert/strict';
import { only, covered, fixAndRecheck, findings } from '../support/check';
import type { ClusterSnapshot } from '../../src/core/rules/facts';
import { deployment } from '../support/manifests';

const MINE = ['WIN080', 'WIN081', 'WIN082', 'WIN083', 'WIN084', 'WIN085'];
const mine = (text: string, options = {}) => findings(text, options).filter((f) => MINE.includes(f.ruleId));

const deploy = deployment;

const WIN = `os: {name: windows}
tolerations:
  - {key: os, operator: Exists, effect: NoSchedule}
`;
const pinned = (build: string) => `${WIN}nodeSelector:
  kubernetes.io/os: windows
  node.kubernetes.io/windows-build: ${build}
`;
const one = (image: string) => `containers:
  - name: app
    image: ${image}
`;

const cluster = (...builds: string[]): ClusterSnapshot => ({
  name: 'prod',
  windowsNodes: builds.map((build, i) => ({ name: `win-${i}`, build, taints: [] })),
  runtimeClasses: [],
});

test('a Linux pod gets nothing from the image rules', () => {
  const text = deploy(`nodeSelector: {kubernetes.io/os: linux}
containers:
  - {name: web, image: nginx:1.27}
  - {name: cache, image: redis}
  - {name: base, image: registry.access.redhat.com/ubi9/ubi-minimal}
`);
  assert.deepEqual(mine(text), []);
  assert.deepEqual(mine(text, { cluster: cluster('10.0.17763', '10.0.20348') }), []);
  // No OS signal at all: unknown, also nothing.
  assert.deepEqual(mine(deploy(one('busybox:1.36'))), []);
});

test('WIN080 image build against a nodeSelector pin: error on the image, related pin, retag fix', () => {
  const text = deploy(`${pinned('10.0.17763')}${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`);
  const f = only(text, 'WIN080');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'mcr.microsoft.com/windows/servercore:ltsc2022');
  assert.equal(f[0].related?.length, 1);
  assert.equal(covered(text, { ...f[0], range: f[0].related![0].range }), '10.0.17763');
  assert.match(f[0].message, /10\.0\.20348 \(ltsc2022\).*pinned to 10\.0\.17763/);
  const { fixed } = fixAndRecheck(text, 'WIN080');
  assert.match(fixed, /image: mcr\.microsoft\.com\/windows\/servercore:ltsc2019\n/);
});

test('WIN080 keeps the numeric 1809 tag for Nano Server (no ltsc2019 tag there)', () => {
  const text = deploy(`${pinned('10.0.17763')}${one('mcr.microsoft.com/windows/nanoserver:ltsc2022')}`);
  const { fixed } = fixAndRecheck(text, 'WIN080');
  assert.match(fixed, /nanoserver:1809\n/);
  const dotnet = deploy(`${pinned('10.0.20348')}${one('mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-1809')}`);
  assert.match(fixAndRecheck(dotnet, 'WIN080').fixed, /aspnet:8\.0-nanoserver-ltsc2022\n/);
});

test('WIN080 with a RuntimeClass defined in the same text', () => {
  const text = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: windows-2019
handler: runhcs-wcow-process
scheduling:
  nodeSelector:
    kubernetes.io/os: windows
    node.kubernetes.io/windows-build: 10.0.17763
---
${deploy(`${WIN}runtimeClassName: windows-2019
${one('mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022')}`)}`;
  const f = only(text, 'WIN080');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /RuntimeClass "windows-2019"/);
  assert.equal(covered(text, { ...f[0], range: f[0].related![0].range }), 'windows-2019');
  const { fixed } = fixAndRecheck(text, 'WIN080');
  assert.match(fixed, /4\.8-windowsservercore-ltsc2019\n/);
});

test('WIN080 stays quiet for compatible builds, HostProcess containers and unpinned pods', () => {
  assert.deepEqual(
    only(deploy(`${pinned('10.0.20348')}${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`), 'WIN080'),
    [],
  );
  // A 2025 host runs ltsc2022 images (containerd's rule from build 20348 on).
  assert.deepEqual(
    only(deploy(`${pinned('10.0.26100')}${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`), 'WIN080'),
    [],
  );
  const hostProcess = deploy(`${pinned('10.0.17763')}hostNetwork: true
securityContext:
  windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}
${one('mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0-ltsc2022')}`);
  assert.deepEqual(only(hostProcess, 'WIN080'), []);
  assert.deepEqual(only(deploy(`${WIN}${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`), 'WIN080'), []);
});

test('WIN080 a newer image never runs on an older pin, and a digest-pinned image gets no retag fix', () => {
  const text = deploy(
    `${pinned('10.0.20348')}${one('mcr.microsoft.com/windows/servercore:ltsc2025@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef')}`,
  );
  const f = only(text, 'WIN080');
  assert.equal(f.length, 1);
  assert.deepEqual(f[0].fixes, []);
});

test('WIN080 with a cluster snapshot and no pin: no node runs the image', () => {
  const text = deploy(
    `${WIN}nodeSelector: {kubernetes.io/os: windows}\n${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`,
  );
  const f = only(text, 'WIN080', { cluster: cluster('10.0.17763', '10.0.17763') });
  assert.equal(f.length, 1);
  assert.match(
    f[0].message,
    /No Windows node in cluster "prod" runs 10\.0\.20348 \(ltsc2022\) images; its nodes run 10\.0\.17763\./,
  );
  const { fixed } = fixAndRecheck(text, 'WIN080', { cluster: cluster('10.0.17763') });
  assert.match(fixed, /servercore:ltsc2019\n/);
  assert.deepEqual(only(text, 'WIN080', { cluster: cluster('10.0.17763', '10.0.20348') }), []);
  assert.deepEqual(only(text, 'WIN080', { cluster: cluster('10.0.26100') }), []);
});

test('WIN081 end-of-life semi-annual tags and Docker Hub microsoft/* images', () => {
  const eol = deploy(`${WIN}${one('mcr.microsoft.com/windows/servercore:1909')}`);
  const f = only(eol, 'WIN081');
  assert.equal(f.length, 1);
  // No supported node (2019 and later) runs a 1909 image: it can never start.
  assert.equal(f[0].severity, 'error');
  assert.match(f[0].message, /Windows Server 1909, build 10\.0\.18363, an end-of-life semi-annual release/);
  assert.match(f[0].message, /no supported Windows Server node \(2019 and later\) can run it/);
  assert.deepEqual(f[0].fixes, []);
  const hub = deploy(`${WIN}${one('microsoft/iis')}`);
  const h = only(hub, 'WIN081');
  assert.equal(h.length, 1);
  assert.equal(h[0].severity, 'warning', 'retired repository, but no build that cannot run');
  assert.match(h[0].message, /mcr\.microsoft\.com\/windows\/servercore\/iis/);
  assert.equal(only(deploy(`${WIN}${one('microsoft/windowsservercore:1709')}`), 'WIN081').length, 1);
  assert.deepEqual(only(deploy(`${WIN}${one('mcr.microsoft.com/windows/servercore:ltsc2019')}`), 'WIN081'), []);
});

test('WIN081 retags an end-of-life tag to the pinned build', () => {
  const text = deploy(`${pinned('10.0.17763')}${one('mcr.microsoft.com/windows/servercore:20H2')}`);
  const { fixed } = fixAndRecheck(text, 'WIN081');
  assert.match(fixed, /servercore:1809\n/);
});

// Two RuntimeClasses pinning different builds: the files themselves show a mixed cluster.
const MIXED_RUNTIME_CLASSES = ['10.0.17763', '10.0.20348']
  .map(
    (b) => `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: win-${b.slice(-5)}}
handler: runhcs-wcow-process
scheduling:
  nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: "${b}"}
  tolerations: [{key: os, operator: Exists, effect: NoSchedule}]
---
`,
  )
  .join('');

test('WIN082 stays quiet without evidence of several Windows builds', () => {
  const text = deploy(
    `${WIN}nodeSelector:\n  kubernetes.io/os: windows\n${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`,
  );
  assert.deepEqual(only(text, 'WIN082'), []);
});

test('WIN082 without a pin: info on the image, fix adds the windows-build nodeSelector', () => {
  const text =
    MIXED_RUNTIME_CLASSES +
    deploy(`${WIN}nodeSelector:\n  kubernetes.io/os: windows\n${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`);
  const f = only(text, 'WIN082');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'info');
  assert.equal(covered(text, f[0]), 'mcr.microsoft.com/windows/servercore:ltsc2022');
  const { fixed } = fixAndRecheck(text, 'WIN082');
  assert.match(
    fixed,
    /nodeSelector:\n\s+kubernetes\.io\/os: windows\n\s+node\.kubernetes\.io\/windows-build: 10\.0\.20348\n/,
  );
  assert.match(f[0].message, /RuntimeClasses here pin Windows 10\.0\.17763 and 10\.0\.20348/);
  assert.deepEqual(
    only(
      MIXED_RUNTIME_CLASSES + deploy(`${pinned('10.0.20348')}${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`),
      'WIN082',
    ),
    [],
  );
  // Multi-arch tags name no build: nothing to pin.
  assert.deepEqual(
    only(
      MIXED_RUNTIME_CLASSES +
        deploy(`${WIN}nodeSelector: {kubernetes.io/os: windows}\n${one('registry.k8s.io/pause:3.9')}`),
      'WIN082',
    ),
    [],
  );
});

test('WIN082 with a snapshot: only when the nodes run several builds and the choice matters', () => {
  const text = deploy(
    `${WIN}nodeSelector: {kubernetes.io/os: windows}\n${one('mcr.microsoft.com/windows/servercore:ltsc2019')}`,
  );
  assert.deepEqual(only(text, 'WIN082', { cluster: cluster('10.0.17763', '10.0.17763') }), []);
  const f = only(text, 'WIN082', { cluster: cluster('10.0.17763', '10.0.20348') });
  assert.equal(f.length, 1);
  assert.match(f[0].message, /cluster "prod" runs Windows 10\.0\.17763 and 10\.0\.20348/);
  fixAndRecheck(text, 'WIN082', { cluster: cluster('10.0.17763', '10.0.20348') });
  // Both a 2022 and a 2025 node run ltsc2022 images.
  const ltsc2022 = deploy(
    `${WIN}nodeSelector: {kubernetes.io/os: windows}\n${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`,
  );
  assert.deepEqual(only(ltsc2022, 'WIN082', { cluster: cluster('10.0.20348', '10.0.26100') }), []);
});

test('WIN083 Hyper-V annotation (flow-style website example) is removed', () => {
  const text = `{
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {name: "iis"},
  spec: {
    selector: {matchLabels: {app: "iis"}},
    template: {
      metadata: {
        labels: {app: "iis"},
        annotations: {
          experimental.windows.kubernetes.io/isolation-type: "hyperv",
        },
      },
      spec: {
        nodeSelector: {kubernetes.io/os: windows},
        containers: [{name: "iis", image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}],
      },
    },
  },
}
`;
  const f = only(text, 'WIN083');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'experimental.windows.kubernetes.io/isolation-type');
  const { fixed } = fixAndRecheck(text, 'WIN083');
  assert.ok(!fixed.includes('isolation-type'), fixed);
  assert.ok(!fixed.includes('annotations'), fixed);
});

test('WIN083 RuntimeClass with the runhcs-wcow-hypervisor handler', () => {
  const text = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: hyperv}
handler: runhcs-wcow-hypervisor
scheduling:
  nodeSelector: {kubernetes.io/os: windows}
---
${deploy(`${WIN}runtimeClassName: hyperv\n${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`)}`;
  const f = only(text, 'WIN083');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'hyperv');
  assert.deepEqual(only(deploy(`${WIN}${one('mcr.microsoft.com/windows/servercore:ltsc2022')}`), 'WIN083'), []);
});

test('WIN084 Windows and Linux-only images in one pod', () => {
  const text = deploy(`containers:
  - name: web
    image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
  - name: proxy
    image: docker.io/library/nginx:1.27
`);
  const f = only(text, 'WIN084');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'docker.io/library/nginx:1.27');
  assert.equal(f[0].related?.length, 1);
  assert.deepEqual(only(text, 'WIN085'), [], 'WIN084 speaks alone');
  // e2eteam/busybox is a Windows build of busybox: never Linux-only.
  assert.deepEqual(
    only(
      deploy(`containers:
  - {name: a, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}
  - {name: b, image: e2eteam/busybox:1.29}
`),
      'WIN084',
    ),
    [],
  );
});

test('WIN085 Windows-targeted pod pulling a Linux-only image', () => {
  for (const image of [
    'busybox:1.36',
    'alpine',
    'registry.access.redhat.com/ubi8/ubi-minimal:8.9',
    'gcr.io/distroless/static:nonroot',
    'postgres:16',
  ]) {
    const text = deploy(`${WIN}nodeSelector: {kubernetes.io/os: windows}\n${one(image)}`);
    const f = only(text, 'WIN085');
    assert.equal(f.length, 1, image);
    assert.equal(f[0].severity, 'warning');
    assert.match(f[0].message, /ImagePullBackOff/);
    assert.equal(f[0].related, undefined, 'declared Windows: nothing inferred');
  }
  const inferred = only(deploy(`nodeSelector: {kubernetes.io/os: windows}\n${one('nginx')}`), 'WIN085');
  assert.equal(inferred.length, 1);
  assert.match(inferred[0].related![0].message, /^Windows inferred from nodeSelector kubernetes\.io\/os: windows/);
  for (const image of [
    'e2eteam/busybox:1.29',
    'registry.k8s.io/e2e-test-images/busybox:1.29-4',
    'sigwindowstools/kube-proxy:v1.29.0-calico-hostprocess',
    'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022',
    'golang:1.22',
  ]) {
    assert.deepEqual(
      only(deploy(`${WIN}nodeSelector: {kubernetes.io/os: windows}\n${one(image)}`), 'WIN085'),
      [],
      image,
    );
  }
});
