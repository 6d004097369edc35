// The Windows node list as `kube-windows nodes` (and `kubectl windows nodes`) prints it: kubectl's
// columns for nodes (NAME STATUS ROLES AGE VERSION; -o wide adds the addresses, OS image, kernel and
// runtime) with the Windows release after them, kubectl's `-o name`, and a v1 List for -o json|yaml.
// STATUS, ROLES and AGE are worded as kubectl words them, so a table reads the same in both.
import { buildByNumber, parseBuildLabel } from './windows/builds';
import { BUILD_LABEL } from './well-known';

/** The fields of a Node the listing reads (the API's objects have more, kept as they are for -o json|yaml). */
export interface ListedNode {
  metadata?: { name?: string; creationTimestamp?: string; labels?: Record<string, string> };
  spec?: { unschedulable?: boolean };
  status?: {
    conditions?: { type: string; status: string }[];
    addresses?: { type: string; address: string }[];
    nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string };
  };
}

export const NODE_OUTPUTS = ['wide', 'json', 'yaml', 'name'] as const;
export type NodeOutput = (typeof NODE_OUTPUTS)[number];

const ROLE_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

/** kubectl's STATUS: the Ready condition, then SchedulingDisabled for a cordoned node. */
export function nodeStatus(node: ListedNode): string {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const state = ready === 'True' ? 'Ready' : ready === 'False' ? 'NotReady' : 'Unknown';
  return node.spec?.unschedulable ? `${state},SchedulingDisabled` : state;
}

/** kubectl's ROLES: node-role.kubernetes.io/<role> labels and kubernetes.io/role, sorted; <none> without. */
export function nodeRoles(node: ListedNode): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata?.labels ?? {})) {
    if (key.startsWith(ROLE_PREFIX) && key.length > ROLE_PREFIX.length) roles.add(key.slice(ROLE_PREFIX.length));
    else if (key === ROLE_LABEL && value !== '') roles.add(value);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

/** kubectl's AGE (apimachinery's HumanDuration): "42s", "5m10s", "125m", "5h30m", "40h", "5d3h", "200d", "3y100d". */
export function humanAge(ms: number): string {
  const s = Math.trunc(ms / 1000);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const min = Math.trunc(s / 60);
  const withRest = (big: number, unit: string, rest: number, restUnit: string) =>
    rest === 0 ? `${big}${unit}` : `${big}${unit}${rest}${restUnit}`;
  if (min < 10) return withRest(min, 'm', s % 60, 's');
  if (min < 180) return `${min}m`;
  const h = Math.trunc(min / 60);
  if (h < 8) return withRest(h, 'h', min % 60, 'm');
  if (h < 48) return `${h}h`;
  const d = Math.trunc(h / 24);
  if (h < 24 * 8) return withRest(d, 'd', h % 24, 'h');
  if (h < 24 * 365 * 2) return `${d}d`;
  if (h < 24 * 365 * 8) return withRest(Math.trunc(d / 365), 'y', d % 365, 'd');
  return `${Math.trunc(d / 365)}y`;
}

/** "Windows Server 2022 (10.0.20348)" from the build label, else the node's OS image, else <unknown>. */
export function windowsRelease(node: ListedNode): string {
  const label = node.metadata?.labels?.[BUILD_LABEL];
  const parsed = parseBuildLabel(label);
  if (parsed) {
    const known = buildByNumber(parsed.build);
    const name = known ? known.name.replace(/\s*\((\d{4}|SAC)\)$/, '') : 'Windows';
    return `${name} (${label})`;
  }
  return node.status?.nodeInfo?.osImage || '<unknown>';
}

/** The table's rows, header first, one node per row, by name. */
export function nodeTable(nodes: readonly ListedNode[], now: number, wide: boolean): string[][] {
  // kubectl's columns, as kubectl fills them, then ours: a script that reads kubectl's reads these.
  const header = ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'];
  if (wide) header.push('INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME');
  header.push('WINDOWS');
  const rows = sortedByName(nodes).map((node) => {
    const created = Date.parse(node.metadata?.creationTimestamp ?? '');
    const info = node.status?.nodeInfo;
    const address = (type: string) => node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
    const row = [
      node.metadata?.name ?? '',
      nodeStatus(node),
      nodeRoles(node),
      Number.isNaN(created) ? '<unknown>' : humanAge(now - created),
      info?.kubeletVersion ?? '',
    ];
    if (wide)
      row.push(
        address('InternalIP'),
        address('ExternalIP'),
        info?.osImage || '<unknown>',
        info?.kernelVersion || '<unknown>',
        info?.containerRuntimeVersion || '<unknown>',
      );
    row.push(windowsRelease(node));
    return row;
  });
  return [header, ...rows];
}

/** Columns padded as kubectl's tab writer pads them: the widest cell plus three spaces, the last column bare. */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] + 3))).join(''))
    .join('\n');
}

/** `-o name`: node/NAME per line. */
export function nodeNames(nodes: readonly ListedNode[]): string {
  return sortedByName(nodes)
    .map((n) => `node/${n.metadata?.name ?? ''}`)
    .join('\n');
}

/**
 * -o json|yaml: the nodes as kubectl prints a list of them, a v1 List with each item's apiVersion and kind, without
 * metadata.managedFields (kubectl shows them only with --show-managed-fields).
 */
export function nodeList(nodes: readonly ListedNode[]): { apiVersion: 'v1'; kind: 'List'; items: unknown[] } & {
  metadata: { resourceVersion: string };
} {
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: sortedByName(nodes).map(printedNode),
    metadata: { resourceVersion: '' },
  };
}

/** A node as kubectl prints it in a list or a watch: apiVersion and kind set, managedFields left out. */
export function printedNode(node: ListedNode): Record<string, unknown> {
  const { managedFields: _managed, ...metadata } = (node.metadata ?? {}) as Record<string, unknown>;
  return { apiVersion: 'v1', kind: 'Node', ...node, metadata };
}

function sortedByName(nodes: readonly ListedNode[]): ListedNode[] {
  // The API server's order (names as bytes), which kubectl keeps.
  const name = (n: ListedNode) => n.metadata?.name ?? '';
  return [...nodes].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}
