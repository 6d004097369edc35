// A chart's named templates: the body of each `define` in its files, for the actions that print one.
import { CONTROL, findActions } from './neutralise';

/** The bodies of the `define`s in a chart's files, by name (a later file's define wins, as in Helm). */
export function chartDefines(texts: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const text of texts) {
    if (!text.includes('define')) continue;
    const open: { name?: string; end: number }[] = [];
    for (const act of findActions(text)) {
      const word = CONTROL.exec(act.inner)?.[1];
      if (word === 'if' || word === 'with' || word === 'range' || word === 'block' || word === 'define')
        open.push({ name: word === 'define' ? /^define\s+"([^"]+)"/.exec(act.inner)?.[1] : undefined, end: act.end });
      else if (act.closes) {
        const from = open.pop();
        if (from?.name && open.length === 0) out.set(from.name, text.slice(from.end, act.start));
      }
    }
  }
  return out;
}
