// The Windows RuntimeClasses group: one row per RuntimeClass that schedules onto Windows nodes.
import type { ClusterErrorItem } from '../../cluster/errors';
import { isErrorItem, runtimeClassPath, type ClusterRuntimeClass } from '../../cluster/extras';
import { enc, withRef, type GroupScope, type ReadYaml, type TreeNode } from '../cluster-item';
import { md } from '../markdown';
import { errorNode } from './error';
import { placeholder } from './placeholder';

export function runtimeClassItems(g: GroupScope, rcs: ClusterRuntimeClass[] | ClusterErrorItem): TreeNode[] {
  if (isErrorItem(rcs)) return [errorNode(`${g.gid}/error`, rcs)];
  if (!rcs.length)
    return [
      placeholder(
        `${g.gid}/none`,
        'No Windows RuntimeClasses',
        'No RuntimeClass selects `kubernetes.io/os=windows` nodes.',
      ),
    ];
  return rcs.map((rc) =>
    withRef(
      { kind: 'runtimeClass', context: g.context, name: rc.name },
      runtimeClassNode(`${g.ctxId}/runtimeClass/${enc(rc.name)}`, rc, g.yamlOf(runtimeClassPath(rc.name))),
    ),
  );
}

function runtimeClassNode(id: string, rc: ClusterRuntimeClass, yaml: ReadYaml): TreeNode {
  const description = [rc.handler, rc.build ? `build ${rc.build}` : 'any build'].join(' · ');
  const selector = Object.entries(rc.nodeSelector).map(([k, v]) => `\`${k}=${v}\``);
  const lines = [
    `**${md(rc.name)}**`,
    '',
    `- Handler: ${md(rc.handler)}`,
    `- Node selector: ${selector.join(', ') || 'none'}`,
    `- Tolerations: ${rc.tolerations.length}`,
  ];
  return {
    id,
    label: rc.name,
    description,
    tooltip: lines.join('\n'),
    icon: { id: 'symbol-class' },
    contextValue: 'runtimeClass',
    collapsible: 'none',
    yaml,
  };
}
