// The OpenShift facts of the cluster snapshot (version, platform, infrastructure name, network, WMCO,
// cloud-private-key) read from the API emulator: once per session, and a forbidden or absent object
// leaves its fields out without failing the snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator, type KubeObject } from '../support/kube-api-emulator';
import { namespace, openshiftClusterConfig, wmcoCsv } from '../support/kube-seed';
import { infrastructure } from '../support/machine-api-seed';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import { ClusterSession } from '../../src/cluster/session';
import { readOpenShiftFacts, snapshotOf } from '../../src/cluster/snapshot';

const WMCO_NS = 'openshift-windows-machine-config-operator';
const key: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'cloud-private-key', namespace: WMCO_NS },
  data: {
    'private-key.pem': Buffer.from(
      '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
    ).toString('base64'),
  },
};

function cluster(): KubeObject[] {
  const config = openshiftClusterConfig({ hybridOverlay: true, version: '4.16.12' }).filter(
    (o) => o.kind !== 'Infrastructure',
  );
  return [...config, infrastructure('Azure'), namespace(WMCO_NS), wmcoCsv(), key];
}

function session(kubeconfig: string, context = 'ocp'): ClusterSession {
  const loaded = loadKubeconfig({ explicit: kubeconfig });
  assert.ok(loaded.ok);
  return new ClusterSession(context, loaded.config, { timeoutMs: 5000 });
}

test('the snapshot of an OpenShift cluster carries its version, platform, infrastructure name, network and WMCO facts, read once per session', async () => {
  const emu = await startEmulator({ objects: cluster() });
  try {
    const s = session(emu.kubeconfig({ context: 'ocp' }));
    const snap = await snapshotOf(s);
    assert.equal(snap?.flavour, 'openshift');
    assert.deepEqual(snap?.openshift, {
      version: '4.16.12',
      platform: 'Azure',
      infrastructureName: 'test-x7k2p',
      networkType: 'OVNKubernetes',
      hybridOverlay: true,
      wmcoInstalled: true,
      cloudPrivateKey: true,
    });
    const reads = (): number =>
      emu.requests.filter((r) => r.path === '/apis/config.openshift.io/v1/clusterversions/version').length;
    assert.equal(reads(), 1);
    await snapshotOf(s);
    assert.equal(reads(), 1, 'read once per cluster');
    await s.reconnect();
    await snapshotOf(s);
    assert.equal(reads(), 2, 'read again after a reconnect');
    s.dispose();
  } finally {
    await emu.stop();
  }
});

test('forbidden or absent objects leave their fields out and never fail the snapshot', async () => {
  const objects = cluster().filter((o) => o.kind !== 'ClusterServiceVersion' && o.kind !== 'Secret');
  const emu = await startEmulator({
    objects,
    tokens: {
      viewer: {
        user: 'viewer',
        deny: [
          { verb: 'get', resource: 'clusterversions' },
          { verb: 'get', resource: 'networks' },
          { verb: 'get', resource: 'secrets' },
        ],
      },
    },
  });
  try {
    const s = session(emu.kubeconfig({ context: 'ocp', token: 'viewer' }));
    const snap = await snapshotOf(s);
    assert.ok(snap, 'the snapshot is there');
    // ClusterVersion and the Network forbidden, the key secret forbidden: left out; WMCO's CSV absent: false.
    assert.deepEqual(snap.openshift, { platform: 'Azure', infrastructureName: 'test-x7k2p', wmcoInstalled: false });
    s.dispose();
    const admin = session(emu.kubeconfig({ context: 'ocp' }));
    assert.deepEqual(await readOpenShiftFacts(admin.client), {
      version: '4.16.12',
      platform: 'Azure',
      infrastructureName: 'test-x7k2p',
      networkType: 'OVNKubernetes',
      hybridOverlay: true,
      wmcoInstalled: false,
      cloudPrivateKey: false,
    });
    admin.dispose();
  } finally {
    await emu.stop();
  }
});

test('a plain Kubernetes cluster has no OpenShift facts', async () => {
  const emu = await startEmulator({ objects: [namespace('default')], openshift: false });
  try {
    const s = session(emu.kubeconfig({ context: 'k8s' }), 'k8s');
    const snap = await snapshotOf(s);
    assert.equal(snap?.flavour, 'kubernetes');
    assert.equal(snap?.openshift, undefined);
    assert.ok(!emu.requests.some((r) => r.path.startsWith('/apis/config.openshift.io')), 'nothing OpenShift was asked');
    s.dispose();
  } finally {
    await emu.stop();
  }
});

test('a Proxy read that timed out is not "no proxy": the facts are read again and the cluster row gets the proxy', async () => {
  const proxied = openshiftClusterConfig({
    version: '4.16.12',
    proxy: { httpProxy: 'http://proxy.corp.example:3128', httpsProxy: 'http://proxy.corp.example:3128' },
  });
  const emu = await startEmulator({ objects: [...proxied, namespace(WMCO_NS)] });
  const s = session(emu.kubeconfig({ context: 'ocp' }));
  try {
    // The first read of the Proxy times out (a loaded cluster), the next ones answer.
    const get = s.client.get.bind(s.client);
    let failed = 0;
    (s.client as { get: typeof get }).get = (async (path: string, ...rest: unknown[]) => {
      if (path === '/apis/config.openshift.io/v1/proxies/cluster' && failed++ === 0) {
        const err = new Error('The operation was aborted due to timeout');
        err.name = 'TimeoutError';
        throw err;
      }
      return (get as (...a: unknown[]) => Promise<unknown>)(path, ...rest);
    }) as typeof get;
    const proxyShown = new Promise<void>((resolve) => {
      const off = s.onChange((topic) => {
        if (topic === 'info' && s.state?.status === 'connected' && s.state.info.proxy) {
          off();
          resolve();
        }
      });
    });
    const state = await s.connect();
    assert.equal(state.status, 'connected');
    // A fail-safe, not a bound: without the retry the row never gets the proxy.
    let failSafe: NodeJS.Timeout | undefined;
    await Promise.race([
      proxyShown,
      new Promise((_, reject) => {
        failSafe = setTimeout(() => reject(new Error('the proxy never reached the cluster row')), 60_000);
      }),
    ]).finally(() => clearTimeout(failSafe));
    assert.equal(failed, 2, 'the Proxy was read again after the timeout');
    assert.ok(state.status === 'connected');
    assert.equal(state.info.proxy?.facts.httpProxy, 'http://proxy.corp.example:3128');
    // Read in full now: kept, not read a third time.
    await s.openshiftFacts();
    assert.equal(failed, 2);
  } finally {
    s.dispose();
    await emu.stop();
  }
});
