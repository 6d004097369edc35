// Real VS Code for the end-to-end tests: code-server (installed by scripts/e2e-setup.mjs into
// .cache/code-server) with a fresh user-data-dir, extensions-dir and HOME per run, driven through
// Debian's Chromium by playwright-core. `server: 'vscode'` starts the VS Code server bundled in
// code-server (lib/vscode/out/server-main.js) instead of code-server's wrapper: what VS Code's own
// web integration tests run. Everything started here is stopped by its own process group id.
// Every page opened here is watched (notifications.ts): a test during which an error notification
// appeared that it did not declare with expectNotification() fails, with what the user saw.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, cpSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { watchPage } from './notifications';

export { expectNotification, notificationsSeen, outputLines } from './notifications';

export const ROOT = resolve(__dirname, '..', '..');
export const RESULTS = join(ROOT, 'test-results');
const CODE_SERVER =
  process.env.KW_CODE_SERVER ??
  join(ROOT, '.cache', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const VSCODE_SERVER =
  process.env.KW_VSCODE_SERVER ??
  join(ROOT, '.cache', 'code-server', 'node_modules', 'code-server', 'lib', 'vscode', 'out', 'server-main.js');
const CHROMIUM = process.env.KW_CHROMIUM ?? '/usr/bin/chromium';

export interface CodeServer {
  url: string;
  port: number;
  dir: string;
  home: string;
  userDataDir: string;
  extensionsDir: string;
  workspace: string;
  /** code-server's own stdout/stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  /** .vsix to install into the fresh extensions dir. */
  vsix?: string;
  /** Folder copied to <dir>/workspace and opened (edits never touch the original). */
  folder: string;
  /** User settings (settings.json of the user-data-dir). */
  settings?: Record<string, unknown>;
  /** Extra code-server arguments. */
  args?: string[];
  /** Fixed port (the sandbox); a free one otherwise. */
  port?: number;
  /** Keep the folder in place instead of copying it (the sandbox). */
  inPlace?: boolean;
  /** Prefix of the temporary folder. */
  label?: string;
  /** Extra environment of code-server (its extension host inherits it). */
  env?: Record<string, string>;
  /** 'vscode': the bundled VS Code server (server-main.js) rather than code-server's wrapper. */
  server?: 'code-server' | 'vscode';
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? res(a.port) : rej(new Error('no port'))));
    });
  });
}

function runNode(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) res(out);
      else rej(new Error(`${args.join(' ')} exited ${code}:\n${out}`));
    });
  });
}

/** Settings that keep a fresh VS Code quiet: no welcome page, tips, trust prompt or walkthrough. */
export const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'workbench.enableExperiments': false,
  'chat.commandCenter.enabled': false,
  'chat.disableAIFeatures': true,
  'editor.minimap.enabled': false,
  'window.restoreWindows': 'none',
  'files.simpleDialog.enable': true,
  // The DOM renderer: terminal text is in the page, where the tests can read it.
  'terminal.integrated.gpuAcceleration': 'off',
};

export async function startCodeServer(o: CodeServerOptions): Promise<CodeServer> {
  const dir = mkdtempSync(join(tmpdir(), o.label ?? 'kw-e2e-'));
  const home = join(dir, 'home');
  const userDataDir = join(dir, 'user-data');
  const extensionsDir = join(dir, 'extensions');
  for (const d of [home, join(userDataDir, 'User'), extensionsDir]) mkdirSync(d, { recursive: true });
  let workspace = o.folder;
  if (!o.inPlace) {
    workspace = join(dir, 'workspace');
    cpSync(o.folder, workspace, { recursive: true });
  }
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...QUIET_SETTINGS, ...o.settings }, null, 2),
  );
  // A HOME of its own: ~/.ssh/known_hosts, ~/.kube and code-server's config never touch the user's.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
  };
  Object.assign(env, o.env);
  delete env.KUBECONFIG;
  delete env.SSH_AUTH_SOCK;
  delete env.VSCODE_IPC_HOOK_CLI;
  const common = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  if (o.vsix) await runNode([CODE_SERVER, ...common, '--install-extension', o.vsix, '--force'], env, 120_000);

  const port = o.port ?? (await freePort());
  const vscodeServer = o.server === 'vscode';
  const args = vscodeServer
    ? [
        VSCODE_SERVER,
        ...common,
        '--server-data-dir',
        join(dir, 'server-data'),
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--without-connection-token',
        '--accept-server-license-terms',
        '--disable-telemetry',
        ...(o.args ?? []),
      ]
    : [
        CODE_SERVER,
        ...common,
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        ...(o.args ?? []),
        workspace,
      ];
  let output = '';
  // Its own process group: stop() ends the server and the processes it started, and nothing else.
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  // Detached, the group would outlive this process if it exited without stop() (a hard timeout).
  const killOnExit = () => {
    try {
      if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  };
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      const t = setTimeout(() => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 5000);
      await exited;
      clearTimeout(t);
    }
    if (!process.env.KW_E2E_KEEP) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ready = vscodeServer ? /Extension host agent listening on/ : /HTTP server listening on/;
    await waitFor(
      () => ready.test(output),
      60_000,
      () => `${vscodeServer ? 'the VS Code server' : 'code-server'} did not start:\n${output}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const folder = vscodeServer ? `vscode-remote://127.0.0.1:${port}${workspace}` : workspace;
  return {
    url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`,
    port,
    dir,
    home,
    userDataDir,
    extensionsDir,
    workspace,
    output: () => output,
    stop,
  };
}

export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: () => string,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(what());
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** All files under a folder (the code-server logs). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The kube-windows output channel's log file, read from the user-data-dir's logs. */
export function extensionLog(cs: CodeServer): string {
  return filesUnder(join(cs.userDataDir, 'logs'))
    .filter((f) => /kube-windows\.log$/.test(f))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/**
 * A new browser page on the workbench at `url`, watched for notifications; `logsDir` (a user-data-dir's
 * logs/) adds the output channels' lines to what a failing test reports.
 */
export async function openWorkbench(browser: Browser, url: string, logsDir?: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await watchPage(page, logsDir);
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  // The explorer has the folder: the workbench is ready for commands.
  await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 60_000 });
  return page;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

// --- Workbench helpers: only what a user does (keys, clicks, typing) -----------------------------

const quickInput = (page: Page) => page.locator('.quick-input-widget');

/** Runs a command from the palette by its exact title ("kube-windows: Show join plan…"). */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = quickInput(page).locator('input.input');
  // F1 opens the palette only when the keyboard is with the workbench; when it is not (after a page that
  // took the focus), the title bar's Command Center opens the same quick input with a click.
  const shown = await input.waitFor({ state: 'visible', timeout: 5_000 }).then(
    () => true,
    () => false,
  );
  if (!shown) {
    await page.locator('.command-center .command-center-center').first().click();
    await input.waitFor({ state: 'visible' });
  }
  await input.fill(`>${title}`);
  // Only a shown row: the quick input keeps the rows of an earlier pick in a list it hides.
  const row = quickInput(page).locator('.monaco-list-row:visible', { hasText: title }).first();
  await row.waitFor({ state: 'visible' });
  await row.click();
}

/** Picks the quick pick item whose label contains `label`, once the quick pick titled `title` shows. */
export async function pick(page: Page, title: string | RegExp, label: string): Promise<void> {
  await quickInput(page)
    .locator('.quick-input-title', { hasText: title })
    .waitFor({ state: 'visible', timeout: 30_000 });
  const row = quickInput(page).locator('.monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible' });
  await row.click();
}

/** Answers the input box titled `title`. */
export async function answer(page: Page, title: string | RegExp, value: string): Promise<void> {
  await quickInput(page)
    .locator('.quick-input-title', { hasText: title })
    .waitFor({ state: 'visible', timeout: 30_000 });
  const input = quickInput(page).locator('input.input');
  await input.fill(value);
  await input.press('Enter');
}

/** Runs a test step; on failure leaves a screenshot named after it in test-results/. */
export function withShot<T extends unknown[]>(
  name: string,
  page: () => Page | undefined,
  fn: (...a: T) => Promise<void>,
): (...a: T) => Promise<void> {
  return async (...a: T) => {
    try {
      await fn(...a);
    } catch (err) {
      const p = page();
      if (p) await screenshot(p, `failed-${name}`).catch(() => undefined);
      throw err;
    }
  };
}

/** Moves the keyboard focus down a menu or list until the focused row shows `text`. */
export async function focusRow(page: Page, rows: string, text: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const focused = page.locator(`${rows}.focused`).first();
    if ((await focused.count()) > 0 && ((await focused.textContent()) ?? '').includes(text)) return;
    await page.keyboard.press('ArrowDown');
  }
  throw new Error(`no row "${text}" in ${rows}`);
}

/** code-server with these options, Chromium, and the workbench open and ready: what each UI test starts from. */
export async function startWorkbench(o: CodeServerOptions): Promise<{ cs: CodeServer; browser: Browser; page: Page }> {
  const cs = await startCodeServer(o);
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    return { cs, browser, page: await openWorkbench(browser, cs.url, join(cs.userDataDir, 'logs')) };
  } catch (err) {
    await closeWorkbench({ cs, browser });
    throw err;
  }
}

/** Closes what startWorkbench opened (either part may be missing after a failed start). */
export async function closeWorkbench(w: { cs?: CodeServer | undefined; browser?: Browser | undefined }): Promise<void> {
  await w.browser?.close().catch(() => undefined);
  await w.cs?.stop();
}

/** Clicks the activity bar's kube-windows entry, as a user does. */
export async function openKubeWindows(page: Page): Promise<void> {
  await page.locator('.activitybar .action-item .action-label[aria-label^="Windows on Kubernetes"]').first().click();
}
