// A CPU profile of one phase of the cluster bench, taken in-process (node:inspector) so that setting up the
// world (certificates, servers) stays out of it, and summarised by where the time went: self time grouped
// by the original source file (through the bundle's source map) into buckets a reader of the bench cares
// about, plus the functions with the most self time. Bench-only.
import { Session } from 'node:inspector';
import { findSourceMap } from 'node:module';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const BUCKETS: [string, (file: string, fn: string) => boolean][] = [
  ['idle (waiting on the servers)', (_f, fn) => fn === '(idle)'],
  ['garbage collection', (_f, fn) => fn === '(garbage collector)'],
  ['the profiler itself', (f) => f === 'node:inspector'],
  ['TLS: handshakes, certificates, crypto', (f) => /^node:(_tls|tls|crypto|internal\/(tls|crypto))/.test(f)],
  ['the two API emulators (test doubles)', (f) => /test\/support\//.test(f)],
  ['kubeconfig and client library', (f) => /node_modules\/(@kubernetes|js-yaml|jsonpath|openid|oauth|hpagent)/.test(f)],
  ['HTTP, sockets, streams', (f) => /^node:(_http|http|https|net|stream|internal\/(streams|http|net))/.test(f)],
  ['cluster tree, sessions, watches', (f) => /src\/(views|cluster|core)\//.test(f)],
];

export async function profiled<T>(run: () => Promise<T>): Promise<{ result: T; summary: string }> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  const result = await run();
  const { profile } = (await post('Profiler.stop')) as { profile: Profile };
  session.disconnect();
  return { result, summary: summarise(profile) };
}

function sourceOf(frame: ProfileNode['callFrame']): string {
  if (!frame.url.startsWith('file:')) return frame.url;
  const entry = findSourceMap(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber) as
    | { originalSource?: string }
    | undefined;
  return entry?.originalSource ?? frame.url;
}

function summarise(profile: Profile): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // A native function (no url: a secure context's addCACert, a socket's connect) counts where it was called from.
  const caller = (id: number): ProfileNode['callFrame'] | undefined => {
    const own = byId.get(id)?.callFrame;
    if (!own || own.url || own.functionName.startsWith('(')) return own;
    for (let at = parent.get(id); at !== undefined; at = parent.get(at)) {
      const up = byId.get(at)?.callFrame;
      if (!up || up.functionName === '(root)') break;
      if (up.url) return { ...up, functionName: `${own.functionName} in ${up.functionName || '(anonymous)'}` };
    }
    return own;
  };
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const buckets = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const frame = caller(id);
    if (!frame) continue;
    total += us;
    const file = sourceOf(frame);
    const bucket = BUCKETS.find(([, test]) => test(file, frame.functionName))?.[0] ?? 'other (Node internals, the bench)';
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const key = `${frame.functionName || '(anonymous)'} ${file.replace(/^.*\/(node_modules\/)?/, '')}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const ms = (us: number) => (us / 1000).toFixed(0).padStart(6);
  const lines = [`  CPU profile of this phase (${ms(total).trim()} ms sampled, one process: tree, sessions, emulators):`];
  for (const [name, us] of [...buckets].sort((a, b) => b[1] - a[1]))
    lines.push(`    ${name.padEnd(40)} ${ms(us)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%`);
  lines.push('    most self time:');
  for (const [name, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, 12)) lines.push(`    ${ms(us)} ms  ${name}`);
  return lines.join('\n');
}
