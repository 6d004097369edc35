// The hover over a finding in a real VS Code: VS Code shows the diagnostic itself (its message, the
// source and the rule id), and kube-windows' hover adds the rule's reason and its documentation, so
// the finding's sentence is in the hover widget once, not twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { closeWorkbench, ROOT, startWorkbench, waitFor, withShot, type CodeServer } from './harness';

const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');

describe('hover in a real VS Code', { timeout: 300_000 }, () => {
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;

  before(
    async () => {
      ({ cs, browser, page } = await startWorkbench({ vsix, folder: join(ROOT, 'examples'), label: 'kw-e2e-hover' }));
    },
    { timeout: 180_000 },
  );
  after(async () => closeWorkbench({ cs, browser }));

  test(
    'a finding under the mouse: its message once, then the rule',
    { timeout: 180_000 },
    withShot(
      'hover',
      () => page,
      async () => {
        await page.keyboard.press('Control+P');
        await page.locator('.quick-input-widget input.input').fill('scheduling.yaml');
        await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'scheduling.yaml' }).first().click();
        await page.locator('.monaco-editor .view-lines', { hasText: 'wrong-case' }).waitFor();
        // WIN071 is the file's one error: `kubernetes.io/os: Windows`.
        const squiggle = page.locator('.monaco-editor .squiggly-error').first();
        await squiggle.waitFor({ timeout: 60_000 });
        const widget = page.locator('.monaco-hover:not(.hidden)').filter({ hasText: 'WIN071' });
        let text = '';
        await waitFor(
          async () => {
            // The text over the squiggle takes the pointer, as for a user: move the mouse there.
            const box = await squiggle.boundingBox();
            if (!box) return false;
            await page.mouse.move(0, 0);
            await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
            text =
              (await widget
                .first()
                .innerText({ timeout: 3_000 })
                .catch(() => '')) ?? '';
            // Both parts are there: the diagnostic (VS Code's) and the rule's reason (ours).
            return text.includes('label values are case-sensitive') && text.includes('OS node label with a wrong-case');
          },
          60_000,
          () => `no hover with the finding and the rule's reason over the squiggle; last hover text: ${text}`,
        );
        const times = (part: string) => text.split(part).length - 1;
        assert.equal(times('label values are case-sensitive and nodes carry'), 1, text);
        assert.equal(times('OS node label with a wrong-case value'), 1, text);
        assert.doesNotMatch(text, /\(error\)/, text);
      },
    ),
  );
});
