// `join --via kubeadm --proxy URL --no-proxy LIST`: the proxy step against a simulated Windows host and
// a REAL HTTP proxy on loopback (tinyproxy): containerd and the kubelet get HTTP_PROXY, HTTPS_PROXY and
// a NO_PROXY that keeps the cluster's networks, API endpoint and node; a running containerd is restarted;
// the registry check goes through the proxy (its log shows it); a second run changes nothing; a proxy
// that does not answer stops the join naming the endpoint.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { proxyClearStep, proxyEnvironmentStep, kubeadmProxyVariables } from '../../src/bootstrap/kubeadm-proxy-steps';
import type { KubeadmContext } from '../../src/bootstrap/kubeadm';
import { PreflightError } from '../../src/bootstrap/preflight';
import { startRig, type Rig } from '../support/join-rig';
import { simNode, simProxy } from '../support/windows-host-sim';
import { startTinyproxy, type RealProxy } from '../support/tinyproxy';

let rig: Rig;
let proxy: RealProxy;
let registry: Server;
let registryUrl: string;

before(async () => {
  proxy = await startTinyproxy();
  registry = createServer((req, res) => {
    res.statusCode = req.url?.startsWith('/v2/') ? 401 : 404; // a registry's anonymous answer
    res.setHeader('Www-Authenticate', 'Bearer realm="http://127.0.0.1/token"');
    res.end();
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  registryUrl = `http://127.0.0.1:${(registry.address() as { port: number }).port}/v2/`;
  rig = await startRig({
    hosts: 1,
    host: () => ({
      hostname: 'WIN-K',
      services: { containerd: { status: 'Running' }, kubelet: { status: 'Stopped' } },
    }),
  });
});

after(async () => {
  await rig?.stop();
  await proxy?.stop();
  await new Promise((r) => registry?.close(r));
});

function context(proxyUrl: string): KubeadmContext {
  return {
    opts: {
      kube: rig.kube,
      host: rig.hostFor(0),
      address: rig.addresses[0] as string,
      user: rig.user,
      payload: {} as KubeadmContext['opts']['payload'],
      proxy: proxyUrl,
      noProxy: 'corp.example,.internal',
      proxyCheckUrls: [registryUrl],
    },
    state: {
      cluster: {
        findings: [],
        kubernetesVersion: 'v1.35.4',
        serverVersion: 'v1.35.4',
        serviceSubnet: '10.96.0.0/12',
        podSubnets: ['10.244.0.0/16'],
      },
    },
  };
}

test('the proxy step sets containerd and kubelet, restarts the running containerd, reaches the registry through the real proxy, and is done on a second run', async () => {
  const ctx = context(proxy.url);
  const step = proxyEnvironmentStep();
  const signal = new AbortController().signal;
  const reports: string[] = [];
  assert.equal(await step.check(ctx, signal), 'todo');
  await step.apply(ctx, signal, (m) => reports.push(m));
  const apiHost = new URL(rig.kube.server).hostname;
  // The emulator's API server is on 127.0.0.1, already in the list: each entry once.
  const noProxy = [
    ...new Set([
      'localhost',
      '127.0.0.1',
      '.svc',
      '.cluster.local',
      '10.96.0.0/12',
      '10.244.0.0/16',
      apiHost,
      rig.addresses[0],
      'corp.example',
      '.internal',
    ]),
  ].join(',');
  assert.equal(kubeadmProxyVariables(ctx).NO_PROXY, noProxy);
  const env = simProxy(rig.sims[0]!.state).serviceEnv;
  for (const s of ['containerd', 'kubelet'])
    assert.deepEqual(env.get(s), [`HTTP_PROXY=${proxy.url}`, `HTTPS_PROXY=${proxy.url}`, `NO_PROXY=${noProxy}`], s);
  assert.equal(simProxy(rig.sims[0]!.state).machineEnv.size, 0, "the machine's environment is left alone");
  assert.deepEqual(simNode(rig.sims[0]!.state).restarts, ['containerd'], 'only the running service restarts');
  assert.ok(
    proxy.requests().some((l) => l.includes(registryUrl.replace('http://', '')) || l.includes(registryUrl)),
    `the registry check went through the proxy:\n${proxy.requests().join('\n')}`,
  );
  assert.ok(
    reports.some((r) => r.startsWith(`The host reaches ${registryUrl} through the proxy`)),
    reports.join('\n'),
  );
  assert.equal(await step.verify(ctx, signal), true);
  assert.equal(await step.check(ctx, signal), 'done', 'a second run changes nothing');
});

test('a proxy that does not answer stops the step with an error naming the endpoint and the proxy', async () => {
  const dead = 'http://127.0.0.1:9'; // discard port: nothing listens
  const ctx = context(dead);
  await assert.rejects(
    () => proxyEnvironmentStep().apply(ctx, new AbortController().signal, () => undefined),
    (err: unknown) => {
      assert.ok(err instanceof PreflightError);
      assert.match(err.message, /The host does not reach the proxy http:\/\/127\.0\.0\.1:9 \(Unable to connect/);
      assert.match(
        err.message,
        new RegExp(`connect to 127\\.0\\.0\\.1:9; not checked through it: ${registryUrl.replace(/[.]/g, '\\.')}`),
      );
      return true;
    },
  );
});

test('removing the node takes the proxy kube-windows set out of containerd again (and only when the node carries its annotation)', async () => {
  const host = rig.hostFor(0);
  const env = simProxy(rig.sims[0]!.state).serviceEnv;
  env.set('containerd', ['FOO=1', `HTTP_PROXY=${proxy.url}`, `NO_PROXY=.svc`]);
  rig.emu.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'win-k' } });
  const o = { kube: rig.kube, host, nodeName: 'win-k', address: rig.addresses[0] as string };
  const step = proxyClearStep();
  const signal = new AbortController().signal;
  assert.equal(await step.check(o, signal), 'done', 'no annotation: not ours to take out');
  rig.emu.apply({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'win-k', annotations: { 'kube-windows.io/proxy': JSON.stringify({ httpProxy: proxy.url }) } },
  });
  assert.equal(await step.check(o, signal), 'todo');
  await step.apply(o, signal, () => undefined);
  assert.deepEqual(env.get('containerd'), ['FOO=1'], "containerd's other variables are kept");
  assert.equal(await step.verify(o, signal), true);
  assert.equal(await step.check(o, signal), 'done');
});
