// The OpenShift side of src/cluster and src/bootstrap against the real kube-apiserver with the
// published OpenShift and OLM CRDs (scripts/apiserver-crds.mjs): the cluster configuration the BYOH
// join reads (Network, Infrastructure, Proxy, ClusterVersion), WMCO's install (Namespace,
// OperatorGroup, Subscription, InstallPlan approval, CSV) with an OLM double doing OLM's part,
// the windows-instances ConfigMap, mirror sets read back and rendered for Windows nodes, a Windows
// MachineSet created with server-side dry run against the real machine.openshift.io schema, and
// `kube-windows machineset` with src/cluster/machinesets.ts: the dry-run YAML per platform from an
// Infrastructure and a Linux MachineSet the server serves, create with dryRun=All, the scale
// subresource, Machines by label and their events by field selector.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKubeconfig, configForContext } from '../../src/cluster/kubeconfig';
import { KubeClient } from '../../src/cluster/kube-client';
import { ClusterSession } from '../../src/cluster/session';
import { clusterProxy, configNetwork, infrastructure, isOpenShift, operatorNetwork } from '../../src/cluster/openshift';
import { addInstance, removeInstance, windowsInstances, wmcoCsv } from '../../src/cluster/wmco';
import { wmcoInstallSteps } from '../../src/bootstrap/wmco-install';
import { runPlan } from '../../src/bootstrap/runner';
import { clusterMirrorObjects } from '../../src/bootstrap/mirrors-apply';
import { mirrorEntriesOf, renderHostsToml } from '../../src/core/mirrors/render';
import { checkText } from '../../src/core/rules/checker';
import { idms, itms, openshiftClusterConfig } from '../support/kube-seed';
import {
  CONTEXT_ADMIN,
  expectStatus,
  fromEmulatorSeed,
  ROOT,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
  type Status,
} from '../support/real-apiserver';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ApiError } from '../../src/cluster/errors';
import { listAll } from '../../src/cluster/api';
import {
  createMachineSet,
  deleteMachine,
  getMachine,
  getMachineSet,
  getScale,
  listMachines,
  machineEvents,
  machineSetsByKind,
  readInfrastructure,
  scaleMachineSet,
} from '../../src/cluster/machinesets';
import { createWindowsMachineSet } from '../../src/bootstrap/machineset-create';
import { buildWindowsMachineSet, type MachineApiObject } from '../../src/core/openshift/windows-machineset';
import {
  CLUSTER as MACHINE_CLUSTER,
  infrastructure as machineInfrastructure,
  linuxWorkerMachineSet,
  PLATFORMS,
  wmcoReference,
  type Platform,
} from '../support/machine-api-seed';

let api: RealApiServer;
let kube: KubeClient;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  api = await useApiServer();
  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok);
  kube = new KubeClient(configForContext(load.config, CONTEXT_ADMIN), { timeoutMs: 10_000 });
});

after(async () => {
  await api?.stop();
});

test('the cluster configuration the BYOH join reads, created under the real config.openshift.io and operator.openshift.io schemas', async () => {
  const config = openshiftClusterConfig({
    hybridOverlay: true,
    vxlanPort: 9898,
    proxy: { httpProxy: 'http://proxy.example.com:3128', noProxy: '.example.com' },
  });
  await seed(api, fromEmulatorSeed(config as SeedObject[]));
  assert.equal(await isOpenShift(kube), true);

  const opNet = await operatorNetwork(kube);
  assert.equal(opNet?.spec?.defaultNetwork?.type, 'OVNKubernetes');
  assert.deepEqual(opNet?.spec?.defaultNetwork?.ovnKubernetesConfig?.hybridOverlayConfig, {
    hybridClusterNetwork: [{ cidr: '10.132.0.0/14', hostPrefix: 23 }],
    hybridOverlayVXLANPort: 9898,
  });
  const cfgNet = await configNetwork(kube);
  assert.deepEqual(
    cfgNet?.spec?.clusterNetwork?.map((n) => n.cidr),
    ['10.128.0.0/14'],
  );
  assert.equal(cfgNet?.spec?.networkType, 'OVNKubernetes');
  const proxy = await clusterProxy(kube);
  assert.equal(proxy?.spec?.httpProxy, 'http://proxy.example.com:3128');
  assert.match(proxy?.status?.httpProxy ?? '', /proxy\.example\.com/, 'status set through the status subresource');
  const infra = await infrastructure(kube);
  // The field is apiServerInternalURI; the schema has no apiServerInternalURL (the server prunes it).
  assert.equal(infra?.status?.apiServerInternalURI, 'https://api-int.test.example.com:6443');
  assert.equal((infra?.status as Record<string, unknown> | undefined)?.apiServerInternalURL, undefined);
  assert.equal(infra?.status?.platform, 'None');

  // The network rules read these objects as the server returns them (defaults filled in).
  const text = JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [{ ...opNet, apiVersion: 'operator.openshift.io/v1', kind: 'Network' }],
  });
  const netFindings = checkText(text, { flavour: 'openshift' }).findings.filter((f) => f.ruleId.startsWith('NET'));
  assert.deepEqual(netFindings, [], 'hybrid overlay configured: no NET finding');
  const withoutHybrid = structuredClone(opNet) as {
    spec: { defaultNetwork: { ovnKubernetesConfig: Record<string, unknown> } };
  };
  delete withoutHybrid.spec.defaultNetwork.ovnKubernetesConfig.hybridOverlayConfig;
  const noHybrid = checkText(
    JSON.stringify({ ...withoutHybrid, apiVersion: 'operator.openshift.io/v1', kind: 'Network' }),
    { flavour: 'openshift' },
  ).findings;
  assert.deepEqual(
    noHybrid.map((f) => f.ruleId),
    ['NET003'],
  );

  // A value the schema refuses: the server's own error, not ours.
  const bad = await api.request<Status>('/apis/config.openshift.io/v1/proxies', {
    body: { apiVersion: 'config.openshift.io/v1', kind: 'Proxy', metadata: { name: 'bad' }, spec: { httpProxy: 3128 } },
    query: { dryRun: 'All' },
  });
  assert.equal(bad.status, 422, JSON.stringify(bad.body));
  assert.match(
    bad.body.message ?? '',
    /spec\.httpProxy: Invalid value: "integer": spec\.httpProxy in body must be of type string: "integer"/,
  );
});

test('WMCO install with Manual approval on the real OLM CRDs: Namespace, OperatorGroup, Subscription, InstallPlan approved, CSV Succeeded', async () => {
  const ns = uniqueName('kw-wmco');
  const plan = {
    id: 'wmco-install',
    title: 'Install WMCO',
    target: ns,
    steps: wmcoInstallSteps<object>(ns, { approval: 'Manual', timeoutMs: 30_000 }, () => kube, 100),
  };

  // OLM's part: an InstallPlan waiting for approval once the Subscription exists, and the CSV once it is approved.
  let stop = false;
  const olm = (async () => {
    const csvName = 'windows-machine-config-operator.v10.18.0';
    const base = `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}`;
    let planMade = false;
    let csvMade = false;
    while (!stop) {
      const sub = await api.request(`${base}/subscriptions/windows-machine-config-operator`);
      if (sub.status === 200 && !planMade) {
        expectStatus(
          await api.request(`${base}/installplans`, {
            body: {
              apiVersion: 'operators.coreos.com/v1alpha1',
              kind: 'InstallPlan',
              metadata: { name: 'install-x7k2p', namespace: ns },
              spec: { approval: 'Manual', approved: false, clusterServiceVersionNames: [csvName], generation: 1 },
            },
          }),
          [201],
          'InstallPlan',
        );
        planMade = true;
      }
      const ip = await api.request<{ spec?: { approved?: boolean } }>(`${base}/installplans/install-x7k2p`);
      if (ip.status === 200 && ip.body.spec?.approved && !csvMade) {
        await seed(api, [
          {
            apiVersion: 'operators.coreos.com/v1alpha1',
            kind: 'ClusterServiceVersion',
            metadata: { name: csvName, namespace: ns },
            spec: {
              displayName: 'Windows Machine Config Operator',
              version: '10.18.0',
              install: {
                strategy: 'deployment',
                spec: {
                  deployments: [
                    {
                      name: 'windows-machine-config-operator',
                      spec: {
                        selector: { matchLabels: { name: 'windows-machine-config-operator' } },
                        template: {
                          metadata: { labels: { name: 'windows-machine-config-operator' } },
                          spec: { containers: [{ name: 'manager', image: 'registry.redhat.io/wmco:10.18.0' }] },
                        },
                      },
                    },
                  ],
                },
              },
            },
            status: {
              phase: 'Succeeded',
              reason: 'InstallSucceeded',
              message: 'install strategy completed with no errors',
            },
          },
        ]);
        csvMade = true;
      }
      await sleep(100);
    }
  })();
  try {
    const result = await runPlan(plan, {});
    assert.equal(result.outcome, 'done', JSON.stringify(result.error));
    assert.deepEqual(
      result.steps.map((s) => [s.id, s.outcome]),
      [
        ['wmco-namespace', 'applied'],
        ['wmco-operatorgroup', 'applied'],
        ['wmco-subscription', 'applied'],
        ['wmco-csv', 'applied'],
      ],
    );
  } finally {
    stop = true;
    await olm;
  }
  const nsObj = expectStatus(
    await api.request<{ metadata: { labels: Record<string, string> } }>(`/api/v1/namespaces/${ns}`),
    [200],
    'namespace',
  );
  assert.equal(nsObj.metadata.labels['openshift.io/cluster-monitoring'], 'true');
  const og = expectStatus(
    await api.request<{ items: { spec: { targetNamespaces: string[] } }[] }>(
      `/apis/operators.coreos.com/v1/namespaces/${ns}/operatorgroups`,
    ),
    [200],
    'operatorgroups',
  );
  assert.deepEqual(og.items[0].spec.targetNamespaces, [ns]);
  const sub = expectStatus(
    await api.request<{ spec: Record<string, string> }>(
      `/apis/operators.coreos.com/v1alpha1/namespaces/${ns}/subscriptions/windows-machine-config-operator`,
    ),
    [200],
    'subscription',
  );
  assert.deepEqual(sub.spec, {
    channel: 'stable',
    installPlanApproval: 'Manual',
    name: 'windows-machine-config-operator',
    source: 'redhat-operators',
    sourceNamespace: 'openshift-marketplace',
  });
  assert.equal((await wmcoCsv(kube, undefined, ns))?.status?.phase, 'Succeeded');

  // Run again: every step checks done and applies nothing.
  const again = await runPlan(plan, {});
  assert.equal(again.outcome, 'done');
  assert.ok(
    again.steps.every((s) => s.outcome === 'skipped'),
    JSON.stringify(again.steps),
  );

  // The session sees WMCO where it is installed (the default namespace is not this one).
  const load = loadKubeconfig({ explicit: api.kubeconfigPath });
  assert.ok(load.ok);
  const s = new ClusterSession(CONTEXT_ADMIN, load.config, { timeoutMs: 10_000 });
  try {
    const state = await s.connect();
    assert.equal(state.status === 'connected' && state.info.flavour, 'openshift');
  } finally {
    s.dispose();
  }
});

test('windows-instances: BYOH entries added and removed by merge patches of one key, and the BYOH rules on what the server returns', async () => {
  const ns = uniqueName('kw-byoh');
  expectStatus(
    await api.request('/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }),
    [201],
    'namespace',
  );
  assert.equal(await windowsInstances(kube, undefined, ns), undefined);
  await addInstance(kube, '10.0.140.12', 'Administrator', undefined, ns);
  await addInstance(kube, 'win-byoh-2.example.com', 'Administrator', undefined, ns);
  await addInstance(kube, '10.0.140.12', 'Administrator', undefined, ns);
  assert.deepEqual(await windowsInstances(kube, undefined, ns), {
    '10.0.140.12': 'username=Administrator',
    'win-byoh-2.example.com': 'username=Administrator',
  });
  await removeInstance(kube, '10.0.140.12', undefined, ns);
  assert.deepEqual(await windowsInstances(kube, undefined, ns), { 'win-byoh-2.example.com': 'username=Administrator' });

  // ConfigMap keys are validated by the server too: an IPv6 address (BYOH001's case) is not even a valid key.
  const v6 = await api.request<Status>(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'windows-instances', namespace: ns },
      data: { 'fd00::12': 'username=Administrator' },
    },
  });
  assert.equal(v6.status, 422);
  assert.match(
    v6.body.message ?? '',
    /data\[fd00::12\]: Invalid value: "fd00::12": a valid config key must consist of alphanumeric characters, '-', '_' or '\.'/,
  );
  // A value the server stores but WMCO refuses: BYOH002 on the object as read back.
  const cm = await api.request<Record<string, unknown>>(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'windows-instances', namespace: 'openshift-windows-machine-config-operator' },
      data: { '10.0.140.13': 'user=Administrator' },
    },
  });
  assert.equal(cm.status, 400, 'the namespace of the body must match the path');
  const fresh = uniqueName('kw-byoh');
  expectStatus(
    await api.request('/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: fresh } },
    }),
    [201],
    'namespace',
  );
  const stored = await api.request<Record<string, unknown>>(`/api/v1/namespaces/${fresh}/configmaps?dryRun=All`, {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'windows-instances', namespace: fresh },
      data: { '10.0.140.13': 'user=Administrator' },
    },
  });
  assert.equal(stored.status, 201);
  const ids = checkText(JSON.stringify({ ...stored.body, apiVersion: 'v1', kind: 'ConfigMap' }), {
    flavour: 'openshift',
  }).findings.map((f) => f.ruleId);
  assert.ok(ids.includes('BYOH002'), ids.join(','));
});

test('mirror sets read back from the real CRDs render the same hosts.toml as the manifests they came from', async () => {
  const objects = [
    idms(uniqueName('kw-idms'), [
      {
        source: 'mcr.microsoft.com/windows/servercore',
        mirrors: ['mirror.example.com/windows/servercore', 'backup.example.com/windows/servercore'],
      },
      {
        source: 'registry.example.com/team',
        mirrors: ['mirror.example.com/team'],
        mirrorSourcePolicy: 'NeverContactSource',
      },
    ]),
    itms(uniqueName('kw-itms'), [{ source: 'quay.io/example/app', mirrors: ['mirror.example.com/example/app'] }]),
  ] as SeedObject[];
  const names = objects.map((o) => o.metadata.name);
  await seed(api, objects);
  const fromServer = (await clusterMirrorObjects(kube)).filter((o) =>
    names.includes((o as { metadata: { name: string } }).metadata.name),
  );
  assert.equal(fromServer.length, 2);
  const render = (objs: unknown[]) => renderHostsToml(mirrorEntriesOf(objs), { mode: 'ordered' });
  assert.deepEqual(render(fromServer), render(objects));
  assert.ok(render(fromServer).files.length >= 3);

  // The schema refuses what the MIR rules cannot fix: a mirror with a scheme.
  const bad = await api.request<Status>('/apis/config.openshift.io/v1/imagedigestmirrorsets?dryRun=All', {
    body: idms('kw-bad', [{ source: 'mcr.microsoft.com/windows', mirrors: ['https://mirror.example.com/windows'] }]),
  });
  assert.equal(bad.status, 422, JSON.stringify(bad.body));
  assert.match(bad.body.message ?? '', /spec\.imageDigestMirrors\[0\]\.mirrors\[0\]/);
});

/** A Windows MachineSet as the OpenShift docs give it for AWS (WMCO's machine-api flavour). */
function windowsMachineSet(name: string, replicas: unknown = 1): Record<string, unknown> {
  const labels = {
    'machine.openshift.io/cluster-api-cluster': 'test-x7k2p',
    'machine.openshift.io/cluster-api-machineset': name,
  };
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: {
      name,
      namespace: 'openshift-machine-api',
      labels: { 'machine.openshift.io/cluster-api-cluster': 'test-x7k2p' },
    },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: {
          labels: {
            ...labels,
            'machine.openshift.io/cluster-api-machine-role': 'worker',
            'machine.openshift.io/cluster-api-machine-type': 'worker',
            'machine.openshift.io/os-id': 'Windows',
          },
        },
        spec: {
          metadata: { labels: { 'node-role.kubernetes.io/worker': '' } },
          providerSpec: {
            value: {
              apiVersion: 'machine.openshift.io/v1beta1',
              kind: 'AWSMachineProviderConfig',
              ami: { id: 'ami-0e2a1f3b5c7d9e0f1' },
              blockDevices: [{ ebs: { iops: 0, volumeSize: 120, volumeType: 'gp2' } }],
              credentialsSecret: { name: 'aws-cloud-credentials' },
              deviceIndex: 0,
              iamInstanceProfile: { id: 'test-x7k2p-worker-profile' },
              instanceType: 'm5a.large',
              placement: { availabilityZone: 'us-east-2a', region: 'us-east-2' },
              securityGroups: [{ filters: [{ name: 'tag:Name', values: ['test-x7k2p-worker-sg'] }] }],
              subnet: { filters: [{ name: 'tag:Name', values: ['test-x7k2p-private-us-east-2a'] }] },
              tags: [{ name: 'kubernetes.io/cluster/test-x7k2p', value: 'owned' }],
              userDataSecret: { name: 'windows-user-data', namespace: 'openshift-machine-api' },
            },
          },
        },
      },
    },
  };
}

test('a Windows MachineSet created with server-side dry run against the real machine.openshift.io schema', async () => {
  expectStatus(
    await api.request('/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-machine-api' } },
    }),
    [201, 409],
    'namespace',
  );
  const path = '/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets';
  const ok = await api.request<Record<string, unknown> & { spec: { replicas: number } }>(path, {
    body: windowsMachineSet('test-x7k2p-windows-us-east-2a'),
    query: { dryRun: 'All', fieldValidation: 'Strict' },
  });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  assert.equal(ok.body.spec.replicas, 1);
  assert.deepEqual(ok.warnings, []);
  // Nothing was stored.
  assert.equal((await api.request(`${path}/test-x7k2p-windows-us-east-2a`)).status, 404);

  // The schema's own answers.
  const wrongType = await api.request<Status>(path, {
    body: windowsMachineSet('test-x7k2p-windows-bad', 'two'),
    query: { dryRun: 'All' },
  });
  assert.equal(wrongType.status, 422);
  assert.match(
    wrongType.body.message ?? '',
    /spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/,
  );
  const unknown = windowsMachineSet('test-x7k2p-windows-typo');
  (unknown.spec as Record<string, unknown>).replica = 2;
  const strict = await api.request<Status>(path, {
    body: unknown,
    query: { dryRun: 'All', fieldValidation: 'Strict' },
  });
  assert.equal(strict.status, 400);
  assert.match(strict.body.message ?? '', /unknown field "spec\.replica"/);
});

// ---- Windows MachineSets from the cluster's Linux ones (kube-windows machineset) -------------------

const CLI = resolve(ROOT, 'dist', 'cli.js');
const MS_PATH = '/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets';
const INFRA_PATH = '/apis/config.openshift.io/v1/infrastructures';

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveP) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolveP({ code, stdout, stderr }));
  });
}

/** Makes the cluster's Infrastructure the one of `platform` (created, or replaced with its status through the subresource). */
async function useInfrastructure(platform: Platform): Promise<void> {
  const want = machineInfrastructure(platform) as SeedObject;
  const live = await api.request<{ metadata: { resourceVersion: string } }>(`${INFRA_PATH}/cluster`);
  if (live.status === 404) {
    await seed(api, [want]);
    return;
  }
  const { status, ...rest } = want;
  const replaced = expectStatus(
    await api.request<Record<string, unknown>>(`${INFRA_PATH}/cluster`, {
      method: 'PUT',
      body: { ...rest, metadata: { name: 'cluster', resourceVersion: live.body.metadata.resourceVersion } },
    }),
    [200],
    'replacing the Infrastructure',
  );
  expectStatus(
    await api.request(`${INFRA_PATH}/cluster/status`, { method: 'PUT', body: { ...replaced, status } }),
    [200],
    'the Infrastructure status',
  );
}

/** The installer's Linux worker MachineSet, as a client may create it (what the server and controllers own left out). */
function linuxSeed(platform: Platform): SeedObject {
  const ms = linuxWorkerMachineSet(platform) as SeedObject;
  delete ms.metadata.managedFields;
  delete ms.metadata.ownerReferences;
  return ms;
}

for (const platform of PLATFORMS) {
  test(`${platform}: machineset create --dry-run against the real API server with the machine.openshift.io CRDs prints WMCO's documented MachineSet, which the server accepts (dryRun=All, strict)`, async () => {
    expectStatus(
      await api.request('/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-machine-api' } },
      }),
      [201, 409],
      'namespace',
    );
    await useInfrastructure(platform);
    const linux = linuxSeed(platform);
    await seed(api, [linux]);
    try {
      const r = await runCli([
        'machineset',
        'create',
        '--context',
        CONTEXT_ADMIN,
        '--kubeconfig',
        api.kubeconfigPath,
        '--image',
        MACHINE_CLUSTER[platform].windowsImage,
        '--from',
        linux.metadata.name,
        '--dry-run',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const printed = parseYaml(r.stdout) as Record<string, unknown> & { metadata: { name: string } };
      assert.deepEqual(printed, wmcoReference(platform));
      // The server's own check of what was printed: strict field validation, nothing unknown, nothing stored.
      const dry = await api.request<Record<string, unknown>>(MS_PATH, {
        body: printed,
        query: { dryRun: 'All', fieldValidation: 'Strict' },
      });
      assert.equal(dry.status, 201, JSON.stringify(dry.body));
      assert.deepEqual(dry.warnings, []);
      assert.equal((await api.request(`${MS_PATH}/${printed.metadata.name}`)).status, 404, 'nothing stored');
    } finally {
      expectStatus(
        await api.request(`${MS_PATH}/${linux.metadata.name}`, { method: 'DELETE' }),
        [200],
        'deleting the Linux MachineSet',
      );
    }
  });
}

test('src/cluster/machinesets.ts against the real server: pages, Linux vs Windows, create with dryRun=All then for real, the scale subresource, Machines by label, events by field selector, delete', async () => {
  expectStatus(
    await api.request('/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-machine-api' } },
    }),
    [201, 409],
    'namespace',
  );
  await useInfrastructure('AWS');
  const linux = [
    linuxSeed('AWS'),
    linuxWorkerMachineSet('AWS', { name: 'test-x7k2p-worker-us-east-2b' }) as SeedObject,
    linuxWorkerMachineSet('AWS', { name: 'test-x7k2p-worker-us-east-2c' }) as SeedObject,
  ];
  for (const l of linux.slice(1)) {
    delete l.metadata.managedFields;
    delete l.metadata.ownerReferences;
  }
  await seed(api, linux);
  const cleanup: string[] = linux.map((l) => `${MS_PATH}/${l.metadata.name}`);
  try {
    // Page by page: limit and continue as the server answers them.
    const paged = await listAll<MachineApiObject>(kube, MS_PATH, {}, undefined, 2);
    assert.deepEqual(paged.map((m) => m.metadata.name).sort(), linux.map((l) => l.metadata.name).sort());
    const infra = await readInfrastructure(kube);
    assert.deepEqual(infra, { platform: 'AWS', infrastructureName: 'test-x7k2p' });

    const built = buildWindowsMachineSet({
      platform: infra?.platform,
      infrastructureName: infra?.infrastructureName,
      from: paged[0] as MachineApiObject,
      image: 'ami-0e2a1f3b5c7d9e0f1',
      name: 'kw-win-aws',
      replicas: 1,
    });
    const dry = await createMachineSet(kube, built.object, { dryRun: true });
    assert.equal(dry.metadata.name, 'kw-win-aws');
    assert.equal(await getMachineSet(kube, 'kw-win-aws'), undefined, 'the dry run stored nothing');
    const created = await createWindowsMachineSet(kube, built);
    cleanup.push(`${MS_PATH}/kw-win-aws`);
    assert.equal(created.metadata.name, 'kw-win-aws');
    const sorted = await machineSetsByKind(kube);
    assert.deepEqual(
      sorted.windows.map((m) => m.metadata.name),
      ['kw-win-aws'],
    );
    assert.deepEqual(
      sorted.linuxWorkers.map((m) => m.metadata.name),
      linux.map((l) => l.metadata.name).sort(),
    );

    // The scale subresource (autoscaling/v1 Scale), by the module and by the CLI.
    const scaled = await scaleMachineSet(kube, 'kw-win-aws', 3);
    assert.equal(scaled.spec?.replicas, 3);
    assert.equal((await getMachineSet(kube, 'kw-win-aws'))?.spec?.replicas, 3);
    assert.equal((await getScale(kube, 'kw-win-aws'))?.spec?.replicas, 3);
    const r = await runCli([
      'machineset',
      'scale',
      'kw-win-aws',
      '--replicas',
      '0',
      '--context',
      CONTEXT_ADMIN,
      '--kubeconfig',
      api.kubeconfigPath,
      '--yes',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /MachineSet kw-win-aws scaled from 3 to 0 replicas\./);
    assert.equal((await getMachineSet(kube, 'kw-win-aws'))?.spec?.replicas, 0);
    await assert.rejects(
      scaleMachineSet(kube, 'kw-win-aws', -1),
      (e: unknown) => e instanceof ApiError && e.status === 422,
    );

    // A Machine of the MachineSet (what the MachineSet controller would make), found by its label; its events by field selector.
    const template = (
      created.spec as { template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> } }
    ).template;
    await seed(api, [
      {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        metadata: { name: 'kw-win-aws-x7k2p', namespace: 'openshift-machine-api', labels: template.metadata.labels },
        spec: template.spec,
      },
    ]);
    const otherNs = 'openshift-machine-api';
    for (const [name, machine, type] of [
      ['kw-win-aws-x7k2p.1', 'kw-win-aws-x7k2p', 'Warning'],
      ['kw-win-aws-other.1', 'kw-win-aws-other', 'Normal'],
    ] as const) {
      expectStatus(
        await api.request(`/api/v1/namespaces/${otherNs}/events`, {
          body: {
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name, namespace: otherNs },
            involvedObject: {
              apiVersion: 'machine.openshift.io/v1beta1',
              kind: 'Machine',
              name: machine,
              namespace: otherNs,
            },
            reason: 'MachineSetupFailure',
            message: `failed to configure instance ${machine}`,
            type,
            count: 1,
            firstTimestamp: '2026-11-20T08:20:00Z',
            lastTimestamp: '2026-11-20T08:20:00Z',
            source: { component: 'windows-machine-config-operator' },
          },
        }),
        [201],
        'event',
      );
    }
    assert.deepEqual(
      (await listMachines(kube, 'kw-win-aws')).map((m) => m.metadata.name),
      ['kw-win-aws-x7k2p'],
    );
    assert.deepEqual(
      (await machineEvents(kube, 'kw-win-aws-x7k2p')).map((e) => [e.reason, e.type]),
      [['MachineSetupFailure', 'Warning']],
    );
    await deleteMachine(kube, 'kw-win-aws-x7k2p');
    assert.equal(await getMachine(kube, 'kw-win-aws-x7k2p'), undefined);
  } finally {
    for (const p of cleanup) await api.request(p, { method: 'DELETE' });
  }
});
