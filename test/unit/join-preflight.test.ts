import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  evaluateByoh,
  blocking,
  firstOffer,
  compareVersions,
  checkBuild,
  PreflightError,
  type ByohInputs,
} from '../../src/bootstrap/preflight';
import {
  bootstrapTokenSecret,
  caCertHash,
  containerdConfig,
  kubeletServiceCommand,
  newBootstrapToken,
} from '../../src/core/windows/kubeadm';
import { authorizedKeyHashes, keyInfo, pubKeyHash } from '../../src/bootstrap/ssh-key-info';
import { runBounded } from '../../src/bootstrap/join';
import { csrCommonName } from '../../src/cluster/csr';
import type { HostFacts } from '../../src/core/windows/host-ops';
import { generateCerts } from '../support/kube-emulator/certs';

const FACTS: HostFacts = {
  hostname: 'win-a',
  fqdn: 'win-a.example.com',
  build: 20348,
  ubr: 2700,
  productName: 'Windows Server 2022 Datacenter',
  containersFeature: 'Enabled',
  rebootPending: false,
  adapters: [{ name: 'Ethernet', ipv4: ['10.0.0.5'] }],
  defaultRouteIPv4: '10.0.0.5',
  services: { docker: null, containerd: null, kubelet: null },
  isAdministrator: true,
};

const GOOD: ByohInputs = {
  address: '10.0.0.5',
  addressIPv4: ['10.0.0.5'],
  addressIsIPv6: false,
  reverseNames: ['win-a.example.com'],
  facts: FACTS,
  csv: { name: 'windows-machine-config-operator.v10.18.0', phase: 'Succeeded', version: '10.18.0' },
  installsWmco: false,
  keySecret: { present: true, hasKey: true, publicKeyLine: 'ssh-ed25519 AAAA', hash: 'h1' },
  createsKeySecret: false,
  hostKeyHashes: ['h1'],
  operatorNetwork: { type: 'OVNKubernetes', hybrid: true },
  clusterNetworks: ['10.128.0.0/14'],
  apiInt: { host: 'api-int.c.example.com', resolvedFromHost: ['10.0.0.2'] },
};

const ids = (i: ByohInputs) => blocking(evaluateByoh(i)).map((f) => f.id);

test('a healthy BYOH host has no blocking finding', () => {
  assert.deepEqual(ids(GOOD), []);
});

test('each BYOH prerequisite, when missing, gives its own error with a fix', () => {
  const cases: [string, Partial<ByohInputs>, RegExp][] = [
    ['wmco', { csv: undefined }, /not installed/],
    [
      'wmco',
      { csv: { name: 'windows-machine-config-operator.v10.18.0', phase: 'Failed', message: 'boom' } },
      /Failed: boom/,
    ],
    ['key-secret', { keySecret: { present: false, hasKey: false } }, /missing/],
    ['key-secret', { keySecret: { present: true, hasKey: false } }, /missing 'private-key.pem'/],
    ['key-secret', { keySecret: { present: true, hasKey: true, encrypted: true } }, /passphrase/],
    ['host-accepts-key', { hostKeyHashes: ['other'] }, /does not accept/],
    ['address', { address: 'fd00::5', addressIsIPv6: true, addressIPv4: [] }, /IPv6/],
    ['address', { address: 'nowhere.example', addressIPv4: [], reverseNames: undefined }, /does not resolve/],
    ['node-ip', { facts: { ...FACTS, defaultRouteIPv4: '10.0.0.9' } }, /default-route/],
    ['hostname', { facts: { ...FACTS, hostname: 'WIN_A' } }, /RFC 1123/],
    ['csr-approval', { reverseNames: ['other-host.example.com'] }, /never approve/],
    ['windows-build', { facts: { ...FACTS, build: 19041 } }, /not a supported/],
    ['windows-build', { facts: { ...FACTS, ubr: 600 } }, /KB5012637/],
    ['docker', { facts: { ...FACTS, services: { docker: 'Running', containerd: null, kubelet: null } } }, /Docker/],
    [
      'containerd-preinstalled',
      { facts: { ...FACTS, services: { docker: null, containerd: 'Stopped', kubelet: null } } },
      /containerd/,
    ],
    [
      'dual-nic',
      {
        facts: {
          ...FACTS,
          adapters: [
            { name: 'a', ipv4: ['10.0.0.5'] },
            { name: 'b', ipv4: ['192.168.1.5'] },
          ],
        },
      },
      /dual NIC/,
    ],
    ['admin', { facts: { ...FACTS, isAdministrator: false } }, /administrator/],
    [
      'hybrid-networking',
      { operatorNetwork: { type: 'OVNKubernetes', hybrid: false } },
      /hybrid networking is not configured/,
    ],
    ['hybrid-networking', { operatorNetwork: { type: 'OpenShiftSDN', hybrid: false } }, /not OVN-Kubernetes/],
    [
      'vxlan-port',
      { operatorNetwork: { type: 'OVNKubernetes', hybrid: true, vxlanPort: 9898 }, facts: { ...FACTS, build: 17763 } },
      /VXLAN/,
    ],
    ['class-e', { clusterNetworks: ['10.128.0.0/14', '240.0.0.0/14'] }, /class E/],
    [
      'proxy',
      {
        proxy: { httpProxy: 'http://proxy:3128' },
        csv: { name: 'windows-machine-config-operator.v8.1.0', phase: 'Succeeded', version: '8.1.0' },
      },
      /proxy/,
    ],
    [
      'api-int',
      { apiInt: { host: 'api-int.c.example.com', resolvedFromHost: [], error: 'No such host is known' } },
      /cannot resolve api-int/,
    ],
  ];
  for (const [id, change, message] of cases) {
    const findings = evaluateByoh({ ...GOOD, ...change });
    const hit = blocking(findings).find((f) => f.id === id);
    assert.ok(hit, `${id} is reported for ${JSON.stringify(change)}; got ${JSON.stringify(blocking(findings))}`);
    assert.match(hit.title, message);
    assert.ok(hit.fix && hit.fix.length > 10, `${id} says how to fix it`);
  }
});

test('offers: WMCO and the key secret can be set up by the engine, and then they are not errors', () => {
  const missing = blocking(evaluateByoh({ ...GOOD, csv: undefined, keySecret: { present: false, hasKey: false } }));
  assert.deepEqual(missing.map((f) => f.offer).sort(), ['create-key-secret', 'install-wmco']);
  assert.equal(firstOffer(missing)?.offer, 'install-wmco', 'the UI offers the first fix the engine can do');
  assert.equal(firstOffer(evaluateByoh(GOOD)), undefined);
  assert.deepEqual(
    ids({
      ...GOOD,
      csv: undefined,
      installsWmco: true,
      keySecret: { present: false, hasKey: false },
      createsKeySecret: true,
    }),
    [],
  );
  // The proxy check passes on a WMCO version that supports it.
  assert.deepEqual(ids({ ...GOOD, proxy: { httpsProxy: 'http://p:3128' } }), []);
});

test('no PTR record is a warning (WMCO falls back to the SSH host name), a DNS key must contain the node name', () => {
  const noPtr = evaluateByoh({ ...GOOD, reverseNames: [] }).find((f) => f.id === 'csr-approval');
  assert.equal(noPtr?.severity, 'warning');
  assert.deepEqual(ids({ ...GOOD, address: 'win-a.example.com', reverseNames: undefined }), []);
  assert.deepEqual(ids({ ...GOOD, address: 'other.example.com', reverseNames: undefined }), ['csr-approval']);
});

test('PreflightError lists every blocking finding with its fix', () => {
  const err = new PreflightError(
    evaluateByoh({
      ...GOOD,
      hostKeyHashes: [],
      facts: { ...FACTS, adapters: [...FACTS.adapters, { name: 'x', ipv4: ['1.2.3.4'] }] },
    }),
  );
  assert.match(err.message, /Preflight found 2 problems/);
  assert.match(err.message, /fix: Add this public key/);
  assert.match(err.message, /Disable-NetAdapter/);
});

test('class E: the preflight refuses every cluster network the NET001 rule flags (one overlap check), 224.0.0.0/3 included', () => {
  // The preflight used to look only at the first octet (>= 240) and let 224.0.0.0/3, which reaches
  // into 240.0.0.0/4, through; the rule computed the overlap. Both use the overlap now.
  for (const [cidr, refused] of [
    ['240.0.0.0/4', true],
    ['224.0.0.0/3', true],
    ['250.10.0.0/16', true],
    ['10.128.0.0/14', false],
    ['fd01::/48', false],
  ] as const) {
    const found = evaluateByoh({ ...GOOD, clusterNetworks: [cidr] }).some(
      (f) => f.severity === 'error' && /class E/.test(f.title),
    );
    assert.equal(found, refused, cidr);
  }
});

test('helpers: versions, builds', () => {
  assert.ok(compareVersions('10.18.0', '9.0.0') > 0);
  assert.ok(compareVersions('8.1.2', '9.0.0') < 0);
  assert.equal(checkBuild({ ...FACTS, build: 26100 }, true).severity, 'info');
  assert.equal(checkBuild({ ...FACTS, build: 17763, ubr: 1 }, true).severity, 'info');
});

test('caCertHash equals openssl: sha256 of the DER SubjectPublicKeyInfo', () => {
  const { caPem } = generateCerts();
  const dir = mkdtempSync(join(tmpdir(), 'kw-ca-'));
  writeFileSync(join(dir, 'ca.crt'), caPem);
  const pub = execFileSync('openssl', ['x509', '-pubkey', '-noout', '-in', join(dir, 'ca.crt')]);
  const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: pub });
  const hex = execFileSync('sha256sum', { input: der }).toString().split(' ')[0];
  assert.equal(caCertHash(caPem), `sha256:${hex}`);
});

test("bootstrap tokens have kubeadm's format and their Secret the bootstrap-token fields", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const t = newBootstrapToken();
    assert.match(t.token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    seen.add(t.token);
  }
  assert.equal(seen.size, 50);
  const s = bootstrapTokenSecret('abcdef', '0123456789abcdef', new Date('2026-11-21T10:00:00.000Z'), 'd') as {
    type: string;
    metadata: { name: string };
    data: Record<string, string>;
  };
  assert.equal(s.type, 'bootstrap.kubernetes.io/token');
  assert.equal(s.metadata.name, 'bootstrap-token-abcdef');
  const dec = (k: string) => Buffer.from(s.data[k]!, 'base64').toString();
  assert.equal(dec('expiration'), '2026-11-21T10:00:00Z');
  assert.equal(dec('usage-bootstrap-authentication'), 'true');
  assert.equal(dec('auth-extra-groups'), 'system:bootstrappers:kubeadm:default-node-token');
});

test('containerd config sets the registry config_path in both layouts', () => {
  const v1 = containerdConfig(1);
  assert.match(v1, /^version = 2/);
  assert.match(
    v1,
    /\[plugins\."io\.containerd\.grpc\.v1\.cri"\.registry\]\r\n    config_path = "C:\\\\Program Files\\\\containerd\\\\certs\.d"/,
  );
  const v2 = containerdConfig(2);
  assert.match(v2, /^version = 3/);
  assert.match(v2, /\[plugins\.'io\.containerd\.cri\.v1\.images'\.registry\]\r\n    config_path = /);
  assert.match(v2, /bin_dirs = \["C:\\\\opt\\\\cni\\\\bin"\]/);
});

test('the kubelet command line refuses a node name that is not a DNS name', () => {
  assert.match(kubeletServiceCommand('win-a'), /--hostname-override=win-a /);
  for (const bad of ['Win-A', 'a b', 'a"b', 'a;b', '-a', ''])
    assert.throws(() => kubeletServiceCommand(bad), /invalid node name/);
});

test('key info: public line and WMCO hash, passphrase and garbage detected, nothing secret in the result', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-key-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'me@host', '-f', join(dir, 'plain')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'sesame-9', '-f', join(dir, 'locked')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '1024', '-N', '', '-f', join(dir, 'weak')]);
  const plain = keyInfo(readFileSync(join(dir, 'plain'), 'utf8'));
  const pubLine = readFileSync(join(dir, 'plain.pub'), 'utf8').trim();
  assert.equal(plain.publicKeyLine, pubLine.split(' ').slice(0, 2).join(' '));
  assert.equal(plain.hash, pubKeyHash(pubLine));
  assert.deepEqual(authorizedKeyHashes([`# comment`, `no-pty,from="10.0.0.0/8" ${pubLine}`]), [plain.hash]);
  assert.deepEqual(keyInfo(readFileSync(join(dir, 'locked'), 'utf8')), { encrypted: true });
  assert.match(keyInfo(readFileSync(join(dir, 'weak'), 'utf8')).weak ?? '', /RSA 1024/);
  const garbage = keyInfo('-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n');
  assert.ok(garbage.invalid && !garbage.invalid.includes('not a key'));
});

test('runBounded keeps the bound, the order, and isolates failures', async () => {
  let running = 0;
  let peak = 0;
  const results = await runBounded([...Array(10).keys()], 3, async (i) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setTimeout(r, 5 + (i % 3) * 5));
    running--;
    if (i === 4) throw new Error('host 4 failed');
    return i * 2;
  });
  assert.equal(peak, 3);
  assert.deepEqual(
    results.map((r) => (r.ok ? r.value : 'x')),
    [0, 2, 4, 6, 'x', 10, 12, 14, 16, 18],
  );
});

test('csrCommonName reads the subject CN of a real PKCS#10 request', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-csr-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'k.pem'),
      '-out',
      join(dir, 'r.csr'),
      '-subj',
      '/O=system:nodes/CN=system:node:win-a',
    ],
    { stdio: 'ignore' },
  );
  const request = Buffer.from(readFileSync(join(dir, 'r.csr'))).toString('base64');
  assert.equal(csrCommonName(request), 'system:node:win-a');
  assert.equal(csrCommonName(Buffer.from('garbage').toString('base64')), undefined);
  assert.equal(csrCommonName(undefined), undefined);
});

test('runFailureSummary: the first blocking preflight finding and how many more, else the first line of the error', async () => {
  const { runFailureSummary } = await import('../../src/bootstrap/preflight');
  const { isHostKeyRefusalOrCancel } = await import('../../src/remote/types');
  const findings = [
    { id: 'a', severity: 'error' as const, title: 'WMCO is not installed' },
    { id: 'b', severity: 'info' as const, title: 'fine' },
    { id: 'c', severity: 'error' as const, title: 'no key' },
  ];
  assert.equal(
    runFailureSummary({ outcome: 'failed', error: { message: 'Preflight found 2 problems' } }, undefined, findings),
    'WMCO is not installed (and 1 more problem; see the log)',
  );
  assert.equal(
    runFailureSummary({ outcome: 'failed', error: { message: 'kubeadm join failed\nline 2' } }, undefined, findings),
    'kubeadm join failed',
  );
  assert.equal(runFailureSummary(undefined, 'unreachable\nmore', undefined), 'unreachable');
  assert.equal(runFailureSummary({ outcome: 'cancelled' }, undefined, undefined), 'cancelled');
  assert.equal(isHostKeyRefusalOrCancel(Object.assign(new Error('x'), { name: 'HostKeyChangedError' })), true);
  assert.equal(isHostKeyRefusalOrCancel(Object.assign(new Error('x'), { name: 'AbortError' })), true);
  assert.equal(isHostKeyRefusalOrCancel(new Error('ECONNREFUSED')), false);
});

test('an SSH port other than 22 is a BYOH warning (WMCO connects on 22), not a blocking error; 22 says nothing', () => {
  const found = evaluateByoh({ ...GOOD, sshPort: 2222 }).find((f) => f.id === 'ssh-port');
  assert.equal(found?.severity, 'warning');
  assert.match(found?.title ?? '', /port 2222.*WMCO connects to it on port 22/);
  assert.deepEqual(ids({ ...GOOD, sshPort: 2222 }), []);
  assert.equal(
    evaluateByoh({ ...GOOD, sshPort: 22 }).some((f) => f.id === 'ssh-port'),
    false,
  );
});
