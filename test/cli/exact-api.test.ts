// `check --exact-api` from the CLI as people install it (npm pack, then npm install -g of the
// tarball into an empty prefix), with the validator installed offline the three ways
// docs/exact-api.md gives: a file named with --validator, a folder in KUBE_WINDOWS_VALIDATOR, and a
// copy in the user's data folder. The modules are the real ones (scripts/validator.mjs, cached).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_KUBERNETES_RELEASE } from '../../src/core/kubernetes-release';
import { installPackedPackage } from '../support/packed-install';

const ROOT = resolve(__dirname, '..', '..', '..');

interface ValidatorScript {
  ensureValidator(o: { release: string }): Promise<{ compressed: string; kubernetesVersion: string }>;
  releases?: never;
}
const validators = () => import(pathToFileURL(join(ROOT, 'scripts', 'validator.mjs')).href) as Promise<ValidatorScript>;

let dir: string;
let bin: string;
/** The pinned release's module (1.35) and the default release's (the one the rules decide by). */
let pinned: { compressed: string; kubernetesVersion: string };
let newest: { compressed: string; kubernetesVersion: string };

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: Web_Frontend
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows}
      securityContext: {runAsUser: 1000}
      containers:
      - name: web
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
        imagePullPolicy: Sometimes
        imagePullPolicyy: Always
        resources:
          limits: {cpu: "1", memory: 1Gi}
          requests: {cpu: "1", memory: 1Gi}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: b}
`;

before(async () => {
  const script = await validators();
  pinned = await script.ensureValidator({ release: '1.35' });
  newest = await script.ensureValidator({ release: DEFAULT_KUBERNETES_RELEASE });
  dir = mkdtempSync(join(tmpdir(), 'kw-exact-api-'));
  bin = join(installPackedPackage(dir), 'kube-windows');
  writeFileSync(join(dir, 'web.yaml'), MANIFEST);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The packed CLI with a home of its own (no validator in the user's data folder unless the test puts one). */
function kw(args: string[], env: Record<string, string> = {}) {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  return spawnSync(bin, args, {
    encoding: 'utf8',
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', XDG_DATA_HOME: join(home, 'data'), ...env },
  });
}

test("the packed CLI with --validator FILE: the API server's refusals in its words, ours merged, one finding per cause", () => {
  const r = kw(['check', '--exact-api=1.35', '--validator', pinned.compressed, 'web.yaml']);
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stderr, '', 'nothing on standard error (no WASI warning)');
  const lines = r.stdout.split('\n');
  const api = (id: string) => lines.filter((l) => l.includes(` ${id} `));
  assert.equal(api('API001').length, 2, r.stdout);
  assert.ok(
    lines.some((l) =>
      l.includes(
        'API001 metadata.name: Invalid value: "Web_Frontend": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters',
      ),
    ),
    r.stdout,
  );
  assert.ok(
    lines.some((l) =>
      l.includes(
        'API001 spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      ),
    ),
  );
  assert.ok(
    lines.some((l) =>
      l.includes('API002 strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolicyy"'),
    ),
  );
  // runAsUser on a Windows pod: the API server says it, and so does WIN001, in the same words: once.
  assert.equal(lines.filter((l) => l.includes('runAsUser')).length, 1, r.stdout);
  assert.equal(api('WIN001').length, 1);
});

test('the release the rules decide by is the default; a validator copied to the data folder is found; JSON names the rules', () => {
  const data = join(dir, 'home', 'data', 'kube-windows', 'validator');
  mkdirSync(data, { recursive: true });
  copyFileSync(newest.compressed, join(data, basename(newest.compressed)));
  try {
    const r = kw(['check', '--exact-api', '--format', 'json', 'web.yaml']);
    assert.equal(r.status, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { files: { findings: { ruleId: string; message: string }[] }[] };
    const ids = out.files.flatMap((f) => f.findings.map((x) => x.ruleId));
    assert.deepEqual(
      ids.filter((id) => id.startsWith('API')),
      ['API001', 'API001', 'API002'],
    );
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
});

test('no validator for the release: one line that names the release and what is installed, exit 2', () => {
  const only = join(dir, 'only-pinned');
  mkdirSync(only, { recursive: true });
  copyFileSync(pinned.compressed, join(only, basename(pinned.compressed)));
  const r = kw(['check', '--exact-api=1.37', 'web.yaml'], { KUBE_WINDOWS_VALIDATOR: only });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  const text = r.stderr.trim();
  assert.equal(text.split('\n').length, 1, text);
  assert.match(text, /no validator for Kubernetes 1\.37; installed: 1\.35 \(/);
  const none = kw(['check', '--exact-api', 'web.yaml']);
  assert.equal(none.status, 2);
  assert.match(
    none.stderr,
    new RegExp(
      `no validator for Kubernetes ${DEFAULT_KUBERNETES_RELEASE.replace('.', '\\.')}; none is installed \\(looked in `,
    ),
  );
  const wrong = kw(['check', '--exact-api', '--validator', join(dir, 'web.yaml'), 'web.yaml']);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /--validator .*web\.yaml is not a validator module/);
  const conflict = kw(['check', '--exact-api=1.35', '--kubernetes-version', '1.37', 'web.yaml']);
  assert.equal(conflict.status, 2);
  assert.match(conflict.stderr, /--exact-api=1\.35 contradicts --kubernetes-version 1\.37/);
});

test('a kustomize patch (a partial object) is not sent; the base it patches is', () => {
  const project = join(dir, 'kustomize');
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'kustomization.yaml'),
    'resources: [web.yaml]\npatchesStrategicMerge: [windows-patch.yaml]\n',
  );
  writeFileSync(join(project, 'web.yaml'), MANIFEST);
  writeFileSync(
    join(project, 'windows-patch.yaml'),
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: Web_Frontend}\nspec:\n  template:\n    spec:\n      nodeSelector: {kubernetes.io/os: windows}\n',
  );
  const r = kw(['check', '--exact-api=1.35', '--validator', pinned.compressed, project]);
  assert.equal(r.status, 1, r.stderr);
  const api = r.stdout.split('\n').filter((l) => / API00\d /.test(l));
  assert.ok(api.length >= 3, r.stdout);
  assert.ok(
    api.every((l) => l.includes('web.yaml:')),
    r.stdout,
  );
});

test('with --fix the verdict is on the fixed file, and placed in it', () => {
  const file = join(dir, 'fixed.yaml');
  writeFileSync(file, MANIFEST);
  const r = kw(['check', '--fix', '--exact-api=1.35', '--validator', pinned.compressed, 'fixed.yaml']);
  assert.equal(r.status, 1, r.stderr);
  const fixed = readFileSync(file, 'utf8').split('\n');
  assert.ok(!fixed.some((l) => l.includes('runAsUser')), 'WIN001 was fixed');
  const pull = / API001 spec\.template\.spec\.containers\[0\]\.imagePullPolicy/;
  const line = r.stdout.split('\n').find((l) => pull.test(l));
  assert.ok(line, r.stdout);
  const at = Number(/^fixed\.yaml:(\d+):/.exec(line)?.[1]);
  assert.match(fixed[at - 1], /imagePullPolicy: Sometimes/);
  assert.ok(!r.stdout.includes('runAsUser'), r.stdout);
});
