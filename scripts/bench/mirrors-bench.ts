// `npm run bench:mirrors` (bundled and run by scripts/bench-mirrors.mjs): registry mirror push to 50
// simulated Windows hosts with 100 ms added to every SSH command round trip. First node after node
// (concurrency 1: how WMCO updates its nodes, controllers/registry_controller.go Reconcile), then our concurrent push (the default
// bound, 8), each run writing a different tree so that both do the full work. Afterwards every
// sim's file system is inspected: files of the live tree that are not exactly the expected ones,
// temporaries and staging leftovers count as partial files. The last line printed is the summary:
//   mirrors: hosts=… sequential_ms=… concurrent_ms=… ratio=… partial_files=…
import { DEFAULT_MIRROR_CONCURRENCY, desiredTree, mirrorsApply, type MirrorTarget } from '../../src/bootstrap/mirrors-apply';
import { containerdConfig } from '../../src/core/windows/kubeadm';
import { LAYOUT } from '../../src/core/windows/layout';
import { mirrorEntriesOf, renderHostsToml } from '../../src/core/mirrors/render';
import { hostAddress, startRig } from '../../test/support/join-rig';
import { idms, itms, windowsNode } from '../../test/support/kube-seed';
import { simTree } from '../../test/support/windows-host-sim';

const HOSTS = Number(process.env.BENCH_MIRROR_HOSTS ?? 50);
const LATENCY_MS = Number(process.env.BENCH_MIRROR_LATENCY_MS ?? 100);
const ROOT = LAYOUT.registryHosts;

const objects = (mirror: string) => [
  idms('mirrors', [
    { source: 'docker.io/library', mirrors: [`${mirror}/library`] },
    { source: 'registry.k8s.io', mirrors: [`${mirror}/k8s`] },
  ]),
  itms('tags', [{ source: 'mcr.microsoft.com/oss/kubernetes/pause', mirrors: [`${mirror}/oss/kubernetes/pause`] }]),
];

async function main(): Promise<void> {
  const nodes = Array.from({ length: HOSTS }, (_, i) => windowsNode(`win-${String(i).padStart(2, '0')}`, { build: '10.0.20348', address: hostAddress(i), unmanaged: true }));
  const rig = await startRig({
    hosts: HOSTS,
    objects: nodes,
    host: () => ({
      opLatencyMs: LATENCY_MS,
      services: { containerd: { status: 'Running', binaryPathName: `"${LAYOUT.containerdExe}" --run-service` } },
      files: { [LAYOUT.containerdConfig]: containerdConfig(1), [`${ROOT}\\docker.io\\hosts.toml`]: 'server = "https://registry-1.docker.io"\n' },
    }),
  });
  try {
    const hostFor = (t: MirrorTarget) => rig.hostFor(rig.addresses.indexOf(t.address), { retries: 2, backoffMs: 50 });
    const run = async (label: string, concurrency: number, mirror: string): Promise<number> => {
      const started = performance.now();
      const out = await mirrorsApply({ kube: rig.kube, objects: objects(mirror), hostFor, concurrency });
      const ms = performance.now() - started;
      const counts = new Map<string, number>();
      for (const n of out.nodes) counts.set(n.status, (counts.get(n.status) ?? 0) + 1);
      console.log(`${label}: ${HOSTS} hosts, concurrency ${concurrency}: ${Math.round(ms)} ms (${[...counts].map(([k, v]) => `${v} ${k}`).join(', ')})`);
      for (const n of out.nodes.filter((x) => x.status === 'failed')) console.log(`  ${n.node}: ${n.reason ?? ''}`);
      return ms;
    };
    const sequential = await run('node after node (as WMCO)', 1, 'mirror-a.example.com');
    const concurrent = await run('concurrent push', DEFAULT_MIRROR_CONCURRENCY, 'mirror-b.example.com');

    const expected = desiredTree(renderHostsToml(mirrorEntriesOf(objects('mirror-b.example.com')), { mode: 'ordered' }).files);
    let partial = 0;
    for (const sim of rig.sims) {
      const tree = simTree(sim.state, ROOT);
      for (const [path, text] of tree) if (expected.get(path) !== text) partial++;
      for (const path of expected.keys()) if (!tree.has(path)) partial++;
      for (const f of sim.state.files.values()) {
        if (!f.path.startsWith(LAYOUT.containerdDir)) continue;
        if ((f.path.includes('.kw-') && f.path.endsWith('.tmp')) || f.path.includes('.kw-staging-') || f.path.includes('.kw-discard-')) partial++;
      }
    }
    const ratio = sequential / concurrent;
    console.log(`mirrors: hosts=${HOSTS} sequential_ms=${Math.round(sequential)} concurrent_ms=${Math.round(concurrent)} ratio=${ratio.toFixed(2)} partial_files=${partial}`);
  } finally {
    await rig.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
