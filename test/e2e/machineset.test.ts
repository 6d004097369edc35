// Windows MachineSets in a real VS Code (code-server 4.100 in Chromium), as a user does it: right-click
// the cluster → "Create Windows MachineSet…" → answer the questions → the MachineSet opens as an
// untitled YAML editor; a classic mistake typed in (the Linux worker-user-data) shows WIN087 in the
// Problems panel and goes when fixed; "Create in <context>" above its first line creates it; its
// Machines appear under the MachineSet in the Clusters view and reach Running, in the view and in the
// API emulator (the machine-controller double plays the machine-api controllers and WMCO).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World } from '../support/sandbox-world';
import { CLUSTER } from '../support/machine-api-seed';
import {
  answer,
  closeWorkbench,
  extensionLog,
  openKubeWindows,
  pick,
  ROOT,
  screenshot,
  startWorkbench,
  waitFor,
  type CodeServer,
} from './harness';

const CONTEXT = 'kube-windows-e2e-ms';
const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
const MS = CLUSTER.AWS.windowsName;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('Windows MachineSet: create from the cluster, edit, apply, Machines to Running', { timeout: 420_000 }, () => {
  let world: World;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let worldDir: string;
  const rows = () => page.locator('.pane-body .monaco-list-row');
  const problems = () => page.locator('.markers-panel .monaco-list-row');

  /** On failure: a screenshot and the extension's log. */
  const shot =
    (name: string, fn: () => Promise<void>): (() => Promise<void>) =>
    async () => {
      try {
        await fn();
      } catch (err) {
        if (page) await screenshot(page, `failed-ms-${name}`).catch(() => undefined);
        if (cs) console.log(`kube-windows log:\n${extensionLog(cs)}`);
        throw err;
      }
    };

  /** Replaces one text by another in the focused editor, with VS Code's replace widget (Ctrl+H, replace all). */
  async function replaceInEditor(from: string, to: string): Promise<void> {
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+H');
    const find = page.locator('.editor-widget.find-widget .find-part textarea').first();
    await find.waitFor({ state: 'visible' });
    await find.fill(from);
    const replace = page.locator('.editor-widget.find-widget .replace-part textarea').first();
    await replace.fill(to);
    await replace.press('Control+Alt+Enter');
    await page.keyboard.press('Escape');
    await page.locator('.monaco-editor .view-lines', { hasText: to }).first().waitFor({ timeout: 15_000 });
  }

  before(
    async () => {
      worldDir = mkdtempSync(join(tmpdir(), 'kw-e2e-ms-'));
      world = await startWorld({ dir: worldDir, context: CONTEXT, hosts: 0, machineApi: { tickMs: 400 } });
      ({ cs, browser, page } = await startWorkbench({
        vsix,
        folder: join(ROOT, 'examples'),
        label: 'kw-e2e-ms-',
        settings: { 'kubeWindows.kubeconfig': world.kubeconfigPath },
      }));
    },
    { timeout: 180_000 },
  );

  after(async () => {
    if (page) await screenshot(page, 'ms-last').catch(() => undefined);
    await closeWorkbench({ cs, browser });
    await world?.stop();
    rmSync(worldDir, { recursive: true, force: true });
  });

  test(
    'right-click the cluster → Create Windows MachineSet… → the YAML draft opens',
    { timeout: 120_000 },
    shot('create', async () => {
      await openKubeWindows(page);
      const cluster = rows().filter({ hasText: CONTEXT }).first();
      await cluster.waitFor({ timeout: 60_000 });
      await rows().filter({ hasText: 'Windows MachineSets' }).first().waitFor({ timeout: 60_000 });
      await cluster.click({ button: 'right' });
      // The menu takes the keyboard (a pointer click on its items does not always register in code-server).
      await page.locator('.context-view .action-label', { hasText: 'Create Windows MachineSet…' }).first().waitFor();
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press('ArrowDown');
        if (
          ((await page.locator('.context-view .action-item.focused').first().textContent()) ?? '').includes(
            'Create Windows MachineSet…',
          )
        )
          break;
      }
      await page.keyboard.press('Enter');
      await pick(page, /Linux worker MachineSet to start from/, CLUSTER.AWS.linuxName);
      await answer(page, /Windows Server image on AWS/, CLUSTER.AWS.windowsImage);
      await answer(page, /name of the Windows MachineSet/, '');
      await answer(page, /replicas/, '1');
      await page
        .locator('.monaco-editor .view-lines', { hasText: `name: ${MS}` })
        .first()
        .waitFor({ timeout: 60_000 });
      await page
        .locator('.notification-toast', { hasText: `review the Windows MachineSet ${MS}` })
        .first()
        .waitFor({ timeout: 30_000 });
      await page
        .locator('.codelens-decoration', { hasText: `Create in ${CONTEXT}` })
        .first()
        .waitFor({ timeout: 30_000 });
      assert.equal(world.emu.get('MachineSet', MS, 'openshift-machine-api'), undefined, 'nothing created yet');
      await screenshot(page, 'ms-01-draft');
    }),
  );

  test(
    'a mistake typed in shows its diagnostic; fixed, it goes',
    { timeout: 120_000 },
    shot('edit', async () => {
      await replaceInEditor('name: windows-user-data', 'name: worker-user-data');
      await page.keyboard.press('Control+Shift+M');
      await problems().filter({ hasText: 'WIN087' }).first().waitFor({ timeout: 60_000 });
      await screenshot(page, 'ms-02-diagnostic');
      await replaceInEditor('name: worker-user-data', 'name: windows-user-data');
      await waitFor(
        async () => (await problems().filter({ hasText: 'WIN087' }).count()) === 0,
        60_000,
        () => 'WIN087 is still in the Problems panel after the fix',
      );
    }),
  );

  test(
    '"Create in <context>" creates it; its Machine appears under it in the view and reaches Running',
    { timeout: 180_000 },
    shot('apply', async () => {
      const t0 = Date.now();
      // The lens is above the first line: back to the top of the draft.
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+Home');
      await page
        .locator('.codelens-decoration a', { hasText: `Create in ${CONTEXT}` })
        .first()
        .click();
      await waitFor(
        () => world.emu.get('MachineSet', MS, 'openshift-machine-api') !== undefined,
        60_000,
        () => `MachineSet ${MS} was not created`,
      );
      const created = world.emu.get('MachineSet', MS, 'openshift-machine-api') as Obj;
      assert.equal(
        created.spec.template.spec.providerSpec.value.userDataSecret.name,
        'windows-user-data',
        'the text as fixed in the editor',
      );
      assert.ok(
        world.emu.requests.some(
          (r) => r.method === 'POST' && r.path.endsWith('/machinesets') && r.query.includes('dryRun=All'),
        ),
        'a server-side dry run first',
      );
      await page
        .locator('.notification-toast', { hasText: `following the Machines of ${MS}` })
        .first()
        .waitFor({ timeout: 30_000 });

      // The group is collapsed: open it as a user would; the MachineSet comes expanded with its Machines.
      const group = rows().filter({ hasText: 'Windows MachineSets' }).first();
      if ((await group.getAttribute('aria-expanded')) !== 'true') await group.click();
      await rows().filter({ hasText: MS }).first().waitFor({ timeout: 60_000 });
      const machineRow = rows()
        .filter({ hasText: new RegExp(`${MS}-[0-9a-f]{5}`) })
        .first();
      await machineRow.waitFor({ timeout: 90_000 });
      await rows()
        .filter({ hasText: new RegExp(`${MS}-[0-9a-f]{5}.*Running`) })
        .first()
        .waitFor({ timeout: 90_000 });
      // (The double also makes the Linux worker MachineSet's Machines.)
      const machines = (world.emu.list('Machine') as Obj[]).filter(
        (m) => m.metadata.labels?.['machine.openshift.io/cluster-api-machineset'] === MS,
      );
      assert.equal(machines.length, 1);
      assert.equal(machines[0]?.status?.phase, 'Running');
      assert.ok(machines[0]?.status?.nodeRef?.name, 'the Machine has its node');
      await page
        .locator('.notification-toast', { hasText: `every Machine of ${MS} is a Ready Windows node` })
        .first()
        .waitFor({ timeout: 90_000 });
      // Created: the draft no longer offers to create it (VS Code asks lenses again when its editor has the focus).
      await page.locator('.monaco-editor .view-lines').first().click();
      await waitFor(
        async () => (await page.locator('.codelens-decoration', { hasText: `Create in ${CONTEXT}` }).count()) === 0,
        30_000,
        () => 'the draft still shows "Create in …" after its MachineSet was created',
      );
      await page.mouse.move(900, 700);
      await screenshot(page, 'ms-03-running');
      console.log(`machineset: created and Running in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }),
  );
});
