// How out/sandbox/sandbox.js is built from test/sandbox/main.ts (esbuild): shared by `npm run
// sandbox` (scripts/sandbox.mjs) and the e2e preparation, whose sandbox test starts that very file.
import { build } from 'esbuild';
import { join } from 'node:path';

/** Bundles the sandbox (with the test doubles it runs) into outDir/sandbox.js. */
export async function bundleSandbox(root, outDir) {
  await build({
    entryPoints: [join(root, 'test', 'sandbox', 'main.ts')],
    outfile: join(outDir, 'sandbox.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    alias: { 'js-yaml': './node_modules/js-yaml/dist/js-yaml.cjs.js' },
    define: { 'import.meta.url': '__kwImportMetaUrl' },
    banner: { js: "const __kwImportMetaUrl = require('url').pathToFileURL(__filename).href;" },
    external: ['cpu-features', '*.node', 'playwright-core'],
  });
  return join(outDir, 'sandbox.js');
}
