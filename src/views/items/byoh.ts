// The BYOH instances group: one row per entry of WMCO's windows-instances ConfigMap.
import type { ClusterErrorItem } from '../../cluster/errors';
import { isErrorItem, type ByohInstance, type ByohInstances } from '../../cluster/extras';
import { enc, withRef, type GroupScope, type TreeNode } from '../cluster-item';
import { COLORS } from '../item';
import { md } from '../markdown';
import { errorNode } from './error';
import { placeholder } from './placeholder';

export function byohItems(g: GroupScope, byoh: ByohInstances | ClusterErrorItem): TreeNode[] {
  if (isErrorItem(byoh)) return [errorNode(`${g.gid}/error`, byoh)];
  if (!byoh.configMap)
    return [
      placeholder(
        `${g.gid}/none`,
        'No windows-instances ConfigMap',
        'WMCO reads BYOH instances from the `windows-instances` ConfigMap; there is none.',
      ),
    ];
  if (!byoh.instances.length)
    return [placeholder(`${g.gid}/none`, 'No BYOH instances', 'The `windows-instances` ConfigMap is empty.')];
  return byoh.instances.map((i) =>
    withRef(
      { kind: 'byohInstance', context: g.context, address: i.address },
      byohNode(`${g.ctxId}/byoh/${enc(i.address)}`, i),
    ),
  );
}

function byohNode(id: string, i: ByohInstance): TreeNode {
  const description = i.invalid
    ? `invalid: ${i.invalid}`
    : i.status === 'joined'
      ? `joined as ${i.node ?? '?'}`
      : 'not joined';
  const lines = [
    `**${md(i.address)}**`,
    '',
    `- User: ${md(i.username ?? '?')}`,
    `- ${i.status === 'joined' ? `Joined as node ${md(i.node ?? '?')}` : 'Not joined: no Windows node has this address yet'}`,
  ];
  if (i.invalid) lines.push(`- Invalid entry: ${md(i.invalid)} (WMCO rejects the whole ConfigMap)`);
  const plain: Record<string, string> = { address: i.address, status: i.status };
  if (i.username) plain.username = i.username;
  if (i.node) plain.node = i.node;
  return {
    id,
    label: i.address,
    description,
    tooltip: lines.join('\n'),
    icon: i.invalid
      ? { id: 'warning', color: COLORS.warning }
      : i.status === 'joined'
        ? { id: 'plug', color: COLORS.ok }
        : { id: 'debug-disconnect', color: COLORS.warning },
    contextValue: 'byohInstance',
    collapsible: 'none',
    yaml: () => Promise.resolve(plain),
  };
}
