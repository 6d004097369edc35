/**
 * A unified diff of two small texts (hosts.toml files: tens of lines), line by line, with the usual
 * `--- a` / `+++ b` / `@@` hunks and three lines of context. A plain LCS table: quadratic, which
 * is fine at these sizes and keeps the output minimal. Pure.
 */

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split(/\r?\n/);
  if (out[out.length - 1] === '') out.pop();
  return out;
}

function script(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: ' ', line: a[i++]!, a: i, b: ++j });
    // Deletions before insertions, as diff -u prints them.
    else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!))
      ops.push({ kind: '-', line: a[i++]!, a: i, b: j });
    else ops.push({ kind: '+', line: b[j++]!, a: i, b: j });
  }
  return ops;
}

/** `--- from` / `+++ to` and hunks; '' when the texts have the same lines. */
export function unifiedDiff(before: string, after: string, from: string, to: string, context = 3): string {
  const ops = script(lines(before), lines(after));
  if (ops.every((o) => o.kind === ' ')) return '';
  const out = [`--- ${from}`, `+++ ${to}`];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.kind === ' ') k++;
    if (k >= ops.length) break;
    const start = Math.max(0, k - context);
    // Extend the hunk while the next change is within 2 * context lines.
    let end = k;
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === ' ') next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    const hunk = ops.slice(start, stop);
    const aCount = hunk.filter((o) => o.kind !== '+').length;
    const bCount = hunk.filter((o) => o.kind !== '-').length;
    const first = ops[start]!;
    // 1-based first line of the hunk on each side; an empty side names the line before it.
    const aStart = first.kind === '+' ? first.a + 1 : first.a;
    const bStart = first.kind === '-' ? first.b + 1 : first.b;
    out.push(`@@ -${aCount === 0 ? aStart - 1 : aStart},${aCount} +${bCount === 0 ? bStart - 1 : bStart},${bCount} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = stop;
  }
  return out.join('\n') + '\n';
}
