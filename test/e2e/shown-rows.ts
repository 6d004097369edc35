// The rows of a view as a real VS Code shows them, read from the page: the same plain data
// (`ShownRow`) that test/support/shown-tree.ts builds from the tree model, so the real-VS-Code tests
// check the page with the very `assertSummariesMatchRows` the integration tests use.
import type { Page } from 'playwright-core';
import type { ShownRow } from '../support/shown-tree';

interface FlatRow {
  index: number;
  level: number;
  expanded: boolean;
  label: string;
  description: string;
}

/** What the rows of one list element look like to the page (the tests have no DOM types). */
interface RowElement {
  getAttribute(name: string): string | null;
  querySelector(selector: string): { textContent: string | null } | null;
}

/**
 * The rows the view titled `view` shows, as an outline. The list is virtual (only rows in sight are in the
 * page): the caller makes the view tall enough for what it reads, and rows are ordered by their index.
 */
export async function shownRows(page: Page, view: string): Promise<ShownRow[]> {
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: view }) }).first();
  const flat: FlatRow[] = await pane.locator('.monaco-list-row').evaluateAll((elements) =>
    (elements as unknown as RowElement[]).map((el) => ({
      index: Number(el.getAttribute('data-index') ?? 0),
      level: Number(el.getAttribute('aria-level') ?? 1),
      expanded: el.getAttribute('aria-expanded') === 'true',
      label: (el.querySelector('.label-name')?.textContent ?? '').trim(),
      description: (el.querySelector('.label-description')?.textContent ?? '').trim(),
    })),
  );
  flat.sort((a, b) => a.index - b.index);
  return outline(flat);
}

/** Rows in order with their levels → the nested rows; an expanded row's children are the deeper rows after it. */
function outline(flat: FlatRow[]): ShownRow[] {
  const roots: ShownRow[] = [];
  const stack: { level: number; row: ShownRow }[] = [];
  for (const f of flat) {
    const row: ShownRow = { label: f.label, ...(f.description ? { description: f.description } : {}) };
    if (f.expanded) row.children = [];
    while (stack.length && (stack[stack.length - 1]?.level ?? 0) >= f.level) stack.pop();
    const parent = stack[stack.length - 1]?.row;
    if (parent) (parent.children ??= []).push(row);
    else roots.push(row);
    stack.push({ level: f.level, row });
  }
  return roots;
}
