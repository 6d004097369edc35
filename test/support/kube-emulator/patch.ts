// JSON merge patch (RFC 7386) and JSON patch (RFC 6902), as the API server applies them.

export class PatchError extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

type Op = { op: string; path: string; value?: unknown; from?: string };

function parsePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new PatchError(`invalid JSON pointer ${JSON.stringify(p)}`);
  return p
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(
  doc: unknown,
  tokens: string[],
  path: string,
): { parent: Record<string, unknown> | unknown[]; key: string } {
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObj(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw new PatchError(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isObj(cur)) throw new PatchError(`doc is missing path: "${path}": missing value`);
  return { parent: cur, key: tokens[tokens.length - 1] };
}

function getAt(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObj(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw new PatchError(`doc is missing path: "${path}": missing value`);
  }
  return cur;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return structuredClone(value);
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > parent.length)
      throw new PatchError(`Unable to access invalid index: ${key}`);
    parent.splice(i, 0, structuredClone(value));
  } else parent[key] = structuredClone(value);
  return doc;
}

function removeAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length)
      throw new PatchError(`Unable to remove nonexistent key: ${key}: missing value`);
    parent.splice(i, 1);
  } else {
    if (!(key in parent)) throw new PatchError(`Unable to remove nonexistent key: ${key}: missing value`);
    delete parent[key];
  }
  return doc;
}

export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new PatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = structuredClone(target);
  for (const raw of ops as Op[]) {
    switch (raw.op) {
      case 'add':
        doc = add(doc, raw.path, raw.value);
        break;
      case 'remove':
        doc = removeAt(doc, raw.path);
        break;
      case 'replace':
        getAt(doc, raw.path);
        doc = removeAt(doc, raw.path);
        doc = add(doc, raw.path, raw.value);
        break;
      case 'move': {
        const v = getAt(doc, raw.from ?? '');
        doc = removeAt(doc, raw.from ?? '');
        doc = add(doc, raw.path, v);
        break;
      }
      case 'copy':
        doc = add(doc, raw.path, getAt(doc, raw.from ?? ''));
        break;
      case 'test':
        if (JSON.stringify(getAt(doc, raw.path)) !== JSON.stringify(raw.value))
          throw new PatchError(`testing value ${raw.path} failed: test failed`);
        break;
      default:
        throw new PatchError(`Unexpected kind: ${raw.op}`);
    }
  }
  return doc;
}
