// WindowsHost after a host stopped answering: the op that finds it silent says so (keepalives lost, a
// reconnect unanswered), and the ops that follow on the same host (a rollback, a clean-up) say so after
// one unanswered connect instead of waiting out every retry: with the defaults that is 20 s each, not a
// minute. A connection that succeeds again ends it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileHash } from '../../src/core/windows/host-ops';
import { WindowsHost } from '../../src/remote/windows-host';
import { silentConnectorDouble } from '../support/host-connector-double';

const silentError = (err: unknown): boolean =>
  err instanceof Error &&
  err.name === 'HostSilentError' &&
  /^Administrator@192\.0\.2\.10:22 stopped answering: no reply to SSH keepalives/.test(err.message);

test('a host found silent: the next op on it says so after one unanswered connect, without retries', async () => {
  const connector = silentConnectorDouble();
  const host = new WindowsHost(connector, { retries: 2, backoffMs: 1 });
  await assert.rejects(host.run(fileHash('C:\\k\\kubelet.exe')), silentError);
  assert.equal(connector.connects, 2, 'the first connection, then one reconnect that got no answer');
  // The clean-up after the failure, on the same host.
  await assert.rejects(host.run(fileHash('C:\\k\\kubelet.exe')), silentError);
  assert.equal(connector.connects, 3, 'one connect for the clean-up, not one per retry');
});
