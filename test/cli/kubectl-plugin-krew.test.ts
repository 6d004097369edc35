// The krew plugin: krew/windows.yaml checked by krew's own validator (sigs.k8s.io/krew's
// cmd/validate-krew-manifest, built once by scripts/krew.mjs), the platform archive of this machine
// built by scripts/krew.mjs (its layout, reproducibility, the launcher), and installed by krew itself
// (`kubectl krew install --manifest --archive`, the way a krew-index entry installs), then run by a real
// kubectl against the real API server, with and without Node on the PATH.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { load } from 'js-yaml';
import { windowsNode } from '../support/kube-seed';
import {
  CONTEXT_ADMIN,
  ROOT,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';

interface Platform {
  os: string;
  arch: string;
}
interface KrewScript {
  MANIFEST: string;
  PLATFORMS: Platform[];
  archiveName(version: string, p: Platform): string;
  binName(p: Platform): string;
  hostPlatform(): Platform;
  packageVersion(): string;
  buildArchive(o: { platform: Platform; outDir: string }): Promise<{ file: string; sha256: string; entries: string[] }>;
  manifestText(o: { version: string; archives: { platform: Platform; sha256: string; uri: string }[] }): string;
  ensureKrewTools(): Promise<{ validator: string; krew: string }>;
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    version: string;
    shortDescription: string;
    platforms: { selector: { matchLabels: Platform }; uri: string; sha256: string; bin: string }[];
  };
}

const NODE_NAME = uniqueName('kw-krew-win');
let krew: KrewScript;
let tools: { validator: string; krew: string };
let api: RealApiServer;
let dir: string;
let kubectl: string;
let archive: { file: string; sha256: string; entries: string[] };

before(async () => {
  krew = (await import(pathToFileURL(join(ROOT, 'scripts', 'krew.mjs')).href)) as KrewScript;
  tools = await krew.ensureKrewTools();
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'kubectl.mjs'), '--path'], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`scripts/kubectl.mjs could not provide kubectl:\n${built.stderr}`);
  kubectl = built.stdout.trim();
  dir = mkdtempSync(join(tmpdir(), 'kw-krew-'));
  archive = await krew.buildArchive({ platform: krew.hostPlatform(), outDir: join(dir, 'out') });
  api = await useApiServer();
  await seed(api, [windowsNode(NODE_NAME, { build: '10.0.20348' }) as SeedObject]);
});

after(async () => {
  await api?.request(`/api/v1/nodes/${NODE_NAME}`, { method: 'DELETE' });
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const validate = (manifest: string) =>
  spawnSync(tools.validator, ['-manifest', manifest, '-skip-install'], { encoding: 'utf8' });

test("krew's own validator accepts krew/windows.yaml, and refuses it broken", () => {
  const ok = validate(krew.MANIFEST);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /structural validation OK/);
  assert.match(ok.stderr, /no overlapping spec.platform\[\].selector/);
  // The validator is not a rubber stamp: without a bin, or with two platforms for one os/arch, it refuses.
  const text = readFileSync(krew.MANIFEST, 'utf8');
  const broken = join(dir, 'broken', 'windows.yaml');
  for (const [what, mutated, why] of [
    ['no bin', text.replace(/^ {6}bin: kubectl-windows\n/m, ''), /`bin` has to be set/],
    ['an overlap', text.replace('arch: arm64', 'arch: amd64'), /overlapping platform selectors/],
    [
      'a short sha256',
      text.replace(/sha256: ([0-9a-f]{8})[0-9a-f]{56}/, 'sha256: $1'),
      /`sha256` value \w+ is not valid/,
    ],
  ] as const) {
    assert.notEqual(mutated, text, what);
    mkdirSync(dirname(broken), { recursive: true });
    writeFileSync(broken, mutated);
    const r = validate(broken);
    assert.notEqual(r.status, 0, what);
    assert.match(r.stderr, why, what);
  }
});

test('the manifest names one archive per platform of this release, each with its launcher', () => {
  const m = load(readFileSync(krew.MANIFEST, 'utf8')) as Manifest;
  const version = krew.packageVersion();
  assert.equal(m.apiVersion, 'krew.googlecontainertools.github.com/v1alpha2');
  assert.equal(m.kind, 'Plugin');
  assert.equal(m.metadata.name, 'windows', 'kubectl windows: the plugin is named for the command');
  assert.equal(m.spec.version, `v${version}`);
  assert.deepEqual(
    m.spec.platforms.map((p) => p.selector.matchLabels),
    krew.PLATFORMS,
  );
  for (const p of m.spec.platforms) {
    const platform = p.selector.matchLabels;
    assert.equal(p.bin, platform.os === 'windows' ? 'kubectl-windows.exe' : 'kubectl-windows');
    assert.ok(p.uri.endsWith(`/v${version}/${krew.archiveName(version, platform)}`), p.uri);
    assert.match(p.sha256, /^[0-9a-f]{64}$/);
  }
});

test('the archive holds the launcher, the bundle under lib/ and the LICENSE, and is reproducible', async () => {
  const bin = krew.binName(krew.hostPlatform());
  const cache = existsSync(join(ROOT, 'dist', 'cli-main.cache')) ? ['lib/cli-main.cache'] : [];
  assert.deepEqual(
    archive.entries,
    [
      'LICENSE',
      bin,
      'lib/',
      ...cache,
      'lib/cli-main.js',
      'lib/cli.js',
      'lib/kubectl-windows.js',
      'lib/kubectl_complete-windows.js',
    ].sort(),
  );
  const listed = spawnSync('tar', ['-tzvf', archive.file], { encoding: 'utf8' }).stdout.trim().split('\n');
  assert.deepEqual(
    listed.map((l) => l.split(/\s+/).pop()),
    archive.entries,
  );
  for (const line of listed) {
    assert.match(line, /^\S+ 0\/0 .* 1970-01-01 00:00 /, 'owner 0, mtime 0');
    if (line.endsWith(` ${bin}`)) assert.match(line, /^-rwxr-xr-x /, 'the launcher is executable');
  }
  const again = await krew.buildArchive({ platform: krew.hostPlatform(), outDir: join(dir, 'again') });
  assert.equal(again.sha256, archive.sha256, 'the same inputs make the same archive');
});

test('krew installs the archive; kubectl runs the plugin through its launcher, which finds Node or says it cannot', () => {
  const version = krew.packageVersion();
  const platform = krew.hostPlatform();
  // The release's manifest, for this archive (its sha256; the URL is not fetched: --archive gives the file).
  const manifest = join(dir, 'manifest', 'windows.yaml');
  mkdirSync(dirname(manifest), { recursive: true });
  writeFileSync(
    manifest,
    krew.manifestText({
      version,
      archives: [
        { platform, sha256: archive.sha256, uri: `https://example.invalid/${krew.archiveName(version, platform)}` },
      ],
    }),
  );
  assert.equal(validate(manifest).status, 0);
  const krewRoot = join(dir, 'krew-root');
  const base = { HOME: dir, KREW_ROOT: krewRoot, KUBECONFIG: api.kubeconfigPath };
  const install = spawnSync(kubectl, ['krew', 'install', `--manifest=${manifest}`, `--archive=${archive.file}`], {
    encoding: 'utf8',
    input: '',
    env: { ...base, PATH: [dirname(tools.krew), '/usr/bin', '/bin'].join(delimiter) },
  });
  assert.equal(install.status, 0, install.stderr);
  assert.match(install.stderr, /Installed plugin: windows/);
  const link = join(krewRoot, 'bin', 'kubectl-windows');
  assert.ok(lstatSync(link).isSymbolicLink(), 'krew links the bin');
  assert.equal(realpathSync(link), realpathSync(join(krewRoot, 'store', 'windows', `v${version}`, 'kubectl-windows')));

  // Node on the PATH (the plugin's `node`), krew's bin folder as users add it.
  const withNode = {
    ...base,
    PATH: [join(krewRoot, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter),
  };
  const list = spawnSync(kubectl, ['plugin', 'list'], { encoding: 'utf8', env: withNode });
  assert.equal(list.status, 0, list.stderr);
  assert.equal(list.stdout, `The following compatible plugins are available:\n\n${link}\n`);
  assert.equal(list.stderr, '');
  const nodes = spawnSync(kubectl, ['windows', 'nodes', '--context', CONTEXT_ADMIN, '-o', 'name'], {
    encoding: 'utf8',
    env: withNode,
  });
  assert.equal(nodes.status, 0, nodes.stderr);
  assert.ok(nodes.stdout.split('\n').includes(`node/${NODE_NAME}`), nodes.stdout);
  // The exit code and stderr of the bundle pass through the launcher and kubectl.
  const missing = spawnSync(kubectl, ['windows', 'nodes', '--context', 'nope'], { encoding: 'utf8', env: withNode });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^error: context was not found for specified context: nope/);

  // Shell completion, once the link the docs name is made beside krew's: kubectl runs it by its name.
  symlinkSync(link, join(krewRoot, 'bin', 'kubectl_complete-windows'));
  const completion = spawnSync(kubectl, ['__complete', 'windows', 'nodes', '--context', 'kube-windows-apiserver-r'], {
    encoding: 'utf8',
    env: withNode,
  });
  assert.equal(completion.stdout, 'kube-windows-apiserver-restricted\n:4\n', completion.stderr);

  // No node on the PATH: the launcher says so, exit code 2; KUBE_WINDOWS_NODE names one.
  const noNode = { ...base, PATH: join(krewRoot, 'bin') };
  const without = spawnSync(link, ['--version'], { encoding: 'utf8', env: noNode });
  assert.equal(without.status, 2);
  assert.equal(
    without.stderr,
    'kubectl windows: Node.js 20.19 or newer is needed and there is no node on the PATH: install it, or set KUBE_WINDOWS_NODE to the node executable\n',
  );
  const named = spawnSync(link, ['--version'], {
    encoding: 'utf8',
    env: { ...noNode, KUBE_WINDOWS_NODE: process.execPath },
  });
  assert.equal(named.status, 0, named.stderr);
  assert.equal(named.stdout, `${version}\n`);
  const wrong = spawnSync(link, ['--version'], {
    encoding: 'utf8',
    env: { ...noNode, KUBE_WINDOWS_NODE: join(dir, 'no-node') },
  });
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /KUBE_WINDOWS_NODE=.*no-node: no such file/);
});
