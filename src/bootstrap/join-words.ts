// What a finished join and a node removal say, worded once here rather than in a front end: the join's
// result (with its preflight warnings, when there were any) and what a removal does on this kind of cluster.
import { counted } from '../core/plural';
import { formatFindings } from '../core/windows/findings';
import type { JoinVia } from './join';
import type { Finding } from './preflight';

export interface JoinedWords {
  /** The preflight warnings the join went on with. */
  warnings: Finding[];
  /** One line: who joined where, and how many warnings, with the first. */
  message: string;
  /** The warnings with their fixes, as a document (only when there are warnings). */
  details?: string;
}

/** The result of a join that succeeded: `address` joined `context`, with the warnings among `findings`. */
export function joinedWords(address: string, context: string, findings: readonly Finding[]): JoinedWords {
  const warnings = findings.filter((f) => f.severity === 'warning');
  const joined = `${address} joined ${context} as a Windows node`;
  if (warnings.length === 0) return { warnings, message: `${joined}.` };
  const count = counted(warnings.length, 'warning');
  const first = warnings[0]?.title ?? '';
  return {
    warnings,
    message: `${joined}, with ${count}: ${first}${warnings.length > 1 ? ' …' : '.'}`,
    details: `# ${joined}, with ${count}\n\n${formatFindings(warnings)}\n`,
  };
}

/** What removing a node does: deleting the BYOH entry (WMCO does the rest), or kubeadm's, with or without a reset. */
export function removalDetail(via: JoinVia, address: string, resetsHost: boolean): string {
  if (via === 'byoh')
    return `BYOH: the windows-instances entry ${address} is deleted, and WMCO drains, deconfigures and deletes the node. Its pods are evicted.`;
  return resetsHost
    ? `kubeadm: the node is cordoned and deleted, then kubeadm reset runs on ${address} over SSH and the kubelet service is removed. Its pods are evicted.`
    : 'kubeadm: the node is cordoned and deleted; the host keeps kubelet installed and cannot rejoin until it is reset. Its pods are evicted.';
}
