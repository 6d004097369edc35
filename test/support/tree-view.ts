// Asking the cluster tree model (src/views/cluster-tree.ts) as VS Code's view does, for the tests against
// the API emulator: children that resolve a loading row through the parent's change event, waits.
import assert from 'node:assert/strict';
import type { ClusterTree } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';

export const byLabel = (nodes: TreeNode[], label: string): TreeNode => {
  const n = nodes.find((x) => x.label === label);
  assert.ok(n, `no item "${label}" in ${nodes.map((x) => x.label).join(', ')}`);
  return n;
};

export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const isLoading = (nodes: TreeNode[]) => nodes.length === 1 && nodes[0].id.endsWith('/loading');

/** Children as the view ends up showing them: a loading row is asked again once its parent changed. */
export async function ask(t: ClusterTree, parent?: TreeNode): Promise<TreeNode[]> {
  for (let i = 0; ; i++) {
    let changed = false;
    const sub = t.onDidChange((id) => (changed ||= id === undefined || id === parent?.id));
    try {
      const nodes = await t.children(parent);
      // As the view does: it registers the answer, and only then can a change held for it arrive.
      await new Promise((r) => setTimeout(r, 1));
      if (!isLoading(nodes)) return nodes;
      assert.ok(i < 20, `still loading: ${parent?.id}`);
      await waitFor(`the change of ${parent?.id}`, () => changed, 10_000);
    } finally {
      sub.dispose();
    }
  }
}
