// Parity of the generated admission policies with `check`, on the REAL kube-apiserver: the policies of
// `kube-windows policy export` are installed (bound to this suite's namespace only, so the other suites
// sharing the server are not touched), then every workload document of the corpus, the precision
// corpus, the examples and a few hundred fuzzed variants is created with a server-side dry run
// (fieldValidation=Strict: an unknown field is the API's refusal, not a policy's). With Warn, the
// warnings must name exactly the exported rules `check` reports on the document, each in one of the
// very sentences `check` wrote; with Deny, a document must be refused exactly when `check` reports an
// exported rule. Admission runs after the API's own validation, so documents the API refuses by itself
// never reach a policy: they are counted apart. Any disagreement fails with the document and both outcomes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadAll } from 'js-yaml';
import { generatePolicies } from '../../src/core/policy/generate';
import { RULE_CEL } from '../../src/core/policy/rule-cel';
import { POLICY_SHAPES } from '../../src/core/policy/shapes';
import { findings } from '../support/check';
import { fuzzedWorkloads } from '../support/policy-fuzz';
import {
  collectionPath,
  ensureNamespace,
  expectStatus,
  ROOT,
  uniqueName,
  useApiServer,
  type RealApiServer,
  type Status,
} from '../support/real-apiserver';

type Obj = Record<string, unknown> & { apiVersion: string; kind: string; metadata: Record<string, unknown> };

let api: RealApiServer;
let deploymentConfigsServed = false;
const NS = uniqueName('kw-parity');
const PREFIX = uniqueName('kw-parity');
const EXPORTED = new Set(RULE_CEL.map((r) => r.id));
const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

/** The generated set, renamed for this suite and bound to its namespace only. */
function policiesFor(action: 'Warn' | 'Deny'): Obj[] {
  return (generatePolicies({ action, version: '0.0.0-parity', openshift: api.openshift }) as Obj[]).map((o) => {
    const name = String(o.metadata.name).replace(/^kube-windows/, PREFIX);
    const spec = o.spec as Record<string, unknown>;
    if (o.kind === 'ValidatingAdmissionPolicyBinding')
      return {
        ...o,
        metadata: { ...o.metadata, name },
        spec: {
          ...spec,
          policyName: name,
          matchResources: { namespaceSelector: { matchLabels: { 'kw-parity': NS } } },
        },
      };
    // With Warn, a validation that always fails tells whether the policy ran at all (its pre-check let the object in).
    const validations = (spec.validations as unknown[]) ?? [];
    const probed =
      action === 'Warn' ? [...validations, { expression: 'false', message: `${PROBE}: the policy ran` }] : validations;
    return { ...o, metadata: { ...o.metadata, name }, spec: { ...spec, validations: probed } };
  });
}

const PROBE = 'KWPROBE0';

async function install(action: 'Warn' | 'Deny'): Promise<void> {
  for (const o of policiesFor(action)) {
    const base = o.kind === 'ValidatingAdmissionPolicy' ? VAP : VAPB;
    const name = String(o.metadata.name);
    const r = await api.request(`${base}/${name}`, {
      method: 'PATCH',
      body: o,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: 'kw-parity', force: true },
    });
    expectStatus(r, [200, 201], `applying ${o.kind} ${name}`);
  }
}

const SENTINEL_SPEC = {
  nodeSelector: { 'kubernetes.io/os': 'windows' },
  hostNetwork: true,
  restartPolicy: 'Never',
  containers: [{ name: 'c', image: 'mcr.microsoft.com/windows/servercore:ltsc2022' }],
};
const TEMPLATE = { metadata: { labels: { app: 'sentinel' } }, spec: SENTINEL_SPEC };
/** One object per policy (each binding syncs on its own): a Pod, a Job (pod-template owners), a CronJob. */
const SENTINELS: Obj[] = [
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sentinel' }, spec: SENTINEL_SPEC },
  { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'sentinel' }, spec: { template: TEMPLATE } },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'sentinel' },
    spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: TEMPLATE } } },
  },
];

interface Outcome {
  status: number;
  /** The policy ran (Warn: its probe warned): its pre-check did not skip the object. */
  ran: boolean;
  /** Rule id -> the sentences the policies gave (Warn), or the denial's rule (Deny). */
  rules: Map<string, string[]>;
  /** The API server's refusal, or a policy's evaluation error. */
  message?: string;
}

const POLICY_WORDS =
  /ValidatingAdmissionPolicy '([^']+)' with binding '[^']+'(?: denied request)?: (\w+\d+): ([\s\S]*)$/;

async function dryRun(doc: Obj): Promise<Outcome> {
  const path = await collectionPath(api, doc.apiVersion, doc.kind, NS);
  assert.ok(path, `the server serves ${doc.apiVersion} ${doc.kind}`);
  const r = await api.request<Status>(path, { body: doc, query: { dryRun: 'All', fieldValidation: 'Strict' } });
  const rules = new Map<string, string[]>();
  const texts = r.status < 300 ? r.warnings : [r.body.message ?? ''];
  for (const w of texts) {
    const m = POLICY_WORDS.exec(w);
    if (!m || !m[1].startsWith(PREFIX)) continue;
    rules.set(m[2], [...(rules.get(m[2]) ?? []), m[3]]);
  }
  const evaluationError = r.warnings.find((w) => w.includes(PREFIX) && !POLICY_WORDS.test(w));
  const ran = rules.delete(PROBE);
  return {
    status: r.status,
    ran,
    rules,
    ...(r.status >= 300 || evaluationError ? { message: evaluationError ?? r.body.message } : {}),
  };
}

/** Polls until the policies are in force (they take seconds to sync); never a blind sleep. */
async function inForce(expect: (o: Outcome) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const outcomes = await Promise.all(SENTINELS.map(dryRun));
    const o = outcomes.find((x) => !expect(x));
    if (!o) return;
    if (Date.now() > deadline)
      assert.fail(
        `the policies are not in force after 90 s (${what}): ${JSON.stringify([...o.rules])} ${o.message ?? ''}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

// ---------------------------------------------------------------------------------------------
// The documents

/** The kinds the policies match, by their apiVersion (a retired one, extensions/v1beta1, is not served). */
const KINDS = new Set(
  POLICY_SHAPES.flatMap((s) => s.resources.map((r) => `${r.group ? `${r.group}/` : ''}${r.version} ${r.kind}`)),
);

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...yamlFiles(path));
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

/** A document as the suite sends it: in its namespace, with a name, without what the server sets. */
function prepared(raw: Obj, name: string): Obj {
  const meta = raw.metadata ?? {};
  const labels = meta.labels && typeof meta.labels === 'object' ? meta.labels : undefined;
  const annotations = meta.annotations && typeof meta.annotations === 'object' ? meta.annotations : undefined;
  const { status: _status, ...rest } = raw;
  return {
    ...rest,
    metadata: { name, namespace: NS, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
  };
}

function documents(): { source: string; doc: Obj }[] {
  const out: { source: string; doc: Obj }[] = [];
  const dirs = ['test/fixtures/corpus', 'test/fixtures/precision-corpus', 'examples'];
  for (const dir of dirs)
    for (const file of yamlFiles(join(ROOT, dir))) {
      let docs: unknown[];
      try {
        docs = loadAll(readFileSync(file, 'utf8'));
      } catch {
        continue; // a template or broken YAML: not a document the API server would take
      }
      const items = docs.flatMap((d) =>
        d && typeof d === 'object' && Array.isArray((d as Obj).items) && String((d as Obj).kind).endsWith('List')
          ? ((d as Obj).items as unknown[])
          : [d],
      );
      items.forEach((d, i) => {
        if (!d || typeof d !== 'object') return;
        const o = d as Obj;
        if (typeof o.apiVersion !== 'string' || !KINDS.has(`${o.apiVersion} ${String(o.kind)}`)) return;
        // DeploymentConfigs are served by OpenShift's own API server, which the test server has not.
        if (o.kind === 'DeploymentConfig' && !deploymentConfigsServed) return;
        out.push({ source: `${file.slice(ROOT.length + 1)}#${i}`, doc: prepared(o, `doc-${out.length}`) });
      });
    }
  for (const [i, d] of fuzzedWorkloads(480).entries())
    out.push({ source: `fuzzed #${i}`, doc: prepared(d as Obj, `fuzz-${i}`) });
  return out;
}

/**
 * The exported rules `check` reports on the document as sent, with their sentences. Info findings are
 * advice, which no policy enforces (WIN057's defaultMode and Secret subPath notices).
 */
function checked(doc: Obj): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of findings(JSON.stringify(doc, null, 2)))
    if (EXPORTED.has(f.ruleId) && f.severity !== 'info') out.set(f.ruleId, [...(out.get(f.ruleId) ?? []), f.message]);
  return out;
}

const show = (m: Map<string, string[]>) => (m.size === 0 ? 'none' : [...m.keys()].sort().join(', '));

// ---------------------------------------------------------------------------------------------

interface VapStatus {
  startVapStatus(o: { kubeconfigPath: string }): Promise<{ stop(): Promise<void> }>;
}
let statusController: { stop(): Promise<void> } | undefined;

before(async () => {
  api = await useApiServer();
  await ensureNamespace(api, NS, { 'kw-parity': NS });
  deploymentConfigsServed = (await collectionPath(api, 'apps.openshift.io/v1', 'DeploymentConfig', NS)) !== undefined;
  await install('Warn');
  // The test API server runs no controller manager: the upstream status controller writes typeChecking.
  const script = (await import(pathToFileURL(join(ROOT, 'scripts', 'vap-status.mjs')).href)) as VapStatus;
  statusController = await script.startVapStatus({ kubeconfigPath: api.kubeconfigPath });
});

after(async () => {
  await statusController?.stop();
  for (const base of [VAPB, VAP])
    for (const shape of POLICY_SHAPES) await api?.request(`${base}/${PREFIX}-${shape.name}`, { method: 'DELETE' });
  await api?.stop();
});

const reached: { source: string; doc: Obj; check: Map<string, string[]> }[] = [];

test("every generated policy passes the API server's type checking (status.typeChecking has no warnings)", async () => {
  interface Policy {
    metadata: { name: string; generation?: number };
    status?: {
      observedGeneration?: number;
      typeChecking?: { expressionWarnings?: { fieldRef: string; warning: string }[] };
    };
  }
  const names = POLICY_SHAPES.filter((s) => !s.openshift || api.openshift).map((s) => `${PREFIX}-${s.name}`);
  // The status controller type-checks every validation against each matched kind's schema (six for the
  // workloads policy): on a loaded machine that takes minutes, not seconds. A bound on the wait, not a timing.
  const deadline = Date.now() + 300_000;
  for (const name of names) {
    for (;;) {
      const p = expectStatus(await api.request<Policy>(`${VAP}/${name}`), [200], `reading ${name}`);
      if (p.status?.typeChecking && p.status.observedGeneration === p.metadata.generation) {
        assert.deepEqual(p.status.typeChecking.expressionWarnings ?? [], [], `${name}: type checking warnings`);
        break;
      }
      if (Date.now() > deadline) assert.fail(`${name}: no type checking status after 300 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
});

test('Warn: admission warns of exactly the exported rules check reports, in the same sentences (≥ 300 documents)', async () => {
  await inForce((o) => o.status < 300 && o.rules.has('WIN055'), 'Warn');
  const disagreements: string[] = [];
  const agreedPerRule = new Map<string, number>();
  let refusedByApi = 0;
  let skipped = 0;
  const all = documents();
  for (const { source, doc } of all) {
    const outcome = await dryRun(doc);
    if (outcome.status >= 300) {
      refusedByApi++;
      continue;
    }
    const expected = checked(doc);
    reached.push({ source, doc, check: expected });
    const problems: string[] = [];
    if (!outcome.ran) skipped++;
    if (!outcome.ran && expected.size > 0) problems.push('the pre-check skipped the policy');
    if (outcome.message) problems.push(`policy evaluation failed: ${outcome.message}`);
    if (show(outcome.rules) !== show(expected)) problems.push('different rules');
    for (const [id, sentences] of outcome.rules) {
      const words = expected.get(id) ?? [];
      for (const s of sentences)
        if (!words.includes(s)) problems.push(`${id}'s admission sentence is not one of check's:\n      ${s}`);
    }
    if (problems.length > 0)
      disagreements.push(
        `${source} (${doc.kind}): ${problems.join('; ')}\n    admission: ${show(outcome.rules)}\n    check:     ${show(expected)} ${JSON.stringify([...expected.values()].flat())}\n    document:  ${JSON.stringify(doc)}`,
      );
    else for (const id of expected.keys()) agreedPerRule.set(id, (agreedPerRule.get(id) ?? 0) + 1);
  }
  const summary = `${reached.length} documents reached admission (${refusedByApi} of ${all.length} refused by the API server's own validation first; the pre-check skipped the policy on ${skipped}); ${disagreements.length} disagreements; per rule: ${[...agreedPerRule].map(([id, n]) => `${id} ${n}`).join(', ')}`;
  console.log(`admission parity (Warn): ${summary}`);
  assert.deepEqual(disagreements, [], `admission and check disagree:\n${disagreements.join('\n')}`);
  assert.ok(reached.length >= 300, `at least 300 documents reach admission: ${summary}`);
  // The corpus holds Linux workloads too: the policies' pre-check spares them every validation.
  assert.ok(skipped >= 20, `the pre-check skips the documents without Windows evidence: ${summary}`);
  for (const id of EXPORTED) assert.ok((agreedPerRule.get(id) ?? 0) > 0, `${id} fired on some document: ${summary}`);
});

test('Deny: admission refuses exactly the documents where check reports an exported rule', async () => {
  assert.ok(reached.length > 0, 'the Warn test ran first');
  await install('Deny');
  await inForce((o) => o.status === 422 && o.rules.has('WIN055'), 'Deny');
  const disagreements: string[] = [];
  let denied = 0;
  for (const { source, doc, check } of reached) {
    const outcome = await dryRun(doc);
    const refused = outcome.status >= 300;
    if (refused) denied++;
    const named = [...outcome.rules.keys()];
    if (
      refused !== check.size > 0 ||
      (refused && !named.every((id) => check.has(id))) ||
      (refused && named.length === 0)
    )
      disagreements.push(
        `${source} (${doc.kind}): admission ${refused ? `refused it (${outcome.message ?? named.join(', ')})` : 'accepted it'}, check reports ${show(check)}\n    document: ${JSON.stringify(doc)}`,
      );
  }
  console.log(
    `admission parity (Deny): ${denied} of ${reached.length} documents refused, ${disagreements.length} disagreements`,
  );
  assert.deepEqual(disagreements, [], `admission and check disagree:\n${disagreements.join('\n')}`);
});
