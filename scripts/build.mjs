// Bundles the extension, the language server and the CLI with esbuild; with --tests also
// compiles every test file to out/test so that `node --test` runs them without a TS loader.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, statSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

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
  // ssh2 tries optional native add-ons (cpu-features, its sshcrypto.node) inside try/catch and falls
  // back to pure JS: leave them out of the bundle so that the bundle needs no native module.
  external: ['cpu-features', '*.node'],
};

// The extension loads the bootstrap engine (ssh2, plans) from its own bundle on the first join
// command: `./engine-bundle` stays a run-time require of dist/engine.js in the extension bundle.
const engineExternal = {
  name: 'engine-external',
  setup(b) {
    b.onResolve({ filter: /^\.\/engine-bundle$/ }, (args) =>
      args.importer.includes(join('src', 'extension')) ? { path: './engine.js', external: true } : undefined,
    );
  },
};

const shipped = await Promise.all([
  build({
    ...common,
    metafile: true,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    external: [...common.external, 'vscode'],
    plugins: [engineExternal],
  }),
  build({ ...common, metafile: true, entryPoints: ['src/extension/engine-bundle.ts'], outfile: 'dist/engine.js' }),
  // Also the package's kube-windows-language-server command, hence the shebang.
  build({
    ...common,
    metafile: true,
    entryPoints: ['src/server/server.ts'],
    outfile: 'dist/server.js',
    banner: { js: `#!/usr/bin/env node\n${common.banner.js}` },
  }),
  build({ ...common, metafile: true, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js' }),
  // `kube-windows` itself: a small launcher that loads dist/cli-main.js with its code cache.
  build({
    ...common,
    metafile: true,
    entryPoints: ['src/cli/launcher.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
  }),
  // `kubectl-windows`, the kubectl plugin: the same launcher under kubectl's plugin name.
  build({
    ...common,
    metafile: true,
    entryPoints: ['src/cli/kubectl-launcher.ts'],
    outfile: 'dist/kubectl-windows.js',
    banner: { js: '#!/usr/bin/env node' },
  }),
]);
rmSync('dist/cli-main.cache', { force: true });
// The code cache is made from the production bundle only: a development build runs without one.
if (production) execFileSync(process.execPath, ['scripts/code-cache.mjs'], { stdio: 'inherit' });
// Which source files each shipped bundle contains: the software bill of materials
// (scripts/sbom.mjs) lists exactly the packages these come from.
mkdirSync('out', { recursive: true });
const inputs = Object.fromEntries(
  ['extension', 'engine', 'server', 'cli'].map((name, i) => [name, Object.keys(shipped[i].metafile.inputs).sort()]),
);
writeFileSync('out/bundle-inputs.json', JSON.stringify(inputs, null, 1) + '\n');
// What each shipped file still requires at run time (esbuild's external imports): test/cli/packed.test.ts
// checks that it is only Node's own modules and optional add-ons, which is why package.json needs no
// runtime dependencies.
const externals = Object.fromEntries(
  shipped.flatMap((result) =>
    Object.entries(result.metafile.outputs)
      .filter(([file]) => file.endsWith('.js'))
      .map(([file, output]) => [
        file,
        [...new Set(output.imports.filter((i) => i.external).map((i) => i.path))].sort(),
      ]),
  ),
);
writeFileSync('out/bundle-externals.json', JSON.stringify(externals, null, 1) + '\n');

if (withTests) {
  rmSync('out/test', { recursive: true, force: true });
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'e2e' && name !== 'vscode' && name !== 'sandbox' && name !== 'fixtures') walk(p);
      } else if (name.endsWith('.test.ts')) files.push(p);
    }
  };
  walk('test');
  await build({
    ...common,
    entryPoints: files,
    outdir: 'out/test',
    outbase: 'test',
    sourcemap: true,
    external: [...common.external, 'vscode'],
  });
}
