// What a preflight check found, as plain data: the BYOH and kubeadm joins' host checks
// (src/bootstrap/preflight.ts) and the kubeadm cluster checks (./kubeadm-cluster.ts) return these.

import type { Severity } from '../rules/severity';

/** A check's outcome uses the rules' severities: the same words, ranked the same way. */
export type FindingSeverity = Severity;

/** What the engine can set up itself when the user agrees. */
export type FixKind = 'install-wmco' | 'create-key-secret';

export interface Finding {
  id: string;
  severity: FindingSeverity;
  /** One line: what was checked and found. */
  title: string;
  /** What to do about it (empty for passing checks). */
  fix?: string;
  /** The engine can do this fix itself. */
  offer?: FixKind;
}

export const ok = (id: string, title: string): Finding => ({ id, severity: 'info', title });

export function blocking(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.severity === 'error');
}

/** A finding's mark: ✗ error, ! warning, ✓ passed. */
function mark(f: Finding): string {
  return f.severity === 'error' ? '✗' : f.severity === 'warning' ? '!' : '✓';
}

/** One finding per line: the mark and the title; the fix on the next line. */
export function formatFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `${mark(f)} ${f.title}${f.fix ? `\n    fix: ${f.fix}` : ''}`).join('\n');
}

/** A finding as one progress line: the mark, the title and the fix after a dash. */
export function findingLine(f: Finding): string {
  return `${mark(f)} ${f.title}${f.fix ? ` — ${f.fix}` : ''}`;
}
