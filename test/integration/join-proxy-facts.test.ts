// What the VS Code join questions show about a proxy, against the API emulator: on a kubeadm cluster
// the NO_PROXY entries "always included" are exactly those the join's proxy step sets before the
// user's own (the same cluster read, the same list), so the question never promises what the join
// does not do; on OpenShift the cluster-wide proxy WMCO applies, without its credentials.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../src/cluster/kube-client';
import { byohClusterProxy, kubeadmNoProxyIncluded } from '../../src/bootstrap/join-proxy';
import { kubeadmClusterPreflight, type KubeadmState } from '../../src/bootstrap/kubeadm';
import { kubeadmProxyVariables } from '../../src/bootstrap/kubeadm-proxy-steps';
import type { Payload } from '../../src/bootstrap/payload';
import type { WindowsHost } from '../../src/remote/windows-host';
import { startEmulator, type Emulator } from '../support/kube-api-emulator';
import { kubeadmCluster, openshiftClusterConfig } from '../support/kube-seed';
import { calicoManifest, controlPlaneNode } from '../support/cni-seed';

let dir: string;
const emulators: Emulator[] = [];

async function clientFor(objects: Parameters<typeof startEmulator>[0]): Promise<{ emu: Emulator; kube: KubeClient }> {
  const emu = await startEmulator(objects);
  emulators.push(emu);
  const config = new KubeConfig();
  config.loadFromFile(emu.kubeconfig({ file: join(dir, `kubeconfig-${emulators.length}`) }));
  return { emu, kube: new KubeClient(config) };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-join-proxy-'));
});

after(async () => {
  for (const e of emulators) await e.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('kubeadm: "always included" is the NO_PROXY the proxy step sets, before the user\'s entries', async () => {
  const { emu, kube } = await clientFor({ objects: [], openshift: false });
  for (const x of [...kubeadmCluster({ server: emu.url, caPem: emu.caPem }), controlPlaneNode(), ...calicoManifest()])
    emu.apply(x);
  const address = '10.0.0.5';
  const included = await kubeadmNoProxyIncluded(kube, address);
  const apiHost = new URL(emu.url).hostname;
  assert.deepEqual(included, [
    'localhost',
    '127.0.0.1',
    '.svc',
    '.cluster.local',
    '10.96.0.0/12',
    '10.244.0.0/16',
    ...(apiHost === '127.0.0.1' ? [] : [apiHost]),
    address,
  ]);

  // The join itself: the cluster preflight fills the state its proxy step reads.
  const state: KubeadmState = {};
  const payload = { containerd: { name: 'containerd-1.7.27-windows-amd64.tar.gz' } } as Payload;
  await kubeadmClusterPreflight({ kube, payload, caPem: emu.caPem }, state);
  const opts = {
    kube,
    host: {} as WindowsHost,
    address,
    user: 'Administrator',
    payload,
    proxy: 'http://proxy.corp.example:3128',
    noProxy: '.corp.example,10.20.0.0/16',
  };
  const set = kubeadmProxyVariables({ opts, state }).NO_PROXY;
  assert.equal(set, [...included, '.corp.example', '10.20.0.0/16'].join(','));
});

test('BYOH: the cluster-wide proxy WMCO applies, without credentials; none on a cluster without one', async () => {
  const proxy = {
    httpProxy: 'http://win:pr0xy-s3cret@proxy.corp.example:3128',
    httpsProxy: 'http://win:pr0xy-s3cret@proxy.corp.example:3128',
    noProxy: 'corp.example',
  };
  const withProxy = await clientFor({ objects: openshiftClusterConfig({ proxy }) });
  const facts = await byohClusterProxy(withProxy.kube);
  assert.equal(facts?.httpProxy, 'http://proxy.corp.example:3128');
  assert.equal(facts?.credentials, true);
  assert.match(facts?.noProxy ?? '', /\.cluster\.local.*corp\.example/);
  assert.doesNotMatch(JSON.stringify(facts), /s3cret/);
  const without = await clientFor({ objects: openshiftClusterConfig() });
  assert.equal(await byohClusterProxy(without.kube), undefined);
});
