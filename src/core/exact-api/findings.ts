// The API server's own verdict on a document (the validator's answer) as findings beside ours:
// every refusal in the server's exact words, under its own rule id (API001 a field validation
// refuses, API002 an unknown or duplicate field a strict create refuses, API003 a warning the create
// would carry), unless a finding of ours already says it. Then there is one finding, ours (it has the
// fixes and the advice): a cause is ours when one of our errors quotes it, or when one of our API
// rejections sits on the same field (the server's words are added to it as related information).
import { spanFor, type Path } from '../manifest/path';
import type { PNode } from '../manifest/positional-tree';
import type { LineIndex, Span } from '../manifest/text';
import type { SeveritySetting } from '../rules/severity';
import type { Finding, Severity } from '../rules/types';
import { causeTexts, type ValidatorAnswer } from './answer';
import { quotesCause } from './quotes';

const EXACT_API_RULE = { refused: 'API001', unknownField: 'API002', warning: 'API003' } as const;

/** What the mapping needs of a parsed document (a ManifestDocument is one). */
export interface ExactApiDocument {
  index: number;
  /** The document's place in its file (offsets). */
  span: Span;
  value: unknown;
  tree(): PNode | undefined;
}

export interface ExactApiContext {
  lines: LineIndex;
  /** The severity a rule is reported at (its default, or the user's), or `off`. */
  severityOf(ruleId: string, fallback: Severity): SeveritySetting;
  /** "v1.35.4": said in the related information merged into our findings. */
  kubernetes: string;
}

const DEFAULT_SEVERITY: Record<string, Severity> = { API001: 'error', API002: 'error', API003: 'warning' };

/**
 * The findings of one document once the API server's verdict is added: `ours` (the rules'
 * findings on this document), some with the server's words as related information, then the
 * server's refusals and warnings that none of ours says.
 */
export function withExactApi(
  ours: Finding[],
  doc: ExactApiDocument,
  answer: ValidatorAnswer,
  ctx: ExactApiContext,
): Finding[] {
  if (answer.verdict === 'unsupported') return ours;
  const out = ours.map((f) => ({ ...f }));
  const seen = new Set<string>();
  const place = placer(doc);
  const add = (
    ruleId: string,
    message: string,
    path: Path | undefined,
    covered: (f: Finding, span: Span) => boolean,
  ) => {
    const span = place(path);
    const key = `${ruleId}\u0000${span.start}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    const same = out.find((f) => covered(f, span));
    if (same) {
      if (!quotesCause(same.message, message) && !same.related?.some((r) => r.message.endsWith(message)))
        same.related = [
          ...(same.related ?? []),
          { range: ctx.lines.rangeOf(span), message: `The API server (${ctx.kubernetes}) says: ${message}` },
        ];
      return;
    }
    const severity = ctx.severityOf(ruleId, DEFAULT_SEVERITY[ruleId]);
    if (severity === 'off') return;
    out.push({
      ruleId,
      severity,
      message,
      range: ctx.lines.rangeOf(span),
      span,
      fixes: [],
      document: doc.index,
      ...(severity === 'error' ? { apiRejects: ruleId !== EXACT_API_RULE.warning } : {}),
    });
  };
  const sameField = (f: Finding, span: Span) => f.span.start === span.start && f.span.end === span.end;

  for (const field of strictFields(answer.strict?.message))
    add(
      EXACT_API_RULE.unknownField,
      `strict decoding error: ${field.kind} field "${field.path}"`,
      fieldPath(doc.value, field.path),
      sameField,
    );
  const causes = answer.status?.details?.causes ?? [];
  const texts = causeTexts(answer.status);
  texts.forEach((text, k) => {
    const field = causes[k]?.field;
    add(
      EXACT_API_RULE.refused,
      text,
      field ? fieldPath(doc.value, field) : undefined,
      (f, span) =>
        f.severity === 'error' && (quotesCause(f.message, text) || (f.apiRejects === true && sameField(f, span))),
    );
  });
  for (const warning of answer.warnings ?? []) {
    const field = /^([A-Za-z][^\s:]*): /.exec(warning)?.[1];
    add(EXACT_API_RULE.warning, warning, field ? fieldPath(doc.value, field) : undefined, sameField);
  }
  return out;
}

/** The unknown and duplicate fields named in a strict-decoding error's text, in its order. */
export function strictFields(message: string | undefined): { kind: 'unknown' | 'duplicate'; path: string }[] {
  if (!message) return [];
  return [...message.matchAll(/(unknown|duplicate) field "((?:[^"\\]|\\.)*)"/g)].map((m) => ({
    kind: m[1] as 'unknown' | 'duplicate',
    path: m[2],
  }));
}

/**
 * The path a field path of the API server names in `value`: `spec.containers[0].image`,
 * `metadata.labels[app.kubernetes.io/name]`, `spec.nodeSelector[kubernetes.io/os]`. A bracket holds
 * an index where the value is a list, else a map key.
 */
export function fieldPath(value: unknown, text: string): Path {
  const out: (string | number)[] = [];
  let v = value;
  for (const m of text.matchAll(/\[([^\]]*)\]|\.?([^.[\]]+)/g)) {
    const bracket = m[1];
    let seg: string | number = bracket ?? m[2];
    if (bracket !== undefined && Array.isArray(v) && /^\d+$/.test(bracket)) seg = Number(bracket);
    out.push(seg);
    v =
      typeof seg === 'number'
        ? Array.isArray(v)
          ? v[seg]
          : undefined
        : v !== null && typeof v === 'object' && !Array.isArray(v)
          ? (v as Record<string, unknown>)[seg]
          : undefined;
  }
  return out;
}

/** Where a path of the document is, in file offsets: the key, else the deepest key that exists (a required field's parent). */
function placer(doc: ExactApiDocument): (path: Path | undefined) => Span {
  let tree: PNode | undefined;
  let built = false;
  return (path) => {
    if (!built) {
      tree = doc.tree();
      built = true;
    }
    const local = spanFor(tree, path ?? [], 'key') ?? { start: 0, end: 0 };
    return { start: local.start + doc.span.start, end: local.end + doc.span.start };
  };
}
