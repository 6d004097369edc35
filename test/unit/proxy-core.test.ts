// The proxy facts kube-windows reads and compares (core/proxy): credentials taken out, NO_PROXY as Go
// reads it, a node's effective service environment against the cluster's, and the words shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  noProxyEntries,
  proxyAnnotation,
  proxyFacts,
  readProxyAnnotation,
  redactProxyUrl,
  withoutCredentials,
} from '../../src/core/proxy/settings';
import { bypassesProxy, isClusterLocalHost, kubeadmNoProxy } from '../../src/core/proxy/no-proxy';
import { compareNodeProxy, driftPhrases, serviceVariables } from '../../src/core/proxy/node-env';
import { clusterProxyLines, driftLine, nodeProxyReport, proxySupport } from '../../src/core/proxy/words';

test('proxyFacts: status wins over spec, credentials are taken out and flagged, no proxy gives undefined', () => {
  assert.equal(proxyFacts(undefined), undefined);
  assert.equal(proxyFacts({ spec: { noProxy: '.example.com' } }), undefined, 'NO_PROXY alone is no proxy');
  assert.deepEqual(
    proxyFacts({
      spec: { httpProxy: 'http://asked:3128', trustedCA: { name: 'user-ca-bundle' } },
      status: {
        httpProxy: 'http://user:s3cret@proxy.corp:3128',
        httpsProxy: 'http://proxy.corp:3128',
        noProxy: '.cluster.local,.svc,10.0.0.0/16',
      },
    }),
    {
      httpProxy: 'http://proxy.corp:3128',
      httpsProxy: 'http://proxy.corp:3128',
      noProxy: '.cluster.local,.svc,10.0.0.0/16',
      trustedCA: 'user-ca-bundle',
      credentials: true,
    },
  );
  assert.equal(JSON.stringify(proxyFacts({ spec: { httpProxy: 'http://a:b@p:1' } })).includes('b@'), false);
});

test('withoutCredentials and redactProxyUrl never keep the password', () => {
  assert.deepEqual(withoutCredentials('http://u:p@h:3128/'), { url: 'http://h:3128/', had: true });
  assert.deepEqual(withoutCredentials('http://h:3128'), { url: 'http://h:3128', had: false });
  assert.equal(redactProxyUrl('http://u:p4ss@h:3128'), 'http://u:•••@h:3128');
  assert.equal(redactProxyUrl('http://h:3128'), 'http://h:3128');
});

test('bypassesProxy reads NO_PROXY as Go does: suffixes with and without a dot, exact names, CIDRs, *', () => {
  const list = '.svc, cluster.local,10.128.0.0/14,172.30.0.1,api-int.example.com:6443';
  assert.equal(bypassesProxy('kubernetes.default.svc', list), true);
  assert.equal(bypassesProxy('a.cluster.local', list), true);
  assert.equal(bypassesProxy('cluster.local', list), true);
  assert.equal(bypassesProxy('10.129.3.4', list), true);
  assert.equal(bypassesProxy('10.140.0.1', list), false);
  assert.equal(bypassesProxy('172.30.0.1', list), true);
  assert.equal(bypassesProxy('api-int.example.com', list), true, 'a port in an entry is ignored');
  assert.equal(bypassesProxy('mcr.microsoft.com', list), false);
  assert.equal(bypassesProxy('notsvc', list), false);
  assert.equal(bypassesProxy('anything', '*'), true);
  assert.deepEqual(noProxyEntries(' a , ,b'), ['a', 'b']);
  assert.equal(isClusterLocalHost('web.shop.svc'), true);
  assert.equal(isClusterLocalHost('web'), true);
  assert.equal(isClusterLocalHost('127.0.0.1'), true);
  assert.equal(isClusterLocalHost('www.powershellgallery.com'), false);
});

test('kubeadmNoProxy keeps the cluster networks, the API endpoint and the node out of the proxy, each once', () => {
  assert.equal(
    kubeadmNoProxy({
      serviceCidrs: ['10.96.0.0/12'],
      podCidrs: ['10.244.0.0/16'],
      apiHost: '192.168.1.10',
      nodeAddress: '192.168.1.20',
      extra: 'corp.example, .SVC,10.96.0.0/12',
    }),
    'localhost,127.0.0.1,.svc,.cluster.local,10.96.0.0/12,10.244.0.0/16,192.168.1.10,192.168.1.20,corp.example',
  );
});

test('the proxy annotation round-trips without credentials; anything else is not ours', () => {
  const a = proxyAnnotation({ httpProxy: 'http://u:p@h:1', noProxy: 'x' });
  assert.equal(a.includes('u:p'), false);
  assert.deepEqual(readProxyAnnotation(a), { httpProxy: 'http://h:1', noProxy: 'x' });
  assert.equal(readProxyAnnotation('{"noProxy":"x"}'), undefined);
  assert.equal(readProxyAnnotation('not json'), undefined);
  assert.equal(readProxyAnnotation(undefined), undefined);
});

const EXPECTED = { HTTP_PROXY: 'http://p:3128', HTTPS_PROXY: 'http://p:3128', NO_PROXY: '.svc,10.0.0.0/16' };

test('compareNodeProxy: a service sees its own Environment over the machine; NO_PROXY compares as a set', () => {
  assert.deepEqual(serviceVariables(['FOO=1', 'http_proxy=http://own:1', 'NO_PROXY=a']), {
    HTTP_PROXY: 'http://own:1',
    NO_PROXY: 'a',
  });
  const equal = compareNodeProxy(
    EXPECTED,
    {
      machine: { HTTP_PROXY: 'http://p:3128', HTTPS_PROXY: 'http://p:3128', NO_PROXY: '10.0.0.0/16, .SVC' },
      services: [
        { name: 'containerd', exists: true, environment: [] },
        { name: 'hybrid-overlay-node', exists: false, environment: [] },
      ],
      certificates: { AB: true },
    },
    ['ab'],
  );
  assert.equal(equal.equal, true);
  assert.equal(equal.services[0]?.variables[0]?.source, 'machine');

  const drift = compareNodeProxy(
    EXPECTED,
    {
      machine: { HTTP_PROXY: 'http://p:3128', HTTPS_PROXY: 'http://old:8080', NO_PROXY: '.svc,10.0.0.0/16' },
      services: [{ name: 'kubelet', exists: true, environment: ['NO_PROXY=.svc'] }],
      certificates: { AB: false },
    },
    ['AB'],
  );
  assert.equal(drift.equal, false);
  assert.deepEqual(driftPhrases(drift), ['machine HTTPS_PROXY', 'kubelet NO_PROXY', 'trusted CA bundle']);
  assert.deepEqual(drift.missingCertificates, ['AB']);
  assert.match(
    driftLine(drift, 'wmco', '2026-11-27T10:00:00.000Z', new Date('2026-11-27T10:30:00Z')),
    /^Drift: machine HTTPS_PROXY, kubelet NO_PROXY, trusted CA bundle differ from what the cluster expects \(WMCO reconciles this periodically; last seen equal 2026-11-27T10:00:00.000Z \(30 minutes ago\)\)\.$/,
  );
  assert.match(driftLine(drift, 'kubeadm'), /never seen equal by kube-windows/);
  const report = nodeProxyReport({
    node: 'win-a',
    expected: EXPECTED,
    expectedFrom: 'proxies.config.openshift.io/cluster',
    comparison: drift,
    managedBy: 'wmco',
  });
  assert.match(report, /^  HTTPS_PROXY http:\/\/old:8080  ≠ expected http:\/\/p:3128$/m);
  assert.match(report, /^Service kubelet/m);
  assert.match(report, /^  NO_PROXY {4}\.svc \[service\]  ≠ expected/m);
  assert.match(report, /1 certificate of 1 missing from LocalMachine\\Root \(AB\)/);
});

test('the cluster row: addresses, NO_PROXY, the CA ConfigMap and the release support verdict', () => {
  const lines = clusterProxyLines(
    {
      httpProxy: 'http://p:3128',
      httpsProxy: 'http://p:3129',
      noProxy: '.svc,10.0.0.0/16',
      trustedCA: 'user-ca-bundle',
      credentials: true,
    },
    '4.16.3',
  );
  assert.equal(lines[0], 'Cluster-wide proxy: HTTP http://p:3128, HTTPS http://p:3129 (with credentials, not shown)');
  assert.equal(lines[1], 'NO_PROXY: .svc, 10.0.0.0/16 (2 entries)');
  assert.equal(lines[2], 'Trusted CA bundle: ConfigMap openshift-config/user-ca-bundle');
  assert.match(
    lines[3] ?? '',
    /^On Windows: supported on Windows nodes on OpenShift 4\.16 \(from 4\.14, WMCO 9\.0\.0\)/,
  );
  assert.equal(proxySupport('4.12.9').supported, false);
  assert.match(proxySupport('4.12.9').text, /not supported on OpenShift 4\.12 \(supported from 4\.14\)/);
  assert.equal(proxySupport(undefined).supported, undefined);
});
