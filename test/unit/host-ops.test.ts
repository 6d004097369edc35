import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readResult, kubeadmJoin, commitUpload } from '../../src/core/windows/host-ops';
import { sampleMirrorOps, sampleOps } from '../support/sample-ops';
import { decodeCommand, powershellCommand, psString, wrapScript } from '../../src/core/windows/powershell';
import { allNodes, parsePowerShell, parseTree } from '../support/powershell-parser';
import { HOSTILE } from '../support/hostile-strings';

test('every host op, with every hostile parameter value, parses with no error node', async () => {
  let checked = 0;
  for (const value of [...HOSTILE, 'C:\\k\\kubelet.exe']) {
    for (const op of [...sampleOps(value), ...sampleMirrorOps(value)]) {
      const wrapped = wrapScript(op.script);
      const result = await parsePowerShell(wrapped);
      assert.ok(result.ok, `${op.name} with ${JSON.stringify(value)}:\n${result.errors.join('\n')}`);
      // What is sent is exactly the wrapped script, encoded.
      assert.equal(decodeCommand(powershellCommand(op.script).at(-1)!), wrapped);
      checked++;
    }
  }
  assert.ok(checked > 400);
});

test('a hostile parameter is one string literal on its own assignment line', async () => {
  for (const value of HOSTILE) {
    const op = commitUpload(value, 'C:\\k\\x', 'ab'.repeat(32));
    const lines = op.script.split('\n');
    assert.equal(lines[0], '# kube-windows op: commit-upload');
    const root = await parseTree(op.script);
    const first = allNodes(root).find((n) => n.type === 'string_literal');
    assert.equal(first?.text, psString(value), `the first literal is the whole value ${JSON.stringify(value)}`);
    assert.ok(op.script.startsWith(`# kube-windows op: commit-upload\n$Temp = ${psString(value)}\n$Path = `));
  }
});

test('secret parameters are declared so they can be redacted', () => {
  const op = kubeadmJoin({
    kubeadmPath: 'C:\\k\\kubeadm.exe',
    apiServerEndpoint: '10.0.0.1:6443',
    token: 'abcdef.0123456789abcdef',
    caCertHash: 'sha256:00',
    nodeName: 'win-1',
  });
  assert.deepEqual(op.secrets, ['abcdef.0123456789abcdef']);
  assert.ok(op.script.includes("'abcdef.0123456789abcdef'"));
});

test('readResult takes the last KWRESULT line and explains a missing or broken one', () => {
  assert.deepEqual(readResult('noise\r\nKWRESULT {"a":1}\r\nKWRESULT {"a":2}\r\n', 'x'), { a: 2 });
  assert.throws(() => readResult('just text', 'host-facts'), /gave no result for host-facts/);
  assert.throws(() => readResult('KWRESULT {oops', 'host-facts'), /not valid JSON/);
});
