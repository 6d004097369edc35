// The lazy tree protocol alone (src/views/lazy-tree.ts), with plain items and hand-timed resolvers:
// one object per id, loading rows that resolve through a change event, changes held while the view
// loads below them, overtaken answers ending empty, failures as rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LazyTree, type LazyTreeSource } from '../../src/views/lazy-tree';

interface Item {
  id: string;
  label: string;
  parent?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** After the view registered an answer (the tree ends an ask in a timer after it). */
const registered = () => sleep(5);

function lazy(roots: Item[], options: Partial<LazyTreeSource<Item>> = {}) {
  const tree = new LazyTree<Item>({
    roots: () => roots.map((r) => ({ ...r })),
    loading: (id) => ({ id, label: 'Loading…' }),
    failed: (id, err) => ({ id, label: `failed: ${err instanceof Error ? err.message : String(err)}` }),
    adopt: (item, parent) => (item.parent = parent?.id),
    loadingAfterMs: 50,
    ...options,
  });
  const changes: (string | undefined)[] = [];
  tree.onDidChange((id) => changes.push(id));
  return { tree, changes };
}

test('roots and children are kept by id, with their parent; an id asked again is the same object, refilled', async () => {
  const { tree } = lazy([{ id: 'a', label: 'A' }]);
  let label = 'one';
  tree.expandable('a', async () => [{ id: 'a/1', label }]);
  const [a] = await tree.children();
  assert.equal(tree.item('a'), a);
  assert.equal(tree.parentOf(a), undefined);
  const [first] = await tree.children(a);
  assert.equal(first.parent, 'a', 'adopt sees the parent');
  assert.equal(tree.parentOf(first), a);
  label = 'two';
  await registered();
  const [second] = await tree.children(a);
  assert.equal(second, first, 'one object per id');
  assert.equal(first.label, 'two', 'refilled in place');
  assert.deepEqual(await tree.children({ id: 'unknown', label: '' }), [], 'no resolver: no children');
  tree.dispose();
});

test('a slow answer is a loading row at once; the children follow with a change of the parent and are the next answer', async () => {
  const { tree, changes } = lazy([{ id: 'a', label: 'A' }]);
  let release!: () => void;
  tree.expandable('a', () => new Promise<Item[]>((r) => (release = () => r([{ id: 'a/1', label: 'one' }]))));
  const [a] = await tree.children();
  const t0 = Date.now();
  const first = await tree.children(a);
  assert.deepEqual(
    first.map((i) => i.id),
    ['a/loading'],
  );
  assert.ok(Date.now() - t0 < 1000);
  await registered();
  release();
  // The change waits until the view is quiet below `a` (SETTLE_MS after its last answer).
  for (let i = 0; i < 100 && !changes.includes('a'); i++) await sleep(10);
  assert.deepEqual(changes, ['a']);
  assert.deepEqual(
    (await tree.children(a)).map((i) => i.id),
    ['a/1'],
  );
  tree.dispose();
});

test('a change of an item is held while the view loads children at or below it, then fired for that item only', async () => {
  const { tree, changes } = lazy([{ id: 'a', label: 'A' }], { loadingAfterMs: 60_000 });
  let release!: () => void;
  tree.expandable('a', async () => [{ id: 'a/1', label: 'one' }]);
  tree.expandable('a/1', () => new Promise<Item[]>((r) => (release = () => r([]))));
  const [a] = await tree.children();
  const [child] = await tree.children(a);
  const asking = tree.children(child);
  tree.notify('a');
  await sleep(300);
  assert.deepEqual(changes, [], 'held while a/1 is being asked');
  release();
  await asking;
  for (let i = 0; i < 100 && !changes.length; i++) await sleep(10);
  assert.deepEqual(changes, ['a']);
  tree.notify(undefined);
  assert.deepEqual(changes, ['a', undefined], 'a change of the whole tree is never held');
  tree.dispose();
});

test('an answer overtaken by a newer ask at or above it ends empty', async () => {
  const { tree } = lazy([{ id: 'a', label: 'A' }], { loadingAfterMs: 60_000 });
  let releases: (() => void)[] = [];
  tree.expandable('a', () => new Promise<Item[]>((r) => releases.push(() => r([{ id: 'a/1', label: 'one' }]))));
  const [a] = await tree.children();
  const old = tree.children(a);
  await sleep(1);
  const newer = tree.children(a);
  await sleep(1);
  for (const r of releases) r();
  releases = [];
  assert.deepEqual(await old, []);
  assert.deepEqual(
    (await newer).map((i) => i.id),
    ['a/1'],
  );
  tree.dispose();
});

test('right after a change of an item (or above it), its next ask does not wait: the refresh is coming', async () => {
  const { tree } = lazy([{ id: 'a', label: 'A' }], { loadingAfterMs: 60_000 });
  tree.expandable('a', () => sleep(100).then(() => [{ id: 'a/1', label: 'one' }]));
  const [a] = await tree.children();
  await sleep(250);
  tree.notify('a');
  const t0 = Date.now();
  assert.deepEqual(
    (await tree.children(a)).map((i) => i.id),
    ['a/loading'],
  );
  assert.ok(Date.now() - t0 < 90, 'answered at once');
  tree.dispose();
});

test('a resolver that throws gives the failed row; reset forgets the resolvers', async () => {
  const { tree } = lazy([{ id: 'a', label: 'A' }]);
  tree.expandable('a', () => Promise.reject(new Error('boom')));
  const [a] = await tree.children();
  assert.deepEqual(await tree.children(a), [{ id: 'a/error', label: 'failed: boom', parent: 'a' }]);
  await registered();
  tree.reset();
  assert.deepEqual(await tree.children(a), []);
  tree.dispose();
});

test('an item an answer no longer has is forgotten with everything below it: the items held follow what is shown', async () => {
  const { tree } = lazy([{ id: 'a', label: 'A' }], { loadingAfterMs: 60_000 });
  // As the soak's pods: one row stays, another comes and goes with a new name each time, each with a child.
  let n = 0;
  tree.expandable('a', async () => {
    n++;
    tree.expandable(`a/${n}`, async () => [{ id: `a/${n}/x`, label: 'below' }]);
    return [
      { id: 'a/stays', label: 'stays' },
      { id: `a/${n}`, label: `row ${n}` },
    ];
  });
  const [a] = await tree.children();
  const stays = (await tree.children(a))[0];
  for (let i = 0; i < 200; i++) {
    await registered();
    const rows = await tree.children(a);
    await tree.children(rows[1]);
    assert.equal(rows[0], stays, 'a row still shown keeps its object');
  }
  // a, a/stays, the newest row and its child: not the 200 rows (and their children) shown before.
  assert.equal(tree.size, 4);
  assert.equal(tree.item(`a/${n - 1}`), undefined, 'a row the answer no longer has');
  assert.equal(tree.item(`a/${n - 1}/x`), undefined, 'what was below it');
  assert.deepEqual(await tree.children({ id: `a/${n - 1}`, label: '' }), [], 'its resolver is gone with it');
  tree.dispose();
});

test('a loading row keeps what the parent showed until its answer; an item that moved stays with its new parent', async () => {
  const { tree } = lazy([
    { id: 'a', label: 'A' },
    { id: 'b', label: 'B' },
  ]);
  let slow = false;
  let underA = ['m', 'k'];
  tree.expandable('a', async () => {
    if (slow) await sleep(200);
    return underA.map((id) => ({ id, label: id }));
  });
  tree.expandable('b', async () => [{ id: 'm', label: 'moved' }]);
  const [a, b] = await tree.children();
  await tree.children(a);
  slow = true;
  await registered();
  assert.deepEqual(
    (await tree.children(a)).map((i) => i.id),
    ['a/loading'],
  );
  assert.ok(tree.item('k'), 'shown before the loading row: kept for the answer that follows');
  await sleep(300);
  slow = false;
  assert.deepEqual(
    (await tree.children(a)).map((i) => i.id),
    ['m', 'k'],
    'the answer that arrived',
  );
  assert.equal(tree.item('a/loading'), undefined, 'the loading row is gone with the answer');
  underA = ['k'];
  await registered();
  await tree.children(b);
  await registered();
  assert.deepEqual(
    (await tree.children(a)).map((i) => i.id),
    ['k'],
  );
  assert.equal(tree.parentOf(tree.item('m')!), b, 'm moved under b: a answering without it does not forget it');
  tree.dispose();
});
