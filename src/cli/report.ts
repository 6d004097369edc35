import type { Finding, Severity } from '../core/rules/types';
import { RULES, RULES_BY_ID, docsUrl } from '../core/rules/registry';
import { SIGNATURES, SIGNATURES_BY_ID } from '../core/live/signatures';
import type { LiveReport, UnreadList } from '../core/live/check';
import type { Unreadable } from './files';
import { counted } from '../core/plural';

/** One checked file as the output formats see it. */
export interface FileReport {
  path: string;
  findings: Finding[];
  skipped?: string;
  /** Another tool's YAML (a workflow, docker-compose …): skipped, only counted. */
  notKubernetes?: boolean;
}

export interface Summary {
  /** Files checked (those that hold Kubernetes objects, or could not be analysed). */
  files: number;
  /** YAML files of other tools, skipped. */
  notKubernetes: number;
  /** Paths that could not be read (missing, a glob that matched nothing, not YAML, unreadable). */
  unreadable: number;
  filesWithFindings: number;
  filesSkipped: number;
  findings: number;
  errors: number;
  warnings: number;
  infos: number;
  documents: number;
  workloads: number;
  windowsWorkloads: number;
  fixesApplied?: number;
}

export function summarize(
  reports: FileReport[],
  counts: { documents: number; workloads: number; windowsWorkloads: number },
  unreadable: Unreadable[] = [],
): Summary {
  const s: Summary = {
    files: reports.filter((r) => !r.notKubernetes).length,
    notKubernetes: reports.filter((r) => r.notKubernetes).length,
    unreadable: unreadable.length,
    filesWithFindings: 0,
    filesSkipped: 0,
    findings: 0,
    errors: 0,
    warnings: 0,
    infos: 0,
    ...counts,
  };
  for (const r of reports) {
    if (r.skipped) s.filesSkipped++;
    if (r.findings.length > 0) s.filesWithFindings++;
    for (const f of r.findings) {
      s.findings++;
      if (f.severity === 'error') s.errors++;
      else if (f.severity === 'warning') s.warnings++;
      else s.infos++;
    }
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// JSON: the contract other tools read (0-based LSP positions).

/**
 * `kubernetesVersion`: the release the rules decided by, a top-level key (absent when not given). Each
 * error finding says `apiRejects`: the API server refuses the object (true) or accepts it and it can
 * never run as written (false).
 */
export function formatJson(
  reports: FileReport[],
  summary: Summary,
  unreadable: Unreadable[] = [],
  kubernetesVersion?: string,
): string {
  // One finding per line: a findings-dense run writes half the bytes of fully indented JSON (output
  // was a fifth of the time there), and each finding stays one greppable line.
  const files = reports
    .filter((r) => !r.notKubernetes)
    .map((r) => {
      const findings = r.findings.map(
        (f) =>
          `        ${JSON.stringify({
            ruleId: f.ruleId,
            severity: f.severity,
            ...(f.apiRejects !== undefined ? { apiRejects: f.apiRejects } : {}),
            message: f.message,
            range: f.range,
            fixes: f.fixes.map((x) => ({
              title: x.title,
              kind: x.kind,
              edits: x.edits.map((e) => ({ range: e.range, newText: e.newText })),
            })),
            ...(f.related ? { related: f.related } : {}),
          })}`,
      );
      const head = [
        `      "path": ${JSON.stringify(r.path)}`,
        findings.length > 0 ? `      "findings": [\n${findings.join(',\n')}\n      ]` : '      "findings": []',
      ];
      if (r.skipped) head.push(`      "skipped": ${JSON.stringify(r.skipped)}`);
      return `    {\n${head.join(',\n')}\n    }`;
    });
  const summaryText = JSON.stringify(summary, null, 2).replace(/\n/g, '\n  ');
  const others = reports.filter((r) => r.notKubernetes).map((r) => r.path);
  const extra = [
    kubernetesVersion !== undefined ? `  "kubernetesVersion": ${JSON.stringify(kubernetesVersion)},\n` : '',
    others.length > 0 ? `  "notKubernetes": ${JSON.stringify(others)},\n` : '',
    unreadable.length > 0 ? `  "unreadable": ${JSON.stringify(unreadable, null, 2).replace(/\n/g, '\n  ')},\n` : '',
  ].join('');
  return `{\n  "files": ${files.length > 0 ? `[\n${files.join(',\n')}\n  ]` : '[]'},\n${extra}  "summary": ${summaryText}\n}\n`;
}

// ---------------------------------------------------------------------------------------------
// Text: for people.

const COLORS = { red: 31, yellow: 33, blue: 34, gray: 90, bold: 1, green: 32 } as const;

export function formatText(
  reports: FileReport[],
  summary: Summary,
  color: boolean,
  unreadable: Unreadable[] = [],
): string {
  const paint = (c: keyof typeof COLORS, s: string) => (color ? `\u001b[${COLORS[c]}m${s}\u001b[0m` : s);
  const sevColor: Record<Severity, keyof typeof COLORS> = { error: 'red', warning: 'yellow', info: 'blue' };
  const lines: string[] = [];
  for (const r of reports) {
    if (r.skipped) lines.push(`${r.path}: ${paint('gray', `not analysed: ${r.skipped}`)}`);
    for (const f of r.findings) {
      const loc = `${r.path}:${f.range.start.line + 1}:${f.range.start.character + 1}`;
      const fix =
        f.fixes.length === 0
          ? ''
          : paint('gray', f.fixes.some((x) => x.kind === 'safe') ? ' (fixable)' : ' (fixable with --fix=all)');
      lines.push(`${loc} ${paint(sevColor[f.severity], f.severity)} ${paint('bold', f.ruleId)} ${f.message}${fix}`);
    }
  }
  if (lines.length > 0) lines.push('');
  if (unreadable.length > 0)
    lines.push(
      paint(
        'red',
        `✖ ${unreadable.length === 1 ? '1 path' : `${unreadable.length} paths`} could not be read: ${unreadable.map((u) => `${u.path} (${u.reason})`).join('; ')}`,
      ),
    );
  lines.push(summaryLine(summary, paint));
  return `${lines.join('\n')}\n`;
}

function summaryLine(s: Summary, paint: (c: keyof typeof COLORS, t: string) => string): string {
  const scope = `${counted(s.files, 'file')} (${counted(s.workloads, 'workload')}, ${s.windowsWorkloads} for Windows)`;
  const fixed = s.fixesApplied ? `; ${counted(s.fixesApplied, 'fix', 'fixes')} applied` : '';
  const skipped = s.filesSkipped ? `; ${counted(s.filesSkipped, 'file')} not analysed` : '';
  const others = s.notKubernetes ? `; ${counted(s.notKubernetes, 'YAML file')} not Kubernetes, skipped` : '';
  const tail = `${fixed}${skipped}${others}`;
  // Nothing was checked because nothing could be read: not a success to paint green.
  if (s.findings === 0 && s.unreadable > 0 && s.files === 0) return paint('red', `✖ nothing checked${tail}`);
  if (s.files === 0 && s.notKubernetes === 0) return `nothing checked: no YAML file found${tail}`;
  if (s.findings === 0) return paint(s.unreadable > 0 ? 'yellow' : 'green', `✔ no findings in ${scope}${tail}`);
  const parts = [counted(s.errors, 'error'), counted(s.warnings, 'warning'), `${s.infos} info`];
  return paint(
    s.errors > 0 ? 'red' : 'yellow',
    `✖ ${counted(s.findings, 'finding')} (${parts.join(', ')}) in ${s.filesWithFindings} of ${scope}${tail}`,
  );
}

// ---------------------------------------------------------------------------------------------
// SARIF 2.1.0, as GitHub code scanning reads it.

const SARIF_LEVEL: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'note' };

/** A rule's (or a failure signature's) SARIF descriptor. */
function sarifRule(
  r: { id: string; title: string; severity: Severity; apiRejects?: boolean; releases?: string },
  tags: string[],
  extra: Record<string, unknown> = {},
) {
  const about = {
    ...(r.severity === 'error' ? { apiRejects: r.apiRejects === true } : {}),
    ...(r.releases !== undefined ? { releases: r.releases } : {}),
  };
  return {
    id: r.id,
    name: r.id,
    shortDescription: { text: r.title },
    fullDescription: { text: r.title },
    helpUri: docsUrl(r.id),
    help: { text: `${r.title} See ${docsUrl(r.id)}` },
    defaultConfiguration: { level: SARIF_LEVEL[r.severity] },
    properties: { tags: ['windows', 'kubernetes', ...tags], ...about, ...extra },
  };
}

/** Each error result's `properties.apiRejects` says whether the API server refuses the object (see formatJson). */
export function formatSarif(
  reports: FileReport[],
  version: string,
  unreadable: Unreadable[] = [],
  kubernetesVersion?: string,
): string {
  const used = new Set<string>();
  for (const r of reports) for (const f of r.findings) used.add(f.ruleId);
  const rules = RULES.filter((r) => used.has(r.id)).map((r) => sarifRule(r, [r.family], { precision: 'high' }));
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results = [];
  const notifications: unknown[] = unreadable.map((u) => ({
    level: 'error',
    message: { text: `${u.path}: ${u.reason}; it was not checked` },
    locations: [{ physicalLocation: { artifactLocation: { uri: u.path.split('\\').join('/') } } }],
  }));
  for (const r of reports) {
    const uri = r.path.split('\\').join('/');
    if (r.skipped) {
      notifications.push({
        level: 'warning',
        message: { text: `${r.path}: not analysed: ${r.skipped}` },
        locations: [{ physicalLocation: { artifactLocation: { uri } } }],
      });
    }
    for (const f of r.findings) {
      const start = f.range.start;
      const end = f.range.end;
      // SARIF regions are 1-based; an empty range still needs an end column after its start.
      const region = {
        startLine: start.line + 1,
        startColumn: start.character + 1,
        endLine: end.line + 1,
        endColumn: Math.max(end.character + 1, end.line === start.line ? start.character + 2 : 1),
      };
      results.push({
        ruleId: f.ruleId,
        ruleIndex: index.get(f.ruleId),
        level: SARIF_LEVEL[f.severity],
        message: { text: f.message },
        locations: [{ physicalLocation: { artifactLocation: { uri, uriBaseId: '%SRCROOT%' }, region } }],
        ...(f.apiRejects !== undefined ? { properties: { apiRejects: f.apiRejects } } : {}),
        ...(f.related
          ? {
              relatedLocations: f.related.map((rel, i) => ({
                id: i + 1,
                message: { text: rel.message },
                physicalLocation: {
                  artifactLocation: { uri, uriBaseId: '%SRCROOT%' },
                  region: {
                    startLine: rel.range.start.line + 1,
                    startColumn: rel.range.start.character + 1,
                    endLine: rel.range.end.line + 1,
                    endColumn: Math.max(rel.range.end.character + 1, rel.range.start.character + 2),
                  },
                },
              })),
            }
          : {}),
      });
    }
  }
  return sarifLog(version, rules, results, {
    columnKind: 'utf16CodeUnits',
    // A path that could not be read: the run did not do what it was asked (code scanning shows why).
    invocations: [{ executionSuccessful: unreadable.length === 0, toolExecutionNotifications: notifications }],
    ...(kubernetesVersion !== undefined ? { properties: { kubernetesVersion } } : {}),
  });
}

/** The SARIF 2.1.0 log of one run of kube-windows. */
function sarifLog(version: string, rules: unknown[], results: unknown[], run: Record<string, unknown>): string {
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'kube-windows',
            semanticVersion: version,
            version,
            informationUri: 'https://github.com/kube-windows/kube-windows',
            rules,
          },
        },
        results,
        ...run,
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

/** A rule or a failure signature (both can be enabled, disabled or have their severity changed). */
export function ruleExists(id: string): boolean {
  return RULES_BY_ID.has(id) || SIGNATURES_BY_ID.has(id);
}

// ---------------------------------------------------------------------------------------------
// Live objects (check --context): located by object and field path.

/** The JSON contract of `check --context`: objects with findings, and a summary. */
/** `unread` (lists the API server refused) is a key only when there were any; `kubernetesVersion` the release decided by. */
export function formatLiveJson(report: LiveReport, unread?: UnreadList[], kubernetesVersion?: string): string {
  const objects = report.objects.map((o) => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
    name: o.name,
    findings: o.findings.map((f) => ({
      ruleId: f.ruleId,
      severity: f.severity,
      ...(f.apiRejects !== undefined ? { apiRejects: f.apiRejects } : {}),
      message: f.message,
      path: f.path,
    })),
  }));
  return `${JSON.stringify({ ...(kubernetesVersion !== undefined ? { kubernetesVersion } : {}), objects, summary: report.summary, ...(unread && unread.length > 0 ? { unread } : {}) }, null, 2)}\n`;
}

const objectName = (o: { kind: string; namespace?: string; name: string }): string =>
  `${o.kind}/${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

export function formatLiveText(report: LiveReport, context: string, color: boolean): string {
  const paint = (c: keyof typeof COLORS, s: string) => (color ? `\u001b[${COLORS[c]}m${s}\u001b[0m` : s);
  const sevColor: Record<Severity, keyof typeof COLORS> = { error: 'red', warning: 'yellow', info: 'blue' };
  const lines: string[] = [];
  for (const o of report.objects) {
    lines.push(paint('bold', objectName(o)));
    for (const f of o.findings) {
      lines.push(`  ${f.path} ${paint(sevColor[f.severity], f.severity)} ${paint('bold', f.ruleId)} ${f.message}`);
    }
  }
  if (lines.length > 0) lines.push('');
  const s = report.summary;
  const n = s.errors + s.warnings + s.infos;
  const scope = `${counted(s.objects, 'object')} of context ${context}`;
  lines.push(
    n === 0
      ? paint('green', `✔ no findings in ${scope}`)
      : paint(
          s.errors > 0 ? 'red' : 'yellow',
          `✖ ${counted(n, 'finding')} (${counted(s.errors, 'error')}, ${counted(s.warnings, 'warning')}, ${s.infos} info) in ${report.objects.length} of ${scope}`,
        ),
  );
  return `${lines.join('\n')}\n`;
}

/** SARIF with logical locations: the object as `kind/namespace/name`, the field path beside it. */
export function formatLiveSarif(report: LiveReport, version: string, kubernetesVersion?: string): string {
  const used = new Set<string>();
  for (const o of report.objects) for (const f of o.findings) used.add(f.ruleId);
  const rules = [
    ...RULES.filter((r) => used.has(r.id)).map((r) => sarifRule(r, [r.family])),
    ...SIGNATURES.filter((x) => used.has(x.id)).map((x) => sarifRule(x, ['live', 'failure'])),
  ];
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results = report.objects.flatMap((o) =>
    o.findings.map((f) => ({
      ruleId: f.ruleId,
      ruleIndex: index.get(f.ruleId),
      level: SARIF_LEVEL[f.severity],
      message: { text: f.message },
      locations: [
        {
          logicalLocations: [
            { name: o.name, fullyQualifiedName: objectName(o), kind: 'resource' },
            { name: f.path, fullyQualifiedName: `${objectName(o)}/${f.path}`, kind: 'property' },
          ],
        },
      ],
      properties: {
        apiVersion: o.apiVersion,
        kind: o.kind,
        ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
        name: o.name,
        path: f.path,
        ...(f.apiRejects !== undefined ? { apiRejects: f.apiRejects } : {}),
      },
    })),
  );
  return sarifLog(version, rules, results, {
    invocations: [{ executionSuccessful: true }],
    ...(kubernetesVersion !== undefined ? { properties: { kubernetesVersion } } : {}),
  });
}
