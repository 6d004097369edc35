// openCluster: the one way from a kubeconfig and a context to a client; the timeouts and the CA
// reading it decides for the CLI, the VS Code commands and the tree's sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import type { KubeClient } from '../../src/cluster/kube-client';
import { ClusterOpenError, contextClient, openCluster } from '../../src/cluster/open';
import { ClusterSession } from '../../src/cluster/session';
import { isUserError } from '../../src/core/user-error';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function withKubeconfig(run: (file: string, dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'kw-open-'));
  try {
    const file = join(dir, 'config');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: data',
        'clusters:',
        `- name: data\n  cluster:\n    server: https://data:6443/\n    certificate-authority-data: ${Buffer.from(PEM).toString('base64')}`,
        '- name: file\n  cluster:\n    server: https://file:6443\n    certificate-authority: ca.crt',
        '- name: none\n  cluster:\n    server: https://none:6443',
        'users:',
        '- name: u\n  user:\n    token: tok',
        'contexts:',
        '- name: data\n  context:\n    cluster: data\n    user: u\n    namespace: web',
        '- name: file\n  context:\n    cluster: file\n    user: u',
        '- name: none\n  context:\n    cluster: none\n    user: u',
        '',
      ].join('\n'),
    );
    run(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The timeout a client was made with (private: read for the test only). */
const timeoutOf = (kube: KubeClient): number => (kube as unknown as { timeoutMs: number }).timeoutMs;

test('openCluster: the context current, its server, its namespace, and the CA from data or a file (relative to the kubeconfig)', () => {
  withKubeconfig((file, dir) => {
    const data = openCluster({ context: 'data', locate: { explicit: file }, readCa: true });
    assert.equal(data.context, 'data');
    assert.equal(data.kube.server, 'https://data:6443');
    assert.equal(data.config.getCurrentContext(), 'data');
    assert.equal(data.namespace, 'web');
    assert.equal(data.caPem, PEM);
    assert.equal(
      openCluster({ context: 'data', locate: { explicit: file } }).caPem,
      undefined,
      'the CA only when asked for',
    );

    writeFileSync(join(dir, 'ca.crt'), PEM);
    const fromFile = openCluster({ context: 'file', locate: { explicit: file }, readCa: true });
    assert.equal(fromFile.caPem, PEM);
    assert.equal(fromFile.namespace, undefined);
    assert.equal(openCluster({ context: 'none', locate: { explicit: file }, readCa: true }).caPem, undefined);
  });
});

test('openCluster: what cannot be used is a ClusterOpenError, a user error worded as the CLI has always said it', () => {
  withKubeconfig((file, dir) => {
    const refused = (options: Parameters<typeof openCluster>[0], message: RegExp | string) =>
      assert.throws(
        () => openCluster(options),
        (err: unknown) =>
          err instanceof ClusterOpenError &&
          isUserError(err) &&
          (typeof message === 'string' ? err.message === message : message.test(err.message)),
      );
    refused(
      { context: 'prod', locate: { explicit: file } },
      'the kubeconfig has no context "prod" (it has: data, file, none)',
    );
    refused({ context: 'data', locate: { explicit: join(dir, 'nope') } }, `no kubeconfig at ${join(dir, 'nope')}`);
    refused(
      { context: 'file', locate: { explicit: file }, readCa: true },
      `cannot read the certificate-authority file ${join(dir, 'ca.crt')} of context "file" (ENOENT)`,
    );
    refused(
      { context: 'data', locate: { explicit: file }, env: { KUBE_WINDOWS_REQUEST_TIMEOUT: 'soon' } },
      'KUBE_WINDOWS_REQUEST_TIMEOUT must be a positive number of seconds (it is "soon")',
    );
    refused(
      { context: 'data', locate: { explicit: file }, env: { KUBE_WINDOWS_REQUEST_TIMEOUT: '0' } },
      /must be a positive number/,
    );
  });
});

test('timeouts: a command waits a minute or KUBE_WINDOWS_REQUEST_TIMEOUT; a view 15 s; a caller its own', () => {
  withKubeconfig((file) => {
    const open = (extra: Partial<Parameters<typeof openCluster>[0]>) =>
      timeoutOf(openCluster({ context: 'data', locate: { explicit: file }, env: {}, ...extra }).kube);
    assert.equal(open({}), 60_000);
    assert.equal(open({ env: { KUBE_WINDOWS_REQUEST_TIMEOUT: '2.5' } }), 2500);
    assert.equal(open({ use: 'view', env: { KUBE_WINDOWS_REQUEST_TIMEOUT: '120' } }), 15_000);
    assert.equal(open({ timeoutMs: 5000, env: { KUBE_WINDOWS_REQUEST_TIMEOUT: '120' } }), 5000);

    const loaded = loadKubeconfig({ explicit: file });
    assert.ok(loaded.ok);
    // A kubeconfig already loaded (the tree's) is used as it is, and the tree's sessions wait 15 s.
    assert.equal(
      openCluster({ context: 'file', config: loaded.config, locate: { explicit: '/nowhere' } }).kube.server,
      'https://file:6443',
    );
    assert.equal(timeoutOf(contextClient(loaded.config, 'none', { use: 'view' })), 15_000);
    assert.equal(timeoutOf(new ClusterSession('data', loaded.config).client), 15_000);
    assert.equal(timeoutOf(new ClusterSession('data', loaded.config, { timeoutMs: 5000 }).client), 5000);
  });
});
