// The cost of the admission policies on the real API server: 1,000 pod creations with every
// kube-windows policy bound (action Deny, pods that pass every rule, so every validation runs) against
// 1,000 with none, in alternating rounds on one server; prints the median and p99 of each and what the
// policies add per request. Needs a build (dist/cli.js exports the policies) and the cached API server.
//
//   npm run bench:policy            (node scripts/bench-policy.mjs [--pods N])
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { ensureServiceAccount, startApiServer } from './apiserver.mjs';

const argv = process.argv.slice(2);
const podsArg = argv.indexOf('--pods');
const PODS = podsArg >= 0 ? Number(argv[podsArg + 1]) : 1000;
const ROUNDS = 4;

const log = (line) => console.error(line);
const api = await startApiServer({ log: (l) => (/ready|building/.test(l) ? log(l) : undefined) });
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

const policies = JSON.parse(
  execFileSync(process.execPath, ['dist/cli.js', 'policy', 'export', '--action', 'Deny', '--format', 'json'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }),
).items;
const GROUP = '/apis/admissionregistration.k8s.io/v1';
const pathOf = (o) =>
  `${GROUP}/${o.kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings'}/${o.metadata.name}`;

/** A Windows pod that breaks no rule: every validation runs to the end and lets it in. */
const pod = (name) => ({
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
      },
      { name: 'sidecar', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
});
const violating = { ...pod('violating'), spec: { ...pod('violating').spec, hostNetwork: true } };

async function namespace(name) {
  const r = await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status}`);
  await ensureServiceAccount(api, name);
}

async function createPods(ns, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const r = await call('POST', `/api/v1/namespaces/${ns}/pods`, pod(`p-${i}`));
    if (r.status !== 201) throw new Error(`pod ${ns}/p-${i}: HTTP ${r.status} ${r.body?.message}`);
    times.push(r.ms);
  }
  return times;
}

async function bind(on) {
  for (const o of policies.filter((x) => x.kind === 'ValidatingAdmissionPolicyBinding')) {
    if (on) {
      const r = await call('PATCH', `${pathOf(o)}?fieldManager=bench`, o, 'application/apply-patch+yaml');
      if (r.status >= 300) throw new Error(`binding ${o.metadata.name}: ${r.status} ${r.body?.message}`);
    } else await call('DELETE', pathOf(o));
  }
  // Polled, never slept: until a violating pod is refused (bound) or let in (unbound).
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = await call('POST', '/api/v1/namespaces/default/pods?dryRun=All', violating);
    if ((r.status === 422) === on) return;
    if (Date.now() > deadline) throw new Error(`the policies did not ${on ? 'take effect' : 'go away'} in 120 s`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

try {
  for (const o of policies.filter((x) => x.kind === 'ValidatingAdmissionPolicy')) {
    const r = await call('PATCH', `${pathOf(o)}?fieldManager=bench`, o, 'application/apply-patch+yaml');
    if (r.status >= 300) throw new Error(`policy ${o.metadata.name}: ${r.status} ${r.body?.message}`);
  }
  await namespace('bench-warmup');
  await createPods('bench-warmup', 200);
  const none = [];
  const bound = [];
  // Alternating rounds, so that a slower minute of a shared machine falls on both sides.
  const per = Math.ceil(PODS / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    await bind(false);
    await namespace(`bench-none-${round}`);
    none.push(...(await createPods(`bench-none-${round}`, per)));
    await bind(true);
    await namespace(`bench-bound-${round}`);
    bound.push(...(await createPods(`bench-bound-${round}`, per)));
  }
  const rules = policies[0].metadata.annotations['kube-windows.io/rules'].split(',').length;
  const f = (x) => x.toFixed(2);
  const row = (name, xs) => `| ${name} | ${xs.length} | ${f(quantile(xs, 0.5))} ms | ${f(quantile(xs, 0.99))} ms |`;
  console.log(
    `Pod creations on kube-apiserver ${api.server} (${rules} rules in ${policies.length / 2} policies, action Deny):`,
  );
  console.log('| policies | pods | median | p99 |');
  console.log('|---|---|---|---|');
  console.log(row('none', none));
  console.log(row('every kube-windows policy bound', bound));
  console.log(
    `Added per request: median ${f(quantile(bound, 0.5) - quantile(none, 0.5))} ms, p99 ${f(quantile(bound, 0.99) - quantile(none, 0.99))} ms`,
  );
} finally {
  agent.destroy();
  await api.stop();
}
