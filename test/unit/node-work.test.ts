// The pure parts of shell, node logs and drain: which shell a container can run (real image names),
// the exec status's exit code, the node log query (parameter names and limits of the kubelet),
// --since, log paths, the folder listing, and what a refusal says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseShell, containerOs, execExitCode } from '../../src/core/windows/container-shell';
import {
  fileLoggerRefusal,
  logPathSegments,
  logQuery,
  NodeLogInputError,
  nodeLogRefusal,
  parseLogListing,
  sinceTime,
} from '../../src/core/node-log-query';
import { nodeLogCall } from '../../src/cluster/node-logs';

const shell = (image: string, os?: string, tty = true) => chooseShell({ image, tty, ...(os ? { os } : {}) });

test('chooseShell: cmd.exe in Nano Server, powershell.exe in Server Core / Server / Windows, pwsh with PowerShell 7, sh on Linux', () => {
  const cases: [string, string | undefined, string, string[]][] = [
    ['mcr.microsoft.com/windows/nanoserver:ltsc2022', 'windows', 'cmd', ['cmd.exe']],
    ['mcr.microsoft.com/windows/nanoserver:1809', undefined, 'cmd', ['cmd.exe']],
    ['mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022', 'windows', 'cmd', ['cmd.exe']],
    ['mcr.microsoft.com/dotnet/runtime:9.0-nanoserver-ltsc2025@sha256:0123456789abcdef', 'windows', 'cmd', ['cmd.exe']],
    ['mcr.microsoft.com/windows/servercore:ltsc2022', 'windows', 'powershell', ['powershell.exe', '-NoLogo']],
    [
      'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019',
      'windows',
      'powershell',
      ['powershell.exe', '-NoLogo'],
    ],
    [
      'mcr.microsoft.com/dotnet/framework/aspnet:4.8.1-windowsservercore-ltsc2022',
      'windows',
      'powershell',
      ['powershell.exe', '-NoLogo'],
    ],
    ['mcr.microsoft.com/windows/server:ltsc2022', 'windows', 'powershell', ['powershell.exe', '-NoLogo']],
    ['mcr.microsoft.com/windows:ltsc2019', undefined, 'powershell', ['powershell.exe', '-NoLogo']],
    ['mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022', 'windows', 'pwsh', ['pwsh.exe', '-NoLogo']],
    ['mcr.microsoft.com/powershell:7.4-windowsservercore-ltsc2022', 'windows', 'pwsh', ['pwsh.exe', '-NoLogo']],
    ['mcr.microsoft.com/dotnet/sdk:8.0-nanoserver-ltsc2022', 'windows', 'pwsh', ['pwsh.exe', '-NoLogo']],
    ['mcr.microsoft.com/powershell:lts-ubuntu-22.04', 'linux', 'pwsh', ['pwsh', '-NoLogo']],
    ['registry.access.redhat.com/ubi9/ubi-minimal:9.4', 'linux', 'sh', ['sh']],
    ['nginx:1.27', undefined, 'sh', ['sh']],
    ['quay.io/example/app:v1', 'windows', 'powershell', ['powershell.exe', '-NoLogo']],
  ];
  for (const [image, os, kind, command] of cases) {
    const c = shell(image, os);
    assert.equal(c.shell, kind, image);
    assert.deepEqual(c.command, command, image);
  }
  assert.match(shell('quay.io/example/app:v1', 'windows').why, /--shell cmd/);
  // the node's OS wins over the image
  assert.equal(shell('mcr.microsoft.com/windows/nanoserver:ltsc2022', 'linux').shell, 'sh');
  assert.equal(containerOs(undefined, 'mcr.microsoft.com/windows/servercore:ltsc2022'), 'windows');
});

test('chooseShell: --shell overrides; without a terminal PowerShell reads its commands from stdin (-Command -)', () => {
  assert.deepEqual(
    chooseShell({
      image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022',
      os: 'windows',
      override: 'powershell',
      tty: true,
    }).command,
    ['powershell.exe', '-NoLogo'],
  );
  assert.equal(
    chooseShell({
      image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022',
      os: 'windows',
      override: 'powershell',
      tty: true,
    }).why,
    '--shell',
  );
  assert.deepEqual(shell('mcr.microsoft.com/windows/servercore:ltsc2022', 'windows', false).command, [
    'powershell.exe',
    '-NoLogo',
    '-NoProfile',
    '-Command',
    '-',
  ]);
  assert.deepEqual(shell('mcr.microsoft.com/windows/nanoserver:ltsc2022', 'windows', false).command, ['cmd.exe']);
  assert.deepEqual(shell('alpine:3.20', 'linux', false).command, ['sh']);
});

test('execExitCode: Success is 0, NonZeroExitCode carries the code, a failed start has none', () => {
  assert.equal(execExitCode({ status: 'Success' }), 0);
  assert.equal(
    execExitCode({
      status: 'Failure',
      reason: 'NonZeroExitCode',
      message: 'command terminated with non-zero exit code: error executing command [cmd.exe], exit code 3',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    }),
    3,
  );
  assert.equal(execExitCode({ status: 'Failure', reason: 'NonZeroExitCode' }), 1);
  assert.equal(
    execExitCode({
      status: 'Failure',
      reason: 'InternalError',
      message: 'failed to exec in container: ... The system cannot find the file specified.',
    }),
    undefined,
  );
});

test('logQuery: the kubelet names (query, tailLines, sinceTime, pattern) and its limits', () => {
  const now = new Date('2026-05-01T12:00:00.456Z');
  assert.deepEqual(logQuery({ query: 'kubelet', now }), { query: 'kubelet' });
  assert.deepEqual(logQuery({ query: 'containerd', tail: 50, since: '1h', pattern: 'error|fail', now }), {
    query: 'containerd',
    tailLines: '50',
    sinceTime: '2026-05-01T11:00:00Z',
    pattern: 'error|fail',
  });
  assert.deepEqual(Object.keys(logQuery({ query: 'kube-proxy', tail: 0, now })), ['query', 'tailLines']);
  assert.throws(() => logQuery({ query: 'kubelet', tail: 100_001, now }), /0 to 100000/);
  assert.throws(() => logQuery({ query: 'kube let;rm', now }), NodeLogInputError);
  assert.throws(() => logQuery({ query: '  ', now }), /needs a service name/);
  assert.throws(() => logQuery({ query: 'kubelet/kubelet.log', tail: 5, now }), /names a file.*--path/);
  assert.deepEqual(logQuery({ query: 'kubelet/kubelet.log', now }), { query: 'kubelet/kubelet.log' });
  assert.throws(
    () => logQuery({ query: 'kubelet', pattern: '(unclosed', now }),
    /--pattern is not a regular expression/,
  );
});

test('sinceTime: durations back from now, RFC 3339 times kept, anything else refused', () => {
  const now = new Date('2026-05-01T12:00:00Z');
  assert.equal(sinceTime('1h', now), '2026-05-01T11:00:00Z');
  assert.equal(sinceTime('90m', now), '2026-05-01T10:30:00Z');
  assert.equal(sinceTime('2h30m', now), '2026-05-01T09:30:00Z');
  assert.equal(sinceTime('45s', now), '2026-05-01T11:59:15Z');
  assert.equal(sinceTime('1d', now), '2026-04-30T12:00:00Z');
  assert.equal(sinceTime('2026-04-30T08:00:00+02:00', now), '2026-04-30T06:00:00Z');
  for (const bad of ['1', 'h', '1 h', '-1h', 'yesterday', '1h30', '2026-04-30T08:00:00', '0s'])
    assert.throws(() => sinceTime(bad, now), NodeLogInputError, bad);
});

test('logPathSegments and the exact proxy calls', () => {
  assert.equal(logPathSegments('kubelet/kubelet.log'), 'kubelet/kubelet.log');
  assert.equal(logPathSegments('kubelet\\kubelet.log'), 'kubelet/kubelet.log');
  assert.equal(logPathSegments('containerd/'), 'containerd/');
  assert.equal(logPathSegments('we?ird#name.log'), 'we%3Fird%23name.log');
  assert.equal(logPathSegments(''), '');
  for (const bad of ['../x', 'a/../../b', 'C:\\var\\log\\kubelet.log', '/var/log/kubelet.log'])
    assert.throws(() => logPathSegments(bad), NodeLogInputError, bad);
  assert.deepEqual(nodeLogCall('win-a', { path: 'kubelet/kubelet.log' }), {
    verb: 'GET',
    path: '/api/v1/nodes/win-a/proxy/logs/kubelet/kubelet.log',
  });
  assert.deepEqual(
    nodeLogCall(
      'win-a',
      { query: 'kubelet', tail: 10, since: '1h', pattern: 'E[0-9]+' },
      new Date('2026-05-01T12:00:00Z'),
    ),
    {
      verb: 'GET',
      path: '/api/v1/nodes/win-a/proxy/logs/?query=kubelet&tailLines=10&sinceTime=2026-05-01T11%3A00%3A00Z&pattern=E%5B0-9%5D%2B',
    },
  );
});

test('parseLogListing: Go http.FileServer folder listings, nothing outside the folder', () => {
  const html =
    '<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n<a href="containerd/">containerd/</a>\n<a href="kubelet/">kubelet/</a>\n<a href="we%3Fird%23name.log">we?ird#name.log</a>\n<a href="../">../</a>\n<a href="/etc/passwd">x</a>\n<a href="a/b">a/b</a>\n</pre>\n';
  assert.deepEqual(parseLogListing(html), ['containerd/', 'kubelet/', 'we?ird#name.log']);
});

test('nodeLogRefusal: 403, the handler off, 404, the kubelet out of reach, a missing node; each says what to do', () => {
  const forbidden = nodeLogRefusal(
    'win-a',
    'kubelet/kubelet.log',
    403,
    JSON.stringify({
      kind: 'Status',
      message:
        'nodes "win-a" is forbidden: User "dev" cannot get resource "nodes/proxy" in API group "" at the cluster scope',
      reason: 'Forbidden',
      code: 403,
    }),
  );
  assert.equal(forbidden.kind, 'forbidden');
  assert.match(forbidden.message, /cannot get resource "nodes\/proxy".*RBAC `get` on the `nodes\/proxy` resource/);
  const off = nodeLogRefusal('win-a', 'kubelet/kubelet.log', 405, 'logs endpoint is disabled.\n');
  assert.equal(off.kind, 'disabled');
  assert.match(off.message, /enableSystemLogHandler: true.*enableSystemLogQuery: true.*NodeLogQuery=true/);
  assert.equal(nodeLogRefusal('win-a', 'x.log', 404, '404 page not found\n').kind, 'not-found');
  assert.equal(
    nodeLogRefusal(
      'win-a',
      'x',
      503,
      JSON.stringify({
        kind: 'Status',
        message: 'error trying to reach service: dial tcp 10.0.1.5:10250: i/o timeout',
      }),
    ).kind,
    'unreachable',
  );
  assert.equal(
    nodeLogRefusal(
      'win-zz',
      'x',
      404,
      JSON.stringify({
        kind: 'Status',
        message: 'nodes "win-zz" not found',
        reason: 'NotFound',
        details: { name: 'win-zz', kind: 'nodes' },
        code: 404,
      }),
    ).kind,
    'no-node',
  );
  assert.equal(
    nodeLogRefusal(
      'win-a',
      'the log query for kubelet',
      406,
      'query: Invalid value: "a b": input contains unsafe characters\n',
    ).kind,
    'invalid',
  );
  assert.match(
    fileLoggerRefusal(
      'win-a',
      'kubelet',
      '\noptions present and query resolved to log files for [kubelet]\ntry without specifying options\n',
    ).message,
    /kubelet logs to a file \(kubelet\)/,
  );
});
