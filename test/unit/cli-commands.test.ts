// The CLI's command declarations (src/cli/commands.ts) and what is made from them (src/cli/declare.ts):
// the README's usage block, the per-action checks, the help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { allUsage, COMMANDS, MACHINESET_COMMAND, NODES_COMMAND, PODS_COMMAND } from '../../src/cli/commands';
import { actionOf, commandHelp, parseCommand, type OptionDecl } from '../../src/cli/declare';
import { EXIT_CODES_HELP, UsageError } from '../../src/cli/kit';

// Compiled to out/test/unit/: the repository root is three levels up.
const ROOT = resolve(__dirname, '..', '..', '..');

test("the README's usage block is the commands' declared usage", () => {
  const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
  const block = /<!-- usage:begin[^>]*-->\n```\n([\s\S]*?)```\n<!-- usage:end -->/.exec(readme)?.[1];
  const declared = `${allUsage().replace(/^ {2}/gm, '')}\n`;
  assert.equal(block, declared, `README.md between the usage markers should be:\n${declared}`);
});

test('every declared option is listed in its help, but the hidden test hooks', () => {
  const hidden = new Set([
    'help',
    'color',
    'poll-interval',
    'dry-run',
    'wmco-namespace',
    'fix-scope',
    'exact-api-release',
  ]);
  for (const c of COMMANDS) {
    const help = commandHelp(c);
    assert.ok(help.startsWith(`Usage:\n  kube-windows ${c.name}`), c.name);
    assert.ok(help.endsWith(EXIT_CODES_HELP), c.name);
    for (const [name, o] of Object.entries<OptionDecl>(c.options)) {
      if (o.help === undefined) assert.ok(hidden.has(name), `${c.name} --${name} has no help`);
      else assert.match(help, new RegExp(`--${name}\\b`), `${c.name} --${name}`);
    }
    for (const action of Object.keys(c.actions ?? {}))
      assert.match(help, new RegExp(`^${action} `, 'm'), `${c.name} ${action}`);
  }
});

test('an action given an option it does not take is a usage error that names the actions that take it; ignored ones stay accepted', () => {
  const refused = (args: string[]): string => {
    const { values, positionals } = parseCommand(NODES_COMMAND, args);
    try {
      actionOf(NODES_COMMAND, positionals, values);
    } catch (err) {
      assert.ok(err instanceof UsageError);
      return err.message;
    }
    return '';
  };
  assert.equal(
    refused(['logs', 'win-a', '--dry-run']),
    '--dry-run goes with nodes reboot; nodes logs has no plan to show',
  );
  assert.equal(refused(['reboot', 'win-a', '--restart', 'kubelet']), '--restart goes with nodes services');
  assert.equal(refused(['drain', 'win-a', '--path', 'x']), '--path goes with nodes logs');
  assert.equal(refused(['cordon', 'win-a', '--timeout', '3']), '--timeout goes with nodes reboot and nodes drain');
  assert.equal(
    refused(['events', 'win-a', '--key', 'k']),
    '--key goes with nodes reboot and nodes logs and nodes services and nodes proxy',
  );
  assert.equal(refused(['reboot', 'win-a', '--set', 'a=b:NoSchedule']), '--set goes with nodes taints');
  // Accepted and unused, as before the declarations: --timeout by logs, SSH options by cordon.
  assert.equal(refused(['logs', 'win-a', '--timeout', '3']), '');
  assert.equal(refused(['cordon', 'win-a', '--key', 'k', '--address', '10.0.0.5']), '');
  assert.equal(
    refused(['frobnicate', 'win-a']),
    'nodes takes list, reboot, logs, services, proxy, cordon, uncordon, drain, events or taints, not "frobnicate"; try "kube-windows nodes --help"',
  );
  assert.equal(refused(['taints']), 'nodes taints needs the node name');
  assert.equal(refused(['taints', 'a', 'b']), 'unexpected argument "b"');
});

test('pods: the logs options go with pods logs alone', () => {
  for (const option of [['-c', 'web'], ['--tail', '3'], ['--follow'], ['--previous']]) {
    const { values, positionals } = parseCommand(PODS_COMMAND, ['describe', 'p', ...option]);
    assert.throws(() => actionOf(PODS_COMMAND, positionals, values), /goes with pods logs/);
  }
  const { values, positionals } = parseCommand(PODS_COMMAND, ['logs', 'p', '-c', 'web', '--tail', '3']);
  assert.deepEqual(actionOf(PODS_COMMAND, positionals, values), { action: 'logs', operand: 'p' });
});

test('machineset: the create options go with create alone; --timeout is ignored by scale and delete-machine, as before', () => {
  const refused = (args: string[]): string => {
    const { values, positionals } = parseCommand(MACHINESET_COMMAND, args);
    try {
      actionOf(MACHINESET_COMMAND, positionals, values);
    } catch (err) {
      return (err as Error).message;
    }
    return '';
  };
  assert.equal(refused(['follow', 'ms', '--image', 'ami-1']), '--image goes with machineset create');
  assert.equal(refused(['scale', 'ms', '--dry-run']), '--dry-run goes with machineset create');
  assert.equal(refused(['follow', 'ms', '--replicas', '2']), '--replicas goes with machineset create and scale');
  assert.equal(refused(['scale', 'ms', '--replicas', '2', '--timeout', '5']), '');
  assert.equal(
    refused(['frobnicate']),
    'machineset takes create, follow, scale or delete-machine, not "frobnicate"; try "kube-windows machineset --help"',
  );
});
