// Many clusters, some broken, in a real VS Code (code-server in Chromium): the 30-context
// kubeconfig of test/support/many-clusters.ts (20 healthy on the real kube-apiserver and two emulators, 5
// never answering, 3 with expired credentials, 2 with a CA that does not match). The current context is a
// never-answering one, so the view opens on a cluster that cannot connect. Opening the view lists the 30
// roots and contacts only that one; a healthy cluster expanded meanwhile shows its rows while the current
// one still says "Connecting…"; each broken one shows its cause in one line; once the never-answering
// address answers, the error row's Retry shows the cluster. Figures go to test-results/many-clusters.json
// (printed by `npm run bench:clusters`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { useApiServer, type RealApiServer } from '../support/real-apiserver';
import { expectedCause, startManyClusters, type ManyClusters } from '../support/many-clusters';
import {
  closeWorkbench,
  extensionLog,
  openKubeWindows,
  RESULTS,
  ROOT,
  screenshot,
  startWorkbench,
  waitFor,
  type CodeServer,
} from './harness';

const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'e2e', 'kube-windows.vsix');
/** The view's wait for a cluster (src/cluster/open.ts VIEW_TIMEOUT_MS). */
const VIEW_TIMEOUT_S = 15;
const INFO = /· (OpenShift|Kubernetes)/;

interface Row {
  index: number;
  level: number;
  expanded: boolean;
  label: string;
  description: string;
}
interface RowElement {
  getAttribute(name: string): string | null;
  querySelector(selector: string): { textContent: string | null } | null;
}

describe('many clusters, some broken, in a real VS Code', { timeout: 600_000 }, () => {
  let api: RealApiServer;
  let world: ManyClusters;
  let dir: string;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  const figures: {
    activateMs?: number;
    rootsShownMs?: number;
    healthyFirstMs?: number;
    healthyMaxMs?: number;
    brokenMs: Record<string, number>;
    retryMs?: number;
  } = { brokenMs: {} };

  const pane = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Clusters' }) }).first();
  const shown = async (): Promise<Row[]> =>
    (
      await pane()
        .locator('.monaco-list-row')
        .evaluateAll((elements) =>
          (elements as unknown as RowElement[]).map((el) => ({
            index: Number(el.getAttribute('data-index') ?? 0),
            level: Number(el.getAttribute('aria-level') ?? 1),
            expanded: el.getAttribute('aria-expanded') === 'true',
            label: (el.querySelector('.label-name')?.textContent ?? '').trim(),
            description: (el.querySelector('.label-description')?.textContent ?? '').trim(),
          })),
        )
    ).sort((a, b) => a.index - b.index);
  const rootRow = (name: string) =>
    pane()
      .locator('.monaco-list-row[aria-level="1"]')
      .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }) });

  /** Scrolls the virtual list until the root row of `name` is in the page. */
  async function reveal(name: string): Promise<void> {
    const list = pane().locator('.monaco-list').first();
    await list.hover();
    await page.mouse.wheel(0, -100_000);
    for (let i = 0; i < 60 && !(await rootRow(name).count()); i++) {
      await page.mouse.wheel(0, 120);
      await page.waitForTimeout(50);
    }
    await rootRow(name).first().waitFor({ timeout: 5000 });
  }

  /** The label of the first row under the root `name` (undefined while it is collapsed or not listed). */
  async function firstChild(name: string): Promise<string | undefined> {
    const rows = await shown();
    const i = rows.findIndex((r) => r.level === 1 && r.label === name);
    const next = i >= 0 ? rows[i + 1] : undefined;
    return next && next.level === 2 && next.index === rows[i].index + 1 ? next.label : undefined;
  }

  async function setExpanded(name: string, expanded: boolean): Promise<void> {
    await reveal(name);
    const row = rootRow(name).first();
    if (((await row.getAttribute('aria-expanded')) === 'true') !== expanded) await row.click();
  }

  /** Expands `name` and waits for its first row to match; the time from the click. */
  async function expandUntil(name: string, want: RegExp, ms = 60_000): Promise<number> {
    await reveal(name);
    const row = rootRow(name).first();
    assert.equal(await row.getAttribute('aria-expanded'), 'false', `${name} is expanded already`);
    const t0 = Date.now();
    await row.click();
    await waitFor(
      async () => want.test((await firstChild(name)) ?? ''),
      ms,
      () => `no row matching ${want}`,
    ).catch(async (e: unknown) => {
      await screenshot(page, `failed-many-${name}`);
      throw new Error(`${name}: ${(e as Error).message}; rows: ${(await shown()).map((r) => r.label).join(' | ')}`);
    });
    return Date.now() - t0;
  }

  before(
    async () => {
      api = await useApiServer();
      dir = mkdtempSync(join(tmpdir(), 'kw-e2e-many-'));
      world = await startManyClusters({ dir, api });
      ({ cs, browser, page } = await startWorkbench({
        vsix,
        folder: join(ROOT, 'examples'),
        label: 'kw-e2e-many-',
        settings: { 'kubeWindows.kubeconfig': world.kubeconfigPath },
      }));
    },
    { timeout: 240_000 },
  );

  after(async () => {
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(
      join(RESULTS, 'many-clusters.json'),
      JSON.stringify({ ...figures, measuredAt: new Date().toISOString() }) + '\n',
    );
    await closeWorkbench({ cs, browser });
    await world?.stop();
    await api?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('opening the view lists the 30 contexts and contacts only the current one', { timeout: 120_000 }, async () => {
    assert.deepEqual(
      world.emulators.map((e) => e.requests.length),
      [0, 0],
    );
    const t0 = Date.now();
    await openKubeWindows(page);
    await rootRow(world.current).first().waitFor({ timeout: 60_000 });
    figures.rootsShownMs = Date.now() - t0;
    const line = /activate took ([\d.]+) ms/.exec(extensionLog(cs));
    assert.ok(line, `no "activate took" line in the log:\n${extensionLog(cs)}`);
    figures.activateMs = Number(line[1]);
    // The current context expands by itself and waits for its never-answering server.
    await waitFor(
      async () => (await firstChild(world.current)) === 'Connecting…',
      30_000,
      () => `${world.current} does not say Connecting…`,
    );
    await screenshot(page, 'many-01-opened');
    assert.deepEqual(
      world.emulators.map((e) => e.requests.length),
      [0, 0],
      'a context that was not expanded was contacted',
    );
    const contacted = [...world.silent].filter(([, s]) => s.accepted > 0).map(([n]) => n);
    assert.deepEqual(contacted, [world.current]);
  });

  test('healthy clusters render while the current one is still connecting', { timeout: 300_000 }, async () => {
    const healthy = world.contexts.filter((c) => c.kind === 'healthy').map((c) => c.name);
    const times: number[] = [];
    for (const [i, name] of healthy.entries()) {
      times.push(await expandUntil(name, INFO));
      if (i === 0) {
        // Ordering, not a clock: the first healthy cluster is shown before the dead one has even failed.
        assert.equal(await firstChild(world.current), 'Connecting…', 'the current cluster had already given up');
        figures.healthyFirstMs = times[0];
        await screenshot(page, 'many-02-healthy-while-connecting');
      }
      await setExpanded(name, false);
    }
    figures.healthyMaxMs = Math.max(...times);
    console.log(`healthy clusters: ${times.join(', ')} ms from click to rows`);
  });

  test('each broken cluster shows its cause in one line and when it is tried again', { timeout: 300_000 }, async () => {
    const broken = world.contexts.filter((x) => x.kind !== 'healthy' && x.name !== world.current);
    const retrying = async (name: string) => {
      const rows = await shown();
      const i = rows.findIndex((r) => r.level === 1 && r.label === name);
      assert.match(rows[i + 1]?.description ?? '', /^retrying at \d\d:\d\d:\d\d$/, name);
    };
    // The never-answering ones wait out the view's timeout together, the others are checked meanwhile.
    const clicked = new Map<string, number>();
    for (const c of broken.filter((x) => x.kind.startsWith('silent'))) {
      await reveal(c.name);
      clicked.set(c.name, Date.now());
      await rootRow(c.name).first().click();
    }
    for (const c of broken.filter((x) => !x.kind.startsWith('silent'))) {
      figures.brokenMs[c.name] = await expandUntil(c.name, expectedCause(c.kind, VIEW_TIMEOUT_S));
      await retrying(c.name);
      await setExpanded(c.name, false);
    }
    for (const [name, t0] of clicked) {
      const want = expectedCause('silent-tcp', VIEW_TIMEOUT_S);
      await reveal(name);
      await waitFor(
        async () => want.test((await firstChild(name)) ?? ''),
        60_000,
        () => `${name}: no timeout row`,
      );
      figures.brokenMs[name] = Date.now() - t0;
      await retrying(name);
      await setExpanded(name, false);
    }
    await waitFor(
      async () => expectedCause('silent-tcp', VIEW_TIMEOUT_S).test((await firstChild(world.current)) ?? ''),
      60_000,
      () => `${world.current} shows no timeout row`,
    );
    await screenshot(page, 'many-03-current-failed');
  });

  test('Retry shows the cluster once its address answers', { timeout: 120_000 }, async () => {
    world.silent.get(world.current)?.answer(world.realPort);
    await reveal(world.current);
    const rows = await shown();
    const i = rows.findIndex((r) => r.level === 1 && r.label === world.current);
    const errorRow = pane().locator(`.monaco-list-row[data-index="${rows[i].index + 1}"]`);
    const t0 = Date.now();
    await errorRow.click();
    await waitFor(
      async () => INFO.test((await firstChild(world.current)) ?? ''),
      60_000,
      () => `${world.current} is not shown connected after Retry`,
    );
    figures.retryMs = Date.now() - t0;
    await screenshot(page, 'many-04-retried');
  });
});
