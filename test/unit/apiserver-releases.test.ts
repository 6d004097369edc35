// The real API server harness knows its releases (scripts/apiserver.mjs): the pinned one in
// test/apiserver and each test/apiserver-1.N, built from the same main.go, each cached under its own
// version and inputs. The go.mod of a release must pin every staging module to the same release as
// k8s.io/kubernetes, or `go build` mixes two releases' packages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(__dirname, '..', '..', '..');

interface Harness {
  releases(): string[];
  defaultRelease(): string;
  kubernetesVersion(release?: string): string;
  apiServerBinaryPath(release?: string): string;
}
const harness = () => import(pathToFileURL(join(ROOT, 'scripts', 'apiserver.mjs')).href) as Promise<Harness>;

const goMods = () =>
  readdirSync(join(ROOT, 'test'))
    .filter((d) => d === 'apiserver' || /^apiserver-\d+\.\d+$/.test(d))
    .map((d) => join(ROOT, 'test', d, 'go.mod'));

test('the harness builds 1.35 (pinned, the default) and 1.37, each from its own go.mod', async () => {
  const h = await harness();
  assert.deepEqual(h.releases(), ['1.35', '1.37']);
  assert.equal(h.defaultRelease(), '1.35');
  assert.match(h.kubernetesVersion(), /^v1\.35\.\d+$/);
  assert.equal(h.kubernetesVersion('1.35'), h.kubernetesVersion());
  assert.match(h.kubernetesVersion('1.37'), /^v1\.37\.\d+$/);
  assert.throws(() => h.kubernetesVersion('1.99'), /knows no Kubernetes 1\.99.*releases: 1\.35, 1\.37/);
});

test('each release is cached apart, under its version and a hash of its go.mod, go.sum and main.go', async () => {
  const h = await harness();
  const paths = h.releases().map((r) => h.apiServerBinaryPath(r));
  assert.equal(new Set(paths).size, paths.length);
  assert.equal(h.apiServerBinaryPath(), h.apiServerBinaryPath('1.35'));
  for (const [i, r] of h.releases().entries()) {
    assert.equal(basename(paths[i]), 'kube-apiserver-kw');
    assert.match(
      basename(dirname(paths[i])),
      new RegExp(`^${h.kubernetesVersion(r).replace(/\./g, '\\.')}-[0-9a-f]{16}$`),
    );
  }
});

test("every release's go.mod pins each staging module to its own Kubernetes release", () => {
  for (const goMod of goMods()) {
    const text = readFileSync(goMod, 'utf8');
    const kube = /^\s*k8s\.io\/kubernetes\s+v1\.(\d+)\.(\d+)/m.exec(text);
    assert.ok(kube, `${goMod} requires k8s.io/kubernetes`);
    const staging = [...text.matchAll(/^\s*(k8s\.io\/[\w-]+) => k8s\.io\/[\w-]+ (v\S+)/gm)];
    assert.ok(staging.length >= 30, `${goMod} replaces the staging modules (${staging.length})`);
    for (const [, name, version] of staging)
      assert.equal(
        version,
        `v0.${kube[1]}.${kube[2]}`,
        `${goMod}: ${name} at ${version}, k8s.io/kubernetes at v1.${kube[1]}.${kube[2]}`,
      );
  }
});
