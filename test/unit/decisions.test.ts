// Domain decisions made once in core/: the severity order, the waits beside delay(), and which
// containers are HostProcess containers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bySeverity, SEVERITIES, SEVERITY_RANK, worstSeverity, type Severity } from '../../src/core/rules/severity';
import { delay, within } from '../../src/core/delay';
import { only } from '../support/check';
import { deployment } from '../support/manifests';

test('one severity order: error above warning above info, listed most severe first', () => {
  assert.deepEqual(SEVERITIES, ['error', 'warning', 'info']);
  assert.ok(SEVERITY_RANK.error > SEVERITY_RANK.warning && SEVERITY_RANK.warning > SEVERITY_RANK.info);
  const found: { id: string; severity: Severity }[] = [
    { id: 'a', severity: 'info' },
    { id: 'b', severity: 'error' },
    { id: 'c', severity: 'warning' },
    { id: 'd', severity: 'error' },
  ];
  assert.deepEqual(
    [...found].sort(bySeverity).map((f) => f.id),
    ['b', 'd', 'c', 'a'],
  );
  assert.equal(worstSeverity(found.map((f) => f.severity)), 'error');
  assert.equal(worstSeverity(['info', 'warning']), 'warning');
  assert.equal(worstSeverity([]), undefined);
});

test('within: the value when it comes in time, undefined when late, and no timer left behind', async () => {
  assert.equal(await within(Promise.resolve(7), 1000), 7);
  let settled = false;
  const slow = delay(200).then(() => ((settled = true), 'late'));
  assert.equal(await within(slow, 20), undefined);
  // Timers fire in the order they expire, however busy the machine: still pending means it did not wait.
  assert.equal(settled, false, 'does not wait for the slow promise');
  assert.equal(await slow, 'late', 'the promise goes on');
  await assert.rejects(within(Promise.reject(new Error('refused')), 1000), /refused/);
});

test('HostProcess membership is decided once: a non-boolean container value is unset and inherits the pod value, in every family', () => {
  const pod = (podLevel: boolean) => `os: {name: windows}
nodeSelector: {kubernetes.io/os: windows}
${podLevel ? 'securityContext:\n  windowsOptions: {hostProcess: true, runAsUserName: "NT AUTHORITY\\\\SYSTEM"}\nhostNetwork: true\n' : ''}containers:
  - name: agent
    image: mcr.microsoft.com/windows/servercore:ltsc2022
    securityContext:
      windowsOptions: {hostProcess: "true"}
`;
  // Pod-level true: the container inherits it, so it is a HostProcess container for the API rules
  // (WIN010 sees no mix) and for the runtime rules (WIN062 leaves node agents alone) alike.
  const inherited = deployment(pod(true));
  assert.deepEqual(only(inherited, 'WIN010'), []);
  assert.deepEqual(only(inherited, 'WIN062'), []);
  // No pod value: the string sets nothing, so the container is an ordinary one.
  assert.equal(only(deployment(pod(false)), 'WIN062').length, 1);
});
