// The extension's one configuration reader (src/extension/config.ts) against package.json: every
// contributed setting is read, with package.json's default and bounds, and the language server and
// the CLI start from the same defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_SETTINGS } from '../../src/shared/protocol';
import { SETTING_KEYS } from '../../src/shared/settings';
import { readClientSettings } from '../../src/server/settings';
import { DEFAULT_MIRROR_CONCURRENCY } from '../../src/bootstrap/mirrors-apply';
import { DEFAULT_REBOOT_TIMEOUT_MINUTES } from '../../src/bootstrap/reboot';
import { DEFAULT_LOG_CAP_BYTES } from '../../src/bootstrap/node-logs';
import { createFakeVscode, hookVscodeModule, type FakeVscode } from '../support/fake-vscode';

// Compiled to out/test/unit/: the repository root is three levels up.
const ROOT = resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const contributed: Record<string, { default: unknown }> = pkg.contributes.configuration.properties;

let fake: FakeVscode = createFakeVscode();
const unhook = hookVscodeModule(() => fake);
test.after(() => unhook());

async function read(settings: Record<string, unknown> = {}) {
  fake = createFakeVscode(settings);
  const config = await import('../../src/extension/config');
  return { config: config.readConfig(), server: config.serverSettings() };
}

/** `{ reboot: { timeoutMinutes: 15 } }` as `{ 'kubeWindows.reboot.timeoutMinutes': 15 }`, as package.json names them. */
function flatten(value: object, prefix = 'kubeWindows'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = `${prefix}.${k}`;
    // Objects that are setting values (rules, payloadUrls) stay whole.
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && !(key in contributed))
      Object.assign(out, flatten(v, key));
    else out[key] = v;
  }
  return out;
}

test('readConfig reads every contributed setting, each with its package.json default when unset', async () => {
  const { config } = await read();
  const flat = flatten(config);
  assert.deepEqual(Object.keys(flat).sort(), Object.keys(contributed).sort());
  assert.deepEqual(Object.keys(contributed).sort(), [...SETTING_KEYS].sort());
  for (const [key, setting] of Object.entries(contributed)) assert.deepEqual(flat[key], setting.default, key);
});

test('readConfig passes set values through and checks them against package.json', async () => {
  const { config } = await read({
    'kubeWindows.reboot.timeoutMinutes': 30,
    'kubeWindows.kubeconfig': '/etc/kube/config',
    'kubeWindows.rules': { WIN070: 'off' },
    'kubeWindows.files.include': ['deploy/**/*.yaml'],
    'kubeWindows.join.payloadUrls': { kubelet: { url: 'https://example.com/kubelet.exe', sha256: 'ab'.repeat(32) } },
  });
  assert.equal(config.reboot.timeoutMinutes, 30);
  assert.equal(config.kubeconfig, '/etc/kube/config');
  assert.deepEqual(config.rules, { WIN070: 'off' });
  assert.deepEqual(config.files.include, ['deploy/**/*.yaml']);
  assert.equal(config.join.payloadUrls.kubelet?.url, 'https://example.com/kubelet.exe');

  // Hand-edited settings files: a wrong type or an unknown enum value is the default.
  const wrong = await read({
    'kubeWindows.enable': 'yes',
    'kubeWindows.flavour': 'windows',
    'kubeWindows.files.exclude': [1, 2],
    'kubeWindows.rules': 'WIN070',
    'kubeWindows.mirrors.concurrency': 2.5,
  });
  assert.equal(wrong.config.enable, true);
  assert.equal(wrong.config.flavour, 'auto');
  assert.deepEqual(wrong.config.files.exclude, contributed['kubeWindows.files.exclude']!.default);
  assert.deepEqual(wrong.config.rules, {});
  assert.equal(wrong.config.mirrors.concurrency, 8);
});

test('out-of-range numbers are brought within the contributed bounds, for every number setting alike', async () => {
  // Before one reader: mirrors.concurrency 0 fell back to 8, while reboot.timeoutMinutes 0 became 1.
  const low = await read({
    'kubeWindows.mirrors.concurrency': 0,
    'kubeWindows.reboot.timeoutMinutes': 0,
    'kubeWindows.logs.maxMegabytes': -5,
    'kubeWindows.debounceMs': -1,
  });
  assert.deepEqual(
    [
      low.config.mirrors.concurrency,
      low.config.reboot.timeoutMinutes,
      low.config.logs.maxMegabytes,
      low.config.debounceMs,
    ],
    [1, 1, 1, 0],
  );
  const high = await read({ 'kubeWindows.mirrors.concurrency': 1000, 'kubeWindows.debounceMs': 99_999 });
  assert.deepEqual([high.config.mirrors.concurrency, high.config.debounceMs], [64, 2000]);
  // The language server brings debounceMs within the same bounds.
  assert.equal(readClientSettings({ debounceMs: 99_999 }).debounceMs, 2000);
});

test('the language server checks what any client sends with the same schema reader: junk is the default', () => {
  const s = readClientSettings({
    enable: 'no',
    debounceMs: 'fast',
    rules: { win070: 'off', WIN002: 'loud', WIN003: 3, WIN004: 'info' },
    flavour: 'windows',
    files: { include: 'x', exclude: ['a'] },
    helm: [1],
    trace: { server: 'verbose' },
  });
  // Rule ids in any case; a level outside the schema's enum is left out.
  assert.deepEqual(s, {
    ...DEFAULT_SETTINGS,
    rules: { WIN070: 'off', WIN004: 'info' },
    files: { include: DEFAULT_SETTINGS.files.include, exclude: ['a'] },
    trace: { server: 'verbose' },
  });
  for (const junk of [null, 42, 'x', [], { files: null, helm: { valuesFiles: [null] } }, { rules: ['error'] }])
    assert.deepEqual(readClientSettings(junk), DEFAULT_SETTINGS);
});

test('path settings: trimmed, and a leading ~ is the home folder for the key file as for the payload folder', async () => {
  // Before one reader, kubeWindows.join.payloadFolder expanded ~ and kubeWindows.ssh.privateKeyPath did not.
  const { config } = await read({
    'kubeWindows.ssh.privateKeyPath': ' ~/.ssh/win_ed25519 ',
    'kubeWindows.join.payloadFolder': '~/payload',
  });
  assert.equal(config.ssh.privateKeyPath, join(homedir(), '.ssh', 'win_ed25519'));
  assert.equal(config.join.payloadFolder, join(homedir(), 'payload'));
  assert.equal((await read({ 'kubeWindows.ssh.privateKeyPath': '/keys/a' })).config.ssh.privateKeyPath, '/keys/a');
});

test('the extension, the language server and the CLI start from the same defaults', async () => {
  const { server } = await read();
  assert.deepEqual(server, DEFAULT_SETTINGS);
  const s = readClientSettings(undefined);
  assert.deepEqual(s, DEFAULT_SETTINGS);
  assert.deepEqual(
    {
      enable: s.enable,
      debounceMs: s.debounceMs,
      rules: s.rules,
      flavour: s.flavour,
      include: s.files.include,
      exclude: s.files.exclude,
    },
    {
      enable: server.enable,
      debounceMs: server.debounceMs,
      rules: server.rules,
      flavour: server.flavour,
      include: server.files.include,
      exclude: server.files.exclude,
    },
  );
  // The CLI's defaults are the engine's; the settings must say the same.
  assert.equal(contributed['kubeWindows.mirrors.concurrency']!.default, DEFAULT_MIRROR_CONCURRENCY);
  assert.equal(contributed['kubeWindows.reboot.timeoutMinutes']!.default, DEFAULT_REBOOT_TIMEOUT_MINUTES);
  assert.equal(contributed['kubeWindows.logs.maxMegabytes']!.default, DEFAULT_LOG_CAP_BYTES / 1048576);
});

test('no module of src/extension but config.ts reads settings itself', () => {
  const dir = join(ROOT, 'src', 'extension');
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.ts') || name === 'config.ts') continue;
    const text = readFileSync(join(dir, name), 'utf8');
    assert.doesNotMatch(text, /getConfiguration\s*\(/, `${name} reads settings itself; use readConfig() from ./config`);
  }
});
