// @vscode/test-cli configuration: `npx vscode-test` runs the extension-host suite in a downloaded
// VS Code (where VS Code can be downloaded). Here, where it cannot, `npm run test:vscode` runs the
// same compiled suite (out/vscode-test) in the extension host of the VS Code server bundled in
// code-server, its web workbench opened in Chromium (scripts/e2e.mjs --vscode, test/e2e/run-vscode-suite.ts).
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  files: 'out/vscode-test/**/*.test.js',
  version: '1.100.3',
  workspaceFolder: './examples',
  launchArgs: ['--disable-extensions'],
  mocha: { ui: 'tdd', timeout: 60_000 },
});
