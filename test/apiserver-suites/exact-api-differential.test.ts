// The exact-API validator against the real API server of the same release, document by document
// (a differential test): every workload of the corpus (test/fixtures/corpus, and
// /work/shared/corpus read in place where it exists), examples/, the test fixtures, and fuzzed
// variants of the accepted ones (Windows-forbidden fields, bad names and labels, missing required
// fields, values outside an enum, unknown fields, …) is created with server-side dry run twice, with
// fieldValidation=Strict (kubectl's default) and Ignore, and validated by the module of that release
// (scripts/validator.mjs). The verdicts, the messages and every cause must be equal: 0
// disagreements. A document admission refuses (a 403: a plugin ran before validation) cannot be
// compared and is counted apart; so is one whose kind or version the release does not serve.
//
// The same documents also measure the gap between the rules and the API server's verdict, per rule:
// every error a rule says the API server gives (apiRejects) must quote a cause the validator gives
// for that document (gap 0), and the causes no rule of ours says are counted by field (printed, and
// written to out/exact-api-gap-<release>.json for docs/exact-api.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dump } from 'js-yaml';
import { loadManifest } from '../../src/core/manifest/document';
import { validatedKind } from '../../src/core/exact-api/kinds';
import { causeTexts, type ApiStatus, type ValidatorAnswer } from '../../src/core/exact-api/answer';
import { quotesCause } from '../../src/core/exact-api/quotes';
import { loadValidator, type Validator } from '../../src/shared/validator-runner';
import { checkText } from '../../src/core/rules/checker';
import { counted } from '../../src/core/plural';
import {
  collectionPath,
  ensureNamespace,
  ROOT,
  uniqueName,
  useApiServer,
  type RealApiServer,
} from '../support/real-apiserver';

interface ValidatorScript {
  ensureValidator(o: {
    release: string;
    log?: (l: string) => void;
  }): Promise<{ path: string; kubernetesVersion: string }>;
}
const script = <T>(name: string) => import(pathToFileURL(join(ROOT, 'scripts', name)).href) as Promise<T>;

interface Doc {
  /** Where it came from: `file#index`, or `fuzz:seed#n (mutations)`. */
  source: string;
  text: string;
  value: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// The documents

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...yamlFiles(path));
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

function documentsOf(files: string[]): Doc[] {
  const out: Doc[] = [];
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    for (const d of loadManifest(text).documents) {
      if (d.status !== 'ok' || !validatedKind(d.value)) continue;
      out.push({
        source: `${relative(ROOT, path)}#${d.index}`,
        text: d.text,
        value: d.value as Record<string, unknown>,
      });
    }
  }
  return out;
}

function corpus(): Doc[] {
  const files = [
    ...yamlFiles(join(ROOT, 'test', 'fixtures')),
    ...yamlFiles(join(ROOT, 'examples')),
    ...yamlFiles('/work/shared/corpus'),
  ];
  // The same text twice (the shared corpus is also a fixture) is sent once.
  const seen = new Set<string>();
  return documentsOf(files).filter((d) => !seen.has(d.text) && seen.add(d.text));
}

/** A small seeded generator (mulberry32): the same variants on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

function podSpecOf(o: Obj): Obj | undefined {
  const spec = obj(o.spec);
  switch (o.kind) {
    case 'Pod':
      return spec;
    case 'PodTemplate':
      return obj(obj(o.template).spec);
    case 'CronJob':
      return obj(obj(obj(obj(spec.jobTemplate).spec).template).spec);
    default:
      return obj(obj(spec.template).spec);
  }
}

const container = (pod: Obj): Obj => obj((pod.containers as unknown[] | undefined)?.[0]);
const sc = (o: Obj): Obj => (o.securityContext = obj(o.securityContext));

/** Each mutation changes one thing the API server's validation (or its strict decoding) has a say on. */
const MUTATIONS: [string, (o: Obj, pod: Obj) => void][] = [
  ['name with capitals', (o) => (obj(o.metadata).name = 'Bad_Name')],
  ['name of 300 characters', (o) => (obj(o.metadata).name = 'n'.repeat(300))],
  ['label key with a space', (o) => (obj(o.metadata).labels = { ...obj(obj(o.metadata).labels), 'bad key': 'x' })],
  ['label value too long', (o) => (obj(o.metadata).labels = { ...obj(obj(o.metadata).labels), ok: 'v'.repeat(70) })],
  ['no image', (_, p) => delete container(p).image],
  ['no container name', (_, p) => delete container(p).name],
  ['imagePullPolicy Sometimes', (_, p) => (container(p).imagePullPolicy = 'Sometimes')],
  ['restartPolicy Sometimes', (_, p) => (p.restartPolicy = 'Sometimes')],
  ['negative grace period', (_, p) => (p.terminationGracePeriodSeconds = -5)],
  ['duplicate container', (_, p) => (p.containers as unknown[]).push(structuredClone(container(p)))],
  ['port 70000', (_, p) => (container(p).ports = [{ containerPort: 70000 }])],
  ['port protocol HTTP', (_, p) => (container(p).ports = [{ containerPort: 80, protocol: 'HTTP' }])],
  ['windows pod', (_, p) => (p.os = { name: 'windows' })],
  ['linux pod', (_, p) => (p.os = { name: 'linux' })],
  ['os macos', (_, p) => (p.os = { name: 'macos' })],
  ['runAsUser', (_, p) => (sc(p).runAsUser = 1000)],
  ['seLinuxOptions', (_, p) => (sc(p).seLinuxOptions = { level: 's0:c1,c2' })],
  ['fsGroup', (_, p) => (sc(p).fsGroup = 2000)],
  ['sysctls', (_, p) => (sc(p).sysctls = [{ name: 'kernel.shm_rmid_forced', value: '0' }])],
  ['supplementalGroups []', (_, p) => (sc(p).supplementalGroups = [])],
  ['seccompProfile', (_, p) => (sc(p).seccompProfile = { type: 'RuntimeDefault' })],
  ['shareProcessNamespace false', (_, p) => (p.shareProcessNamespace = false)],
  ['hostUsers true', (_, p) => (p.hostUsers = true)],
  ['privileged', (_, p) => (sc(container(p)).privileged = true)],
  ['capabilities {}', (_, p) => (sc(container(p)).capabilities = {})],
  ['readOnlyRootFilesystem false', (_, p) => (sc(container(p)).readOnlyRootFilesystem = false)],
  ['allowPrivilegeEscalation false', (_, p) => (sc(container(p)).allowPrivilegeEscalation = false)],
  ['procMount', (_, p) => (sc(container(p)).procMount = 'Default')],
  ['container runAsGroup', (_, p) => (sc(container(p)).runAsGroup = 3000)],
  ['appArmorProfile', (_, p) => (sc(container(p)).appArmorProfile = { type: 'RuntimeDefault' })],
  [
    'AppArmor annotation',
    (o, p) => {
      const target = o.kind === 'Pod' ? o : obj(obj(o.spec).template);
      const meta = (target.metadata = obj(target.metadata));
      meta.annotations = {
        ...obj(meta.annotations),
        [`container.apparmor.security.beta.kubernetes.io/${String(container(p).name)}`]: 'runtime/default',
      };
    },
  ],
  ['hostProcess without hostNetwork', (_, p) => (sc(p).windowsOptions = { hostProcess: true })],
  [
    'hostNetwork with hostProcess',
    (_, p) => (
      (p.hostNetwork = true),
      (sc(p).windowsOptions = { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' })
    ),
  ],
  ['runAsUserName too long', (_, p) => (sc(p).windowsOptions = { runAsUserName: 'x'.repeat(300) })],
  ['gmsa spec without name', (_, p) => (sc(container(p)).windowsOptions = { gmsaCredentialSpec: '{}' })],
  ['requests over limits', (_, p) => (container(p).resources = { requests: { cpu: '2' }, limits: { cpu: '1' } })],
  ['pod-level resources', (_, p) => (p.resources = { limits: { cpu: '1', memory: '1Gi' } })],
  [
    'Bidirectional mount',
    (_, p) => {
      p.volumes = [...((p.volumes as unknown[]) ?? []), { name: 'fuzz-vol', emptyDir: {} }];
      container(p).volumeMounts = [{ name: 'fuzz-vol', mountPath: 'C:\\data', mountPropagation: 'Bidirectional' }];
    },
  ],
  ['dnsPolicy None without dnsConfig', (_, p) => (p.dnsPolicy = 'None')],
  ['env name 1BAD', (_, p) => (container(p).env = [{ name: '1BAD', value: 'x' }])],
  ['nodeSelector bad key', (_, p) => (p.nodeSelector = { ...obj(p.nodeSelector), 'bad key!': 'x' })],
  ['toleration Exists with value', (_, p) => (p.tolerations = [{ key: 'k', operator: 'Exists', value: 'x' }])],
  ['unknown container field', (_, p) => (container(p).imagePullPolicyy = 'Always')],
  ['unknown spec field', (_, p) => (p.hostNetworkk = true)],
  ['negative replicas', (o) => o.kind !== 'Pod' && (obj(o.spec).replicas = -1)],
  ['stop signal SIGINT', (_, p) => (container(p).lifecycle = { stopSignal: 'SIGINT' })],
  ['hostPID', (_, p) => (p.hostPID = true)],
  [
    'hostPort differs with hostNetwork',
    (_, p) => ((p.hostNetwork = true), (container(p).ports = [{ containerPort: 80, hostPort: 81 }])),
  ],
];

/** `count` variants of the accepted documents, each with one to three mutations. */
function fuzzed(accepted: Doc[], count: number, seed: number): Doc[] {
  const next = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const out: Doc[] = [];
  for (let n = 0; n < count && accepted.length > 0; n++) {
    const base = pick(accepted);
    const value = structuredClone(base.value);
    const pod = podSpecOf(value);
    if (!pod || !Array.isArray(pod.containers) || pod.containers.length === 0) continue;
    const names: string[] = [];
    for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
      const [name, mutate] = pick(MUTATIONS);
      mutate(value, pod);
      names.push(name);
    }
    out.push({ source: `fuzz:${base.source}#${n} (${names.join(', ')})`, text: dump(value, { lineWidth: -1 }), value });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Comparing

interface Outcome {
  status: number;
  message?: string;
  causes: string[];
}

const outcomeOfServer = (status: number, body: unknown): Outcome => {
  const s = (typeof body === 'object' && body ? body : {}) as ApiStatus;
  return status < 300 ? { status: 201, causes: [] } : { status, message: s.message, causes: causeTexts(s) };
};
const outcomeOf = (s: ApiStatus | undefined): Outcome =>
  s ? { status: s.code ?? 0, message: s.message, causes: causeTexts(s) } : { status: 201, causes: [] };

const show = (o: Outcome) => `${o.status} ${o.message ?? ''}`;

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

/** The cause's field without indexes and keys, with its type: how the gap table groups causes. */
const causeKey = (cause: string) =>
  cause
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/^([^:]*: [A-Za-z ]+?)(:.*)?$/, '$1')
    .slice(0, 140);

/** The releases the harness builds (test/apiserver and each test/apiserver-1.N), read from their go.mod. */
function harnessReleases(): string[] {
  const found = new Set<string>();
  for (const dir of readdirSync(join(ROOT, 'test'))) {
    const goMod = join(ROOT, 'test', dir, 'go.mod');
    if (!/^apiserver(-\d+\.\d+)?$/.test(dir) || !existsSync(goMod)) continue;
    const m = /^\s*k8s\.io\/kubernetes\s+v(\d+\.\d+)\./m.exec(readFileSync(goMod, 'utf8'));
    if (m) found.add(m[1]);
  }
  return [...found].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
}

for (const release of harnessReleases()) {
  describe(`Kubernetes ${release}: the validator's verdict equals the real API server's`, () => {
    let api: RealApiServer;
    let validator: Validator;
    const ns = uniqueName(`kw-exact-${release.replace('.', '-')}`);
    const namespaces = new Set<string>();
    const counts = { documents: 0, fuzzed: 0, compared: 0, accepted: 0, refused: 0, admission: 0, notServed: 0 };
    const disagreements: string[] = [];
    const docs = corpus();
    const answers = new Map<Doc, ValidatorAnswer>();

    before(async () => {
      const built = await (await script<ValidatorScript>('validator.mjs')).ensureValidator({ release });
      validator = await loadValidator(built.path, built.kubernetesVersion);
      api = await useApiServer({ release });
      await ensureNamespace(api, ns);
    });
    after(async () => {
      await api?.stop();
    });

    /** What admission needs so that it lets the document reach validation: its namespace, accounts, priority classes. */
    async function prepare(doc: Doc): Promise<string> {
      const meta = obj(doc.value.metadata);
      const namespace =
        typeof meta.namespace === 'string' && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(meta.namespace)
          ? meta.namespace
          : ns;
      if (!namespaces.has(namespace)) {
        namespaces.add(namespace);
        await ensureNamespace(api, namespace);
      }
      const pod = podSpecOf(doc.value);
      const account = pod?.serviceAccountName ?? pod?.serviceAccount;
      if (doc.value.kind === 'Pod' && typeof account === 'string' && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(account))
        await api.request(`/api/v1/namespaces/${namespace}/serviceaccounts`, {
          body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account } },
        });
      const priority = pod?.priorityClassName;
      if (
        typeof priority === 'string' &&
        !priority.startsWith('system-') &&
        /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(priority)
      )
        await api.request('/apis/scheduling.k8s.io/v1/priorityclasses', {
          body: {
            apiVersion: 'scheduling.k8s.io/v1',
            kind: 'PriorityClass',
            metadata: { name: priority },
            value: 1000,
          },
        });
      return namespace;
    }

    async function compare(doc: Doc): Promise<void> {
      const namespace = await prepare(doc);
      const answer = validator.validate(doc.text, namespace);
      answers.set(doc, answer);
      const path = await collectionPath(api, String(doc.value.apiVersion), String(doc.value.kind), namespace);
      if (!path || answer.verdict === 'unsupported') {
        counts.notServed++;
        if (Boolean(path) !== (answer.verdict !== 'unsupported'))
          disagreements.push(
            `${doc.source}: served by the server: ${Boolean(path)}; validator: ${answer.verdict} ${answer.reason ?? ''}`,
          );
        return;
      }
      const send = (fieldValidation: string) =>
        api.request(path, {
          body: doc.text,
          contentType: 'application/yaml',
          query: { dryRun: 'All', fieldValidation },
        });
      const [strict, lenient] = await Promise.all([send('Strict'), send('Ignore')]);
      if (strict.status === 403 || lenient.status === 403) {
        counts.admission++;
        return;
      }
      counts.compared++;
      if (answer.verdict === 'valid') counts.accepted++;
      else counts.refused++;
      const pairs: [string, Outcome, Outcome][] = [
        ['strict', outcomeOfServer(strict.status, strict.body), outcomeOf(answer.strict ?? answer.status)],
        ['ignore', outcomeOfServer(lenient.status, lenient.body), outcomeOf(answer.status)],
      ];
      for (const [mode, server, ours] of pairs) {
        if (
          server.status !== ours.status ||
          server.message !== ours.message ||
          server.causes.join('\n') !== ours.causes.join('\n')
        )
          disagreements.push(`${doc.source} (${mode}):\n    server:    ${show(server)}\n    validator: ${show(ours)}`);
      }
    }

    test('every document of the corpus, examples and fixtures: the same verdict and the same words', async () => {
      counts.documents = docs.length;
      assert.ok(docs.length > 100, `the corpus has workloads (${docs.length})`);
      await inBatches(docs, 8, compare);
      assert.deepEqual(disagreements, [], `${counted(disagreements.length, 'disagreement')}`);
      assert.ok(counts.compared > 100 && counts.refused > 0 && counts.accepted > 0, JSON.stringify(counts));
    });

    test('fuzzed variants of the accepted documents: the same verdict and the same words', async () => {
      const accepted = docs.filter((d) => answers.get(d)?.verdict === 'valid');
      const variants = fuzzed(accepted, 300, 31 + Number(release.split('.')[1]));
      counts.fuzzed = variants.length;
      const before = disagreements.length;
      await inBatches(variants, 8, compare);
      docs.push(...variants);
      assert.deepEqual(disagreements.slice(before), [], `${counted(disagreements.length - before, 'disagreement')}`);
      assert.ok(variants.filter((v) => answers.get(v)?.verdict === 'invalid').length > variants.length / 2);
      process.stdout.write(`# Kubernetes ${release}: ${JSON.stringify(counts)}, 0 disagreements\n`);
    });

    test("the rules against the validator: every API rejection a rule reports quotes the server's cause (gap 0); the causes no rule says, counted", () => {
      const perRule = new Map<string, { reported: number; confirmed: number; unconfirmed: string[] }>();
      const apiOnly = new Map<string, number>();
      for (const doc of docs) {
        const answer = answers.get(doc);
        if (!answer || answer.verdict === 'unsupported') continue;
        const causes = [...causeTexts(answer.status), ...causeTexts(answer.strict)];
        const found = checkText(doc.text, { kubernetesVersion: release, fixes: false }).findings;
        for (const f of found) {
          if (f.apiRejects !== true) continue;
          const row = perRule.get(f.ruleId) ?? { reported: 0, confirmed: 0, unconfirmed: [] };
          perRule.set(f.ruleId, row);
          row.reported++;
          if (causes.some((c) => quotesCause(f.message, c))) row.confirmed++;
          else
            row.unconfirmed.push(
              `${doc.source}: ${f.message.slice(0, 200)}\n      validator: ${causes.join(' | ').slice(0, 400) || '(accepted)'}`,
            );
        }
        for (const c of causeTexts(answer.status))
          if (!found.some((f) => f.severity === 'error' && quotesCause(f.message, c)))
            apiOnly.set(causeKey(c), (apiOnly.get(causeKey(c)) ?? 0) + 1);
      }
      const table = [...perRule.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([id, r]) => ({ id, reported: r.reported, confirmed: r.confirmed, gap: r.unconfirmed.length }));
      const windowsOnly = [...apiOnly.entries()].filter(([k]) => /windows/i.test(k));
      mkdirSync(join(ROOT, 'out'), { recursive: true });
      writeFileSync(
        join(ROOT, 'out', `exact-api-gap-${release}.json`),
        `${JSON.stringify({ release, counts, rules: table, apiOnly: Object.fromEntries([...apiOnly.entries()].sort((a, b) => b[1] - a[1])) }, null, 2)}\n`,
      );
      process.stdout.write(
        `# Kubernetes ${release}: ${counted(table.length, 'rule')} reported API rejections, gap ${table.reduce((n, r) => n + r.gap, 0)}; ${counted(apiOnly.size, 'kind')} of cause only the validator gives (${windowsOnly.length} about Windows)\n`,
      );
      const gaps = [...perRule.entries()].flatMap(([id, r]) => r.unconfirmed.map((u) => `${id} ${u}`));
      assert.deepEqual(gaps.slice(0, 20), [], `${counted(gaps.length, 'rule finding')} the validator does not confirm`);
      assert.ok(table.length > 5, 'rules that quote the API reported on these documents');
    });
  });
}
