// Live pods in a real VS Code (code-server in Chromium): expanding a Windows node and its Pods group
// shows the node's pods; a pod created on that node through the API appears in the view within a
// second (the Pods group is watched, not read once); a collapsed group stops watching and shows the
// pods as they are when expanded again. No "Element with id … is already registered" on the way.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World } from '../support/sandbox-world';
import { pod } from '../support/kube-seed';
import { KubeClient } from '../../src/cluster/kube-client';
import { configForContext, loadKubeconfig } from '../../src/cluster/kubeconfig';
import {
  closeWorkbench,
  extensionLog,
  openKubeWindows,
  ROOT,
  screenshot,
  startWorkbench,
  type CodeServer,
} from './harness';

const CONTEXT = 'kube-windows-live-pods';
const NODE = 'winworker-2022-b';
const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');

let cs: CodeServer;
const rows = (page: Page) => page.locator('.pane-body .monaco-list-row');
const row = (page: Page, text: string | RegExp) => rows(page).filter({ hasText: text }).first();

async function duplicateIdErrors(page: Page): Promise<string[]> {
  return page
    .locator('.notification-toast, .notifications-center .notification-list-item')
    .filter({ hasText: 'already registered' })
    .allInnerTexts();
}

describe('live pods under a Windows node in a real VS Code', { timeout: 300_000 }, () => {
  let world: World;
  let browser: Browser;
  let page: Page;
  let worldDir: string;
  let api: KubeClient;

  before(
    async () => {
      worldDir = mkdtempSync(join(tmpdir(), 'kw-e2e-pods-'));
      world = await startWorld({ dir: worldDir, context: CONTEXT, hosts: 0 });
      const load = loadKubeconfig({ explicit: world.kubeconfigPath });
      assert.ok(load.ok);
      api = new KubeClient(configForContext(load.config, CONTEXT));
      ({ cs, browser, page } = await startWorkbench({
        vsix,
        folder: join(ROOT, 'examples'),
        label: 'kw-e2e-pods-',
        settings: { 'kubeWindows.kubeconfig': world.kubeconfigPath },
      }));
    },
    { timeout: 180_000 },
  );

  after(async () => {
    await closeWorkbench({ cs, browser });
    await world?.stop();
    rmSync(worldDir, { recursive: true, force: true });
  });

  const create = (name: string) =>
    api.create('/api/v1/namespaces/win-apps/pods', pod(name, 'win-apps', NODE, { windows: true }));

  test(
    'expand a Windows node and its Pods group: the pods appear; a pod created on the node appears within a second',
    { timeout: 120_000 },
    async () => {
      await openKubeWindows(page);
      await row(page, NODE).waitFor({ timeout: 60_000 });
      await row(page, NODE).click();
      const pods = row(page, /^Pods$/);
      await pods.waitFor({ timeout: 30_000 });
      await pods.click();
      await row(page, 'iis-7c9d5f8b6-abcde').waitFor({ timeout: 30_000 });
      assert.match(await row(page, 'iis-7c9d5f8b6-abcde').innerText(), /Running · 0\/1 · 0 restarts · \d+[smhd]/);
      await screenshot(page, 'pods-01-expanded');
      await page.waitForTimeout(500); // the view settled after its last answer

      const times: number[] = [];
      for (const name of ['live-pod-1', 'live-pod-2', 'live-pod-3']) {
        const t0 = Date.now();
        await create(name);
        await row(page, name).waitFor({ timeout: 5000 });
        times.push(Date.now() - t0);
        await page.waitForTimeout(300);
      }
      await screenshot(page, 'pods-02-created');
      console.log(`pod created through the API -> row in the view: ${times.join(', ')} ms`);
      assert.ok(Math.max(...times) < 1000, `a new pod appeared after ${times.join(', ')} ms (limit 1000 ms)`);
      assert.ok(await row(page, 'iis-7c9d5f8b6-abcde').isVisible(), 'the pods shown before are still there');
      const dup = await duplicateIdErrors(page);
      if (dup.length) console.log(`kube-windows log:\n${extensionLog(cs)}`);
      assert.deepEqual(dup, []);
    },
  );

  test('a collapsed Pods group shows the pods as they are when expanded again', { timeout: 60_000 }, async () => {
    const pods = row(page, /^Pods$/);
    await pods.click();
    await page
      .locator('.pane-body .monaco-list-row[aria-expanded="false"]', { hasText: /^Pods$/ })
      .waitFor({ timeout: 10_000 });
    await create('while-collapsed');
    world.emu.remove('Pod', 'live-pod-1', 'win-apps');
    await page.waitForTimeout(500);
    await pods.click();
    await row(page, 'while-collapsed').waitFor({ timeout: 10_000 });
    await row(page, 'live-pod-1').waitFor({ state: 'detached', timeout: 10_000 });
    await screenshot(page, 'pods-03-expanded-again');
    // Watched again: the next pod arrives by itself.
    await page.waitForTimeout(500);
    const t0 = Date.now();
    await create('after-expand');
    await row(page, 'after-expand').waitFor({ timeout: 5000 });
    assert.ok(Date.now() - t0 < 1000, `after-expand appeared after ${Date.now() - t0} ms`);
    assert.deepEqual(await duplicateIdErrors(page), []);
  });
});
