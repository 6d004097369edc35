// Hostile inputs from the cluster: strings an attacker who can write cluster objects would choose
// (shell and PowerShell metacharacters, quotes of every kind, newlines, `..` and absolute Windows
// paths, very long strings, Unicode look-alikes) put where kube-windows reads them: mirror sources
// and mirrors of IDMS/ITMS, node addresses. What the API server's grammar rejects is reported as
// invalid and goes no further; what it accepts never leaves its folder or breaks the TOML it lands
// in; an address that is not an IP or a DNS name is never used for SSH nor written to known_hosts.
// Random strings are seeded (KW_SEED reproduces a failure; the seed is printed).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseToml } from 'smol-toml';
import { mirrorEntriesOf, renderHostsToml } from '../../src/core/mirrors/render';
import { isNtfsSafeName, isOneSegment } from '../../src/core/mirrors/paths';
import { acceptedReference, CRD_PATTERNS } from '../../src/core/mirrors/spec';
import { nodeAddress } from '../../src/bootstrap/node-services';
import { reachableAddress } from '../../src/cluster/nodes';
import { knownHostsLine } from '../../src/remote/known-hosts';
import { HOSTILE } from '../support/hostile-strings';
import { Rng, seedFromEnv } from '../support/yaml-gen';
import { cpuMillis } from '../support/cpu-time';

const SEED = seedFromEnv(6_000_007);
const RANDOM_STRINGS = Number(process.env.KW_HOSTILE_COUNT ?? 3000);
let tried = 0;

after(() => console.log(`hostile cluster strings: ${tried} tried (seed ${SEED}; KW_SEED=${SEED} reproduces)`));

const FROM_THE_CLUSTER: string[] = [
  ...HOSTILE,
  '..',
  '.',
  '../../Windows/System32',
  'registry.io/../../x',
  '..\\..\\Windows',
  'C:\\Windows\\System32',
  'C:',
  '\\\\evil\\share',
  '/etc/passwd',
  'registry.io:5000/../..',
  'quay.io/a b',
  'quay.io/UPPER',
  'quay.io\nevil.io',
  'quay.io"]\n[host."https://evil.io"]\n#',
  "quay.io'; Remove-Item C:\\ -Recurse; '",
  'quay.io$(calc)',
  'quay.io`n',
  'NUL',
  'CON',
  'a'.repeat(70_000),
  `${'a.'.repeat(3000)}io`,
  'ｍcr.microsoft.com', // fullwidth m
  'mсr.microsoft.com', // Cyrillic es
  'mcr.microsoft.com\u200b', // zero-width space
  'mcr\u2024microsoft\u2024com', // one dot leader
  '*.evil.io/../x',
  '*',
  // A long lowercase path that fails at its very end: the CRD's pattern backtracked exponentially on it.
  `quay.io/${'windows-machine-config-operator/'.repeat(3)}\u219bindows-machine-config-operator-release-5-0`,
  `quay.io/${'a'.repeat(5000)}!`,
  `quay.io/${'a-'.repeat(5000)}!`,
  `${'a-'.repeat(5000)}!`,
];

const META = [
  "'",
  '"',
  '`',
  '$',
  '(',
  ')',
  ';',
  '&',
  '|',
  '<',
  '>',
  '\n',
  '\r',
  '\\',
  '/',
  '..',
  ':',
  '*',
  '?',
  '#',
  '[',
  ']',
  '{',
  '}',
  '%',
  ' ',
  '\t',
  '\0',
  '\u2019',
  '\u201c',
  'ℂ',
  'ｍ',
  'с',
];
const PLAIN = ['a', 'quay', 'io', '.', '-', '5000', 'reg'];

function randomString(rng: Rng): string {
  let s = '';
  const n = 1 + rng.int(24);
  for (let i = 0; i < n; i++) s += rng.chance(0.4) ? rng.pick(META) : rng.pick(PLAIN);
  return s;
}

/** The mirror objects a hostile writer could have put in the cluster (were the API not to check them). */
function mirrorObjects(source: string, mirror: string): unknown[] {
  return [
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImageDigestMirrorSet',
      metadata: { name: 'd' },
      spec: { imageDigestMirrors: [{ source, mirrors: [mirror] }] },
    },
    {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImageTagMirrorSet',
      metadata: { name: 't' },
      spec: { imageTagMirrors: [{ source: 'quay.io/ok', mirrors: [mirror] }] },
    },
  ];
}

/** Every invariant for one (source, mirror) pair, in both modes. */
function checkMirrors(source: string, mirror: string): void {
  tried++;
  const entries = mirrorEntriesOf(mirrorObjects(source, mirror));
  for (const e of entries) {
    const apiAccepts =
      (e.setName === 't' || acceptedReference(source, 'source')) && acceptedReference(mirror, 'mirror');
    assert.equal(
      e.invalid === undefined,
      apiAccepts,
      `${JSON.stringify([source, mirror])} (${e.kind}): invalid exactly when the API rejects it`,
    );
  }
  for (const mode of ['wmco', 'ordered'] as const) {
    const r = renderHostsToml(entries, { mode });
    for (const e of entries.filter((x) => x.invalid !== undefined)) {
      assert.ok(
        r.refused.some((x) => x.source === e.source && /not a valid image reference/.test(x.message)),
        `${mode}: ${JSON.stringify(e.source)} reported invalid`,
      );
    }
    for (const f of r.files) {
      assert.ok(isOneSegment(f.dir), `${mode}: folder ${JSON.stringify(f.dir)} stays inside certs.d`);
      if (mode === 'ordered') assert.ok(isNtfsSafeName(f.dir), `ordered: ${JSON.stringify(f.dir)} is an NTFS name`);
      const toml = parseToml(f.content) as Record<string, unknown>;
      assert.deepEqual(
        Object.keys(toml).filter((k) => !['server', 'host', 'override_path'].includes(k)),
        [],
        `${mode}: ${JSON.stringify(mirror)} added no table of its own`,
      );
      // Every value rendered came from an entry the API server accepts.
      assert.ok(
        acceptedReference(f.source, 'source') || f.source === 'quay.io',
        `${mode}: rendered ${JSON.stringify(f.source)}`,
      );
    }
    for (const m of r.refused)
      assert.ok(
        !/\n/.test(m.message.replace(/"(?:[^"\\]|\\.)*"/g, '')),
        'a refusal is one line outside its quoted values',
      );
  }
}

test('mirror sources and mirrors from the hostile list: invalid is reported, nothing leaves its folder or breaks hosts.toml', () => {
  for (const v of FROM_THE_CLUSTER) {
    checkMirrors(v, 'mirror.example.com/x');
    checkMirrors('quay.io/ok', v);
  }
});

test(`seeded random mirror strings (${RANDOM_STRINGS}): the same invariants`, () => {
  const rng = new Rng(SEED);
  for (let i = 0; i < RANDOM_STRINGS; i++) {
    const a = randomString(rng);
    const b = randomString(rng);
    try {
      checkMirrors(a, 'mirror.example.com/x');
      checkMirrors('quay.io/ok', b);
    } catch (err) {
      throw new Error(`seed ${SEED}, case ${i} (${JSON.stringify([a, b])}): ${(err as Error).message}`);
    }
  }
});

test('the linear reference patterns accept exactly what the CRD patterns accept, and answer fast on any input', () => {
  const rng = new Rng(SEED ^ 0xcafe);
  const alphabet = ['a', 'b', '0', '9', 'A', '.', '_', '__', '-', '--', '/', ':', '5000', '*', '!', ' ', 'é'];
  for (let i = 0; i < 20_000; i++) {
    let v = rng.pick(['quay.io/', 'reg.example.com:5000/', '*.', '', 'a']);
    const n = rng.int(10);
    for (let j = 0; j < n; j++) v += rng.pick(alphabet);
    for (const field of ['mirror', 'source'] as const)
      assert.equal(
        acceptedReference(v, field),
        CRD_PATTERNS[field].test(v),
        `${field} ${JSON.stringify(v)} (seed ${SEED})`,
      );
  }
  for (const v of FROM_THE_CLUSTER) {
    const t0 = cpuMillis();
    acceptedReference(v, 'mirror');
    acceptedReference(v, 'source');
    assert.ok(cpuMillis() - t0 < 100, `${JSON.stringify(v.slice(0, 60))}: ${(cpuMillis() - t0).toFixed(0)} ms`);
  }
});

test('node addresses: only an IP address or a DNS name is ever used for SSH', () => {
  const node = (address: string, type = 'InternalIP') => ({
    metadata: { name: 'n' },
    status: { addresses: [{ type, address }] },
  });
  const rng = new Rng(SEED ^ 0x5eed);
  const values = [
    ...FROM_THE_CLUSTER,
    '10.0.0.5\n* ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK',
    '10.0.0.5 -oProxyCommand=calc',
    '-oProxyCommand=calc',
    '10.0.0.5,evil.io',
    '!10.0.0.5',
  ];
  for (let i = 0; i < 500; i++) values.push(randomString(rng));
  for (const v of values) {
    tried++;
    for (const got of [nodeAddress(node(v)), reachableAddress(node(v)) || undefined]) {
      if (got === undefined) continue;
      assert.match(
        got,
        /^(?:[0-9.]+|[0-9a-fA-F:]+|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9.])?)$/,
        `${JSON.stringify(v)} used as ${JSON.stringify(got)} (seed ${SEED})`,
      );
    }
  }
  // A hostile InternalIP does not hide a good ExternalIP.
  const both = {
    metadata: { name: 'n' },
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.5; calc' },
        { type: 'ExternalIP', address: '203.0.113.7' },
      ],
    },
  };
  assert.equal(nodeAddress(both), '203.0.113.7');
  assert.equal(reachableAddress(both), '203.0.113.7');
  assert.equal(nodeAddress(node('10.0.0.5')), '10.0.0.5');
});

test('known_hosts: a host that would add a pattern or a line is never written', () => {
  const blob = Buffer.from('00000007' + Buffer.from('ssh-rsa').toString('hex'), 'hex');
  for (const host of ['10.0.0.5\n* ssh-ed25519 AAAA', '10.0.0.5,evil.io', '*', 'a b', '!x', '', 'h#c']) {
    assert.throws(
      () => knownHostsLine(host, 22, 'ssh-rsa', blob),
      /is not a host name or address/,
      JSON.stringify(host),
    );
  }
  assert.equal(knownHostsLine('10.0.0.5', 2222, 'ssh-rsa', blob).split(' ')[0], '[10.0.0.5]:2222');
  assert.equal(knownHostsLine('fe80::1', 22, 'ssh-rsa', blob).split(' ')[0], 'fe80::1');
});
