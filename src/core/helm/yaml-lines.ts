// A values subtree as the YAML lines `toYaml` prints, each remembering the values path it shows.
import { isObj, type Path } from '../manifest/path';

/** YAML lines for a value, each with the values path it shows (for naming its origin). */
export function yamlLines(value: unknown, path: Path): { text: string; path: Path }[] {
  const out: { text: string; path: Path }[] = [];
  const emit = (v: unknown, p: Path, indent: string) => {
    if (isObj(v)) {
      for (const [key, child] of Object.entries(v)) {
        const k = yamlScalar(key);
        if (isCollection(child)) {
          out.push({ text: `${indent}${k}:`, path: [...p, key] });
          emit(child, [...p, key], Array.isArray(child) ? indent : `${indent}  `);
        } else out.push({ text: `${indent}${k}: ${inlineValue(child)}`, path: [...p, key] });
      }
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        const start = out.length;
        if (isCollection(item)) emit(item, [...p, i], `${indent}  `);
        else out.push({ text: `${indent}  ${inlineValue(item)}`, path: [...p, i] });
        // The first line of an item carries the dash.
        if (out.length > start)
          out[start] = { ...out[start], text: `${indent}- ${out[start].text.slice(indent.length + 2)}` };
        else out.push({ text: `${indent}- ${inlineValue(item)}`, path: [...p, i] });
      });
    } else out.push({ text: `${indent}${inlineValue(v)}`, path: p });
  };
  emit(value, path, '');
  return out;
}

export function isCollection(v: unknown): boolean {
  return (isObj(v) && Object.keys(v).length > 0) || (Array.isArray(v) && v.length > 0);
}

export function inlineValue(v: unknown): string {
  if (isObj(v)) return '{}';
  if (Array.isArray(v)) return '[]';
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return yamlScalar(v);
  return String(v);
}

/** A string as YAML reads it back unchanged (quoted when YAML 1.1 would read it as something else). */
function yamlScalar(s: string): string {
  const plain =
    /^[A-Za-z0-9_./-][A-Za-z0-9_./ -]*$/.test(s) &&
    !s.endsWith(' ') &&
    !/^(?:y|n|yes|no|on|off|true|false|null|~|[-+]?[0-9][0-9_.:eE+-]*)$/i.test(s);
  return plain ? s : JSON.stringify(s);
}
