// What an EditOp does to a document's value, computed on plain objects: the oracle that the text
// edits of src/core/manifest/edits.ts are checked against.
import type { EditOp } from '../../src/core/manifest/edits';
import type { Path } from '../../src/core/manifest/path';

type Container = Record<string, unknown> | unknown[];

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function get(value: unknown, path: Path): unknown {
  let v = value;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

function size(v: unknown): number {
  return Array.isArray(v) ? v.length : isObj(v) ? Object.keys(v).length : -1;
}

function remove(parent: Container, seg: string | number): void {
  if (Array.isArray(parent)) parent.splice(seg as number, 1);
  else delete parent[seg as string];
}

/**
 * Applies `op` to a deep copy of `value`; the document root becomes null when emptied. A delete
 * that empties the collection kept by `keep` leaves it empty (`{}` in flow style) or, with
 * `emptied: 'null'`, null (`key:` in block style).
 */
export function applyOp(value: unknown, op: EditOp, emptied: 'empty' | 'null' = 'empty'): unknown {
  const root = structuredClone(value) as unknown;
  const holder = { root } as Record<string, unknown>;
  const full: Path = ['root', ...op.path];
  switch (op.op) {
    case 'delete': {
      let p = full;
      const keep = (op.keep ?? 0) + 1;
      while (p.length - 1 > keep && size(get(holder, p.slice(0, -1))) === 1) p = p.slice(0, -1);
      const parent = get(holder, p.slice(0, -1)) as Container;
      remove(parent, p[p.length - 1]);
      if (emptied === 'null' && size(parent) === 0 && p.length >= 3) {
        (get(holder, p.slice(0, -2)) as Record<string | number, unknown>)[p[p.length - 2]] = null;
      }
      break;
    }
    case 'set': {
      let v: unknown = holder;
      for (let i = 0; i < full.length - 1; i++) {
        const seg = full[i];
        const next = (v as Record<string | number, unknown>)[seg];
        if (next === null || next === undefined) (v as Record<string | number, unknown>)[seg] = {};
        v = (v as Record<string | number, unknown>)[seg];
      }
      (v as Record<string | number, unknown>)[full[full.length - 1]] = structuredClone(op.value);
      break;
    }
    case 'renameKey':
    case 'replacePair': {
      const parent = get(holder, full.slice(0, -1)) as Record<string, unknown>;
      const old = parent[full[full.length - 1] as string];
      delete parent[full[full.length - 1] as string];
      if (op.op === 'renameKey') parent[op.newKey] = old;
      else parent[op.key] = structuredClone(op.value);
      break;
    }
    case 'append': {
      const parent = get(holder, full.slice(0, -1)) as Record<string | number, unknown>;
      const seg = full[full.length - 1];
      if (!Array.isArray(parent[seg])) parent[seg] = [];
      (parent[seg] as unknown[]).push(structuredClone(op.value));
      break;
    }
  }
  const out = holder.root;
  return isObj(out) && Object.keys(out).length === 0 ? null : out;
}

/** Every path of a value, parents before children. */
export function allPaths(value: unknown, base: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...base, i], ...allPaths(v, [...base, i])));
  else if (isObj(value))
    for (const k of Object.keys(value)) out.push([...base, k], ...allPaths(value[k], [...base, k]));
  return out;
}
