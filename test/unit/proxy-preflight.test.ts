// The proxy preflight's pure parts: which registries a Windows node pulls from (mirrors, and sources
// a NeverContactSource entry keeps out), NO_PROXY's split, the proxy object's sanity, and one finding
// per failed endpoint worded by where it failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeRegistries, splitByNoProxy, WMCO_PAUSE_IMAGE } from '../../src/core/proxy/node-registries';
import { reachFindings } from '../../src/core/proxy/reach';
import { proxySanity, proxyUrlProblem } from '../../src/core/proxy/sanity';

test('nodeRegistries: the pause image, the release payload and every mirror; a NeverContactSource source is left out', () => {
  const plain = nodeRegistries({ releaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:ab', mirrorSets: [] });
  assert.deepEqual(
    plain.map((r) => r.host),
    ['mcr.microsoft.com', 'quay.io'],
  );
  assert.match(plain[0]?.why ?? '', new RegExp(WMCO_PAUSE_IMAGE.replace(/[.]/g, '\\.')));
  const mirrored = nodeRegistries({
    releaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:ab',
    mirrorSets: [
      {
        kind: 'ImageTagMirrorSet',
        name: 'pause',
        spec: {
          imageTagMirrors: [
            {
              source: 'mcr.microsoft.com/oss',
              mirrors: ['mirror.corp:5000/oss'],
              mirrorSourcePolicy: 'NeverContactSource',
            },
          ],
        },
      },
      {
        kind: 'ImageContentSourcePolicy',
        name: 'release',
        spec: {
          repositoryDigestMirrors: [{ source: 'quay.io/openshift-release-dev', mirrors: ['mirror.corp:5000/ocp'] }],
        },
      },
    ],
  });
  assert.deepEqual(
    mirrored.map((r) => r.host),
    ['quay.io', 'mirror.corp:5000'],
    'mcr.microsoft.com never contacted; quay.io still is (AllowContactingSource by default); the mirror once',
  );
  assert.match(
    mirrored[1]?.why ?? '',
    /mirror of mcr\.microsoft\.com\/oss \(ImageTagMirrorSet pause\); mirror of quay\.io\/openshift-release-dev \(ImageContentSourcePolicy release\)/,
  );
  const { through, direct } = splitByNoProxy(mirrored, '.corp,.svc');
  assert.deepEqual([through.map((r) => r.host), direct.map((r) => r.host)], [['quay.io'], ['mirror.corp:5000']]);
});

test('proxySanity: unusable URLs, networks and API endpoints left to the proxy, a CA bundle WMCO cannot import', () => {
  assert.equal(proxyUrlProblem('http://user:pw@proxy:3128'), undefined);
  assert.equal(proxyUrlProblem('socks5://proxy:1080'), 'scheme socks5, not http or https');
  assert.equal(proxyUrlProblem('proxy:3128'), 'scheme proxy, not http or https');
  assert.equal(proxyUrlProblem('http://proxy:3128/path'), 'a path (/path), which a proxy URL does not take');
  const base = {
    clusterNetworks: ['10.128.0.0/14'],
    serviceNetworks: ['172.30.0.0/16'],
    apiHosts: ['api-int.c.example.com'],
  };
  const good = proxySanity({
    ...base,
    httpsProxy: 'http://u:secret@proxy:3128',
    noProxy: '10.0.0.0/8,172.30.0.0/16,.c.example.com',
    trustedCA: { name: 'ca', certificates: 2 },
  });
  assert.deepEqual(
    good.map((f) => [f.id, f.severity]),
    [
      ['proxy-url', 'info'],
      ['no-proxy', 'info'],
      ['trusted-ca', 'info'],
    ],
    'a wider CIDR and a domain suffix cover them',
  );
  assert.ok(!JSON.stringify(good).includes('secret'), 'the password is never repeated');
  const bad = proxySanity({
    ...base,
    httpProxy: 'ftp://proxy',
    noProxy: '10.128.0.0/16',
    trustedCA: { name: 'ca', certificates: 0, problem: 'ConfigMap openshift-config/ca not found' },
  });
  assert.deepEqual(
    bad.filter((f) => f.severity === 'error').map((f) => f.id),
    ['proxy-url', 'no-proxy', 'trusted-ca'],
  );
  assert.match(
    bad.find((f) => f.id === 'no-proxy')?.title ?? '',
    /leaves the cluster network 10\.128\.0\.0\/14, the service network 172\.30\.0\.0\/16, the API endpoint api-int\.c\.example\.com to the proxy/,
    'a narrower CIDR does not cover the network',
  );
});

test('reachFindings: one finding per endpoint, by where it failed; an unreachable proxy is said once', () => {
  const proxy = 'http://win:secret@proxy:3128';
  const down = reachFindings(proxy, [
    { url: 'https://a.example/v2/', stage: 'proxy', error: 'connection refused' },
    { url: 'https://b.example/v2/', stage: 'proxy', error: 'connection refused' },
  ]);
  assert.equal(down.length, 1);
  assert.equal(down[0]?.id, 'proxy-unreachable');
  assert.match(
    down[0]?.title ?? '',
    /^The host does not reach the proxy http:\/\/win:•••@proxy:3128 \(connection refused\)$/,
  );
  assert.match(
    down[0]?.fix ?? '',
    /connect to proxy:3128; not checked through it: https:\/\/a\.example\/v2\/, https:\/\/b\.example\/v2\/\.$/,
  );
  const each = reachFindings(
    proxy,
    [
      { url: 'https://ok.example/v2/', status: 401 },
      { url: 'https://auth.example/v2/', stage: 'connect', connectStatus: 407 },
      { url: 'https://acl.example/v2/', stage: 'connect', connectStatus: 403 },
      { url: 'https://gone.example/v2/', stage: 'connect', connectStatus: 503 },
      { url: 'https://mitm.example/v2/', stage: 'tls', error: 'certificate not trusted' },
      { url: 'https://slow.example/v2/', stage: 'request', error: 'The operation has timed out.' },
      { url: 'http://plain.example/v2/', status: 502 },
    ],
    { trustedCA: 'user-ca-bundle' },
  );
  assert.deepEqual(
    each.map((f) => [f.id, f.severity]),
    [
      ['registry-reached', 'info'],
      ['proxy-credentials', 'error'],
      ['proxy-connect-refused', 'error'],
      ['registry-unreachable', 'error'],
      ['registry-tls', 'warning'],
      ['registry-unreachable', 'error'],
      ['registry-unreachable', 'error'],
    ],
  );
  assert.match(each[2]?.title ?? '', /refused CONNECT to acl\.example:443 \(HTTP 403\)/);
  assert.match(
    each[3]?.title ?? '',
    /could not open a tunnel to gone\.example:443 \(it answered CONNECT with HTTP 503\)/,
  );
  assert.match(each[4]?.fix ?? '', /WMCO imports its CA \(ConfigMap openshift-config\/user-ca-bundle\)/);
  assert.equal(
    reachFindings(proxy, [{ url: 'https://mitm.example/v2/', stage: 'tls', error: 'x' }])[0]?.severity,
    'error',
  );
  assert.ok(!JSON.stringify(each).includes('secret'));
});
