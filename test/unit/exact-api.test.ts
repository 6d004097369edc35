// The exact-API check's pure parts: the API server's field paths read against a document, the
// validator's answers turned into findings beside the rules' (one finding per cause), the kinds sent
// to the validator, and where installed validator modules are found. The validator itself runs in
// test/cli/exact-api.test.ts and, against the real API servers, test/apiserver-suites/exact-api-differential.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifest } from '../../src/core/manifest/document';
import { fieldPath, strictFields, withExactApi } from '../../src/core/exact-api/findings';
import { validatedKind } from '../../src/core/exact-api/kinds';
import type { ValidatorAnswer } from '../../src/core/exact-api/answer';
import { findings } from '../support/check';
import { givenPathProblem, installedValidators, validatorPlaces } from '../../src/shared/validator-files';
import { validatorImports } from '../../src/shared/validator-runner';

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app.kubernetes.io/name: web}
spec:
  os: {name: windows}
  securityContext: {runAsUser: 1000}
  nodeSelector: {kubernetes.io/os: windows}
  containers:
  - name: web
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    imagePullPolicy: Sometimes
    foo: bar
`;

function invalid(causes: { field: string; message: string; reason?: string }[], extra: Partial<ValidatorAnswer> = {}) {
  return {
    verdict: 'invalid',
    kubernetes: 'v1.35.4',
    status: { code: 422, reason: 'Invalid', message: 'Pod "web" is invalid', details: { causes } },
    ...extra,
  } as ValidatorAnswer;
}

function run(
  text: string,
  answer: ValidatorAnswer,
  severity: Record<string, 'off' | 'error' | 'warning' | 'info'> = {},
) {
  const file = loadManifest(text);
  const ours = findings(text);
  return withExactApi(ours, file.documents[0], answer, {
    lines: file.lines(),
    severityOf: (id, fallback) => severity[id] ?? fallback,
    kubernetes: 'v1.35.4',
  });
}

const at = (text: string, line: number) => text.split('\n')[line];

test("the API server's field paths name the document's nodes: indexes in lists, keys (with dots) in maps", () => {
  const value = loadManifest(POD).documents[0].value;
  assert.deepEqual(fieldPath(value, 'spec.containers[0].imagePullPolicy'), [
    'spec',
    'containers',
    0,
    'imagePullPolicy',
  ]);
  assert.deepEqual(fieldPath(value, 'spec.nodeSelector[kubernetes.io/os]'), [
    'spec',
    'nodeSelector',
    'kubernetes.io/os',
  ]);
  assert.deepEqual(fieldPath(value, 'metadata.labels[app.kubernetes.io/name]'), [
    'metadata',
    'labels',
    'app.kubernetes.io/name',
  ]);
  // Past the end of the document (a required field), the segments are still read.
  assert.deepEqual(fieldPath(value, 'spec.containers[1].name'), ['spec', 'containers', 1, 'name']);
});

test('a strict-decoding error names each unknown and duplicate field', () => {
  assert.deepEqual(
    strictFields(
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"',
    ),
    [
      { kind: 'unknown', path: 'spec.foo' },
      { kind: 'duplicate', path: 'metadata.name' },
    ],
  );
  assert.deepEqual(strictFields(undefined), []);
});

test("a refusal no rule of ours says is API001 in the server's exact words, on the field it names", () => {
  const text = POD;
  const cause = {
    field: 'spec.containers[0].imagePullPolicy',
    message: 'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
  };
  const out = run(text, invalid([cause]));
  const api = out.filter((f) => f.ruleId === 'API001');
  assert.equal(api.length, 1);
  assert.equal(api[0].message, `${cause.field}: ${cause.message}`);
  assert.equal(api[0].severity, 'error');
  assert.equal(api[0].apiRejects, true);
  assert.equal(at(text, api[0].range.start.line).trim().split(':')[0], 'imagePullPolicy');
});

test('a refusal a rule of ours quotes is one finding, ours (with its fix), never two', () => {
  const ours = findings(POD).filter((f) => f.ruleId === 'WIN001');
  assert.equal(ours.length, 1, 'the rule reports runAsUser on a Windows pod');
  const out = run(
    POD,
    invalid([{ field: 'spec.securityContext.runAsUser', message: 'Forbidden: cannot be set for a windows pod' }]),
  );
  assert.equal(out.filter((f) => f.ruleId === 'API001').length, 0);
  const kept = out.filter((f) => f.ruleId === 'WIN001');
  assert.equal(kept.length, 1);
  assert.ok(kept[0].fixes.length > 0);
  assert.equal(kept[0].related, undefined, 'it already says the same words');
});

test("a refusal on the field of one of our API rejections in other words is merged into ours, with the server's words as related information", () => {
  const out = run(POD, invalid([{ field: 'spec.securityContext.runAsUser', message: 'Forbidden: some other text' }]));
  assert.equal(out.filter((f) => f.ruleId === 'API001').length, 0);
  const win = out.find((f) => f.ruleId === 'WIN001');
  assert.deepEqual(
    win?.related?.map((r) => r.message),
    ['The API server (v1.35.4) says: spec.securityContext.runAsUser: Forbidden: some other text'],
  );
});

test('a required field that is missing is placed on the deepest key that is there', () => {
  const text = POD;
  const out = run(
    text,
    invalid([{ field: 'spec.containers[0].securityContext.windowsOptions.hostProcess', message: 'Required value' }]),
  );
  const api = out.find((f) => f.ruleId === 'API001');
  assert.ok(api);
  assert.match(at(text, api.range.start.line), /- name: web|containers:/);
});

test('an unknown field is API002 on that key; a warning is API003; a refusal without causes sits at the document start', () => {
  const text = POD;
  const answer: ValidatorAnswer = {
    verdict: 'invalid',
    kubernetes: 'v1.35.4',
    strict: {
      code: 400,
      message:
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].foo"',
    },
    warnings: ["metadata.name: this is used in the Pod's hostname"],
  };
  const out = run(text, answer);
  const unknown = out.find((f) => f.ruleId === 'API002');
  assert.equal(unknown?.message, 'strict decoding error: unknown field "spec.containers[0].foo"');
  assert.equal(at(text, unknown!.range.start.line).trim(), 'foo: bar');
  const warning = out.find((f) => f.ruleId === 'API003');
  assert.equal(warning?.severity, 'warning');
  assert.equal(warning?.apiRejects, undefined);
  assert.equal(at(text, warning!.range.start.line).trim(), 'name: web');

  const undecodable = run(text, {
    verdict: 'invalid',
    kubernetes: 'v1.35.4',
    status: { code: 400, message: 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string' },
  }).find((f) => f.ruleId === 'API001');
  assert.equal(undecodable?.message, 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string');
  assert.equal(undecodable?.range.start.line, 0);
});

test('API rules follow the severity settings; an unsupported or valid answer adds nothing', () => {
  const cause = { field: 'spec.containers[0].imagePullPolicy', message: 'Unsupported value: "Sometimes"' };
  assert.equal(run(POD, invalid([cause]), { API001: 'off' }).filter((f) => f.ruleId === 'API001').length, 0);
  assert.equal(
    run(POD, invalid([cause]), { API001: 'warning' }).find((f) => f.ruleId === 'API001')?.severity,
    'warning',
  );
  const ours = findings(POD);
  assert.deepEqual(run(POD, { verdict: 'unsupported', kubernetes: 'v1.35.4', reason: 'x' }), ours);
  assert.deepEqual(run(POD, { verdict: 'valid', kubernetes: 'v1.35.4' }), ours);
  // The same cause twice (a server may list it per container) is one finding.
  assert.equal(run(POD, invalid([cause, cause])).filter((f) => f.ruleId === 'API001').length, 1);
});

test('the kinds sent to the validator: Pods and every kind with a pod template, by group', () => {
  for (const [apiVersion, kind] of [
    ['v1', 'Pod'],
    ['v1', 'ReplicationController'],
    ['v1', 'PodTemplate'],
    ['apps/v1', 'Deployment'],
    ['apps/v1', 'StatefulSet'],
    ['apps/v1', 'DaemonSet'],
    ['apps/v1', 'ReplicaSet'],
    ['batch/v1', 'Job'],
    ['batch/v1', 'CronJob'],
  ])
    assert.ok(validatedKind({ apiVersion, kind }), `${apiVersion} ${kind}`);
  for (const v of [
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { apiVersion: 'apps.openshift.io/v1', kind: 'DeploymentConfig' },
    { kind: 'Pod' },
    null,
    [],
  ])
    assert.ok(!validatedKind(v), JSON.stringify(v));
});

test('installed validators are found by name, the first place holding a release wins, and a wrong path is said', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-validators-'));
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  mkdirSync(a);
  mkdirSync(b);
  writeFileSync(join(a, 'kube-windows-validator-v1.35.4.wasm.br'), '');
  writeFileSync(join(b, 'kube-windows-validator-v1.35.2.wasm'), '');
  writeFileSync(join(b, 'kube-windows-validator-v1.37.2.wasm.gz'), '');
  writeFileSync(join(b, 'notes.txt'), '');
  const found = installedValidators([a, b]);
  assert.deepEqual(
    found.map((v) => [v.release, v.kubernetes]),
    [
      ['1.35', 'v1.35.4'],
      ['1.37', 'v1.37.2'],
    ],
  );
  assert.deepEqual(
    installedValidators([join(b, 'kube-windows-validator-v1.37.2.wasm.gz')]).map((v) => v.release),
    ['1.37'],
  );
  assert.match(givenPathProblem(join(dir, 'nope')) ?? '', /does not exist/);
  assert.match(givenPathProblem(join(b, 'notes.txt')) ?? '', /is not a validator module/);
  assert.equal(givenPathProblem(a), undefined);
  const places = validatorPlaces('/given', { KUBE_WINDOWS_VALIDATOR: '/env', XDG_DATA_HOME: '/data' }, '/dist');
  assert.deepEqual(places, ['/given', '/env', '/dist/validator', '/data/kube-windows/validator']);
});

// What Go's wasip1 runtime imports (read from the import section of the built 1.35 and 1.37 modules).
const GO_WASI_IMPORTS = [
  'args_get',
  'args_sizes_get',
  'clock_time_get',
  'environ_get',
  'environ_sizes_get',
  'fd_close',
  'fd_fdstat_get',
  'fd_fdstat_set_flags',
  'fd_filestat_get',
  'fd_filestat_set_size',
  'fd_pread',
  'fd_prestat_dir_name',
  'fd_prestat_get',
  'fd_pwrite',
  'fd_read',
  'fd_readdir',
  'fd_seek',
  'fd_sync',
  'fd_write',
  'path_filestat_get',
  'path_open',
  'path_readlink',
  'path_remove_directory',
  'path_symlink',
  'path_unlink_file',
  'poll_oneoff',
  'proc_exit',
  'random_get',
  'sched_yield',
  'sock_accept',
  'sock_shutdown',
];
const isNative = (f: unknown) => typeof f === 'function' && /\[native code\]/.test(Function.prototype.toString.call(f));

test("the validator's WASI is JavaScript, never node:wasi's native functions (called from WebAssembly as fast API calls, they can corrupt the heap)", async () => {
  const { imports } = validatorImports();
  const given = imports.wasi_snapshot_preview1;
  for (const name of GO_WASI_IMPORTS) {
    assert.equal(typeof given[name], 'function', `${name} is provided`);
    assert.equal(isNative(given[name]), false, `${name} is not a native function`);
  }
  // The check can tell: node:wasi's own import object is made of native functions. (Its one-time
  // "experimental" warning is held back: it says nothing about this test.)
  const emit = process.emitWarning;
  process.emitWarning = () => undefined;
  const { WASI: NodeWasi } = await import('node:wasi').finally(() => (process.emitWarning = emit));
  const node = new NodeWasi({ version: 'preview1' }).getImportObject() as {
    wasi_snapshot_preview1: Record<string, unknown>;
  };
  assert.ok(GO_WASI_IMPORTS.some((name) => isNative(node.wasi_snapshot_preview1[name])));
});

test('the validator is given no file descriptors, no arguments beyond its name, no environment', () => {
  const { wasi } = validatorImports();
  assert.deepEqual(wasi.fds, []);
  assert.deepEqual(wasi.args, ['validator']);
  assert.deepEqual(wasi.env, []);
});
