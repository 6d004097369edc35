// `kube-windows check --context` (the live objects of a cluster), `kube-windows snapshot` and
// `check --snapshot` against the API emulator: the JSON contract, SARIF logical locations, -n vs -A,
// exit codes, the requests made (paged lists, one per kind, never one per object), a cluster that
// cannot be reached and a kind the user may not list.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { linuxNode, namespace, pod, windowsNode } from '../support/kube-seed';
import { startProblemsEmulator, writeProblemsKubeconfig } from '../support/problems-seed';
import { runCli as run } from '../support/run-cli';

const WIN_TEMPLATE = (image: string, extra: Record<string, unknown> = {}) => ({
  metadata: { labels: { app: 'iis' } },
  spec: {
    nodeSelector: { 'kubernetes.io/os': 'windows' },
    tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
    containers: [{ name: 'iis', image, ...extra }],
  },
});

function seed(): KubeObject[] {
  const deploy: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'iis', namespace: 'web', uid: 'd-1' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'iis' } },
      template: WIN_TEMPLATE('mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022', {
        securityContext: { privileged: true },
      }),
    },
  };
  const rs: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'iis-7d9c',
      namespace: 'web',
      uid: 'rs-1',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'iis', uid: 'd-1', controller: true }],
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'iis' } },
      template: WIN_TEMPLATE('mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022', {
        securityContext: { privileged: true },
      }),
    },
  };
  // A pod of another rollout, on win-2 with an image of the wrong build, as the kubelet reports it.
  const failing = pod('api-5f6b-x2k9q', 'web', 'win-2', {
    windows: true,
    image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
    phase: 'Pending',
  });
  failing.metadata.ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-5f6b', uid: 'rs-2', controller: true },
  ];
  failing.status = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'api-5f6b',
        ready: false,
        restartCount: 0,
        image: 'mcr.microsoft.com/windows/servercore:ltsc2019',
        state: {
          waiting: {
            reason: 'CreateContainerError',
            message:
              'failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem api-5f6b: The container operating system does not match the host operating system.: unknown',
          },
        },
      },
    ],
  };
  // A Windows pod nobody can schedule: no toleration for the os=Windows taint.
  const pending = pod('report-0', 'web', undefined, { windows: true, phase: 'Pending' });
  (pending.spec as { tolerations?: unknown }).tolerations = undefined;
  pending.metadata.uid = 'p-pending';
  const schedEvent: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'report-0.17f1', namespace: 'web' },
    type: 'Warning',
    reason: 'FailedScheduling',
    message:
      "0/3 nodes are available: 2 node(s) had untolerated taint {os: Windows}, 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    involvedObject: { kind: 'Pod', namespace: 'web', name: 'report-0', uid: 'p-pending' },
    count: 4,
  };
  // A Linux pod failing on a Linux node: not a Windows failure, not explained.
  const linuxFailing = pod('cache-0', 'batch', 'ip-10-0-1-1', { phase: 'Pending' });
  linuxFailing.status = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'cache',
        state: {
          waiting: {
            reason: 'CreateContainerError',
            message: 'The container operating system does not match the host operating system',
          },
        },
      },
    ],
  };
  const job: KubeObject = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'nightly', namespace: 'batch' },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'n', image: 'registry.access.redhat.com/ubi9/ubi-minimal:9.4' }],
        },
      },
    },
  };
  return [
    namespace('web'),
    namespace('batch'),
    namespace('clean'),
    windowsNode('win-1', { build: '10.0.20348' }),
    windowsNode('win-2', { build: '10.0.20348' }),
    linuxNode('ip-10-0-1-1'),
    deploy,
    rs,
    failing,
    pending,
    schedEvent,
    linuxFailing,
    job,
    pod('static-0', 'clean', 'ip-10-0-1-1'),
  ];
}

let emu: Emulator;
let kubeconfig: string;
let dir: string;

before(async () => {
  emu = await startEmulator({ objects: seed(), openshift: false });
  kubeconfig = emu.kubeconfig({ context: 'lab' });
  dir = mkdtempSync(join(tmpdir(), 'kw-live-'));
});
after(async () => {
  await emu.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('check --context -A --format json: the objects with findings, located by field path, and the summary', async () => {
  const from = emu.requests.length;
  const r = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '-A', '--format', 'json']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, '');
  const out = JSON.parse(r.stdout) as {
    objects: {
      apiVersion: string;
      kind: string;
      namespace: string;
      name: string;
      findings: { ruleId: string; severity: string; apiRejects?: boolean; message: string; path: string }[];
    }[];
    summary: Record<string, number>;
    kubernetesVersion: string;
  };
  assert.deepEqual(Object.keys(out), ['kubernetesVersion', 'objects', 'summary']);
  assert.equal(out.kubernetesVersion, '1.31', "the rules decided by the cluster's release (GET /version)");
  assert.deepEqual(Object.keys(out.summary), ['objects', 'errors', 'warnings', 'infos']);
  for (const o of out.objects) {
    assert.deepEqual(Object.keys(o), ['apiVersion', 'kind', 'namespace', 'name', 'findings']);
    for (const f of o.findings) {
      // A rule's error says whether the API server rejects it; failure signatures (WINF…) explain running pods.
      const rejectable = f.severity === 'error' && !f.ruleId.startsWith('WINF');
      assert.deepEqual(
        Object.keys(f),
        rejectable
          ? ['ruleId', 'severity', 'apiRejects', 'message', 'path']
          : ['ruleId', 'severity', 'message', 'path'],
      );
    }
  }
  const names = out.objects.map((o) => `${o.apiVersion} ${o.kind}/${o.namespace}/${o.name}`);
  assert.deepEqual(names, ['apps/v1 Deployment/web/iis', 'v1 Pod/web/api-5f6b-x2k9q', 'v1 Pod/web/report-0']);
  const deploy = out.objects[0];
  const privileged = deploy.findings.find(
    (f) => f.path === 'spec.template.spec.containers[0].securityContext.privileged',
  );
  assert.ok(privileged, JSON.stringify(deploy.findings));
  assert.equal(privileged.severity, 'error');
  // Windows only inferred (no spec.os.name): the API server accepts privileged, and the container never runs.
  assert.deepEqual([privileged.ruleId, privileged.apiRejects], ['WIN041', false]);
  const [mismatch] = out.objects[1].findings;
  assert.deepEqual(
    { ruleId: mismatch.ruleId, path: mismatch.path },
    { ruleId: 'WINF001', path: 'spec.containers[0].image' },
  );
  assert.equal(
    mismatch.message,
    'image mcr.microsoft.com/windows/servercore:ltsc2019 needs Windows Server 2019 (10.0.17763); node win-2 runs 10.0.20348 (2022). Fix: Use mcr.microsoft.com/windows/servercore:ltsc2022 or schedule by the node.kubernetes.io/windows-build label (node.kubernetes.io/windows-build: 10.0.17763).',
  );
  const taint = out.objects[2].findings.find((f) => f.ruleId === 'WINF004');
  assert.ok(taint);
  assert.equal(taint.path, 'spec.tolerations');
  assert.match(
    taint.message,
    /^2 Windows nodes carry the taint os=Windows:NoSchedule and the pod does not tolerate it\. Fix: Add tolerations: \[\{key: os, operator: Exists, effect: NoSchedule\}\]/,
  );
  const errors = out.objects.flatMap((o) => o.findings).filter((f) => f.severity === 'error').length;
  assert.equal(out.summary.errors, errors);
  // Deployment, Job, bare pods static-0 and cache-0 (checked), report-0 (bare, pending Windows), api-… (on a Windows node).
  assert.equal(out.summary.objects, 6);

  // The requests: discovery, then one list per kind (pages of 500), never an object by name.
  const reqs = emu.requests.slice(from).map((q) => `${q.method} ${q.path}`);
  for (const q of reqs)
    assert.match(
      q,
      /^GET \/(version|apis|api\/v1\/(pods|events|nodes|namespaces|persistentvolumeclaims|persistentvolumes)|apis\/(apps\/v1\/(deployments|daemonsets|statefulsets|replicasets)|batch\/v1\/(jobs|cronjobs)|node\.k8s\.io\/v1\/runtimeclasses|storage\.k8s\.io\/v1\/(storageclasses|csinodes|csidrivers)))$/,
    );
  assert.equal(
    new Set(reqs).size,
    reqs.length - reqs.filter((q) => q === 'GET /apis').length + (reqs.includes('GET /apis') ? 1 : 0),
  );
  const events = emu.requests.slice(from).find((q) => q.path === '/api/v1/events');
  assert.ok(
    events && /fieldSelector=type%3DWarning/.test(events.query) && /limit=500/.test(events.query),
    events?.query,
  );
  const nodes = emu.requests.slice(from).find((q) => q.path === '/api/v1/nodes');
  assert.ok(nodes && /labelSelector=kubernetes.io%2Fos%3Dwindows/.test(nodes.query), nodes?.query);
});

test('-n reads one namespace (namespaced lists); a clean namespace exits 0; -n and -A together is a usage error', async () => {
  const from = emu.requests.length;
  const web = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '-n', 'batch', '--format', 'json']);
  assert.equal(web.code, 0, web.stderr + web.stdout);
  assert.deepEqual(JSON.parse(web.stdout), {
    kubernetesVersion: '1.31',
    objects: [],
    summary: { objects: 2, errors: 0, warnings: 0, infos: 0 },
  });
  const paths = emu.requests.slice(from).map((q) => q.path);
  assert.ok(
    paths.includes('/apis/apps/v1/namespaces/batch/deployments') &&
      paths.includes('/api/v1/namespaces/batch/pods') &&
      paths.includes('/api/v1/namespaces/batch/events'),
    paths.join('\n'),
  );
  assert.ok(!paths.includes('/api/v1/pods'));

  const clean = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '--namespace', 'clean']);
  assert.equal(clean.code, 0);
  assert.match(clean.stdout, /✔ no findings in 1 object of context lab/);

  const both = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '-n', 'web', '-A']);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /-n\/--namespace and -A\/--all-namespaces cannot be used together/);
  const noContext = await run(['check', '-A']);
  assert.equal(noContext.code, 2);
  assert.match(noContext.stderr, /needs --context/);
});

test('text output names objects and field paths; SARIF uses logical locations', async () => {
  const text = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '-n', 'web']);
  assert.equal(text.code, 1);
  assert.match(
    text.stdout,
    /^Deployment\/web\/iis\n {2}spec\.template\.spec\.containers\[0\]\.securityContext\.privileged error WIN\d+ /m,
  );
  assert.match(text.stdout, /^Pod\/web\/api-5f6b-x2k9q\n {2}spec\.containers\[0\]\.image error WINF001 image mcr/m);
  // --fail-on judges the live findings as it judges files' (errors here).
  const never = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '-n', 'web', '--fail-on', 'never']);
  assert.equal(never.stdout, text.stdout);
  assert.equal(never.code, 0);
  assert.equal(
    (await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '-n', 'web', '--fail-on', 'error'])).code,
    1,
  );

  const sarif = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '-n', 'web', '--format', 'sarif']);
  assert.equal(sarif.code, 1);
  const doc = JSON.parse(sarif.stdout) as {
    runs: {
      tool: { driver: { rules: { id: string }[] } };
      results: {
        ruleId: string;
        ruleIndex: number;
        locations: {
          logicalLocations: { name: string; fullyQualifiedName: string; kind: string }[];
          physicalLocation?: unknown;
        }[];
      }[];
    }[];
  };
  const run0 = doc.runs[0];
  const winf = run0.results.find((x) => x.ruleId === 'WINF001');
  assert.ok(winf);
  assert.equal(run0.tool.driver.rules[winf.ruleIndex].id, 'WINF001');
  assert.deepEqual(winf.locations[0].logicalLocations, [
    { name: 'api-5f6b-x2k9q', fullyQualifiedName: 'Pod/web/api-5f6b-x2k9q', kind: 'resource' },
    {
      name: 'spec.containers[0].image',
      fullyQualifiedName: 'Pod/web/api-5f6b-x2k9q/spec.containers[0].image',
      kind: 'property',
    },
  ]);
  assert.equal(winf.locations[0].physicalLocation, undefined);
});

test('--enable/--disable and --min-severity apply to failure signatures too', async () => {
  const r = await run([
    'check',
    '--context',
    'lab',
    '--kubeconfig',
    kubeconfig,
    '-n',
    'web',
    '--format',
    'json',
    '--enable',
    'WINF001',
  ]);
  const out = JSON.parse(r.stdout) as { objects: { name: string; findings: { ruleId: string }[] }[] };
  assert.deepEqual(
    out.objects.map((o) => [o.name, o.findings.map((f) => f.ruleId)]),
    [['api-5f6b-x2k9q', ['WINF001']]],
  );
  const bad = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '--disable', 'WINF999']);
  assert.equal(bad.code, 2);
});

test('an unreachable cluster: one clear line, exit 2, no stack', async () => {
  const cfg = join(dir, 'dead.kubeconfig');
  writeFileSync(
    cfg,
    `apiVersion: v1
kind: Config
clusters: [{name: dead, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: abc}}]
contexts: [{name: dead, context: {cluster: dead, user: u}}]
current-context: dead
`,
  );
  const r = await run(['check', '--context', 'dead', '--kubeconfig', cfg, '-A']);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^kube-windows: .*(reach|connect|refused)/i);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const missing = await run(['check', '--context', 'nope', '--kubeconfig', cfg]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no context "nope"/);
});

test('snapshot --context writes the facts; check --snapshot checks files offline against them', async () => {
  const snap = await run(['snapshot', '--context', 'lab', '--kubeconfig', kubeconfig]);
  assert.equal(snap.code, 0, snap.stderr);
  const facts = JSON.parse(snap.stdout) as {
    name: string;
    flavour: string;
    windowsNodes: { name: string; build: string }[];
  };
  assert.equal(facts.name, 'lab');
  assert.equal(facts.flavour, 'kubernetes');
  assert.deepEqual(
    facts.windowsNodes.map((n) => `${n.name} ${n.build}`),
    ['win-1 10.0.20348', 'win-2 10.0.20348'],
  );
  const factsFile = join(dir, 'facts.json');
  writeFileSync(factsFile, snap.stdout);
  const manifest = join(dir, 'app.yaml');
  writeFileSync(
    manifest,
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: legacy, namespace: web}
spec:
  selector: {matchLabels: {app: legacy}}
  template:
    metadata: {labels: {app: legacy}}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, value: Windows, effect: NoSchedule}]
      containers:
        - name: app
          image: mcr.microsoft.com/windows/servercore:ltsc2019
`,
  );
  const requests = emu.requests.length;
  const offline = await run(['check', '--snapshot', factsFile, '--format', 'json', manifest]);
  assert.equal(emu.requests.length, requests, 'no request with --snapshot');
  assert.equal(offline.code, 1, offline.stderr);
  const report = JSON.parse(offline.stdout) as { files: { findings: { ruleId: string; message: string }[] }[] };
  const withFacts = report.files[0].findings.find((f) => /10\.0\.20348/.test(f.message));
  assert.ok(withFacts, JSON.stringify(report.files[0].findings));
  // With --context and paths, the files are checked against the live cluster's facts.
  const live = await run(['check', '--context', 'lab', '--kubeconfig', kubeconfig, '--format', 'json', manifest]);
  assert.equal(live.code, 1, live.stderr);
  assert.deepEqual(
    (JSON.parse(live.stdout) as typeof report).files[0].findings.map((f) => f.message),
    report.files[0].findings.map((f) => f.message),
  );
  // Without the facts, nothing says which build the cluster runs.
  const plain = await run(['check', '--format', 'json', manifest]);
  assert.ok(!(JSON.parse(plain.stdout) as typeof report).files[0].findings.some((f) => /10\.0\.20348/.test(f.message)));

  for (const [content, words] of [
    ['not json', /is not JSON/],
    [
      '{"name": "x", "windowsNodes": [{"name": "a"}], "runtimeClasses": []}',
      /windowsNodes\[0\] must be an object with name and build strings/,
    ],
    ['[]', /must be a JSON object/],
  ] as const) {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, content);
    const r = await run(['check', '--snapshot', bad, manifest]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, words);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
  const both = await run(['check', '--snapshot', factsFile, '--context', 'lab', '--kubeconfig', kubeconfig, manifest]);
  assert.equal(both.code, 2);
});

test('a kind the user may not list: one warning line naming it, the rest checked; JSON lists it under unread', async () => {
  const restricted = await startProblemsEmulator();
  const home = mkdtempSync(join(tmpdir(), 'kw-live-403-'));
  try {
    const config = writeProblemsKubeconfig(restricted, home);
    const r = await run(['check', '--context', 'restricted', '--kubeconfig', config, '-A', '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /^kube-windows: DaemonSets not read: You are not allowed to list daemonsets.*\(403 Forbidden\)\. Ask a cluster administrator for this permission\.\n$/,
    );
    const out = JSON.parse(r.stdout) as {
      objects: { kind: string; name: string }[];
      unread?: { what: string; message: string }[];
    };
    assert.deepEqual(
      out.objects.map((o) => `${o.kind}/${o.name}`),
      ['Deployment/iis', 'Pod/api-0'],
    );
    assert.deepEqual(
      out.unread?.map((u) => u.what),
      ['DaemonSets'],
    );
    // The admin reads everything: no unread key.
    const admin = await run(['check', '--context', 'lab', '--kubeconfig', config, '-A', '--format', 'json']);
    const all = JSON.parse(admin.stdout) as typeof out;
    assert.equal(all.unread, undefined);
    assert.ok(all.objects.some((o) => o.kind === 'DaemonSet'));
  } finally {
    await restricted.stop();
    rmSync(home, { recursive: true, force: true });
  }
});
