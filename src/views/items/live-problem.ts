// The rows of the workload problems view: an object with its findings counted (its findings below),
// each finding, and the lines about the check itself (failed, kinds not read, rule errors, nothing found).
import type { LiveFinding, LiveReport } from '../../core/live/check';
import { objectTitle } from '../../core/live/document';
import { SEVERITIES, worstSeverity, type Severity } from '../../core/rules/severity';
import { COLORS, type TreeIcon } from '../item';
import { md } from '../markdown';
import type { LiveObjectKey, ProblemNode } from '../problem-item';
import { counted } from '../../core/plural';

const OPEN_LIVE_OBJECT_COMMAND = 'kubeWindows.openLiveObject';
const REFRESH_PROBLEMS_COMMAND = 'kubeWindows.refreshProblems';

const SEVERITY_ICON: Record<Severity, TreeIcon> = {
  error: { id: 'error', color: COLORS.error },
  warning: { id: 'warning', color: COLORS.warning },
  info: { id: 'info', color: COLORS.info },
};

const objectId = (key: LiveObjectKey): string => `problems/object/${key.kind}/${key.namespace ?? ''}/${key.name}`;

/** Nothing could be read: the message, and a retry. */
export function checkFailedNode(message: string): ProblemNode {
  return {
    id: 'problems/error',
    label: 'Cannot check this cluster',
    description: message,
    tooltip: md(message),
    icon: SEVERITY_ICON.error,
    contextValue: 'error',
    collapsible: 'none',
    command: { id: REFRESH_PROBLEMS_COMMAND, title: 'Retry', args: [] },
  };
}

/** A kind the user may not read: the rest is still checked. */
export function unreadNode(u: { what: string; message: string }): ProblemNode {
  return {
    id: `problems/unread/${u.what}`,
    label: `${u.what} not read`,
    description: u.message,
    tooltip: `${md(u.message)}\n\nThe other kinds were read and checked.`,
    icon: SEVERITY_ICON.warning,
    contextValue: 'info',
    collapsible: 'none',
  };
}

export function ruleErrorNode(e: { ruleId: string; message: string }): ProblemNode {
  return {
    id: `problems/rule-error/${e.ruleId}`,
    label: `Rule ${e.ruleId} failed`,
    description: e.message,
    tooltip: `${md(e.message)}\n\nThis is a bug of kube-windows; please report it.`,
    icon: { id: 'bug' },
    contextValue: 'info',
    collapsible: 'none',
  };
}

/** The check found nothing in the `n` objects it checked. */
export function noProblemsNode(n: number): ProblemNode {
  return {
    id: 'problems/none',
    label: 'No Windows workload problems',
    description: `${counted(n, 'object')} checked`,
    tooltip: `The live check found nothing to report in the ${counted(n, 'object')} it checked.`,
    icon: { id: 'pass', color: COLORS.ok },
    contextValue: 'info',
    collapsible: 'none',
  };
}

export function objectNode(o: LiveReport['objects'][number]): ProblemNode {
  const key: LiveObjectKey = {
    kind: o.kind,
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
    name: o.name,
  };
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of o.findings) counts[f.severity]++;
  const worst = worstSeverity(o.findings.map((f) => f.severity)) ?? 'info';
  const parts = SEVERITIES.filter((s) => counts[s] > 0).map((s) => counted(counts[s], s));
  return {
    id: objectId(key),
    label: objectTitle(key),
    description: parts.join(', '),
    tooltip: `**${md(objectTitle(key))}** (${o.apiVersion})\n\n${parts.join(', ')}`,
    icon: SEVERITY_ICON[worst],
    contextValue: 'liveObject',
    collapsible: 'collapsed',
    command: { id: OPEN_LIVE_OBJECT_COMMAND, title: 'Open the live YAML', args: [key] },
    object: key,
  };
}

export function findingNodes(key: LiveObjectKey, findings: readonly LiveFinding[]): ProblemNode[] {
  const id = objectId(key);
  return findings.map((f, i) => ({
    id: `${id}/finding/${i}`,
    label: f.ruleId,
    description: f.message,
    tooltip: `**${f.ruleId}** (${f.severity}) at \`${f.path}\`\n\n${md(f.message)}`,
    icon: SEVERITY_ICON[f.severity],
    contextValue: 'liveFinding',
    collapsible: 'none',
    command: { id: OPEN_LIVE_OBJECT_COMMAND, title: 'Show in the live YAML', args: [key, i] },
    object: key,
    finding: i,
  }));
}
