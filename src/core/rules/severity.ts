// The severities of findings and their order, decided once: the CLI's --min-severity, the live
// check, the language server's settings and the cluster views all rank and list by these.

export type Severity = 'error' | 'warning' | 'info';

/** What a rule can be set to (settings, `--severity`): a severity, or off. */
export type SeveritySetting = Severity | 'off';

/** Most severe first: the order lists and summaries show them in. */
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

/** Higher is more severe: a finding is kept at `min` when `SEVERITY_RANK[f.severity] >= SEVERITY_RANK[min]`. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, error: 2 };

/** Sort comparator: most severe first (stable sorts keep the order within a severity). */
export function bySeverity(a: { severity: Severity }, b: { severity: Severity }): number {
  return SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity];
}

/** The most severe of `severities`, or undefined when there is none. */
export function worstSeverity(severities: Iterable<Severity>): Severity | undefined {
  let worst: Severity | undefined;
  for (const s of severities) if (worst === undefined || SEVERITY_RANK[s] > SEVERITY_RANK[worst]) worst = s;
  return worst;
}
