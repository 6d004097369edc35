// go-yaml, which kubectl and the API server read manifests with, accepts tabs in the leading white
// space of a quoted scalar's continuation lines. js-yaml counts only spaces there and rejects the
// line as deficiently indented. That white space is never content (it is folded away), so such
// tabs are read as spaces: same length, so every position stays where it was.
import { EVENT_ID, parseEvents, SCALAR_STYLE, type Event } from 'js-yaml';

const EV_SCALAR = EVENT_ID.SCALAR;
const QUOTED: number[] = [SCALAR_STYLE.SINGLE_QUOTED, SCALAR_STYLE.DOUBLE_QUOTED];
const MAX_REPAIRS = 10_000;

/** The events of a text, and the text they were read from (the original, or one with such tabs made spaces). */
export function parseWithQuotedTabs(text: string, maxDepth: number): { events: Event[]; source: string } {
  let source = text;
  const repaired: number[] = [];
  for (;;) {
    try {
      const events = parseEvents(source, { maxDepth });
      if (repaired.length > 0 && !repaired.every((at) => insideQuoted(events, at)))
        throw new Error('not in a quoted scalar');
      return { events, source };
    } catch (err) {
      const lineStart = repaired.length < MAX_REPAIRS ? tabLedLine(err, source) : undefined;
      if (lineStart === undefined) {
        if (repaired.length === 0) throw err;
        // The tabs were not the whole story (or not in a quoted scalar): report the text as written.
        return { events: parseEvents(text, { maxDepth }), source: text };
      }
      const lead = /^[ \t]*/.exec(source.slice(lineStart))?.[0] ?? '';
      source = source.slice(0, lineStart) + ' '.repeat(lead.length) + source.slice(lineStart + lead.length);
      repaired.push(lineStart);
    }
  }
}

/** Where the line that js-yaml found deficiently indented starts, when its indentation holds a tab. */
function tabLedLine(err: unknown, source: string): number | undefined {
  const e = err as { reason?: string; mark?: { position?: number } };
  if (e?.reason !== 'deficient indentation' || typeof e.mark?.position !== 'number') return undefined;
  const lineStart = source.lastIndexOf('\n', e.mark.position - 1) + 1;
  const lead = /^[ \t]*/.exec(source.slice(lineStart))?.[0] ?? '';
  return lead.includes('\t') ? lineStart : undefined;
}

function insideQuoted(events: Event[], at: number): boolean {
  return events.some((e) => e.type === EV_SCALAR && QUOTED.includes(e.style) && e.valueStart < at && at < e.valueEnd);
}
