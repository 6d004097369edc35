// `npm run package`: builds the .vsix with @vscode/vsce (its vscode:prepublish runs the production
// build), then prints its size and file list and fails when it holds anything beyond the allow-list
// or weighs 5 MB or more. Prints the .vsix path on the last line.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipEntries } from './zip-entries.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = process.argv.includes('--out')
  ? resolve(process.argv[process.argv.indexOf('--out') + 1])
  : join(root, `${pkg.name}-${pkg.version}.vsix`);
const LIMIT = 5 * 1024 * 1024;
const ALLOWED = [
  /^extension\/dist\/(extension|engine|server|cli|cli-main)\.js$/,
  /^extension\/dist\/cli-main\.cache$/,
  /^extension\/media\//,
  /^extension\/syntaxes\//,
  // The README's screenshots, so that its images resolve inside the package too.
  /^extension\/docs\/screenshots\/[\w-]+\.png$/,
  /^extension\/(readme|changelog)\.md$/i,
  /^extension\/LICENSE(\.txt)?$/i,
  /^extension\/package\.json$/,
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
];

mkdirSync(dirname(out), { recursive: true });
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', out], { cwd: root, stdio: 'inherit' });
const size = statSync(out).size;
const entries = zipEntries(out);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`\n${out}\n${(size / 1024 / 1024).toFixed(2)} MB (${size} bytes), ${entries.length} files:`);
for (const e of entries) console.log(`  ${e.name.padEnd(56)} ${kb(e.size).padStart(10)}`);
const stray = entries.filter((e) => !ALLOWED.some((re) => re.test(e.name)));
const problems = [];
if (stray.length) problems.push(`files outside the allow-list: ${stray.map((e) => e.name).join(', ')}`);
if (size >= LIMIT) problems.push(`the .vsix is ${size} bytes, over the 5 MB limit`);
for (const need of [
  'extension/dist/extension.js',
  'extension/dist/engine.js',
  'extension/dist/server.js',
  'extension/dist/cli.js',
  'extension/dist/cli-main.js',
  'extension/package.json',
  'extension/media/icon.png',
]) {
  if (!entries.some((e) => e.name === need)) problems.push(`missing ${need}`);
}
if (problems.length) {
  console.error(`package: ${problems.join('; ')}`);
  process.exit(1);
}
console.log(out);
