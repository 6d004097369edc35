// The admission policy generator (src/core/policy): one description with the rules, the shapes of the
// objects, the Windows image evidence as an RE2 pattern, the selector parser, the requests' refusals,
// what apply changes and what status says. Their agreement with `check` on the real API server is
// test/apiserver-suites/admission-parity.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RULES } from '../../src/core/rules/registry';
import { POD_SPEC_PATHS } from '../../src/core/manifest/workloads';
import { windowsImageEvidence } from '../../src/core/windows/builds';
import { generatePolicies, enforceableRules } from '../../src/core/policy/generate';
import { RULE_CEL } from '../../src/core/policy/rule-cel';
import { POLICY_SHAPES } from '../../src/core/policy/shapes';
import { sentence, str } from '../../src/core/policy/cel';
import { fieldIf, nonEmpty } from '../../src/core/policy/finding-cel';
import { windowsImage } from '../../src/core/policy/targeting-cel';
import { parseNamespaceSelector } from '../../src/core/policy/selector';
import { resolvePolicyRequest } from '../../src/core/policy/request';
import { policyChanges } from '../../src/core/policy/changes';
import { compareVersions } from '../../src/core/policy/version';
import { policyStatusRows } from '../../src/core/policy/status';
import { admissionCode, admissionText } from '../../src/core/policy/admission-words';
import { DEFAULT_KUBERNETES_RELEASE } from '../../src/core/kubernetes-release';
import { EXEC_PROGRAM_PATTERNS } from '../../src/core/policy/rule-cel-commands';
import { ids } from '../support/check';

test('the rules that say they are enforceable are exactly those the generator has CEL for', () => {
  assert.deepEqual(
    RULES.filter((r) => r.admission.enforceable).map((r) => r.id),
    RULE_CEL.map((r) => r.id).sort(),
  );
  assert.deepEqual(
    enforceableRules().map((r) => r.id),
    RULE_CEL.map((r) => r.id),
  );
});

test("a rule whose words name the Kubernetes release says the release the policies are generated for, as check's facts do", () => {
  const messages = (kubernetesVersion?: string) => {
    const pods = generatePolicies({
      action: 'Warn',
      version: '1.0.0',
      rules: ['WIN058', 'WIN065'],
      kubernetesVersion,
    })[0];
    return JSON.stringify((pods.spec as { validations: unknown[] }).validations);
  };
  // Before 1.34 pod-level resources are dropped, before 1.33 resizePolicy is; the default is check's default release.
  assert.match(messages('1.33'), /dropped silently by the API server on Kubernetes 1\.33/);
  assert.match(messages('1.32'), /is dropped by the API server of Kubernetes 1\.32/);
  assert.match(
    messages(),
    new RegExp(`the API server of Kubernetes ${DEFAULT_KUBERNETES_RELEASE.replace('.', '\\.')} rejects`),
  );
  assert.doesNotMatch(messages(), /dropped silently/);
});

test('an enforceable rule with a part only another object decides says which part in the admission column', () => {
  const win072 = RULES.find((r) => r.id === 'WIN072');
  assert.ok(win072?.admission.enforceable);
  assert.equal(admissionText(win072.admission), 'enforceable (not the conflict with a RuntimeClass, another object)');
  assert.equal(admissionCode(win072.admission), 'yes');
});

test('every kind a policy matches keeps its pod spec where the policy reads it', () => {
  for (const shape of POLICY_SHAPES) {
    const paths = new Set(shape.resources.map((r) => POD_SPEC_PATHS[r.kind]?.join('.')));
    assert.equal(paths.size, 1, `${shape.name}: ${[...paths].join(' | ')}`);
    assert.ok([...paths][0], `${shape.name}: every kind has a pod spec path`);
  }
});

test('sentence(): a rule written once in TypeScript becomes the CEL concatenation of the same words', () => {
  const cel = sentence((field, note) => `${field}: it's bad${note}.`, ['f', 'variables.note']);
  assert.equal(cel, `(f) + ${str(": it's bad")} + (variables.note) + '.'`);
  assert.equal(str("a'b\\c\n"), "'a\\'b\\\\c\\n'");
});

/** The pattern the policies match an image against, read back out of the CEL. */
function imagePattern(): RegExp {
  const m = /\.matches\('((?:[^'\\]|\\.)*)'\)$/.exec(windowsImage('c.image'));
  assert.ok(m, windowsImage('c.image'));
  return new RegExp(m[1].replace(/\\\\/g, '\\'));
}

test("the policies' Windows image pattern decides as windowsImageEvidence does", () => {
  const re = imagePattern();
  const images = [
    'mcr.microsoft.com/windows/servercore:ltsc2022',
    'mcr.microsoft.com/windows:ltsc2019',
    'mcr.microsoft.com/windows',
    'mcr.microsoft.com/windowsfoo:1',
    'mcr.microsoft.com/dotnet/framework/aspnet:4.8',
    'mcr.microsoft.com/dotnet/runtime:8.0',
    'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0',
    'MCR.Microsoft.com/Windows/ServerCore:LTSC2022',
    'microsoft/nanoserver:1809',
    'docker.io/microsoft/iis',
    'docker.io/microsoft/iisx:1',
    'quay.io/microsoft/iis:1',
    'example.com/app:1.0-windowsservercore-ltsc2022',
    'example.com/app:nanoserver',
    'example.com/app:nanoserverx',
    'example.com/app:ltsc2025_x',
    'example.com/app:ltsc2023',
    'example.com/app:Windows-amd64',
    'example.com/app:windows.1',
    'example.com/windows/app:1.0',
    'example.com/app:servercoreish',
    'registry.local:5000/app:windows',
    'registry.local:5000/windows',
    'example.com/app@sha256:0123',
    'example.com/app:ltsc2022@sha256:0123',
    'example.com/app@sha256:ltsc2022',
    'nginx:1.25',
    'busybox',
    'ghcr.io/org/tool:windows-1809',
  ];
  for (const image of images) {
    const ref = image.toLowerCase().split('@')[0];
    assert.equal(re.test(ref), windowsImageEvidence(image) !== undefined, image);
  }
});

test('generatePolicies: the rules asked, the action on the bindings, system namespaces excluded unless asked', () => {
  const all = generatePolicies({ action: 'Audit', version: '1.2.3' });
  assert.deepEqual(
    all.map((o) => `${o.kind}/${String(o.metadata.name)}`),
    ['pods', 'workloads', 'cronjobs'].flatMap((s) => [
      `ValidatingAdmissionPolicy/kube-windows-${s}`,
      `ValidatingAdmissionPolicyBinding/kube-windows-${s}`,
    ]),
  );
  const spec = (o: (typeof all)[number]) => o.spec as Record<string, unknown>;
  assert.deepEqual(spec(all[1]).validationActions, ['Audit']);
  assert.deepEqual(
    (spec(all[0]).matchConditions as { name: string }[]).map((c) => c.name),
    ['not-a-system-namespace', 'may-concern-windows'],
    'pods: CREATE only, so no update condition',
  );
  assert.deepEqual(
    (spec(all[2]).matchConditions as { name: string }[]).map((c) => c.name),
    ['not-a-system-namespace', 'pod-template-created-or-changed', 'may-concern-windows'],
  );
  const some = generatePolicies({
    action: 'Deny',
    version: '1.2.3',
    rules: ['WIN055'],
    includeSystemNamespaces: true,
    openshift: true,
  });
  assert.equal(some.length, 8, 'DeploymentConfigs on OpenShift');
  assert.equal((spec(some[0]).validations as unknown[]).length, 1);
  assert.deepEqual(
    (spec(some[0]).matchConditions as { name: string }[]).map((c) => c.name),
    ['may-concern-windows'],
  );
  const variableNames = (o: (typeof all)[number]) => (spec(o).variables as { name: string }[]).map((v) => v.name);
  assert.ok(variableNames(some[0]).includes('anyHostProcess'), 'WIN055 reads HostProcess membership');
  const noHostProcess = generatePolicies({ action: 'Warn', version: '1', rules: ['WIN051'] });
  assert.ok(!variableNames(noHostProcess[0]).includes('anyHostProcess'), 'only the variables the rules read');
  assert.throws(
    () => generatePolicies({ action: 'Deny', version: '1', rules: ['WIN001'] }),
    /WIN001 cannot be enforced/,
  );
});

test('parseNamespaceSelector: kubectl -l syntax to a LabelSelector, and one-line refusals', () => {
  assert.deepEqual(parseNamespaceSelector('env=prod, tier in (a, b),team!=x,!legacy,owner'), {
    matchLabels: { env: 'prod' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['a', 'b'] },
      { key: 'team', operator: 'NotIn', values: ['x'] },
      { key: 'legacy', operator: 'DoesNotExist' },
      { key: 'owner', operator: 'Exists' },
    ],
  });
  assert.deepEqual(parseNamespaceSelector('example.com/zone==eu,x notin (a)'), {
    matchLabels: { 'example.com/zone': 'eu' },
    matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['a'] }],
  });
  for (const [text, why] of [
    ['', /it is empty/],
    ['a=b,,c=d', /an empty requirement/],
    ['env in (a', /a "\(" without its "\)"/],
    ['env in a)', /a "\)" without its "\("/],
    ['x>1', /not < or >/],
    ['-bad=x', /the key "-bad"/],
    ['a/b/c=x', /more than one "\/"/],
    ['env=a b', /is not key=value/],
    ['env=-x', /the value "-x"/],
    ['env=a,env=b', /asked to equal two values/],
    ['env in ()', /lists no values/],
  ] as const) {
    const r = parseNamespaceSelector(text);
    assert.ok('error' in r, text);
    assert.match(r.error, /^The namespace selector ".*" does not parse: /, text);
    assert.match(r.error, why, text);
  }
});

test('resolvePolicyRequest: rules by id in any case, repeated or comma-separated, actions in any case', () => {
  const r = resolvePolicyRequest({ rules: ['win040,WIN055', 'WIN040'], action: 'deny', version: '1' });
  assert.ok(!('error' in r));
  assert.deepEqual(r.rules, ['WIN040', 'WIN055']);
  assert.equal(r.action, 'Deny');
  const d = resolvePolicyRequest({ version: '1' });
  assert.ok(!('error' in d));
  assert.equal(d.action, 'Warn');
  assert.equal(d.rules, undefined, 'all of them');
  const bad = resolvePolicyRequest({ rules: ['YAML001'], version: '1' });
  assert.ok('error' in bad);
  assert.match(
    bad.error,
    /YAML001 cannot be enforced at admission: not about a pod or pod template \(about the YAML text itself\)/,
  );
});

const obj = (kind: string, name: string, spec: unknown, version = '1.0.0') => ({
  kind,
  metadata: {
    name,
    labels: { 'app.kubernetes.io/managed-by': 'kube-windows' },
    annotations: { 'kube-windows.io/version': version },
  },
  spec,
});

test('policyChanges: create, update with a diff, unchanged, and delete what is no longer part of the set', () => {
  const installed = [obj('P', 'a', { x: 1 }), obj('P', 'b', { x: 1 }, '0.9.0'), obj('P', 'old', {})];
  const wanted = [obj('P', 'a', { x: 1 }), obj('P', 'b', { x: 2 }), obj('P', 'c', {})];
  const changes = policyChanges(installed, wanted, wanted);
  assert.deepEqual(
    changes.map((c) => `${c.change} ${c.name}`),
    ['unchanged a', 'update b', 'create c', 'delete old'],
  );
  assert.match(changes[1].diff ?? '', /^-.*kube-windows\.io\/version: 0\.9\.0$/m);
  assert.match(changes[1].diff ?? '', /^\+ {2}x: 2$/m);
});

test('compareVersions orders releases and pre-releases', () => {
  assert.equal(compareVersions('0.9.0', '0.10.0'), -1);
  assert.equal(compareVersions('1.0.0', '1.0.0'), 0);
  assert.equal(compareVersions('1.0.0-rc.1', '1.0.0'), -1);
  assert.equal(compareVersions('v2.0', '1.9.9'), 1);
});

test('policyStatusRows: action, rules, version against the CLI, missing bindings and type-checking warnings', () => {
  const policy = {
    metadata: {
      name: 'kube-windows-pods',
      annotations: { 'kube-windows.io/version': '0.1.0', 'kube-windows.io/rules': 'WIN040,WIN055' },
    },
    status: {
      typeChecking: {
        expressionWarnings: [
          { fieldRef: 'spec.validations[0].expression', warning: 'v1, Kind=Pod: ERROR: undefined field\nmore' },
        ],
      },
    },
  };
  const rows = policyStatusRows(
    [policy, { metadata: { name: 'kube-windows-cronjobs' } }],
    [
      {
        metadata: { name: 'kube-windows-pods' },
        spec: { policyName: 'kube-windows-pods', validationActions: ['Deny'] },
      },
      { metadata: { name: 'stray' }, spec: { policyName: 'gone' } },
    ],
    '0.2.0',
  );
  assert.deepEqual(
    rows.map((r) => [r.name, r.action, r.rules.join(','), r.age, r.problems]),
    [
      [
        'kube-windows-cronjobs',
        undefined,
        '',
        'unknown',
        ['no binding: the policy enforces nothing ("kube-windows policy apply" adds it)'],
      ],
      [
        'kube-windows-pods',
        'Deny',
        'WIN040,WIN055',
        'older',
        ['type checking: spec.validations[0].expression: v1, Kind=Pod: ERROR: undefined field'],
      ],
      [
        'stray',
        undefined,
        '',
        'unknown',
        ['binding to the missing policy gone: "kube-windows policy remove" cleans it up'],
      ],
    ],
  );
  assert.match(rows[1].versionNote, /older than this kube-windows 0\.2\.0/);
});

test("the exec rules' program patterns decide as WIN060 and WIN061 do, with JavaScript's lowercase and whitespace", () => {
  // RE2's \x{…} is JavaScript's \u{…} under the u flag; the rest of the patterns reads the same in both.
  const js = (re2: string) => new RegExp(re2.replace(/\\x\{/g, '\\u{'), 'u');
  const posix = js(EXEC_PROGRAM_PATTERNS.posix);
  const windowsPowerShell = js(EXEC_PROGRAM_PATTERNS.windowsPowerShell);
  const pwsh = js(EXEC_PROGRAM_PATTERNS.pwsh);
  const programs = [
    'sh',
    'sh -c x',
    ' BASH -c true',
    '\u212Ash',
    '\u017Fh',
    '\u00A0sh',
    '\u3000/BIN/sh',
    '/usr/local/bin/app',
    '/usr/local/bin/',
    '/bin',
    'shell',
    'cmd /c x',
    'powershell -Command x',
    'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\PowerShell.exe',
    'POWERSHELL.EXE',
    'powershell.exe.bak',
    'pwsh',
    'C:\\Tools\\PWSH.EXE\u2003-File',
    '/opt/microsoft/powershell/7/pwsh',
    'C:\\Program Files\\PowerShell\\7\\pwsh.exe',
    '',
    '   ',
  ];
  const pod = (program: string, image: string) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        os: { name: 'windows' },
        nodeSelector: { 'kubernetes.io/os': 'windows' },
        containers: [{ name: 'c', image, command: [program] }],
      },
    });
  for (const program of programs) {
    assert.equal(
      ids(pod(program, 'mcr.microsoft.com/windows/servercore:ltsc2022')).includes('WIN060'),
      posix.test(program),
      `WIN060 ${JSON.stringify(program)}`,
    );
    // On the bare Nano Server image WIN061 speaks of either; on another Nano Server image of Windows PowerShell only.
    assert.equal(
      ids(pod(program, 'mcr.microsoft.com/windows/nanoserver:ltsc2022')).includes('WIN061'),
      windowsPowerShell.test(program) || pwsh.test(program),
      `WIN061 bare ${JSON.stringify(program)}`,
    );
    assert.equal(
      ids(pod(program, 'example.com/app:nanoserver')).includes('WIN061'),
      windowsPowerShell.test(program),
      `WIN061 ${JSON.stringify(program)}`,
    );
  }
});

test('the cost cuts: a pre-check on object alone, sentences built only on failure, no list built to decide', () => {
  const all = generatePolicies({ action: 'Deny', version: '1' });
  for (const o of all.filter((x) => x.kind === 'ValidatingAdmissionPolicy')) {
    const spec = o.spec as {
      matchConditions: { name: string; expression: string }[];
      validations: { expression: string; messageExpression: string }[];
    };
    const pre = spec.matchConditions.find((c) => c.name === 'may-concern-windows');
    assert.ok(pre, `${String(o.metadata.name)}: the pre-check`);
    // A match condition has no variables: the pre-check reads the object, and spec.os and the image first-class.
    assert.doesNotMatch(pre.expression, /variables\./);
    assert.match(
      pre.expression,
      /^has\(object\.spec(\.template\.spec|\.jobTemplate\.spec\.template\.spec)?\.os\) \|\| /,
    );
    assert.ok(pre.expression.includes(windowsImage('c.image')), 'the Windows image pattern');
    for (const x of spec.validations) {
      // Every messageExpression runs on every request: it builds the sentence only when the validation failed.
      assert.ok(x.messageExpression.startsWith(`(${x.expression}) ? '' : `), x.messageExpression.slice(0, 80));
      // The validations decide on conditions: no field path (a string sum with '.…') is built to decide.
      assert.doesNotMatch(x.expression, /\+ '\.(securityContext|hostNetwork|dnsPolicy|volumeDevices)/);
    }
    const exec = spec.validations.filter((x) =>
      /^WIN06[01]: /.test(/'(WIN\d+: )'/.exec(x.messageExpression)?.[1] ?? ''),
    );
    assert.equal(exec.length, 2);
    for (const x of exec) assert.doesNotMatch(x.expression, /variables\.exec/, 'the exec rows are the message’s only');
  }
});

test('nonEmpty: a sum of fieldIf lists becomes the OR of their conditions; any other list is sized', () => {
  const a = fieldIf('has(x.a)', "'p' + '.a'");
  const b = fieldIf("x.b == 'a + b'", "'p' + '.b'");
  assert.equal(nonEmpty(`(${a} + ${b})`), `(has(x.a)) || (x.b == 'a + b')`);
  assert.equal(nonEmpty(`(${a} + x.list.filter(y, y > 1))`), '(has(x.a)) || size(x.list.filter(y, y > 1)) > 0');
  assert.equal(nonEmpty("(['it\\'s + not'])"), "size(['it\\'s + not']) > 0");
});
