// OCP005: a Windows container that reaches outside a proxy-enabled cluster without HTTP(S)_PROXY gets
// an info finding naming the proxy, with the env entries as its fix; nothing on a cluster without a
// proxy, for containers that stay in the cluster or set the variables, or for Linux pods.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyFix, only } from '../support/check';
import { egressEvidence } from '../../src/core/proxy/egress';
import type { ClusterProxyFacts } from '../../src/core/proxy/settings';

const PROXY: ClusterProxyFacts = {
  httpProxy: 'http://proxy.corp.example:3128',
  httpsProxy: 'http://proxy.corp.example:3128',
  noProxy: '.cluster.local,.svc,10.128.0.0/14,172.30.0.0/16,registry.corp.example',
};

const withProxy = (proxy: ClusterProxyFacts | undefined) => ({
  flavour: 'openshift' as const,
  cluster: {
    name: 'prod',
    flavour: 'openshift' as const,
    windowsNodes: [],
    runtimeClasses: [],
    openshift: { version: '4.16.3', ...(proxy ? { proxy } : {}) },
  },
});

const deployment = (container: string, os = 'windows') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      os:
        name: ${os}
      nodeSelector:
        kubernetes.io/os: ${os}
      containers:
${container}`;

const fetcher = `        - name: app
          image: mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022
          command: [pwsh, -Command]
          args: ["Invoke-WebRequest https://www.powershellgallery.com/api/v2 -OutFile C:/x; Start-Sleep 3600"]
`;

test('OCP005: a fetch to the internet without HTTP(S)_PROXY is reported at its args, naming the proxy and offering the env entries', () => {
  const text = deployment(fetcher);
  const [f, ...rest] = only(text, 'OCP005', withProxy(PROXY));
  assert.equal(rest.length, 0);
  assert.ok(f);
  assert.equal(f.severity, 'info');
  assert.match(
    f.message,
    /^Container "app" reaches outside the cluster \(Invoke-WebRequest, https:\/\/www\.powershellgallery\.com\)/,
  );
  assert.match(
    f.message,
    /through the proxy http:\/\/proxy\.corp\.example:3128 \(proxies\.config\.openshift\.io\/cluster\)/,
  );
  assert.match(f.message, /do not inherit it/);
  assert.equal(f.fixes[0]?.kind, 'rewrite');
  const fixed = applyFix(text, f);
  assert.match(
    fixed,
    /env:\n\s+- name: HTTP_PROXY\n\s+value: http:\/\/proxy\.corp\.example:3128\n\s+- name: HTTPS_PROXY\n\s+value: http:\/\/proxy\.corp\.example:3128\n\s+- name: NO_PROXY\n\s+value: \.cluster\.local,\.svc,10\.128\.0\.0\/14,172\.30\.0\.0\/16,registry\.corp\.example/,
  );
  assert.deepEqual(only(fixed, 'OCP005', withProxy(PROXY)), [], 'fixed: no finding');
});

test('OCP005: nothing without a proxy, for a Linux pod, with the variables set or envFrom, or for traffic that stays in the cluster', () => {
  assert.deepEqual(only(deployment(fetcher), 'OCP005', withProxy(undefined)), [], 'no proxy on the cluster');
  assert.deepEqual(only(deployment(fetcher), 'OCP005', { flavour: 'openshift' }), [], 'no cluster facts');
  assert.deepEqual(only(deployment(fetcher, 'linux'), 'OCP005', withProxy(PROXY)), []);
  const lower = `${fetcher}          env:\n            - {name: https_proxy, value: "http://p:1"}\n`;
  assert.deepEqual(only(deployment(lower), 'OCP005', withProxy(PROXY)), [], 'set in lower case');
  const envFrom = `${fetcher}          envFrom:\n            - configMapRef: {name: proxy-env}\n`;
  assert.deepEqual(only(deployment(envFrom), 'OCP005', withProxy(PROXY)), [], 'may come from a ConfigMap');
  const inside = `        - name: app
          image: mcr.microsoft.com/windows/servercore:ltsc2022
          command: [curl.exe, http://api.shop.svc:8080/health, https://registry.corp.example/v2/, http://10.129.1.4/]
`;
  assert.deepEqual(only(deployment(inside), 'OCP005', withProxy(PROXY)), [], 'every URL bypasses the proxy');
});

test('OCP005: package feeds and probes count; credentials are never offered, and the message says so', () => {
  const feed = `        - name: build
          image: mcr.microsoft.com/dotnet/sdk:8.0-nanoserver-ltsc2022
          command: [cmd, /c, "dotnet restore && dotnet run"]
          livenessProbe:
            exec:
              command: [powershell, -c, "Install-Module Pester -Force"]
`;
  const [f] = only(deployment(feed), 'OCP005', withProxy({ ...PROXY, credentials: true }));
  assert.ok(f);
  assert.match(f.message, /\(dotnet restore, Install-Module\)/);
  assert.match(f.message, /The proxy takes credentials, left out here: give the URL with them from a Secret/);
  assert.deepEqual(
    egressEvidence('git clone https://github.com/org/repo && npm ci', undefined).map((e) => e.what),
    ['npm install', 'git clone', 'https://github.com'],
  );
  assert.deepEqual(egressEvidence('echo curling is fun; Write-Host done', undefined), []);
});
