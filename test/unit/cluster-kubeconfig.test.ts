import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { configForContext, loadKubeconfig, locateKubeconfig, watchKubeconfig } from '../../src/cluster/kubeconfig';

function kubeconfig(opts: {
  current?: string;
  clusters: [string, string][];
  users: string[];
  contexts: [string, string, string][];
}): string {
  const lines = ['apiVersion: v1', 'kind: Config'];
  if (opts.current) lines.push(`current-context: ${opts.current}`);
  lines.push('clusters:');
  for (const [name, server] of opts.clusters) lines.push(`- name: ${name}`, '  cluster:', `    server: ${server}`);
  lines.push('users:');
  for (const name of opts.users) lines.push(`- name: ${name}`, '  user:', `    token: tok-${name}`);
  lines.push('contexts:');
  for (const [name, cluster, user] of opts.contexts)
    lines.push(`- name: ${name}`, '  context:', `    cluster: ${cluster}`, `    user: ${user}`);
  return lines.join('\n') + '\n';
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'kw-kubeconfig-'));
}

test('KUBECONFIG files merge: first file wins for duplicate names, current-context from the first that sets it', () => {
  const dir = tempDir();
  try {
    const a = join(dir, 'a.yaml');
    const b = join(dir, 'b.yaml');
    writeFileSync(
      a,
      kubeconfig({
        clusters: [['one', 'https://one-from-a:6443']],
        users: ['u1'],
        contexts: [['ctx-one', 'one', 'u1']],
      }),
    );
    writeFileSync(
      b,
      kubeconfig({
        current: 'ctx-two',
        clusters: [
          ['one', 'https://one-from-b:6443'],
          ['two', 'https://two:6443'],
        ],
        users: ['u1', 'u2'],
        contexts: [
          ['ctx-one', 'two', 'u2'],
          ['ctx-two', 'two', 'u2'],
        ],
      }),
    );
    const load = loadKubeconfig({ env: { KUBECONFIG: [a, join(dir, 'missing.yaml'), b].join(delimiter) }, home: dir });
    assert.ok(load.ok, !load.ok ? load.message : '');
    assert.equal(load.location.origin, 'KUBECONFIG');
    assert.equal(load.currentContext, 'ctx-two');
    assert.deepEqual(
      load.contexts.map((c) => [c.name, c.cluster, c.server]),
      [
        ['ctx-one', 'one', 'https://one-from-a:6443'],
        ['ctx-two', 'two', 'https://two:6443'],
      ],
    );
    assert.equal(load.contexts[0].file, a);
    const kc = configForContext(load.config, 'ctx-two');
    assert.equal(kc.getCurrentCluster()?.server, 'https://two:6443');
    assert.equal(load.config.getCurrentContext(), 'ctx-two', 'the copy does not change the merged config');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the explicit path overrides KUBECONFIG and the default; the default is ~/.kube/config', () => {
  const dir = tempDir();
  try {
    assert.deepEqual(locateKubeconfig({ explicit: '~/x/config', env: { KUBECONFIG: '/a' }, home: dir }), {
      files: [join(dir, 'x/config')],
      origin: 'setting',
    });
    assert.deepEqual(locateKubeconfig({ env: {}, home: dir }), {
      files: [join(dir, '.kube', 'config')],
      origin: 'default',
    });
    mkdirSync(join(dir, '.kube'));
    writeFileSync(
      join(dir, '.kube', 'config'),
      kubeconfig({ current: 'c', clusters: [['k', 'https://k:6443']], users: ['u'], contexts: [['c', 'k', 'u']] }),
    );
    const load = loadKubeconfig({ env: {}, home: dir });
    assert.ok(load.ok);
    assert.equal(load.currentContext, 'c');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('errors are plain messages: a missing file, unreadable YAML', () => {
  const dir = tempDir();
  try {
    const missing = loadKubeconfig({ explicit: join(dir, 'nope'), home: dir });
    assert.equal(missing.ok, false);
    assert.equal(!missing.ok && missing.message, `no kubeconfig at ${join(dir, 'nope')}`);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'clusters:\n  - name: x\n   server: [oops\nusers: {token: sekrit-token-value}\n');
    const broken = loadKubeconfig({ explicit: bad, home: dir });
    assert.equal(broken.ok, false);
    const message = !broken.ok ? broken.message : '';
    assert.match(message, /^kubeconfig .*bad\.yaml cannot be read: /);
    assert.doesNotMatch(message, /sekrit/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the watcher fires once, debounced, when a kubeconfig is replaced or edited', async () => {
  const dir = tempDir();
  try {
    const file = join(dir, 'config');
    writeFileSync(file, kubeconfig({ clusters: [], users: [], contexts: [] }));
    let calls = 0;
    const watcher = watchKubeconfig([file], () => calls++, { debounceMs: 100 });
    writeFileSync(
      file,
      kubeconfig({ current: 'c', clusters: [['k', 'https://k:6443']], users: ['u'], contexts: [['c', 'k', 'u']] }),
    );
    writeFileSync(join(dir, 'config.tmp'), 'x');
    const { renameSync } = await import('node:fs');
    renameSync(join(dir, 'config.tmp'), file);
    writeFileSync(join(dir, 'unrelated'), 'x');
    await new Promise((r) => setTimeout(r, 400));
    watcher.close();
    assert.equal(calls, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
