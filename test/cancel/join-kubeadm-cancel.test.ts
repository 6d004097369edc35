// Cancelling the kubeadm join at every step (test/support/cancel-walk.ts), on the API emulator (a
// kubeadm cluster with Calico) and a simulated Windows host that restarts to finish the Containers
// feature. After each cancel: no temporary upload on the host, no bootstrap token left in the cluster,
// a Node only once the join step ran; the re-run joins: one Node, each service once, binaries whole.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Payload } from '../../src/bootstrap/payload';
import { kubeadmPayload, kubeadmWorld, runKubeadmJoin, type CancelWorld } from '../support/cancel-worlds';
import type { Rig } from '../support/join-rig';
import { walkCancels } from '../support/cancel-walk';

let payload: Payload;

before(async () => {
  payload = await kubeadmPayload();
});

const bootstrapTokens = (r: Rig): string[] =>
  r.emu
    .list('Secret')
    .filter((s) => (s as { type?: string }).type === 'bootstrap.kubernetes.io/token')
    .map((s) => s.metadata.name);
const windowsNodes = (r: Rig): number =>
  r.emu.list('Node').filter((n) => n.metadata.labels?.['kubernetes.io/os'] === 'windows').length;

test('kubeadm join: cancelled at every step, no temporary file, no bootstrap token left, and the re-run joins', async (t) => {
  let seedTokens: string[] = [];
  const figures = await walkCancels<CancelWorld>(
    {
      async start() {
        // A fresh Windows Server: the join enables the Containers feature and restarts the host.
        const w = await kubeadmWorld({ containersFeature: 'Disabled' });
        seedTokens = bootstrapTokens(w.rig);
        return w;
      },
      run: (w, options) => runKubeadmJoin(w, payload, options),
      stop: (w) => w.stop(),
      hosts: (w) => w.rig.sims,
      afterCancel(w, result, point) {
        assert.deepEqual(bootstrapTokens(w.rig), seedTokens, 'the bootstrap token made for the join is gone');
        const joinedYet = result.steps.some(
          (s) => s.id === 'join' && (s.outcome === 'applied' || s.tookEffect === true),
        );
        if (!joinedYet) assert.equal(windowsNodes(w.rig), 0, `${point.stepId}: no Node before the join ran`);
        const state = result.aftermath?.state ?? '';
        // kubeadm join may still be running on the host when the cancel stops the wait: then it says it may join.
        if (windowsNodes(w.rig) > 0) assert.match(state, /joined the cluster as the Node/);
        else if (/joined the cluster/.test(state))
          assert.match(state, /may already have taken effect; if it did: .* joined/);
      },
      afterDone(w) {
        const sim = w.rig.sims[0]!;
        assert.equal(windowsNodes(w.rig), 1, 'one Windows Node');
        assert.deepEqual(bootstrapTokens(w.rig), seedTokens);
        const services = [...sim.state.services.keys()]
          .map((n) => n.toLowerCase())
          .filter((n) => n === 'containerd' || n === 'kubelet');
        assert.deepEqual(services.sort(), ['containerd', 'kubelet'], 'each service once');
        for (const [path, source] of [
          ['c:\\k\\kubelet.exe', payload.kubelet],
          ['c:\\k\\kubeadm.exe', payload.kubeadm],
        ] as const) {
          const f = sim.state.files.get(path);
          assert.ok(f, `${path} exists`);
          assert.equal(createHash('sha256').update(f.data).digest('hex'), source.sha256, `${path} whole`);
        }
        assert.ok(sim.state.bootCount <= 1, 'restarted at most once');
      },
    },
    (line) => t.diagnostic(line),
  );
  assert.ok(figures.steps.includes('join') && figures.steps.includes('kube-binaries'), figures.steps.join(', '));
});
