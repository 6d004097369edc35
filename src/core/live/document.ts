// A live object as a read-only YAML document with its findings placed on it: the text is the object
// as the live check saw it (server defaults the rules ignore and managedFields left out), and the
// rule findings take the ranges the engine computes when it checks that very text, so that the
// editor underlines what `kube-windows check` on a file would. Failure explanations (WINF…) have
// only a field path; they are placed with the same positional tree.
import { loadManifest } from '../manifest/document';
import { getAt, isObj, parseFieldPath, spanFor, type Obj } from '../manifest/path';
import { LineIndex, type Range } from '../manifest/text';
import { writeYaml } from '../manifest/yaml-writer';
import { checkText, type CheckOptions } from '../rules/checker';
import type { Finding } from '../rules/types';
import { withoutServerDefaults, type LiveFinding } from './check';

export interface PlacedFinding extends LiveFinding {
  range: Range;
}

export interface LiveDocument {
  text: string;
  /** The findings given, in their order, each with its range in `text`. */
  findings: PlacedFinding[];
}

/** What the document shows of an object: no managedFields (bookkeeping of who wrote which field). */
export function shownObject(object: Obj): Obj {
  const checked = withoutServerDefaults(object);
  const metadata = checked.metadata;
  if (!isObj(metadata) || !('managedFields' in metadata)) return checked;
  const rest = { ...metadata };
  delete rest.managedFields;
  return { ...checked, metadata: rest };
}

/** `# header` lines, then the object's YAML. */
export function liveYaml(object: Obj, header: string[] = []): string {
  const comments = header.map((line) => `# ${line.replace(/\r?\n/g, ' ')}\n`).join('');
  return comments + writeYaml(shownObject(object));
}

/**
 * Places `findings` (the live check's, for this object) on the object's YAML. Each rule finding takes
 * the range of the engine's finding on the text with the same rule and message (else the same rule);
 * an explanation, or a rule finding the text check did not repeat, is placed by its field path.
 */
export function liveDocument(
  object: Obj,
  findings: LiveFinding[],
  options: CheckOptions,
  header: string[] = [],
): LiveDocument {
  const text = liveYaml(object, header);
  const engine = findings.some((f) => !f.ruleId.startsWith('WINF'))
    ? checkText(text, { ...options, fixes: false }).findings
    : [];
  const used = new Set<Finding>();
  const take = (match: (f: Finding) => boolean): Finding | undefined => {
    const found = engine.find((f) => !used.has(f) && match(f));
    if (found) used.add(found);
    return found;
  };
  const lines = new LineIndex(text);
  let located: ((path: string) => Range) | undefined;
  const byPath = (path: string): Range => {
    located ??= pathLocator(text, lines);
    return located(path);
  };
  const placed = findings.map((f) => {
    const same = f.ruleId.startsWith('WINF')
      ? undefined
      : (take((e) => e.ruleId === f.ruleId && e.message === f.message) ?? take((e) => e.ruleId === f.ruleId));
    return { ...f, range: same ? same.range : byPath(f.path) };
  });
  return { text, findings: placed };
}

function pathLocator(text: string, lines: LineIndex): (path: string) => Range {
  const doc = loadManifest(text).documents.find((d) => d.status === 'ok');
  const tree = doc?.tree();
  const base = doc?.span.start ?? 0;
  return (path) => {
    const span = doc ? spanFor(tree, parseFieldPath(doc.value, path), 'key') : undefined;
    if (!span) return lines.rangeOf({ start: base, end: base });
    return lines.rangeOf({ start: span.start + base, end: span.end + base });
  };
}

/** The object's `Kind namespace/name`, as the view and the document title name it. */
export function objectTitle(o: { kind: string; namespace?: string; name: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

/** The object of `objects` with this kind, namespace and name. */
export function findObject(objects: Obj[], key: { kind: string; namespace?: string; name: string }): Obj | undefined {
  return objects.find(
    (o) =>
      o.kind === key.kind &&
      getAt(o, ['metadata', 'name']) === key.name &&
      (getAt(o, ['metadata', 'namespace']) ?? undefined) === (key.namespace ?? undefined),
  );
}
