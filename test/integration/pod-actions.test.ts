// The pod and node actions of the Clusters view (src/extension/pod-commands.ts, node-actions.ts)
// against the fake vscode module and the API emulator, through the real engine: the kubeconfig is the
// kubeWindows.kubeconfig setting, as in VS Code. Logs (editor, previous instance, follow into an output
// channel, the API's refusals), Shell over pods/exec, Describe with the failure explanation on top,
// Delete, rollout Restart (bare pods and Jobs refused), Cordon/Uncordon, Drain (emptyDir consent, a
// PodDisruptionBudget's 429), Edit taints, Events, Node logs through the node proxy to a kubelet double
// (a refusal offers the SSH collection).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { startEmulator, type Emulator, type KubeObject } from '../support/kube-api-emulator';
import { namespace, pod, windowsNode } from '../support/kube-seed';
import { startKubeletDouble, type KubeletDouble } from '../support/kubelet-double';
import { createFakeVscode, hookVscodeModule, type FakeVscode } from '../support/fake-vscode';

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
test.after(() => unhook());

const NS = 'web';
const NODE = 'win-a';
const NOW = new Date('2026-11-25T09:30:00Z');
const BUILD_MISMATCH =
  'hcs::CreateComputeSystem web: The container operating system does not match the host operating system.: unknown';

const owned = (p: KubeObject, kind: string, name: string): KubeObject => {
  (p.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: kind === 'Job' ? 'batch/v1' : 'apps/v1', kind, name, uid: `uid-${name}`, controller: true },
  ];
  return p;
};

function running(p: KubeObject, opts: { restarted?: boolean } = {}): KubeObject {
  const spec = p.spec as { containers: { name: string; image: string }[] };
  (p.status as Record<string, unknown>).containerStatuses = spec.containers.map((c) => ({
    name: c.name,
    image: c.image,
    ready: true,
    restartCount: opts.restarted ? 1 : 0,
    state: { running: { startedAt: '2026-11-25T09:00:00Z' } },
    ...(opts.restarted
      ? { lastState: { terminated: { reason: 'Error', exitCode: 1, finishedAt: '2026-11-25T08:59:00Z' } } }
      : {}),
  }));
  return p;
}

function broken(): KubeObject {
  const p = owned(
    pod('broken-5c7d8-xk2p9', NS, NODE, { windows: true, phase: 'Pending', image: 'contoso/web:ltsc2019' }),
    'ReplicaSet',
    'broken-5c7d8',
  );
  (p.status as Record<string, unknown>).containerStatuses = [
    {
      name: 'broken-5c7d8',
      image: 'contoso/web:ltsc2019',
      ready: false,
      restartCount: 3,
      state: { waiting: { reason: 'CreateContainerError', message: BUILD_MISMATCH } },
    },
  ];
  return p;
}

function event(name: string, involved: Record<string, string>, reason: string, message: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: involved.namespace ?? 'default' },
    involvedObject: involved,
    reason,
    message,
    type: 'Warning',
    count: 3,
    source: { component: 'kubelet', host: NODE },
    firstTimestamp: '2026-11-25T09:20:00Z',
    lastTimestamp: '2026-11-25T09:25:00Z',
  };
}

const deployment = (name: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS, uid: `uid-${name}` },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name, image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' }] },
    },
  },
});
const replicaSet = (name: string, deploymentName?: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    name,
    namespace: NS,
    uid: `uid-${name}`,
    ...(deploymentName
      ? {
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: deploymentName,
              uid: `uid-${deploymentName}`,
              controller: true,
            },
          ],
        }
      : {}),
  },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: 'x' }] } },
  },
});

function objects(kubelet: KubeletDouble): KubeObject[] {
  const node = windowsNode(NODE, { build: '10.0.20348' });
  Object.assign(node.status as object, kubelet.nodeStatus());
  const web = running(
    owned(
      pod('web-7d9f8-abcde', NS, NODE, {
        windows: true,
        image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
      }),
      'ReplicaSet',
      'web-7d9f8',
    ),
    {
      restarted: true,
    },
  );
  const scratch = running(
    owned(pod('scratch-1', NS, NODE, { windows: true, labels: { app: 'scratch' } }), 'ReplicaSet', 'scratch-rs'),
  );
  (scratch.spec as Record<string, unknown>).volumes = [{ name: 'cache', emptyDir: {} }];
  const b = broken();
  return [
    namespace(NS),
    node,
    deployment('web'),
    replicaSet('web-7d9f8', 'web'),
    replicaSet('broken-5c7d8', 'broken'),
    deployment('broken'),
    replicaSet('scratch-rs'),
    web,
    running(pod('nano-1', NS, NODE, { windows: true, image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' })),
    running(owned(pod('batch-x7k2q', NS, NODE, { windows: true }), 'Job', 'batch')),
    scratch,
    b,
    event(
      'broken.1',
      {
        kind: 'Pod',
        name: 'broken-5c7d8-xk2p9',
        namespace: NS,
        uid: String(b.metadata.uid),
        fieldPath: 'spec.containers{broken-5c7d8}',
      },
      'Failed',
      `Error: ${BUILD_MISMATCH}`,
    ),
    event(
      'other.1',
      { kind: 'Pod', name: 'web-7d9f8-abcde', namespace: NS, uid: 'uid-other' },
      'BackOff',
      'unrelated to broken',
    ),
    event('win-a.1', { kind: 'Node', name: NODE, uid: NODE }, 'NodeNotReady', 'Node win-a status is now: NodeNotReady'),
  ];
}

interface H {
  emu: Emulator;
  kubelet: KubeletDouble;
  run(command: string, arg?: unknown): Promise<void>;
  stop(): Promise<void>;
}

async function harness(
  o: { token?: string; seed?: (emu: Emulator) => void; evictionRetryMs?: number } = {},
): Promise<H> {
  const kubelet = await startKubeletDouble({
    services: { kubelet: { native: 'I1125 09:00:00 kubelet started\nI1125 09:00:01 node registered\n' } },
  });
  const emu = await startEmulator({
    objects: objects(kubelet),
    tokens: {
      limited: {
        user: 'dev',
        deny: [
          { verb: 'get', resource: 'pods/log' },
          { verb: 'patch', resource: 'deployments' },
          { verb: 'create', resource: 'pods/exec' },
          { verb: 'get', resource: 'nodes/proxy' },
        ],
      },
    },
  });
  emu.setPodLog(NS, 'web-7d9f8-abcde', 'web-7d9f8', 'GET / 200\nGET /health 200\n');
  emu.setPodLog(NS, 'web-7d9f8-abcde', 'web-7d9f8', 'panic: the last instance crashed\n', true);
  o.seed?.(emu);
  fake = createFakeVscode({
    'kubeWindows.kubeconfig': emu.kubeconfig({ context: 'emu', ...(o.token ? { token: o.token } : {}) }),
  });
  const { registerPodCommands } = await import('../../src/extension/pod-commands');
  const { registerNodeActions } = await import('../../src/extension/node-actions');
  const { ReadOnlyDocs } = await import('../../src/extension/read-only-docs');
  const subscriptions: { dispose(): unknown }[] = [];
  const context = { subscriptions } as unknown as vscode.ExtensionContext;
  const log = (fake.module.window as unknown as typeof vscode.window).createOutputChannel('kube-windows', {
    log: true,
  }) as vscode.LogOutputChannel;
  const docs = ReadOnlyDocs.register(context);
  registerPodCommands(context, log, docs, { now: () => NOW });
  registerNodeActions(context, log, docs, {
    now: () => NOW,
    drainTiming: { evictionRetryMs: o.evictionRetryMs ?? 300, pollMs: 50, drainTimeoutMs: 5000 },
  });
  return {
    emu,
    kubelet,
    run: async (command, arg) => void (await fake.commands.get(command)?.(arg)),
    stop: async () => {
      for (const s of subscriptions) s.dispose();
      await emu.stop();
      await kubelet.stop();
    },
  };
}

const podItem = (name: string) => ({
  id: `ctx/emu/node/${NODE}/pods/${NS}/${name}`,
  contextValue: 'pod',
  label: name,
  ref: { kind: 'pod', context: 'emu', node: NODE, namespace: NS, name },
});
const nodeItem = (cordoned = false) => ({
  id: `ctx/emu/node/${NODE}`,
  contextValue: cordoned ? 'windowsNode.cordoned' : 'windowsNode',
  label: NODE,
  ref: { kind: 'node', context: 'emu', node: NODE },
});
const lastDoc = () => fake.documents[fake.documents.length - 1];
const errors = () => fake.shown.filter((s) => s.kind === 'error').map((s) => s.message);
const noStack = () => assert.ok(!fake.shown.some((s) => /\n\s+at /.test(s.message)), 'no stack trace in a message');
const waitFor = async (what: string, ok: () => boolean, ms = 3000): Promise<void> => {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

test('Logs: into an editor (pods/log with container and tailLines), the previous instance, and the API’s words when there is none or the container never started', async () => {
  const h = await harness();
  try {
    fake.replies.push('Show the log');
    await h.run('kubeWindows.podLogs', podItem('web-7d9f8-abcde'));
    assert.deepEqual(errors(), []);
    assert.equal(lastDoc()?.getText(), 'GET / 200\nGET /health 200\n');
    assert.equal(lastDoc()?.uri?.scheme, 'kube-windows-text');
    const read = h.emu.requests.find((r) => r.path === `/api/v1/namespaces/${NS}/pods/web-7d9f8-abcde/log`);
    assert.equal(read?.query, 'container=web-7d9f8&tailLines=10000');

    fake.replies.push('Previous instance');
    await h.run('kubeWindows.podLogs', podItem('web-7d9f8-abcde'));
    assert.equal(lastDoc()?.getText(), 'panic: the last instance crashed\n');

    const docs = fake.documents.length;
    fake.replies.push('Previous instance');
    await h.run('kubeWindows.podLogs', podItem('nano-1'));
    assert.equal(fake.documents.length, docs, 'no document for a refused read');
    assert.deepEqual(errors(), ['kube-windows: previous terminated container "nano-1" in pod "nano-1" not found']);

    fake.replies.push('Show the log');
    await h.run('kubeWindows.podLogs', podItem('broken-5c7d8-xk2p9'));
    assert.equal(
      errors()[1],
      'kube-windows: container "broken-5c7d8" in pod "broken-5c7d8-xk2p9" is waiting to start: CreateContainerError',
    );
    noStack();
  } finally {
    await h.stop();
  }
});

test('Logs: follow goes to an output channel that keeps following until stopped; picking it again restarts it', async () => {
  const h = await harness();
  try {
    fake.replies.push('Follow');
    const following = h.run('kubeWindows.podLogs', podItem('web-7d9f8-abcde'));
    const channel = () => fake.logs.find((l) => l.name === `kube-windows: logs ${NS}/web-7d9f8-abcde (web-7d9f8)`);
    const text = () => (channel()?.lines ?? []).map((l) => l.text).join('');
    await waitFor('the first lines', () => text().includes('GET /health 200'));
    h.emu.appendPodLog(NS, 'web-7d9f8-abcde', 'web-7d9f8', 'GET /later 500\n');
    await waitFor('a line written after the follow began', () => text().includes('GET /later 500'));
    const req = h.emu.requests.find((r) => r.path.endsWith('/web-7d9f8-abcde/log'));
    assert.equal(req?.query, 'container=web-7d9f8&follow=true&tailLines=200');
    assert.ok(
      fake.executed.some((e) => e[0] === 'setContext' && e[1] === 'kubeWindows.followingLogs' && e[2] === true),
    );
    // The same log picked again: the first follow stops, the new one starts over with the tail.
    fake.replies.push('Follow');
    const again = h.run('kubeWindows.podLogs', podItem('web-7d9f8-abcde'));
    await following;
    await waitFor(
      'the second follow',
      () =>
        h.emu.requests.filter((r) => r.path.endsWith('/web-7d9f8-abcde/log')).length === 2 &&
        text().includes('GET /later 500'),
    );
    h.emu.appendPodLog(NS, 'web-7d9f8-abcde', 'web-7d9f8', 'GET /again 200\n');
    await waitFor('a line of the second follow', () => text().includes('GET /again 200'));
    assert.equal(text().split('GET /again 200').length, 2, 'one follow writes each line, not two');
    await h.run('kubeWindows.stopFollowingLogs');
    await again;
    assert.match(text(), /stopped following\.\n?$/);
    assert.deepEqual(fake.executed.filter((e) => e[0] === 'setContext').at(-1), [
      'setContext',
      'kubeWindows.followingLogs',
      false,
    ]);
    assert.deepEqual(errors(), []);
  } finally {
    await h.stop();
  }
});

test('Logs, Restart, Node logs and Shell without the permission: the 403 says which RBAC rule is missing', async () => {
  const h = await harness({ token: 'limited' });
  try {
    fake.replies.push('Show the log');
    await h.run('kubeWindows.podLogs', podItem('web-7d9f8-abcde'));
    assert.match(
      errors()[0] ?? '',
      /may not read the logs of pods in namespace "web" \(403 Forbidden\).*`get` on `pods\/log`/,
    );
    fake.answers.push('Restart');
    await h.run('kubeWindows.restartWorkload', podItem('web-7d9f8-abcde'));
    assert.match(errors()[1] ?? '', /not allowed to .*deployments.* \(403 Forbidden\)/);
    fake.replies.push('kubelet');
    await h.run('kubeWindows.nodeLogs', nodeItem());
    assert.match(
      errors()[2] ?? '',
      /You may not read the log query for kubelet of win-a through the API \(403: .*RBAC `get` on the `nodes\/proxy` resource/,
    );
    assert.deepEqual(fake.shown.at(-1)?.items, ['Collect logs over SSH'], 'SSH is offered instead');
    fake.replies.push('cmd.exe');
    await h.run('kubeWindows.podShell', podItem('nano-1'));
    await waitFor('the refusal in the terminal', () => /pods\/exec/.test(fake.terminals[0]?.output ?? ''));
    assert.match(fake.terminals[0]?.output ?? '', /You may not exec into pods in namespace "web" \(403 Forbidden\)/);
    noStack();
  } finally {
    await h.stop();
  }
});

test('Describe: the failure explanation on top, then status, containers and only the pod’s own events (asked by field selector)', async () => {
  const h = await harness();
  try {
    await h.run('kubeWindows.describePod', podItem('broken-5c7d8-xk2p9'));
    assert.deepEqual(errors(), []);
    const text = lastDoc()?.getText() ?? '';
    const [top] = text.split('== Status');
    assert.match(top ?? '', /WINF001/);
    assert.match(top ?? '', /Fix: /);
    assert.match(text, /Controlled by: +ReplicaSet\/broken-5c7d8/);
    assert.match(text, /State: +Waiting \(CreateContainerError\)/);
    assert.match(text, /Restart count: +3/);
    assert.match(text, /== Events\n {2}Warning +Failed +5m \(x3\) +kubelet \[spec\.containers\{broken-5c7d8\}\]/);
    assert.doesNotMatch(text, /unrelated/);
    const q = h.emu.requests.find((r) => r.path === `/api/v1/namespaces/${NS}/events`)?.query ?? '';
    assert.match(
      decodeURIComponent(q),
      /fieldSelector=involvedObject\.kind=Pod,involvedObject\.name=broken-5c7d8-xk2p9,involvedObject\.namespace=web,involvedObject\.uid=/,
    );
  } finally {
    await h.stop();
  }
});

test('Delete asks first (modal, naming the controller); Restart patches the Deployment’s template and refuses bare pods and Jobs', async () => {
  const h = await harness();
  try {
    fake.answers.push(undefined);
    await h.run('kubeWindows.deletePod', podItem('web-7d9f8-abcde'));
    assert.equal(fake.shown[0]?.options?.modal, true);
    assert.match(fake.shown[0]?.options?.detail ?? '', /ReplicaSet web-7d9f8 controls it/);
    assert.ok(h.emu.get('Pod', 'web-7d9f8-abcde', NS), 'declined: still there');
    fake.answers.push('Delete');
    await h.run('kubeWindows.deletePod', podItem('web-7d9f8-abcde'));
    assert.equal(h.emu.get('Pod', 'web-7d9f8-abcde', NS), undefined);

    fake.answers.push('Restart');
    await h.run('kubeWindows.restartWorkload', podItem('broken-5c7d8-xk2p9'));
    const d = h.emu.get('Deployment', 'broken', NS) as unknown as {
      spec: { template: { metadata: { annotations?: Record<string, string> } } };
    };
    assert.equal(d.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], '2026-11-25T09:30:00Z');
    assert.match(fake.shown.at(-2)?.message ?? '', /Restart Deployment web\/broken\?/);

    await h.run('kubeWindows.restartWorkload', podItem('nano-1'));
    assert.match(fake.shown.at(-1)?.message ?? '', /nano-1 is a bare pod .*no workload to restart/);
    await h.run('kubeWindows.restartWorkload', podItem('batch-x7k2q'));
    assert.match(fake.shown.at(-1)?.message ?? '', /belongs to Job batch: a Job cannot be rollout-restarted/);
    await h.run('kubeWindows.restartWorkload', podItem('scratch-1'));
    assert.match(fake.shown.at(-1)?.message ?? '', /ReplicaSet scratch-rs is not managed by a Deployment/);
    assert.deepEqual(errors(), []);
  } finally {
    await h.stop();
  }
});

test('Shell: the automatic choice (cmd.exe in Nano Server) in a terminal over pods/exec; the exit code is shown', async () => {
  const h = await harness();
  try {
    fake.replies.push('cmd.exe');
    await h.run('kubeWindows.podShell', podItem('nano-1'));
    const t = fake.terminals[0];
    assert.ok(t?.pty);
    await waitFor('the prompt', () => /C:\\>/.test(t.output));
    assert.match(t.output, /cmd\.exe in web\/nano-1 container nano-1/);
    assert.deepEqual(h.emu.execs[0]?.command, ['cmd.exe']);
    assert.equal(h.emu.execs[0]?.tty, true);
    t.pty.handleInput?.('exit 3\r');
    await waitFor('the exit', () => fake.shown.some((s) => /exited with code 3/.test(s.message)));
    assert.match(fake.shown.at(-1)?.message ?? '', /cmd\.exe in web\/nano-1 exited with code 3/);

    fake.replies.push('powershell');
    await h.run('kubeWindows.podShell', podItem('nano-1'));
    await waitFor('the second exec', () => h.emu.execs.length === 2);
    assert.deepEqual(h.emu.execs[1]?.command, ['powershell.exe', '-NoLogo'], 'the user’s choice wins');
  } finally {
    await h.stop();
  }
});

test('Cordon and Uncordon patch spec.unschedulable; Drain names the emptyDir data first and nothing changes without consent', async () => {
  const h = await harness();
  try {
    await h.run('kubeWindows.cordonNode', nodeItem());
    assert.equal((h.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable, true);
    await h.run('kubeWindows.uncordonNode', nodeItem(true));
    assert.ok(!(h.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable);
    assert.deepEqual(errors(), []);

    fake.answers.push(undefined);
    await h.run('kubeWindows.drainNode', nodeItem());
    const q = fake.shown.at(-1);
    assert.match(q?.message ?? '', /1 pod on win-a uses emptyDir volumes/);
    assert.match(q?.options?.detail ?? '', /web\/scratch-1/);
    assert.ok(!(h.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable, 'declined: not cordoned');
    assert.ok(h.emu.get('Pod', 'scratch-1', NS));

    fake.answers.push('Delete the emptyDir data and drain');
    await h.run('kubeWindows.drainNode', nodeItem());
    assert.deepEqual(errors(), []);
    assert.equal((h.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable, true);
    assert.equal(h.emu.get('Pod', 'scratch-1', NS), undefined);
    assert.ok(
      h.emu.requests.some(
        (r) => r.method === 'POST' && r.path === `/api/v1/namespaces/${NS}/pods/web-7d9f8-abcde/eviction`,
      ),
    );
    assert.match(fake.shown.at(-1)?.message ?? '', /win-a is drained and stays cordoned\.$/);
  } finally {
    await h.stop();
  }
});

const budget = (emu: Emulator): void => {
  emu.remove('Pod', 'scratch-1', NS);
  emu.apply({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web-pdb', namespace: NS },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'web-7d9f8' } } },
    status: { disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 1, expectedPods: 1, observedGeneration: 1 },
  });
};

test('Drain cancelled from its notification while a budget refuses: it stops, says so, and the node stays cordoned', async () => {
  const h = await harness({ seed: budget, evictionRetryMs: 60_000 });
  try {
    fake.answers.push('Drain');
    const draining = h.run('kubeWindows.drainNode', nodeItem());
    await waitFor('a refused eviction', () =>
      h.emu.requests.some((r) => r.path.endsWith('/web-7d9f8-abcde/eviction') && r.status === 429),
    );
    const run = fake.progressRuns.find((r) => r.title === 'kube-windows: drain win-a');
    assert.equal(run?.options.cancellable, true);
    const t0 = Date.now();
    run?.cancel();
    await draining;
    assert.ok(Date.now() - t0 < 5000, 'the cancel ends the 60 s budget wait at once');
    const cancelled = fake.shown.find((s) => /The drain of win-a was cancelled at step/.test(s.message));
    assert.equal(cancelled?.kind, 'warning', 'a cancel is not an error, but it left the node cordoned');
    assert.match(cancelled?.message ?? '', /The node win-a stays cordoned/);
    assert.deepEqual(cancelled?.items, ['Uncordon', 'Show log'], 'the undo is offered');
    assert.deepEqual(errors(), []);
    assert.equal((h.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable, true);
  } finally {
    await h.stop();
  }
});

test('Drain blocked by a PodDisruptionBudget (429): the budget is named and the node stays cordoned', async () => {
  const h = await harness({ seed: budget });
  try {
    fake.answers.push('Drain');
    await h.run('kubeWindows.drainNode', nodeItem());
    assert.match(
      fake.shown[0]?.options?.detail ?? '',
      /Evicted \(PodDisruptionBudgets honoured\):[\s\S]*web\/web-7d9f8-abcde/,
    );
    assert.ok(h.emu.requests.some((r) => r.path.endsWith('/web-7d9f8-abcde/eviction') && r.status === 429));
    assert.match(errors()[0] ?? '', /blocked by PodDisruptionBudget web\/web-pdb .*stays cordoned/);
    assert.equal((h.emu.get('Node', NODE)?.spec as { unschedulable?: boolean }).unschedulable, true);
    assert.ok(h.emu.get('Pod', 'web-7d9f8-abcde', NS), 'the protected pod stays');
    noStack();
  } finally {
    await h.stop();
  }
});

test('Edit taints: the text is validated as the API server would (unique key and effect), the change confirmed, then patched', async () => {
  const h = await harness();
  try {
    fake.replies.push(
      'a=b:NoSchedule, a=c:NoSchedule',
      'dedicated=gpu:Sometimes',
      'os=Windows:NoSchedule, dedicated=gpu:NoExecute',
    );
    fake.answers.push('Set taints');
    await h.run('kubeWindows.editTaints', nodeItem());
    const q = fake.questions.find((x) => x.kind === 'input');
    assert.deepEqual(q?.rejected, [
      'a:NoSchedule appears twice: a node has one taint per key and effect',
      '"Sometimes" is not a taint effect: use NoSchedule, PreferNoSchedule, NoExecute',
    ]);
    assert.match(fake.shown[0]?.options?.detail ?? '', /Added: dedicated=gpu:NoExecute[\s\S]*NoExecute evicts/);
    const taints = (h.emu.get('Node', NODE)?.spec as { taints?: { key: string; value?: string; effect: string }[] })
      .taints;
    assert.deepEqual(
      taints?.map((t) => `${t.key}=${t.value}:${t.effect}`),
      ['os=Windows:NoSchedule', 'dedicated=gpu:NoExecute'],
    );
    assert.deepEqual(errors(), []);
  } finally {
    await h.stop();
  }
});

test('Events of a node (field selector on involvedObject, namespace default); Node logs through the node proxy, a refusal offers the SSH collection', async () => {
  const h = await harness();
  try {
    await h.run('kubeWindows.nodeEvents', nodeItem());
    assert.match(
      lastDoc()?.getText() ?? '',
      /Warning +NodeNotReady +5m \(x3\) +kubelet: Node win-a status is now: NodeNotReady/,
    );
    assert.match(
      decodeURIComponent(h.emu.requests.find((r) => r.path === '/api/v1/namespaces/default/events')?.query ?? ''),
      /fieldSelector=involvedObject\.kind=Node,involvedObject\.name=win-a/,
    );

    fake.replies.push('kubelet');
    await h.run('kubeWindows.nodeLogs', nodeItem());
    assert.deepEqual(errors(), []);
    assert.match(lastDoc()?.getText() ?? '', /kubelet started\nI1125 09:00:01 node registered/);
    assert.ok(
      h.emu.requests.some((r) => r.path === `/api/v1/nodes/${NODE}/proxy/logs/` && /query=kubelet/.test(r.query)),
    );

    // A file picked in the node's log folder, folder by folder.
    h.kubelet.set({ files: { 'kubelet/kubelet.log': 'I1125 kubelet.log line\n', 'containerd/containerd.log': 'x\n' } });
    fake.replies.push('Browse the log folder…', 'kubelet/', 'kubelet.log');
    await h.run('kubeWindows.nodeLogs', nodeItem());
    assert.deepEqual(
      fake.questions.slice(-2).map((q) => q.items),
      [['containerd/', 'kubelet/'], ['kubelet.log']],
    );
    assert.equal(lastDoc()?.getText(), 'I1125 kubelet.log line\n');
    assert.ok(h.kubelet.requests.some((r) => r.path === '/logs/kubelet/kubelet.log'));

    h.kubelet.set({ enableSystemLogHandler: false });
    fake.replies.push('kubelet');
    fake.answers.push('Collect logs over SSH');
    await h.run('kubeWindows.nodeLogs', nodeItem());
    const refusal = fake.shown.at(-1);
    assert.match(refusal?.message ?? '', /does not serve its logs \(logs endpoint is disabled\.\)/);
    assert.deepEqual(refusal?.items, ['Collect logs over SSH']);
    assert.deepEqual(fake.executed.at(-1)?.[0], 'kubeWindows.collectLogs');
    noStack();
  } finally {
    await h.stop();
  }
});
