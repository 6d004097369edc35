// A pod row of a node's Pods group, with the failure explanations that apply to it.
import { age } from '../../core/openshift/machine-state';
import { explanationWords, type Explanation } from '../../core/live/explain';
import { bySeverity } from '../../core/rules/severity';
import type { PodView } from '../../cluster/node-pods';
import type { TreeNode } from '../cluster-item';
import { COLORS, type TreeIcon } from '../item';
import { md } from '../markdown';
import { counted } from '../../core/plural';

/**
 * A pod row: "Running · 1/1 · 3 restarts · 5m" (age as of `nowMs`), and when the failure signatures
 * explain it, the worst explanation's icon and title (all of them in the tooltip).
 */
export function podNode(
  id: string,
  p: PodView,
  problems: readonly Explanation[],
  nowMs: number,
  yaml?: () => Promise<object>,
): TreeNode {
  const phase = p.phase ?? 'Unknown';
  const since = age(p.created, nowMs);
  const restarts = counted(p.restarts, 'restart');
  const sorted = [...problems].sort(bySeverity);
  const worst = sorted[0];
  const description = [phase, `${p.readyCount}/${p.containerCount}`, restarts, since, worst?.title ?? '']
    .filter(Boolean)
    .join(' · ');
  const ok = p.phase === 'Succeeded' || (p.phase === 'Running' && p.ready);
  const icon: TreeIcon = worst
    ? worst.severity === 'error'
      ? { id: 'error', color: COLORS.error }
      : { id: 'warning', color: COLORS.warning }
    : ok
      ? { id: 'pass', color: COLORS.ok }
      : p.phase === 'Failed'
        ? { id: 'error', color: COLORS.error }
        : { id: 'circle-outline', color: COLORS.warning };
  const lines = [
    `**${md(p.name)}** · ${md(phase)}`,
    '',
    `- Namespace: ${md(p.namespace)}`,
    `- Ready: ${p.readyCount}/${p.containerCount} containers`,
    `- Restarts: ${p.restarts}`,
  ];
  if (since) lines.push(`- Age: ${since}`);
  if (p.reason) lines.push(`- Reason: ${md(p.reason)}`);
  lines.push('- Images:', ...p.images.map((i) => `  - \`${i.replace(/`/g, "'")}\``));
  // Each explanation says its title, what happened and what to do once each (explanationWords).
  for (const e of sorted) {
    const words = explanationWords(e);
    lines.push(
      '',
      `$(${e.severity === 'error' ? 'error' : 'warning'}) **${e.id}**${words.title ? ` ${md(words.title)}` : ''}`,
      '',
      md(words.message),
    );
    if (words.fix) lines.push('', `_Fix:_ ${md(words.fix)}`);
  }
  const node: TreeNode = {
    id,
    label: p.name,
    description,
    tooltip: lines.join('\n'),
    icon,
    contextValue: 'pod',
    collapsible: 'none',
  };
  if (yaml) node.yaml = yaml;
  return node;
}
