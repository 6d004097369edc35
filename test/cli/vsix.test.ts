// Ready for the VS Code registries (the Marketplace and Open VSX): `vsce package` on the project as
// checked in (its tracked files and the built dist/, in a copy, so that the production build of its
// prepublish step does not rewrite dist/ under other suites) prints no warning; the .vsix holds
// exactly the files listed here; the manifest has what a gallery page shows; every image of the
// packaged README is an https URL whose file is in the package.
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { zipEntries, zipEntry } from '../../scripts/zip-entries.mjs';

const ROOT = resolve(__dirname, '..', '..', '..');
let dir: string;
let vsix: string;
let output: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-vsix-'));
  const copy = join(dir, 'project');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  const built = readdirSync(join(ROOT, 'dist')).map((f) => `dist/${f}`);
  for (const f of [...tracked, ...built]) {
    if (!existsSync(join(ROOT, f))) continue; // deleted in the work tree, not yet committed
    mkdirSync(dirname(join(copy, f)), { recursive: true });
    cpSync(join(ROOT, f), join(copy, f));
  }
  const pkg = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  delete pkg.scripts['vscode:prepublish'];
  writeFileSync(join(copy, 'package.json'), JSON.stringify(pkg, null, 2));
  vsix = join(dir, 'kube-windows.vsix');
  const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', vsix], {
    cwd: copy,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  output = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, output);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The text of one file of the .vsix. */
function entryText(name: string): string {
  const bytes = zipEntry(vsix, name);
  assert.ok(bytes, `${name} is in the package`);
  return bytes.toString('utf8');
}

test('vsce package prints no warning', () => {
  assert.doesNotMatch(output, /WARNING|warn/i, output);
  assert.match(output, /DONE\s+Packaged/);
});

test('the .vsix holds exactly the allow-listed files', () => {
  const screenshots = readdirSync(join(ROOT, 'docs', 'screenshots'))
    .filter((f) => f.endsWith('.png'))
    .map((f) => `extension/docs/screenshots/${f}`);
  const walkthrough = readdirSync(join(ROOT, 'media', 'walkthrough')).map((f) => `extension/media/walkthrough/${f}`);
  // The V8 code cache comes with a production build only (npm run package makes one).
  const cache = existsSync(join(ROOT, 'dist', 'cli-main.cache')) ? ['extension/dist/cli-main.cache'] : [];
  assert.deepEqual(
    zipEntries(vsix)
      .map((e) => e.name)
      .sort(),
    [
      '[Content_Types].xml',
      ...cache,
      'extension.vsixmanifest',
      'extension/LICENSE.txt',
      'extension/changelog.md',
      'extension/dist/cli-main.js',
      'extension/dist/cli.js',
      'extension/dist/engine.js',
      'extension/dist/extension.js',
      'extension/dist/server.js',
      ...screenshots,
      'extension/media/icon.png',
      'extension/media/kube-windows.svg',
      ...walkthrough,
      'extension/package.json',
      'extension/readme.md',
      'extension/syntaxes/kube-windows-plan.tmLanguage.json',
    ].sort(),
  );
});

test('the manifest has what a gallery page shows: icon, categories, keywords, banner, pricing, links', () => {
  const pkg = JSON.parse(entryText('extension/package.json')) as Record<string, unknown>;
  assert.equal(pkg.icon, 'media/icon.png');
  const png = zipEntry(vsix, 'extension/media/icon.png');
  assert.ok(png, 'the icon is in the package');
  assert.equal(png.toString('latin1', 1, 4), 'PNG');
  assert.ok(
    png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128,
    'the Marketplace wants an icon of 128 px or more',
  );
  const categories = pkg.categories as string[];
  assert.ok(categories.length > 0 && categories.every((c) => ALLOWED_CATEGORIES.includes(c)), String(categories));
  const keywords = pkg.keywords as string[];
  assert.ok(keywords.length >= 5 && keywords.length <= 30, 'the Marketplace takes at most 30 keywords');
  assert.match((pkg.galleryBanner as { color: string }).color, /^#[0-9A-Fa-f]{6}$/);
  assert.ok(['dark', 'light'].includes((pkg.galleryBanner as { theme: string }).theme));
  assert.equal(pkg.pricing, 'Free');
  const https = /^https:\/\/\S+$/;
  assert.match((pkg.repository as { url: string }).url, https);
  assert.match((pkg.bugs as { url: string }).url, https);
  assert.match(pkg.homepage as string, https);
  assert.equal(pkg.license, 'Apache-2.0');
  const manifest = entryText('extension.vsixmanifest');
  assert.match(manifest, /Microsoft\.VisualStudio\.Services\.Icons\.Default" Path="extension\/media\/icon\.png"/);
});

test('every image of the packaged README is an https URL whose file is in the package', () => {
  const readme = entryText('extension/readme.md');
  const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g)].map((m) => m[1]);
  assert.ok(images.length >= 5, 'the README shows its screenshots');
  const names = new Set(zipEntries(vsix).map((e) => e.name));
  const repo = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository: { url: string } })
    .repository.url;
  for (const src of images) {
    assert.ok(src.startsWith(`${repo}/raw/HEAD/`), `${src}: an https URL into the repository`);
    const path = src.slice(`${repo}/raw/HEAD/`.length);
    assert.ok(names.has(`extension/${path}`), `${path} is in the package`);
    assert.ok(existsSync(join(ROOT, path)), `${path} is in the repository`);
  }
});

/** The Marketplace's categories (vsce refuses others). */
const ALLOWED_CATEGORIES = [
  'AI',
  'Azure',
  'Chat',
  'Data Science',
  'Debuggers',
  'Education',
  'Extension Packs',
  'Formatters',
  'Keymaps',
  'Language Packs',
  'Linters',
  'Machine Learning',
  'Notebooks',
  'Other',
  'Programming Languages',
  'SCM Providers',
  'Snippets',
  'Testing',
  'Themes',
  'Visualization',
];
