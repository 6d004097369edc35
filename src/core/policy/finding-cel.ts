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
  findings: CelFinding[];
}

/** CEL: `[field]` when `when` holds, else `[]`. */
export const fieldIf = (when: string, field: string): string => `(${when} ? [${field}] : [])`;

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
