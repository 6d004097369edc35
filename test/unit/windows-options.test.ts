import { test } from 'node:test';
import assert from 'node:assert/strict';
import { only, covered, fixAndRecheck, ids, findings } from '../support/check';
import { runAsUserNameProblems, dns1123SubdomainProblems } from '../../src/core/rules/families/windows-options';
import { deployment } from '../support/manifests';

const WO_IDS = [
  'WIN020',
  'WIN021',
  'WIN022',
  'WIN023',
  'WIN024',
  'WIN025',
  'WIN026',
  'WIN027',
  'WIN028',
  'WIN029',
  'WIN030',
];
const woIds = (text: string) => ids(text).filter((id) => WO_IDS.includes(id));

const deploy = deployment;

const winBase = `os:
  name: windows
nodeSelector:
  kubernetes.io/os: windows
`;

/** A Windows Deployment whose container has `windowsOptions:` followed by `opts` (block, indented under it). */
const withUser = (line: string) =>
  deploy(`${winBase}containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    securityContext:
      windowsOptions:
        ${line}
`);

test('runAsUserNameProblems follows the API server order and messages', () => {
  assert.deepEqual(runAsUserNameProblems('ContainerUser'), []);
  assert.deepEqual(runAsUserNameProblems('NT AUTHORITY\\SYSTEM'), []);
  assert.deepEqual(runAsUserNameProblems('NT AUTHORITY\\Local service'), []);
  assert.deepEqual(runAsUserNameProblems('corp.example.com\\svc-web'), []);
  assert.deepEqual(
    runAsUserNameProblems('').map((p) => p.id),
    ['WIN020'],
  );
  assert.deepEqual(
    runAsUserNameProblems('a\\\\b\n').map((p) => p.id),
    ['WIN021'],
    'control characters win over backslashes',
  );
  assert.deepEqual(
    runAsUserNameProblems('a\\\\b').map((p) => p.id),
    ['WIN022'],
  );
  assert.deepEqual(
    runAsUserNameProblems(`${'d'.repeat(256)}\\u`).map((p) => p.id),
    ['WIN023', 'WIN024'],
  );
  assert.deepEqual(
    runAsUserNameProblems('.corp\\u').map((p) => p.id),
    ['WIN024'],
  );
  assert.deepEqual(
    runAsUserNameProblems('CORP\\').map((p) => p.id),
    ['WIN025'],
  );
  assert.deepEqual(runAsUserNameProblems('u'.repeat(104)), []);
  assert.deepEqual(
    runAsUserNameProblems('u'.repeat(105)).map((p) => p.message),
    ["runAsUserName's User length must not be longer than 104 characters"],
  );
  assert.deepEqual(
    runAsUserNameProblems('. .').map((p) => p.id),
    ['WIN026'],
  );
  assert.deepEqual(
    runAsUserNameProblems('svc@corp.com').map((p) => p.message),
    ['runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]'],
  );
  assert.deepEqual(dns1123SubdomainProblems('gmsa-webapp1'), []);
  assert.equal(dns1123SubdomainProblems('gmsa-Webapp1').length, 1);
  assert.equal(dns1123SubdomainProblems('a'.repeat(254)).length, 1);
});

test('WIN020 empty runAsUserName: API message, value range, delete fix', () => {
  const text = withUser('runAsUserName: ""');
  const f = only(text, 'WIN020');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.containers\[0\]\.securityContext\.windowsOptions\.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string\./,
  );
  assert.equal(covered(text, f[0]), '""');
  const { fixed } = fixAndRecheck(text, 'WIN020');
  assert.ok(!fixed.includes('securityContext'), fixed);
});

test('WIN021 control characters: a literal block scalar keeps its newline', () => {
  const text = deploy(`${winBase}securityContext:
  windowsOptions:
    runAsUserName: |
      ContainerUser
containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
`);
  const f = only(text, 'WIN021');
  assert.equal(f.length, 1);
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.securityContext\.windowsOptions\.runAsUserName: Invalid value: "ContainerUser\\n": runAsUserName cannot contain control characters\./,
  );
  const { fixed } = fixAndRecheck(text, 'WIN021');
  assert.match(fixed, /runAsUserName: ContainerUser\ncontainers:|runAsUserName: ContainerUser\n\s+containers:/);
});

test('WIN022 the YAML quoting pitfall: two backslashes in single quotes or plain, fixed to one', () => {
  for (const line of [
    `runAsUserName: 'NT AUTHORITY\\\\SYSTEM'`,
    'runAsUserName: NT AUTHORITY\\\\SYSTEM',
    'runAsUserName: "NT AUTHORITY\\\\\\\\SYSTEM"',
  ]) {
    const text = withUser(line);
    const f = only(text, 'WIN022');
    assert.equal(f.length, 1, line);
    assert.match(
      f[0].message,
      /runAsUserName: Invalid value: "NT AUTHORITY\\\\\\\\SYSTEM": runAsUserName cannot contain more than one backslash\./,
    );
    assert.match(f[0].message, /only inside double quotes/);
    assert.equal(covered(text, f[0]), line.slice('runAsUserName: '.length));
    assert.equal(f[0].fixes[0].title, 'Use one backslash: NT AUTHORITY\\SYSTEM');
    const { fixed } = fixAndRecheck(text, 'WIN022');
    assert.ok(fixed.includes('runAsUserName: NT AUTHORITY\\SYSTEM\n'), fixed);
  }
  // Double quotes with an escaped backslash are one backslash: fine.
  assert.deepEqual(woIds(withUser('runAsUserName: "NT AUTHORITY\\\\SYSTEM"')), []);
  assert.deepEqual(woIds(withUser(`runAsUserName: 'NT AUTHORITY\\SYSTEM'`)), []);
});

test('WIN022 in flow style, and no fix when collapsing backslashes does not give one', () => {
  const text = deploy(`${winBase}containers:
  - {name: app, image: mcr.microsoft.com/windows/nanoserver:ltsc2022, securityContext: {windowsOptions: {runAsUserName: 'NT AUTHORITY\\\\Local service'}}}
`);
  assert.equal(only(text, 'WIN022').length, 1);
  const { fixed } = fixAndRecheck(text, 'WIN022');
  assert.ok(fixed.includes('{runAsUserName: NT AUTHORITY\\Local service}'), fixed);
  const three = withUser('runAsUserName: a\\b\\c');
  const f = only(three, 'WIN022');
  assert.equal(f.length, 1);
  assert.equal(f[0].fixes.length, 0);
});

test('WIN023 domain of 256 characters or more', () => {
  const text = withUser(`runAsUserName: ${'d'.repeat(300)}\\user`);
  const f = only(text, 'WIN023');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /runAsUserName's Domain length must be under 256 characters/);
  assert.ok(f[0].message.length < 400, 'the long value is shortened');
  assert.deepEqual(only(withUser(`runAsUserName: ${'d'.repeat(255)}\\user`), 'WIN023'), []);
});

test('WIN024 domain neither NetBIOS nor DNS', () => {
  const text = withUser(`runAsUserName: 'a-very-long-domain_name\\user'`);
  const f = only(text, 'WIN024');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /runAsUserName's Domain doesn't match the NetBios nor the DNS format/);
  assert.equal(f[0].fixes.length, 0);
  assert.deepEqual(only(withUser(`runAsUserName: 'NT AUTHORITY\\NetworkService'`), 'WIN024'), []);
  assert.deepEqual(only(withUser(`runAsUserName: 'corp.example.com\\svc'`), 'WIN024'), []);
});

test('WIN025 user empty or longer than 104', () => {
  const empty = withUser(`runAsUserName: 'CORP\\'`);
  assert.match(only(empty, 'WIN025')[0].message, /runAsUserName's User cannot be empty/);
  const long = withUser(`runAsUserName: CORP\\${'u'.repeat(105)}`);
  assert.match(only(long, 'WIN025')[0].message, /runAsUserName's User length must not be longer than 104 characters/);
  assert.deepEqual(only(withUser(`runAsUserName: CORP\\${'u'.repeat(104)}`), 'WIN025'), []);
});

test('WIN026 user only periods/spaces or with forbidden characters; slash fixed to backslash', () => {
  const upn = withUser('runAsUserName: svc-web@corp.example.com');
  const f = only(upn, 'WIN026');
  assert.equal(f.length, 1);
  assert.match(
    f[0].message,
    /cannot contain the following characters: "\/\\:;\|=,\+\*\?<>@\[\]\. The user@domain \(UPN\) form is not accepted/,
  );
  assert.equal(f[0].fixes.length, 0);
  assert.match(
    only(withUser(`runAsUserName: 'CORP\\. .'`), 'WIN026')[0].message,
    /cannot contain only periods or spaces/,
  );
  const slash = withUser('runAsUserName: NT AUTHORITY/SYSTEM');
  const { fixed } = fixAndRecheck(slash, 'WIN026');
  assert.ok(fixed.includes('runAsUserName: NT AUTHORITY\\SYSTEM\n'));
});

test('WIN027 gmsaCredentialSpecName must be a lowercase DNS-1123 subdomain; lowercase fix', () => {
  const text = withUser('gmsaCredentialSpecName: gmsa-Webapp1');
  const f = only(text, 'WIN027');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.match(
    f[0].message,
    /^spec\.template\.spec\.containers\[0\]\.securityContext\.windowsOptions\.gmsaCredentialSpecName: Invalid value: "gmsa-Webapp1": a lowercase RFC 1123 subdomain must consist of/,
  );
  assert.equal(covered(text, f[0]), 'gmsa-Webapp1');
  const { fixed } = fixAndRecheck(text, 'WIN027');
  assert.ok(fixed.includes('gmsaCredentialSpecName: gmsa-webapp1\n'));
  // Lowercasing does not help an underscore: no fix.
  assert.equal(only(withUser('gmsaCredentialSpecName: gmsa_Webapp1'), 'WIN027')[0].fixes.length, 0);
  assert.deepEqual(only(withUser('gmsaCredentialSpecName: gmsa-webapp1'), 'WIN027'), []);
});

test('WIN027 flow style', () => {
  const text = deploy(`${winBase}securityContext: {windowsOptions: {gmsaCredentialSpecName: WebApp1}}
containers:
  - {name: app, image: mcr.microsoft.com/windows/servercore:ltsc2022}
`);
  const f = only(text, 'WIN027');
  assert.match(f[0].message, /^spec\.template\.spec\.securityContext\.windowsOptions\.gmsaCredentialSpecName:/);
  const { fixed } = fixAndRecheck(text, 'WIN027');
  assert.ok(fixed.includes('{windowsOptions: {gmsaCredentialSpecName: webapp1}}'));
});

test('WIN028 empty or oversized gmsaCredentialSpec; delete fix', () => {
  const text = withUser('gmsaCredentialSpec: ""\n        gmsaCredentialSpecName: webapp1');
  const f = only(text, 'WIN028');
  assert.equal(f.length, 1);
  assert.match(
    f[0].message,
    /gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string\. Remove it: the gMSA webhook fills it in/,
  );
  assert.equal(covered(text, f[0]), 'gmsaCredentialSpec');
  const { fixed } = fixAndRecheck(text, 'WIN028');
  assert.ok(!fixed.includes('gmsaCredentialSpec:') && fixed.includes('gmsaCredentialSpecName: webapp1'));

  const big = withUser(`gmsaCredentialSpecName: webapp1\n        gmsaCredentialSpec: '{"x": "${'a'.repeat(65600)}"}'`);
  const g = only(big, 'WIN028');
  assert.equal(g.length, 1);
  assert.match(g[0].message, /gmsaCredentialSpec size must be under 64 KiB/);
  assert.ok(g[0].message.length < 400);
  fixAndRecheck(big, 'WIN028');
  // Without a name, dropping the only copy of the identity is not offered.
  const unnamed = withUser(`gmsaCredentialSpec: '{"x": "${'a'.repeat(65600)}"}'`);
  assert.equal(only(unnamed, 'WIN028')[0].fixes.length, 0);
  assert.deepEqual(
    only(withUser(`gmsaCredentialSpecName: webapp1\n        gmsaCredentialSpec: '{"a": 1}'`), 'WIN028'),
    [],
  );
});

test('WIN029 inline gmsaCredentialSpec without a name, in the webhook words', () => {
  const text = withUser(`gmsaCredentialSpec: '{"CmsPlugins": ["ActiveDirectory"]}'`);
  const f = only(text, 'WIN029');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.match(
    f[0].message,
    /container "app" has a GMSA cred spec set, but does not define the name of the corresponding resource/,
  );
  assert.equal(covered(text, f[0]), 'gmsaCredentialSpec');
  const pod = `apiVersion: v1
kind: Pod
metadata: {name: iis}
spec:
  os: {name: windows}
  securityContext: {windowsOptions: {gmsaCredentialSpec: '{}'}}
  containers: [{name: iis, image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022}]
`;
  assert.match(only(pod, 'WIN029')[0].message, /pod "iis" has a GMSA cred spec set/);
  assert.deepEqual(only(withUser(`gmsaCredentialSpecName: webapp1\n        gmsaCredentialSpec: '{}'`), 'WIN029'), []);
  assert.deepEqual(only(withUser('gmsaCredentialSpec: null'), 'WIN029'), []);
});

test('WIN030 runAsNonRoot with ContainerAdministrator: refused when named, not enforced on the Server Core default; fix sets ContainerUser', () => {
  const set = deploy(`${winBase}securityContext:
  runAsNonRoot: true
containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    securityContext:
      windowsOptions:
        runAsUserName: ContainerAdministrator
`);
  const f = only(set, 'WIN030');
  assert.equal(f.length, 1);
  // The kubelet refuses it on every Windows node: a declared Windows pod can never start.
  assert.equal(f[0].severity, 'error');
  assert.match(
    f[0].message,
    /container's runAsUserName \(ContainerAdministrator\) which will be regarded as root identity and will break non-root policy/,
  );
  assert.equal(covered(set, f[0]), 'ContainerAdministrator');
  const { fixed } = fixAndRecheck(set, 'WIN030');
  assert.ok(fixed.includes('runAsUserName: ContainerUser\n') && !fixed.includes('ContainerAdministrator'));

  const image = deploy(`${winBase}securityContext: {runAsNonRoot: true}
containers:
  - {name: app, image: mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022}
`);
  const g = only(image, 'WIN030');
  assert.equal(g.length, 1);
  // Server Core declares no user: the kubelet has nothing to refuse, the container runs as administrator.
  assert.equal(g[0].severity, 'warning');
  assert.match(g[0].message, /runAsNonRoot: true is not enforced for container "app"/);
  assert.match(g[0].message, /declares no user, so the kubelet has nothing to check/);
  assert.doesNotMatch(g[0].message, /refuses/);
  assert.equal(covered(image, g[0]), 'mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2022');
  const { fixed: fixed2 } = fixAndRecheck(image, 'WIN030');
  assert.ok(fixed2.includes('securityContext: {windowsOptions: {runAsUserName: ContainerUser}}'), fixed2);
});

test('WIN030 pod-level ContainerAdministrator is reported per container, fixed per container', () => {
  const text = deploy(`${winBase}securityContext:
  runAsNonRoot: true
  windowsOptions:
    runAsUserName: ContainerAdministrator
containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
`);
  const f = only(text, 'WIN030');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'app');
  assert.equal(f[0].related?.length, 2);
  const { fixed } = fixAndRecheck(text, 'WIN030');
  assert.match(
    fixed,
    /- name: app\n\s+image: .*\n\s+securityContext:\n\s+windowsOptions:\n\s+runAsUserName: ContainerUser\n/,
  );
});

test('WIN030 stays quiet without runAsNonRoot, with ContainerUser, on Nano Server, on HostProcess and on non-Windows pods', () => {
  const win = (sc: string, image = 'mcr.microsoft.com/windows/servercore:ltsc2022') =>
    deploy(`${winBase}${sc}containers:
  - name: app
    image: ${image}
`);
  assert.deepEqual(only(win(''), 'WIN030'), []);
  assert.deepEqual(only(win('securityContext: {runAsNonRoot: false}\n'), 'WIN030'), []);
  assert.deepEqual(
    only(win('securityContext: {runAsNonRoot: true, windowsOptions: {runAsUserName: ContainerUser}}\n'), 'WIN030'),
    [],
  );
  assert.deepEqual(
    only(win('securityContext: {runAsNonRoot: true}\n', 'mcr.microsoft.com/windows/nanoserver:ltsc2022'), 'WIN030'),
    [],
  );
  // HostProcess containers are WIN014's business.
  const hp = deploy(`${winBase}hostNetwork: true
securityContext: {runAsNonRoot: true, windowsOptions: {hostProcess: true, runAsUserName: ContainerAdministrator}}
containers:
  - {name: app, image: mcr.microsoft.com/windows/servercore:ltsc2022}
`);
  assert.deepEqual(only(hp, 'WIN030'), []);
  // Unknown OS: the name says servercore but nothing says Windows.
  const unknown = deploy(`securityContext: {runAsNonRoot: true}
containers:
  - {name: app, image: example.com/servercore-app:1.0}
`);
  assert.deepEqual(ids(unknown), []);
  const linux = deploy(`nodeSelector: {kubernetes.io/os: linux}
securityContext: {runAsNonRoot: true, windowsOptions: {runAsUserName: ContainerAdministrator}}
containers:
  - name: app
    image: example.com/app:1.0
`);
  assert.deepEqual(only(linux, 'WIN030'), []);
});

test('windowsOptions on a linux pod: WIN003 reports it, these rules stay quiet', () => {
  const text = deploy(`os: {name: linux}
containers:
  - name: app
    image: nginx
    securityContext:
      windowsOptions: {runAsUserName: 'a\\\\b', gmsaCredentialSpecName: Web, gmsaCredentialSpec: ''}
`);
  assert.ok(ids(text).includes('WIN003'));
  assert.deepEqual(woIds(text), []);
});

test('a plain Linux pod gets nothing from these rules', () => {
  const text = deploy(`securityContext:
  runAsNonRoot: true
  runAsUser: 1000
containers:
  - name: app
    image: nginx:1.27
`);
  assert.deepEqual(woIds(text), []);
  assert.deepEqual(
    findings(text).filter((f) => f.ruleId.startsWith('WIN02') || f.ruleId === 'WIN030'),
    [],
  );
});

test('windowsOptions validation runs without spec.os too (inferred Windows pods)', () => {
  const text = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  securityContext:
    windowsOptions:
      runAsUserName: 'NT AUTHORITY\\\\SYSTEM'
  containers:
    - {name: a, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}
`;
  const f = only(text, 'WIN022');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /^spec\.securityContext\.windowsOptions\.runAsUserName:/);
});
