// The software bill of materials of what ships (scripts/sbom.mjs over `npm sbom` and the bundles'
// own list of files): it must name exactly the packages inside dist/, each with its reason, and no
// development tool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

interface Component {
  name: string;
  version: string;
  purl: string;
  licenses?: unknown[];
  hashes?: unknown[];
  properties: { name: string; value: string }[];
}

test(
  'npm run sbom: CycloneDX of the bundled packages, each with its bundles and why; no dev tool',
  { timeout: 120_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-sbom-'));
    try {
      const file = join(dir, 'sbom.json');
      // The test build wrote out/bundle-inputs.json for the same entry points.
      const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'sbom.mjs'), '--out', file], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 110_000,
      });
      assert.equal(r.status, 0, r.stderr);
      const sbom = JSON.parse(readFileSync(file, 'utf8')) as {
        bomFormat: string;
        specVersion: string;
        components: Component[];
        metadata: { component: { name: string } };
      };
      assert.equal(sbom.bomFormat, 'CycloneDX');
      assert.equal(sbom.specVersion, '1.5');
      assert.equal(sbom.metadata.component.name, 'kube-windows');
      const names = sbom.components.map((c) => c.name);
      // What the bundles are made of, read from the bundles themselves: package.json has no runtime
      // dependencies (the installed package needs none), so it cannot say what ships.
      const direct = sbom.components
        .filter((c) => c.properties.some((p) => p.name === 'kube-windows:direct' && p.value === 'true'))
        .map((c) => c.name);
      for (const dep of [
        '@kubernetes/client-node',
        'js-yaml',
        'picomatch',
        'ssh2',
        'tinyglobby',
        'vscode-kubernetes-tools-api',
        'vscode-languageclient',
        'vscode-languageserver',
        'vscode-languageserver-textdocument',
        'yaml',
      ])
        assert.ok(direct.includes(dep), `${dep} is missing from the SBOM's direct packages`);
      for (const dev of [
        'typescript',
        'esbuild',
        'eslint',
        'playwright-core',
        'yaml-language-server',
        'node-forge',
        'web-tree-sitter',
        'mocha',
      ]) {
        assert.ok(!names.includes(dev), `${dev} is a development tool, not shipped`);
      }
      assert.ok(!names.includes('cpu-features'), "ssh2's optional native add-on is left out of the bundles");
      for (const c of sbom.components) {
        const props = Object.fromEntries(c.properties.map((p) => [p.name, p.value]));
        assert.match(
          props['kube-windows:bundles'] ?? '',
          /^(cli|engine|extension|server)(,(cli|engine|extension|server))*$/,
          `${c.name}: bundles`,
        );
        assert.ok((props['kube-windows:why'] ?? '').length > 5, `${c.name}: why`);
        assert.match(c.purl, /^pkg:npm\//);
        assert.ok(c.hashes?.length, `${c.name}: integrity hash`);
      }
      assert.match(r.stdout, /^SBOM \(CycloneDX 1\.5\) of what ships: \d+ packages/);
      // docs/design.md names every package the bundles hold directly (and why).
      const design = readFileSync(join(ROOT, 'docs', 'design.md'), 'utf8');
      for (const dep of direct) assert.ok(design.includes(`\`${dep}\``), `docs/design.md does not name ${dep}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
