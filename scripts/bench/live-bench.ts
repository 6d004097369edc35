// `npm run bench` (last part; bundled and run by `scripts/bench-tree.mjs live`): `kube-windows check
// --context C -A --format json` as a whole process (dist/cli.js) against an emulated large cluster:
// 5,000 nodes (300 Windows), 10,000 workloads (7,000 Deployments with their ReplicaSets, 1,000
// StatefulSets, 1,000 DaemonSets, 500 Jobs, 500 CronJobs), 50,000 pods (owned by those ReplicaSets;
// 1% of the Windows ones failing with an HCS build mismatch) and their Warning events. Prints the
// wall time, the requests (one paged list per kind, never one per object) and what the check found.
// The last line printed is the summary:
//   live: nodes=… workloads=… pods=… check_ms=… requests=… bytes=… objects=… errors=… warnings=…
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startEmulator, type KubeObject } from '../../test/support/kube-api-emulator';
import { largeCluster, pod, type WindowsBuild } from '../../test/support/kube-seed';

const LINUX = Number(process.env.BENCH_LINUX_NODES ?? 4700);
const WINDOWS = Number(process.env.BENCH_WINDOWS_NODES ?? 300);
const PODS = Number(process.env.BENCH_PODS ?? 50000);
const WORKLOADS = Number(process.env.BENCH_WORKLOADS ?? 10000);
const NAMESPACES = 50;
const BUILDS: WindowsBuild[] = ['10.0.17763', '10.0.20348', '10.0.26100'];
const TARGET_MS = 10_000;
const CLI = resolve(__dirname, '..', '..', 'dist', 'cli.js');

const now = (): number => performance.now();

function template(app: string, windows: boolean, i: number): Record<string, unknown> {
  return {
    metadata: { labels: { app } },
    spec: windows
      ? {
          nodeSelector: { 'kubernetes.io/os': 'windows' },
          tolerations: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }],
          // Every 20th Windows workload is privileged (an error finding), as real clusters have a few.
          containers: [{ name: app, image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022', ...(i % 20 === 0 ? { securityContext: { privileged: true } } : {}) }],
        }
      : {
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [{ name: app, image: 'registry.access.redhat.com/ubi9/ubi-minimal:9.4', securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false } }],
        },
  };
}

function seed(): { objects: KubeObject[]; counts: Record<string, number> } {
  const { objects, linuxNames, windowsNames } = largeCluster({ namespaces: NAMESPACES, linux: LINUX, windows: WINDOWS, builds: BUILDS });
  const counts = { Deployment: 0, ReplicaSet: 0, StatefulSet: 0, DaemonSet: 0, Job: 0, CronJob: 0 };
  const replicaSets: { ns: string; name: string; uid: string; windows: boolean; image: string }[] = [];
  for (let i = 0; i < WORKLOADS; i++) {
    const ns = `team-${i % NAMESPACES}`;
    const windows = i % 10 === 0;
    const app = `app-${i}`;
    const kind = i < WORKLOADS * 0.7 ? 'Deployment' : i < WORKLOADS * 0.8 ? 'StatefulSet' : i < WORKLOADS * 0.9 ? 'DaemonSet' : i < WORKLOADS * 0.95 ? 'Job' : 'CronJob';
    counts[kind]++;
    const uid = `w-${i}`;
    const tpl = template(app, windows, i);
    const meta = { name: app, namespace: ns, uid };
    if (kind === 'Deployment') {
      objects.push({ apiVersion: 'apps/v1', kind, metadata: meta, spec: { replicas: 7, selector: { matchLabels: { app } }, template: tpl } });
      const rsName = `${app}-5d8f7c9b4`;
      objects.push({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: rsName, namespace: ns, uid: `rs-${i}`, ownerReferences: [{ apiVersion: 'apps/v1', kind, name: app, uid, controller: true }] },
        spec: { replicas: 7, selector: { matchLabels: { app } }, template: tpl },
      });
      counts.ReplicaSet++;
      replicaSets.push({ ns, name: rsName, uid: `rs-${i}`, windows, image: windows ? 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' : 'registry.access.redhat.com/ubi9/ubi-minimal:9.4' });
    } else if (kind === 'StatefulSet' || kind === 'DaemonSet') {
      objects.push({ apiVersion: 'apps/v1', kind, metadata: meta, spec: { selector: { matchLabels: { app } }, ...(kind === 'StatefulSet' ? { serviceName: app } : {}), template: tpl } });
    } else if (kind === 'Job') {
      objects.push({ apiVersion: 'batch/v1', kind, metadata: meta, spec: { template: { ...tpl, spec: { ...(tpl.spec as object), restartPolicy: 'Never' } } } });
    } else {
      objects.push({ apiVersion: 'batch/v1', kind, metadata: meta, spec: { schedule: '0 2 * * *', jobTemplate: { spec: { template: { ...tpl, spec: { ...(tpl.spec as object), restartPolicy: 'OnFailure' } } } } } });
    }
  }
  // Pods, owned by the ReplicaSets: Windows ones on Windows nodes, the others on Linux nodes.
  let events = 0;
  for (let i = 0; i < PODS; i++) {
    const rs = replicaSets[i % replicaSets.length];
    const node = rs.windows ? windowsNames[i % windowsNames.length] : linuxNames[i % linuxNames.length];
    const p = pod(`${rs.name}-${i.toString(36).padStart(5, '0')}`, rs.ns, node, { windows: rs.windows, image: rs.image });
    p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.name, uid: rs.uid, controller: true }];
    if (rs.windows && i % 100 === 0) {
      p.spec = { ...(p.spec as object), containers: [{ name: 'app', image: 'mcr.microsoft.com/windows/servercore:ltsc2019' }] };
      p.status = {
        phase: 'Pending',
        containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'CreateContainerError', message: 'hcs::CreateComputeSystem app: The container operating system does not match the host operating system.: unknown' } } }],
      };
      objects.push({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${p.metadata.name}.${i.toString(16)}`, namespace: rs.ns },
        type: 'Warning',
        reason: 'Failed',
        message: 'Error: failed to create containerd task: hcs::CreateComputeSystem app: The container operating system does not match the host operating system.: unknown',
        involvedObject: { kind: 'Pod', namespace: rs.ns, name: p.metadata.name, uid: p.metadata.uid, fieldPath: 'spec.containers{app}' },
        count: 5,
      });
      events++;
    }
    objects.push(p);
  }
  return { objects, counts: { ...counts, events } };
}

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolveP) => {
    const t0 = now();
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolveP({ code, stdout: Buffer.concat(out).toString('utf8'), stderr, ms: now() - t0 }));
  });
}

async function main(): Promise<void> {
  const tSeed = now();
  const { objects, counts } = seed();
  const seedMs = now() - tSeed;
  const tEmu = now();
  const emulator = await startEmulator({ objects, bookmarkIntervalMs: 60_000 });
  const emuMs = now() - tEmu;
  objects.length = 0;
  const kubeconfig = emulator.kubeconfig({ context: 'bench' });
  let failed = false;
  try {
    const from = emulator.requests.length;
    const r = await runCli(['check', '--context', 'bench', '--kubeconfig', kubeconfig, '-A', '--format', 'json']);
    if (r.code !== 0 && r.code !== 1) throw new Error(`check exited ${String(r.code)}: ${r.stderr}`);
    const report = JSON.parse(r.stdout) as { objects: { kind: string; findings: { ruleId: string }[] }[]; summary: { objects: number; errors: number; warnings: number; infos: number } };
    const reqs = emulator.requests.slice(from);
    const bytes = reqs.reduce((n, q) => n + q.bytes, 0);
    const perPath = new Map<string, number>();
    for (const q of reqs) perPath.set(q.path, (perPath.get(q.path) ?? 0) + 1);
    const byName = reqs.filter((q) => /\/namespaces\/[^/]+\/[^/]+\/[^/]+$/.test(q.path));
    const explained = report.objects.flatMap((o) => o.findings).filter((f) => f.ruleId === 'WINF001').length;

    console.log(
      `kube-windows live check bench: node ${process.version}, ${LINUX + WINDOWS} nodes (${WINDOWS} Windows), ${WORKLOADS} workloads (${Object.entries(counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}), ${PODS} pods; seed ${seedMs.toFixed(0)} ms, emulator start ${emuMs.toFixed(0)} ms`,
    );
    console.log(`check --context bench -A --format json: ${r.ms.toFixed(0)} ms wall (whole process), exit ${String(r.code)}`);
    console.log(`requests: ${reqs.length} (${(bytes / 1048576).toFixed(1)} MiB); per path: ${[...perPath].map(([p, n]) => `${p} ×${n}`).join(', ')}`);
    console.log(`requests for one object by name: ${byName.length}`);
    console.log(`report: ${report.summary.objects} objects checked or explained, ${report.objects.length} with findings; ${report.summary.errors} errors, ${report.summary.warnings} warnings, ${report.summary.infos} info; ${explained} pods explained as WINF001`);
    const checks: string[] = [];
    if (r.ms > TARGET_MS) checks.push(`check took ${r.ms.toFixed(0)} ms > ${TARGET_MS} ms`);
    if (byName.length > 0) checks.push(`${byName.length} request(s) for single objects`);
    if (explained !== counts.events) checks.push(`${explained} pods explained, ${counts.events} seeded as failing`);
    if (checks.length) {
      failed = true;
      console.log(`FAIL: ${checks.join('; ')}`);
    }
    console.log(
      `live: nodes=${LINUX + WINDOWS} workloads=${WORKLOADS} pods=${PODS} check_ms=${r.ms.toFixed(0)} requests=${reqs.length} bytes=${bytes} objects=${report.summary.objects} errors=${report.summary.errors} warnings=${report.summary.warnings}`,
    );
  } finally {
    await emulator.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
