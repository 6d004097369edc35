// Cancel from the progress notification in a real VS Code (code-server in Chromium), as a user does it:
// a graceful reboot started from the node's context menu and a BYOH join from the Command Palette,
// each held in the middle of a step (the simulated Windows host never answers one command, so the
// cancel lands mid-step, never by a timer), then the notification's Cancel button. The message that
// follows says where it stopped and what state the host is in, offers the undo where the CLI names
// one (Uncordon after the reboot's cordon), and "Run again" completes the operation from VS Code.
// Same world as `npm run sandbox`: the API emulator, WMCO and OLM stand-ins, simulated hosts for the
// joinable host and for every seeded Windows node, a stand-in kubelet that lets a reboot finish.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startWorld, type World } from '../support/sandbox-world';
import { temporaryFiles } from '../support/cancel-walk';
import type { SimHost } from '../support/windows-host-sim';
import {
  answer,
  closeWorkbench,
  extensionLog,
  freePort,
  notificationsSeen,
  openKubeWindows,
  pick,
  ROOT,
  runCommand,
  screenshot,
  startWorkbench,
  waitFor,
  type CodeServer,
} from './harness';

const CONTEXT = 'kube-windows-e2e-cancel';
const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
const NODE = 'winworker-2022-b';

describe('Cancel from the progress notification in a real VS Code', { timeout: 600_000 }, () => {
  let world: World;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let worldDir: string;
  const rows = () => page.locator('.pane-body .monaco-list-row');
  const toast = (text: string | RegExp): Locator => page.locator('.notification-toast', { hasText: text }).first();

  const shot =
    (name: string, fn: () => Promise<void>): (() => Promise<void>) =>
    async () => {
      try {
        await fn();
      } catch (err) {
        if (page) await screenshot(page, `failed-cancel-${name}`).catch(() => undefined);
        if (cs) console.log(`kube-windows log:\n${extensionLog(cs)}`);
        throw err;
      }
    };

  /** Waits until the host holds `op` unanswered: the run is in the middle of the step that sent it. */
  const heldAt = (sim: SimHost, op: string): Promise<void> =>
    waitFor(
      () => sim.state.opLog.some((o) => o.name === op && o.fault === 'hang'),
      120_000,
      () => `the host never received ${op}: ${sim.state.opLog.map((o) => o.name).join(', ')}`,
    );

  /** Clicks the Cancel button of the progress notification titled `title`; returns when it was clicked. */
  async function cancelProgress(title: string): Promise<number> {
    const progress = toast(title);
    await progress.waitFor({ timeout: 60_000 });
    await progress.hover();
    await progress.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    return Date.now();
  }

  /** Clicks a button of the notification that says `text`. */
  async function choose(text: string | RegExp, button: string): Promise<void> {
    const n = toast(text);
    await n.hover();
    await n.locator('.monaco-button', { hasText: button }).first().click();
  }

  const buttonsOf = async (n: Locator): Promise<string[]> =>
    (await n.locator('.monaco-button').allTextContents()).map((t) => t.trim()).filter(Boolean);

  before(
    async () => {
      worldDir = mkdtempSync(join(tmpdir(), 'kw-e2e-cancel-'));
      world = await startWorld({
        dir: worldDir,
        context: CONTEXT,
        hosts: 1,
        sshPort: await freePort(),
        nodeHosts: true,
      });
      ({ cs, browser, page } = await startWorkbench({
        vsix,
        folder: join(ROOT, 'examples'),
        label: 'kw-e2e-cancel-',
        settings: {
          'kubeWindows.kubeconfig': world.kubeconfigPath,
          'kubeWindows.ssh.privateKeyPath': world.keyPath,
          'kubeWindows.ssh.port': world.sshPort,
          // Every simulated host's key pinned: no trust question between the cancel and the re-run.
          'kubeWindows.ssh.knownHostsFile': world.knownHostsPath,
        },
      }));
    },
    { timeout: 240_000 },
  );

  after(async () => {
    if (page) await screenshot(page, 'cancel-last').catch(() => undefined);
    await closeWorkbench({ cs, browser });
    await world?.stop();
    rmSync(worldDir, { recursive: true, force: true });
  });

  test(
    'a graceful reboot cancelled mid-restart: the node stays cordoned, Uncordon is offered, Run again completes',
    { timeout: 300_000 },
    shot('reboot', async () => {
      const at = world.nodes.findIndex((n) => n.node === NODE);
      const sim = world.sims.find((s) => s.host === world.nodes[at]?.address);
      assert.ok(sim, `a simulated host for ${NODE}`);
      // Restart-Computer is held unanswered once: the run is in the restart step when Cancel is clicked.
      sim.hangOp('restart-computer');

      await openKubeWindows(page);
      const cluster = rows().filter({ hasText: CONTEXT }).first();
      await cluster.waitFor({ timeout: 60_000 });
      if ((await cluster.getAttribute('aria-expanded')) !== 'true') await cluster.click();
      const node = rows().filter({ hasText: NODE }).first();
      await node.waitFor({ timeout: 60_000 });
      await node.click({ button: 'right' });
      await page.locator('.context-view .action-label', { hasText: 'Reboot gracefully' }).first().waitFor();
      // By keyboard, as pointer clicks on menu items do not always register in code-server.
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press('ArrowDown');
        const focused = (await page.locator('.context-view .action-item.focused').first().textContent()) ?? '';
        if (focused.trim().startsWith('Reboot gracefully')) break;
      }
      await page.keyboard.press('Enter');
      // How to reach the node is asked only when the settings do not say it already (the key setting, the user).
      const confirm = page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Reboot$/ });
      const asked = page.locator('.quick-input-widget .quick-input-title', { hasText: /SSH user/ });
      await confirm.or(asked).first().waitFor({ timeout: 60_000 });
      if (await asked.isVisible()) {
        await answer(page, /SSH user/, world.user);
        await pick(page, /SSH key/, world.keyPath);
      }
      await confirm.waitFor({ timeout: 60_000 });
      await confirm.click();

      await heldAt(sim, 'restart-computer');
      await screenshot(page, 'cancel-01-reboot-held');
      const clicked = await cancelProgress(`rebooting ${NODE}`);

      // The message: where it stopped, the state (cordoned; the restart may have been taken), how to resume.
      const stopped = toast(/The reboot of winworker-2022-b was cancelled at step restart/);
      await stopped.waitFor({ timeout: 60_000 });
      // A figure, not an assertion (the machine may be loaded).
      console.log(`reboot: the cancelled message shown ${Date.now() - clicked} ms after Cancel`);
      const text = (await stopped.locator('.notification-list-item-message').textContent()) ?? '';
      assert.equal(text.match(/stays cordoned/g)?.length, 1, `the cordon said once: ${text}`);
      assert.match(text, /restart/i, text);
      assert.deepEqual(await buttonsOf(stopped), ['Uncordon', 'Show log', 'Run again']);
      assert.equal(
        Boolean((world.emu.get('Node', NODE)?.spec as { unschedulable?: boolean } | undefined)?.unschedulable),
        true,
        'the node is cordoned, as the message says',
      );
      assert.deepEqual(temporaryFiles(sim), [], 'no temporary file on the host');
      await screenshot(page, 'cancel-02-reboot-cancelled');

      // The cancel closed the SSH connection (and with it the held command's channel).
      await waitFor(
        () => sim.connections === 0,
        30_000,
        () => `${sim.connections} SSH connections left open on the host`,
      );
      await choose(/The reboot of winworker-2022-b was cancelled/, 'Run again');
      await toast(`${NODE} was rebooted and is Ready and schedulable again`).waitFor({ timeout: 180_000 });
      assert.equal(sim.state.bootCount, 1, 'one restart in all');
      assert.equal(
        Boolean((world.emu.get('Node', NODE)?.spec as { unschedulable?: boolean } | undefined)?.unschedulable),
        false,
        'uncordoned',
      );
      await screenshot(page, 'cancel-03-reboot-done');
    }),
  );

  test(
    'a BYOH join cancelled mid-preflight: nothing changed, no undo to offer, Run again joins the node',
    { timeout: 300_000 },
    shot('join', async () => {
      const sim = world.sims[0]!;
      const address = world.addresses[0] as string;
      const nodeName = world.hostnames[0]!.toLowerCase();
      // The host's authorized keys are read in the preflight: held unanswered once.
      sim.hangOp('authorized-keys');
      await runCommand(page, 'kube-windows: Join Windows node…');
      await pick(page, 'which cluster?', CONTEXT);
      await pick(page, 'how to join', 'BYOH');
      await answer(page, 'Windows host address', address);
      await answer(page, 'SSH user', world.user);
      await pick(page, 'private key for SSH', world.keyPath);

      await heldAt(sim, 'authorized-keys');
      await screenshot(page, 'cancel-04-join-held');
      const clicked = await cancelProgress(`joining ${address}`);

      const stopped = toast(new RegExp(`joining ${address.replace(/\./g, '\\.')} was cancelled during`));
      await stopped.waitFor({ timeout: 60_000 });
      console.log(`BYOH join: the cancelled message shown ${Date.now() - clicked} ms after Cancel`);
      const text = (await stopped.locator('.notification-list-item-message').textContent()) ?? '';
      assert.match(text, /Check the cluster and the host/, text);
      assert.match(text, /Nothing was changed/, text);
      // Nothing to undo: only the log and the resume.
      assert.deepEqual(await buttonsOf(stopped), ['Show log', 'Run again']);
      const entries = world.emu.get('ConfigMap', 'windows-instances', 'openshift-windows-machine-config-operator') as
        { data?: Record<string, string> } | undefined;
      assert.equal(entries?.data?.[address], undefined, 'no windows-instances entry after the cancel');
      assert.deepEqual(temporaryFiles(sim), []);
      await screenshot(page, 'cancel-05-join-cancelled');

      await choose(/was cancelled during/, 'Run again');
      await toast(`${address} joined ${CONTEXT}`).waitFor({ timeout: 180_000 });
      assert.ok(world.emu.get('Node', nodeName), 'the Node joined');
      await rows().filter({ hasText: nodeName }).first().waitFor({ timeout: 60_000 });
      await screenshot(page, 'cancel-06-joined');
      // No error notification on the way: the cancels were said as information or a warning.
      assert.deepEqual(
        notificationsSeen(page).filter((n) => n.severity === 'error'),
        [],
      );
    }),
  );
});
