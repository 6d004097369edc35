// `npm run screenshots`: runs the real-VS-Code tests (scripts/e2e.mjs), which leave screenshots of
// the real extension in test-results/, and copies the ones the README and the Marketplace page show
// into docs/screenshots/ (committed; the .vsix does not carry them: vsce links the README's images to
// the repository). `--copy-only` copies what the last e2e run left.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCREENSHOTS } from './screenshot-list.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

if (!process.argv.includes('--copy-only')) {
  const started = Date.now();
  const e2e = spawnSync(process.execPath, [join(root, 'scripts', 'e2e.mjs')], { cwd: root, stdio: 'inherit' });
  if (e2e.status !== 0) {
    console.error('screenshots: the real-VS-Code tests failed; nothing copied.');
    process.exit(1);
  }
  // Only what this run wrote: an older file would put a stale picture in the README.
  for (const from of Object.keys(SCREENSHOTS)) {
    const file = join(root, 'test-results', from);
    if (existsSync(file) && statSync(file).mtimeMs < started) {
      console.error(`screenshots: ${from} was not written by this run`);
      process.exit(1);
    }
  }
}

const out = join(root, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const missing = Object.keys(SCREENSHOTS).filter((from) => !existsSync(join(root, 'test-results', from)));
if (missing.length) {
  console.error(`screenshots: not in test-results/ (run the e2e tests first): ${missing.join(', ')}`);
  process.exit(1);
}
for (const [from, to] of Object.entries(SCREENSHOTS)) {
  const png = readFileSync(join(root, 'test-results', from));
  if (png.subarray(1, 4).toString() !== 'PNG') {
    console.error(`screenshots: ${from} is not a PNG`);
    process.exit(1);
  }
  copyFileSync(join(root, 'test-results', from), join(out, to));
  console.log(`  ${from.padEnd(28)} → docs/screenshots/${to} (${(png.length / 1024).toFixed(0)} KB)`);
}
