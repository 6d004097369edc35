import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { only, covered, fixAndRecheck, ids } from '../support/check';
import { classifyAddress, parseInstanceValue } from '../../src/core/rules/families/byoh';

const cm = (
  data: string,
  namespace = 'openshift-windows-machine-config-operator',
  name = 'windows-instances',
) => `kind: ConfigMap
apiVersion: v1
metadata:
  name: ${name}
  namespace: ${namespace}
data:
${data.replace(/^(?=.)/gm, '  ')}`;

const byohIds = (text: string) => ids(text).filter((id) => id.startsWith('BYOH'));

test('the README example raises nothing', () => {
  const text = cm(`10.1.42.1: |-
  username=Administrator
instance.example.com: |-
  username=core
`);
  assert.deepEqual(byohIds(text), []);
});

test('classifyAddress: IPv4, DNS names, IPv6 and the rest', () => {
  assert.equal(classifyAddress('10.1.42.1'), 'ipv4');
  assert.equal(classifyAddress('instance.example.com'), 'dns');
  assert.equal(classifyAddress('Win-Node1.Example.com.'), 'dns');
  assert.equal(classifyAddress('winhost'), 'dns');
  assert.equal(classifyAddress('fe80::1'), 'ipv6');
  assert.equal(classifyAddress('10.1.42.256'), 'invalid-ipv4');
  assert.equal(classifyAddress('10.1.42'), 'invalid-ipv4');
  assert.equal(classifyAddress('010.1.42.1'), 'invalid-ipv4');
  assert.equal(classifyAddress('win_node.example.com'), 'invalid');
  assert.equal(classifyAddress('-bad.example.com'), 'invalid');
  assert.equal(classifyAddress('a..b'), 'invalid');
});

test('parseInstanceValue reads the value as WMCO does', () => {
  assert.deepEqual(parseInstanceValue('username=core'), { ok: true, username: 'core' });
  assert.deepEqual(parseInstanceValue('username=core\n'), {
    ok: false,
    kind: 'whitespace',
    normalized: 'username=core',
  });
  assert.equal(parseInstanceValue('username = core').ok, false);
  assert.equal((parseInstanceValue('username = core') as { normalized?: string }).normalized, 'username=core');
  assert.equal((parseInstanceValue('user=core') as { normalized?: string }).normalized, undefined);
  assert.equal((parseInstanceValue('username') as { kind: string }).kind, 'format');
  assert.equal((parseInstanceValue('username=') as { kind: string }).kind, 'format');
  assert.equal((parseInstanceValue('username=a\nb') as { kind: string }).kind, 'format');
  assert.equal((parseInstanceValue(42) as { kind: string }).kind, 'format');
});

test('BYOH001: IPv6 and malformed addresses are errors that stop every instance', () => {
  const text = cm(`"fe80::1": username=core
10.1.42.256: username=core
win_node.example.com: username=core
10.1.42.2: username=core
`);
  const f = only(text, 'BYOH001');
  assert.equal(f.length, 3);
  assert.ok(f.every((x) => x.severity === 'error'));
  assert.equal(covered(text, f[0]), '"fe80::1"');
  assert.match(f[0].message, /IPv6/);
  assert.match(f[0].message, /one bad entry stops WMCO from configuring every instance/);
  assert.match(f[1].message, /not a valid IPv4 address/);
  assert.match(f[2].message, /neither an IPv4 address nor a DNS name/);
});

test('BYOH002: a value that is not username=<name> is an error; an evident intent gets a fix', () => {
  const text = cm(`10.1.42.1: username = core
10.1.42.2: user=core
10.1.42.3: username
`);
  const f = only(text, 'BYOH002');
  assert.equal(f.length, 3);
  assert.equal(covered(text, f[0]), 'username = core');
  assert.match(f[0].message, /one bad entry stops WMCO/);
  assert.equal(f[0].fixes.length, 1);
  assert.deepEqual(f[1].fixes, []);
  assert.deepEqual(f[2].fixes, []);
  const { fixed } = fixAndRecheck(text, 'BYOH002');
  assert.match(fixed, /10\.1\.42\.1: username=core\n/);
});

test('BYOH003: a | block keeps its newline; the fix rewrites the value without it', () => {
  const text = cm(`10.1.42.1: |
  username=Administrator
instance.example.com: |-
  username=core
`);
  const f = only(text, 'BYOH003');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.match(f[0].message, /"\|" block keeps its trailing newline/);
  const { fixed } = fixAndRecheck(text, 'BYOH003');
  const data = (load(fixed) as { data: Record<string, string> }).data;
  assert.deepEqual(data, { '10.1.42.1': 'username=Administrator', 'instance.example.com': 'username=core' });
  // Spaces around the name are flagged the same way.
  assert.equal(only(cm(`10.1.42.1: "username= core "\n`), 'BYOH003').length, 1);
});

test('BYOH004: the ConfigMap must live in the WMCO namespace', () => {
  const text = cm(`10.1.42.1: username=core\n`, 'default');
  const f = only(text, 'BYOH004');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'default');
  const { fixed } = fixAndRecheck(text, 'BYOH004');
  assert.match(fixed, /namespace: openshift-windows-machine-config-operator/);
  assert.deepEqual(only(cm(`10.1.42.1: username=core\n`).replace(/  namespace: .*\n/, ''), 'BYOH004'), []);
});

test('other ConfigMaps are not checked', () => {
  assert.deepEqual(byohIds(cm(`fe80::1: nonsense\n`, 'default', 'something-else')), []);
});
