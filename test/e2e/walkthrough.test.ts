// The Get Started walkthrough as a newcomer meets it in a real VS Code (code-server in Chromium):
// open it from the Welcome page's command, open the example manifest from its first step, see the
// findings, apply a quick fix with the keyboard, open the cluster tree; each step is checked off on
// the page by VS Code itself (its completion events), which is what this asserts. The pages are
// screenshotted for the README.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  closeWorkbench,
  focusRow,
  ROOT,
  runCommand,
  screenshot,
  startWorkbench,
  waitFor,
  withShot,
  type CodeServer,
} from './harness';

const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
const STEPS = [
  'Open a Windows manifest',
  'See what the API server would reject',
  'Apply a quick fix',
  'Open the cluster tree',
  'Try the sandbox',
  'Join a node: dry-run',
];

describe('the Get Started walkthrough in a real VS Code', { timeout: 400_000 }, () => {
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let empty: string;

  before(
    async () => {
      // An empty folder: the walkthrough's example is the only manifest, as for someone who just installed it.
      empty = mkdtempSync(join(tmpdir(), 'kw-walkthrough-'));
      ({ cs, browser, page } = await startWorkbench({
        vsix,
        folder: empty,
        settings: { 'kubeWindows.kubeconfig': join(empty, 'no-kubeconfig') },
      }));
    },
    { timeout: 180_000 },
  );

  after(async () => {
    await closeWorkbench({ cs, browser });
    rmSync(empty, { recursive: true, force: true });
  });

  // VS Code prefixes a step's id with its walkthrough's ("<extension>#<walkthrough>#<step>").
  const done = (step: string) => page.locator(`[data-done-step-id$="#${step}"]`).first();
  const checked = async (step: string) => (await done(step).getAttribute('aria-checked')) === 'true';
  const openWalkthroughTab = async () => {
    await page.locator('.tabs-container .tab', { hasText: 'Walkthrough: kube-windows' }).first().click();
    await page.locator('.gettingStartedContainer').first().waitFor({ timeout: 30_000 });
  };

  test(
    'it opens from the Welcome command with its steps, none done',
    { timeout: 90_000 },
    withShot(
      'walkthrough-open',
      () => page,
      async () => {
        await runCommand(page, 'Welcome: Open Walkthrough...');
        // The picker has a placeholder ("Select a walkthrough to open"), no title.
        await page
          .locator('.quick-input-widget .monaco-list-row', { hasText: 'Get started with kube-windows' })
          .first()
          .click();
        for (const title of STEPS)
          await page.locator('button.getting-started-step', { hasText: title }).first().waitFor({ timeout: 30_000 });
        for (const step of ['openManifest', 'applyQuickFix', 'openClusterView'])
          assert.equal(await checked(step), false, `${step} done before anything happened`);
        await screenshot(page, 'walkthrough');
      },
    ),
  );

  test(
    '"Open the example" opens a Windows Deployment with findings, and the step is checked',
    { timeout: 90_000 },
    withShot(
      'walkthrough-example',
      () => page,
      async () => {
        await page.locator('button.getting-started-step', { hasText: STEPS[0] }).first().click();
        await page.getByRole('button', { name: 'Open the example' }).first().click();
        await page
          .locator('.monaco-editor .view-lines', { hasText: 'readOnlyRootFilesystem' })
          .first()
          .waitFor({ timeout: 30_000 });
        await openWalkthroughTab();
        await waitFor(
          () => checked('openManifest'),
          15_000,
          () => 'the "Open a Windows manifest" step is not checked',
        );
        // The next step's button shows the Problems panel with the example's findings.
        await page.locator('button.getting-started-step', { hasText: STEPS[1] }).first().click();
        await page.getByRole('button', { name: 'Show the Problems panel' }).first().click();
        await page
          .locator('.markers-panel .monaco-list-row', { hasText: 'WIN002' })
          .first()
          .waitFor({ timeout: 60_000 });
        await screenshot(page, 'walkthrough-findings');
        await waitFor(
          () => checked('seeDiagnostic'),
          15_000,
          () => 'the "See what the API server would reject" step is not checked after the Problems panel was shown',
        );
      },
    ),
  );

  test(
    'a quick fix applied from the keyboard removes its finding and checks "Apply a quick fix"',
    { timeout: 90_000 },
    withShot(
      'walkthrough-quick-fix',
      () => page,
      async () => {
        await page.locator('.tabs-container .tab', { hasText: 'Windows Deployment example' }).first().click();
        const rows = page.locator('.markers-panel .monaco-list-row', { hasText: 'WIN002' });
        const before = await rows.count();
        await rows.first().dblclick();
        await page.locator('.monaco-editor.focused').first().waitFor();
        await page.keyboard.press('Control+.');
        const fix = page
          .locator('.action-widget .monaco-list-row.action')
          .filter({ hasNotText: /Disable|Fix all/ })
          .first();
        await fix.waitFor({ timeout: 30_000 });
        const title = (await fix.getAttribute('aria-label')) ?? '';
        await focusRow(page, '.action-widget .monaco-list-row.action', title);
        await page.keyboard.press('Enter');
        await waitFor(
          async () => (await rows.count()) < before,
          30_000,
          () => `the WIN002 findings stayed after "${title}"`,
        );
        await openWalkthroughTab();
        await waitFor(
          () => checked('applyQuickFix'),
          15_000,
          () => 'the "Apply a quick fix" step is not checked',
        );
      },
    ),
  );

  test(
    'opening the cluster tree checks its step; the steps not done stay unchecked',
    { timeout: 90_000 },
    withShot(
      'walkthrough-cluster',
      () => page,
      async () => {
        await page.locator('button.getting-started-step', { hasText: STEPS[3] }).first().click();
        await page.getByRole('button', { name: 'Open the Clusters view' }).first().click();
        await page
          .locator('.activitybar .action-item.checked .action-label[aria-label^="Windows on Kubernetes"]')
          .first()
          .waitFor({ timeout: 30_000 });
        await openWalkthroughTab();
        await waitFor(
          () => checked('openClusterView'),
          15_000,
          () => 'the "Open the cluster tree" step is not checked',
        );
        assert.equal(await checked('trySandbox'), false);
        assert.equal(await checked('joinDryRun'), false);
        await screenshot(page, 'walkthrough-progress');
      },
    ),
  );
});
