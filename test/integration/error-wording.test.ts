// The same failure reads the same in the CLI and in VS Code: each failure below is met for real where
// it can be (a closed port, an API server answering 401 and 403, a kubeconfig without the context or
// not YAML at all) and handed to both front ends' userMessage; the texts must be equal, and worded.
// Also: a user error thrown by the separately built engine bundle (dist/engine.js) is recognised here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExecPluginError, RequestTimeoutError } from '../../src/cluster/errors';
import { ClusterOpenError, openCluster } from '../../src/cluster/open';
import { isUserError } from '../../src/core/user-error';
import { HostKeyChangedError, HostKeyUnknownError } from '../../src/remote/types';
import { PreflightError } from '../../src/bootstrap/preflight';
import { clusterFor } from '../../src/cli/kit-remote';
import { userMessage as cliMessage, UsageError } from '../../src/cli/kit';
import { createFakeVscode, hookVscodeModule } from '../support/fake-vscode';

const dir = mkdtempSync(join(tmpdir(), 'kw-wording-'));
const KUBECONFIG = join(dir, 'config');
const fake = createFakeVscode({ 'kubeWindows.kubeconfig': KUBECONFIG });
const unhook = hookVscodeModule(() => fake);
// Imported after the hook so that its `require('vscode')` gets the fake.
const commandKit = () => import('../../src/extension/command-kit');

let server: Server;
let port = 0;

test.before(async () => {
  // 401 for /version, 403 (with the API server's Status) for everything else.
  server = createServer((req, res) => {
    const forbidden = req.url?.startsWith('/api/v1/nodes');
    res.writeHead(forbidden ? 403 : 401, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify(
        forbidden
          ? {
              kind: 'Status',
              reason: 'Forbidden',
              message:
                'nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope',
            }
          : { kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized' },
      ),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  writeFileSync(
    KUBECONFIG,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: live\n  cluster:\n    server: http://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
      '- name: closed\n  cluster:\n    server: http://127.0.0.1:1\n    insecure-skip-tls-verify: true',
      'users:',
      '- name: u\n  user:\n    token: not-a-real-token',
      'contexts:',
      '- name: live\n  context:\n    cluster: live\n    user: u',
      '- name: closed\n  context:\n    cluster: closed\n    user: u',
      'current-context: live',
      '',
    ].join('\n'),
  );
});

test.after(() => {
  server?.close();
  unhook();
  rmSync(dir, { recursive: true, force: true });
});

/** What the failure `err` met on `context` reads in the CLI and in VS Code: equal, or the test fails. */
async function bothSay(err: unknown, context: string): Promise<string> {
  const { userMessage } = await commandKit();
  const cli = cliMessage(err, context);
  const vscode = await userMessage(err, context);
  assert.equal(vscode, cli);
  return cli;
}

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  assert.fail('expected a failure');
}

test('an unreachable server, expired credentials and a missing permission read the same in both', async () => {
  const closed = openCluster({ context: 'closed', locate: { explicit: KUBECONFIG } });
  const unreachable = await bothSay(await failureOf(() => closed.kube.get('/version')), 'closed');
  assert.match(unreachable, /^Cluster "closed" does not answer \(ECONNREFUSED\)\. Check the network/);

  const live = openCluster({ context: 'live', locate: { explicit: KUBECONFIG } });
  const expired = await bothSay(await failureOf(() => live.kube.get('/version')), 'live');
  assert.match(
    expired,
    /^The credentials for cluster "live" are expired or invalid \(401 Unauthorized\)\. Log in again/,
  );
  const forbidden = await bothSay(await failureOf(() => live.kube.get('/api/v1/nodes')), 'live');
  assert.match(forbidden, /^You are not allowed to list nodes cluster-wide on cluster "live" \(403 Forbidden\)\./);
});

test('a wrong context and a malformed kubeconfig read the same in both, and as the CLI prints them', async () => {
  const { kubeconfigAccess, loadEngine } = await commandKit();
  const access = kubeconfigAccess(await loadEngine());
  const wrong = await failureOf(async () => access.client('prod'));
  assert.ok(wrong instanceof ClusterOpenError);
  const text = await bothSay(wrong, 'prod');
  assert.equal(text, 'the kubeconfig has no context "prod" (it has: live, closed)');
  // The CLI says it as a usage error (exit code 2), in the same words.
  assert.throws(
    () => clusterFor({ context: 'prod', kubeconfig: KUBECONFIG }),
    (err: unknown) => err instanceof UsageError && err.message === text,
  );

  const bad = join(dir, 'bad');
  writeFileSync(bad, 'clusters: [unclosed\n');
  const malformed = await failureOf(async () => openCluster({ context: 'live', locate: { explicit: bad } }));
  const said = await bothSay(malformed, 'live');
  assert.match(said, /^kubeconfig .*bad cannot be read: /);
  assert.throws(
    () => clusterFor({ context: 'live', kubeconfig: bad }),
    (err: unknown) => err instanceof UsageError && err.message === said,
  );
});

test('host-key refusals, preflight findings, a cancel, a timeout, a credential plugin and a plan step read the same in both', async () => {
  const unknown = await bothSay(new HostKeyUnknownError('10.0.0.5', 'SHA256:abc'), 'lab');
  assert.match(unknown, /^The host key of 10\.0\.0\.5 \(SHA256:abc\) is not known and was not accepted/);
  assert.match(
    await bothSay(
      new HostKeyChangedError('10.0.0.5', 'SHA256:new', '/home/u/.ssh/known_hosts', 3, 'ssh-ed25519', 'SHA256:old'),
      'lab',
    ),
    /REMOTE HOST IDENTIFICATION HAS CHANGED/,
  );
  assert.match(
    await bothSay(
      new PreflightError([{ id: 'x', severity: 'error', title: 'The host runs Windows Server 2016' }]),
      'lab',
    ),
    /^Preflight found 1 problem:/,
  );
  assert.equal(await bothSay(new Error('cancelled by the user'), 'lab'), 'cancelled by the user');
  assert.match(
    await bothSay(new RequestTimeoutError('https://api.lab:6443', 2000), 'lab'),
    /^Cluster "lab" does not answer.*no response within 2 s/,
  );
  assert.match(
    await bothSay(
      new ExecPluginError('kubelogin', Object.assign(new Error('spawn kubelogin ENOENT'), { code: 'ENOENT' })),
      'lab',
    ),
    /"kubelogin" for cluster "lab" was not found/,
  );
  // A plan step's own words (the steps throw plain Errors written for users).
  assert.equal(await bothSay(new Error('The Node win-1 no longer exists.'), 'lab'), 'The Node win-1 no longer exists.');
  // A CA file that cannot be read: the same words (the extension used to show the raw file error).
  const caConfig = join(dir, 'ca-config');
  writeFileSync(
    caConfig,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    certificate-authority: ${join(dir, 'no-ca.crt')}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n`,
  );
  const ca = await failureOf(async () => openCluster({ context: 'c', locate: { explicit: caConfig }, readCa: true }));
  assert.match(
    await bothSay(ca, 'c'),
    /^cannot read the certificate-authority file .*no-ca\.crt of context "c" \(ENOENT\)$/,
  );
});

test(
  "the engine bundle's user errors are user errors here too (a brand, not instanceof)",
  { skip: !existsSync(resolve('dist/engine.js')) && 'dist/engine.js is not built' },
  () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const engine = require(resolve('dist/engine.js')) as typeof import('../../src/extension/engine-bundle');
    let thrown: unknown;
    try {
      engine.openCluster({ context: 'prod', locate: { explicit: KUBECONFIG } });
    } catch (err) {
      thrown = err;
    }
    assert.ok(thrown instanceof Error);
    assert.ok(!(thrown instanceof ClusterOpenError), 'another bundle, another class');
    assert.ok(isUserError(thrown));
    assert.equal(cliMessage(thrown, 'prod'), 'the kubeconfig has no context "prod" (it has: live, closed)');
    assert.equal(engine.userMessage(new UsageError('said for the user'), 'prod'), 'said for the user');
  },
);
