// How the test bundles for a real VS Code are built (esbuild): the UI tests (test/e2e) and the
// extension-host suite (test/vscode, loaded by the extension host as extensionTestsPath). Shared by
// scripts/e2e.mjs (code-server) and scripts/test-desktop.mjs (desktop VS Code).
import { build } from 'esbuild';
import { NODE_BUNDLE } from './esbuild-node.mjs';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const common = {
  ...NODE_BUNDLE,
  external: ['cpu-features', '*.node', 'playwright-core', 'vscode', 'mocha'],
};

const listed = (root, dir, keep) =>
  readdirSync(join(root, dir))
    .filter(keep)
    .map((f) => join(dir, f));

/** test/vscode → out/vscode-test (index.js is the extensionTestsPath). */
export async function bundleVscodeSuite(root) {
  const outdir = join(root, 'out', 'vscode-test');
  rmSync(outdir, { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: listed(root, 'test/vscode', (f) => f.endsWith('.test.ts') || f === 'index.ts'),
    outdir,
    outbase: 'test/vscode',
  });
  return join(outdir, 'index.js');
}

/** test/e2e/*.test.ts and the code-server suite runner → outDir. */
export async function bundleE2e(root, outDir) {
  await build({
    ...common,
    entryPoints: listed(root, 'test/e2e', (f) => f.endsWith('.test.ts')),
    outdir: outDir,
    outbase: 'test/e2e',
  });
  await build({
    ...common,
    entryPoints: ['test/e2e/run-vscode-suite.ts'],
    outfile: join(outDir, 'run-vscode-suite.js'),
  });
}
