// `nodes cordon`, `nodes uncordon` and `nodes drain` as small plans built from the steps the reboot
// plan uses too (src/bootstrap/node-steps.ts): the same cordon, the same drain (Eviction API,
// PodDisruptionBudgets honoured, DaemonSet and mirror pods left, emptyDir data only with consent)
// and the same uncordon. A drain leaves the node cordoned, as `kubectl drain` does.
import { drainTargets } from '../cluster/pods';
import { emptyDirLosses, podName } from '../core/drain';
import {
  cordoned,
  cordonStep,
  drainStep,
  timing,
  uncordonStep,
  type DrainState,
  type NodeDrainOptions,
} from './node-steps';
import { prepare, type PreparedPlan } from './prepared';
import type { RunResult } from './runner';

export type SchedulingAction = 'cordon' | 'uncordon' | 'drain';

/** The plan of one action on one node (read the Node first and pass it in, as for the reboot). */
export function schedulingPlanFor(action: SchedulingAction, opts: NodeDrainOptions): PreparedPlan<DrainState> {
  const nodeName = opts.node.metadata.name;
  const steps =
    action === 'cordon'
      ? [cordonStep(nodeName)]
      : action === 'uncordon'
        ? [uncordonStep(nodeName)]
        : [
            cordonStep(nodeName, 'drain'),
            cordoned(nodeName, drainStep(nodeName, opts, timing(opts, 0), 'drain'), 'drain'),
          ];
  const title =
    action === 'drain' ? `Drain ${nodeName}` : action === 'cordon' ? `Cordon ${nodeName}` : `Uncordon ${nodeName}`;
  return prepare({ id: `node-${action}`, title, target: nodeName, steps }, { opts, state: {} });
}

/**
 * What a drain would do, for the question before it: the pods it evicts, those it leaves, and whose emptyDir data is
 * lost.
 */
export async function drainPreview(
  opts: Pick<NodeDrainOptions, 'kube' | 'node'>,
  signal?: AbortSignal,
): Promise<{ evict: string[]; skipped: string[]; emptyDir: string[] }> {
  const t = await drainTargets(opts.kube, opts.node.metadata.name, signal);
  const evict = t.evict.filter((p) => !p.metadata.deletionTimestamp);
  return { evict: evict.map(podName), skipped: t.skipped, emptyDir: emptyDirLosses(evict) };
}

/** One sentence for the end of a cordon, uncordon or drain. */
export function schedulingSummary(action: SchedulingAction, result: RunResult, nodeName: string): string {
  const done = result.steps.every((s) => s.outcome === 'skipped');
  if (result.outcome === 'done') {
    if (action === 'drain')
      return `${nodeName} is drained and stays cordoned (kube-windows nodes uncordon ${nodeName} makes it schedulable again).`;
    return done ? `${nodeName} was already ${action}ed.` : `${nodeName} ${action}ed.`;
  }
  const verb = action === 'drain' ? 'drain' : action;
  return result.outcome === 'cancelled'
    ? `The ${verb} of ${nodeName} was cancelled at step ${result.error?.stepId ?? '?'}. ${result.aftermath?.state ?? ''}`.trim()
    : `The ${verb} of ${nodeName} failed at step ${result.error?.stepId ?? '?'}: ${result.error?.message ?? ''}`;
}
