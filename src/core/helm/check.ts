// The ordinary check on a chart template: neutralise, check the YAML that is left, then bring every
// finding back to the template's own lines and drop those about values a template action computes.
import { checkText, type CheckOptions, type CheckResult } from '../rules/checker';
import type { Finding, FixOut } from '../rules/types';
import { RULES_BY_ID } from '../rules/registry';
import { LineIndex, type Position, type Range } from '../manifest/text';
import { neutralise, type Neutralised, type OutLine } from './neutralise';
import { unreadDefineNotes } from './unread-defines';
import type { ChartValues, ValuesOrigin } from './values';
import { emptyFacts } from '../rules/facts';
import { clusterRelease, normalizeRelease } from '../kubernetes-release';

export interface ChartCheck extends CheckResult {
  /**
   * Findings the template cannot decide: their value comes from a template action, or their line is under a
   * condition the values cannot decide. Each is also reported, as one info finding per line, rule and action, that
   * says so (what Helm renders may differ there).
   */
  unchecked: { ruleId: string; action: string; range: Range; why: 'value' | 'branch' | 'key' }[];
}

/** A file under a chart's `templates/` folder (at any depth) whose chart folder holds Chart.yaml. */
export function chartRootOf(path: string, hasFile: (path: string) => boolean): string | undefined {
  const parts = path.split(/[\\/]/);
  const sep = path.includes('\\') && !path.includes('/') ? '\\' : '/';
  for (let i = parts.length - 2; i >= 1; i--) {
    if (parts[i] !== 'templates') continue;
    const root = parts.slice(0, i).join(sep) || sep;
    if (hasFile(`${root}${sep}Chart.yaml`)) return root;
  }
  return undefined;
}

export function checkChartTemplate(
  text: string,
  values: ChartValues | undefined,
  options: CheckOptions = {},
): ChartCheck {
  const release = givenRelease(options);
  const neutral = neutralise(text, values && release ? { ...values, kubeVersion: release } : values);
  // What is left of a chart template is literal: `${VAR}` there is shell or env text Helm leaves alone.
  const result = checkText(neutral.text, { ...options, load: { ...options.load, templateSyntax: false } });
  const tplLines = new LineIndex(text);
  const unchecked: ChartCheck['unchecked'] = [];
  const findings: Finding[] = [];
  const key = computedKey(neutral);
  const noted = new Set<string>();
  for (const f of result.findings) {
    const undecided = f.ruleId === 'YAML001' ? undefined : undecidedBy(neutral, f, key);
    if (undecided) {
      const range = mapRange(neutral, f.range);
      unchecked.push({ ruleId: f.ruleId, ...undecided, range });
      const id = `${range.start.line}\0${f.ruleId}\0${undecided.action}`;
      if (noted.has(id)) continue;
      noted.add(id);
      findings.push(mayApply(f, undecided, range, tplLines));
      continue;
    }
    const mapped = mapFinding(neutral, f, tplLines);
    const repeated = neutral.lines[f.range.start.line]?.repeated;
    findings.push(
      f.ruleId === 'YAML001'
        ? asNotAnalysed(mapped, text)
        : repeated
          ? { ...mapped, message: `${mapped.message} (under \`${repeated}\`: Helm renders it once per item)` }
          : mapped,
    );
  }
  if (!options.disable?.includes('YAML002') && options.severity?.YAML002 !== 'off') {
    const facts = options.facts ?? emptyFacts(options.flavour, options.cluster, options.kubernetesVersion);
    findings.push(...unreadDefineNotes(text, neutral, facts));
  }
  return { ...result, findings, unchecked };
}

/**
 * The release the check is for, when one is given (`--kubernetes-version`, facts gathered for one, the cluster's):
 * `.Capabilities.KubeVersion` is that release, as `helm template --kube-version` makes it.
 */
function givenRelease(options: CheckOptions): string | undefined {
  const fromFacts = options.facts?.kubernetesVersionFrom === 'default' ? undefined : options.facts?.kubernetesVersion;
  return normalizeRelease(options.kubernetesVersion) ?? fromFacts ?? clusterRelease(options.cluster);
}

/** Why the template cannot decide a finding: the action computing its value, its branch's condition, or its key. */
function undecidedBy(
  n: Neutralised,
  f: Finding,
  key: string | undefined,
): { action: string; why: ChartCheck['unchecked'][number]['why'] } | undefined {
  const value = placeholderAt(n, f.range.start);
  if (value) return { action: value, why: 'value' };
  const branch = n.lines[f.range.start.line]?.undecided;
  if (branch) return { action: branch, why: 'branch' };
  return ABSENCE.has(f.ruleId) && key ? { action: key, why: 'key' } : undefined;
}

/**
 * The finding the template cannot decide, said as such: an info finding under its rule, naming the action, so that
 * in-place analysis never differs silently from what Helm renders. Its fixes are dropped (they would edit an action).
 */
function mayApply(
  f: Finding,
  u: { action: string; why: 'value' | 'branch' | 'key' },
  range: Range,
  tplLines: LineIndex,
): Finding {
  const title = RULES_BY_ID.get(f.ruleId)?.title.replace(/[.:].*$/s, '') ?? f.ruleId;
  const where =
    u.why === 'value'
      ? `the value here comes from \`${u.action}\`, which is not computed from the values`
      : u.why === 'branch'
        ? `this line is under \`${u.action}\`, a condition the values cannot decide`
        : `a key of this object comes from \`${u.action}\`, which is not computed from the values`;
  return {
    ruleId: f.ruleId,
    severity: 'info',
    message: `${f.ruleId} (${f.severity}) may apply once Helm renders the chart: ${where} (${title}). Render it (helm template) and check the output to know`,
    range,
    span: { start: tplLines.offsetAt(range.start), end: tplLines.offsetAt(range.end) },
    fixes: [],
    document: f.document,
  };
}

/** Rules that report something missing from a pod spec: a key a template computes may be the one missing. */
const ABSENCE = new Set(['WIN070']);

/** The first action that computes a mapping key (`{{ template "label.os" . }}: windows`). */
function computedKey(n: Neutralised): string | undefined {
  const lines = n.text.split('\n');
  return n.placeholders.find(
    (p) => /^\s*(?:- )?$/.test(lines[p.line].slice(0, p.start)) && /^\s*:(\s|$)/.test(lines[p.line].slice(p.end)),
  )?.action;
}

/** Template text the neutraliser could not turn into YAML: not the author's error; say which construct stopped it. */
function asNotAnalysed(f: Finding, template: string): Finding {
  return {
    ...f,
    ruleId: 'YAML002',
    severity: 'info',
    fixes: [],
    message: `chart template: with its template actions set aside, this document is not valid YAML (${f.message}); ${stoppedBy(f, template)}. It was not analysed. Render it (helm template) and check the output`,
  };
}

/**
 * The construct at or just above the error line: an action whose output shape is unknown, or a YAML form go-yaml
 * accepts.
 */
function stoppedBy(f: Finding, template: string): string {
  if (/deficient indentation/.test(f.message)) {
    return 'a quoted or bracketed value continues on a line indented no deeper than its key, which go-yaml (Helm, kubectl) accepts and YAML does not';
  }
  const lines = template.split('\n');
  for (let l = f.range.start.line; l >= Math.max(0, f.range.start.line - 3); l--) {
    const action = /\{\{-?\s*(.*?)\s*-?\}\}/.exec(lines[l] ?? '');
    if (action)
      return `stopped by \`{{ ${action[1].slice(0, 60)} }}\` on line ${l + 1}, whose output cannot be set aside there without breaking the YAML around it`;
  }
  return 'no template action is next to the error';
}

/** The neutralised text, for facts gathered across files (RuntimeClasses in a chart). */
export function neutralText(text: string, values?: ChartValues): string {
  return neutralise(text, values).text;
}

/** The action whose placeholder holds this position, or is the value of the key that starts there. */
function placeholderAt(n: Neutralised, at: Position): string | undefined {
  const onLine = n.placeholders.filter((p) => p.line === at.line);
  if (onLine.length === 0) return undefined;
  const hit = onLine.find((p) => at.character >= p.start && at.character < p.end);
  if (hit) return hit.action;
  const value = valueStart(n.text, at);
  // A value set aside as blanks (a `key: {{ … | nindent N }}`) ends where the placeholder does.
  return value === undefined
    ? undefined
    : onLine.find((p) => p.start === value || (value > p.start && value <= p.end))?.action;
}

/** Where the value of a `key: value` that starts at `at` begins on the same line. */
function valueStart(text: string, at: Position): number | undefined {
  let offset = 0;
  for (let l = 0; l < at.line; l++) offset = text.indexOf('\n', offset) + 1;
  const line = text.slice(offset, text.indexOf('\n', offset) === -1 ? undefined : text.indexOf('\n', offset));
  const m = /^[^:\s]+:[ \t]+/.exec(line.slice(at.character));
  return m ? at.character + m[0].length : undefined;
}

function mapFinding(n: Neutralised, f: Finding, tplLines: LineIndex): Finding {
  if (n.identity) return f;
  const range = mapRange(n, f.range);
  const origin = originAt(n, f.range.start);
  const fixes = f.fixes.flatMap((fix): FixOut[] => {
    if (fix.edits.some((e) => !plainLine(n.lines[e.range.start.line]) || !plainLine(n.lines[e.range.end.line])))
      return [];
    return [{ ...fix, edits: fix.edits.map((e) => ({ ...e, range: mapRange(n, e.range) })) }];
  });
  return {
    ...f,
    message: origin ? `${f.message} (value from ${origin.name}:${origin.line})` : f.message,
    range,
    span: { start: tplLines.offsetAt(range.start), end: tplLines.offsetAt(range.end) },
    fixes,
    ...(f.related ? { related: f.related.map((r) => ({ ...r, range: mapRange(n, r.range) })) } : {}),
  };
}

function plainLine(line: OutLine | undefined): boolean {
  return line !== undefined && !line.block && !line.shifts;
}

/** The origin of the value a finding is about: on a value block's line, or the value after its key. */
function originAt(n: Neutralised, at: Position): ValuesOrigin | undefined {
  const line = n.lines[at.line];
  if (!line) return undefined;
  if (line.block) return line.block.origin;
  if (line.valueOrigin) return line.valueOrigin;
  if (!line.shifts) return undefined;
  const value = valueStart(n.text, at);
  return line.shifts.find((s) => (at.character >= s.outStart && at.character < s.outEnd) || s.outStart === value)
    ?.origin;
}

function mapRange(n: Neutralised, r: Range): Range {
  if (n.identity) return r;
  return { start: mapPosition(n, r.start, 'start'), end: mapPosition(n, r.end, 'end') };
}

function mapPosition(n: Neutralised, p: Position, side: 'start' | 'end'): Position {
  const line = n.lines[p.line] ?? n.lines[n.lines.length - 1];
  if (!line) return p;
  if (line.block) return { line: line.tplLine, character: side === 'start' ? line.block.start : line.block.end };
  let character = p.character;
  for (const s of line.shifts ?? []) {
    if (p.character >= s.outEnd) character += s.tplEnd - s.tplStart - (s.outEnd - s.outStart);
    else if (p.character >= s.outStart)
      return { line: line.tplLine, character: side === 'start' ? s.tplStart : s.tplEnd };
  }
  return { line: line.tplLine, character };
}
