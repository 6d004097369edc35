// The terminal's HostProcess pod session with a stand-in API client and pods/exec: the pod is created
// pinned to the node, exec'd into with a tty once Running, resized, and deleted on every way out
// (terminal closed, shell exited, image pull failure, cancelled while starting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { KubeConfig, V1Status } from '@kubernetes/client-node';
import type { KubeClient } from '../../src/cluster/kube-client';
import { openPodShell } from '../../src/cluster/pod-shell';

interface Calls {
  created: { path: string; body: { metadata: { name: string; namespace: string }; spec: { nodeName: string } } }[];
  deleted: string[];
}

function kube(states: object[], calls: Calls): KubeClient {
  return {
    create: async (path: string, body: Calls['created'][number]['body']) => {
      calls.created.push({ path, body });
      return body;
    },
    get: async () => ({ status: states.length > 1 ? states.shift() : states[0] }),
    delete: async (path: string) => void calls.deleted.push(path),
  } as unknown as KubeClient;
}

const RUNNING = { phase: 'Running', containerStatuses: [{ ready: true, state: { running: {} } }] };
const PENDING = { phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ContainerCreating' } } }] };

/** A pods/exec stand-in: records the call, echoes stdin to stdout, reports resizes of the tty stream. */
function execStub() {
  const ws = new EventEmitter() as EventEmitter & { close(): void };
  const seen: {
    command?: string[];
    tty?: boolean;
    container?: string;
    sizes: [number, number][];
    status?: (s: V1Status) => void;
    stdout?: Writable & { columns: number; rows: number };
  } = {
    sizes: [],
  };
  ws.close = () => ws.emit('close');
  const exec = {
    exec: async (
      _ns: string,
      _pod: string,
      container: string,
      command: string | string[],
      stdout: Writable | null,
      _stderr: Writable | null,
      stdin: Readable | null,
      tty: boolean,
      status?: (s: V1Status) => void,
    ) => {
      Object.assign(seen, { command, tty, container, status, stdout });
      const out = stdout as Writable & { columns: number; rows: number };
      seen.sizes.push([out.columns, out.rows]);
      out.on('resize', () => seen.sizes.push([out.columns, out.rows]));
      stdin?.on('data', (d: Buffer) => out.write(Buffer.from(`echo:${d.toString()}`)));
      return ws as never;
    },
  };
  return { ws, seen, exec };
}

const base = {
  config: {} as KubeConfig,
  nodeName: 'win-1',
  labels: { 'node.kubernetes.io/windows-build': '10.0.17763' },
  cols: 120,
  rows: 30,
};

test('a running pod gets an interactive tty exec; input, output and resize pass; closing deletes the pod', async () => {
  const calls: Calls = { created: [], deleted: [] };
  const { ws, seen, exec } = execStub();
  const statuses: string[] = [];
  const s = await openPodShell({
    ...base,
    kube: kube([PENDING, RUNNING], calls),
    exec,
    onStatus: (t) => statuses.push(t),
  });
  const body = calls.created[0]?.body;
  assert.equal(calls.created[0]?.path, '/api/v1/namespaces/kube-system/pods');
  assert.equal(body?.spec.nodeName, 'win-1');
  assert.match(JSON.stringify(body), /lts-nanoserver-ltsc2019/);
  assert.ok(statuses.some((t) => /ContainerCreating/.test(t)));
  assert.deepEqual(seen.command, ['powershell.exe', '-NoLogo']);
  assert.equal(seen.tty, true);
  assert.equal(seen.container, 'shell');
  const out: string[] = [];
  s.onData((t) => out.push(t));
  s.write('hostname\r');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(out, ['echo:hostname\r']);
  s.resize(100, 40);
  assert.deepEqual(seen.sizes, [
    [120, 30],
    [100, 40],
  ]);
  const ends: unknown[] = [];
  s.onEnd((e) => ends.push(e));
  s.close();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(calls.deleted, [`/api/v1/namespaces/kube-system/pods/${body?.metadata.name}`]);
  assert.deepEqual(ends, [{}]);
  ws.emit('close');
  assert.equal(calls.deleted.length, 1, 'deleted once');
});

test('the shell exiting ends the session with its code and deletes the pod; a dropped socket says it was lost', async () => {
  const calls: Calls = { created: [], deleted: [] };
  const one = execStub();
  const s = await openPodShell({ ...base, kube: kube([RUNNING], calls), exec: one.exec });
  const ends: unknown[] = [];
  s.onEnd((e) => ends.push(e));
  one.seen.status?.({ status: 'Success' });
  one.ws.emit('close');
  assert.deepEqual(ends, [{ exitCode: 0 }]);
  assert.equal(calls.deleted.length, 1);

  const two = execStub();
  const s2 = await openPodShell({ ...base, kube: kube([RUNNING], calls), exec: two.exec });
  const ends2: { lost?: string }[] = [];
  s2.onEnd((e) => ends2.push(e));
  two.ws.emit('close');
  assert.match(ends2[0]?.lost ?? '', /ended/);
  assert.equal(calls.deleted.length, 2);
});

test('an image pull failure or a cancel while starting deletes the pod and rejects', async () => {
  const calls: Calls = { created: [], deleted: [] };
  const pull = {
    phase: 'Pending',
    containerStatuses: [{ state: { waiting: { reason: 'ErrImagePull', message: 'manifest unknown' } } }],
  };
  await assert.rejects(
    openPodShell({ ...base, kube: kube([pull], calls), exec: execStub().exec }),
    /ErrImagePull — manifest unknown/,
  );
  assert.equal(calls.deleted.length, 1);

  const ctl = new AbortController();
  const p = openPodShell({ ...base, kube: kube([PENDING], calls), exec: execStub().exec, signal: ctl.signal });
  setTimeout(() => ctl.abort(new Error('the terminal was closed')), 50);
  await assert.rejects(p, /terminal was closed/);
  assert.equal(calls.deleted.length, 2);
  await assert.rejects(
    openPodShell({
      ...base,
      labels: { 'node.kubernetes.io/windows-build': '10.0.14393' },
      kube: kube([RUNNING], calls),
      exec: execStub().exec,
    }),
    /Windows Server 2019/,
  );
  assert.equal(calls.created.length, 2, 'an unsupported build creates nothing');
});
