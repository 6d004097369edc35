// Cancelling the BYOH join at every step (test/support/cancel-walk.ts), with WMCO installed by the plan
// (namespace, OperatorGroup, Subscription) and the key Secret created by it: the API emulator with the
// OLM and WMCO stand-ins and a simulated Windows host. After each cancel the windows-instances entry
// exists exactly when the run says so; the re-run joins with one of each object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildByohJoinPlan, type ByohContext, type ByohOptions, type Resolver } from '../../src/bootstrap/byoh';
import { Secret } from '../../src/bootstrap/plan';
import { runPlan } from '../../src/bootstrap/runner';
import { namespace, openshiftClusterConfig, WMCO_NAMESPACE } from '../support/kube-seed';
import { attachOlmStandin } from '../support/olm-standin';
import { attachWmcoStandin } from '../support/wmco-standin';
import { startRig, type Rig } from '../support/join-rig';
import type { KubeObject } from '../support/kube-api-emulator';
import { walkCancels } from '../support/cancel-walk';

const NS = WMCO_NAMESPACE;

interface World {
  rig: Rig;
  resolver: Resolver;
  stopStandins(): void;
}

async function world(): Promise<World> {
  const rig = await startRig({
    hosts: 1,
    objects: [
      namespace(NS, { 'openshift.io/cluster-monitoring': 'true' }),
      ...openshiftClusterConfig({ hybridOverlay: true }),
    ],
    host: () => ({
      hostname: 'WIN-B0',
      domain: 'lab.example.com',
      containersFeature: 'Enabled',
      dns: { 'api-int.test.example.com': ['10.0.0.2'] },
    }),
  });
  // WMCO is not installed: the plan installs it.
  rig.emu.remove('Namespace', NS);
  const address = rig.addresses[0] as string;
  const olm = attachOlmStandin(rig.emu, { stepMs: 20 });
  const wmco = attachWmcoStandin(rig.emu, {
    hosts: new Map([[address, { hostname: 'WIN-B0', build: '10.0.20348', reverseDns: 'win-b0.lab.example.com' }]]),
    stepMs: 20,
  });
  const resolver: Resolver = {
    lookup4: async (n) => [n],
    reverse: async (ip) => (ip === address ? ['win-b0.lab.example.com'] : []),
  };
  return {
    rig,
    resolver,
    stopStandins() {
      olm.stop();
      wmco.stop();
    },
  };
}

const entry = (r: Rig): string | undefined =>
  (r.emu.get('ConfigMap', 'windows-instances', NS) as (KubeObject & { data?: Record<string, string> }) | undefined)
    ?.data?.[r.addresses[0] as string];
const count = (r: Rig, kind: string): number => r.emu.list(kind).filter((o) => o.metadata.namespace === NS).length;

test('BYOH join (WMCO installed by the plan): cancelled at every step, the entry exists exactly when the run says so, and the re-run joins', async (t) => {
  const figures = await walkCancels<World>(
    {
      start: world,
      async run(w, options) {
        const host = w.rig.hostFor(0);
        const opts: ByohOptions = {
          kube: w.rig.kube,
          host,
          address: w.rig.addresses[0] as string,
          user: w.rig.user,
          resolver: w.resolver,
          pollMs: 20,
          timeouts: { node: 15_000, csr: 5000, version: 5000, ready: 5000 },
          installWmco: { approval: 'Automatic' },
          privateKey: { pem: new Secret(readFileSync(w.rig.keyPath, 'utf8')), source: w.rig.keyPath },
        };
        try {
          return await runPlan(buildByohJoinPlan(opts), { opts, state: {} } as ByohContext, {
            ...options,
            backoffMs: 10,
          });
        } finally {
          host.close();
        }
      },
      async stop(w) {
        w.stopStandins();
        await w.rig.stop();
      },
      hosts: (w) => w.rig.sims,
      afterCancel(w, result, point) {
        const state = result.aftermath?.state ?? '';
        const said = /windows-instances ConfigMap lists|WMCO keeps configuring/.test(state);
        if (entry(w.rig) !== undefined)
          assert.ok(said, `${point.stepId}: the entry exists, and the words must say so: ${state}`);
        else if (said) assert.match(state, /may already have taken effect/, `${point.stepId}: ${state}`);
        for (const kind of ['OperatorGroup', 'Subscription'])
          assert.ok(count(w.rig, kind) <= 1, `${point.stepId}: at most one ${kind}`);
      },
      afterDone(w) {
        assert.ok(entry(w.rig) !== undefined, 'the windows-instances entry');
        assert.ok(w.rig.emu.get('Node', 'win-b0'), 'the Node joined');
        assert.equal(count(w.rig, 'OperatorGroup'), 1);
        assert.equal(count(w.rig, 'Subscription'), 1);
        assert.ok(w.rig.emu.get('Secret', 'cloud-private-key', NS), 'the key Secret');
      },
    },
    (line) => t.diagnostic(line),
  );
  assert.ok(figures.steps.includes('add-instance'), figures.steps.join(', '));
});
