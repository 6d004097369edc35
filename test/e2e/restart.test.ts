// The real API server restarts while the Clusters view is expanded in a real VS Code (code-server in
// Chromium): a Windows node with its Pods group, the Windows MachineSets and the BYOH instances open, on a
// kube-apiserver of this file's own (stopped as an upgrade stops it, SIGTERM, and started again by
// scripts/apiserver.mjs's halt()/resume()). While it is away the rows say "reconnecting" (nodes, the
// node's pods, MachineSets, BYOH instances) and what was shown of nodes and pods stays; once it answers
// again, on its etcd data, the rows are exactly those of before; on a fresh etcd whose cluster changed,
// exactly those a tree opened afresh shows (the same view model in this process, expanded the same way).
// No row twice under one parent in any state seen on the way, no "already registered" error. The time
// to recover is printed (test/apiserver-suites/restart.test.ts has the same cases on the view model
// alone, with the server's watch counts); the waits are fail-safes, not bounds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ClusterTree } from '../../src/views/cluster-tree';
import { CONTEXT_ADMIN, seed, useApiServer, type RealApiServer } from '../support/real-apiserver';
import { assertNoDuplicates, firstWorld, NODE, render, secondWorld } from '../support/restart-worlds';
import { ShownTree } from '../support/shown-tree';
import {
  closeWorkbench,
  extensionLog,
  openKubeWindows,
  ROOT,
  screenshot,
  startWorkbench,
  waitFor,
  type CodeServer,
} from './harness';
import { shownRows } from './shown-rows';

const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
const FAILSAFE_MS = 90_000;
const RECONNECTING = ['Windows nodes', `pods of node ${NODE}`, 'Windows MachineSets', 'BYOH instances'];

describe('the API server restarts under an expanded Clusters view in a real VS Code', { timeout: 600_000 }, () => {
  let api: RealApiServer;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  const figures: string[] = [];
  const rowsNamed = (label: string) =>
    page.locator('.pane-body .monaco-list-row', {
      has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }),
    });

  /** Expands the row labelled `label` (its first) as a user does, unless it is. */
  async function expand(label: string): Promise<void> {
    const row = rowsNamed(label).first();
    await row.waitFor({ timeout: 60_000 });
    if ((await row.getAttribute('aria-expanded')) === 'true') return;
    await row.click();
    if ((await row.getAttribute('aria-expanded')) !== 'true') await page.keyboard.press('ArrowRight');
    await waitFor(
      async () => (await row.getAttribute('aria-expanded')) === 'true',
      30_000,
      () => `${label} did not expand`,
    );
  }

  const shown = async () => render(await shownRows(page, 'Clusters'));

  /** Follows the page until `done` holds of its rows, keeping each distinct state seen; returns when it held. */
  async function follow(what: string, done: (rows: string[]) => boolean, states: string[][] = []): Promise<number> {
    const end = Date.now() + FAILSAFE_MS;
    for (;;) {
      const now = await shown();
      if (JSON.stringify(now) !== JSON.stringify(states.at(-1))) states.push(now);
      if (done(now)) return Date.now();
      if (Date.now() > end) {
        await screenshot(page, `restart-failed-${what.replace(/\W+/g, '-')}`);
        console.log(`kube-windows log:\n${extensionLog(cs)}`);
        assert.fail(`timed out waiting for ${what}; the rows:\n${now.join('\n')}`);
      }
      await page.waitForTimeout(200);
    }
  }

  /** The rows once they stop changing (two equal reads 500 ms apart, nothing loading). */
  async function quiet(): Promise<string[]> {
    let last: string[] = [];
    await follow('quiet rows', (now) => {
      const same = JSON.stringify(now) === JSON.stringify(last) && !now.some((l) => /Loading…|Connecting…/.test(l));
      last = now;
      return same;
    });
    return last;
  }

  /**
   * The rows a tree opened now shows (the view model VS Code is given, with a Services group per node as the
   * extension gives it), expanded as the page is: NODE and its Pods too, unless `node` is false.
   */
  async function freshRows(node = true): Promise<string[]> {
    const t = new ClusterTree({
      locate: { explicit: api.kubeconfigPath },
      watchKubeconfig: false,
      services: async () => ({ error: 'not read here' }),
    });
    const view = new ShownTree(t);
    try {
      await view.open();
      await view.expand(CONTEXT_ADMIN, 'Windows nodes');
      if (node) await view.expand(CONTEXT_ADMIN, 'Windows nodes', NODE);
      if (node) await view.expand(CONTEXT_ADMIN, 'Windows nodes', NODE, 'Pods');
      await view.expand(CONTEXT_ADMIN, 'Windows MachineSets');
      await view.expand(CONTEXT_ADMIN, 'BYOH instances');
      await view.settle();
      return render(view.roots);
    } finally {
      view.dispose();
      t.dispose();
    }
  }

  const reconnecting = (rows: string[]) =>
    RECONNECTING.every((what) => rows.some((l) => l.trim().startsWith(`${what}: reconnecting`)));

  /** VS Code's "Element with id … is already registered", the symptom of a row added twice. */
  async function assertNoRegistrationError(): Promise<void> {
    const dup = await page.locator('.notification-toast', { hasText: 'already registered' }).allInnerTexts();
    assert.deepEqual(dup, [], 'VS Code refused a row');
  }

  before(async () => {
    api = await useApiServer({ own: true });
    await seed(api, firstWorld());
    ({ cs, browser, page } = await startWorkbench({
      vsix,
      folder: join(ROOT, 'examples'),
      label: 'kw-e2e-restart-',
      settings: { 'kubeWindows.kubeconfig': api.kubeconfigPath },
    }));
  });

  after(async () => {
    for (const line of figures) console.log(line);
    await closeWorkbench({ cs, browser });
    await api?.stop();
  });

  let expanded: string[] = [];

  test('the view expanded: a node and its Pods, the MachineSets, the BYOH instances, as a fresh tree shows them', async () => {
    await openKubeWindows(page);
    await rowsNamed(CONTEXT_ADMIN).first().waitFor({ timeout: 60_000 });
    await expand(CONTEXT_ADMIN);
    for (const label of ['Windows nodes', NODE, 'Pods', 'Windows MachineSets', 'BYOH instances']) await expand(label);
    expanded = await quiet();
    await screenshot(page, 'restart-01-expanded');
    assert.deepEqual(expanded, await freshRows(), 'the page shows what the view model shows');
    assert.ok(
      expanded.some((l) => l.trim().startsWith('iis-7c9d5f8b6-abcde')),
      expanded.join('\n'),
    );
    assert.ok(
      expanded.some((l) => l.trim().startsWith('winworker-us-east-2a')),
      expanded.join('\n'),
    );
    assertNoDuplicates(expanded);
  });

  test('a restart on the same data: reconnecting rows, then exactly the rows of before', async () => {
    await api.halt!();
    await follow('reconnecting rows', reconnecting);
    const away = await shown();
    await screenshot(page, 'restart-02-reconnecting');
    assert.ok(
      away.some((l) => l.trim().startsWith(NODE)),
      `what was shown stays shown:\n${away.join('\n')}`,
    );
    await api.resume!();
    const answering = Date.now();
    const states: string[][] = [];
    const back = await follow('the rows of before', (now) => JSON.stringify(now) === JSON.stringify(expanded), states);
    assert.deepEqual(await quiet(), expanded, 'still the rows of before once quiet');
    for (const s of states) assertNoDuplicates(s);
    await assertNoRegistrationError();
    await screenshot(page, 'restart-03-back');
    figures.push(`e2e same data: rows back ${back - answering} ms after the server answered again`);
  });

  test('a restart on a fresh etcd, the cluster changed: exactly the rows a fresh tree shows, nothing stale', async () => {
    await api.halt!();
    await follow('reconnecting rows again', reconnecting);
    await api.resume!({ freshData: true });
    await seed(api, secondWorld());
    const seeded = Date.now();
    const expected = await freshRows();
    assert.ok(
      expected.some((l) => l.trim().startsWith('fresh-web-0')),
      expected.join('\n'),
    );
    assert.ok(!expected.some((l) => l.trim().startsWith('iis-7c9d5f8b6-abcde')));
    // NODE was recreated: while the fresh server was still empty the view may have seen it gone, and VS Code
    // then shows it again collapsed, as a fresh tree would.
    const collapsed = await freshRows(false);
    const same = (a: string[], b: string[]) => JSON.stringify(a) === JSON.stringify(b);
    const states: string[][] = [];
    const back = await follow('the rows of a fresh tree', (now) => same(now, expected) || same(now, collapsed), states);
    for (const s of states) assertNoDuplicates(s);
    if (!same(await quiet(), expected)) {
      assert.deepEqual(await quiet(), collapsed, 'still the rows of a fresh tree once quiet');
      await expand(NODE);
      await expand('Pods');
    }
    const after = await quiet();
    assert.deepEqual(after, expected, 'the rows of a fresh tree, the node and its pods expanded');
    for (const stale of ['winworker-2019-a', 'iis-7c9d5f8b6-abcde', 'winworker-us-east-2a', '10.0.140.25'])
      assert.ok(!after.some((l) => l.trim().startsWith(stale)), `nothing stale: ${stale}\n${after.join('\n')}`);
    for (const fresh of ['win-fresh-c', 'fresh-web-0', 'winworker-us-east-2c', '10.0.150.9'])
      assert.equal(after.filter((l) => l.trim().startsWith(fresh)).length, 1, `once: ${fresh}\n${after.join('\n')}`);
    await assertNoRegistrationError();
    await screenshot(page, 'restart-04-fresh');
    figures.push(`e2e fresh etcd: rows back ${back - seeded} ms after the objects were back`);
  });
});
