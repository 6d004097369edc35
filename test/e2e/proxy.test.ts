// A proxy-enabled cluster in a real VS Code (code-server in Chromium), as the sandbox has it: the
// OpenShift cluster's Proxy names a proxy (a stand-in on loopback) and a trusted CA bundle, WMCO's
// proxy variables are on every node host, and winworker-2019-a's NO_PROXY has drifted. The cluster's
// first row names the proxy; right-click that node → "Show proxy settings" reads the host over SSH and
// opens the read-only document with the drift marked, and the notification names it. Then the Proxy's
// trusted CA bundle loses its certificate: "Create Windows MachineSet…" is refused before its first
// question, nothing is created, and "Show proxy findings" shows every finding in the output panel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World } from '../support/sandbox-world';
import {
  closeWorkbench,
  expectNotification,
  extensionLog,
  freePort,
  notificationsSeen,
  openKubeWindows,
  outputLines,
  ROOT,
  screenshot,
  startWorkbench,
  type CodeServer,
} from './harness';

const CONTEXT = 'kube-windows-e2e-proxy';
const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');

describe(
  'a proxy-enabled cluster in a real VS Code: the cluster row and "Show proxy settings"',
  { timeout: 360_000 },
  () => {
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
          if (page) await screenshot(page, `failed-proxy-${name}`).catch(() => undefined);
          if (cs) console.log(`kube-windows log:\n${extensionLog(cs)}`);
          throw err;
        }
      };

    before(
      async () => {
        worldDir = mkdtempSync(join(tmpdir(), 'kw-e2e-proxy-'));
        world = await startWorld({
          dir: worldDir,
          context: CONTEXT,
          hosts: 0,
          nodeHosts: true,
          proxy: true,
          // An AWS cluster with the Machine API: what "Create Windows MachineSet…" starts from.
          machineApi: { tickMs: 400 },
          sshPort: await freePort(),
        });
        ({ cs, browser, page } = await startWorkbench({
          vsix,
          folder: join(ROOT, 'examples'),
          label: 'kw-e2e-proxy-',
          settings: {
            'kubeWindows.kubeconfig': world.kubeconfigPath,
            'kubeWindows.ssh.port': world.sshPort,
            'kubeWindows.ssh.knownHostsFile': world.knownHostsPath,
            'kubeWindows.ssh.privateKeyPath': world.keyPath,
          },
          env: { XDG_STATE_HOME: join(worldDir, 'state') },
        }));
      },
      { timeout: 180_000 },
    );

    after(async () => {
      if (page) await screenshot(page, 'proxy-last').catch(() => undefined);
      await closeWorkbench({ cs, browser });
      await world?.stop();
      rmSync(worldDir, { recursive: true, force: true });
    });

    test(
      "the cluster's first row names the cluster-wide proxy",
      { timeout: 120_000 },
      shot('row', async () => {
        await openKubeWindows(page);
        const url = world.proxy?.url as string;
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
        const row = rows()
          .filter({ hasText: `proxy ${url}` })
          .first();
        await row.waitFor({ timeout: 60_000 });
        assert.match(await row.innerText(), /OpenShift/);
        await screenshot(page, 'proxy-01-cluster-row');
      }),
    );

    test(
      'right-click the drifted node → "Show proxy settings" → the document marks the drift, the notification names it',
      { timeout: 120_000 },
      shot('show', async () => {
        const node = world.proxy?.driftedNode as string;
        assert.equal(node, 'winworker-2019-a');
        const row = rows().filter({ hasText: node }).first();
        await row.waitFor({ timeout: 60_000 });
        await row.click({ button: 'right' });
        const item = 'Show proxy settings';
        await page.locator('.context-view .action-label', { hasText: item }).first().waitFor();
        // By keyboard: pointer clicks on menu items do not always register in code-server.
        for (let i = 0; i < 30; i++) {
          await page.keyboard.press('ArrowDown');
          const focused = (await page.locator('.context-view .action-item.focused').first().textContent()) ?? '';
          if (focused.trim().startsWith(item)) break;
        }
        await page.keyboard.press('Enter');
        const lines = page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'Proxy settings of' });
        await lines.first().waitFor({ timeout: 60_000 });
        // The document is longer than the editor: what matters is in the first screen and the tab's name.
        const text = (await lines.first().innerText()).replace(/\u00a0/g, ' ');
        assert.match(text, new RegExp(`^Proxy settings of ${node}`));
        assert.match(text, /Expected \(proxies\.config\.openshift\.io\/cluster\):/);
        assert.match(text, /NO_PROXY {4}\.svc,\.cluster\.local {2}≠ expected /);
        await page
          .locator('.tab', { hasText: `${node}.txt` })
          .first()
          .waitFor({ timeout: 10_000 });
        const warned = async () =>
          notificationsSeen(page).find((n) => n.severity === 'warning' && n.text.includes(`${node}: Drift:`));
        const end = Date.now() + 30_000;
        while (!(await warned()) && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
        const warning = await warned();
        assert.ok(warning, `a warning names the drift (seen: ${JSON.stringify(notificationsSeen(page))})`);
        assert.match(
          warning.text,
          /Drift: machine NO_PROXY differs from what the cluster expects \(WMCO reconciles this periodically; never seen equal by kube-windows\)/,
        );
        await screenshot(page, 'proxy-02-show-settings');
      }),
    );

    test(
      'a proxy no Machine could use: "Create Windows MachineSet…" is refused before any question, nothing is created, "Show proxy findings" lists them',
      { timeout: 120_000 },
      shot('machineset', async () => {
        // The bundle lost its certificate: WMCO would have nothing to import, the Machines' pulls would fail.
        world.emu.patch('ConfigMap', 'user-ca-bundle', 'openshift-config', { data: { 'ca-bundle.crt': '' } });
        const refusal =
          /a Windows MachineSet cannot be created in kube-windows-e2e-proxy: the cluster's proxy would stall its Machines: The trusted CA bundle ConfigMap openshift-config\/user-ca-bundle cannot be used/;
        expectNotification(refusal);
        const cluster = rows().filter({ hasText: CONTEXT }).first();
        await cluster.click({ button: 'right' });
        const item = 'Create Windows MachineSet…';
        await page.locator('.context-view .action-label', { hasText: item }).first().waitFor();
        for (let i = 0; i < 30; i++) {
          await page.keyboard.press('ArrowDown');
          const focused = (await page.locator('.context-view .action-item.focused').first().textContent()) ?? '';
          if (focused.trim().startsWith(item)) break;
        }
        await page.keyboard.press('Enter');
        const toast = page.locator('.notification-toast', { hasText: refusal }).first();
        await toast.waitFor({ timeout: 60_000 });
        assert.equal(await page.locator('.quick-input-widget:visible').count(), 0, 'not one question was asked');
        assert.equal(
          world.emu.list('MachineSet').filter((m) => m.metadata.name.includes('windows')).length,
          0,
          'no Windows MachineSet',
        );
        assert.ok(
          !world.emu.requests.some((r) => r.method === 'POST' && /machinesets/.test(r.path)),
          'nothing was sent to create one',
        );
        await toast.hover();
        await toast.locator('.monaco-button', { hasText: 'Show proxy findings' }).first().click();
        await page
          .locator('.panel .view-lines', { hasText: 'Not checked until a Machine exists' })
          .first()
          .waitFor({ timeout: 30_000 });
        const lines = outputLines(page).join('\n');
        assert.match(lines, /✗ The trusted CA bundle ConfigMap openshift-config\/user-ca-bundle cannot be used/);
        assert.match(lines, /✓ Not checked until a Machine exists/);
        await screenshot(page, 'proxy-03-machineset-refused');
      }),
    );
  },
);
