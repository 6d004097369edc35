// A pod row's tooltip says each explanation's title, what happened and what to do once each: the fix
// is not repeated when the message already says it, nor the title when the message restates it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describePod } from '../../src/core/live/describe';
import { explainPod, type NodeFacts } from '../../src/core/live/explain';
import { podNode } from '../../src/views/items/pod';
import type { PodView } from '../../src/cluster/node-pods';

const NODE: NodeFacts = { name: 'win-2', build: '10.0.20348', os: 'windows' };
const VIEW: PodView = {
  namespace: 'web',
  name: 'iis-0',
  phase: 'Pending',
  ready: false,
  readyCount: 0,
  containerCount: 1,
  restarts: 0,
  images: ['mcr.microsoft.com/windows/servercore:ltsc2019'],
};

function pod(status: Record<string, unknown>, events: { reason: string; message: string }[] = []) {
  const p = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'iis-0', namespace: 'web', uid: 'u-1' },
    spec: {
      nodeName: 'win-2',
      nodeSelector: { 'kubernetes.io/os': 'windows' },
      containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore:ltsc2019' }],
    },
    status,
  };
  const evs = events.map((e) => ({
    ...e,
    type: 'Warning',
    involvedObject: { kind: 'Pod', name: 'iis-0', namespace: 'web', uid: 'u-1' },
  }));
  return { p, evs };
}

const count = (text: string, part: string) => text.split(part).length - 1;

test('WINF001: the pod tooltip and the describe document say what happened, then the fix, once each', () => {
  const { p } = pod({
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'iis',
        state: {
          waiting: {
            reason: 'CreateContainerError',
            message:
              'hcs::CreateComputeSystem iis: The container operating system does not match the host operating system.',
          },
        },
      },
    ],
  });
  const explanations = explainPod(p, [], NODE);
  assert.deepEqual(
    explanations.map((e) => e.id),
    ['WINF001'],
  );
  const [e] = explanations;
  const tooltip = podNode('id', VIEW, explanations, Date.now()).tooltip;
  // The advice (the tag to use) appears once, after what happened.
  assert.equal(count(tooltip, 'ltsc2022'), 1, tooltip);
  assert.equal(count(tooltip, '_Fix:_'), 1, tooltip);
  assert.match(tooltip, /\*\*WINF001\*\* Image and node Windows builds differ/);
  assert.match(tooltip, /_Fix:_ Use mcr\\?\.microsoft\\?\.com\/windows\/servercore:ltsc2022 or schedule/);
  const doc = describePod({ pod: p, events: [], node: NODE, now: new Date() });
  assert.equal(count(doc, e.fix), 1, doc);
  assert.equal(count(doc, 'servercore:ltsc2022'), 1, doc);
});

test('a message that restates the title does not come after it; a separate fix is said once', () => {
  const { p, evs } = pod({ phase: 'Pending' }, [
    {
      reason: 'FailedCreatePodSandBox',
      message:
        'Failed to create pod sandbox: rpc error: code = Unknown desc = NetworkPlugin cni failed to set up pod "iis-0_web" network: Failed to create endpoint: HNS failed with error : Element not found.',
    },
  ]);
  const explanations = explainPod(p, evs, NODE);
  assert.deepEqual(
    explanations.map((e) => e.id),
    ['WINF010'],
  );
  const [e] = explanations;
  const tooltip = podNode('id', VIEW, explanations, Date.now()).tooltip;
  const head = e.title.replace(/ \(.*$/, '');
  assert.equal(count(tooltip, head), 1, `the title once: ${tooltip}`);
  assert.match(tooltip, /\*\*WINF010\*\*\n\nPod sandbox network failed on the Windows node [^\n]* on node win\\-2/);
  assert.equal(count(tooltip, 'Get\\-HnsNetwork'), 1, tooltip);
  assert.match(tooltip, /_Fix:_ Read the node/);
});
