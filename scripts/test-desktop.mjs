// `npm run test:desktop`: the extension-host suite (test/vscode) in the desktop VS Code that
// @vscode/test-electron downloads, for developer machines and hosted CI (GitHub Actions) where
// update.code.visualstudio.com is reachable. The machines this project's own CI runs on cannot
// download VS Code, so there the same suite runs in code-server (`npm run test:vscode`); here this
// script fails at once with that advice instead of hanging. Order: download first (cheap to fail),
// then build, then run.
// KW_DESKTOP_CACHE: where VS Code is kept (default .vscode-test/ in the repository).
// On Linux without a display, run it as `xvfb-run -a npm run test:desktop`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import config from '../.vscode-test.mjs';
import { bundleVscodeSuite } from './e2e-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOWNLOAD_IDLE_MS = 20_000;

function fail(message) {
  console.error(`test:desktop: ${message}`);
  process.exit(1);
}

let vscodeExecutablePath;
try {
  vscodeExecutablePath = await downloadAndUnzipVSCode({
    version: config.version,
    cachePath: process.env.KW_DESKTOP_CACHE ?? join(root, '.vscode-test'),
    timeout: DOWNLOAD_IDLE_MS,
  });
} catch (err) {
  const reason = String(err instanceof Error ? err.message : err).split('\n')[0];
  fail(
    `VS Code ${config.version} could not be downloaded (${reason}).\n` +
      'This suite needs the desktop VS Code from update.code.visualstudio.com. Where that cannot be reached, ' +
      '`npm run test:vscode` runs the same extension-host suite in code-server (as `npm test` and CI do).',
  );
}

if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  fail('no display for Electron (DISPLAY is not set): run `xvfb-run -a npm run test:desktop`.');
}

// The repository itself is the extension under development: production bundles in dist/.
const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production'], {
  cwd: root,
  stdio: 'inherit',
});
if (built.status !== 0) fail('the build failed (above).');
const extensionTestsPath = await bundleVscodeSuite(root);

const profile = mkdtempSync(join(tmpdir(), 'kw-desktop-'));
try {
  await runTests({
    vscodeExecutablePath,
    extensionDevelopmentPath: root,
    extensionTestsPath,
    launchArgs: [
      join(root, config.workspaceFolder),
      ...config.launchArgs,
      `--user-data-dir=${join(profile, 'user')}`,
      `--extensions-dir=${join(profile, 'extensions')}`,
    ],
  });
  console.log('test:desktop: the extension-host suite passed in desktop VS Code', config.version);
} catch (err) {
  fail(String(err instanceof Error ? err.message : err));
} finally {
  rmSync(profile, { recursive: true, force: true });
}
