// The small, plain ClusterSnapshot the language server takes: Windows node builds and taints, and the
// RuntimeClasses that schedule onto Windows. No client objects cross this line.
import type { ClusterSnapshot } from '../core/rules/facts';
import type { ClusterRuntimeClass } from './extras';
import type { WindowsNodeView } from './windows-nodes';

export function buildSnapshot(input: { name: string; flavour?: 'openshift' | 'kubernetes'; nodes: WindowsNodeView[]; runtimeClasses: ClusterRuntimeClass[] }): ClusterSnapshot {
  const snapshot: ClusterSnapshot = {
    name: input.name,
    windowsNodes: input.nodes.filter((n) => n.build).map((n) => ({ name: n.name, build: n.build ?? '', taints: n.taints.map((t) => ({ ...t })) })),
    runtimeClasses: input.runtimeClasses.map((rc) => ({ ...rc, nodeSelector: { ...rc.nodeSelector }, tolerations: rc.tolerations.map((t) => ({ ...t })) })),
  };
  if (input.flavour) snapshot.flavour = input.flavour;
  return snapshot;
}

/** Snapshot of a connected session; parts that failed are left empty (rules only get sharper with facts). */
export async function snapshotOf(session: {
  context: string;
  connect(): Promise<{ status: 'connected'; info: { flavour: 'openshift' | 'kubernetes' } } | { status: 'error' }>;
  windowsNodes(): Promise<{ nodes(): WindowsNodeView[] }>;
  runtimeClasses(): Promise<ClusterRuntimeClass[] | { kind: 'error' }>;
}): Promise<ClusterSnapshot | undefined> {
  const state = await session.connect();
  if (state.status !== 'connected') return undefined;
  const [model, rcs] = await Promise.all([session.windowsNodes(), session.runtimeClasses()]);
  return buildSnapshot({
    name: session.context,
    flavour: state.info.flavour,
    nodes: model.nodes(),
    runtimeClasses: Array.isArray(rcs) ? rcs : [],
  });
}
