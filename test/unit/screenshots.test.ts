// The README's screenshots are the ones the end-to-end tests take (scripts/screenshots.mjs copies
// them): every picture the README shows exists as a PNG, and every copied picture is shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(__dirname, '..', '..', '..');

test('README screenshots: each exists as a PNG under docs/screenshots and each copied one is shown', async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const shown = [...readme.matchAll(/!\[([^\]]+)\]\((docs\/screenshots\/[\w-]+\.png)\)/g)].map((m) => ({
    alt: m[1],
    path: m[2],
  }));
  assert.ok(shown.length >= 5, 'the README shows the screenshots');
  for (const { alt, path } of shown) {
    assert.ok(alt.length > 10, `${path}: an alt text that says what it shows`);
    const file = join(ROOT, path);
    assert.ok(existsSync(file), `${path} is missing: run npm run screenshots`);
    assert.equal(readFileSync(file).subarray(1, 4).toString(), 'PNG', `${path} is not a PNG`);
  }
  const { SCREENSHOTS } = (await import(pathToFileURL(join(ROOT, 'scripts', 'screenshot-list.mjs')).href)) as {
    SCREENSHOTS: Record<string, string>;
  };
  for (const to of Object.values(SCREENSHOTS))
    assert.ok(
      shown.some((s) => s.path === `docs/screenshots/${to}`),
      `docs/screenshots/${to} is copied but not shown`,
    );
});
