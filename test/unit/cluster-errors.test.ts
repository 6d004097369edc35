import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiError,
  classifyError,
  ExecPluginError,
  parseForbidden,
  redact,
  RequestTimeoutError,
} from '../../src/cluster/errors';
import { byohInstancesOf } from '../../src/cluster/extras';
import { windowsNodeView } from '../../src/cluster/windows-nodes';
import { buildSnapshot } from '../../src/cluster/snapshot';

const ctx = { context: 'prod', server: 'https://api.prod:6443' };

function sysErr(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

test('unreachable and timeouts say the cluster does not answer at its URL', () => {
  const refused = classifyError(sysErr('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'), ctx);
  assert.equal(refused.reason, 'unreachable');
  assert.match(refused.message, /^Cluster "prod" does not answer at https:\/\/api\.prod:6443/);
  const timeout = classifyError(new RequestTimeoutError(ctx.server, 500), ctx);
  assert.equal(timeout.reason, 'timeout');
  assert.match(timeout.message, /does not answer at https:\/\/api\.prod:6443/);
});

test('401 says to log in again; 403 names the missing permission', () => {
  const e401 = classifyError(new ApiError(401, 'Unauthorized', '/version', { message: 'Unauthorized' }), ctx);
  assert.equal(e401.reason, 'unauthorized');
  assert.match(e401.message, /Log in again/);
  const body = {
    message:
      'configmaps "windows-instances" is forbidden: User "dev" cannot get resource "configmaps" in API group "" in the namespace "openshift-windows-machine-config-operator"',
  };
  const e403 = classifyError(new ApiError(403, 'Forbidden', '/api/v1/...', body), { ...ctx, what: 'BYOH instances' });
  assert.equal(e403.reason, 'forbidden');
  assert.deepEqual(e403.permission, {
    verb: 'get',
    resource: 'configmaps',
    namespace: 'openshift-windows-machine-config-operator',
  });
  assert.match(e403.message, /not allowed to get configmaps in namespace "openshift-windows-machine-config-operator"/);
  assert.equal(e403.what, 'BYOH instances');
  assert.deepEqual(
    parseForbidden('nodes is forbidden: User "x" cannot list resource "nodes" in API group "" at the cluster scope'),
    { verb: 'list', resource: 'nodes' },
  );
  assert.deepEqual(
    parseForbidden(
      'User "x" cannot list resource "imagedigestmirrorsets" in API group "config.openshift.io" at the cluster scope',
    ),
    {
      verb: 'list',
      resource: 'imagedigestmirrorsets',
      group: 'config.openshift.io',
    },
  );
});

test('exec plugin failures: stderr, or the PATH hint when the command is missing', () => {
  const missing = classifyError(new ExecPluginError('kubelogin', sysErr('ENOENT', 'spawn kubelogin ENOENT')), ctx);
  assert.equal(missing.reason, 'exec');
  assert.match(missing.message, /"kubelogin" .* was not found\. VS Code may not have your shell's PATH/);
  const failed = classifyError(
    new ExecPluginError('aws', new Error('error: token expired; Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.abc\n')),
    ctx,
  );
  assert.match(failed.message, /"aws" for cluster "prod" failed: error: token expired/);
  assert.doesNotMatch(failed.message, /eyJ/);
});

test("TLS failures are named; a certificate the kubeconfig's CA does not vouch for says so", () => {
  const other = classifyError(sysErr('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'), ctx);
  assert.equal(other.reason, 'tls');
  assert.match(other.message, /TLS connection to cluster "prod" at https:\/\/api\.prod:6443 failed/);
  for (const code of ['SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'DEPTH_ZERO_SELF_SIGNED_CERT']) {
    const tls = classifyError(sysErr(code, 'unable to verify'), ctx);
    assert.equal(tls.reason, 'tls');
    assert.equal(tls.cause, 'certificate not trusted: the CA does not match');
    assert.match(
      tls.message,
      new RegExp(
        `certificate of cluster "prod" .* is not trusted: the CA in the kubeconfig does not match the server's certificate \\(${code}\\)`,
      ),
    );
  }
});

test('each failure has its cause in a few words for a row', () => {
  const timeout = classifyError(new RequestTimeoutError('https://api.prod:6443', 15_000), ctx);
  assert.equal(timeout.cause, 'no answer: timeout after 15 s');
  assert.equal(
    classifyError(new ApiError(401, 'Unauthorized', '/version'), ctx).cause,
    'credentials expired or rejected (401)',
  );
  assert.equal(
    classifyError(sysErr('ECONNREFUSED', 'connect ECONNREFUSED'), ctx).cause,
    'unreachable: connection refused',
  );
});

test('redact removes tokens, keys and passwords', () => {
  const text = redact(
    'Authorization: Bearer sha256~abcdefghijklmnopqrstuvwxyz012345 token=abc password: hunter2 -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
  );
  assert.doesNotMatch(text, /sha256~|abc |hunter2|MIIE/);
});

test('a Windows node view: build name, BYOH, WMCO upgrading, taints, cordoned, conditions without heartbeats', () => {
  const view = windowsNodeView({
    metadata: {
      name: 'win-1',
      labels: {
        'kubernetes.io/os': 'windows',
        'node.kubernetes.io/windows-build': '10.0.20348',
        'windowsmachineconfig.openshift.io/byoh': 'true',
      },
      annotations: {
        'windowsmachineconfig.openshift.io/version': '9.0.0',
        'windowsmachineconfig.openshift.io/desired-version': '10.0.0',
      },
    },
    spec: { unschedulable: true, taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] },
    status: {
      conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastHeartbeatTime: new Date() }],
      nodeInfo: {
        osImage: 'Windows Server 2022 Datacenter',
        kernelVersion: '10.0.20348.2700',
        kubeletVersion: 'v1.30.4',
        containerRuntimeVersion: 'containerd://1.7.20',
        architecture: 'amd64',
        bootID: '',
        machineID: '',
        kubeProxyVersion: '',
        operatingSystem: 'windows',
        systemUUID: '',
      },
      addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
    },
  });
  assert.equal(view.windowsVersion, 'Windows Server 2022');
  assert.equal(view.buildNumber, 20348);
  assert.equal(view.provisioning, 'byoh');
  assert.equal(view.ready, false);
  assert.deepEqual(view.problems, ['Not ready (KubeletNotReady)']);
  assert.equal(view.wmco.upgrading, true);
  assert.equal(view.cordoned, true);
  assert.deepEqual(view.taints, [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }]);
  assert.ok(!JSON.stringify(view).includes('Heartbeat'));
  assert.equal(
    windowsNodeView({ metadata: { name: 'w', labels: { 'node.kubernetes.io/windows-build': '10.0.17763' } } })
      .windowsVersion,
    'Windows Server 2019',
  );

  const instances = byohInstancesOf(
    { '10.0.0.5': 'username=Administrator', 'host.example.com': 'username=core', bad: 'user=x' },
    [view],
  );
  assert.deepEqual(
    instances.map((i) => [i.address, i.status, i.node, i.username, i.invalid]),
    [
      ['10.0.0.5', 'joined', 'win-1', 'Administrator', undefined],
      ['bad', 'not joined', undefined, undefined, 'the value must be username=<user>'],
      ['host.example.com', 'not joined', undefined, 'core', undefined],
    ],
  );
  const snap = buildSnapshot({ name: 'prod', flavour: 'openshift', nodes: [view], runtimeClasses: [] });
  assert.deepEqual(snap, {
    name: 'prod',
    flavour: 'openshift',
    windowsNodes: [
      { name: 'win-1', build: '10.0.20348', taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] },
    ],
    runtimeClasses: [],
  });
});
