// Removing a node joined with kubeadm: cordon it, run `kubeadm reset` on the host when it can be
// reached (and stop the kubelet), delete the Node. Each step checks first, so a second run is a no-op.

import type { KubeClient } from '../cluster/kube-client';
import { cordonCall, deleteNode, getNode, nodePath, setCordoned } from '../cluster/nodes';
import { fileHash, kubeadmReset, removeService } from '../core/windows/host-ops';
import { LAYOUT } from '../core/windows/layout';
import type { WindowsHost } from '../remote/windows-host';
import type { Plan, Step } from './plan';
import { proxyClearStep } from './kubeadm-proxy-steps';

export interface KubeadmRemoveOptions {
  kube: KubeClient;
  /** The host, when reachable: kubeadm reset runs there. */
  host?: WindowsHost;
  nodeName: string;
  address: string;
}

export function buildKubeadmRemovePlan(opts: KubeadmRemoveOptions): Plan<KubeadmRemoveOptions> {
  const steps: Step<KubeadmRemoveOptions>[] = [
    {
      id: 'cordon',
      title: `Cordon ${opts.nodeName}`,
      preview: { check: 'the node is unschedulable or gone', api: [cordonCall(opts.nodeName, true)] },
      check: async (o, signal) => {
        const n = await getNode(o.kube, o.nodeName, signal);
        return !n || n.spec?.unschedulable ? 'done' : 'todo';
      },
      apply: async (o, signal) => setCordoned(o.kube, o.nodeName, true, signal),
      verify: async () => true,
      leavesBehind: {
        state: `The Node ${opts.nodeName} is cordoned (unschedulable) and still in the cluster; running the removal again finishes it.`,
        undo: {
          command: 'kubeWindows.uncordonNode',
          label: 'Uncordon',
          node: opts.nodeName,
          cli: `\`kube-windows nodes uncordon ${opts.nodeName}\` undoes it.`,
        },
      },
      retries: 2,
      timeoutMs: 60_000,
    },
  ];
  if (opts.host) {
    steps.push({
      id: 'kubeadm-reset',
      title: 'Run kubeadm reset on the host and stop kubelet',
      preview: {
        check: `${LAYOUT.kubeletKubeconfig} is absent`,
        powershell: [kubeadmReset(LAYOUT.kubeadm).script, removeService('kubelet').script],
      },
      check: async (o, signal) =>
        (await (o.host as WindowsHost).run(fileHash(LAYOUT.kubeletKubeconfig), signal)).exists ? 'todo' : 'done',
      apply: async (o, signal) => {
        const r = await (o.host as WindowsHost).run(kubeadmReset(LAYOUT.kubeadm), signal);
        if (r.exitCode !== 0)
          throw new Error(
            `kubeadm reset failed (exit code ${r.exitCode}): ${r.output.trim().split(/\r?\n/).slice(-4).join(' ')}`,
          );
        await (o.host as WindowsHost).run(removeService('kubelet'), signal);
      },
      verify: async () => true,
      leavesBehind: {
        state: `kubeadm reset ran on ${opts.address} and its kubelet is stopped: the Node ${opts.nodeName} stays in the cluster, cordoned and soon NotReady, until the removal runs again and deletes it.`,
      },
      retries: 1,
      timeoutMs: 600_000,
    });
    steps.push(proxyClearStep());
  }
  steps.push({
    id: 'delete-node',
    title: `Delete the Node ${opts.nodeName}`,
    preview: { check: 'the Node is gone', api: [{ verb: 'DELETE', path: nodePath(opts.nodeName) }] },
    check: async (o, signal) => ((await getNode(o.kube, o.nodeName, signal)) ? 'todo' : 'done'),
    apply: async (o, signal) => deleteNode(o.kube, o.nodeName, signal),
    verify: async (o, signal) => ((await getNode(o.kube, o.nodeName, signal)) ? 'the Node is still there' : true),
    retries: 2,
    timeoutMs: 60_000,
  });
  return { id: 'kubeadm-remove', title: `Remove ${opts.nodeName} (kubeadm)`, target: opts.nodeName, steps };
}
