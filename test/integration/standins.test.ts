// Cluster-side stand-ins on the API emulator: OLM (Subscription → InstallPlan → CSV), WMCO's BYOH path
// (windows-instances → CSRs → Node → version annotations), the OpenShift config kinds (two kinds named
// Network), CSR approval over HTTP, and the kubeadm cluster-info seed.
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CertificatesV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { load as loadYaml } from 'js-yaml';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import {
  caCertHash,
  kubeadmCluster,
  namespace,
  openshiftClusterConfig,
  windowsInstancesConfigMap,
  wmcoCsv,
  WMCO_NAMESPACE,
} from '../support/kube-seed';
import { attachOlmStandin, type OlmStandin } from '../support/olm-standin';
import { attachWmcoStandin, WMCO_APPROVAL_MESSAGE, type WmcoHost, type WmcoStandin } from '../support/wmco-standin';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => T | undefined | false, timeoutMs = 3000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const operatorGroup = (ns: string): KubeObject => ({
  apiVersion: 'operators.coreos.com/v1',
  kind: 'OperatorGroup',
  metadata: { name: `${ns}-og`, namespace: ns },
  spec: { targetNamespaces: [ns] },
});
const subscription = (approval: 'Automatic' | 'Manual'): KubeObject => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'Subscription',
  metadata: { name: 'windows-machine-config-operator', namespace: WMCO_NAMESPACE },
  spec: {
    channel: 'stable',
    installPlanApproval: approval,
    name: 'windows-machine-config-operator',
    source: 'redhat-operators',
    sourceNamespace: 'openshift-marketplace',
    startingCSV: 'windows-machine-config-operator.v10.18.0',
  },
});

let emu: Emulator | undefined;
let olm: OlmStandin | undefined;
let wmco: WmcoStandin | undefined;
afterEach(async () => {
  olm?.stop();
  wmco?.stop();
  await emu?.stop();
  emu = olm = wmco = undefined;
});

const csvOf = (e: Emulator): KubeObject | undefined =>
  e.list('ClusterServiceVersion').find((c) => c.metadata.namespace === WMCO_NAMESPACE);

describe('OLM stand-in', () => {
  test('Automatic: Subscription → approved InstallPlan → CSV Pending, Installing, Succeeded; Subscription AtLatestKnown', async () => {
    emu = await startEmulator({ objects: [namespace(WMCO_NAMESPACE), operatorGroup(WMCO_NAMESPACE)], openshift: true });
    olm = attachOlmStandin(emu, { stepMs: 10 });
    const phases = new Set<string>();
    emu.onChange(
      (ev) => void (ev.object.kind === 'ClusterServiceVersion' && phases.add(String(obj(ev.object.status).phase))),
    );
    emu.apply(subscription('Automatic'));
    const csv = await waitFor('CSV Succeeded', () =>
      obj(csvOf(emu!)?.status).phase === 'Succeeded' ? csvOf(emu!) : undefined,
    );
    assert.equal(csv.metadata.name, 'windows-machine-config-operator.v10.18.0');
    assert.deepEqual([...phases], ['Pending', 'Installing', 'Succeeded']);
    const plan = emu.list('InstallPlan')[0]!;
    assert.deepEqual(obj(plan.spec).approved, true);
    assert.deepEqual(obj(plan.spec).clusterServiceVersionNames, ['windows-machine-config-operator.v10.18.0']);
    const sub = await waitFor('Subscription installed', () =>
      emu!.list('Subscription').find((s) => obj(s.status).state === 'AtLatestKnown'),
    );
    assert.equal(obj(sub.status).installedCSV, 'windows-machine-config-operator.v10.18.0');
    assert.equal(obj(obj(sub.status).installPlanRef).name, plan.metadata.name);
    assert.equal(olm.installPlansCreated, 1);
  });

  test('Manual: the InstallPlan waits for approval; approving it over the API installs', async () => {
    emu = await startEmulator({ objects: [namespace(WMCO_NAMESPACE), operatorGroup(WMCO_NAMESPACE)], openshift: true });
    olm = attachOlmStandin(emu, { stepMs: 10 });
    emu.apply(subscription('Manual'));
    const plan = await waitFor('InstallPlan', () => emu!.list('InstallPlan')[0]);
    assert.equal(obj(plan.spec).approved, false);
    assert.equal(obj(plan.status).phase, 'RequiresApproval');
    assert.equal(
      obj(
        (
          await waitFor('pending sub', () =>
            emu!.list('Subscription').find((s) => obj(s.status).state === 'UpgradePending'),
          )
        ).status,
      ).state,
      'UpgradePending',
    );
    await sleep(60);
    assert.equal(csvOf(emu), undefined, 'nothing installs before approval');
    const kc = new KubeConfig();
    kc.loadFromFile(emu.kubeconfig());
    await kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
      {
        group: 'operators.coreos.com',
        version: 'v1alpha1',
        namespace: WMCO_NAMESPACE,
        plural: 'installplans',
        name: plan.metadata.name,
        body: { spec: { approved: true } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor('CSV Succeeded', () => obj(csvOf(emu!)?.status).phase === 'Succeeded');
  });

  test('no OperatorGroup: nothing resolves until one is created; a failing install ends in Failed', async () => {
    emu = await startEmulator({ objects: [namespace(WMCO_NAMESPACE)], openshift: true });
    olm = attachOlmStandin(emu, { stepMs: 10, failWith: 'install timeout' });
    emu.apply(subscription('Automatic'));
    await sleep(50);
    assert.equal(emu.list('InstallPlan').length, 0);
    emu.apply(operatorGroup(WMCO_NAMESPACE));
    const csv = await waitFor('CSV Failed', () =>
      obj(csvOf(emu!)?.status).phase === 'Failed' ? csvOf(emu!) : undefined,
    );
    assert.equal(obj(csv.status).message, 'install timeout');
  });
});

describe('WMCO stand-in', () => {
  const host = (h: Partial<WmcoHost> = {}): WmcoHost => ({
    hostname: 'WIN-BYOH-01',
    reverseDns: 'win-byoh-01.corp.example.com.',
    build: '10.0.20348',
    ...h,
  });
  async function cluster(
    hosts: Map<string, WmcoHost>,
    extra: KubeObject[] = [],
    csvPhase: 'Succeeded' | 'Installing' = 'Succeeded',
  ): Promise<Emulator> {
    emu = await startEmulator({
      objects: [
        namespace(WMCO_NAMESPACE),
        wmcoCsv(csvPhase, '10.18.0'),
        ...openshiftClusterConfig({ hybridOverlay: true }),
        ...extra,
      ],
    });
    wmco = attachWmcoStandin(emu, { hosts, stepMs: 10 });
    return emu;
  }
  const csrs = (e: Emulator): KubeObject[] => e.list('CertificateSigningRequest');
  const approved = (c: KubeObject): boolean =>
    ((obj(c.status).conditions as Obj[] | undefined) ?? []).some((x) => x.type === 'Approved');

  test('a windows-instances entry becomes a Ready BYOH Node with version == desired-version', async () => {
    const e = await cluster(new Map([['10.0.140.25', host()]]));
    e.apply(windowsInstancesConfigMap({ '10.0.140.25': 'Administrator' }));
    const node = await waitFor('Node Ready', () => {
      const n = e.get('Node', 'win-byoh-01');
      const ready = ((obj(n?.status).conditions as Obj[] | undefined) ?? []).some(
        (c) => c.type === 'Ready' && c.status === 'True',
      );
      return ready ? n : undefined;
    });
    const ann = node.metadata.annotations ?? {};
    assert.equal(ann['windowsmachineconfig.openshift.io/desired-version'], '10.18.0');
    assert.equal(ann['windowsmachineconfig.openshift.io/version'], '10.18.0');
    assert.equal(node.metadata.labels?.['windowsmachineconfig.openshift.io/byoh'], 'true');
    assert.equal(node.metadata.labels?.['node.kubernetes.io/windows-build'], '10.0.20348');
    assert.deepEqual(obj(node.spec).taints, [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }]);
    assert.deepEqual((obj(node.status).addresses as Obj[])[0], { type: 'InternalIP', address: '10.0.140.25' });
    const all = csrs(e);
    assert.equal(all.length, 2);
    assert.ok(all.every(approved));
    const cond = ((obj(all[0]!.status).conditions as Obj[]) ?? [])[0]!;
    assert.equal(cond.reason, 'WMCOApprove');
    assert.equal(cond.message, WMCO_APPROVAL_MESSAGE);
    assert.deepEqual(all.map((c) => obj(c.spec).signerName).sort(), [
      'kubernetes.io/kube-apiserver-client-kubelet',
      'kubernetes.io/kubelet-serving',
    ]);
    assert.ok(
      all.every((c) =>
        Buffer.from(String(obj(c.spec).request), 'base64')
          .toString()
          .startsWith('-----BEGIN CERTIFICATE REQUEST-----'),
      ),
    );
    // A repeated reconcile (any change to the ConfigMap) does not configure the instance again.
    e.patch('ConfigMap', 'windows-instances', WMCO_NAMESPACE, { metadata: { labels: { touched: 'yes' } } });
    await sleep(60);
    await wmco!.settled();
    assert.deepEqual(wmco!.counters, { csrsApproved: 2, nodesCreated: 1, nodesDeleted: 0 });
    assert.equal(e.list('Node').length, 1);
  });

  test('nothing happens until the WMCO CSV has Succeeded', async () => {
    const e = await cluster(
      new Map([['10.0.140.25', host()]]),
      [windowsInstancesConfigMap({ '10.0.140.25': 'Administrator' })],
      'Installing',
    );
    await sleep(60);
    assert.equal(e.list('Node').length, 0);
    e.patch('ClusterServiceVersion', 'windows-machine-config-operator.v10.18.0', WMCO_NAMESPACE, {
      status: { phase: 'Succeeded' },
    });
    await waitFor('Node', () => e.get('Node', 'win-byoh-01'));
  });

  test('one malformed entry fails the whole ConfigMap: nothing is configured', async () => {
    const e = await cluster(new Map([['10.0.140.25', host()]]));
    e.apply({
      ...windowsInstancesConfigMap({ '10.0.140.25': 'Administrator' }),
      data: { '10.0.140.25': 'username=Administrator', '10.0.140.26': 'user=Administrator' },
    });
    await sleep(80);
    await wmco!.settled();
    assert.equal(e.list('Node').length, 0);
    assert.equal(csrs(e).length, 0);
    assert.ok(
      wmco!.events.some(
        (ev) => ev.reason === 'InstanceSetupFailure' && /data has an incorrect format/.test(ev.message),
      ),
    );
  });

  test('removing the entry cordons then deletes the Node', async () => {
    const e = await cluster(new Map([['10.0.140.25', host()]]));
    e.apply(windowsInstancesConfigMap({ '10.0.140.25': 'Administrator' }));
    await waitFor(
      'Node version',
      () => e.get('Node', 'win-byoh-01')?.metadata.annotations?.['windowsmachineconfig.openshift.io/version'],
    );
    const cordoned = new Promise<void>((resolve) =>
      e.onChange((ev) => void (ev.object.kind === 'Node' && obj(ev.object.spec).unschedulable === true && resolve())),
    );
    e.apply(windowsInstancesConfigMap({}));
    await cordoned;
    await waitFor('Node deleted', () => !e.get('Node', 'win-byoh-01'));
    assert.equal(wmco!.counters.nodesDeleted, 1);
    // Adding it back joins it again; deleting the whole ConfigMap deconfigures every BYOH node.
    e.apply(windowsInstancesConfigMap({ '10.0.140.25': 'Administrator' }));
    await waitFor(
      'Node again',
      () => e.get('Node', 'win-byoh-01')?.metadata.annotations?.['windowsmachineconfig.openshift.io/version'],
    );
    e.remove('ConfigMap', 'windows-instances', WMCO_NAMESPACE);
    await waitFor('Node deleted again', () => !e.get('Node', 'win-byoh-01'));
    assert.equal(wmco!.counters.nodesDeleted, 2);
  });

  test('a node name that does not match the reverse DNS leaves the client CSR pending and no Node appears', async () => {
    const e = await cluster(new Map([['10.0.140.25', host({ reverseDns: 'host-10-0-140-25.dhcp.example.com.' })]]));
    e.apply(windowsInstancesConfigMap({ '10.0.140.25': 'Administrator' }));
    const csr = await waitFor('client CSR', () => csrs(e)[0]);
    await sleep(80);
    assert.equal(approved(e.get('CertificateSigningRequest', csr.metadata.name)!), false);
    assert.equal(e.list('Node').length, 0);
    assert.equal(obj(csr.spec).signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
    assert.equal(csr.metadata.annotations?.['kube-windows.test/subject-cn'], 'system:node:win-byoh-01');
  });

  test('without reverse DNS the host name is used; an unreachable host produces nothing', async () => {
    const e = await cluster(
      new Map([
        ['10.0.140.25', host({ reverseDns: undefined })],
        ['10.0.140.26', host({ hostname: 'WIN-OFF', reachable: false })],
      ]),
    );
    e.apply(windowsInstancesConfigMap({ '10.0.140.25': 'Administrator', '10.0.140.26': 'Administrator' }));
    await waitFor('Node', () => e.get('Node', 'win-byoh-01'));
    await wmco!.settled();
    assert.equal(e.get('Node', 'win-off'), undefined);
    assert.ok(wmco!.events.some((ev) => /unable to connect to Windows VM 10.0.140.26/.test(ev.message)));
  });
});

describe('emulator extensions', () => {
  test('both Network kinds coexist and are served at their own paths; Infrastructure, Proxy, ClusterVersion', async () => {
    emu = await startEmulator({
      objects: openshiftClusterConfig({
        hybridOverlay: true,
        proxy: { httpProxy: 'http://proxy:3128', noProxy: 'example.com' },
      }),
    });
    const kc = new KubeConfig();
    kc.loadFromFile(emu.kubeconfig());
    const api = kc.makeApiClient(CustomObjectsApi);
    const cfg = (await api.getClusterCustomObject({
      group: 'config.openshift.io',
      version: 'v1',
      plural: 'networks',
      name: 'cluster',
    })) as KubeObject;
    const op = (await api.getClusterCustomObject({
      group: 'operator.openshift.io',
      version: 'v1',
      plural: 'networks',
      name: 'cluster',
    })) as KubeObject;
    assert.deepEqual(obj(cfg.spec).clusterNetwork, [{ cidr: '10.128.0.0/14', hostPrefix: 23 }]);
    assert.deepEqual(
      obj(obj(obj(obj(op.spec).defaultNetwork).ovnKubernetesConfig).hybridOverlayConfig).hybridClusterNetwork,
      [{ cidr: '10.132.0.0/14', hostPrefix: 23 }],
    );
    assert.equal(emu.list('Network').length, 1);
    assert.equal(emu.list('Network.operator.openshift.io').length, 1);
    const infra = (await api.getClusterCustomObject({
      group: 'config.openshift.io',
      version: 'v1',
      plural: 'infrastructures',
      name: 'cluster',
    })) as KubeObject;
    assert.equal(obj(infra.status).apiServerInternalURL, 'https://api-int.test.example.com:6443');
    const proxy = emu.get('Proxy', 'cluster')!;
    assert.match(String(obj(proxy.status).noProxy), /api-int\.test\.example\.com/);
    assert.equal(obj(obj(emu.get('ClusterVersion', 'version')!.status).desired).version, '4.18.3');
    // Deleting one Network leaves the other.
    await api.deleteClusterCustomObject({
      group: 'operator.openshift.io',
      version: 'v1',
      plural: 'networks',
      name: 'cluster',
    });
    assert.equal(emu.list('Network').length, 1);
    assert.equal(emu.list('Network.operator.openshift.io').length, 0);
  });

  test('CSR approval subresource over HTTP sets status.conditions', async () => {
    emu = await startEmulator({ objects: [] });
    emu.apply({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'csr-abcde' },
      spec: { request: 'AA==', signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['client auth'] },
    });
    const kc = new KubeConfig();
    kc.loadFromFile(emu.kubeconfig());
    const certs = kc.makeApiClient(CertificatesV1Api);
    const csr = await certs.readCertificateSigningRequest({ name: 'csr-abcde' });
    csr.status = {
      conditions: [{ type: 'Approved', status: 'True', reason: 'KubeWindowsApprove', message: 'approved by a test' }],
    };
    await certs.replaceCertificateSigningRequestApproval({ name: 'csr-abcde', body: csr });
    const cond = ((obj(emu.get('CertificateSigningRequest', 'csr-abcde')!.status).conditions as Obj[]) ?? [])[0]!;
    assert.equal(cond.type, 'Approved');
    assert.equal(cond.reason, 'KubeWindowsApprove');
  });

  test('kubeadm seed: cluster-info holds the CA and server; caCertHash is sha256 of the SPKI', async () => {
    emu = await startEmulator({ objects: [] });
    for (const o of kubeadmCluster({ server: emu.url, caPem: emu.caPem })) emu.apply(o);
    const kc = new KubeConfig();
    kc.loadFromFile(emu.kubeconfig());
    const cm = await kc
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: 'cluster-info', namespace: 'kube-public' });
    // kubeadm writes the cluster with name "" (client-node's loader refuses that), so read it as YAML.
    const info = obj(loadYaml(cm.data?.kubeconfig ?? ''));
    const cluster = obj(obj((info.clusters as unknown[])[0]).cluster);
    assert.equal(cluster.server, emu.url);
    assert.equal(Buffer.from(String(cluster['certificate-authority-data']), 'base64').toString(), emu.caPem);
    assert.ok(cm.data?.['jws-kubeconfig-abcdef']);
    assert.match(caCertHash(emu.caPem), /^sha256:[0-9a-f]{64}$/);
  });
});
