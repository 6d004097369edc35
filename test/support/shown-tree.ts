// What a user sees of the Clusters view, and the check that it does not contradict itself.
//
// `ShownTree` asks the tree model (src/views/cluster-tree.ts) as VS Code's view does and keeps what it
// answered: rows are read once, and read again only when the model fires a change for them or above them
// (then the changed row's own fields and its expanded rows below are asked again). A test that changes the
// cluster under it sees exactly what a user would, stale rows included.
//
// `assertSummariesMatchRows(rows)` walks shown rows (plain data: a real-VS-Code test can build them from the
// page) and checks every row that counts or summarises against the rows under it: the cluster line's
// "N Windows nodes" against the Windows nodes listed, "No …" placeholders against the rows beside them, a
// MachineSet's "r/d ready" against its Machines and their nodes, a BYOH instance "joined as X" against the
// Windows nodes. Call it once the view is quiet (ShownTree.settle()).
import assert from 'node:assert/strict';
import type { ClusterTree } from '../../src/views/cluster-tree';
import type { TreeNode } from '../../src/views/cluster-item';
import { ask } from './tree-view';

/** One row as shown: its fields when it was last read, and its children when it is expanded. */
export interface ShownRow {
  label: string;
  description?: string;
  /** The model's id and contextValue, when known (a test of the model); a page gives labels only. */
  id?: string;
  contextValue?: string;
  children?: ShownRow[];
}

const ROOTS = '\u0000roots';

export class ShownTree {
  roots: ShownRow[] = [];
  private readonly dirty = new Set<string>();
  private lastChangeAt = 0;
  private readonly collapsedByUser = new Set<string>();
  private readonly expandedByUser = new Set<string>();
  private readonly sub: { dispose(): void };

  constructor(private readonly tree: ClusterTree) {
    this.sub = tree.onDidChange((id) => {
      this.dirty.add(id ?? ROOTS);
      this.lastChangeAt = Date.now();
    });
  }

  /** Shows the roots and every row expanded from the start (what opening the view does). */
  async open(): Promise<void> {
    this.roots = await this.read(undefined);
  }

  /** Expands the row at this path of labels (from a root), as a click does, and shows its rows. */
  async expand(...labels: string[]): Promise<ShownRow> {
    const row = this.find(labels);
    assert.ok(row.id, `no id for ${labels.join(' > ')}`);
    this.expandedByUser.add(row.id);
    this.collapsedByUser.delete(row.id);
    row.children = await this.read(row.id);
    return row;
  }

  /** The shown row at this path of labels. */
  find(labels: string[]): ShownRow {
    let rows = this.roots;
    let row: ShownRow | undefined;
    for (const label of labels) {
      row = rows.find((r) => r.label === label);
      assert.ok(row, `no row "${label}" (of ${labels.join(' > ')}) among ${rows.map((r) => r.label).join(', ')}`);
      rows = row.children ?? [];
    }
    assert.ok(row);
    return row;
  }

  /**
   * Lets the view follow the model until it is quiet: each change read again as VS Code does, until no change
   * came for `quietMs` (the model holds a change while the view loads below it, for 200 ms).
   */
  async settle(quietMs = 600, timeoutMs = 15_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (this.dirty.size) await this.applyChanges();
      else if (Date.now() - this.lastChangeAt >= quietMs) return;
      assert.ok(Date.now() < end, 'the view did not become quiet');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Waits, following the view, until `cond` holds of the shown rows (a cond that throws does not hold yet). */
  async until(what: string, cond: (t: ShownTree) => boolean, timeoutMs = 15_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      await this.applyChanges();
      let why = '';
      try {
        if (cond(this)) return;
      } catch (err) {
        why = ` (${(err as Error).message})`; // a row not shown yet
      }
      assert.ok(Date.now() < end, `timed out waiting for ${what}${why}; shown:\n${render(this.roots)}`);
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  dispose(): void {
    this.sub.dispose();
  }

  private async applyChanges(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    if (ids.includes(ROOTS)) {
      this.roots = await this.read(undefined);
      return;
    }
    for (const id of ids) {
      const row = findById(this.roots, id);
      const item = this.tree.item(id);
      if (!row || !item) continue;
      Object.assign(row, fieldsOf(item));
      if (!('description' in fieldsOf(item))) delete row.description;
      if (row.children) row.children = await this.read(id);
    }
  }

  /** The children of `id` (the roots without one), and below them every expanded row's, read now. */
  private async read(id: string | undefined): Promise<ShownRow[]> {
    const parent = id === undefined ? undefined : this.tree.item(id);
    if (id !== undefined && !parent) return [];
    const nodes = await ask(this.tree, parent);
    const out: ShownRow[] = [];
    for (const n of nodes) {
      const row: ShownRow = fieldsOf(n);
      const open = !this.collapsedByUser.has(n.id) && (n.collapsible === 'expanded' || this.expandedByUser.has(n.id));
      if (open && n.collapsible !== 'none') row.children = await this.read(n.id);
      out.push(row);
    }
    return out;
  }
}

function fieldsOf(n: TreeNode): ShownRow {
  return {
    id: n.id,
    label: n.label,
    contextValue: n.contextValue,
    ...(n.description !== undefined ? { description: n.description } : {}),
  };
}

function findById(rows: ShownRow[], id: string): ShownRow | undefined {
  for (const r of rows) {
    if (r.id === id) return r;
    const below = r.children && findById(r.children, id);
    if (below) return below;
  }
  return undefined;
}

/** The shown rows as an indented outline (for failure messages). */
export function render(rows: ShownRow[], depth = 0): string {
  return rows
    .map(
      (r) =>
        `${'  '.repeat(depth)}${r.label}${r.description ? ` — ${r.description}` : ''}` +
        (r.children ? `\n${render(r.children, depth + 1)}` : ''),
    )
    .filter(Boolean)
    .join('\n');
}

/** A row that stands for no object: "No …", "Not available", loading, or a failure. */
const isPlaceholder = (r: ShownRow): boolean =>
  r.contextValue === 'error' || /^(No |Not available$|Loading…$|Connecting…$|Connect to show)/.test(r.label);

const objects = (rows: ShownRow[]): ShownRow[] => rows.filter((r) => !isPlaceholder(r));

/**
 * Every count-bearing row of the shown clusters equals the rows under it (see the header). Only what is shown is
 * compared: a collapsed group's rows are unknown, and its summaries are not checked against them.
 */
export function assertSummariesMatchRows(roots: ShownRow[]): void {
  const outline = render(roots);
  const fail = (message: string) => assert.fail(`${message}\nshown:\n${outline}`);
  for (const cluster of roots) {
    if (!cluster.children) continue;
    const groupOf = (label: string) => cluster.children?.find((r) => r.label === label);
    const nodesGroup = groupOf('Windows nodes');
    const nodeRows = nodesGroup?.children ? objects(nodesGroup.children) : undefined;

    // The cluster line: "… · L Linux / W Windows nodes".
    const info = cluster.children.find((r) => / Windows nodes$/.test(r.label));
    const counted = info && /(\d+) Windows nodes$/.exec(info.label);
    if (counted && nodeRows && Number(counted[1]) !== nodeRows.length)
      fail(`${cluster.label}: the cluster line says ${counted[1]} Windows nodes, ${nodeRows.length} are listed`);

    // Every expanded group: a "No …" row alone, or object rows without one.
    for (const group of cluster.children) {
      if (!group.children || group === info) continue;
      const none = group.children.filter((r) => /^No /.test(r.label));
      const rows = objects(group.children);
      if (none.length && rows.length)
        fail(`${cluster.label} > ${group.label}: "${none[0]?.label}" beside ${rows.map((r) => r.label).join(', ')}`);
      if (!rows.length && !group.children.length) fail(`${cluster.label} > ${group.label}: no row at all`);
    }

    const readyNode = (name: string): boolean | undefined => {
      const n = nodeRows?.find((r) => r.label === name);
      return n && / · Ready( · |$)/.test(` · ${n.description ?? ''}`);
    };

    // MachineSets: "r/d ready" against their Machines and the nodes of those.
    for (const ms of objects(groupOf('Windows MachineSets')?.children ?? [])) {
      const m = /^(\d+)\/(\d+) ready/.exec(ms.description ?? '');
      if (!m || !ms.children) continue;
      const machines = objects(ms.children);
      const deleting = / · deleting/.test(ms.description ?? '');
      if (!deleting && machines.length !== Number(m[2]))
        fail(`MachineSet ${ms.label} wants ${m[2]} replicas, ${machines.length} Machines are listed`);
      if (!nodeRows) continue;
      const ready = machines.filter((x) => {
        const node = / · node ([^ ]+)/.exec(` · ${x.description ?? ''}`)?.[1];
        return node !== undefined && readyNode(node) === true;
      }).length;
      if (ready !== Number(m[1]))
        fail(`MachineSet ${ms.label} says ${m[1]} ready, ${ready} of its Machines have a Ready node listed`);
    }

    // BYOH instances: "joined as X" names a listed Windows node.
    for (const b of objects(groupOf('BYOH instances')?.children ?? [])) {
      const joined = /^joined as (.+)$/.exec(b.description ?? '')?.[1];
      if (joined && nodeRows && !nodeRows.some((n) => n.label === joined))
        fail(`BYOH instance ${b.label} says joined as ${joined}, which is not among the Windows nodes listed`);
    }
  }
}
