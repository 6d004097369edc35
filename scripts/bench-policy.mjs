// The cost of the admission policies on the real API server: pod creations with the kube-windows pods
// policy bound (action Deny) against creations with none, in alternating rounds on one server; prints
// the median and p99 of each, what the policy adds per request, and the API server's own CPU time per
// request (read from /proc, so a loaded machine slows it far less than it slows the wall clock), with
// the load average beside each figure. Two kinds of pods: Windows pods that break no rule (every
// validation runs to the end) and Linux pods (no Windows evidence: the policy's pre-check skips them).
// Also times the API server's type checking of the whole exported set (the upstream status controller).
// Needs a build (dist/cli.js exports the policies) and the cached API server.
//
//   npm run bench:policy                       (every exported rule, 1,000 pods of each kind)
//   node scripts/bench-policy.mjs [--pods N] [--rules R,...] [--kind windows|linux|both] [--no-type-check]
//   node scripts/bench-policy.mjs --each [--pods N]   (one row per rule, each bound alone beside WIN055)
//   node scripts/bench-policy.mjs --policy FILE       (a policy of one's own named *-pods, and its binding)
//   --profiling: the API server serves /debug/pprof during the run
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg } from 'node:os';
import { ensureServiceAccount, startApiServer } from './apiserver.mjs';
import { startVapStatus } from './vap-status.mjs';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name, fallback) => (argv.indexOf(name) >= 0 ? argv[argv.indexOf(name) + 1] : fallback);
const EACH = flag('--each');
const PODS = Number(value('--pods', EACH ? 200 : 1000));
const KIND = value('--kind', EACH ? 'windows' : 'both');
const KINDS = KIND === 'both' ? ['windows', 'linux'] : [KIND];
const ROUNDS = 4;
// The readiness probe of a binding is a pod that breaks WIN055 (hostNetwork): with --each, each rule is
// bound beside it, and the row of WIN055 alone is the baseline of the others.
const SENTINEL_RULE = 'WIN055';

const log = (line) => console.error(line);
const load = () => loadavg()[0].toFixed(1);
const api = await startApiServer({
  log: (l) => (/ready|building/.test(l) ? log(l) : undefined),
  // --profiling: the server serves /debug/pprof (a CPU profile of where admission spends its time).
  extraArgs: flag('--profiling') ? ['--profiling=true'] : [],
});
const ca = readFileSync(api.caPath);
const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });

function call(method, path, body, contentType = 'application/json') {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      `${api.server}${path}`,
      {
        method,
        agent,
        headers: {
          Authorization: `Bearer ${api.adminToken}`,
          Accept: 'application/json',
          ...(payload ? { 'Content-Type': contentType, 'Content-Length': payload.length } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode, ms, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The API server's CPU time so far (user + system), in ms: /proc/PID/stat fields 14 and 15, in clock ticks. */
function cpuMs() {
  const stat = readFileSync(`/proc/${api.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // 100 ticks a second on Linux
}

function exported(rules) {
  const args = ['dist/cli.js', 'policy', 'export', '--action', 'Deny', '--format', 'json'];
  if (rules) args.push('--rules', rules.join(','));
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))
    .items;
}

const GROUP = '/apis/admissionregistration.k8s.io/v1';
const pathOf = (o) =>
  `${GROUP}/${o.kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings'}/${o.metadata.name}`;

async function applied(o) {
  const r = await call('PATCH', `${pathOf(o)}?fieldManager=bench&force=true`, o, 'application/apply-patch+yaml');
  if (r.status >= 300) throw new Error(`${o.kind} ${o.metadata.name}: ${r.status} ${r.body?.message}`);
  return r.body;
}

/** A Windows pod that breaks no rule: every validation runs to the end and lets it in. */
const windowsPod = (name) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    nodeSelector: { 'kubernetes.io/os': 'windows' },
    tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }],
    initContainers: [
      { name: 'init', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022', command: ['cmd', '/c', 'echo'] },
    ],
    containers: [
      {
        name: 'web',
        image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
        resources: { limits: { cpu: '1', memory: '1Gi' } },
        securityContext: { windowsOptions: { runAsUserName: 'ContainerUser' } },
        volumeMounts: [{ name: 'data', mountPath: 'C:\\data' }],
        livenessProbe: { exec: { command: ['powershell', '-Command', 'exit 0'] } },
      },
      { name: 'sidecar', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
});

/** An ordinary Linux pod of the same size: no Windows evidence, nothing any rule reads. */
const linuxPod = (name) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'true'] }],
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        resources: { limits: { cpu: '1', memory: '1Gi' } },
        securityContext: { runAsNonRoot: true, runAsUser: 101, allowPrivilegeEscalation: false },
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
        livenessProbe: { exec: { command: ['sh', '-c', 'exit 0'] } },
      },
      { name: 'sidecar', image: 'registry.k8s.io/pause:3.10' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
});
const POD_OF = { windows: windowsPod, linux: linuxPod };
const violating = { ...windowsPod('violating'), spec: { ...windowsPod('violating').spec, hostNetwork: true } };

let namespaces = 0;
async function namespace() {
  const name = `bench-${namespaces++}`;
  const r = await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status}`);
  await ensureServiceAccount(api, name);
  return name;
}

/** Creates `count` pods of `kind`: their wall-clock times and the API server's CPU ms over them. */
async function createPods(kind, count) {
  const ns = await namespace();
  const times = [];
  const cpu = cpuMs();
  for (let i = 0; i < count; i++) {
    const r = await call('POST', `/api/v1/namespaces/${ns}/pods`, POD_OF[kind](`p-${i}`));
    if (r.status !== 201) throw new Error(`pod ${ns}/p-${i}: HTTP ${r.status} ${r.body?.message}`);
    times.push(r.ms);
  }
  return { times, cpu: cpuMs() - cpu };
}

async function bind(binding, on) {
  if (on) await applied(binding);
  else await call('DELETE', pathOf(binding));
  // Polled, never slept: until a violating pod is refused (bound) or let in (unbound).
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = await call('POST', '/api/v1/namespaces/default/pods?dryRun=All', violating);
    if ((r.status === 422) === on) return;
    if (Date.now() > deadline) throw new Error(`the policy did not ${on ? 'take effect' : 'go away'} in 120 s`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const f = (x) => x.toFixed(2);

/** Binds the pods policy of `objects` in alternating rounds with none, for each kind of pod; one row each. */
async function measure(label, objects) {
  const policy = objects.find((o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name.endsWith('-pods'));
  const binding = objects.find(
    (o) => o.kind === 'ValidatingAdmissionPolicyBinding' && o.metadata.name === policy.metadata.name,
  );
  await applied(policy);
  for (const kind of KINDS) {
    const none = { times: [], cpu: 0 };
    const bound = { times: [], cpu: 0 };
    const loads = [load()];
    // Alternating rounds, so that a slower minute of a shared machine falls on both sides.
    const per = Math.ceil(PODS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      await bind(binding, false);
      const a = await createPods(kind, per);
      none.times.push(...a.times);
      none.cpu += a.cpu;
      await bind(binding, true);
      const b = await createPods(kind, per);
      bound.times.push(...b.times);
      bound.cpu += b.cpu;
    }
    await bind(binding, false);
    loads.push(load());
    const [n50, n99, b50, b99] = [
      quantile(none.times, 0.5),
      quantile(none.times, 0.99),
      quantile(bound.times, 0.5),
      quantile(bound.times, 0.99),
    ];
    const cpuNone = none.cpu / none.times.length;
    const cpuBound = bound.cpu / bound.times.length;
    console.log(
      `| ${label} | ${kind} | ${none.times.length} | ${f(n50)}, ${f(n99)} | ${f(b50)}, ${f(b99)} | **${f(b50 - n50)}**, ${f(b99 - n99)} | ${f(cpuNone)} → ${f(cpuBound)} (**${f(cpuBound - cpuNone)}**) | ${loads.join(' → ')} |`,
    );
  }
}

/** Seconds until the upstream status controller has type-checked every policy, and its warnings. */
async function typeCheckingTime(objects) {
  const policies = objects.filter((o) => o.kind === 'ValidatingAdmissionPolicy');
  for (const o of policies) await call('DELETE', pathOf(o));
  const generations = new Map();
  for (const o of policies) generations.set(o.metadata.name, (await applied(o)).metadata.generation);
  const loads = [load()];
  const started = Date.now();
  const controller = await startVapStatus({ kubeconfigPath: api.kubeconfigPath });
  const warnings = [];
  try {
    for (const o of policies)
      for (;;) {
        const p = (await call('GET', pathOf(o))).body;
        if (p.status?.typeChecking && p.status.observedGeneration === generations.get(o.metadata.name)) {
          warnings.push(...(p.status.typeChecking.expressionWarnings ?? []));
          break;
        }
        if (Date.now() - started > 900_000) throw new Error(`${o.metadata.name}: no type checking after 900 s`);
        await new Promise((res) => setTimeout(res, 100));
      }
  } finally {
    await controller.stop();
  }
  loads.push(load());
  console.log(
    `Type checking of ${policies.length} policies by the status controller: ${((Date.now() - started) / 1000).toFixed(1)} s (controller start included), ${warnings.length} warnings; load ${loads.join(' → ')}`,
  );
}

/**
 * --attribute: where the time goes, per rule, from the API server's own metric of a policy's validation
 * time (apiserver_validating_admission_policy_check_duration_seconds, recorded for failed validations
 * only): one policy per rule, each validation made to fail after it has run (`(…) && false`), so the
 * metric holds every evaluation; dry-run creations of the Windows pod; the mean per rule.
 */
async function attribute(rules, count) {
  const policies = [];
  for (const id of rules) {
    const [policy, binding] = exported([id]).filter((o) => o.metadata.name.endsWith('-pods'));
    const name = `kw-attribute-${id.toLowerCase()}`;
    policy.metadata.name = name;
    policy.spec.validations = policy.spec.validations.map((x) => ({
      expression: `(${x.expression}) && false`,
      message: id,
    }));
    binding.metadata.name = name;
    binding.spec.policyName = name;
    binding.spec.validationActions = ['Warn'];
    await applied(policy);
    await applied(binding);
    policies.push(name);
  }
  // Until every policy warns (each binding syncs on its own).
  for (const deadline = Date.now() + 120_000; ;) {
    await call('POST', '/api/v1/namespaces/default/pods?dryRun=All', windowsPod('probe'));
    const sums = await metricSums();
    const seen = policies.filter((p) => sums.has(p));
    if (seen.length === policies.length) break;
    if (Date.now() > deadline)
      throw new Error(`only ${seen.length} of ${policies.length} policies in force after 120 s`);
  }
  const before = await metricSums();
  for (let i = 0; i < count; i++)
    await call('POST', '/api/v1/namespaces/default/pods?dryRun=All', windowsPod(`a-${i}`));
  const after = await metricSums();
  const rows = rules.map((id, i) => {
    const p = policies[i];
    const n = after.get(p).count - (before.get(p)?.count ?? 0);
    const us = ((after.get(p).sum - (before.get(p)?.sum ?? 0)) / n) * 1e6;
    return { id, n, us };
  });
  rows.sort((a, b) => b.us - a.us);
  console.log(
    `Time of each rule's validation, alone in its policy (its variables included), mean over ${count} Windows pods; load ${load()}:`,
  );
  console.log('| rule | evaluations | µs per pod |');
  console.log('|---|---|---|');
  for (const r of rows) console.log(`| ${r.id} | ${r.n} | ${r.us.toFixed(1)} |`);
  console.log(`| total | | ${rows.reduce((a, r) => a + r.us, 0).toFixed(1)} |`);
}

/** policy name -> { sum, count } of the validation time histogram. */
async function metricSums() {
  const text = await new Promise((resolve, reject) => {
    const req = request(
      `${api.server}/metrics`,
      { agent, headers: { Authorization: `Bearer ${api.adminToken}` } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      },
    );
    req.on('error', reject);
    req.end();
  });
  const out = new Map();
  for (const m of text.matchAll(
    /^apiserver_validating_admission_policy_check_duration_seconds_(sum|count)\{[^}]*policy="([^"]+)"[^}]*\} (\S+)$/gm,
  )) {
    const e = out.get(m[2]) ?? { sum: 0, count: 0 };
    e[m[1]] += Number(m[3]);
    out.set(m[2], e);
  }
  return out;
}

try {
  // --policy FILE: a set of one's own (a List or an array of the policy and its binding), for experiments.
  const file = value('--policy', undefined);
  const own = file ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  const all = own ? (own.items ?? own) : exported(value('--rules', undefined)?.split(','));
  const rules = all[0].metadata.annotations?.['kube-windows.io/rules']?.split(',') ?? [];
  if (flag('--attribute')) await attribute(rules, PODS);
  else await bench(all, rules, file);
} finally {
  agent.destroy();
  await api.stop();
}

async function bench(all, rules, file) {
  if (!flag('--no-type-check') && !EACH) await typeCheckingTime(all);
  const warmupNs = await namespace();
  for (let i = 0; i < 200; i++) await call('POST', `/api/v1/namespaces/${warmupNs}/pods`, windowsPod(`w-${i}`));
  console.log(
    `Pod creations on kube-apiserver ${api.server}, the pods policy bound with action Deny (${PODS} pods each side, ${ROUNDS} alternating rounds):`,
  );
  console.log(
    '| rules bound | pods | per side | none: median, p99 (ms) | bound: median, p99 (ms) | added: median, p99 (ms) | API server CPU ms per pod | load (1 min) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  if (EACH) {
    await measure(SENTINEL_RULE, exported([SENTINEL_RULE]));
    for (const id of rules.filter((r) => r !== SENTINEL_RULE))
      await measure(`${id} + ${SENTINEL_RULE}`, exported([SENTINEL_RULE, id]));
  } else await measure(file ? file.split('/').pop() : `all ${rules.length}`, all);
}
