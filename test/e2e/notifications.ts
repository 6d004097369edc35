// What the user saw during each real-VS-Code test: every notification (toasts, the notification
// centre, modal dialogs) with its severity, and every line the output channels wrote. Hooks at the
// root of every test file that imports the harness: a test during which an error notification
// appeared that it did not declare (expectNotification) fails, and a failing test prints the record.
import { afterEach, beforeEach } from 'node:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

type Severity = 'error' | 'warning' | 'info';

interface Seen {
  severity: Severity;
  text: string;
}

interface Watched {
  page: Page;
  logsDir: string | undefined;
  seen: Seen[];
  /** At the start of the current test: how many notifications, and each log file's size. */
  mark: number;
  sizes: Map<string, number>;
}

const watched = new Set<Watched>();
let expected: RegExp[] = [];

/** The current test expects error notifications matching `pattern`: they do not fail it. */
export function expectNotification(pattern: RegExp): void {
  expected.push(pattern);
}

/**
 * Runs in the page (before the workbench loads; plain JavaScript, the tests have no DOM types):
 * reports each notification element once, when its message is rendered. Toasts and the notification
 * centre render the same notification as two elements, so the same text within two seconds is
 * reported once.
 */
const OBSERVE_NOTIFICATIONS = `(() => {
  const reported = new WeakSet();
  const recent = new Map();
  const textOf = (el, selector) => (el.querySelector(selector)?.textContent ?? '').trim();
  const severityOf = (el) =>
    el.querySelector('.codicon-error') ? 'error' : el.querySelector('.codicon-warning') ? 'warning' : 'info';
  const scan = () => {
    for (const el of document.querySelectorAll('.notification-list-item, .monaco-dialog-box')) {
      if (reported.has(el)) continue;
      const text = textOf(el, '.notification-list-item-message, .dialog-message-text');
      if (!text) continue;
      reported.add(el);
      const full = [text, textOf(el, '.dialog-message-detail'), textOf(el, '.notification-list-item-source')]
        .filter(Boolean)
        .join(' | ');
      const severity = severityOf(el);
      const key = severity + ' ' + full;
      const now = Date.now();
      if (now - (recent.get(key) ?? 0) < 2000) continue;
      recent.set(key, now);
      window.__kwNotification({ severity, text: full });
    }
  };
  window.__kwScan = scan;
  const start = () => new MutationObserver(scan).observe(document.body, { childList: true, subtree: true });
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start);
})();`;

/** The notifications seen on a watched page so far (severity and text), oldest first. */
export function notificationsSeen(page: Page): { severity: Severity; text: string }[] {
  return [...watched].filter((w) => w.page === page).flatMap((w) => w.seen);
}

/** Every line the output channels of a watched page's VS Code wrote so far, prefixed with the channel. */
export function outputLines(page: Page): string[] {
  return [...watched].filter((w) => w.page === page).flatMap((w) => linesSince({ ...w, sizes: new Map() }));
}

/** Watches a page from now on (and across its reloads) until it closes. */
export async function watchPage(page: Page, logsDir?: string): Promise<void> {
  const w: Watched = { page, logsDir, seen: [], mark: 0, sizes: new Map() };
  await page.exposeFunction('__kwNotification', (n: { severity: Severity; text: string }) => w.seen.push(n));
  await page.addInitScript({ content: OBSERVE_NOTIFICATIONS });
  watched.add(w);
  page.once('close', () => watched.delete(w));
}

/**
 * The output channels' log files: everything under `output_logging_*` (plain channels) and the
 * extensions' own log channels (`exthost<N>/<extension id>/<channel>.log`), not the host's own logs.
 */
function channelLogs(logsDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: 'none' | 'exthost' | 'channels') => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
        if (name.startsWith('output_logging_') || depth === 'exthost' || depth === 'channels') walk(path, 'channels');
        else walk(path, /^exthost\d*$/.test(name) ? 'exthost' : 'none');
      } else if (depth === 'channels' && name.endsWith('.log')) out.push(path);
    }
  };
  walk(logsDir, 'none');
  return out;
}

function sizes(logsDir: string | undefined): Map<string, number> {
  const m = new Map<string, number>();
  for (const f of logsDir ? channelLogs(logsDir) : []) m.set(f, statSync(f, { throwIfNoEntry: false })?.size ?? 0);
  return m;
}

/** The lines each output channel wrote since the test started, prefixed with the channel's file name. */
function linesSince(w: Watched): string[] {
  const lines: string[] = [];
  for (const f of w.logsDir ? channelLogs(w.logsDir) : []) {
    const text = readFileSync(f)
      .subarray(w.sizes.get(f) ?? 0)
      .toString('utf8');
    const channel = f.slice(f.lastIndexOf('/') + 1).replace(/\.log$/, '');
    for (const line of text.split('\n')) if (line.trim()) lines.push(`[${channel}] ${line}`);
  }
  return lines;
}

beforeEach(() => {
  expected = [];
  for (const w of watched) {
    w.mark = w.seen.length;
    w.sizes = sizes(w.logsDir);
  }
});

afterEach(async (t) => {
  const declared = expected;
  expected = [];
  const unexpected: Seen[] = [];
  const record: string[] = [];
  for (const w of watched) {
    // Notifications raised just before the end are reported now, not in the next test.
    await w.page.evaluate('window.__kwScan && window.__kwScan()').catch(() => undefined);
    const seen = w.seen.slice(w.mark);
    unexpected.push(...seen.filter((n) => n.severity === 'error' && !declared.some((re) => re.test(n.text))));
    record.push(
      'notifications during the test:',
      ...(seen.length ? seen.map((n) => `  ${n.severity}: ${n.text}`) : ['  (none)']),
    );
    if (w.logsDir) {
      const lines = linesSince(w);
      record.push(
        'output channel lines during the test:',
        ...(lines.length ? lines.map((l) => `  ${l}`) : ['  (none)']),
      );
    }
  }
  if (unexpected.length > 0)
    throw new Error(
      `an error notification the test did not expect appeared:\n${unexpected.map((n) => `  ${n.text}`).join('\n')}\n${record.join('\n')}`,
    );
  if ((t as { passed?: boolean }).passed === false && record.length > 0)
    console.error(`${t.name}:\n${record.join('\n')}`);
});
