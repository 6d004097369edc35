// The extension host's part of the compressed day: the Clusters view as the extension
// registers it (src/extension/cluster-view.ts with the fake vscode module: its provider, its Refresh
// command) over the cluster tree and sessions, against the API emulator (HTTPS on loopback, watches
// served as the API server does). Each cycle refreshes the view and asks for its rows again as VS Code
// does (every group, a Windows node, its pods, so every collection is listed and watched); a node
// changes meanwhile; every few cycles the server ends all watch connections, and every other time
// compacts first, so that the resumed watches get 410 Gone and list again. After warm-up this process's
// heap and RSS stay flat, and no count of handles, armed timers (unref'd ones too), descriptors,
// listeners, live cluster sessions, or the server's open watch connections grows. KW_SOAK=day runs the
// whole day (`npm run soak`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import type { TreeNode } from '../../src/views/cluster-item';
import { startEmulator } from '../support/kube-api-emulator';
import { mixedCluster, namespace, pod } from '../support/kube-seed';
import { createFakeVscode, hookVscodeModule, type FakeTreeItem } from '../support/fake-vscode';
import { waitFor } from '../support/tree-view';
import { describe, judge, LiveObjects, measureSelf, trackTimers, type Sample } from '../support/soak';
import { SessionManager } from '../../src/cluster/session';
import { FULL_DAY, reportFigures, SOAK_SIZE } from '../support/soak-size';

type Commands = { executeCommand(id: string): Promise<unknown> };

interface Provider {
  getChildren(n?: TreeNode): Promise<TreeNode[]>;
  getTreeItem(n: TreeNode): FakeTreeItem;
  onDidChangeTreeData(listener: (n: TreeNode | undefined) => void): { dispose(): void };
}

/** The node whose pods the view shows, and the pod the seed runs on it. */
const NODE = 'winworker-2022-b';
const SEEDED_POD = 'iis-7c9d5f8b6-abcde';
/** One tree refresh in this many is the Refresh command (a reconnect); the others follow the watches. */
const RECONNECT_EVERY = 10;

test('the extension host stays flat over tree refreshes and watch restarts', { timeout: 3_600_000 }, async (t) => {
  const size = SOAK_SIZE;
  // Before anything arms one: the extension unrefs most of its timers, which the handle counts miss.
  trackTimers();
  // Every session the view's manager opens, held weakly: one that Refresh closed must be collected.
  const sessions = new LiveObjects();
  const open = SessionManager.prototype.session;
  SessionManager.prototype.session = function (this: SessionManager, context: string) {
    const session = open.call(this, context);
    return session && sessions.track(session);
  };
  const emu = await startEmulator({ objects: [...mixedCluster(), namespace('soak')], openshift: true });
  const dir = mkdtempSync(join(tmpdir(), 'kw-soak-'));
  const kubeconfig = emu.kubeconfig({ context: 'soak', file: join(dir, 'config') });
  const fake = createFakeVscode({ 'kubeWindows.kubeconfig': kubeconfig });
  const unhook = hookVscodeModule(() => fake);
  const { registerClusterView } = await import('../../src/extension/cluster-view');
  const context = { subscriptions: [] as { dispose(): unknown }[] };
  const quiet = () => undefined;
  const log = { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet };
  registerClusterView(context as never, log as never);
  const view = fake.treeViews.find((v) => v.id === 'kubeWindows.clusters');
  assert.ok(view, 'the Clusters view is created');
  const provider = view.options.treeDataProvider as unknown as Provider;
  const shownRows = { count: 0 };

  /** Rows as the view ends up showing them: a loading row is asked again once the tree changed. */
  const rows = async (parent?: TreeNode): Promise<TreeNode[]> => {
    for (let i = 0; ; i++) {
      let changed = false;
      const sub = provider.onDidChangeTreeData((n) => (changed ||= n === undefined || n.id === parent?.id));
      try {
        const kids = await provider.getChildren(parent);
        for (const k of kids) provider.getTreeItem(k);
        shownRows.count += kids.length;
        if (!(kids.length === 1 && kids[0].id.endsWith('/loading'))) return kids;
        assert.ok(i < 50, `still loading: ${parent?.id}`);
        await waitFor(`the change of ${parent?.id}`, () => changed, 30_000);
      } finally {
        sub.dispose();
      }
    }
  };
  const byLabel = (nodes: TreeNode[], label: string): TreeNode => {
    const n = nodes.find((x) => x.label === label);
    assert.ok(n, `no row "${label}" in ${nodes.map((x) => x.label).join(', ')}`);
    return n;
  };
  /** What a user who keeps the view open sees: every group expanded, one Windows node and its pods. */
  const walk = async (): Promise<string[]> => {
    const [root] = await rows();
    const groups = await rows(root);
    for (const g of groups.slice(1)) await rows(g);
    const node = byLabel(await rows(byLabel(groups, 'Windows nodes')), NODE);
    return (await rows(byLabel(await rows(node), 'Pods'))).map((p) => p.label);
  };
  /** Walks the view again until the pods shown are what the cluster has (a watch event may still be on its way). */
  const showsPods = async (what: string, pods: string[]): Promise<void> => {
    let shown: string[] = [];
    await waitFor(
      `${what}: pods ${pods.join(', ')} shown (shown: ${shown.join(', ')})`,
      async () => {
        shown = (await walk()).sort();
        return shown.join() === [...pods].sort().join();
      },
      30_000,
    );
  };

  try {
    assert.deepEqual(await walk(), [SEEDED_POD], 'the pod of the node is shown');
    // Watches start as their first list answers: the count is steady once it stops moving.
    let steadyWatches = -1;
    await waitFor('a steady count of watches', async () => {
      const before = emu.openWatches();
      await new Promise((r) => setTimeout(r, 300));
      return (steadyWatches = emu.openWatches()) === before;
    });
    assert.ok(steadyWatches >= 6, `every shown collection is watched (${steadyWatches} watches)`);
    const settled = (what: string) =>
      waitFor(
        `${what}: ${steadyWatches} watches open again (${emu.openWatches()} now)`,
        () => emu.openWatches() === steadyWatches,
        30_000,
      );

    const started = Date.now();
    const minutes = () => ((Date.now() - started) / 60_000).toFixed(1);
    const samples: Sample[] = [];
    const warmUp = Math.round(size.refreshes * size.warmUp);
    const every = Math.floor((size.refreshes - warmUp) / (size.samples - 1));
    const restartEvery = Math.floor(size.refreshes / size.watchRestarts);
    let restarts = 0;
    let reconnects = 0;
    let gone = 0;
    let ended = 0;
    for (let cycle = 1; cycle <= size.refreshes; cycle++) {
      if (cycle % RECONNECT_EVERY === 0) {
        // The Refresh command: every session closed and the view asked again from the roots.
        await (fake.module.commands as Commands).executeCommand('kubeWindows.refresh');
        reconnects++;
        await showsPods(`reconnect ${reconnects}`, [SEEDED_POD]);
        await settled(`after reconnect ${reconnects}`);
      }
      // A pod comes and goes on the node, the node changes: the view follows the watches' events.
      const name = `soak-${cycle}`;
      emu.apply(pod(name, 'soak', NODE, { windows: true }));
      emu.patch('Node', NODE, undefined, {
        metadata: { annotations: { 'soak.kube-windows.io/cycle': String(cycle) } },
      });
      await showsPods(`cycle ${cycle}`, [SEEDED_POD, name]);
      emu.remove('Pod', name, 'soak');
      await showsPods(`cycle ${cycle}, pod deleted`, [SEEDED_POD]);
      if (cycle % restartEvery === Math.floor(restartEvery / 2)) {
        // Every other restart after a compaction: the resumed watches are told 410 Gone and list again.
        if (restarts % 2 === 1) {
          emu.compact();
          gone++;
        }
        ended += emu.endWatches();
        restarts++;
        await settled(`after watch restart ${restarts}`);
        await showsPods(`after watch restart ${restarts}`, [SEEDED_POD]);
      }
      // The day runs for the better part of an hour: say how far it is (stderr: a diagnostic of the run).
      if (FULL_DAY && cycle % 1000 === 0)
        console.error(`soak: ${cycle} of ${size.refreshes} refreshes, ${restarts} watch restarts, ${minutes()} min`);
      // What the doubles record of the session (the emulator's request log, the fake's command log)
      // is theirs, not the extension's: let it go.
      emu.requests.length = 0;
      fake.executed.length = 0;
      if (cycle >= warmUp && (cycle - warmUp) % every === 0) {
        await settled(`before sample ${samples.length + 1}`);
        samples.push({
          at: cycle,
          ...measureSelf(
            { process: process.eventNames().reduce((n, e) => n + process.listenerCount(e), 0) },
            // What a Refresh replaces: a closed session (with its client and list-watches) must go.
            { ClusterSession: sessions },
          ),
        });
        samples.at(-1)!.counts['server.watches'] = emu.openWatches();
        // KW_SOAK_HEAP_SNAPSHOTS=<folder>: this process's heap after the first sample, the middle one and
        // the last, for scripts/heap-diff.mjs (what grew, by constructor, and what holds it).
        const snapshots = process.env.KW_SOAK_HEAP_SNAPSHOTS;
        if (snapshots && [1, Math.ceil(size.samples / 2), size.samples].includes(samples.length))
          writeHeapSnapshot(join(snapshots, `extension-host-${cycle}.heapsnapshot`));
      }
    }

    const verdict = judge(samples);
    const figures = {
      refreshes: size.refreshes,
      reconnects,
      watchRestarts: restarts,
      after410: gone,
      watchesEnded: ended,
      steadyWatches,
      rowsShown: shownRows.count,
      samples: samples.length,
      minutes: Number(minutes()),
    };
    for (const line of [JSON.stringify(figures), ...describe(verdict)]) t.diagnostic(line);
    reportFigures('extension-host', figures, verdict);
    assert.equal(restarts, size.watchRestarts);
    assert.equal(reconnects, Math.floor(size.refreshes / RECONNECT_EVERY));
    assert.ok(samples.length >= size.samples, `${samples.length} samples`);
    assert.deepEqual(verdict.problems, [], describe(verdict).join('\n'));
  } finally {
    SessionManager.prototype.session = open;
    for (const d of context.subscriptions) d.dispose();
    unhook();
    await emu.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
