// Projects: the files `check` reads belong to one project each (the kustomization or chart they sit
// in, else the folder argument they came from, else their own folder), and the facts read from files
// (RuntimeClasses, node builds, OpenShift objects) apply within their project only: a RuntimeClass in
// one repository's folder says nothing about the pods of an unrelated folder checked in the same run.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { load } from 'js-yaml';
import { gatherFacts } from '../core/rules/checker';
import { withProjectFlavour, type ClusterSnapshot, type FactText, type Facts, type Flavour } from '../core/rules/facts';
import type { InputFile } from './files';

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const ROOT_FILES = [...KUSTOMIZATION_FILES, 'Chart.yaml'];

/**
 * The project folder of a file found under `stop` (a folder argument, or the working directory for a
 * named file): the nearest folder between the file's and `stop` holding a kustomization or a chart;
 * else `stop` for a folder argument, the file's own folder for a named file.
 */
export function projectOf(
  absolute: string,
  stop: string,
  fallback: string,
  hasFile: (path: string) => boolean = existsSync,
): string {
  let dir = dirname(absolute);
  const inside = (d: string) => {
    const rel = relative(stop, d);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  while (inside(dir)) {
    if (ROOT_FILES.some((f) => hasFile(join(dir, f)))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return fallback;
}

/** The folders a kustomization names in resources, bases and components (local paths only). */
function kustomizationLinks(root: string): string[] {
  const file = KUSTOMIZATION_FILES.map((f) => join(root, f)).find((f) => existsSync(f));
  if (!file) return [];
  let value: unknown;
  try {
    value = load(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  if (typeof value !== 'object' || value === null) return [];
  const v = value as Record<string, unknown>;
  const out: string[] = [];
  for (const key of ['resources', 'bases', 'components']) {
    const list = v[key];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      // A remote base (a URL, git@…) is not among the files checked.
      if (typeof entry !== 'string' || /^[a-z][a-z0-9+.-]*:\/\/|^git@|\?ref=/i.test(entry)) continue;
      out.push(resolve(root, entry));
    }
  }
  return out;
}

/**
 * The facts of each file's project: gathered once per project from its files' texts (and from the
 * projects its kustomization builds on: an overlay sees its base's RuntimeClasses), with the
 * project's flavour. `texts` are what the checks read (a chart template's neutral text).
 */
export function factsPerProject(
  texts: { file: InputFile; text: string }[],
  flavour: Flavour,
  cluster: ClusterSnapshot | undefined,
  kubernetesVersion?: string,
): (file: InputFile) => Facts {
  const members = new Map<string, FactText[]>();
  const keyOf = (file: InputFile) => file.project ?? (file.absolute ? dirname(file.absolute) : '<stdin>');
  for (const { file, text } of texts) {
    const key = keyOf(file);
    const list = members.get(key) ?? [];
    list.push({ text, path: file.path });
    members.set(key, list);
  }
  // The project a linked path lies in: the nearest (longest) project folder holding it.
  const projectOfDir = (dir: string) =>
    [...members.keys()]
      .filter((k) => {
        const rel = relative(k, dir);
        return isAbsolute(k) && !rel.startsWith('..') && !isAbsolute(rel);
      })
      .sort((a, b) => b.length - a.length)[0];
  const cache = new Map<string, Facts>();
  const factsOf = (key: string): Facts => {
    let facts = cache.get(key);
    if (facts) return facts;
    // The project's files, then those of the projects its kustomization builds on (transitively).
    const seen = new Set<string>([key]);
    const queue = [key];
    const sources: FactText[] = [];
    while (queue.length > 0) {
      const k = queue.shift() as string;
      sources.push(...(members.get(k) ?? []));
      if (!isAbsolute(k)) continue;
      for (const linked of kustomizationLinks(k)) {
        const target = projectOfDir(linked);
        if (target && !seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
    facts = withProjectFlavour(gatherFacts(sources, flavour, cluster, kubernetesVersion), sources);
    cache.set(key, facts);
    return facts;
  };
  return (file) => factsOf(keyOf(file));
}
