// Label and field selectors with the syntax and semantics of the Kubernetes API server.
import type { KubeObject } from './types';

export class SelectorError extends Error {}

type Requirement = { key: string; op: 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin'; values: string[] };

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;

export function parseLabelSelector(sel: string): Requirement[] {
  return splitTopLevel(sel).map((term) => {
    let m: RegExpMatchArray | null;
    let req: Requirement;
    if ((m = term.match(/^!\s*(\S+)$/))) req = { key: m[1], op: '!exists', values: [] };
    else if ((m = term.match(/^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/)))
      req = { key: m[1], op: m[2] as 'in' | 'notin', values: m[3].split(',').map((v) => v.trim()) };
    else if ((m = term.match(/^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/)))
      req = { key: m[1], op: m[2] === '!=' ? '!=' : '=', values: [m[3]] };
    else if ((m = term.match(/^(\S+)$/))) req = { key: m[1], op: 'exists', values: [] };
    else throw new SelectorError(`unable to parse requirement: found '${term}', expected: identifier`);
    if (!KEY.test(req.key)) throw new SelectorError(`unable to parse requirement: invalid label key "${req.key}"`);
    return req;
  });
}

export function matchLabels(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case '!exists':
        return !has;
      case '=':
        return has && l[r.key] === r.values[0];
      case '!=':
        return !has || l[r.key] !== r.values[0];
      case 'in':
        return has && r.values.includes(l[r.key]);
      case 'notin':
        return !has || !r.values.includes(l[r.key]);
    }
  });
}

type FieldReq = { path: string; neg: boolean; value: string };

export function parseFieldSelector(sel: string): FieldReq[] {
  return splitTopLevel(sel).map((term) => {
    const m = term.match(/^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw new SelectorError(`invalid selector: '${term}'; can't understand '${term}'`);
    return { path: m[1], neg: m[2] === '!=', value: m[3] };
  });
}

function fieldValue(obj: KubeObject, path: string): string {
  let cur: unknown = obj;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[p];
  }
  if (cur === undefined || cur === null) return '';
  if (typeof cur === 'object') return JSON.stringify(cur);
  return String(cur);
}

export function matchFields(reqs: FieldReq[], obj: KubeObject): boolean {
  return reqs.every((r) => (fieldValue(obj, r.path) === r.value) !== r.neg);
}
