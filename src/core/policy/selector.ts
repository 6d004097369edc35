// A namespace selector as kubectl's -l takes it (`env=prod,tier in (a,b),!legacy`), parsed into the
// LabelSelector a ValidatingAdmissionPolicyBinding carries. Refuses what the API server would: a key that
// is not a qualified name, a value that is not a label value, an operator a LabelSelector has not (> <).
import { keyProblem } from '../workload-actions';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

class SelectorError extends Error {}

function checkKey(key: string): string {
  const bad = keyProblem(key);
  if (bad) throw new SelectorError(bad);
  return key;
}

function checkValue(value: string): string {
  if (value.length > 63 || !VALUE.test(value))
    throw new SelectorError(
      `the value "${value}" must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`,
    );
  return value;
}

/** Splits at commas outside parentheses. */
function requirements(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (depth < 0) throw new SelectorError('a ")" without its "("');
    if (ch === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new SelectorError('a "(" without its ")"');
  out.push(text.slice(start));
  return out.map((r) => r.trim());
}

/** The LabelSelector, or an error message in one line saying what does not parse. */
export function parseNamespaceSelector(text: string): LabelSelector | { error: string } {
  try {
    if (text.trim() === '') throw new SelectorError('it is empty');
    const selector: Required<LabelSelector> = { matchLabels: {}, matchExpressions: [] };
    for (const req of requirements(text)) {
      if (req === '') throw new SelectorError('an empty requirement (two commas, or one at an end)');
      let m: RegExpExecArray | null;
      if ((m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(req))) {
        const values = m[3].split(',').map((x) => checkValue(x.trim()));
        if (values.length === 0 || values.every((x) => x === '')) throw new SelectorError(`"${req}" lists no values`);
        selector.matchExpressions.push({ key: checkKey(m[1]), operator: m[2] === 'in' ? 'In' : 'NotIn', values });
      } else if ((m = /^([^=!<>\s]+)\s*(!=|==|=)\s*(\S*)$/.exec(req))) {
        const key = checkKey(m[1]);
        const value = checkValue(m[3]);
        if (m[2] === '!=') selector.matchExpressions.push({ key, operator: 'NotIn', values: [value] });
        else if (key in selector.matchLabels && selector.matchLabels[key] !== value)
          throw new SelectorError(`"${key}" is asked to equal two values`);
        else selector.matchLabels[key] = value;
      } else if ((m = /^!\s*([^=!<>\s(),]+)$/.exec(req))) {
        selector.matchExpressions.push({ key: checkKey(m[1]), operator: 'DoesNotExist' });
      } else if (/^[^=!<>\s(),]+$/.test(req)) {
        selector.matchExpressions.push({ key: checkKey(req), operator: 'Exists' });
      } else if (/[<>]/.test(req)) {
        throw new SelectorError(`"${req}": a namespace selector takes =, ==, !=, in, notin, a key or !key, not < or >`);
      } else {
        throw new SelectorError(`"${req}" is not key=value, key!=value, key in (…), key notin (…), key or !key`);
      }
    }
    return {
      ...(Object.keys(selector.matchLabels).length > 0 ? { matchLabels: selector.matchLabels } : {}),
      ...(selector.matchExpressions.length > 0 ? { matchExpressions: selector.matchExpressions } : {}),
    };
  } catch (e) {
    if (e instanceof SelectorError) return { error: `The namespace selector "${text}" does not parse: ${e.message}.` };
    throw e;
  }
}
