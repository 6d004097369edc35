// @vscode/test-cli configuration: `npx vscode-test` runs the extension-host suite in a downloaded
// VS Code (where VS Code can be downloaded). Here, where it cannot, `npm run test:vscode` runs the
// same compiled suite (out/vscode-test) inside code-server's extension host (scripts/e2e.mjs --vscode).
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  files: 'out/vscode-test/**/*.test.js',
  version: '1.100.3',
  workspaceFolder: './examples',
  launchArgs: ['--disable-extensions'],
  mocha: { ui: 'tdd', timeout: 60_000 },
});
