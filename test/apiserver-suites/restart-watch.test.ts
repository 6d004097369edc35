// `kube-windows nodes --watch` and `pods --watch` (kubectl's get -w) through real API server restarts,
// on a server of this file's own: the built CLI runs as a user runs it, and the server is stopped as an
// upgrade stops it (SIGTERM) and started again, on its etcd data, then on a fresh etcd whose cluster
// changed meanwhile; a second server of its own compacts etcd every second without a watch cache, so that
// the watches, resumed every second (KUBE_WINDOWS_WATCH_TIMEOUT=1), get 410 Gone.
//
// Each time: "reconnecting" on stderr while the server is away (once), "reconnected" once it answers;
// on stdout no line for an object that did not change (same data, 410) and, on a fresh etcd, lines that
// bring the printed table to exactly what a fresh `nodes`/`pods` prints (rows folded by their EVENT
// column); a change made afterwards prints exactly one line (the watch works again); the server's count
// of open watches is the same after as before; Ctrl-C ends the watch with exit 0 and closes its watches.
// Recovery times are printed; the waits are fail-safes, not bounds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mixedCluster, pod, windowsNode } from '../support/kube-seed';
import { CLI, runCli } from '../support/run-cli';
import {
  CONTEXT_ADMIN,
  fromEmulatorSeed,
  seed,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';
import { openWatches, requestCount, watchesSettle } from '../support/server-watches';

const NODE = 'winworker-2022-b';
const FAILSAFE_MS = 90_000;

let api: RealApiServer;
let baseline: Map<string, number>;
const figures: string[] = [];

before(async () => {
  api = await useApiServer({ own: true });
  baseline = await openWatches(api);
  await seed(api, fromEmulatorSeed(mixedCluster() as SeedObject[]) as SeedObject[]);
});

after(async () => {
  for (const line of figures) console.log(line);
  await api?.stop();
});

/** The cluster after the fresh restart: a node and two pods gone, a node and two pods new. */
function secondWorld(): SeedObject[] {
  const gone = new Set(['winworker-2019-a', 'iis-7c9d5f8b6-abcde', 'legacy-app-5b8c7d9f4-klmno']);
  return [
    ...(fromEmulatorSeed(mixedCluster() as SeedObject[]) as SeedObject[]).filter((o) => !gone.has(o.metadata.name)),
    windowsNode('win-fresh-c', { build: '10.0.20348', address: '10.0.150.9' }) as SeedObject,
    pod('fresh-web-0', 'win-apps', NODE, { windows: true, runtimeClassName: 'windows2022' }) as SeedObject,
    pod('fresh-web-1', 'win-apps', 'win-fresh-c', { windows: true, runtimeClassName: 'windows2022' }) as SeedObject,
  ];
}

/** A running `kube-windows …` whose output is read as it comes. */
class Running {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  private readonly exited: Promise<number | null>;

  constructor(server: RealApiServer, args: string[], env: Record<string, string> = {}) {
    this.child = spawn(
      process.execPath,
      [CLI, ...args, '--context', CONTEXT_ADMIN, '--kubeconfig', server.kubeconfigPath],
      {
        env: { ...process.env, NO_COLOR: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child.stdout?.on('data', (c: Buffer) => (this.stdout += c.toString()));
    this.child.stderr?.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  lines(): string[] {
    return this.stdout.split('\n').filter(Boolean);
  }

  async until(what: string, cond: (r: Running) => boolean): Promise<number> {
    const end = Date.now() + FAILSAFE_MS;
    while (!cond(this)) {
      assert.ok(this.child.exitCode === null, `exited (${this.child.exitCode}) waiting for ${what}:\n${this.stderr}`);
      assert.ok(Date.now() < end, `timed out waiting for ${what}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return Date.now();
  }

  /** Ctrl-C, then the exit code. */
  async interrupt(): Promise<number | null> {
    this.child.kill('SIGINT');
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

const count = (text: string, re: RegExp): number => text.split('\n').filter((l) => re.test(l)).length;

/** A table's rows by object (NAMESPACE/NAME or NAME), AGE left out: what a fresh list prints. */
function tableRows(lines: string[]): Map<string, string> {
  const [header = '', ...rows] = lines;
  const columns = header.split(/\s{3,}/);
  const rowsByKey = new Map<string, string>();
  for (const line of rows) {
    const cells = line.split(/\s{3,}/);
    const at = (name: string) => cells[columns.indexOf(name)] ?? '';
    const key = columns.includes('NAMESPACE') ? `${at('NAMESPACE')}/${at('NAME')}` : at('NAME');
    rowsByKey.set(key, cells.filter((_, i) => !['AGE', 'EVENT'].includes(columns[i])).join(' | '));
  }
  return rowsByKey;
}

/** What a watch with --output-watch-events has printed, folded: each object's last row, DELETED ones gone. */
function folded(lines: string[]): Map<string, string> {
  const header = lines[0] ?? '';
  const shown = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const [key, row] = [...tableRows([header, line])][0];
    if (line.startsWith('DELETED')) shown.delete(key);
    else shown.set(key, row);
  }
  return shown;
}

/** No object printed twice in a row with the same event and row: the symptom of a reconnect that added twice. */
function assertNoRepeats(lines: string[]): void {
  const last = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const [key, row] = [...tableRows([lines[0], line])][0];
    const seen = `${line.split(/\s+/)[0]} ${row}`;
    assert.notEqual(last.get(key), seen, `printed twice: ${line}\n${lines.join('\n')}`);
    last.set(key, seen);
  }
}

async function fresh(server: RealApiServer, args: string[]): Promise<Map<string, string>> {
  const r = await runCli([...args, '--context', CONTEXT_ADMIN, '--kubeconfig', server.kubeconfigPath]);
  assert.equal(r.code, 0, r.stderr);
  return tableRows(r.stdout.split('\n').filter(Boolean));
}

const sorted = (m: Map<string, string>) => [...m].sort(([a], [b]) => a.localeCompare(b));

test('nodes -w and pods -w through a restart on the same data, then on a fresh etcd: reconnecting, then only what changed; no watch leaked; Ctrl-C exits 0', async () => {
  const nodes = new Running(api, ['nodes', '--watch', '--output-watch-events']);
  const pods = new Running(api, ['pods', '-w', '-A', '--output-watch-events']);
  const plain = new Running(api, ['nodes', '-w']);
  try {
    await nodes.until('the nodes table', (r) => r.lines().length === 4);
    await pods.until('the pods table', (r) => r.lines().length >= 2);
    await plain.until('the plain nodes table', (r) => r.lines().length === 4);
    assert.deepEqual(sorted(folded(nodes.lines())), sorted(await fresh(api, ['nodes'])));
    assert.deepEqual(sorted(folded(pods.lines())), sorted(await fresh(api, ['pods', '-A'])));
    assert.ok(pods.stdout.includes('iis-7c9d5f8b6-abcde'), pods.stdout);
    assert.ok(!pods.stdout.includes('frontend-6f7d8c9b5-pqrst'), 'a pod of a Linux node is not a Windows pod');
    assert.match(plain.lines()[0], /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+WINDOWS$/);
    // nodes -w: a nodes watch each; pods -w: a pods watch and a nodes watch.
    const watching = { nodes: 3, pods: 1 };
    assert.deepEqual(await watchesSettle(watching, api, baseline), watching, 'one watch per list-watch');

    // 1. Same data: nothing changed, so nothing is printed; the watch works again afterwards.
    const printed = [nodes.stdout, pods.stdout, plain.stdout];
    await api.halt!();
    for (const r of [nodes, pods, plain])
      await r.until('reconnecting', (x) => /^kube-windows: reconnecting: /m.test(x.stderr));
    // A watch started while the server is away fails as the list does: exit 2, the cause in one line.
    const away = await runCli(['nodes', '-w', '--context', CONTEXT_ADMIN, '--kubeconfig', api.kubeconfigPath]);
    assert.equal(away.code, 2, away.stderr);
    assert.match(away.stderr, /does not answer/);
    assert.equal(away.stderr.trim().split('\n').length, 1, away.stderr);
    const resumed = Date.now();
    await api.resume!();
    const answering = Date.now();
    const back = await Promise.all(
      [nodes, pods, plain].map((r) => r.until('reconnected', (x) => /^kube-windows: reconnected: /m.test(x.stderr))),
    );
    figures.push(
      `same data: watching again ${Math.max(...back) - answering} ms after resume() returned (the server answering), ${Math.max(...back) - resumed} ms after it was started again`,
    );
    assert.deepEqual([nodes.stdout, pods.stdout, plain.stdout], printed, 'no line for objects that did not change');
    for (const r of [nodes, pods, plain]) {
      assert.equal(count(r.stderr, /^kube-windows: reconnecting: /), 1, `one reconnecting line:\n${r.stderr}`);
      assert.match(r.stderr, /^kube-windows: reconnecting: .*does not answer.*goes on by itself/m);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.deepEqual(await watchesSettle(watching, api, baseline), watching, 'the same watches after as before');
    // A change now: exactly one line in each watch.
    await api.request(`/api/v1/nodes/${NODE}`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { spec: { unschedulable: true } },
    });
    await nodes.until('the cordoned node', (r) => r.lines().length === 5);
    await plain.until('the cordoned node', (r) => r.lines().length === 5);
    assert.match(nodes.lines()[4], new RegExp(`^MODIFIED\\s+${NODE}\\s+Ready,SchedulingDisabled`));
    assert.match(plain.lines()[4], new RegExp(`^${NODE}\\s+Ready,SchedulingDisabled`));

    // 2. A fresh etcd, and a cluster that changed while the server was away.
    await api.halt!();
    for (const r of [nodes, pods, plain])
      await r.until('reconnecting again', (x) => count(x.stderr, /^kube-windows: reconnecting: /) === 2);
    await api.resume!({ freshData: true });
    await seed(api, secondWorld());
    const seeded = Date.now();
    const [expectNodes, expectPods] = [await fresh(api, ['nodes']), await fresh(api, ['pods', '-A'])];
    assert.ok(expectNodes.has('win-fresh-c') && !expectNodes.has('winworker-2019-a'));
    assert.ok(expectPods.has('win-apps/fresh-web-1') && !expectPods.has('win-apps/iis-7c9d5f8b6-abcde'));
    const done = await Promise.all([
      nodes.until(
        'the fresh nodes',
        (r) => JSON.stringify(sorted(folded(r.lines()))) === JSON.stringify(sorted(expectNodes)),
      ),
      pods.until(
        'the fresh pods',
        (r) => JSON.stringify(sorted(folded(r.lines()))) === JSON.stringify(sorted(expectPods)),
      ),
    ]);
    figures.push(
      `fresh etcd: the watches printed the fresh cluster ${Math.max(...done) - seeded} ms after its objects were back`,
    );
    await Promise.all(
      [nodes, pods, plain].map((r) =>
        r.until('reconnected again', (x) => count(x.stderr, /^kube-windows: reconnected: /) >= 2),
      ),
    );
    for (const r of [nodes, pods]) assertNoRepeats(r.lines());
    // The lines since the restart name what went and what came (the node cordoned before is new: uncordoned).
    const since = nodes.lines().slice(5).join('\n');
    assert.match(since, /^DELETED\s+winworker-2019-a/m);
    assert.match(since, /^ADDED\s+win-fresh-c/m);
    assert.match(pods.stdout, /^DELETED\s+win-apps\s+iis-7c9d5f8b6-abcde/m);
    assert.match(pods.stdout, /^ADDED\s+win-apps\s+fresh-web-1/m);
    assert.deepEqual(await watchesSettle(watching, api, baseline), watching, 'the same watches after a fresh start');

    // 3. Ctrl-C: exit 0, every watch closed.
    assert.deepEqual(await Promise.all([nodes, pods, plain].map((r) => r.interrupt())), [0, 0, 0]);
    assert.deepEqual(await watchesSettle({}, api, baseline), {}, 'every watch closed');
  } finally {
    for (const r of [nodes, pods, plain]) r.kill();
  }
});

test('nodes -w and pods -w -o json with etcd compacted under them (no watch cache): 410 Gone, listed again, nothing printed twice', async () => {
  const own = await useApiServer({ own: true, compactionInterval: '1s', extraArgs: ['--watch-cache=false'] });
  const ownBaseline = await openWatches(own);
  const env = { KUBE_WINDOWS_WATCH_TIMEOUT: '1' };
  let watches: Running[] = [];
  try {
    await seed(own, fromEmulatorSeed(mixedCluster() as SeedObject[]) as SeedObject[]);
    const nodes = new Running(own, ['nodes', '-w', '--output-watch-events'], env);
    const pods = new Running(own, ['pods', '-w', '-n', 'win-apps', '--node', NODE, '-o', 'json'], env);
    watches = [nodes, pods];
    await nodes.until('the nodes table', (r) => r.lines().length === 4);
    await pods.until('the pod', (r) => /"name": "iis-7c9d5f8b6-abcde"/.test(r.stdout));
    const printed = [nodes.stdout, pods.stdout];
    const [nodeLists, podLists] = [await requestCount(own, 'LIST', 'nodes'), await requestCount(own, 'LIST', 'pods')];
    // Quiet collections, a moving etcd: the watches' versions fall behind and are compacted away.
    const churn = `/api/v1/namespaces/default/configmaps`;
    await own.request(churn, { body: { metadata: { name: 'churn' }, data: { n: '0' } } });
    const started = Date.now();
    for (let i = 1; ; i++) {
      const lists = [await requestCount(own, 'LIST', 'nodes'), await requestCount(own, 'LIST', 'pods')];
      if (lists[0] >= nodeLists + 2 && lists[1] >= podLists + 2) break;
      assert.ok(Date.now() - started < FAILSAFE_MS, `no 410 yet: LISTs of nodes ${lists[0]}, pods ${lists[1]}`);
      await own.request(`${churn}/churn`, {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: { data: { n: String(i) } },
      });
      await new Promise((r) => setTimeout(r, 100));
    }
    // Listed again after each 410, and nothing printed: nothing changed; no failure either.
    assert.deepEqual([nodes.stdout, pods.stdout], printed, 'no line for objects that did not change');
    for (const r of watches) assert.doesNotMatch(r.stderr, /reconnecting/, r.stderr);
    // The watches work: a change is printed once.
    await own.request(`/api/v1/namespaces/win-apps/pods/iis-7c9d5f8b6-abcde`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { tier: 'web' } } },
    });
    await pods.until('the labelled pod', (r) => /"tier": "web"/.test(r.stdout));
    assert.equal(count(pods.stdout, /^\{$/), 2, 'two objects printed: the pod, then its change');
    figures.push(
      `compaction: LISTs nodes +${(await requestCount(own, 'LIST', 'nodes')) - nodeLists}, pods +${(await requestCount(own, 'LIST', 'pods')) - podLists} (410 Gone then a list), no line printed`,
    );
    assert.deepEqual(await Promise.all(watches.map((r) => r.interrupt())), [0, 0]);
    assert.deepEqual(await watchesSettle({}, own, ownBaseline), {}, 'every watch closed');
  } finally {
    for (const r of watches) r.kill();
    await own.stop();
  }
});
