import { DiagnosticSeverity, DiagnosticTag, type Diagnostic } from 'vscode-languageserver';
import { RULES_BY_ID, docsUrl } from '../core/rules/registry';
import type { Finding } from '../core/rules/types';

const SEVERITY = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
} as const;

export const SOURCE = 'kube-windows';

export function toDiagnostic(uri: string, f: Finding): Diagnostic {
  const d: Diagnostic = {
    range: f.range,
    severity: SEVERITY[f.severity],
    code: f.ruleId,
    codeDescription: { href: docsUrl(f.ruleId) },
    source: SOURCE,
    message: f.message,
  };
  if (f.related && f.related.length > 0) {
    d.relatedInformation = f.related.map((r) => ({ location: { uri, range: r.range }, message: r.message }));
  }
  // "Not analysed" notices are about the document as a whole: shown faded, not as a problem in the code.
  if (f.ruleId === 'YAML002') d.tags = [DiagnosticTag.Unnecessary];
  return d;
}

export function ruleTitle(id: string): string {
  return RULES_BY_ID.get(id)?.title ?? id;
}
