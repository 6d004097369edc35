import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hoverAt, type FieldHover } from '../../src/core/editor/hover';

const WIN_POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  os:
    name: windows
  nodeSelector:
    kubernetes.io/os: windows
    beta.kubernetes.io/os: windows
    node.kubernetes.io/windows-build: "10.0.20348"
  runtimeClassName: windows-2022
  hostNetwork: false
  securityContext:
    windowsOptions:
      runAsUserName: ContainerUser
      gmsaCredentialSpecName: webapp1
      gmsaCredentialSpec: "{}"
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: kubernetes.io/os
            operator: In
            values: [windows]
          - key: node.kubernetes.io/windows-build
            operator: In
            values:
            - 10.0.17763
  containers:
  - name: web
    image: mcr.microsoft.com/windows/servercore:ltsc2019
    securityContext:
      windowsOptions:
        hostProcess: false
        runAsUserName: 'NT AUTHORITY\\Local service'
  - name: nano
    image: mcr.microsoft.com/windows/nanoserver:1809
  - name: eol
    image: mcr.microsoft.com/windows/servercore:1909
  - name: plain
    image: registry.k8s.io/pause:3.9
`;

/** Hover on the `nth` occurrence of `needle` (its third character, or `shift`). */
function hoverOn(text: string, needle: string, nth = 0, shift = 2): FieldHover | undefined {
  let i = -1;
  for (let k = 0; k <= nth; k++) {
    i = text.indexOf(needle, i + 1);
    assert.ok(i !== -1, `${needle} #${nth} not in the text`);
  }
  return hoverAt(text, i + Math.min(shift, needle.length - 1));
}

function check(h: FieldHover | undefined, text: string, covers: string, ...phrases: (string | RegExp)[]): string {
  assert.ok(h, `a hover over ${covers}`);
  assert.equal(text.slice(h.range.start, h.range.end), covers, 'the range is the hovered key or value');
  assert.match(h.markdown, /\[Learn more\]\(https:\/\/kubernetes\.io\/docs\/[^)]+\/\)$/);
  const body = h.markdown.split('\n\n')[1];
  const sentences = body.split(/(?<=[.!?])\s+(?=[A-Z`'"])/).length;
  assert.ok(sentences >= 1 && sentences <= 5, `short: ${sentences} sentences in ${body}`);
  for (const p of phrases)
    assert.match(h.markdown, typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : p);
  return h.markdown;
}

test('os and os.name', () => {
  check(hoverOn(WIN_POD, '  os:', 0, 2), WIN_POD, 'os', 'scheduler does not read', 'user-guide');
  check(hoverOn(WIN_POD, 'name: windows'), WIN_POD, 'name', 'lowercase');
  check(hoverOn(WIN_POD, 'windows\n  nodeSelector', 0, 1), WIN_POD, 'windows', 'spec.os.name');
  const bad = WIN_POD.replace('name: windows', 'name: Windows');
  check(
    hoverOn(bad, 'Windows\n  nodeSelector', 0, 1),
    bad,
    'Windows',
    '`Windows` is not a valid value: write `windows`',
  );
});

test('windowsOptions at pod and container level, and each of its fields', () => {
  check(
    hoverOn(WIN_POD, 'windowsOptions', 0),
    WIN_POD,
    'windowsOptions',
    'every container of the pod',
    'windows/intro/',
  );
  check(hoverOn(WIN_POD, 'windowsOptions', 1), WIN_POD, 'windowsOptions', 'for this container');
  check(hoverOn(WIN_POD, 'hostProcess'), WIN_POD, 'hostProcess', 'hostNetwork: true', 'create-hostprocess-pod/');
  check(
    hoverOn(WIN_POD, 'runAsUserName', 0),
    WIN_POD,
    'runAsUserName',
    'exactly one backslash',
    'configure-runasusername/',
  );
  check(hoverOn(WIN_POD, 'ContainerUser\n'), WIN_POD, 'ContainerUser', 'unprivileged account');
  check(hoverOn(WIN_POD, "'NT AUTHORITY"), WIN_POD, "'NT AUTHORITY\\Local service'", 'least privileged');
  check(
    hoverOn(WIN_POD, 'gmsaCredentialSpecName'),
    WIN_POD,
    'gmsaCredentialSpecName',
    'GMSACredentialSpec',
    'lowercase',
    'configure-gmsa/',
  );
  check(hoverOn(WIN_POD, 'gmsaCredentialSpec:'), WIN_POD, 'gmsaCredentialSpec', '64 KiB', 'configure-gmsa/');

  const doubled = WIN_POD.replace("'NT AUTHORITY\\Local service'", "'NT AUTHORITY\\\\SYSTEM'");
  check(hoverOn(doubled, "'NT AUTHORITY"), doubled, "'NT AUTHORITY\\\\SYSTEM'", 'holds 2 backslashes');
});

test('OS labels: nodeSelector keys and match-expression keys', () => {
  check(
    hoverOn(WIN_POD, '    kubernetes.io/os', 0, 6),
    WIN_POD,
    'kubernetes.io/os',
    'case-sensitive',
    'does not read `spec.os.name`',
  );
  check(hoverOn(WIN_POD, 'beta.kubernetes.io/os'), WIN_POD, 'beta.kubernetes.io/os', 'Deprecated');
  check(hoverOn(WIN_POD, 'key: kubernetes.io/os', 0, 6), WIN_POD, 'kubernetes.io/os', 'Node label');
});

test('windows-build: the label, its values and the images that run there', () => {
  check(
    hoverOn(WIN_POD, 'node.kubernetes.io/windows-build:'),
    WIN_POD,
    'node.kubernetes.io/windows-build',
    '`10.0.20348` Windows Server 2022',
  );
  const v2022 = check(
    hoverOn(WIN_POD, '"10.0.20348"'),
    WIN_POD,
    '"10.0.20348"',
    'Nodes running Windows Server 2022 carry this value.',
    '`ltsc2022`',
  );
  assert.doesNotMatch(v2022, /ltsc2019/);
  check(hoverOn(WIN_POD, 'key: node.kubernetes.io', 0, 6), WIN_POD, 'node.kubernetes.io/windows-build', 'Node label');
  const v2019 = check(
    hoverOn(WIN_POD, '- 10.0.17763'),
    WIN_POD,
    '10.0.17763',
    'Windows Server 2019',
    'match the host exactly',
    '`ltsc2019`/`1809`',
  );
  assert.doesNotMatch(v2019, /ltsc2022/);

  const y2025 = WIN_POD.replace('"10.0.20348"', '"10.0.26100"');
  const v2025 = check(
    hoverOn(y2025, '"10.0.26100"'),
    y2025,
    '"10.0.26100"',
    'Windows Server 2025',
    '`ltsc2022`',
    '`ltsc2025`',
  );
  assert.doesNotMatch(v2025, /ltsc2019/);
  const y2016 = WIN_POD.replace('"10.0.20348"', '"10.0.14393"');
  check(hoverOn(y2016, '"10.0.14393"'), y2016, '"10.0.14393"', 'Windows Server 2016', 'out of support');
  const bad = WIN_POD.replace('"10.0.20348"', '2022');
  check(hoverOn(bad, '2022\n'), bad, '2022', 'Not a Windows build');
});

test('runtimeClassName', () => {
  check(hoverOn(WIN_POD, 'runtimeClassName'), WIN_POD, 'runtimeClassName', 'runhcs-wcow-process', 'runtime-class/');
});

test('container images whose tag names a Windows build', () => {
  check(
    hoverOn(WIN_POD, 'mcr.microsoft.com/windows/servercore:ltsc2019', 0, 10),
    WIN_POD,
    'mcr.microsoft.com/windows/servercore:ltsc2019',
    'Windows Server 2019',
    'exact build',
    'Server Core base',
  );
  check(
    hoverOn(WIN_POD, 'nanoserver:1809', 0, 3),
    WIN_POD,
    'mcr.microsoft.com/windows/nanoserver:1809',
    'Nano Server base',
    'no PowerShell',
  );
  check(
    hoverOn(WIN_POD, 'servercore:1909', 0, 3),
    WIN_POD,
    'mcr.microsoft.com/windows/servercore:1909',
    '1909',
    'out of support',
  );
  assert.equal(hoverOn(WIN_POD, 'pause:3.9'), undefined, 'a multi-arch tag names no build');

  const y2022 =
    'kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"\n';
  check(
    hoverOn(y2022, 'iis:'),
    y2022,
    '"mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"',
    'Windows Server 2025',
    'build 10.0.20348 or newer',
  );
});

test('hostNetwork: in a Windows pod only', () => {
  check(hoverOn(WIN_POD, 'hostNetwork'), WIN_POD, 'hostNetwork', 'HostProcess', 'windows-networking/');
  const hpc =
    'kind: DaemonSet\nspec:\n  template:\n    spec:\n      hostNetwork: true\n      securityContext:\n        windowsOptions: {hostProcess: true}\n      containers: [{name: a, image: x}]\n';
  check(hoverOn(hpc, 'true\n'), hpc, 'true', 'This pod has HostProcess containers');
  const linux =
    'kind: Pod\nspec:\n  hostNetwork: true\n  nodeSelector: {kubernetes.io/os: linux}\n  containers: [{name: a, image: nginx}]\n';
  assert.equal(hoverOn(linux, 'hostNetwork'), undefined);
});

test('nothing on fields that mean the same everywhere, in comments, or in broken documents', () => {
  assert.equal(hoverOn(WIN_POD, 'metadata'), undefined);
  assert.equal(hoverOn(WIN_POD, 'name: web'), undefined);
  assert.equal(hoverOn(WIN_POD, 'apiVersion'), undefined);
  const broken = 'kind: Pod\nspec:\n  os: {name: windows\n';
  assert.equal(hoverOn(broken, 'os:'), undefined);
  assert.equal(hoverAt('# kubernetes.io/os: windows\n', 5), undefined);
  assert.equal(hoverAt('', 0), undefined);
  assert.equal(hoverAt('a: b', 99), undefined);
});

test('multi-document files, CRLF and List items', () => {
  const text =
    'kind: Service\nspec: {}\n---\r\nkind: List\r\nitems:\r\n- kind: Pod\r\n  spec:\r\n    os:\r\n      name: windows\r\n';
  check(hoverOn(text, 'os:', 0, 0), text, 'os', 'spec.os');
  check(hoverOn(text, 'windows'), text, 'windows', 'spec.os.name');
});
