// The admission policies group: one row per kube-windows ValidatingAdmissionPolicy, with its action, its
// rules and its version against the extension's (core/policy/status.ts words it).
import type { ClusterErrorItem } from '../../cluster/errors';
import { isErrorItem } from '../../cluster/extras';
import type { PolicyStatusRow } from '../../core/policy/status';
import { counted } from '../../core/plural';
import { enc, type GroupScope, type TreeNode } from '../cluster-item';
import { md } from '../markdown';
import { errorNode } from './error';
import { placeholder } from './placeholder';

export function admissionPolicyItems(
  g: GroupScope,
  rows: PolicyStatusRow[] | ClusterErrorItem | undefined,
  extensionVersion: string,
): TreeNode[] {
  if (rows === undefined)
    return [
      placeholder(
        `${g.gid}/unavailable`,
        'Not available (Kubernetes 1.30 or later)',
        'This cluster does not serve ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1).',
      ),
    ];
  if (isErrorItem(rows)) return [errorNode(`${g.gid}/error`, rows)];
  if (rows.length === 0)
    return [
      placeholder(
        `${g.gid}/none`,
        'Not installed',
        'No kube-windows admission policies: right-click the cluster → **Enforce Windows rules…**, or `kube-windows policy apply`.',
      ),
    ];
  return rows.map((r) => {
    const description = [
      r.action ?? 'no binding',
      counted(r.rules.length, 'rule'),
      r.version ? `v${r.version}` : undefined,
      r.age === 'older' ? 'older than the extension' : undefined,
    ]
      .filter(Boolean)
      .join(' · ');
    const lines = [
      `**${md(r.name)}**`,
      '',
      `- Action: ${md(r.action ?? 'none (no binding)')}`,
      `- Rules: ${md(r.rules.join(', ') || 'none')}`,
      `- Version: ${md(r.version ?? 'unknown')} (${md(r.age === 'older' ? `older than the extension's ${extensionVersion}: Enforce Windows rules… upgrades it` : r.versionNote)})`,
      ...r.problems.map((p) => `- ⚠ ${md(p)}`),
    ];
    return {
      id: `${g.ctxId}/policy/${enc(r.name)}`,
      label: r.name,
      description,
      tooltip: lines.join('\n'),
      icon: { id: r.problems.length > 0 || r.age === 'older' ? 'warning' : 'shield' },
      contextValue: 'admissionPolicy',
      collapsible: 'none',
    };
  });
}
