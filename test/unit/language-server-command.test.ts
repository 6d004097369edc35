// The language server's command line (kube-windows-language-server, kube-windows lsp): a transport to
// serve over, or the help, the version, or a one-line usage error with exit code 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { version } from '../../package.json';
import {
  LANGUAGE_SERVER_COMMAND,
  LANGUAGE_SERVER_OPTIONS,
  languageServerHelp,
  languageServerInvocation,
} from '../../src/shared/language-server-command';

test('each transport vscode-languageserver knows is served, in both spellings, with the client process id', () => {
  for (const args of [
    ['--stdio'],
    ['--node-ipc', '--clientProcessId=42'],
    ['--clientProcessId', '42', '--node-ipc'],
    ['--socket=5007'],
    ['--socket', '5007'],
    ['--pipe=/tmp/kw.sock'],
    ['--pipe', '/tmp/kw.sock'],
  ])
    assert.deepEqual(languageServerInvocation(args), { serve: true }, args.join(' '));
});

test('help and version print and exit 0; the help lists every option', () => {
  const help = languageServerInvocation(['--help']);
  assert.deepEqual(help, { serve: false, code: 0, stdout: languageServerHelp(LANGUAGE_SERVER_COMMAND) });
  assert.ok(help.serve === false && help.stdout?.startsWith(`kube-windows-language-server ${version}:`));
  for (const name of [...Object.keys(LANGUAGE_SERVER_OPTIONS), 'help', 'version'])
    assert.match(languageServerHelp('x'), new RegExp(`--${name}\\b`), name);
  assert.deepEqual(languageServerInvocation(['-v']), { serve: false, code: 0, stdout: `${version}\n` });
  assert.deepEqual(languageServerInvocation(['--stdio', '--version']), {
    serve: false,
    code: 0,
    stdout: `${version}\n`,
  });
});

test('no transport, two transports, a bad value or an unknown argument is one line on stderr and exit code 2', () => {
  const error = (args: string[], name?: string) => {
    const r = languageServerInvocation(args, name);
    assert.ok(!r.serve && r.code === 2 && r.stdout === undefined, args.join(' '));
    assert.equal(r.stderr?.split('\n').length, 2, 'one line');
    return r.stderr;
  };
  assert.equal(
    error([]),
    'kube-windows-language-server: say how the editor talks to the server: --stdio, --node-ipc, --socket or --pipe; try "kube-windows-language-server --help"\n',
  );
  assert.match(error(['--stdio', '--socket=1']), /--stdio and --socket: give one transport/);
  assert.match(error(['--socket=abc']), /--socket takes a number, not "abc"/);
  assert.match(error(['--pipe']), /--pipe needs a value/);
  assert.equal(
    error(['--stdio', '--verbose'], 'kube-windows lsp'),
    'kube-windows lsp: unknown argument "--verbose"; try "kube-windows lsp --help"\n',
  );
});
