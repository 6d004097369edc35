// The esbuild options every bundle of test doubles and benches shares (as scripts/build.mjs's):
// one Node 20 CommonJS file, js-yaml from its CommonJS build (2x faster once bundled), and a real
// import.meta.url for the ES modules that read it.
export const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  alias: { 'js-yaml': './node_modules/js-yaml/dist/js-yaml.cjs.js' },
  define: { 'import.meta.url': '__kwImportMetaUrl' },
  banner: { js: "const __kwImportMetaUrl = require('url').pathToFileURL(__filename).href;" },
};
