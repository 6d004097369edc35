// Pod actions in a real VS Code (code-server in Chromium), as a user does them: expand a Windows node
// → Pods → right-click a pod → "Logs…" → pick the container and "Show the log" → its log text opens
// in a read-only editor; right-click it again → "Describe" → the document opens with the failure
// explanation on top (the pod's sidecar cannot pull its image: no manifest for the node's build).
// Same world as `npm run sandbox` (OpenShift with WMCO, Windows nodes of two builds), plus that pod.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World } from '../support/sandbox-world';
import { pod } from '../support/kube-seed';
import type { KubeObject } from '../support/kube-api-emulator';
import {
  closeWorkbench,
  extensionLog,
  openKubeWindows,
  pick,
  ROOT,
  screenshot,
  startWorkbench,
  type CodeServer,
} from './harness';

const CONTEXT = 'kube-windows-e2e-pods';
const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
const NODE = 'winworker-2022-b';
const POD = 'shop-5d8c7b9f4-q7x2m';
const LOG = 'GET /index.html 200 12ms\nGET /api/cart 500 3ms\n';
const PULL =
  'Failed to pull image "contoso/cart-sidecar:1.4": no matching manifest for windows/amd64 10.0.20348 in the manifest list entries';

/** A pod of two containers: the web server runs (and logs), its sidecar cannot pull its image. */
function shopPod(): KubeObject {
  const p = pod(POD, 'win-apps', NODE, {
    windows: true,
    phase: 'Pending',
    image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
    runtimeClassName: 'windows2022',
  });
  const spec = p.spec as { containers: { name: string; image: string }[] };
  spec.containers = [
    { name: 'web', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' },
    { name: 'cart-sidecar', image: 'contoso/cart-sidecar:1.4' },
  ];
  (p.metadata as Record<string, unknown>).ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'shop-5d8c7b9f4', uid: 'uid-shop-rs', controller: true },
  ];
  (p.status as Record<string, unknown>).containerStatuses = [
    {
      name: 'web',
      image: spec.containers[0]!.image,
      ready: true,
      restartCount: 0,
      state: { running: { startedAt: '2026-11-25T09:00:00Z' } },
    },
    {
      name: 'cart-sidecar',
      image: 'contoso/cart-sidecar:1.4',
      ready: false,
      restartCount: 0,
      state: { waiting: { reason: 'ErrImagePull', message: PULL } },
    },
  ];
  return p;
}

describe('pod actions in a real VS Code: Logs and Describe from the pod’s context menu', { timeout: 360_000 }, () => {
  let world: World;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let worldDir: string;
  const rows = () => page.locator('.pane-body .monaco-list-row');

  const shot =
    (name: string, fn: () => Promise<void>): (() => Promise<void>) =>
    async () => {
      try {
        await fn();
      } catch (err) {
        if (page) await screenshot(page, `failed-pods-${name}`).catch(() => undefined);
        if (cs) console.log(`kube-windows log:\n${extensionLog(cs)}`);
        throw err;
      }
    };

  /** Right-clicks the pod's row and runs the menu item (by keyboard: pointer clicks on menu items do not always register in code-server). */
  async function fromContextMenu(item: string): Promise<void> {
    const row = rows().filter({ hasText: POD }).first();
    await row.click({ button: 'right' });
    await page.locator('.context-view .action-label', { hasText: item }).first().waitFor();
    for (let i = 0; i < 16; i++) {
      await page.keyboard.press('ArrowDown');
      if (
        ((await page.locator('.context-view .action-item.focused').first().textContent()) ?? '').trim().startsWith(item)
      )
        break;
    }
    await page.keyboard.press('Enter');
  }

  /** The text of the visible editor (its rendered lines). */
  const editorText = async (): Promise<string> =>
    (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');

  before(
    async () => {
      worldDir = mkdtempSync(join(tmpdir(), 'kw-e2e-pods-'));
      world = await startWorld({ dir: worldDir, context: CONTEXT, hosts: 0 });
      world.emu.apply(shopPod());
      world.emu.setPodLog('win-apps', POD, 'web', LOG);
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
    if (page) await screenshot(page, 'pods-last').catch(() => undefined);
    await closeWorkbench({ cs, browser });
    await world?.stop();
    rmSync(worldDir, { recursive: true, force: true });
  });

  test(
    'expand a Windows node → Pods → the pod appears',
    { timeout: 120_000 },
    shot('expand', async () => {
      await openKubeWindows(page);
      const node = rows().filter({ hasText: NODE }).first();
      await node.waitFor({ timeout: 60_000 });
      if ((await node.getAttribute('aria-expanded')) !== 'true') await node.click();
      // The node's own Pods group (the first one after the node's row).
      const pods = page.locator(`.pane-body .monaco-list-row:below(:text("${NODE}"))`, { hasText: /^Pods/ }).first();
      await pods.waitFor({ timeout: 60_000 });
      await pods.click();
      await rows().filter({ hasText: POD }).first().waitFor({ timeout: 60_000 });
      await screenshot(page, 'pods-01-expanded');
    }),
  );

  test(
    'right-click the pod → Logs… → pick the container, "Show the log" → the log text in an editor',
    { timeout: 90_000 },
    shot('logs', async () => {
      await fromContextMenu('Logs…');
      await pick(page, /the log of which container/, 'web');
      await pick(page, /the log of shop/, 'Show the log');
      await page
        .locator('.editor-instance .monaco-editor .view-lines', { hasText: 'GET /api/cart 500' })
        .first()
        .waitFor({ timeout: 30_000 });
      const text = await editorText();
      assert.match(text, /GET \/index\.html 200 12ms\s+GET \/api\/cart 500 3ms/);
      assert.ok(
        world.emu.requests.some(
          (r) =>
            r.path === `/api/v1/namespaces/win-apps/pods/${POD}/log` &&
            r.query === 'container=web&tailLines=10000' &&
            r.status === 200,
        ),
        'the log was read through pods/log',
      );
      await screenshot(page, 'pods-02-logs');
    }),
  );

  test(
    'right-click the pod → Describe → the failure explanation on top',
    { timeout: 90_000 },
    shot('describe', async () => {
      await fromContextMenu('Describe');
      await page
        .locator('.editor-instance .monaco-editor .view-lines', { hasText: 'WINF002' })
        .first()
        .waitFor({ timeout: 30_000 });
      const text = await editorText();
      const lines = text.split('\n').map((l) => l.trim());
      assert.match(lines[0] ?? '', new RegExp(`^Pod win-apps/${POD}$`));
      const why = lines.findIndex((l) => l.startsWith('== Why it fails'));
      const status = lines.findIndex((l) => l === '== Status');
      assert.ok(why > 0 && status > why, `the explanation comes before the status:\n${text}`);
      assert.match(lines[why + 1] ?? '', /^ERROR WINF002 .*\(container cart-sidecar\)$/);
      assert.match(text, /State: +Waiting \(ErrImagePull\)/);
      await screenshot(page, 'pods-03-describe');
    }),
  );
});
