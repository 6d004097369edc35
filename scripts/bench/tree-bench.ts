// `npm run bench:tree` (bundled and run by scripts/bench-tree.mjs): the Windows node tree against an
// emulated cluster of 4700 Linux + 300 Windows nodes and 50000 pods. Measures the time from starting the
// Windows node model to its first complete list, the API requests that took (count, bytes; never a
// cluster-wide pod list), then 100 node changes by watch and the time until the model shows each, and
// memory. The last line printed is the summary:
//   tree: nodes=… windows=… first_list_ms=… requests=… bytes=… watch_median_ms=… watch_max_ms=… rss_mb=…
import { ClusterSession } from '../../src/cluster/session';
import { loadKubeconfig } from '../../src/cluster/kubeconfig';
import type { NodeChange, WindowsNodeModel } from '../../src/cluster/windows-nodes';
import { startEmulator, type KubeObject, type RequestLogEntry } from '../../test/support/kube-api-emulator';
import { largeCluster, pod, type WindowsBuild } from '../../test/support/kube-seed';

const LINUX = Number(process.env.BENCH_LINUX_NODES ?? 4700);
const WINDOWS = Number(process.env.BENCH_WINDOWS_NODES ?? 300);
const PODS = Number(process.env.BENCH_PODS ?? 50000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const NAMESPACES = 50;
const BUILDS: WindowsBuild[] = ['10.0.17763', '10.0.20348', '10.0.26100'];
const CHANGE_TIMEOUT_MS = 5000;

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = (): number => {
  gc?.();
  return process.memoryUsage().heapUsed / 1048576;
};
const now = (): number => performance.now();

/** Deterministic PRNG (mulberry32) so that runs pick the same nodes. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seed(): { objects: KubeObject[]; windowsNames: string[] } {
  const { objects, linuxNames, windowsNames } = largeCluster({ namespaces: NAMESPACES, linux: LINUX, windows: WINDOWS, builds: BUILDS, byoh: true });
  // Pods spread round-robin over all nodes (Windows pods on Windows nodes), a few unscheduled.
  const all = [...linuxNames, ...windowsNames];
  for (let i = 0; i < PODS; i++) {
    const node = i % 997 === 0 ? undefined : all[i % all.length];
    const win = node !== undefined && node.startsWith('winworker-');
    objects.push(pod(`app-${i % 400}-${i.toString(36).padStart(5, '0')}`, `team-${i % NAMESPACES}`, node, { windows: win }));
  }
  return { objects, windowsNames };
}

const isClusterWidePodList = (r: RequestLogEntry): boolean =>
  r.method === 'GET' && r.path === '/api/v1/pods' && !/(^|&)watch=(1|true)/.test(r.query) && !new URLSearchParams(r.query).get('fieldSelector');

function summarise(reqs: RequestLogEntry[]): { count: number; bytes: number } {
  return { count: reqs.length, bytes: reqs.reduce((n, r) => n + r.bytes, 0) };
}

/** Resolves with the time (ms) from now until the model emits a change for `name`. */
function nextChange(model: WindowsNodeModel, name: string, t0: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      model.off('change', on);
      reject(new Error(`no change for ${name} within ${CHANGE_TIMEOUT_MS} ms`));
    }, CHANGE_TIMEOUT_MS);
    const on = (c: NodeChange): void => {
      if (c.type === 'error') {
        clearTimeout(timer);
        model.off('change', on);
        reject(new Error(`model error: ${c.error.message}`));
      } else if (c.type === 'modified' && c.name === name) {
        const ms = now() - t0;
        clearTimeout(timer);
        model.off('change', on);
        resolve(ms);
      }
    };
    model.on('change', on);
  });
}

function readyConditions(ready: boolean): Record<string, unknown>[] {
  const t = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const c = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: t, lastTransitionTime: t, reason, message });
  return [
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    c('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    ready ? c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status') : c('Ready', 'False', 'KubeletNotReady', 'container runtime is down'),
  ];
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

async function main(): Promise<void> {
  const tSeed = now();
  const { objects, windowsNames } = seed();
  const seedMs = now() - tSeed;
  const tEmu = now();
  const emulator = await startEmulator({ objects, bookmarkIntervalMs: 60_000 });
  const emuMs = now() - tEmu;
  objects.length = 0;
  let failed = false;
  const session = (() => {
    const load = loadKubeconfig({ explicit: emulator.kubeconfig({ context: 'bench' }) });
    if (!load.ok) throw new Error(load.message);
    return new ClusterSession('bench', load.config, { watchTimeoutSeconds: 600 });
  })();
  try {
    // Time from starting the model to its first complete list, cold (first request of the process: TLS
    // handshake and credentials included): windowsNodes() resolves right after the model emitted its
    // 'synced' change for the first list. The session's connect() (version, discovery, WMCO, node counts)
    // is measured after it, on its own row, so it neither warms the list path nor counts towards it.
    const heapBefore = heapMb();
    const firstIndex = emulator.requests.length;
    const tList = now();
    const model = await session.windowsNodes();
    const firstListMs = now() - tList;
    const listReqs = emulator.requests.slice(firstIndex);
    // The watch that follows the list is opened after the list, not needed to get there.
    const toFirstList = listReqs.filter((r) => !/(^|&)watch=(1|true)/.test(r.query));
    const first = summarise(toFirstList);
    const shown = model.nodes().length;
    if (shown !== WINDOWS) throw new Error(`model shows ${shown} Windows nodes, expected ${WINDOWS}`);
    // Let the list response buffers go, then what is left is (about) the model: its views and keys.
    await new Promise((r) => setTimeout(r, 50));
    const modelHeapMb = heapMb() - heapBefore;

    const connectIndex = emulator.requests.length;
    const tConnect = now();
    const state = await session.connect();
    const connectMs = now() - tConnect;
    if (state.status !== 'connected') throw new Error(`connect failed: ${state.error.message}`);
    const connectReqs = summarise(emulator.requests.slice(connectIndex));

    // Wait until the watch request reached the emulator, so the first change is not a replay.
    const watchDeadline = now() + 5000;
    while (!emulator.requests.slice(firstIndex).some((r) => r.path === '/api/v1/nodes' && /(^|&)watch=(1|true)/.test(r.query))) {
      if (now() > watchDeadline) throw new Error('the model opened no watch');
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 20));

    // 100 changes: alternate NotReady / Ready, each on a random Windows node that is in the other state.
    const random = rng(42);
    const notReady = new Set<string>();
    const times: number[] = [];
    const watchIndex = emulator.requests.length;
    for (let i = 0; i < CHANGES; i++) {
      const toReady = i % 2 === 1;
      const pool = toReady ? [...notReady] : windowsNames.filter((n) => !notReady.has(n));
      const name = pool[Math.floor(random() * pool.length)];
      const t0 = now();
      const seen = nextChange(model, name, t0);
      emulator.patch('Node', name, undefined, { status: { conditions: readyConditions(toReady) } });
      times.push(await seen);
      if (toReady) notReady.delete(name);
      else notReady.add(name);
      if (model.get(name)?.ready !== toReady) throw new Error(`model shows ${name} ready=${String(model.get(name)?.ready)}, expected ${toReady}`);
    }
    const afterWatch = emulator.requests.slice(watchIndex).filter((r) => !/(^|&)watch=(1|true)/.test(r.query));
    const median = pct(times, 0.5);
    const max = Math.max(...times);

    // One node's pods, as the tree asks when a node is expanded: a field-selected list.
    const tPods = now();
    const pods = await session.podsOfNode(windowsNames[0]);
    const podsMs = now() - tPods;
    const podCount = Array.isArray(pods) ? pods.length : -1;

    const wide = emulator.requests.filter(isClusterWidePodList);
    // maxRSS is the peak resident set of this whole process: the emulator's store of 55000 objects, its
    // HTTPS server and the seed generation as well as the session and model, so it is an upper bound for
    // the extension's cost. model_heap_mb is the heap retained after the first list (after a GC when run
    // with --expose-gc), which is the model's share.
    const rssMb = process.resourceUsage().maxRSS / 1024;

    console.log(`kube-windows tree bench: node ${process.version}, ${LINUX + WINDOWS} nodes (${WINDOWS} Windows), ${PODS} pods; seed ${seedMs.toFixed(0)} ms, emulator start ${emuMs.toFixed(0)} ms`);
    console.log('step                          ms  requests       bytes  note');
    const row = (step: string, ms: number, n: number | string, bytes: number | string, note = ''): void =>
      console.log(`${step.padEnd(24)} ${ms.toFixed(1).padStart(8)}  ${String(n).padStart(8)}  ${String(bytes).padStart(10)}  ${note}`);
    row('connect', connectMs, connectReqs.count, connectReqs.bytes, 'version, discovery, WMCO, node counts');
    row('first windows list', firstListMs, first.count, first.bytes, `${shown} nodes; ${toFirstList.map((r) => `${r.method} ${r.path}?${decodeURIComponent(r.query)}`).join(', ')}`);
    row('watch change median', median, '', '', `${CHANGES} changes`);
    row('watch change p90', pct(times, 0.9), '', '', '');
    row('watch change max', max, afterWatch.length, '', 'requests: non-watch requests during the changes');
    row('pods of one node', podsMs, 1, emulator.requests[emulator.requests.length - 1]?.bytes ?? 0, `${podCount} pods, fieldSelector`);
    console.log(`memory: rss_peak_mb=${rssMb.toFixed(0)} (whole process incl. emulator) model_heap_mb=${gc ? modelHeapMb.toFixed(1) : 'n/a (run with --expose-gc)'}`);
    console.log(`cluster-wide pod lists: ${wide.length}${wide.length ? ' ' + wide.map((r) => `${r.path}?${r.query}`).join(', ') : ''}`);

    const checks: string[] = [];
    if (firstListMs > 1000) checks.push(`first list ${firstListMs.toFixed(0)} ms > 1000 ms`);
    if (first.count > 3) checks.push(`${first.count} requests to the first list > 3`);
    if (wide.length > 0) checks.push(`${wide.length} cluster-wide pod list(s)`);
    if (max > 100) checks.push(`slowest watched change ${max.toFixed(0)} ms > 100 ms`);
    if (checks.length) {
      failed = true;
      console.log(`FAIL: ${checks.join('; ')}`);
    }
    console.log(
      `tree: nodes=${LINUX + WINDOWS} windows=${WINDOWS} first_list_ms=${firstListMs.toFixed(0)} requests=${first.count} bytes=${first.bytes} watch_median_ms=${median.toFixed(1)} watch_max_ms=${max.toFixed(1)} rss_mb=${rssMb.toFixed(0)}`,
    );
  } finally {
    session.dispose();
    await emulator.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
