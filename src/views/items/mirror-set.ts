// The Mirror sets group: one row per ImageDigestMirrorSet or ImageTagMirrorSet.
import type { ClusterErrorItem } from '../../cluster/errors';
import { isErrorItem, type MirrorSets, type MirrorSetView } from '../../cluster/extras';
import { mirrorSetPath } from '../../cluster/openshift';
import { enc, withRef, type GroupScope, type ReadYaml, type TreeNode } from '../cluster-item';
import { md } from '../markdown';
import { errorNode } from './error';
import { placeholder } from './placeholder';

export function mirrorSetItems(g: GroupScope, sets: MirrorSets | ClusterErrorItem): TreeNode[] {
  if (isErrorItem(sets)) return [errorNode(`${g.gid}/error`, sets)];
  if (!sets.available)
    return [
      placeholder(
        `${g.gid}/none`,
        'Not available',
        'This cluster has no ImageDigestMirrorSet or ImageTagMirrorSet API (not OpenShift).',
      ),
    ];
  if (!sets.sets.length)
    return [placeholder(`${g.gid}/none`, 'No mirror sets', 'No ImageDigestMirrorSet or ImageTagMirrorSet.')];
  return sets.sets.map((s) =>
    withRef(
      { kind: 'mirrorSet', context: g.context, setKind: s.kind, name: s.name },
      mirrorNode(`${g.ctxId}/mirrorSet/${s.kind}/${enc(s.name)}`, s, g.yamlOf(mirrorSetPath(s.kind, s.name))),
    ),
  );
}

function mirrorNode(id: string, s: MirrorSetView, yaml: ReadYaml): TreeNode {
  const lines = [
    `**${md(s.name)}** (${s.kind})`,
    '',
    ...s.mirrors.map(
      (m) =>
        `- ${md(m.source)} → ${m.mirrors.map(md).join(', ')}${m.mirrorSourcePolicy ? ` (${md(m.mirrorSourcePolicy)})` : ''}`,
    ),
  ];
  return {
    id,
    label: s.name,
    description: s.kind,
    tooltip: lines.join('\n'),
    icon: { id: 'mirror' },
    contextValue: 'mirrorSet',
    collapsible: 'none',
    yaml,
  };
}
