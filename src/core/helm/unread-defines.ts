// Parts of a Windows pod spec that a named template prints and the chart path cannot expand (a define called with a
// `dict`, or `resources:` under `{{ with include "…resources…" $ | fromYaml }}`): said as such at the key they fill,
// so that in-place analysis never differs silently from what Helm renders.
import { loadDocument } from '../manifest/document';
import { spanFor } from '../manifest/path';
import { splitDocuments } from '../manifest/split';
import { LineIndex } from '../manifest/text';
import { objectsOf, podSpecOf } from '../manifest/workloads';
import type { Facts } from '../rules/facts';
import { targetingOf } from '../rules/targeting';
import type { Finding } from '../rules/types';
import { CONTROL, findActions, type Neutralised } from './neutralise';

/** Pod spec keys no Windows rule reads: what a define prints there cannot make a finding differ. */
const NOT_READ_BY_RULES = new Set(['imagePullSecrets', 'labels', 'annotations']);

const NAMED = /\b(?:include|template)\s+"([^"]+)"/;

/** One info finding (YAML002: not analysed) per key of a Windows pod spec whose content an unread define prints. */
export function unreadDefineNotes(template: string, n: Neutralised, facts: Facts): Finding[] {
  if (n.unreadBlocks.length === 0) return [];
  const withDefine = enclosingWithDefines(template);
  const byOwner = new Map<number, { defines: string[]; actions: string[] }>();
  for (const u of n.unreadBlocks) {
    const define = NAMED.exec(u.action)?.[1] ?? (usesDot(u.action) ? withDefine(n.lines[u.line]?.tplLine) : undefined);
    if (!define) continue;
    const owner = ownerLine(n, u.line);
    if (owner === undefined) continue;
    const entry = byOwner.get(owner) ?? { defines: [], actions: [] };
    if (!entry.defines.includes(define)) entry.defines.push(define);
    if (!entry.actions.includes(u.action)) entry.actions.push(u.action);
    byOwner.set(owner, entry);
  }
  if (byOwner.size === 0) return [];
  const windows = windowsPodSpans(n.text, facts);
  const outLines = new LineIndex(n.text);
  const tplLines = new LineIndex(template);
  const src = template.split('\n');
  const out: Finding[] = [];
  for (const [owner, { defines, actions }] of byOwner) {
    const offset = outLines.offsetAt({ line: owner, character: 0 });
    const doc = windows.find((w) => offset >= w.start && offset < w.end);
    if (!doc) continue;
    const tplLine = n.lines[owner].tplLine;
    const text = src[tplLine] ?? '';
    const range = {
      start: { line: tplLine, character: text.length - text.trimStart().length },
      end: { line: tplLine, character: text.replace(/\r$/, '').length },
    };
    const key = /^\s*(?:- )?([\w.-]+):/.exec(n.text.split('\n')[owner] ?? '')?.[1];
    if (key && NOT_READ_BY_RULES.has(key)) continue;
    const names = defines.map((d) => `"${d}"`).join(', ');
    out.push({
      ruleId: 'YAML002',
      severity: 'info',
      message: `chart template: ${key ? `\`${key}\` here` : 'this part of the pod spec'} is printed by the named template${defines.length > 1 ? 's' : ''} ${names} (${actions.map((a) => `\`${a.trim()}\``).join(', ')}), whose YAML the chart path does not expand in place, so it is not checked here. Check what Helm renders: helm template … | kube-windows check -`,
      range,
      span: { start: tplLines.offsetAt(range.start), end: tplLines.offsetAt(range.end) },
      fixes: [],
      document: doc.index,
    });
  }
  return out;
}

/** `toYaml .` and the like: the action prints the dot, which a `with` set. */
function usesDot(action: string): boolean {
  return /(?:^|[\s(])\.(?:[\s)|]|$)|\{\{-?\s*\.\s*-?\}\}/.test(action.replace(/^\{\{-?|-?\}\}$/g, ' '));
}

/** The key a block fills: its own line's `key:`, else the nearest non-blank output line above it. */
function ownerLine(n: Neutralised, line: number): number | undefined {
  const outText = n.text.split('\n');
  for (let l = line; l >= 0; l--) {
    const t = outText[l]?.trim() ?? '';
    if (t !== '' && !t.startsWith('#')) return t.endsWith(':') || l === line ? l : undefined;
  }
  return undefined;
}

/** For a template line, the define named by the innermost `with include "…"` around it (if the innermost with is). */
function enclosingWithDefines(template: string): (tplLine: number | undefined) => string | undefined {
  const lines = new LineIndex(template);
  const bodies: { from: number; to: number; define?: string }[] = [];
  const open: { from: number; define?: string; with: boolean }[] = [];
  for (const act of findActions(template)) {
    const word = CONTROL.exec(act.inner)?.[1];
    if (word === 'if' || word === 'with' || word === 'range' || word === 'define' || word === 'block')
      open.push({
        from: act.end,
        with: word === 'with' || word === 'range',
        define: word === 'with' ? NAMED.exec(act.inner)?.[1] : undefined,
      });
    else if (act.closes) {
      const frame = open.pop();
      if (frame?.with) bodies.push({ from: frame.from, to: act.start, define: frame.define });
    }
  }
  return (tplLine) => {
    if (tplLine === undefined) return undefined;
    const at = lines.offsetAt({ line: tplLine, character: 0 });
    const inside = bodies.filter((b) => lines.positionAt(b.from).line <= tplLine && at < b.to);
    // The innermost: the one that opens last.
    return inside.sort((a, b) => b.from - a.from)[0]?.define;
  };
}

/** The spans (file offsets) of the pod specs of Windows workloads in the neutralised text, with their document. */
function windowsPodSpans(text: string, facts: Facts): { start: number; end: number; index: number }[] {
  const out: { start: number; end: number; index: number }[] = [];
  splitDocuments(text).forEach((span, i) => {
    const doc = loadDocument(text, span, i, { templateSyntax: false });
    if (doc?.status !== 'ok') return;
    for (const object of objectsOf(doc.value)) {
      const pod = podSpecOf(object);
      if (!pod || targetingOf(pod, facts).os !== 'windows') continue;
      const at = spanFor(doc.tree(), pod.path, 'pair');
      if (at) out.push({ start: span.start + at.start, end: span.start + at.end, index: i });
    }
  });
  return out;
}
