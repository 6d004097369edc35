// The "Windows workload problems" view in a real VS Code (code-server in Chromium) against the API
// emulator: the view is opened as a user does (activity bar, then its pane), lists the objects with findings of the
// current context, expands the failing Windows pod into its findings, and clicking the failure
// explanation opens the pod's live YAML, read-only, with the diagnostic underlined in the editor and
// listed in the Problems panel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ProblemsTree } from '../../src/views/problems-tree';
import type { Emulator } from '../support/kube-api-emulator';
import { startProblemsEmulator, writeProblemsKubeconfig } from '../support/problems-seed';
import {
  closeWorkbench,
  extensionLog,
  openKubeWindows,
  ROOT,
  runCommand,
  screenshot,
  startWorkbench,
  type CodeServer,
} from './harness';

const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');

describe('Windows workload problems view in a real VS Code', { timeout: 300_000 }, () => {
  let emu: Emulator;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let kubeconfig: string;
  const rows = () => page.locator('.pane-body .monaco-list-row');
  const row = (text: string) => rows().filter({ hasText: text }).first();

  before(
    async () => {
      emu = await startProblemsEmulator();
      dir = mkdtempSync(join(tmpdir(), 'kw-e2e-problems-'));
      kubeconfig = writeProblemsKubeconfig(emu, dir);
      ({ cs, browser, page } = await startWorkbench({
        vsix,
        folder: join(ROOT, 'examples'),
        label: 'kw-e2e-problems-',
        settings: { 'kubeWindows.kubeconfig': kubeconfig },
      }));
    },
    { timeout: 180_000 },
  );

  after(async () => {
    await closeWorkbench({ cs, browser });
    await emu?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test(
    'the view lists the objects with findings; a finding opens the live YAML with its diagnostic',
    { timeout: 180_000 },
    async () => {
      try {
        // As a user: the activity bar entry, then the view's header when its pane is collapsed.
        await openKubeWindows(page);
        const header = page.locator('.pane-header', { hasText: 'Windows workload problems' }).first();
        await header.waitFor({ timeout: 60_000 });
        if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
        await row('Deployment web/iis').waitFor({ timeout: 90_000 });
        await row('Pod web/api-0').waitFor({ timeout: 10_000 });
        // The view's description names the scope.
        await page
          .locator('.pane-header', { hasText: 'Windows workload problems' })
          .filter({ hasText: 'lab · all namespaces' })
          .first()
          .waitFor({ timeout: 10_000 });
        await screenshot(page, 'problems-01-view');

        // Expand the pod by its twistie (a click on the label opens the object).
        await row('Pod web/api-0').locator('.monaco-tl-twistie').click();
        const finding = row('WINF001');
        await finding.waitFor({ timeout: 30_000 });
        assert.match(await finding.innerText(), /needs Windows Server 2019/);
        await finding.click();

        // The live YAML, read-only, with the explanation underlined at the image key.
        const editor = page.locator('.editor-instance .monaco-editor').first();
        await page.locator('.tab', { hasText: 'api-0.yaml' }).first().waitFor({ timeout: 30_000 });
        await editor.locator('.view-lines', { hasText: 'servercore:ltsc2019' }).waitFor({ timeout: 30_000 });
        await editor.locator('.squiggly-error').first().waitFor({ timeout: 30_000 });
        await screenshot(page, 'problems-02-live-yaml');
        // The cursor was put on the finding: the status bar shows its line and column.
        const doc = await new ProblemsTree({ locate: { explicit: kubeconfig } }).document({
          kind: 'Pod',
          namespace: 'web',
          name: 'api-0',
        });
        const at = doc?.findings.find((f) => f.ruleId === 'WINF001')?.range.start;
        assert.ok(at);
        // (The finding's range is selected: the cursor stands at its end, "Ln 16, Col 12 (5 selected)".)
        await page
          .locator('.statusbar-item', {
            hasText: new RegExp(`^Ln ${at.line + 1}, Col \\d+ \\(${'image'.length} selected\\)`),
          })
          .first()
          .waitFor({ timeout: 10_000 });
        await page.keyboard.type('x');
        await page
          .locator('.monaco-editor-overlaymessage, .notification-toast', { hasText: /read-?only|Cannot edit/i })
          .first()
          .waitFor({ timeout: 10_000 });

        // The Problems panel lists it under the document.
        await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
        const problems = page.locator('.markers-panel .monaco-list-row');
        await problems.filter({ hasText: 'WINF001' }).first().waitFor({ timeout: 30_000 });
        assert.ok(
          (await problems.filter({ hasText: 'api-0.yaml' }).count()) > 0,
          'the panel groups the finding under api-0.yaml',
        );
        await screenshot(page, 'problems-03-panel');
      } catch (err) {
        await screenshot(page, 'problems-failed').catch(() => undefined);
        console.log(`kube-windows log:\n${extensionLog(cs)}`);
        throw err;
      }
    },
  );
});
