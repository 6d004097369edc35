// The README's five-minute tour, walked in a real VS Code (code-server in Chromium) against the sandbox's
// world, asserting what a newcomer sees rather than what the code did: a manifest from examples/bad with
// its findings, a quick fix, the Clusters view whose every summary equals the rows under it, a Windows
// MachineSet made from the tree whose Machine becomes a Ready node (the summaries follow, nothing is
// refreshed by hand), and the walkthrough, opened last, with every step done so far ticked. The
// harness fails any of these tests on an error notification it did not expect.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CLUSTER } from '../support/machine-api-seed';
import { startWorld, type World } from '../support/sandbox-world';
import { assertSummariesMatchRows, render, type ShownRow } from '../support/shown-tree';
import {
  answer,
  closeWorkbench,
  focusRow,
  openKubeWindows,
  pick,
  ROOT,
  runCommand,
  startWorkbench,
  waitFor,
  withShot,
  type CodeServer,
} from './harness';
import { shownRows } from './shown-rows';

const CONTEXT = 'kube-windows-tour';
const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
const GROUPS = ['Windows MachineSets', 'BYOH instances', 'Mirror sets', 'Windows RuntimeClasses', 'Admission policies'];

describe('the first ten minutes: the README tour in a real VS Code', { timeout: 600_000 }, () => {
  let world: World;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let worldDir: string;
  const treeRows = () => page.locator('.pane-body .monaco-list-row');
  const shot = (name: string, fn: () => Promise<void>) => withShot(`tour-${name}`, () => page, fn);

  /** The Clusters view as shown, once it has stopped changing (two equal reads 500 ms apart). */
  async function quietClusters(): Promise<ShownRow[]> {
    let last = '';
    for (const end = Date.now() + 30_000; ; await page.waitForTimeout(500)) {
      const rows = await shownRows(page, 'Clusters');
      const now = render(rows);
      if (now === last && !/Loading…|Connecting…/.test(now)) return rows;
      assert.ok(Date.now() < end, `the Clusters view kept changing:\n${now}`);
      last = now;
    }
  }

  /** Expands a row of the Clusters view (by its label) unless it is. */
  async function expand(label: string | RegExp): Promise<void> {
    const row = treeRows().filter({ hasText: label }).first();
    await row.waitFor({ timeout: 60_000 });
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  }

  const windowsNodesOnTheClusterLine = (rows: ShownRow[]): number => {
    const line = rows[0]?.children?.find((r) => / Windows nodes$/.test(r.label));
    const n = line && /(\d+) Windows nodes$/.exec(line.label);
    assert.ok(n, `no cluster line with a Windows node count:\n${render(rows)}`);
    return Number(n[1]);
  };

  before(
    async () => {
      worldDir = mkdtempSync(join(tmpdir(), 'kw-e2e-tour-'));
      world = await startWorld({ dir: worldDir, context: CONTEXT, hosts: 0, machineApi: { tickMs: 400 } });
      ({ cs, browser, page } = await startWorkbench({
        vsix,
        folder: join(ROOT, 'examples'),
        label: 'kw-e2e-tour-',
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

  test(
    'a manifest from examples/bad: its findings in the Problems panel, a quick fix removes one',
    { timeout: 120_000 },
    shot('manifest', async () => {
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'bad' }).first().click();
      await page
        .locator('.explorer-folders-view .monaco-list-row', { hasText: 'forbidden-security-context.yaml' })
        .first()
        .click();
      await page.locator('.monaco-editor .view-lines', { hasText: 'privileged' }).first().waitFor({ timeout: 30_000 });
      await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
      const findings = page.locator('.markers-panel .monaco-list-row', { hasText: 'WIN002' });
      await findings.first().waitFor({ timeout: 60_000 });
      const before = await findings.count();
      await findings.first().dblclick();
      await page.locator('.monaco-editor.focused').first().waitFor();
      await page.keyboard.press('Control+.');
      const fix = page
        .locator('.action-widget .monaco-list-row.action')
        .filter({ hasNotText: /Disable|Fix all/ })
        .first();
      await fix.waitFor({ timeout: 30_000 });
      await focusRow(page, '.action-widget .monaco-list-row.action', (await fix.getAttribute('aria-label')) ?? '');
      await page.keyboard.press('Enter');
      await waitFor(
        async () => (await findings.count()) < before,
        30_000,
        () => 'the WIN002 finding stayed after its quick fix',
      );
      // Undo, so that the example stays as shipped for the other tests of the run.
      await page.keyboard.press('Control+Z');
    }),
  );

  test(
    'the Clusters view: the cluster expands, and every summary equals the rows under it',
    { timeout: 120_000 },
    shot('clusters', async () => {
      await openKubeWindows(page);
      await treeRows().filter({ hasText: CONTEXT }).first().waitFor({ timeout: 60_000 });
      await treeRows().filter({ hasText: 'Windows nodes' }).first().waitFor({ timeout: 60_000 });
      for (const group of GROUPS) await expand(group);
      const rows = await quietClusters();
      assertSummariesMatchRows(rows);
      assert.equal(windowsNodesOnTheClusterLine(rows), 3, render(rows));
    }),
  );

  test(
    'a Windows MachineSet made from the tree: its Machine becomes a Ready node, and the summaries follow',
    { timeout: 240_000 },
    shot('machineset', async () => {
      const ms = CLUSTER.AWS.windowsName;
      const cluster = treeRows().filter({ hasText: CONTEXT }).first();
      await cluster.click({ button: 'right' });
      await page.locator('.context-view .action-label', { hasText: 'Create Windows MachineSet…' }).first().waitFor();
      // The menu takes the keyboard (a pointer click on its items does not always register in code-server).
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press('ArrowDown');
        const focused = (await page.locator('.context-view .action-item.focused').first().textContent()) ?? '';
        if (focused.includes('Create Windows MachineSet…')) break;
      }
      await page.keyboard.press('Enter');
      await createMachineSetFromPrompts(page);
      await page
        .locator('.monaco-editor .view-lines', { hasText: `name: ${ms}` })
        .first()
        .waitFor({ timeout: 60_000 });
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+Home');
      await page
        .locator('.codelens-decoration a', { hasText: `Create in ${CONTEXT}` })
        .first()
        .click();
      await page
        .locator('.notification-toast', { hasText: `every Machine of ${ms} is a Ready Windows node` })
        .first()
        .waitFor({ timeout: 150_000 });
      // What the toast says, the view says too, without a refresh: 4 Windows nodes, the MachineSet 1/1 ready.
      // (Not the activity bar icon: our view container is still the active one, and a click would close it.)
      await runCommand(page, 'Windows on Kubernetes: Focus on Clusters View');
      await expand(ms);
      let rows: ShownRow[] = [];
      await waitFor(
        async () => {
          rows = await quietClusters();
          const msRow = rows[0]?.children
            ?.find((g) => g.label === 'Windows MachineSets')
            ?.children?.find((r) => r.label === ms);
          return windowsNodesOnTheClusterLine(rows) === 4 && /^1\/1 ready/.test(msRow?.description ?? '');
        },
        30_000,
        () => `the view does not show the new node and "1/1 ready":\n${render(rows)}`,
      );
      assertSummariesMatchRows(rows);
    }),
  );

  test(
    'the walkthrough, opened last, has ticked every step done so far',
    { timeout: 90_000 },
    shot('walkthrough', async () => {
      await runCommand(page, 'Welcome: Open Walkthrough...');
      await page
        .locator('.quick-input-widget .monaco-list-row', { hasText: 'Get started with kube-windows' })
        .first()
        .click();
      const checked = (step: string) =>
        page
          .locator(`[data-done-step-id$="#${step}"]`)
          .first()
          .getAttribute('aria-checked')
          .then((v) => v === 'true');
      for (const step of ['openManifest', 'seeDiagnostic', 'applyQuickFix', 'openClusterView'])
        await waitFor(
          () => checked(step),
          15_000,
          () => `the walkthrough's "${step}" step is not ticked after the tour did it`,
        );
    }),
  );
});

/** Answers the MachineSet questions with the seeded Linux worker and the defaults offered. */
async function createMachineSetFromPrompts(page: Page): Promise<void> {
  await pick(page, /Linux worker MachineSet to start from/, CLUSTER.AWS.linuxName);
  await answer(page, /Windows Server image on AWS/, CLUSTER.AWS.windowsImage);
  await answer(page, /name of the Windows MachineSet/, '');
  await answer(page, /replicas/, '1');
}
