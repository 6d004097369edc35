// The VS Code manifest (package.json) against the extension's sources and bundle: activation,
// commands, settings, engine versions, workspace-trust capabilities, and dist/extension.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_SETTINGS } from '../../src/shared/protocol';
import { RULES } from '../../src/core/rules/registry';
import { createFakeVscode, loadWithFakeVscode } from '../support/fake-vscode';
import { EXTENSION_COMMANDS } from '../support/commands';

// Compiled to out/test/unit/: the repository root is three levels up.
const ROOT = resolve(__dirname, '..', '..', '..');
const BUNDLE = join(ROOT, 'dist', 'extension.js');

interface Setting {
  type?: string | string[];
  default?: unknown;
  description?: string;
  markdownDescription?: string;
  enum?: string[];
  enumDescriptions?: string[];
  minimum?: number;
  maximum?: number;
  scope?: string;
  items?: { type?: string };
  propertyNames?: { pattern?: string };
  additionalProperties?: { type?: string; enum?: string[] };
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const settings: Record<string, Setting> = pkg.contributes?.configuration?.properties ?? {};
const commands: { command: string; title: string; category?: string }[] = pkg.contributes?.commands ?? [];

function extensionSources(): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts')) out.push({ path: p, text: readFileSync(p, 'utf8') });
    }
  };
  walk(join(ROOT, 'src', 'extension'));
  return out;
}

type Version = [number, number, number];

function parseVersion(v: string): Version {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  assert.ok(m, `not a version: ${v}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The lowest version a `^x.y.z` or `>=x.y.z` range accepts. */
function rangeMin(range: string): Version {
  const m = /^(\^|>=)\s*(\d+\.\d+\.\d+)$/.exec(range.trim());
  assert.ok(m, `unsupported version range ${range} (use ^x.y.z)`);
  return parseVersion(m[2]);
}

function accepts(range: string, version: string): boolean {
  const min = rangeMin(range);
  const v = parseVersion(version);
  if (compare(v, min) < 0) return false;
  return range.trim().startsWith('>=') || v[0] === min[0];
}

test("activates only on YAML documents (and on the Kubernetes extension's explorer, to decorate it), from the bundled entry point", () => {
  assert.deepEqual(pkg.activationEvents, ['onLanguage:yaml', 'onView:extension.vsKubernetesExplorer']);
  assert.equal(pkg.main, './dist/extension.js');
  // Keeps the fields the package had before the extension arrived.
  for (const key of [
    'name',
    'version',
    'bin',
    'scripts',
    'engines',
    'dependencies',
    'devDependencies',
    'publisher',
    'license',
  ]) {
    assert.ok(key in pkg, `package.json lost ${key}`);
  }
});

test('every contributed command is registered by the extension, and every registered command is contributed', () => {
  const sources = extensionSources();
  const all = sources.map((s) => s.text).join('\n');
  // Registered one by one, or declared in a command table (`'kubeWindows.x': { run: ... }`, registered by registerCommands).
  const registered = new Set(
    [...all.matchAll(/registerCommand\(\s*'([^']+)'|^\s*'(kubeWindows\.\w+)': \{ run:/gm)].map((m) => m[1] ?? m[2]),
  );
  assert.ok(commands.length >= 2);
  for (const c of commands) {
    assert.ok(
      registered.has(c.command),
      `${c.command} is contributed but no registerCommand('${c.command}' in src/extension`,
    );
    assert.match(c.command, /^kubeWindows\./);
    assert.equal(c.category, 'kube-windows', `${c.command} category`);
    assert.ok(c.title.length > 3, `${c.command} title`);
  }
  for (const id of registered)
    assert.ok(
      commands.some((c) => c.command === id),
      `${id} is registered but not in contributes.commands`,
    );
  assert.deepEqual(commands.map((c) => c.command).sort(), EXTENSION_COMMANDS);
});

test('every setting the server reads is contributed with a type, a description and the shared default', () => {
  const expected: Record<string, unknown> = {
    'kubeWindows.enable': DEFAULT_SETTINGS.enable,
    'kubeWindows.debounceMs': DEFAULT_SETTINGS.debounceMs,
    'kubeWindows.rules': DEFAULT_SETTINGS.rules,
    'kubeWindows.flavour': DEFAULT_SETTINGS.flavour,
    'kubeWindows.kubernetesVersion': DEFAULT_SETTINGS.kubernetesVersion,
    'kubeWindows.exactApi': DEFAULT_SETTINGS.exactApi,
    'kubeWindows.files.include': DEFAULT_SETTINGS.files.include,
    'kubeWindows.files.exclude': DEFAULT_SETTINGS.files.exclude,
    'kubeWindows.helm.valuesFiles': DEFAULT_SETTINGS.helm.valuesFiles,
    'kubeWindows.trace.server': DEFAULT_SETTINGS.trace.server,
  };
  // kubeWindows.kubeconfig, kubeWindows.join.*, kubeWindows.ssh.* ... are read by the extension, not by the server.
  assert.deepEqual(
    Object.keys(settings).sort(),
    [
      ...Object.keys(expected),
      'kubeWindows.kubeconfig',
      'kubeWindows.join.payloadFolder',
      'kubeWindows.join.payloadUrls',
      'kubeWindows.ssh.privateKeyPath',
      'kubeWindows.ssh.port',
      'kubeWindows.ssh.knownHostsFile',
      'kubeWindows.wmco.namespace',
      'kubeWindows.wmco.catalogSource',
      'kubeWindows.wmco.channel',
      'kubeWindows.reboot.timeoutMinutes',
      'kubeWindows.logs.maxMegabytes',
      'kubeWindows.mirrors.concurrency',
    ].sort(),
  );
  // A key path could point SSH at a workspace's file: only the user's (machine) settings choose it.
  assert.equal(settings['kubeWindows.ssh.privateKeyPath'].scope, 'machine');
  // Node operations: numbers with the engine's defaults.
  assert.equal(settings['kubeWindows.reboot.timeoutMinutes'].type, 'number');
  assert.equal(settings['kubeWindows.reboot.timeoutMinutes'].default, 15);
  assert.equal(settings['kubeWindows.logs.maxMegabytes'].type, 'number');
  assert.equal(settings['kubeWindows.logs.maxMegabytes'].default, 200);
  // The payload folder holds binaries installed on nodes: a workspace must not choose it either.
  assert.equal(settings['kubeWindows.join.payloadFolder'].scope, 'machine');
  assert.equal(settings['kubeWindows.join.payloadUrls'].scope, 'machine');
  assert.equal(settings['kubeWindows.kubeconfig'].type, 'string');
  assert.equal(settings['kubeWindows.kubeconfig'].default, '');
  // A kubeconfig can run an exec credential plugin: a workspace must not choose it.
  assert.equal(settings['kubeWindows.kubeconfig'].scope, 'machine');
  for (const [key, def] of Object.entries(expected)) {
    const s = settings[key];
    assert.ok(s, `${key} is not contributed`);
    assert.ok(s.type, `${key} has no type`);
    assert.ok((s.description ?? s.markdownDescription ?? '').length > 20, `${key} has no description`);
    assert.deepEqual(s.default, def, `${key} default`);
    if (s.enum) assert.equal(s.enumDescriptions?.length, s.enum.length, `${key} enumDescriptions`);
  }
  assert.equal(settings['kubeWindows.enable'].type, 'boolean');
  assert.equal(settings['kubeWindows.debounceMs'].type, 'number');
  assert.equal(settings['kubeWindows.debounceMs'].minimum, 0);
  assert.equal(settings['kubeWindows.debounceMs'].maximum, 2000);
  assert.deepEqual(settings['kubeWindows.flavour'].enum, ['auto', 'openshift', 'kubernetes']);
  assert.deepEqual(settings['kubeWindows.trace.server'].enum, ['off', 'messages', 'verbose']);
  for (const key of ['kubeWindows.files.include', 'kubeWindows.files.exclude']) {
    assert.equal(settings[key].type, 'array');
    assert.equal(settings[key].items?.type, 'string');
  }
  // The client library reads `<client id>.trace.server`, so it must sit under the same section.
  assert.equal(settings['kubeWindows.trace.server'].scope, 'window');
});

test('kubeWindows.rules maps every registered rule id to a severity, and nothing else', () => {
  const rules = settings['kubeWindows.rules'];
  assert.equal(rules.type, 'object');
  assert.deepEqual(rules.additionalProperties?.enum, ['error', 'warning', 'info', 'off']);
  assert.equal(rules.propertyNames?.pattern, '^(WIN|OCP|LNT|RTC|MIR|BYOH|NET|YAML|API)\\d{3}$');
  const pattern = new RegExp(rules.propertyNames?.pattern ?? '');
  for (const r of RULES) assert.match(r.id, pattern);
  for (const bad of ['win001', 'WIN1', 'FOO001', 'WIN0010', ' WIN001']) assert.doesNotMatch(bad, pattern);
});

test('engines.vscode accepts 1.100, and neither @types/vscode nor vscode-languageclient needs a newer VS Code', () => {
  const engine: string = pkg.engines.vscode;
  assert.ok(accepts(engine, '1.100.0'), `engines.vscode ${engine} does not accept 1.100.0`);
  const min = rangeMin(engine);
  const typesRange: string = pkg.devDependencies['@types/vscode'];
  assert.ok(
    compare(rangeMin(typesRange), min) <= 0,
    `@types/vscode ${typesRange} is newer than engines.vscode ${engine}`,
  );
  const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', '@types', 'vscode', 'package.json'), 'utf8'))
    .version as string;
  const [maj, minor] = parseVersion(installed);
  assert.ok(
    maj < min[0] || (maj === min[0] && minor <= min[1]),
    `installed @types/vscode ${installed} is newer than engines.vscode ${engine} (vsce refuses to package)`,
  );
  const client = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'vscode-languageclient', 'package.json'), 'utf8'));
  assert.ok(
    compare(rangeMin(client.engines.vscode), min) <= 0,
    `vscode-languageclient needs VS Code ${client.engines.vscode}`,
  );
});

test('workspace trust is declared: limited, with the file globs restricted; no virtual workspaces', () => {
  const trust = pkg.capabilities?.untrustedWorkspaces;
  assert.equal(trust?.supported, 'limited');
  assert.ok(typeof trust.description === 'string' && trust.description.length > 20);
  assert.deepEqual(trust.restrictedConfigurations, ['kubeWindows.files.include', 'kubeWindows.files.exclude']);
  for (const key of trust.restrictedConfigurations)
    assert.ok(settings[key], `${key} is restricted but not contributed`);
  assert.equal(pkg.capabilities.virtualWorkspaces, false);
});

test('dist/extension.js bundles the language client, keeps vscode external, and stays thin', () => {
  assert.ok(existsSync(BUNDLE), 'run node scripts/build.mjs first');
  const text = readFileSync(BUNDLE, 'utf8');
  const size = Buffer.byteLength(text);
  // vscode-languageclient with its protocol and jsonrpc is ~0.4 MB minified, ~1 MB readable; the cluster
  // explorer's model with @kubernetes/client-node (kubeconfig, auth) adds ~1.6 MB readable.
  assert.ok(size > 150_000, `bundle is ${size} bytes: the language client is missing`);
  assert.ok(size < 3_500_000, `bundle is ${size} bytes: something big got bundled`);
  assert.match(text, /require\(["']vscode["']\)/, 'vscode must be required at run time, not bundled');
  assert.doesNotMatch(text, /node_modules[\\/]@types[\\/]vscode|node_modules[\\/]vscode[\\/]/);
  // Thin glue: the manifest loader and the rules run in the server, not in the extension host (js-yaml is
  // there only to render the cluster explorer's read-only YAML views).
  assert.doesNotMatch(text, /\/\/ src\/(core\/manifest\/document|core\/rules\/registry|server\/server)\.ts/);
  for (const c of commands)
    assert.ok(text.includes(`"${c.command}"`) || text.includes(`'${c.command}'`), `${c.command} not in the bundle`);
  // The bootstrap engine (ssh2, plans) is its own bundle, required on the first join command only.
  assert.doesNotMatch(text, /node_modules[\\/]ssh2[\\/]/, 'ssh2 must not be in the activation bundle');
  assert.match(text, /require\("\.\/engine\.js"\)/);
  assert.ok(existsSync(join(dirname(BUNDLE), 'engine.js')), 'dist/engine.js is built');
});

test('the bundle loads (vscode-languageclient included) and exports activate, deactivate and sendClusterSnapshot', () => {
  const fake = createFakeVscode();
  const ext = loadWithFakeVscode<Record<string, unknown>>(BUNDLE, fake);
  assert.equal(typeof ext.activate, 'function');
  assert.equal(typeof ext.deactivate, 'function');
  assert.equal(typeof ext.sendClusterSnapshot, 'function');
});
