// The Get Started walkthrough as a newcomer meets it in a real VS Code (code-server in Chromium):
// first what people do before they ever open it (a manifest of their own, its findings, a quick fix),
// which must be counted when they do; then from the Welcome page's command: the example manifest
// from its first step, its findings, a quick fix with the keyboard, the cluster tree, the sandbox
// command, and a reload. Each step is checked off on the page by VS Code itself (its completion
// events), which is what this asserts. The pages are screenshotted for the README.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  closeWorkbench,
  focusRow,
  notificationsSeen,
  outputLines,
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
      // A folder with one manifest of the user's own (a copy of the example), as for someone who just installed it.
      empty = mkdtempSync(join(tmpdir(), 'kw-walkthrough-'));
      copyFileSync(join(ROOT, 'media', 'walkthrough', 'example-deployment.yaml'), join(empty, 'windows.yaml'));
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

  /** Applies the first kube-windows quick fix of a WIN002 row of the Problems panel; returns its title. */
  const applyQuickFix = async () => {
    const rows = page.locator('.markers-panel .monaco-list-row', { hasText: 'WIN002' });
    await rows.first().waitFor({ timeout: 60_000 });
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
  };
  const openWalkthrough = async () => {
    await runCommand(page, 'Welcome: Open Walkthrough...');
    // The picker has a placeholder ("Select a walkthrough to open"), no title.
    await page
      .locator('.quick-input-widget .monaco-list-row', { hasText: 'Get started with kube-windows' })
      .first()
      .click();
    for (const title of STEPS)
      await page.locator('button.getting-started-step', { hasText: title }).first().waitFor({ timeout: 30_000 });
  };
  const expectChecked = (step: string, title: string) =>
    waitFor(
      () => checked(step),
      15_000,
      () => `the "${title}" step is not checked`,
    );

  test(
    'what was done before the walkthrough was opened is checked when it opens, and only that',
    { timeout: 150_000 },
    withShot(
      'walkthrough-before',
      () => page,
      async () => {
        // A manifest of one's own, from the Explorer; its findings in the Problems panel; a quick fix.
        await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'windows.yaml' }).first().click();
        await page
          .locator('.monaco-editor .view-lines', { hasText: 'readOnlyRootFilesystem' })
          .first()
          .waitFor({ timeout: 30_000 });
        await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
        await applyQuickFix();
        await openWalkthrough();
        await expectChecked('openManifest', STEPS[0]);
        await expectChecked('seeDiagnostic', STEPS[1]);
        await expectChecked('applyQuickFix', STEPS[2]);
        for (const step of ['openClusterView', 'trySandbox', 'joinDryRun'])
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
    "a quick fix applied from the keyboard to the walkthrough's example removes its finding, and the step stays checked",
    { timeout: 90_000 },
    withShot(
      'walkthrough-quick-fix',
      () => page,
      async () => {
        await page.locator('.tabs-container .tab', { hasText: 'Windows Deployment example' }).first().click();
        await applyQuickFix();
        await openWalkthroughTab();
        await expectChecked('applyQuickFix', STEPS[2]);
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

  test(
    '"Copy the command" copies the sandbox command and checks "Try the sandbox"',
    { timeout: 60_000 },
    withShot(
      'walkthrough-sandbox',
      () => page,
      async () => {
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
        await page.locator('button.getting-started-step', { hasText: STEPS[4] }).first().click();
        await page.getByRole('button', { name: 'Copy the command' }).first().click();
        await page
          .locator('.notification-toast', { hasText: 'Copied "npm ci && npm run sandbox"' })
          .first()
          .waitFor({ timeout: 15_000 });
        await expectChecked('trySandbox', STEPS[4]);
        assert.equal(await page.evaluate('navigator.clipboard.readText()'), 'npm ci && npm run sandbox');
        // The harness saw the toast, with its severity: what its guard against error notifications relies on.
        const copied = notificationsSeen(page).filter((n) => n.text.includes('Copied "npm ci && npm run sandbox"'));
        assert.deepEqual(
          copied.map((n) => n.severity),
          ['info'],
          JSON.stringify(notificationsSeen(page)),
        );
        // And the output channels' lines, which a failing test reports: the extension's log says it activated.
        assert.ok(
          outputLines(page).some((l) => /^\[kube-windows\] .*activate took/.test(l)),
          outputLines(page).slice(0, 20).join('\n'),
        );
      },
    ),
  );

  test(
    'after a window reload the walkthrough shows the same steps checked',
    { timeout: 90_000 },
    withShot(
      'walkthrough-reload',
      () => page,
      async () => {
        // As a user reloads: VS Code's own command, which saves state before the page goes. (The keyboard
        // goes to the workbench first: after "Copy the command" it may still be with the clipboard's page.)
        await openWalkthroughTab();
        await runCommand(page, 'Developer: Reload Window');
        await page.waitForEvent('framenavigated', { timeout: 30_000 });
        await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
        await page.locator('.activitybar .action-item').first().waitFor({ timeout: 60_000 });
        await openWalkthrough();
        for (const [i, step] of [
          'openManifest',
          'seeDiagnostic',
          'applyQuickFix',
          'openClusterView',
          'trySandbox',
        ].entries())
          await expectChecked(step, STEPS[i] ?? step);
        assert.equal(await checked('joinDryRun'), false);
      },
    ),
  );
});
