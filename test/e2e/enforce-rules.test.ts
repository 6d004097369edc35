// "Enforce Windows rules…" in a real VS Code (code-server in Chromium) against the REAL kube-apiserver, as a
// user does it: right-click the cluster → Enforce Windows rules… → every enforceable rule → Audit (which
// changes no answer of the API server, so the other suites sharing it see nothing) → the policies open as
// YAML → the modal lists what the server-side dry run would create → Apply. The policies are then in the
// cluster, written by the field manager kube-windows, and the cluster's Admission policies group shows them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { enforceableRules } from '../../src/core/policy/generate';
import { CONTEXT_ADMIN, expectStatus, useApiServer, type RealApiServer } from '../support/real-apiserver';
import {
  closeWorkbench,
  extensionLog,
  focusRow,
  openKubeWindows,
  pick,
  ROOT,
  screenshot,
  startWorkbench,
  waitFor,
  type CodeServer,
} from './harness';

const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const SHAPES = ['pods', 'workloads', 'cronjobs'];

interface Obj {
  metadata: { name: string; annotations?: Record<string, string>; managedFields?: { manager: string }[] };
  spec: { validationActions?: string[]; validations?: unknown[] };
}

describe('Enforce Windows rules…: right-click a cluster, pick, preview, dry run, apply', { timeout: 300_000 }, () => {
  let api: RealApiServer;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  const rows = () => page.locator('.pane-body .monaco-list-row');

  const removeOurs = async () => {
    for (const s of SHAPES) {
      await api.request(`${VAPB}/kube-windows-${s}`, { method: 'DELETE' });
      await api.request(`${VAP}/kube-windows-${s}`, { method: 'DELETE' });
    }
  };

  before(async () => {
    api = await useApiServer();
    await removeOurs();
    ({ cs, browser, page } = await startWorkbench({
      vsix,
      folder: join(ROOT, 'examples'),
      label: 'kw-e2e-policy-',
      settings: { 'kubeWindows.kubeconfig': api.kubeconfigPath },
    }));
  });

  after(async () => {
    await closeWorkbench({ cs, browser });
    await removeOurs();
    await api?.stop();
  });

  test('the policies are installed as picked, and the tree shows them', { timeout: 240_000 }, async () => {
    try {
      await openKubeWindows(page);
      const cluster = rows().filter({ hasText: CONTEXT_ADMIN }).first();
      await cluster.waitFor({ timeout: 60_000 });
      await cluster.click();
      await page.keyboard.press('ArrowRight');
      await rows().filter({ hasText: 'Admission policies' }).first().waitFor({ timeout: 60_000 });
      await cluster.click({ button: 'right' });
      // The menu takes the keyboard (a pointer click on its items does not always register in code-server).
      await page.locator('.context-view .action-label', { hasText: 'Enforce Windows rules…' }).first().waitFor();
      await focusRow(page, '.context-view .action-item', 'Enforce Windows rules…');
      await page.keyboard.press('Enter');
      const all = enforceableRules();
      await pick(page, /which rules to enforce at admission/, `Every enforceable rule (${all.length})`);
      await pick(page, /what should the API server do/, 'Audit');
      await page
        .locator('.monaco-editor .view-lines', { hasText: 'kind: ValidatingAdmissionPolicy' })
        .first()
        .waitFor({ timeout: 60_000 });
      const apply = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Apply' });
      await apply.waitFor({ timeout: 60_000 });
      const dialog = (await page.locator('.monaco-dialog-box').first().textContent()) ?? '';
      assert.match(dialog, /apply 6 changes to kube-windows-apiserver/);
      assert.match(dialog, /create ValidatingAdmissionPolicy kube-windows-pods/);
      assert.match(dialog, /The server-side dry run passed/);
      await screenshot(page, 'policy-01-confirm');
      assert.equal((await api.request(`${VAP}/kube-windows-pods`)).status, 404, 'nothing before Apply');
      await apply.click();
      await page
        .locator('.notification-toast', { hasText: 'Windows rules enforced on kube-windows-apiserver' })
        .first()
        .waitFor({ timeout: 60_000 });
      for (const s of SHAPES) {
        const p = expectStatus(await api.request<Obj>(`${VAP}/kube-windows-${s}`), [200], `policy ${s}`);
        assert.equal((p.spec.validations ?? []).length, all.length);
        assert.deepEqual(
          (p.metadata.managedFields ?? []).map((f) => f.manager),
          ['kube-windows'],
        );
        const b = expectStatus(await api.request<Obj>(`${VAPB}/kube-windows-${s}`), [200], `binding ${s}`);
        assert.deepEqual(b.spec.validationActions, ['Audit']);
      }
      // The tree's group follows by its watch.
      await rows().filter({ hasText: 'Admission policies' }).first().click();
      await page.keyboard.press('ArrowRight');
      await waitFor(
        async () => (await rows().filter({ hasText: 'kube-windows-pods' }).count()) > 0,
        60_000,
        () => 'the policy row in the tree',
      );
      const row = (await rows().filter({ hasText: 'kube-windows-pods' }).first().textContent()) ?? '';
      assert.match(row, new RegExp(`Audit · ${all.length} rules · v\\d`));
      await screenshot(page, 'policy-02-tree');
    } catch (err) {
      if (page) await screenshot(page, 'failed-policy').catch(() => undefined);
      if (cs) console.log(`kube-windows log:\n${extensionLog(cs)}`);
      throw err;
    }
  });
});
