// `npm run sbom`: the software bill of materials of what ships (the bundles in dist/, which are
// the whole of the .vsix and of the packed CLI), as CycloneDX 1.5 JSON in out/sbom.cdx.json, with
// a table on standard output. The components, licences and hashes are `npm sbom`'s; which of them
// ship is read from esbuild's record of every file each bundle contains (out/bundle-inputs.json,
// written by scripts/build.mjs), not from package.json: every package the bundles hold is a
// devDependency (the installed package needs none at run time), so package.json's dependencies say
// nothing about what ships. Each component says which bundles carry it and why it is there. No
// advisory service is reachable from the CI machines, so the SBOM claims nothing about vulnerabilities.
// Fails (exit 1) when a shipped package is not in npm's SBOM, a package the project names directly
// ships without a reason here, or a reason names a package no bundle holds any more.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv.includes('--out')
  ? resolve(process.argv[process.argv.indexOf('--out') + 1])
  : join(root, 'out', 'sbom.cdx.json');

/** Why each package the project names and the bundles hold is there (a transitive one is there for the one that needs it). */
export const WHY = {
  'js-yaml': 'parses manifests with source offsets for the rule engine (the fast path)',
  yaml: 'writes YAML that keeps comments (MachineSet drafts, generated objects); never used to read',
  tinyglobby: 'expands the file globs given to the CLI',
  picomatch: 'matches the kubeWindows.files.include/exclude settings',
  'vscode-languageserver': 'the language server (LSP over stdio)',
  'vscode-languageserver-textdocument':
    "the language client's text documents (the server keeps its own, with this package's positions and types)",
  'vscode-languageclient': 'starts and talks to the language server from the extension',
  'vscode-languageserver-protocol':
    "the LSP messages of the extension's language client (the tests and the LSP bench talk LSP with it too)",
  '@kubernetes/client-node': 'reads kubeconfig files, exec credential plugins and pod exec over WebSocket',
  ssh2: 'SSH and SFTP to Windows hosts in pure JavaScript (its optional native add-ons are left out)',
  'vscode-kubernetes-tools-api':
    "the Kubernetes extension's public API, to show Windows details in its Cluster Explorer",
  '@bjorn3/browser_wasi_shim':
    "the WASI functions of the exact-API validator in pure JavaScript (node:wasi's native ones can corrupt the heap: nodejs/node#46777)",
};

function fail(message) {
  console.error(`sbom: ${message}`);
  process.exit(1);
}

const inputsFile = join(root, 'out', 'bundle-inputs.json');
if (!existsSync(inputsFile)) fail('out/bundle-inputs.json is missing: build first (node scripts/build.mjs).');
const bundleInputs = JSON.parse(readFileSync(inputsFile, 'utf8'));

/** The package (name@version) a bundled file belongs to: its nearest package.json with a name. */
const packageCache = new Map();
function packageOf(file) {
  let dir = dirname(resolve(root, file));
  while (dir.startsWith(join(root, 'node_modules') + sep)) {
    if (packageCache.has(dir)) return packageCache.get(dir);
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'));
      if (name && version) {
        const ref = `${name}@${version}`;
        packageCache.set(dir, ref);
        return ref;
      }
    }
    dir = dirname(dir);
  }
  return undefined;
}

const bundlesOf = new Map();
for (const [bundle, files] of Object.entries(bundleInputs)) {
  for (const file of files) {
    if (!file.includes('node_modules/')) continue;
    const ref = packageOf(file);
    if (!ref) continue;
    if (!bundlesOf.has(ref)) bundlesOf.set(ref, new Set());
    bundlesOf.get(ref).add(bundle);
  }
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const full = JSON.parse(
  execFileSync(npm, ['sbom', '--sbom-format', 'cyclonedx', '--sbom-type', 'application'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  }),
);
const byRef = new Map(full.components.map((c) => [c['bom-ref'], c]));
const missing = [...bundlesOf.keys()].filter((ref) => !byRef.has(ref));
if (missing.length) fail(`shipped packages not in npm's SBOM: ${missing.join(', ')}`);

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const nameOf = (ref) => ref.slice(0, ref.lastIndexOf('@'));
const shippedNames = new Set([...bundlesOf.keys()].map(nameOf));
// The packages package.json names (all of them devDependencies) that a bundle holds: the direct ones.
const direct = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((d) => shippedNames.has(d));
/** The copy the project itself resolves (node_modules/NAME), not one nested under another package. */
const topLevel = new Set(
  direct.map((d) => `${d}@${JSON.parse(readFileSync(join(root, 'node_modules', d, 'package.json'), 'utf8')).version}`),
);
const unexplained = direct.filter((d) => !WHY[d]);
if (unexplained.length)
  fail(`shipped direct dependencies without a reason in scripts/sbom.mjs: ${unexplained.join(', ')}`);
const stale = Object.keys(WHY).filter((d) => !shippedNames.has(d));
if (stale.length) fail(`reasons in scripts/sbom.mjs for packages no bundle holds: ${stale.join(', ')}`);

// Which direct dependency pulls each transitive one in, from npm's dependency graph.
const edges = new Map((full.dependencies ?? []).map((d) => [d.ref, d.dependsOn ?? []]));
const via = new Map();
for (const name of direct) {
  const start = [...topLevel].find((ref) => nameOf(ref) === name && bundlesOf.has(ref));
  const queue = start ? [start] : [];
  while (queue.length) {
    const ref = queue.shift();
    for (const next of edges.get(ref) ?? []) {
      if (via.has(next) || next === start) continue;
      via.set(next, name);
      queue.push(next);
    }
  }
}

const components = [...bundlesOf.keys()].sort().map((ref) => {
  const c = structuredClone(byRef.get(ref));
  const name = nameOf(ref);
  const why =
    (topLevel.has(ref) && WHY[name]) ||
    (via.has(ref) ? `needed by ${via.get(ref)}` : 'bundled through another package');
  c.scope = 'required';
  c.properties = [
    ...(c.properties ?? []),
    { name: 'kube-windows:direct', value: String(topLevel.has(ref)) },
    { name: 'kube-windows:bundles', value: [...bundlesOf.get(ref)].sort().join(',') },
    { name: 'kube-windows:why', value: why },
  ];
  return c;
});
const shippedRefs = new Set(components.map((c) => c['bom-ref']));
const sbom = {
  ...full,
  metadata: { ...full.metadata, component: { ...full.metadata.component, name: pkg.name } },
  components,
  dependencies: (full.dependencies ?? [])
    .filter((d) => shippedRefs.has(d.ref) || d.ref === full.metadata.component['bom-ref'])
    .map((d) => ({ ...d, dependsOn: (d.dependsOn ?? []).filter((r) => shippedRefs.has(r)) })),
};
writeFileSync(out, JSON.stringify(sbom, null, 2) + '\n');

const licence = (c) => (c.licenses ?? []).map((l) => l.license?.id ?? l.license?.name ?? l.expression).join(' ') || '?';
console.log(`SBOM (CycloneDX ${sbom.specVersion}) of what ships: ${components.length} packages, written to ${out}`);
for (const c of components) {
  const props = Object.fromEntries(c.properties.map((p) => [p.name, p.value]));
  console.log(
    `  ${`${c.name}@${c.version}`.padEnd(48)} ${licence(c).padEnd(14)} ${props['kube-windows:bundles'].padEnd(30)} ${props['kube-windows:why']}`,
  );
}
