// Chart values: the chart's values.yaml plus user files, merged as Helm merges them (later wins,
// maps merged key by key), each leaf remembering the file and line it came from.
import { loadManifest, type ManifestDocument } from '../manifest/document';
import { getAt, spanFor, isObj, type Path } from '../manifest/path';

export interface ValuesSource {
  /** How the file is named in messages (`values.yaml`, `prod-values.yaml`). */
  name: string;
  text: string;
}

export interface ValuesOrigin {
  name: string;
  /** 1-based, as people read line numbers. */
  line: number;
}

export interface ChartValues {
  value: Record<string, unknown>;
  /** Where the value at this path was last set, or undefined when no file sets it. */
  originOf(path: Path): ValuesOrigin | undefined;
  /** Files that could not be read as YAML maps: what happened, for a warning. */
  problems: string[];
  /** The chart's named templates (`define` bodies by name), for an action that prints one. */
  defines?: ReadonlyMap<string, string>;
  /** How many named templates deep a read is (bounds a define that includes others). */
  nesting?: number;
  /** The release `.Capabilities.KubeVersion` is ("1.35"); unset: conditions on it decided over 1.29 to 1.37. */
  kubeVersion?: string;
}

export function loadValues(sources: ValuesSource[]): ChartValues {
  const problems: string[] = [];
  const loaded: { name: string; value: Record<string, unknown>; text: string; tree: ManifestDocument['tree'] }[] = [];
  let merged: Record<string, unknown> = {};
  for (const source of sources) {
    // Values files are data: `${VAR}` (env for a container) and `{{ }}` (for `tpl`) strings in them are text.
    const file = loadManifest(source.text, { templateSyntax: false });
    const doc = file.documents[0];
    if (!doc || doc.status === 'empty') continue;
    if (doc.status !== 'ok' || !isObj(doc.value)) {
      problems.push(
        `${source.name}: ${doc.status === 'ok' ? 'not a YAML map' : (doc.reason ?? doc.status)}; its values were not used`,
      );
      continue;
    }
    loaded.push({ name: source.name, value: doc.value, text: source.text, tree: () => doc.tree() });
    merged = mergeValues(merged, doc.value);
  }
  return {
    value: merged,
    problems,
    originOf(path) {
      for (let i = loaded.length - 1; i >= 0; i--) {
        const span = spanFor(loaded[i].tree(), path, 'key');
        if (!span || getAt(loaded[i].value, path) === undefined) continue;
        return { name: loaded[i].name, line: lineOf(loaded[i].text, span.start) };
      }
      return undefined;
    },
  };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Helm's coalescing: maps merge key by key, anything else is replaced; an explicit null deletes the key. */
export function mergeValues(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === null) delete out[key];
    else if (isObj(value) && isObj(out[key])) out[key] = mergeValues(out[key] as Record<string, unknown>, value);
    else out[key] = value;
  }
  return out;
}

/** `.Values.a.b` → ['a', 'b']; undefined for anything that is not a plain field chain. */
export function valuesPath(expr: string): Path | undefined {
  const m = /^\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/.exec(expr.trim());
  return m ? m[1].slice(1).split('.') : undefined;
}
