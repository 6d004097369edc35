// What grew between two heap snapshots of one process (node:v8 writeHeapSnapshot; the soak writes them
// with KW_SOAK_HEAP_SNAPSHOTS=<folder>): the objects of the later snapshot that the earlier one did not
// have (V8 keeps an object's id across the snapshots of one process), by constructor, with their count and
// size, and for the largest groups the shortest path from the GC roots that holds one of them.
//   node scripts/heap-diff.mjs <earlier.heapsnapshot> <later.heapsnapshot> [--top 25] [--paths 8]
// --holders <constructor>: also the path that holds each object of that constructor in the later one.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const [earlierFile, laterFile] = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!earlierFile || !laterFile) {
  console.error('usage: node scripts/heap-diff.mjs <earlier.heapsnapshot> <later.heapsnapshot> [--top N] [--paths N]');
  process.exit(2);
}
const top = Number(option('--top', 25));
const paths = Number(option('--paths', 8));
const holders = option('--holders', undefined);

/** A snapshot's nodes and edges as flat arrays, with the field offsets its meta names. */
function load(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  const meta = s.snapshot.meta;
  const nf = meta.node_fields;
  const ef = meta.edge_fields;
  const g = {
    strings: s.strings,
    nodes: s.nodes,
    edges: s.edges,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    nw: nf.length,
    ew: ef.length,
    nType: nf.indexOf('type'),
    nName: nf.indexOf('name'),
    nId: nf.indexOf('id'),
    nSize: nf.indexOf('self_size'),
    nEdges: nf.indexOf('edge_count'),
    eType: ef.indexOf('type'),
    eName: ef.indexOf('name_or_index'),
    eTo: ef.indexOf('to_node'),
  };
  g.count = g.nodes.length / g.nw;
  g.firstEdge = new Uint32Array(g.count + 1);
  for (let i = 0, e = 0; i < g.count; i++) {
    g.firstEdge[i] = e;
    e += g.nodes[i * g.nw + g.nEdges] * g.ew;
  }
  g.firstEdge[g.count] = g.edges.length;
  return g;
}

const typeOf = (g, i) => g.nodeTypes[g.nodes[i * g.nw + g.nType]];
/** Objects by constructor; strings, code and V8's internals by their type. */
function groupOf(g, i) {
  const type = typeOf(g, i);
  const name = g.strings[g.nodes[i * g.nw + g.nName]];
  if (type === 'object' || type === 'closure' || type === 'native') return `${type} ${name}`;
  if (type === 'hidden' || type === 'synthetic') return `${type} ${name.slice(0, 60)}`;
  return `(${type})`;
}
const edgeName = (g, e) => {
  const type = g.edgeTypes[g.edges[e + g.eType]];
  const n = g.edges[e + g.eName];
  return type === 'element' || type === 'hidden' ? `[${n}]` : String(g.strings[n]);
};

const earlier = load(earlierFile);
const before = new Set();
for (let i = 0; i < earlier.count; i++) before.add(earlier.nodes[i * earlier.nw + earlier.nId]);
const later = load(laterFile);

const grew = new Map();
const totals = (g) => {
  let size = 0;
  for (let i = 0; i < g.count; i++) size += g.nodes[i * g.nw + g.nSize];
  return size;
};
for (let i = 0; i < later.count; i++) {
  if (before.has(later.nodes[i * later.nw + later.nId])) continue;
  const key = groupOf(later, i);
  const entry = grew.get(key) ?? { count: 0, size: 0, sample: [] };
  entry.count++;
  entry.size += later.nodes[i * later.nw + later.nSize];
  if (entry.sample.length < 50) entry.sample.push(i);
  grew.set(key, entry);
}
const mb = (b) => `${(b / 1048576).toFixed(2)} MB`;
console.log(
  `${earlierFile}: ${earlier.count} objects, ${mb(totals(earlier))}\n${laterFile}: ${later.count} objects, ${mb(totals(later))}`,
);
const ranked = [...grew.entries()].sort((a, b) => b[1].size - a[1].size);
console.log(`\nnew in the later snapshot, by constructor (top ${top} by size):`);
for (const [key, { count, size }] of ranked.slice(0, top))
  console.log(`  ${String(count).padStart(8)}  ${mb(size).padStart(10)}  ${key}`);

// Shortest paths from the roots (node 0), over strong edges only: what keeps an object alive.
const dist = new Int32Array(later.count).fill(-1);
const via = new Int32Array(later.count).fill(-1);
const queue = new Int32Array(later.count);
dist[0] = 0;
let head = 0;
let tail = 0;
queue[tail++] = 0;
while (head < tail) {
  const i = queue[head++];
  for (let e = later.firstEdge[i]; e < later.firstEdge[i + 1]; e += later.ew) {
    if (later.edgeTypes[later.edges[e + later.eType]] === 'weak') continue;
    const to = later.edges[e + later.eTo] / later.nw;
    if (dist[to] !== -1) continue;
    dist[to] = dist[i] + 1;
    via[to] = e;
    queue[tail++] = to;
  }
}
const fromOf = new Int32Array(later.count);
for (let i = 0; i < later.count; i++)
  for (let e = later.firstEdge[i]; e < later.firstEdge[i + 1]; e += later.ew)
    if (via[later.edges[e + later.eTo] / later.nw] === e) fromOf[later.edges[e + later.eTo] / later.nw] = i;

console.log(
  `\nwhat holds them (the shortest path from the roots to one object of each of the ${paths} largest groups):`,
);
const pathTo = (target) => {
  const steps = [];
  for (let i = target; i !== 0; i = fromOf[i])
    steps.unshift(`${groupOf(later, fromOf[i])} .${edgeName(later, via[i])}`);
  return steps.slice(-12).join('\n    ');
};
for (const [key, { sample }] of ranked.slice(0, paths)) {
  const target = sample.find((i) => dist[i] > 0);
  console.log(`  ${key}:\n    ${target === undefined ? 'not reachable (garbage the snapshot kept)' : pathTo(target)}`);
}
if (holders) {
  console.log(`\nwhat holds each ${holders} of the later snapshot:`);
  for (let i = 0; i < later.count; i++)
    if (groupOf(later, i) === `object ${holders}` && dist[i] > 0)
      console.log(`  #${later.nodes[i * later.nw + later.nId]}:\n    ${pathTo(i)}`);
}
