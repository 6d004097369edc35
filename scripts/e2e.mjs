// `npm run test:e2e`: the real-VS-Code tests. Installs code-server and Chromium when missing
// (scripts/e2e-setup.mjs, cached), packages the .vsix, bundles test/e2e/*.test.ts (with the test
// doubles they start) into out/e2e, and runs them with node's test runner, one file at a time.
// `--vscode`: the extension-host suite (test/vscode, @vscode/test-cli style) in the VS Code server
// bundled in code-server (test/e2e/run-vscode-suite.ts): builds dist/ (the repository itself is the
// extension under development) instead of packaging, and runs the bundled runner with node.
// Extra arguments go to `node --test` (e.g. --test-name-pattern=activation).
// `--prepare`: set up, package and bundle everything (the UI tests and the extension-host suite),
// run nothing: `npm test` then runs out/e2e with the rest of the tests in one `node --test`.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup } from './e2e-setup.mjs';
import { bundleE2e, bundleVscodeSuite } from './e2e-bundle.mjs';
import { bundleSandbox } from './sandbox-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const t0 = Date.now();
const setupMs = setup();

const vscodeSuite = process.argv.includes('--vscode');
const prepareOnly = process.argv.includes('--prepare');
const passThrough = process.argv.slice(2).filter((a) => a !== '--vscode' && a !== '--prepare');
const outDir = join(root, 'out', 'e2e');
rmSync(outDir, { recursive: true, force: true });

// The .vsix (its prepublish also leaves the production bundles in dist/, which the extension-host
// suite loads as the extension under development).
const vsix = join(outDir, 'kube-windows.vsix');
const tPack = Date.now();
const packed = spawnSync(process.execPath, [join(root, 'scripts', 'package.mjs'), '--out', vsix], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (packed.status !== 0) process.exit(packed.status ?? 1);
console.log(`e2e: packaged ${vsix} in ${((Date.now() - tPack) / 1000).toFixed(1)} s`);

await bundleE2e(root, outDir);
await bundleVscodeSuite(root);
// The sandbox as `npm run sandbox` runs it: test/e2e/sandbox.test.ts starts this very bundle.
await bundleSandbox(root, join(root, 'out', 'sandbox'));
if (prepareOnly) {
  console.log(`e2e: prepared in ${((Date.now() - t0) / 1000).toFixed(1)} s (setup ${(setupMs / 1000).toFixed(1)} s)`);
  process.exit(0);
}

const env = { ...process.env, KW_VSIX: vsix };
const files = readdirSync(outDir)
  .filter((f) => f.endsWith('.test.js') && (vscodeSuite ? f === 'vscode-suite.test.js' : true))
  .map((f) => join(outDir, f));
const tRun = Date.now();
const args = ['--test', '--test-concurrency=1', '--test-force-exit', ...passThrough, ...files];
const r = spawnSync(process.execPath, args, { cwd: root, env, stdio: 'inherit' });
const total = (Date.now() - t0) / 1000;
console.log(
  `e2e: setup ${(setupMs / 1000).toFixed(1)} s, tests ${((Date.now() - tRun) / 1000).toFixed(1)} s, total ${total.toFixed(1)} s; screenshots in ${join(root, 'test-results')}${existsSync(join(root, 'test-results')) ? '' : ' (none)'}`,
);
process.exit(r.status ?? 1);
