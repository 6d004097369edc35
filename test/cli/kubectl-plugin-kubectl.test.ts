// `kubectl windows …` as users run it: a real kubectl (k8s.io/kubernetes/cmd/kubectl of the release the
// test API server comes from, built once by scripts/kubectl.mjs and cached) finds kubectl-windows on the
// PATH, installed from the packed tarball (`npm pack` → `npm install -g --prefix`), and runs it against
// the real API server. kubectl is also the oracle: its own `get nodes` output, its `config` commands
// (which write the kubeconfigs used here) and its error for an unknown context.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { load } from 'js-yaml';
import { windowsNode, linuxNode } from '../support/kube-seed';
import {
  CONTEXT_ADMIN,
  ensureNamespace,
  ROOT,
  seed,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type SeedObject,
} from '../support/real-apiserver';
import { installPackedPackage } from '../support/packed-install';

const NS = uniqueName('kw-plugin');
const WIN_A = uniqueName('kw-plugin-win');
const WIN_B = uniqueName('kw-plugin-win');
const LINUX = uniqueName('kw-plugin-linux');
const OURS = new Set([WIN_A, WIN_B]);

let api: RealApiServer;
let dir: string;
let kubectlBinary: string;
let prefixBin: string;
/** A copy of the server's kubeconfig whose current context (made by kubectl config) has namespace NS. */
let nsKubeconfig: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command line as typed ("kubectl windows nodes -o json"), kubectl and the plugin found on PATH. */
function sh(line: string, env: Record<string, string> = {}): Result {
  const [cmd, ...args] = line.split(' ');
  const r = spawnSync(cmd === 'kubectl' ? kubectlBinary : join(prefixBin, cmd), args, {
    encoding: 'utf8',
    cwd: dir,
    env: {
      // Only what the plugin needs: the installed commands, and Node (`#!/usr/bin/env node`).
      PATH: [prefixBin, dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter),
      HOME: dir,
      NO_COLOR: '1',
      KUBECONFIG: api.kubeconfigPath,
      ...env,
    },
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

before(async () => {
  api = await useApiServer();
  dir = mkdtempSync(join(tmpdir(), 'kw-kubectl-plugin-'));
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'kubectl.mjs'), '--path'], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`scripts/kubectl.mjs could not provide kubectl:\n${built.stderr}`);
  kubectlBinary = built.stdout.trim();
  // Installed as users install it: the packed tarball into an empty prefix, no dev dependencies.
  prefixBin = installPackedPackage(dir);

  await ensureNamespace(api, NS);
  await seed(api, [
    windowsNode(WIN_A, { build: '10.0.17763', cordoned: true }) as SeedObject,
    windowsNode(WIN_B, { build: '10.0.20348' }) as SeedObject,
    linuxNode(LINUX) as SeedObject,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'iis', namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'iis' } },
        template: {
          metadata: { labels: { app: 'iis' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'windows' },
            containers: [
              {
                name: 'iis',
                image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
                securityContext: { privileged: true },
              },
            ],
          },
        },
      },
    } as SeedObject,
  ]);
  // kubectl itself writes the kubeconfig with a context whose namespace is NS, and makes it current.
  nsKubeconfig = join(dir, 'ns-kubeconfig');
  copyFileSync(api.kubeconfigPath, nsKubeconfig);
  for (const line of [
    `kubectl config set-context kw-ns --cluster=${CONTEXT_ADMIN} --user=kube-windows-admin --namespace=${NS}`,
    'kubectl config use-context kw-ns',
  ]) {
    const r = sh(line, { KUBECONFIG: nsKubeconfig });
    assert.equal(r.code, 0, r.stderr);
  }
});

after(async () => {
  for (const name of [WIN_A, WIN_B, LINUX]) await api.request(`/api/v1/nodes/${name}`, { method: 'DELETE' });
  await api.request(`/api/v1/namespaces/${NS}`, { method: 'DELETE' });
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('kubectl plugin list finds the installed kubectl-windows, with no warnings', () => {
  const r = sh('kubectl plugin list');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `The following compatible plugins are available:\n\n${join(prefixBin, 'kubectl-windows')}\n`);
  assert.equal(r.stderr, '', 'no warning (executable, not overshadowed, not a kubectl command)');
  const help = sh('kubectl windows --help');
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^ {2}kubectl windows nodes \[list\] /m);
});

test("kubectl completes the plugin's arguments through kubectl_complete-windows, installed beside it", () => {
  const commands = sh('kubectl __complete windows n');
  assert.equal(commands.stdout, 'nodes\n:4\n', commands.stderr);
  const contexts = sh('kubectl __complete windows nodes --context ');
  assert.equal(contexts.stdout, `${CONTEXT_ADMIN}\nkube-windows-apiserver-restricted\n:4\n`, contexts.stderr);
  const outputs = sh('kubectl __complete windows nodes -o ');
  assert.equal(outputs.stdout, 'wide\njson\nyaml\nname\n:4\n');
});

/** The items of a List that are this file's nodes. */
const ours = (list: { items: { metadata: { name: string } }[] }) => list.items.filter((n) => OURS.has(n.metadata.name));

test('kubectl windows nodes -o json lists what kubectl get nodes does for Windows, and what kube-windows nodes does', () => {
  const plugin = sh('kubectl windows nodes -o json');
  assert.equal(plugin.code, 0, plugin.stderr);
  const kubectl = sh('kubectl get nodes -l kubernetes.io/os=windows -o json');
  assert.equal(kubectl.code, 0, kubectl.stderr);
  const fromPlugin = JSON.parse(plugin.stdout) as { kind: string; items: { metadata: { name: string } }[] };
  assert.equal(fromPlugin.kind, 'List');
  assert.deepEqual(
    ours(fromPlugin).map((n) => n.metadata.name),
    [WIN_A, WIN_B].sort(),
  );
  assert.ok(!fromPlugin.items.some((n) => n.metadata.name === LINUX), 'no Linux node');
  assert.deepEqual(ours(fromPlugin), ours(JSON.parse(kubectl.stdout)), 'the same objects, kubectl -o json as printed');
  const cli = sh(`kube-windows nodes --context ${CONTEXT_ADMIN} -o json`);
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(ours(JSON.parse(cli.stdout)), ours(fromPlugin));
  const yaml = sh('kubectl windows nodes -o yaml');
  assert.deepEqual(ours(load(yaml.stdout) as typeof fromPlugin), ours(fromPlugin));
  const names = sh('kubectl windows nodes -o name');
  const kubectlNames = sh('kubectl get nodes -l kubernetes.io/os=windows -o name');
  const mine = (text: string) => text.split('\n').filter((l) => OURS.has(l.replace('node/', '')));
  assert.deepEqual(mine(names.stdout), mine(kubectlNames.stdout));
  assert.equal(mine(names.stdout).length, 2);
});

/** A table's cells by the header's column starts (kubectl's tab writer aligns every column). */
function cells(table: string): Map<string, Record<string, string>> {
  const [header, ...rows] = table.trimEnd().split('\n');
  const starts = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index ?? 0 }));
  const out = new Map<string, Record<string, string>>();
  for (const row of rows) {
    const record: Record<string, string> = {};
    starts.forEach((c, i) => (record[c.name] = row.slice(c.at, starts[i + 1]?.at ?? undefined).trim()));
    out.set(record.NAME, record);
  }
  return out;
}

test("kubectl windows nodes -o wide has kubectl's cells for kubectl's columns, and the Windows release", () => {
  const plugin = sh('kubectl windows nodes -o wide');
  assert.equal(plugin.code, 0, plugin.stderr);
  const kubectl = sh('kubectl get nodes -o wide');
  const mine = cells(plugin.stdout);
  const theirs = cells(kubectl.stdout);
  for (const name of OURS) {
    const { AGE: _a, WINDOWS, ...rest } = mine.get(name) ?? {};
    const { AGE: _b, ...expected } = theirs.get(name) ?? {};
    assert.deepEqual(rest, expected, name);
    assert.match(WINDOWS, name === WIN_A ? /^Windows Server 2019 \(10\.0\.17763\)$/ : /^Windows Server 2022 /);
  }
  assert.match(mine.get(WIN_A)?.STATUS ?? '', /,SchedulingDisabled$/);
});

test("the live check through kubectl: the context's namespace by default, -n, -A, --context, --kubeconfig", () => {
  // `kubectl windows check` without paths: the current context (kw-ns), its namespace (NS).
  const byDefault = sh('kubectl windows check', { KUBECONFIG: nsKubeconfig });
  assert.equal(byDefault.code, 1, byDefault.stderr);
  assert.match(byDefault.stdout, new RegExp(`Deployment/${NS}/iis\\n`));
  assert.match(byDefault.stdout, /WIN041/);
  assert.match(byDefault.stdout, /of context kw-ns/);
  const json = (r: Result) =>
    JSON.parse(r.stdout) as { objects: { namespace: string; name: string; findings: { ruleId: string }[] }[] };
  const ruleIds = (r: Result) =>
    json(r)
      .objects.filter((o) => o.namespace === NS)
      .map((o) => `${o.name}:${o.findings.map((f) => f.ruleId).join(',')}`);
  // The same as kube-windows check --context -n --format json.
  const explicit = sh(`kubectl windows check --context ${CONTEXT_ADMIN} -n ${NS} -o json`);
  const cli = sh(`kube-windows check --context ${CONTEXT_ADMIN} -n ${NS} --format json`);
  assert.equal(explicit.code, 1, explicit.stderr);
  assert.deepEqual(ruleIds(explicit), ruleIds(cli));
  assert.ok(ruleIds(explicit)[0].includes('WIN041'));
  // -A: every namespace, ours among them.
  const all = sh('kubectl windows check -A -o json');
  assert.equal(all.code, 1, all.stderr);
  assert.deepEqual(ruleIds(all), ruleIds(cli));
  // The docs' line (kube-windows-apiserver is CONTEXT_ADMIN): namespace default, as YAML.
  const yaml = sh('kubectl windows check --context kube-windows-apiserver -n default -o yaml');
  assert.ok(yaml.code === 0 || yaml.code === 1, yaml.stderr);
  assert.equal((load(yaml.stdout) as { kubernetesVersion: string }).kubernetesVersion, '1.35');
  // --kubeconfig FILE with KUBECONFIG pointing elsewhere: the file given wins.
  const named = sh(`kubectl windows check --kubeconfig ${nsKubeconfig} -o json`, { KUBECONFIG: join(dir, 'none') });
  assert.deepEqual(ruleIds(named), ruleIds(cli));
});

test('KUBECONFIG as a list is merged as kubectl merges it: the first current-context, clusters from the others', () => {
  // A file of its own with a context (and the current-context) over the cluster and user of the other file.
  const first = join(dir, 'first.yaml');
  writeFileSync(
    first,
    `apiVersion: v1\nkind: Config\ncontexts:\n- name: kw-merged\n  context: {cluster: ${CONTEXT_ADMIN}, user: kube-windows-admin, namespace: ${NS}}\ncurrent-context: kw-merged\n`,
  );
  const list = `${first}${delimiter}${api.kubeconfigPath}`;
  assert.equal(sh('kubectl config current-context', { KUBECONFIG: list }).stdout.trim(), 'kw-merged');
  const r = sh('kubectl windows check -o json', { KUBECONFIG: list });
  assert.equal(r.code, 1, r.stderr);
  assert.ok(
    (JSON.parse(r.stdout) as { objects: { namespace: string }[] }).objects.every((o) => o.namespace === NS),
    "the merged context's namespace",
  );
  const nodes = sh('kubectl windows nodes -o name', { KUBECONFIG: list });
  assert.ok(nodes.stdout.includes(`node/${WIN_B}\n`), nodes.stderr);
});

test('an unknown context fails as kubectl fails, on stderr, and the exit codes pass through kubectl', () => {
  const plugin = sh('kubectl windows nodes --context nope');
  const kubectl = sh('kubectl get nodes --context nope');
  assert.equal(plugin.code, 2);
  assert.equal(plugin.stdout, '');
  assert.match(kubectl.stderr, /context was not found for specified context: nope/);
  assert.equal(
    plugin.stderr,
    `error: context was not found for specified context: nope (the kubeconfig has: ${CONTEXT_ADMIN}, kube-windows-apiserver-restricted)\n`,
  );
  // A usage error of a command: said as `kubectl windows`, exit code 2 through kubectl.
  const usage = sh('kubectl windows nodes frobnicate');
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^kubectl windows: nodes takes list, .*try "kubectl windows nodes --help"\n$/);
  // Clean: no findings at or above --fail-on is 0.
  const clean = sh(`kubectl windows check -n ${NS} --fail-on never`);
  assert.equal(clean.code, 0, clean.stderr);
  // What kubectl itself refuses: flags before the plugin's name.
  const before = sh(`kubectl --context ${CONTEXT_ADMIN} windows nodes`);
  assert.notEqual(before.code, 0);
  assert.match(before.stderr, /flags cannot be placed before plugin name/);
  const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  assert.equal(packageJson.bin['kubectl-windows'], 'dist/kubectl-windows.js');
});
