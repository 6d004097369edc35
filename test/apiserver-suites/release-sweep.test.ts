// The release sweep: on each Kubernetes release the harness builds (the pinned 1.35 and 1.37, each
// with the feature gates it has on by default), every field of PodSpec, PodSecurityContext,
// SecurityContext and Container, read from that server's own OpenAPI (/openapi/v3, core/v1), is set
// on a pod (booleans both ways, every enum value, else a valid sample) and sent with server-side dry
// run three ways: as a declared Windows pod (spec.os.name: windows), as an inferred one (no
// spec.os), and as a Linux pod (the control: a value no variant accepts is a bad sample, not a
// finding). The engine, told the server's release, must report an error that quotes each cause the
// server rejects the Windows pods with, and no error the server does not give: exactly, both ways.
// A field a future release starts to forbid fails here until a rule covers it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { checkText, type CheckOptions } from '../../src/core/rules/checker';
import type { Finding } from '../../src/core/rules/types';
import { counted } from '../../src/core/plural';
import { quotesCause } from '../support/api-quotes';
import {
  NESTED,
  OPAQUE,
  SWEEP_PRIORITY_CLASS,
  SWEEP_RUNTIME_CLASS,
  SWEEP_RUNTIME_OVERHEAD,
  sweepProbes,
  type OpenApiDocument,
  type PodSpecObject,
  type Probe,
} from '../support/pod-field-sweep';
import {
  ensureNamespace,
  ROOT,
  uniqueName,
  useApiServer,
  type ApiResponse,
  type RealApiServer,
  type Status,
} from '../support/real-apiserver';

/** The releases scripts/apiserver.mjs builds: test/apiserver (pinned) and each test/apiserver-1.N. */
function harnessReleases(): string[] {
  const minor = (goMod: string) => /^\s*k8s\.io\/kubernetes\s+v(\d+\.\d+)\./m.exec(readFileSync(goMod, 'utf8'))?.[1];
  const found = new Set<string>();
  for (const dir of readdirSync(join(ROOT, 'test'))) {
    if (dir !== 'apiserver' && !/^apiserver-\d+\.\d+$/.test(dir)) continue;
    const goMod = join(ROOT, 'test', dir, 'go.mod');
    const release = existsSync(goMod) ? minor(goMod) : undefined;
    if (release) found.add(release);
  }
  return [...found].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
}

/**
 * Each Kubernetes feature gate's default at `gitVersion` ("v1.37.2"), from that module's
 * pkg/features/kube_features.go: the last versioned spec at or before the release.
 */
function releaseGateDefaults(gitVersion: string): Record<string, boolean> {
  const go = spawnSync(process.env.GO || 'go', ['env', 'GOMODCACHE'], { encoding: 'utf8' });
  assert.equal(go.status, 0, 'go env GOMODCACHE');
  const file = join(go.stdout.trim(), `k8s.io/kubernetes@${gitVersion}`, 'pkg', 'features', 'kube_features.go');
  const text = readFileSync(file, 'utf8');
  const minor = Number(/^v1\.(\d+)\./.exec(gitVersion)?.[1]);
  const out: Record<string, boolean> = {};
  for (const m of text.matchAll(/^\t(\w+): \{\n((?:\t\t\{Version: [^\n]*\n)+)\t\},?$/gm)) {
    let value: boolean | undefined;
    for (const spec of m[2].split('\n')) {
      const v = /MustParse\("1\.(\d+)"\), Default: (true|false)/.exec(spec);
      // A spec with a MinCompatibilityVersion applies only once the cluster may not roll back below it
      // (by default the previous release): 1.37's own servers still run the 1.36-compatible default.
      const minCompat = /MinCompatibilityVersion: version\.MustParse\("1\.(\d+)"\)/.exec(spec);
      if (v && Number(v[1]) <= minor && !(minCompat && Number(minCompat[1]) > minor - 1)) value = v[2] === 'true';
    }
    if (value !== undefined) out[m[1]] = value;
  }
  return out;
}

const IMAGE = 'mcr.microsoft.com/windows/nanoserver:ltsc2022';
type Variant = 'declared' | 'inferred' | 'linux';

/** The pod every probe starts from: a Windows pod by its node selector, valid as it is. */
function basePod(): PodSpecObject {
  return { nodeSelector: { 'kubernetes.io/os': 'windows' }, containers: [{ name: 'app', image: IMAGE }] };
}

function podFor(probe: Probe | undefined, variant: Variant, namespace: string): Record<string, unknown> {
  const spec = basePod();
  probe?.apply(spec);
  if (variant === 'linux') probe?.linuxControl?.(spec);
  if (variant === 'declared') spec.os = { name: 'windows' };
  else if (variant === 'linux') spec.os = { name: 'linux' };
  else delete spec.os;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sweep', namespace }, spec };
}

/** The pod with its probed container moved to spec.initContainers[0], and a plain container beside it. */
function asInitContainer(pod: Record<string, unknown>): Record<string, unknown> {
  const spec = pod.spec as PodSpecObject;
  spec.initContainers = [{ ...spec.containers[0], name: 'setup' }];
  spec.containers = [{ name: 'app', image: IMAGE }];
  return pod;
}

/** The server's reasons as `field: message` (the message alone when it gives no causes). */
function causesOf(r: ApiResponse<Status>): string[] {
  if (r.status < 400) return [];
  const body = typeof r.body === 'string' ? ({ message: r.body } as Status) : r.body;
  const causes = (body.details?.causes ?? []).map((c) =>
    c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? ''),
  );
  return causes.length > 0 ? causes : [body.message ?? `HTTP ${r.status}`];
}

/** Errors that say the API server rejects the object (apiRejects: false marks "accepted, can never run"). */
function apiErrors(fs: Finding[]): Finding[] {
  return fs.filter((f) => f.severity === 'error' && (f as Finding & { apiRejects?: boolean }).apiRejects !== false);
}

interface Outcome {
  field: string;
  value: unknown;
  variant: Exclude<Variant, 'linux'>;
  server: string[];
  /** Server causes no engine error quotes. */
  missing: string[];
  /** Engine errors (rule: message) that quote no server cause. */
  extra: string[];
}

const isEphemeral = (k: string) => k.includes(' spec.ephemeralContainers[0].');
const key = (o: { variant: string; field: string; value: unknown }) =>
  `${o.variant} ${o.field}=${JSON.stringify(o.value)}`;

/**
 * Disagreements known today, each with who closes it: the suite fails when one of these no longer
 * happens too (remove the line), so the list only shrinks. None today, on either release.
 */
const KNOWN_GAPS: Record<string, Record<string, string>> = { '1.35': {}, '1.37': {} };

/**
 * Probes (`field` or `field=value`) the server refuses for every OS, with why: not a Windows matter.
 * The suite fails when one is accepted somewhere (then it can be swept).
 */
const REFUSED_FOR_EVERY_OS: Record<string, { why: string; through?: string }> = {
  'spec.ephemeralContainers': { why: 'cannot be set on create (the ephemeralcontainers subresource adds them)' },
  'spec.resources.claims': { why: 'claims may not be set for resources at pod level' },
  'spec.securityContext.seLinuxChangePolicy="MountOption"': {
    why: 'needs the SELinuxMount feature gate, off by default before 1.37',
    through: '1.36',
  },
};
const minorOf = (release: string) => Number(release.split('.')[1]);
/** The entries that hold on `release`. */
const refusedOn = (release: string) =>
  Object.keys(REFUSED_FOR_EVERY_OS).filter((k) => {
    const through = REFUSED_FOR_EVERY_OS[k].through;
    return through === undefined || minorOf(release) <= minorOf(through);
  });

/** Whether an object holds something at `spec.containers[0].lifecycle.stopSignal`. */
function holds(obj: unknown, field: string): boolean {
  let node = obj;
  for (const part of field.split(/\.|(?=\[)/)) {
    const index = /^\[(\d+)\]$/.exec(part);
    if (index) node = Array.isArray(node) ? node[Number(index[1])] : undefined;
    else node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    if (node === undefined) return false;
  }
  return true;
}

/** Values the server may leave out of what it returns without having dropped anything. */
const isZero = (v: unknown) =>
  v === false ||
  v === 0 ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

const summaries: Record<string, unknown> = {};

for (const release of harnessReleases()) {
  describe(`Kubernetes ${release}: every pod field on a Windows pod, server and engine`, () => {
    let api: RealApiServer;
    let gitVersion = '';
    let openapi: OpenApiDocument;
    const gates: Record<string, boolean> = {};
    const ns = uniqueName(`kw-sweep-${release.replace('.', '-')}`);
    const options: CheckOptions & { kubernetesVersion?: string } = { kubernetesVersion: release, fixes: false };
    const outcomes: Outcome[] = [];
    const dropped = new Set<string>();
    const invalid: { field: string; value: unknown; linux: string[] }[] = [];
    let probes: Probe[] = [];
    let fields: string[] = [];
    let undecided: string[] = [];

    const dryRun = (pod: Record<string, unknown>) =>
      api.request<Status>(`/api/v1/namespaces/${ns}/pods`, { body: pod, query: { dryRun: 'All' } });

    before(async () => {
      api = await useApiServer({ release });
      gitVersion = (await api.request<{ gitVersion: string }>('/version')).body.gitVersion;
      const index = await api.request<{ paths: Record<string, { serverRelativeURL: string }> }>('/openapi/v3');
      assert.equal(index.status, 200, 'the server serves /openapi/v3');
      const core = index.body.paths['api/v1'];
      assert.ok(core, 'the OpenAPI v3 index lists api/v1');
      openapi = (await api.request<OpenApiDocument>(core.serverRelativeURL)).body;
      ({ probes, fields, undecided } = sweepProbes(openapi));
      // The probes set spec.os themselves: the os field is the sweep's axis, not a probe.
      probes = probes.filter((p) => p.field !== 'spec.os');
      const metrics = await api.request<string>('/metrics');
      for (const m of String(metrics.body).matchAll(
        /^kubernetes_feature_enabled\{name="([^"]+)",stage="[^"]*"\} (\d)/gm,
      ))
        gates[m[1]] = m[2] === '1';
      await ensureNamespace(api, ns);
      const pc = await api.request<Status>('/apis/scheduling.k8s.io/v1/priorityclasses', {
        body: {
          apiVersion: 'scheduling.k8s.io/v1',
          kind: 'PriorityClass',
          metadata: { name: SWEEP_PRIORITY_CLASS },
          value: 1000,
        },
      });
      assert.ok(pc.status === 201 || pc.status === 409, `creating the PriorityClass: HTTP ${pc.status}`);
      const rc = await api.request<Status>('/apis/node.k8s.io/v1/runtimeclasses', {
        body: {
          apiVersion: 'node.k8s.io/v1',
          kind: 'RuntimeClass',
          metadata: { name: SWEEP_RUNTIME_CLASS },
          handler: 'runhcs-wcow-process',
          overhead: { podFixed: SWEEP_RUNTIME_OVERHEAD },
          scheduling: { nodeSelector: { 'kubernetes.io/os': 'windows' } },
        },
      });
      assert.ok(rc.status === 201 || rc.status === 409, `creating the RuntimeClass: HTTP ${rc.status}`);
    });

    after(async () => {
      // The shared server goes on to other suites: leave it as it was (pods without a node go at once).
      if (api?.shared) {
        for (const variant of ['declared', 'inferred', 'linux'])
          await api.request(`/api/v1/namespaces/${ns}/pods/sweep-ephemeral-${variant}`, { method: 'DELETE' });
        await api.request(`/apis/node.k8s.io/v1/runtimeclasses/${SWEEP_RUNTIME_CLASS}`, { method: 'DELETE' });
        await api.request(`/apis/scheduling.k8s.io/v1/priorityclasses/${SWEEP_PRIORITY_CLASS}`, { method: 'DELETE' });
      }
      await api?.stop();
    });

    test(`the server is Kubernetes ${release}, with its release's default feature gates`, () => {
      assert.match(gitVersion, new RegExp(`^v${release.replace('.', '\\.')}\\.`));
      // No --feature-gates is passed: every Kubernetes gate /metrics reports must have the default the
      // release's own pkg/features/kube_features.go gives it (read from the Go module cache it was built from).
      const defaults = releaseGateDefaults(gitVersion);
      const compared = Object.keys(defaults).filter((g) => g in gates);
      assert.ok(compared.length > 50, `${compared.length} gates compared with kube_features.go`);
      const differ = compared.filter((g) => gates[g] !== defaults[g]).map((g) => `${g}: ${gates[g]}`);
      assert.deepEqual(differ, [], 'gates that are not at their release default');
    });

    test('every nested type the four types reach is swept field by field or declared opaque, with a reason', () => {
      assert.deepEqual(undecided, [], `types to add to NESTED or OPAQUE in test/support/pod-field-sweep.ts`);
      assert.ok(Object.keys(NESTED).length + Object.keys(OPAQUE).length > 0);
      assert.ok(fields.length >= 120, `${fields.length} fields swept`);
    });

    test('the base pod is accepted as declared, inferred and Linux, and the engine reports no error on it', async () => {
      for (const variant of ['declared', 'inferred', 'linux'] as const) {
        const pod = podFor(undefined, variant, ns);
        const r = await dryRun(pod);
        assert.equal(r.status, 201, `${variant}: ${causesOf(r).join(' | ')}`);
        if (variant === 'linux') continue;
        const errors = apiErrors(checkText(dump(pod), options).findings);
        assert.deepEqual(
          errors.map((f) => `${f.ruleId} ${f.message}`),
          [],
          `${variant} base pod`,
        );
      }
    });

    test('each field, both ways: the engine reports what the server rejects, and nothing else', async () => {
      await inBatches(probes, 6, async (probe) => {
        const answers = await Promise.all(
          (['declared', 'inferred', 'linux'] as const).map(async (variant) => {
            const pod = podFor(probe, variant, ns);
            const r = await dryRun(pod);
            return { variant, pod, causes: causesOf(r), kept: r.status < 400 && holds(r.body, probe.field) };
          }),
        );
        // A value the server takes but does not keep: its feature gate is off in this release.
        if (answers[0].causes.length === 0 && !answers[0].kept && !isZero(probe.value)) dropped.add(probe.field);
        if (answers.every((a) => a.causes.length > 0)) {
          invalid.push({ field: probe.field, value: probe.value, linux: answers[2].causes });
          return;
        }
        const compare = (
          list: { variant: Variant; pod: Record<string, unknown>; causes: string[] }[],
          field: string,
        ) => {
          for (const a of list) {
            if (a.variant === 'linux') continue;
            const errors = apiErrors(checkText(dump(a.pod), options).findings);
            outcomes.push({
              field,
              value: probe.value,
              variant: a.variant,
              server: a.causes,
              missing: a.causes.filter((c) => !errors.some((f) => quotesCause(f.message, c))),
              extra: errors
                .filter((f) => !a.causes.some((c) => quotesCause(f.message, c)))
                .map((f) => `${f.ruleId}: ${f.message}`),
            });
          }
        };
        compare(answers, probe.field);
        if (!probe.field.startsWith('spec.containers[0].')) return;
        // The same container field on an init container (next to a plain container).
        const init = await Promise.all(
          (['declared', 'inferred', 'linux'] as const).map(async (variant) => {
            const pod = asInitContainer(podFor(probe, variant, ns));
            return { variant, pod, causes: causesOf(await dryRun(pod)) };
          }),
        );
        // Fields an init container may not have (probes, lifecycle without restartPolicy: Always) are refused for every OS.
        if (init.every((a) => a.causes.length > 0)) return;
        compare(init, probe.field.replace('spec.containers[0].', 'spec.initContainers[0].'));
      });
      const refused = refusedOn(release);
      const badSamples = invalid
        .filter((i) => !refused.includes(i.field) && !refused.includes(`${i.field}=${JSON.stringify(i.value)}`))
        .map((i) => `${i.field}=${JSON.stringify(i.value)}: ${i.linux.join(' | ')}`);
      const nowAccepted = refused.filter(
        (k) => !invalid.some((i) => k === i.field || k === `${i.field}=${JSON.stringify(i.value)}`),
      );
      const known = KNOWN_GAPS[release] ?? {};
      const gaps = outcomes.filter((o) => o.missing.length > 0 || o.extra.length > 0);
      const unexpected = gaps
        .filter((o) => !known[key(o)])
        .map(
          (o) =>
            `${key(o)}\n    server rejects, no engine error: ${o.missing.join(' | ') || '-'}\n    engine error, server accepts: ${o.extra.join(' | ') || '-'}`,
        );
      const closed = Object.keys(known).filter((k) => !isEphemeral(k) && !gaps.some((o) => key(o) === k));
      assert.deepEqual(
        { unexpected, closed, badSamples, nowAccepted },
        { unexpected: [], closed: [], badSamples: [], nowAccepted: [] },
        [
          `unexpected: the engine and kube-apiserver ${gitVersion} disagree (fix the rule)`,
          'closed: known gaps that no longer happen (remove them from KNOWN_GAPS)',
          'badSamples: values every variant rejects (fix the sample in test/support/pod-field-sweep.ts)',
          'nowAccepted: REFUSED_FOR_EVERY_OS entries some variant accepts now (sweep them)',
        ].join('\n'),
      );
    });

    test('ephemeral containers (the ephemeralcontainers subresource): each container field, both ways', async () => {
      // Ephemeral containers cannot be created with a pod: each variant's pod is created for real (it
      // stays Pending, there is no kubelet) and every container-level probe is added to it as an
      // ephemeral container with a dry-run update of the subresource.
      const pods: Partial<Record<Variant, string>> = {};
      for (const variant of ['declared', 'inferred', 'linux'] as const) {
        const pod = podFor(undefined, variant, ns);
        const name = `sweep-ephemeral-${variant}`;
        const spec = pod.spec as PodSpecObject;
        spec.volumes = [{ name: 'data', emptyDir: {} }];
        const r = await api.request<Status>(`/api/v1/namespaces/${ns}/pods`, {
          body: { ...pod, metadata: { name, namespace: ns } },
        });
        assert.equal(r.status, 201, `creating ${name}: ${causesOf(r).join(' | ')}`);
        pods[variant] = name;
      }
      const containerProbes = probes.filter((p) => p.field.startsWith('spec.containers[0].'));
      let tried = 0;
      await inBatches(containerProbes, 6, async (probe) => {
        const answers = await Promise.all(
          (['declared', 'inferred', 'linux'] as const).map(async (variant) => {
            const probed = podFor(probe, variant, ns).spec as PodSpecObject;
            const { name: _name, ...fields } = probed.containers[0];
            const ephemeral = { name: 'debug', ...fields };
            const path = `/api/v1/namespaces/${ns}/pods/${pods[variant]}`;
            const current = (await api.request<Record<string, unknown> & { spec: PodSpecObject }>(path)).body;
            // Only the ephemeral container may change through the subresource: a probe that needs more of the pod is left out.
            const rest = { ...probed, containers: current.spec.containers, volumes: current.spec.volumes };
            const { ephemeralContainers: _e, ...currentRest } = current.spec;
            const needsMore = Object.entries(rest).some(
              ([k, v]) => k !== 'containers' && k !== 'volumes' && JSON.stringify(v) !== JSON.stringify(currentRest[k]),
            );
            const withEphemeral = { ...current, spec: { ...current.spec, ephemeralContainers: [ephemeral] } };
            if (needsMore) return { variant, pod: withEphemeral, causes: undefined };
            const r = await api.request<Status>(`${path}/ephemeralcontainers`, {
              method: 'PUT',
              body: withEphemeral,
              query: { dryRun: 'All' },
            });
            return { variant, pod: withEphemeral, causes: causesOf(r) };
          }),
        );
        // Fields an ephemeral container may not have at all (ports, probes, lifecycle …) are refused for every OS.
        if (answers.some((a) => a.causes === undefined) || answers.every((a) => (a.causes?.length ?? 0) > 0)) return;
        tried++;
        for (const a of answers) {
          if (a.variant === 'linux') continue;
          const { metadata, spec, apiVersion, kind } = a.pod as Record<string, unknown>;
          const text = dump({ apiVersion, kind, metadata: { name: (metadata as { name: string }).name }, spec });
          const errors = apiErrors(checkText(text, options).findings);
          const server = a.causes ?? [];
          outcomes.push({
            field: probe.field.replace('spec.containers[0].', 'spec.ephemeralContainers[0].'),
            value: probe.value,
            variant: a.variant,
            server,
            missing: server.filter((c) => !errors.some((f) => quotesCause(f.message, c))),
            extra: errors
              .filter((f) => !server.some((c) => quotesCause(f.message, c)))
              .map((f) => `${f.ruleId}: ${f.message}`),
          });
        }
      });
      assert.ok(tried >= 20, `${tried} container probes tried on ephemeral containers`);
      const known = KNOWN_GAPS[release] ?? {};
      const gaps = outcomes.filter(
        (o) => o.field.startsWith('spec.ephemeralContainers') && (o.missing.length > 0 || o.extra.length > 0),
      );
      const unexpected = gaps
        .filter((o) => !known[key(o)])
        .map(
          (o) =>
            `${key(o)}\n    server rejects, no engine error: ${o.missing.join(' | ') || '-'}\n    engine error, server accepts: ${o.extra.join(' | ') || '-'}`,
        );
      const closed = Object.keys(known).filter((k) => isEphemeral(k) && !gaps.some((o) => key(o) === k));
      assert.deepEqual(
        { unexpected, closed },
        { unexpected: [], closed: [] },
        `unexpected: the engine and kube-apiserver ${gitVersion} disagree on ephemeral containers; closed: known gaps to remove`,
      );
    });

    test('summary', (t) => {
      const counts = (list: Outcome[]) => {
        const rejected = list.filter((o) => o.server.length > 0);
        const agree = (l: Outcome[]) => l.filter((o) => o.missing.length === 0 && o.extra.length === 0).length;
        return {
          tried: list.length,
          rejected: rejected.length,
          rejectedFields: new Set(rejected.map((o) => o.field)).size,
          engineAgrees: agree(list),
          engineAgreesOnRejected: agree(rejected),
        };
      };
      const placed = (o: Outcome) =>
        o.field.startsWith('spec.ephemeralContainers[0].')
          ? 'ephemeral'
          : o.field.startsWith('spec.initContainers[0].')
            ? 'init'
            : 'pod';
      const pick = (variant: string, placement: string) =>
        counts(outcomes.filter((o) => o.variant === variant && placed(o) === placement));
      const summary = {
        kubeApiserver: gitVersion,
        fields: fields.length,
        probes: probes.length,
        refusedForEveryOs: [...new Set(invalid.map((i) => i.field))],
        droppedByTheServer: [...dropped].sort(),
        featureGates: {
          enabled: Object.values(gates).filter(Boolean).length,
          ContainerStopSignals: gates.ContainerStopSignals,
        },
        declared: pick('declared', 'pod'),
        inferred: pick('inferred', 'pod'),
        initDeclared: pick('declared', 'init'),
        initInferred: pick('inferred', 'init'),
        ephemeralDeclared: pick('declared', 'ephemeral'),
        ephemeralInferred: pick('inferred', 'ephemeral'),
        knownGaps: Object.keys(KNOWN_GAPS[release] ?? {}).length,
      };
      const line = (name: string, c: ReturnType<typeof counts>) =>
        `${name}: ${c.rejected}/${c.tried} rejected (${counted(c.rejectedFields, 'field')}), engine agrees on ${c.engineAgrees}/${c.tried} (${c.engineAgreesOnRejected}/${c.rejected} rejected)`;
      summaries[release] = summary;
      t.diagnostic(
        `${gitVersion}: ${summary.fields} fields, ${summary.probes} probes; ${line('declared Windows pods', summary.declared)}; ${line('inferred', summary.inferred)}; ${line('init containers, declared', summary.initDeclared)}; ${line('inferred', summary.initInferred)}; ${line('ephemeral containers, declared', summary.ephemeralDeclared)}; ${line('inferred', summary.ephemeralInferred)}; dropped by the server (gate off): ${summary.droppedByTheServer.join(', ') || 'none'}`,
      );
      mkdirSync(join(ROOT, 'test-results'), { recursive: true });
      writeFileSync(join(ROOT, 'test-results', 'release-sweep.json'), `${JSON.stringify(summaries, null, 2)}\n`);
      assert.ok(
        summary.declared.tried > 0 && summary.initDeclared.tried > 0 && summary.ephemeralDeclared.tried > 0,
        'the sweep ran',
      );
    });
  });
}
