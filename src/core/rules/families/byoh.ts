import { isObj } from '../../manifest/path';
import { preview } from '../../manifest/text';
import type { ObjectContext, ObjectRule, Reporter, Rule } from '../types';
import { INSTANCES_CONFIGMAP, WMCO_NAMESPACE } from '../../well-known';
import { classifyAddress } from '../../windows/join-input';

export { classifyAddress };

const ONE_BAD_ENTRY = 'one bad entry stops WMCO from configuring every instance';

export type InstanceValue =
  | { ok: true; username: string }
  /** Parsed by WMCO, but the username carries whitespace (a `|` block's trailing newline). */
  | { ok: false; kind: 'whitespace'; normalized: string }
  /** WMCO rejects it; `normalized` is the evident intent when there is one. */
  | { ok: false; kind: 'format'; reason: string; normalized?: string };

/** Checks a value the way WMCO's `extractUsername` reads it: `username=<name>`, nothing trimmed. */
export function parseInstanceValue(value: unknown): InstanceValue {
  if (typeof value !== 'string') return { ok: false, kind: 'format', reason: `it is ${preview(value)}, not a string` };
  const eq = value.indexOf('=');
  if (eq === -1) return { ok: false, kind: 'format', reason: 'it has no "="' };
  const key = value.slice(0, eq);
  const name = value.slice(eq + 1);
  const trimmed = name.trim();
  const normalized =
    trimmed && !/[\r\n]/.test(trimmed) && key.trim().toLowerCase() === 'username' ? `username=${trimmed}` : undefined;
  if (key !== 'username') {
    return { ok: false, kind: 'format', reason: `it starts with ${preview(key)} instead of "username"`, normalized };
  }
  if (!trimmed) return { ok: false, kind: 'format', reason: 'the username is empty' };
  if (/[\r\n]/.test(trimmed)) return { ok: false, kind: 'format', reason: 'the username spans several lines' };
  if (trimmed !== name) return { ok: false, kind: 'whitespace', normalized: `username=${trimmed}` };
  return { ok: true, username: name };
}

function isInstancesConfigMap(ctx: ObjectContext): boolean {
  const { object } = ctx;
  return (
    object.kind === 'ConfigMap' &&
    object.name === INSTANCES_CONFIGMAP &&
    (object.apiVersion === 'v1' || object.apiVersion === '')
  );
}

function forEachEntry(ctx: ObjectContext, fn: (key: string, value: unknown) => void) {
  const data = ctx.object.value.data;
  if (!isObj(data)) return;
  for (const [key, value] of Object.entries(data)) fn(key, value);
}

function byohRule(
  id: string,
  severity: ObjectRule['severity'],
  title: string,
  check: (ctx: ObjectContext, report: Reporter) => void,
): ObjectRule {
  return {
    id,
    scope: 'object',
    family: 'byoh',
    severity,
    admission: { enforceable: false, why: 'not-a-pod', detail: 'about the windows-instances ConfigMap' },
    title,
    kinds: ['ConfigMap'],
    check(ctx, report) {
      if (isInstancesConfigMap(ctx)) check(ctx, report);
    },
  };
}

const BYOH001 = byohRule(
  'BYOH001',
  'error',
  'windows-instances key is not an IPv4 address or DNS name (WMCO rejects IPv6 and anything else).',
  (ctx, report) => {
    forEachEntry(ctx, (key) => {
      const kind = classifyAddress(key);
      if (kind === 'ipv4' || kind === 'dns') return;
      const what =
        kind === 'ipv6'
          ? `${preview(key)} is an IPv6 address: WMCO resolves instance addresses as IPv4 only (and ':' is not allowed in a ConfigMap key)`
          : kind === 'invalid-ipv4'
            ? `${preview(key)} is not a valid IPv4 address (four numbers 0-255, no leading zeros)`
            : `${preview(key)} is neither an IPv4 address nor a DNS name`;
      report({
        path: [...ctx.object.path, 'data', key],
        message: `${what}; WMCO fails to parse the ConfigMap, and ${ONE_BAD_ENTRY}. Use the instance's IPv4 address or DNS name.`,
      });
    });
  },
);

const BYOH002 = byohRule(
  'BYOH002',
  'error',
  'windows-instances value is not exactly username=<name>.',
  (ctx, report) => {
    forEachEntry(ctx, (key, value) => {
      const parsed = parseInstanceValue(value);
      if (parsed.ok || parsed.kind !== 'format') return;
      const path = [...ctx.object.path, 'data', key];
      report({
        path,
        target: 'value',
        message: `The value for ${preview(key)} must be exactly "username=<name>", but ${parsed.reason}; WMCO rejects the ConfigMap ("data has an incorrect format"), and ${ONE_BAD_ENTRY}.`,
        fixes: parsed.normalized
          ? [
              {
                title: `Change the value to ${preview(parsed.normalized)}`,
                kind: 'safe', // the same entry, written as WMCO reads it
                ops: [{ op: 'set', path, value: parsed.normalized }],
              },
            ]
          : [],
      });
    });
  },
);

const BYOH003 = byohRule(
  'BYOH003',
  'warning',
  'windows-instances username with a trailing newline or spaces (a | block keeps the newline; WMCO does not trim it).',
  (ctx, report) => {
    forEachEntry(ctx, (key, value) => {
      const parsed = parseInstanceValue(value);
      if (parsed.ok || parsed.kind !== 'whitespace') return;
      const path = [...ctx.object.path, 'data', key];
      const newline = typeof value === 'string' && /\n$/.test(value);
      report({
        path,
        target: 'value',
        message: `${newline ? 'A "|" block keeps its trailing newline and' : 'The username has surrounding spaces and'} WMCO does not trim it, so it logs in to ${preview(key)} as a user whose name ${newline ? 'ends with a newline' : 'has spaces'}, which fails, and WMCO stops at the first instance that fails. Use "|-" or a plain value: ${preview(parsed.normalized)}.`,
        fixes: [
          {
            title: `Change the value to ${preview(parsed.normalized)}`,
            kind: 'safe', // the same user name without the whitespace WMCO does not trim
            ops: [{ op: 'set', path, value: parsed.normalized }],
          },
        ],
      });
    });
  },
);

const BYOH004 = byohRule(
  'BYOH004',
  'warning',
  `windows-instances ConfigMap outside the namespace ${WMCO_NAMESPACE}, where WMCO does not look for it.`,
  (ctx, report) => {
    const ns = ctx.object.namespace;
    if (ns === undefined || ns === WMCO_NAMESPACE) return;
    const path = [...ctx.object.path, 'metadata', 'namespace'];
    report({
      path,
      target: 'value',
      message: `WMCO reads ${INSTANCES_CONFIGMAP} only from the namespace it watches, normally ${WMCO_NAMESPACE}, so the instances listed in namespace ${preview(ns)} are never configured. Move the ConfigMap there (unless WMCO was installed in this namespace).`,
      fixes: [
        {
          title: `Change the namespace to ${WMCO_NAMESPACE}`,
          kind: 'rewrite',
          ops: [{ op: 'set', path, value: WMCO_NAMESPACE }],
        },
      ],
    });
  },
);

export const byohRules: Rule[] = [BYOH001, BYOH002, BYOH003, BYOH004];
