// `npm run bench` (first part): bundle sizes, the cost of loading dist/extension.js in Node (with a
// stub `vscode` module), and the time activate() takes in a real extension host: the e2e run
// (code-server) opens a YAML file and reads the "activate took N ms" line the extension logs.
// Target: activate() < 100 ms. Set BENCH_SKIP_VSCODE=1 to skip the code-server part.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { createRequire, Module } from 'node:module';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
console.log('Bundles (dist/, as packaged):');
for (const f of readdirSync(dist)
  .filter((n) => n.endsWith('.js'))
  .sort()) {
  const buf = readFileSync(join(dist, f));
  console.log(
    `  ${f.padEnd(14)} ${(buf.length / 1024).toFixed(0).padStart(6)} KB  (gzip ${(gzipSync(buf).length / 1024).toFixed(0)} KB)`,
  );
}

// Loading the extension bundle with a stub vscode: what the extension host pays before activate().
const origLoad = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'vscode') return new Proxy({}, { get: (_t, k) => (k === '__esModule' ? false : class {}) });
  return origLoad.call(this, request, ...rest);
};
const req = createRequire(import.meta.url);
const t0 = performance.now();
try {
  req(join(dist, 'extension.js'));
  console.log(
    `\nrequire('dist/extension.js') in Node: ${(performance.now() - t0).toFixed(1)} ms (module evaluation, before activate)`,
  );
} catch (err) {
  console.log(
    `\nrequire('dist/extension.js') with a stub vscode failed (${String(err).split('\n')[0].slice(0, 120)}): not measured`,
  );
}
Module._load = origLoad;

if (process.env.BENCH_SKIP_VSCODE) process.exit(0);
console.log('\nactivate() in a real extension host (code-server, e2e: open a YAML file):');
const r = spawnSync(
  process.execPath,
  [join(root, 'scripts', 'e2e.mjs'), '--test-name-pattern=nothing is started|diagnostics|activate'],
  {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  },
);
const file = join(root, 'test-results', 'activation.json');
if (r.status !== 0 || !existsSync(file) || statSync(file).mtimeMs < Date.now() - 600_000) {
  console.log(r.stdout);
  console.error('bench: the activation run failed');
  process.exit(1);
}
const { activateMs } = JSON.parse(readFileSync(file, 'utf8'));
console.log(`  activate took ${activateMs} ms (target < 100 ms)${activateMs < 100 ? '' : '  OVER TARGET'}`);
console.log(
  '  no API request and no language server before a YAML file or the view is opened (asserted by the e2e test)',
);
