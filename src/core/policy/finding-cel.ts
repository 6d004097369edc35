// What a rule's admission form is made of (rule-cel.ts and the per-family rule-cel-*.ts files), and the
// small CEL builders they share: a field path below a prefix, a field when a condition holds, a
// container named as the rules name it, a value quoted as the rules' preview quotes it.
import { str } from './cel';
import type { CelVariable, POLICY_CONTAINER_GROUPS } from './targeting-cel';

export type ContainerGroup = (typeof POLICY_CONTAINER_GROUPS)[number];

/** What a message may depend on besides the object: the Kubernetes release the policies are generated for. */
export interface CelContext {
  release: string;
}

/**
 * One kind of finding of a rule. `pod` and `container` give a CEL list of items where it reports (`p` is
 * the CEL string of the pod spec's or the container's path prefix): with `parts` 1 (the default) an
 * item is the field path string; with more, a list of that many strings, the field path first.
 * `message` is the rule's sentence for one item, built from CEL string expressions (`more` are the
 * item's other strings).
 */
export interface CelFinding {
  pod?: (s: string, p: string) => string;
  container?: (c: string, p: string, group: ContainerGroup) => string;
  parts?: number;
  message: (field: string, note: string, more: string[], ctx: CelContext) => string;
}

export interface RuleCel {
  id: string;
  /** Only pods whose Windows target is inferred (declared ones are the API server's own validation's). */
  inferredOnly?: boolean;
  /** Every pod but a declared Linux one (HostProcess rules: HostProcess is Windows by itself). */
  notLinux?: boolean;
  /** Every pod whose spec.os.name is set (rules about a conflict with the declared OS, Linux included). */
  osDeclared?: boolean;
  /** Reads HostProcess membership (adds its variables). */
  hostProcess?: boolean;
  /**
   * The rule's own variables (named after the rule), added to a policy that enforces it: what several of
   * its findings read is worked out once per object, and the expressions the API server compiles stay small.
   */
  variables?: () => CelVariable[];
  /**
   * A cheaper CEL bool that holds exactly when some finding's list is not empty (the policy's validation
   * reads it instead of the lists; the lists are built for the message only when it holds).
   */
  when?: () => string;
  findings: CelFinding[];
}

/** The lists fieldIf made, and the condition each is not empty on. */
const FIELD_IF_WHEN = new Map<string, string>();

/** CEL: `[field]` when `when` holds, else `[]`. */
export const fieldIf = (when: string, field: string): string => {
  const list = `(${when} ? [${field}] : [])`;
  FIELD_IF_WHEN.set(list, when);
  return list;
};

/** `text` split at its top-level ` + ` (outside brackets and string literals). */
function topLevelTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === "'") quote = false;
    } else if (ch === "'") quote = true;
    else if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    else if (depth === 0 && text.startsWith(' + ', i)) {
      terms.push(text.slice(start, i));
      start = i + 3;
      i += 2;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** `text` without parentheses around all of it (a fieldIf list keeps its own). */
function unwrapped(text: string): string {
  if (FIELD_IF_WHEN.has(text) || !text.startsWith('(') || !text.endsWith(')')) return text;
  let depth = 0;
  for (let i = 0; i < text.length - 1; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    if (depth === 0) return text; // the first parenthesis closes before the end
  }
  return unwrapped(text.slice(1, -1));
}

/**
 * CEL bool: the list `list` (a finding's CEL list) is not empty. A sum of fieldIf's lists becomes the OR
 * of their conditions: the validation that runs on every object builds no list and no field path (the
 * message builds them, once the validation has failed).
 */
export function nonEmpty(list: string): string {
  return topLevelTerms(unwrapped(list))
    .map((term) => {
      const when = FIELD_IF_WHEN.get(term);
      return when === undefined ? `size(${term}) > 0` : `(${when})`;
    })
    .join(' || ');
}

/** CEL string: the path prefix `p` (a CEL string) followed by `.rel`. */
export const join = (p: string, rel: string): string => `${p} + ${str(`.${rel}`)}`;

/**
 * CEL string: `value` (a CEL string) as core/manifest/text's preview shows a string: JSON-quoted (the
 * escapes a label, a name or a command can hold), cut to `max` characters with an ellipsis.
 */
export function previewCel(value: string, max: number): string {
  const quoted = `('"' + string(${value}).replace('\\\\', '\\\\\\\\').replace('"', '\\\\"').replace('\\n', '\\\\n').replace('\\r', '\\\\r').replace('\\t', '\\\\t') + '"')`;
  return `(size(${quoted}) > ${max} ? ${quoted}.substring(0, ${max - 1}) + '…' : ${quoted})`;
}

/** CEL string: a list of strings as preview shows it (JSON: `["a","b"]`), cut to `max` characters. */
export function previewListCel(list: string, max: number): string {
  const quoted = `('[' + ${list}.map(x, string(${previewCel('x', 1_000_000)})).join(',') + ']')`;
  return `(size(${quoted}) > ${max} ? ${quoted}.substring(0, ${max - 1}) + '…' : ${quoted})`;
}

/** A container as the rules name it: `init container "name"` (preview's JSON quoting and 40-character cut). */
export const containerWho = (c: string, group: ContainerGroup): string =>
  `${str(group === 'initContainers' ? 'init container ' : 'container ')} + ${previewCel(`${c}.name`, 40)}`;

/** CEL list: one item of a finding with several parts (each made a string: a list literal takes one type). */
export const item = (...parts: string[]): string => `[${parts.map((x) => `string(${x})`).join(', ')}]`;
