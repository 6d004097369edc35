// Bundles the extension, the language server and the CLI with esbuild; with --tests also
// compiles every test file to out/test so that `node --test` runs them without a TS loader.
import { build } from 'esbuild';
import { readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const withTests = process.argv.includes('--tests');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
  // js-yaml's ESM build, once bundled, parses 2x slower than its CJS build (measured): use the CJS one.
  alias: { 'js-yaml': './node_modules/js-yaml/dist/js-yaml.cjs.js' },
  // ESM dependencies (fdir, via tinyglobby) read import.meta.url; give the CJS bundle a real one.
  define: { 'import.meta.url': '__kwImportMetaUrl' },
  banner: { js: "const __kwImportMetaUrl = require('url').pathToFileURL(__filename).href;" },
};

await Promise.all([
  build({ ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  build({ ...common, entryPoints: ['src/server/server.ts'], outfile: 'dist/server.js' }),
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: `#!/usr/bin/env node\n${common.banner.js}` } }),
]);

if (withTests) {
  rmSync('out/test', { recursive: true, force: true });
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'e2e' && name !== 'fixtures') walk(p);
      } else if (name.endsWith('.test.ts')) files.push(p);
    }
  };
  walk('test');
  await build({ ...common, entryPoints: files, outdir: 'out/test', outbase: 'test', sourcemap: true, external: ['vscode'] });
}
