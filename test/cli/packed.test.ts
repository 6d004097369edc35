// The CLI as people install it: `npm pack`, then `npm install -g` of the tarball into an empty prefix
// with no dev dependencies, then `kube-windows check` on the bundled examples. Also the GitHub
// Action's script (action.yml) run on the examples, and the pre-commit hook's definition.
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { installPackedPackage } from '../support/packed-install';

const ROOT = resolve(__dirname, '..', '..', '..');
const EXAMPLES = join(ROOT, 'examples');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let dir: string;
let bin: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-packed-'));
  bin = join(installPackedPackage(dir), 'kube-windows');
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('the packed CLI installs globally without dev dependencies and checks the examples', () => {
  assert.ok(existsSync(bin), 'the bin link exists');
  const tree = spawnSync(npm, ['ls', '-g', '--prefix', join(dir, 'prefix'), '--all', '--parseable'], {
    encoding: 'utf8',
  }).stdout;
  for (const devOnly of ['esbuild', 'typescript', 'eslint', 'prettier'])
    assert.doesNotMatch(tree, new RegExp(`node_modules/${devOnly}\\b`), `${devOnly} is not installed`);
  const r = spawnSync(bin, ['check', EXAMPLES], {
    encoding: 'utf8',
    cwd: tmpdir(),
    env: { ...process.env, NO_COLOR: '1' },
  });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /✖ \d+ findings \(\d+ errors, \d+ warnings, \d+ info\) in \d+ of \d+ files/);
  const sarif = spawnSync(bin, ['check', '--format', 'sarif', join(EXAMPLES, 'good')], {
    encoding: 'utf8',
    cwd: tmpdir(),
  });
  assert.equal(JSON.parse(sarif.stdout).version, '2.1.0');
  // The package itself holds the bundle, its docs, the action and the hook: no sources, tests or maps.
  const pkgDir = join(dir, 'prefix', 'lib', 'node_modules', 'kube-windows');
  const own = (readdirSync(pkgDir, { recursive: true }) as string[])
    .filter((f) => !f.startsWith('node_modules'))
    .sort();
  // The V8 code cache of the bundle comes with a production build (npm pack's prepack makes one); a
  // test build has none, and the CLI then compiles as usual.
  const cache = existsSync(join(ROOT, 'dist', 'cli-main.cache')) ? ['dist/cli-main.cache'] : [];
  assert.deepEqual(own, [
    '.pre-commit-hooks.yaml',
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'action.yml',
    'dist',
    ...cache,
    'dist/cli-main.js',
    'dist/cli.js',
    'dist/kubectl-windows.js',
    'dist/server.js',
    'docs',
    'docs/editors',
    ...readdirSync(join(ROOT, 'docs', 'editors'))
      .map((f) => `docs/editors/${f}`)
      .sort(),
    'docs/rules.md',
    'package.json',
    'scripts',
    'scripts/action-check.mjs',
  ]);
});

/**
 * What a shipped bundle may still require at run time besides Node's own modules: optional add-ons
 * that their packages load inside try/catch, and the extension's host and its own lazy bundle.
 */
const OPTIONAL_AT_RUN_TIME: Record<string, string> = {
  'cpu-features': "ssh2's optional native add-on (left out of the bundles)",
  './crypto/build/Release/sshcrypto.node': "ssh2's optional native crypto binding",
  bufferutil: "ws's optional native speed-up",
  'utf-8-validate': "ws's optional native speed-up",
  encoding: "node-fetch's optional charset converter",
  vscode: 'the VS Code API, given by the extension host (dist/extension.js only)',
  './engine.js': "the extension's bootstrap engine, its own bundle, loaded on the first join",
};

test('the installed package brings no runtime dependency: its bundles hold all it runs', () => {
  // Each shipped bundle requires only Node's modules and optional add-ons (esbuild's record, out/bundle-externals.json).
  const externals = JSON.parse(readFileSync(join(ROOT, 'out', 'bundle-externals.json'), 'utf8')) as Record<
    string,
    string[]
  >;
  assert.deepEqual(Object.keys(externals).sort(), [
    'dist/cli-main.js',
    'dist/cli.js',
    'dist/engine.js',
    'dist/extension.js',
    'dist/kubectl-windows.js',
    'dist/server.js',
  ]);
  for (const [bundle, imports] of Object.entries(externals))
    for (const name of imports)
      assert.ok(
        isBuiltin(name) || (name in OPTIONAL_AT_RUN_TIME && (name !== 'vscode' || bundle === 'dist/extension.js')),
        `${bundle} requires ${name} at run time: bundle it, or make it a dependency`,
      );
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: object };
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), [], 'package.json names no runtime dependency');
  // npm's own view of the prefix: the package and nothing else (before: 100 packages, 75 MB).
  const installed = spawnSync(npm, ['ls', '-g', '--prefix', join(dir, 'prefix'), '--all', '--parseable'], {
    encoding: 'utf8',
  }).stdout.trim();
  assert.deepEqual(installed.split('\n').slice(1), [join(dir, 'prefix', 'lib', 'node_modules', 'kube-windows')]);
  const pkgDir = join(dir, 'prefix', 'lib', 'node_modules', 'kube-windows');
  assert.ok(!existsSync(join(pkgDir, 'node_modules')), 'no node_modules folder in the installed package');
  const bytes = (readdirSync(pkgDir, { recursive: true }) as string[])
    .map((f) => statSync(join(pkgDir, f)))
    .filter((st) => st.isFile())
    .reduce((sum, st) => sum + st.size, 0);
  // The bundles of a test build (not minified) and their docs: about 6 MB; a production build is smaller.
  assert.ok(bytes < 10 * 1024 * 1024, `the installed package weighs ${bytes} bytes`);
});

test('the packed package provides the language server: kube-windows-language-server and kube-windows lsp, with --version and --help', () => {
  const server = join(dir, 'prefix', 'bin', 'kube-windows-language-server');
  assert.ok(existsSync(server), 'the bin link exists');
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  for (const [command, args] of [
    [server, []],
    [bin, ['lsp']],
  ] as const) {
    const v = spawnSync(command, [...args, '--version'], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.stdout, `${version}\n`);
    const h = spawnSync(command, [...args, '--help'], { encoding: 'utf8' });
    assert.equal(h.status, 0, h.stderr);
    assert.match(h.stdout, /--stdio/);
    assert.match(h.stdout, /docs\/editors/);
    // No transport: one line saying what to give, exit code 2, and no server left waiting.
    const none = spawnSync(command, [...args], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(none.status, 2);
    assert.match(none.stderr, /^[^\n]*--stdio[^\n]*\n$/);
  }
});

test("the action's script writes SARIF for code scanning and fails only when asked (fail-on) or when a path cannot be read", () => {
  const script = join(dir, 'prefix', 'lib', 'node_modules', 'kube-windows', 'scripts', 'action-check.mjs');
  const sarifFile = join(dir, 'out.sarif');
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, [script], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', KW_SARIF: sarifFile, GITHUB_OUTPUT: join(dir, 'gh-output'), ...env },
    });
  const r = run({ KW_PATHS: EXAMPLES });
  assert.equal(r.status, 0, r.stderr);
  const results = JSON.parse(readFileSync(sarifFile, 'utf8')).runs[0].results as unknown[];
  assert.ok(results.length > 0);
  assert.match(r.stdout, new RegExp(`^kube-windows: ${results.length} finding\\(s\\)`));
  assert.match(readFileSync(join(dir, 'gh-output'), 'utf8'), new RegExp(`findings=${results.length}\\n`));
  assert.equal(run({ KW_PATHS: EXAMPLES, KW_FAIL_ON: 'error' }).status, 1);
  assert.equal(run({ KW_PATHS: join(EXAMPLES, 'good'), KW_FAIL_ON: 'info' }).status, 0);
  assert.equal(run({ KW_PATHS: EXAMPLES, KW_FAIL_ON_FINDINGS: 'true' }).status, 1, 'the older input still works');
  assert.equal(run({ KW_PATHS: EXAMPLES, KW_ARGS: '--fail-on error' }).status, 2, 'fail-on is an input');
  // A path that cannot be read fails the step, and the SARIF log says why.
  const missing = run({ KW_PATHS: `${EXAMPLES}/good ${EXAMPLES}/nope` });
  assert.equal(missing.status, 2);
  const invocation = JSON.parse(readFileSync(sarifFile, 'utf8')).runs[0].invocations[0];
  assert.equal(invocation.executionSuccessful, false);
  assert.match(invocation.toolExecutionNotifications[0].message.text, /nope: no such file or directory/);
  // Inputs are arguments, never shell text: a path with a semicolon is a (missing) path.
  const hostile = run({ KW_PATHS: `${EXAMPLES}/good`, KW_ARGS: '--disable WIN073;touch${IFS}/tmp/kw-pwned' });
  assert.equal(hostile.status, 2);
  assert.ok(!existsSync('/tmp/kw-pwned'));
  assert.equal(run({ KW_PATHS: EXAMPLES, KW_ARGS: '--fix' }).status, 2, 'the action only reports');

  const action = load(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
    runs: { using: string; steps: { run?: string; env?: Record<string, string> }[] };
    inputs: Record<string, unknown>;
  };
  assert.equal(action.runs.using, 'composite');
  assert.deepEqual(Object.keys(action.inputs).sort(), [
    'args',
    'fail-on',
    'fail-on-findings',
    'paths',
    'sarif-file',
    'upload',
  ]);
  for (const step of action.runs.steps)
    assert.doesNotMatch(
      step.run ?? '',
      /\$\{\{\s*inputs\./,
      'inputs reach the script through env, not pasted into the shell line',
    );
});

test('the pre-commit hook runs the installed CLI on YAML files', () => {
  const hooks = load(readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as {
    id: string;
    entry: string;
    language: string;
    files: string;
  }[];
  const hook = hooks.find((h) => h.id === 'kube-windows-check');
  assert.ok(hook);
  assert.equal(hook.language, 'node');
  assert.ok(
    new RegExp(hook.files).test('deploy/iis.yaml') &&
      new RegExp(hook.files).test('a.yml') &&
      !new RegExp(hook.files).test('a.json'),
  );
  // pre-commit runs `entry` with the staged files appended.
  const [command, ...args] = hook.entry.split(' ');
  assert.equal(command, 'kube-windows');
  const r = spawnSync(bin, [...args, join(EXAMPLES, 'good', readdirSync(join(EXAMPLES, 'good'))[0]!)], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // Staged YAML of other tools (a workflow with ${{ }}, docker-compose) passes without an exclude.
  const repo = join(ROOT, 'test', 'fixtures', 'ordinary-repo');
  const others = spawnSync(
    bin,
    [...args, join(repo, '.github', 'workflows', 'ci.yml'), join(repo, 'docker-compose.yml')],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(others.status, 0, others.stdout + others.stderr);
  assert.match(others.stdout, /2 YAML files not Kubernetes, skipped/);
});
