// The node-operation ops (src/core/windows/node-ops.ts) parse under tree-sitter-powershell with
// hostile values, and the pure helpers of the logs collection keep host paths inside the folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { nodeServicesState, NODE_SERVICES, restartService } from '../../src/core/windows/node-ops';
import { sampleNodeOps } from '../support/sample-ops';
import { decodeCommand, powershellCommand, psString, wrapScript } from '../../src/core/windows/powershell';
import { localPathFor, planDownloads, stamp } from '../../src/bootstrap/node-logs';
import { servicesTable } from '../../src/bootstrap/node-services';
import { isAwsNode } from '../../src/bootstrap/reboot';
import { drainSkipReason } from '../../src/core/drain';
import { parsePowerShell } from '../support/powershell-parser';
import { HOSTILE } from '../support/hostile-strings';

test('every node op, with every hostile parameter value, parses with no error node', async () => {
  let checked = 0;
  for (const value of [...HOSTILE, 'C:\\var\\log']) {
    for (const op of sampleNodeOps(value)) {
      const wrapped = wrapScript(op.script);
      const result = await parsePowerShell(wrapped);
      assert.ok(result.ok, `${op.name} with ${JSON.stringify(value)}:\n${result.errors.join('\n')}`);
      assert.equal(decodeCommand(powershellCommand(op.script).at(-1)!), wrapped);
      checked++;
    }
  }
  assert.ok(checked >= 7 * HOSTILE.length);
});

test('the services op carries every node service as a literal; restart takes the name as a literal', () => {
  const op = nodeServicesState();
  for (const n of NODE_SERVICES) assert.ok(op.script.includes(psString(n)));
  assert.equal(restartService("kubelet'; Stop-Computer; '").params.Name, "kubelet'; Stop-Computer; '");
  assert.equal(restartService('kubelet').retryable, false);
});

test('log paths from the host stay inside the folder; the cap keeps the smallest files first', () => {
  const folder = resolve('/tmp/kw-logs/win-a-20261121-090507');
  assert.equal(
    localPathFor(folder, 'C:\\var\\log\\kubelet\\kubelet.log'),
    join(folder, 'var', 'log', 'kubelet', 'kubelet.log'),
  );
  assert.equal(localPathFor(folder, 'C:\\var\\log\\..\\..\\Users\\x'), undefined);
  assert.equal(localPathFor(folder, 'C:\\'), undefined);
  assert.equal(localPathFor(folder, 'C:\\k\\log\\a:b?.log'), join(folder, 'k', 'log', 'a_b_.log'));
  const { take, skip } = planDownloads(
    [
      { path: 'a', size: 60 },
      { path: 'b', size: 30 },
      { path: 'c', size: 50 },
    ],
    100,
  );
  assert.deepEqual(
    take.map((f) => f.path),
    ['b', 'c'],
  );
  assert.deepEqual(
    skip.map((f) => f.path),
    ['a'],
  );
  assert.equal(stamp(new Date(2026, 0, 2, 3, 4, 5)), '20260102-030405');
});

test('drain skips DaemonSet and mirror pods only; AWS is decided by the providerID', () => {
  assert.equal(
    drainSkipReason({
      metadata: { name: 'a', ownerReferences: [{ kind: 'DaemonSet', name: 'ds', controller: true }] },
    }),
    'a DaemonSet pod',
  );
  assert.equal(
    drainSkipReason({ metadata: { name: 'a', annotations: { 'kubernetes.io/config.mirror': 'x' } } }),
    'a static (mirror) pod',
  );
  assert.equal(
    drainSkipReason({
      metadata: { name: 'a', ownerReferences: [{ kind: 'ReplicaSet', name: 'rs', controller: true }] },
    }),
    undefined,
  );
  assert.equal(isAwsNode({ metadata: { name: 'n' }, spec: { providerID: 'aws:///us-east-2a/i-0abc' } }), true);
  assert.equal(isAwsNode({ metadata: { name: 'n' }, spec: { providerID: 'azure:///subscriptions/x' } }), false);
  assert.equal(isAwsNode({ metadata: { name: 'n' } }), false);
});

test('the services table aligns its columns and says when a service is not installed', () => {
  const t = servicesTable([
    { name: 'kubelet', exists: true, status: 'Running', startType: 'Automatic' },
    { name: 'csi-proxy', exists: false, status: null, startType: null },
  ]);
  assert.equal(
    t,
    'SERVICE    STATUS         START TYPE\nkubelet    Running        Automatic\ncsi-proxy  not installed\n',
  );
});
