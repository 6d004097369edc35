// Text documents in kube-windows' own plan format (language id kube-windows-plan, grammar in
// syntaxes/kube-windows-plan.tmLanguage.json): the dry-run of a plan, and the log of a run.

import { redact, redactDeep, REDACTED, Secret } from './plan';
import type { PlanOutline } from './prepared';
import type { RunEvent, StepOutcome } from './runner';
import { writeYaml } from '../core/manifest/yaml-writer';

export interface RenderOptions {
  /** Values to replace with "•••" (Secret instances in API bodies are always replaced). */
  secrets?: readonly (string | Secret)[];
}

const indent = (text: string, by: string): string =>
  text
    .split(/\r?\n/)
    .map((line) => (line.length > 0 ? by + line : line))
    .join('\n');

/** The dry-run document: what each step checks, the PowerShell it runs and the API calls it makes (bodies as YAML). */
export function renderPlan(plan: PlanOutline, options: RenderOptions = {}): string {
  const secrets = options.secrets ?? [];
  const clean = (text: string) => redact(text, secrets);
  const total = plan.steps.length;
  const out: string[] = [];
  out.push(`# kube-windows plan: ${clean(plan.title)}`);
  out.push(`# target: ${clean(plan.target)}`);
  out.push(`# plan: ${clean(plan.id)}`);
  out.push(`# steps: ${total}`);
  out.push('# dry run: nothing has been run. Each step is checked first and skipped when already done.');
  plan.steps.forEach((step, i) => {
    out.push('');
    out.push(`STEP ${i + 1}/${total}  ${clean(step.id)}  ${clean(step.title)}`);
    if (step.description) out.push(indent(clean(step.description), '  '));
    out.push(`  check: ${clean(step.preview.check ?? 'decides whether the step is already done; skips it if so')}`);
    if (step.retries) out.push(`  retries: ${step.retries} (transient errors only)`);
    if (step.timeoutMs) out.push(`  timeout: ${step.timeoutMs} ms`);
    for (const script of step.preview.powershell ?? []) {
      out.push('  ```powershell');
      out.push(indent(clean(script.replace(/\s+$/, '')), '  '));
      out.push('  ```');
    }
    for (const api of step.preview.api ?? []) {
      out.push(`  API ${clean(api.verb.toUpperCase())} ${clean(api.path)}`);
      if (api.body !== undefined) {
        const body = api.body instanceof Secret ? REDACTED : redactDeep(api.body, secrets);
        const shown =
          typeof body === 'string'
            ? body
            : writeYaml(body, api.comment ? { comment: api.comment } : {}).replace(/\n$/, '');
        out.push(indent(clean(shown), '    '));
      }
    }
    for (const note of step.preview.notes ?? []) out.push(`  note: ${indent(clean(note), '    ').trimStart()}`);
  });
  out.push('');
  return out.join('\n');
}

export interface RenderLogOptions extends RenderOptions {
  /** Timestamps in UTC instead of local time. */
  utc?: boolean;
}

const STATUS: Record<StepOutcome, string> = {
  applied: 'OK',
  skipped: 'SKIPPED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  'not-run': 'NOT-RUN',
};

const two = (n: number) => String(n).padStart(2, '0');

function clock(time: number, utc: boolean): string {
  const d = new Date(time);
  return utc
    ? `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
    : `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The log document of a run: one timestamped line per event. */
export function renderLog(events: readonly RunEvent[], options: RenderLogOptions = {}): string {
  const secrets = options.secrets ?? [];
  const utc = options.utc ?? false;
  const lines: string[] = [];
  const line = (time: number, text: string) => lines.push(`[${clock(time, utc)}] ${redact(text, secrets)}`);
  for (const e of events) {
    switch (e.type) {
      case 'plan-start':
        line(
          e.time,
          `PLAN ${e.planId} RUNNING  ${e.title} on ${e.target} (${e.steps.length} steps${e.startAt ? `, resuming at ${e.startAt}` : ''})`,
        );
        break;
      case 'step-start':
        line(e.time, `STEP ${e.stepId} RUNNING  ${e.index}/${e.total} ${e.title}`);
        break;
      case 'step-check':
        line(e.time, `  check: ${e.result}${e.reason ? ` (${e.reason})` : ''}`);
        break;
      case 'step-apply':
        line(e.time, `  apply: attempt ${e.attempt} of ${e.attempts}`);
        break;
      case 'step-verify':
        line(e.time, `  verify: ${e.ok ? 'ok' : `failed (${e.message ?? 'no reason given'})`}`);
        break;
      case 'step-end':
        line(
          e.time,
          `STEP ${e.stepId} ${STATUS[e.outcome]}  ${seconds(e.durationMs)}${e.message && e.outcome !== 'skipped' ? `  ${e.message}` : ''}`,
        );
        break;
      case 'log':
        line(
          e.time,
          `  ${e.level.toUpperCase()} ${e.message}${e.fraction === undefined ? '' : ` (${Math.round(e.fraction * 100)}%)`}`,
        );
        break;
      case 'plan-end':
        line(
          e.time,
          `PLAN ${e.planId} ${e.outcome === 'done' ? 'OK' : e.outcome === 'failed' ? 'FAILED' : 'CANCELLED'}  ${seconds(e.durationMs)}${e.message ? `  ${e.message}` : ''}`,
        );
        break;
    }
  }
  lines.push('');
  return lines.join('\n');
}
