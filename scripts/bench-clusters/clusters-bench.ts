// `npm run bench:clusters` (bundled and run by scripts/bench-clusters.mjs, under scripts/with-apiserver.mjs):
// the cluster tree model over the 30-context kubeconfig of test/support/many-clusters.ts (20 healthy on
// the real kube-apiserver and two emulators, 5 never answering, 3 with expired credentials, 2 with a CA
// that does not match), with the view's own timeout (15 s). Every cluster is expanded at once, as a user
// expanding them all; printed: the time to list the 30 roots (no cluster contacted), the time until every
// healthy cluster's children are there, and the time until each broken one shows its error row. The
// last line printed is the summary:
//   clusters: contexts=30 roots_ms=… healthy_all_ms=… one_at_a_time_max_ms=… broken_fast_max_ms=… silent_max_ms=…
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterTree } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';
import { fromKubeconfig } from '../../test/support/real-apiserver';
import { startManyClusters } from '../../test/support/many-clusters';

const now = (): number => performance.now();

async function main(): Promise<void> {
  const kubeconfig = process.env.KW_APISERVER_KUBECONFIG;
  if (!kubeconfig) throw new Error(`no real API server: ${process.env.KW_APISERVER_UNAVAILABLE ?? 'run under scripts/with-apiserver.mjs'}`);
  const api = fromKubeconfig(kubeconfig);
  const dir = mkdtempSync(join(tmpdir(), 'kw-bench-clusters-'));
  const world = await startManyClusters({ dir, api });
  // A loading row never stands in: each answer below is the cluster's real children.
  const tree = new ClusterTree({ locate: { explicit: world.kubeconfigPath }, watchKubeconfig: false, loadingAfterMs: 600_000 });
  try {
    const t0 = now();
    const roots = await tree.children();
    const rootsMs = now() - t0;
    const done = new Map<string, { ms: number; kids: TreeNode[] }>();
    const t1 = now();
    const all = Promise.all(
      roots.map((r) => tree.children(r).then((kids) => void done.set(r.label, { ms: now() - t1, kids }))),
    );
    const answers = world.contexts.filter((c) => !c.kind.startsWith('silent')).map((c) => c.name);
    while (!answers.every((n) => done.has(n))) await new Promise((r) => setTimeout(r, 20));
    const ms = (kind: (k: string) => boolean) =>
      world.contexts.filter((c) => kind(c.kind)).map((c) => done.get(c.name)?.ms ?? NaN);
    const healthy = ms((k) => k === 'healthy');
    const fast = ms((k) => k !== 'healthy' && !k.startsWith('silent'));
    console.log(`${roots.length} contexts (${healthy.length} healthy, ${roots.length - healthy.length} broken), all expanded at once:`);
    console.log(`  roots listed in ${rootsMs.toFixed(1)} ms (no cluster contacted)`);
    console.log(`  every healthy cluster rendered after ${Math.max(...healthy).toFixed(0)} ms (median ${median(healthy).toFixed(0)} ms)`);
    // As a user does: one healthy cluster expanded at a time (a tree of its own each, so nothing is cached),
    // while every never-answering one is still pending in the first tree.
    const one: number[] = [];
    for (const c of world.contexts.filter((x) => x.kind === 'healthy')) {
      const t = new ClusterTree({ locate: { explicit: world.kubeconfigPath }, watchKubeconfig: false, loadingAfterMs: 600_000 });
      const root = (await t.children()).find((r) => r.label === c.name);
      const t2 = now();
      if (root) await t.children(root);
      one.push(now() - t2);
      t.dispose();
    }
    await all;
    for (const c of world.contexts.filter((x) => x.kind !== 'healthy')) {
      const d = done.get(c.name);
      const row = d?.kids[0];
      console.log(`  ${c.name.padEnd(24)} ${String(Math.round(d?.ms ?? NaN)).padStart(6)} ms  ${row?.label ?? '?'}`);
    }
    console.log(`  one healthy cluster expanded at a time: median ${median(one).toFixed(0)} ms, slowest ${Math.max(...one).toFixed(0)} ms`);
    const silent = ms((k) => k.startsWith('silent'));
    const bad = world.contexts.filter((c) => (c.kind === 'healthy') === done.get(c.name)?.kids[0]?.id.endsWith('/error'));
    if (bad.length) console.log(`  WRONG: ${bad.map((c) => c.name).join(', ')}`);
    console.log(
      `clusters: contexts=${roots.length} roots_ms=${rootsMs.toFixed(1)} healthy_all_ms=${Math.max(...healthy).toFixed(0)} one_at_a_time_max_ms=${Math.max(...one).toFixed(0)} broken_fast_max_ms=${Math.max(...fast).toFixed(0)} silent_max_ms=${Math.max(...silent).toFixed(0)}`,
    );
    if (bad.length) process.exitCode = 1;
  } finally {
    tree.dispose();
    await world.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

main().catch((e: unknown) => {
  console.error(`bench:clusters failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
