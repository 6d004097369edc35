// `kube-windows pods logs|describe|restart|delete` and `nodes events|taints` (the explorer's pod and
// node actions from a terminal) against the API emulator: what is asked, what is printed, the
// refusals (a previous instance that does not exist, a bare pod's restart, invalid taints) and the
// exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator, type KubeObject } from '../support/kube-api-emulator';
import { namespace, pod, windowsNode } from '../support/kube-seed';
import { runCli } from '../support/run-cli';

const NS = 'web';
const BUILD_MISMATCH =
  'hcs::CreateComputeSystem api: The container operating system does not match the host operating system.: unknown';

function objects(): KubeObject[] {
  const web = pod('web-7d9f8-abcde', NS, 'win-a', { windows: true });
  (web.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8', uid: 'u-rs', controller: true },
  ];
  (web.status as Record<string, unknown>).containerStatuses = [
    { name: 'web-7d9f8', ready: true, restartCount: 0, state: { running: { startedAt: '2026-11-25T09:00:00Z' } } },
  ];
  const api = pod('api-1', NS, 'win-a', { windows: true, image: 'contoso/api:ltsc2019' });
  (api.status as Record<string, unknown>).containerStatuses = [
    {
      name: 'api',
      ready: false,
      restartCount: 2,
      state: { waiting: { reason: 'CreateContainerError', message: BUILD_MISMATCH } },
    },
  ];
  return [
    namespace(NS),
    windowsNode('win-a', { build: '10.0.20348' }),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'x' }] } },
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'web-7d9f8',
        namespace: NS,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-d', controller: true }],
      },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'x' }] } },
      },
    },
    web,
    api,
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'win-a.1', namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'win-a', uid: 'win-a' },
      reason: 'NodeNotReady',
      message: 'Node win-a status is now: NodeNotReady',
      type: 'Normal',
      lastTimestamp: '2026-11-25T09:00:00Z',
    },
  ];
}

test('pods logs, describe, restart and delete; nodes events and taints, from the CLI', async () => {
  const emu = await startEmulator({ objects: objects() });
  try {
    emu.setPodLog(NS, 'web-7d9f8-abcde', 'web-7d9f8', 'one\ntwo\nthree\n');
    const base = ['--context', 'emu', '--kubeconfig', emu.kubeconfig({ context: 'emu' })];
    const run = (...args: string[]) => runCli([...args, ...base]);

    const logs = await run('pods', 'logs', 'web-7d9f8-abcde', '-n', NS, '--tail', '2');
    assert.equal(logs.code, 0, logs.stderr);
    assert.equal(logs.stdout, 'two\nthree\n');
    const prev = await run('pods', 'logs', 'web-7d9f8-abcde', '-n', NS, '--previous');
    assert.equal(prev.code, 1);
    assert.match(prev.stderr, /previous terminated container "web-7d9f8" in pod "web-7d9f8-abcde" not found/);
    assert.doesNotMatch(prev.stderr, /\n\s+at /);

    const describe = await run('pods', 'describe', 'api-1', '-n', NS);
    assert.equal(describe.code, 0, describe.stderr);
    assert.match(describe.stdout, /^Pod web\/api-1\n\n== Why it fails[^\n]*\nERROR WINF001 /);

    const bare = await run('pods', 'restart', 'api-1', '-n', NS, '--yes');
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /Pod web\/api-1 is a bare pod/);
    const restart = await run('pods', 'restart', 'web-7d9f8-abcde', '-n', NS, '--yes');
    assert.equal(restart.code, 0, restart.stderr);
    assert.match(restart.stdout, /Deployment web\/web is restarting/);
    assert.match(
      String(
        (emu.get('Deployment', 'web', NS)?.spec as { template: { metadata: { annotations?: Record<string, string> } } })
          .template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'],
      ),
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );

    const del = await run('pods', 'delete', 'api-1', '-n', NS, '--yes');
    assert.equal(del.code, 0, del.stderr);
    assert.equal(emu.get('Pod', 'api-1', NS), undefined);

    const events = await run('nodes', 'events', 'win-a');
    assert.equal(events.code, 0, events.stderr);
    assert.match(events.stdout, /Normal +NodeNotReady .*Node win-a status is now: NodeNotReady/);

    const bad = await run('nodes', 'taints', 'win-a', '--set', 'a=b:NoSchedule,a=c:NoSchedule', '--yes');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--set: a:NoSchedule appears twice/);
    const set = await run(
      'nodes',
      'taints',
      'win-a',
      '--set',
      'os=Windows:NoSchedule,dedicated=gpu:NoExecute',
      '--yes',
    );
    assert.equal(set.code, 0, set.stderr);
    const shown = await run('nodes', 'taints', 'win-a');
    assert.equal(shown.stdout, 'os=Windows:NoSchedule\ndedicated=gpu:NoExecute\n');
  } finally {
    await emu.stop();
  }
});
