// The files a command reads and writes: inputs (paths, directories, globs, "-" for standard input),
// the objects of their YAML documents, and writes that never leave a half-written file.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, isAbsolute } from 'node:path';
import { globSync } from 'tinyglobby';
import { DEFAULT_MAX_BYTES, loadManifest } from '../core/manifest/document';
import { chartRootOf } from '../core/helm/check';
import { projectOf } from './projects';

export interface InputFile {
  /** Path as shown to the user (relative to the working directory when possible). */
  path: string;
  /** Absolute path on disk; undefined for standard input. */
  absolute?: string;
  /**
   * The project folder the file belongs to (projects.ts): the kustomization or chart it sits in, else
   * the folder argument it came from, else its own folder. Facts read from files apply within one project.
   */
  project?: string;
}

/** An input that could not be read, and why (as `check` reports it: text, JSON `unreadable`, SARIF). */
export interface Unreadable {
  path: string;
  reason: string;
}

export interface ExpandResult {
  files: InputFile[];
  unreadable: Unreadable[];
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);
const YAML_FILE = /\.ya?ml$/i;
// A chart's templates/ may define whole manifests in .tpl files (included from a .yaml template).
const CHART_PARTIAL = /\.tpl$/i;
const GLOB_CHARS = /[*?[\]{}]/;
// Named explicitly, a manifest may also be JSON (kubectl reads it; JSON is YAML) or have no extension.
const NAMED_MANIFEST = /\.(?:ya?ml|json)$/i;

/** What a walk or a glob reads: YAML files, and .tpl files under a chart's templates/. */
function isManifestFile(path: string): boolean {
  return YAML_FILE.test(path) || (CHART_PARTIAL.test(path) && chartRootOf(path, existsSync) !== undefined);
}

/** Why a file named on the command line is not read, or undefined: README.md is not YAML. */
function notYaml(path: string): string | undefined {
  const name = basename(path);
  const ext = /.\.([^.]+)$/.exec(name)?.[1];
  if (ext === undefined || NAMED_MANIFEST.test(name) || isManifestFile(path)) return undefined;
  return `not a YAML file (.${ext}); check reads .yaml, .yml and .json files`;
}

/**
 * Expands paths, directories (walked for *.yaml / *.yml) and globs (their YAML files), in the order
 * given, without duplicates. A missing path, a glob that matches no YAML file and a named file that is
 * not YAML are `unreadable`, each with its reason.
 */
export function expandInputs(inputs: string[], cwd = process.cwd()): ExpandResult {
  const files: InputFile[] = [];
  const unreadable: Unreadable[] = [];
  const seen = new Set<string>();
  // Many files share folders: each folder is asked once whether it holds a kustomization or a chart.
  const known = new Map<string, boolean>();
  const exists = (path: string) => {
    let e = known.get(path);
    if (e === undefined) known.set(path, (e = existsSync(path)));
    return e;
  };
  // A named file's project is looked for up to the working directory (or its own folder, outside it).
  const named = (abs: string) => {
    const rel = relative(cwd, abs);
    return projectOf(abs, rel.startsWith('..') || isAbsolute(rel) ? dirname(abs) : cwd, dirname(abs), exists);
  };
  const add = (abs: string, project: string) => {
    if (seen.has(abs)) return;
    seen.add(abs);
    const rel = relative(cwd, abs);
    files.push({ path: rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs, absolute: abs, project });
  };
  for (const input of inputs) {
    if (input === '-') {
      if (!seen.has('-')) {
        seen.add('-');
        files.push({ path: '<stdin>' });
      }
      continue;
    }
    const abs = isAbsolute(input) ? input : join(cwd, input);
    let st;
    try {
      st = statSync(abs);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) {
      const found: string[] = [];
      walk(abs, found, unreadable);
      for (const f of found.sort()) add(f, projectOf(f, abs, abs, exists));
    } else if (st?.isFile()) {
      const reason = notYaml(abs);
      if (reason) unreadable.push({ path: input, reason });
      else add(abs, named(abs));
    } else if (GLOB_CHARS.test(input)) {
      const matches = globSync(input, {
        cwd,
        absolute: true,
        dot: false,
        ignore: ['**/node_modules/**', '**/.git/**'],
      }).sort();
      const yaml = matches.filter(isManifestFile);
      if (yaml.length === 0)
        unreadable.push({
          path: input,
          reason:
            matches.length === 0
              ? 'no files match this pattern'
              : `no YAML file matches this pattern (${matches.length === 1 ? 'the one file it matches is not' : `none of the ${matches.length} files it matches is`} .yaml or .yml)`,
        });
      for (const f of yaml) add(f, named(f));
    } else {
      unreadable.push({ path: input, reason: 'no such file or directory' });
    }
  }
  return { files, unreadable };
}

function walk(dir: string, out: string[], unreadable: Unreadable[]) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    unreadable.push({ path: dir, reason: `cannot read directory (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
    return;
  }
  for (const e of entries) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(join(dir, e.name), out, unreadable);
    } else if (e.isFile() && isManifestFile(join(dir, e.name))) {
      out.push(join(dir, e.name));
    }
  }
}

/** Reads a file as UTF-8 text, refusing files over `maxBytes` without reading them whole. */
export function readText(file: InputFile, maxBytes: number): { text?: string; error?: string; tooLarge?: number } {
  try {
    if (!file.absolute) return { text: readStdin() };
    const size = statSync(file.absolute).size;
    if (size > maxBytes) return { tooLarge: size };
    return { text: readFileSync(file.absolute, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      error:
        code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot read (${code ?? 'error'})`,
    };
  }
}

function readStdin(): string {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(1 << 16);
  const fd = 0;
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') continue;
      if (code === 'EOF') break;
      throw err;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The objects of every YAML document in `inputs`, and every problem met (a missing path, an
 * unreadable or oversized file, a document that does not parse), each as one line naming the file.
 * A command that acts on the objects stops on any problem: half an input set would mislead.
 */
export function readObjects(inputs: string[], maxBytes = DEFAULT_MAX_BYTES): { objects: unknown[]; errors: string[] } {
  const { files, unreadable } = expandInputs(inputs);
  const objects: unknown[] = [];
  const errors = unreadable.map((u) => `${u.path}: ${u.reason}`);
  if (errors.length > 0) return { objects, errors };
  for (const input of files) {
    const r = readText(input, maxBytes);
    if (r.text === undefined) {
      errors.push(`${input.path}: ${r.error ?? 'file too large'}`);
      continue;
    }
    const manifest = loadManifest(r.text);
    if (manifest.skipped) {
      errors.push(`${input.path}: ${manifest.skipped}`);
      continue;
    }
    for (const doc of manifest.documents) {
      if (doc.status === 'ok') objects.push(doc.value);
      else if (doc.status !== 'empty')
        errors.push(`${input.path}: document ${doc.index + 1} not read: ${doc.reason ?? doc.status}`);
    }
  }
  return { objects, errors };
}

/**
 * Writes `text` next to `path` and renames it over `path`: readers see the old file or the new
 * one, never half. `mode` for a new file (the umask applies); without it an existing file keeps
 * its mode. Returns why it failed, in words, or undefined.
 */
export function writeFileAtomic(link: string, text: string, mode?: number): string | undefined {
  // Through a symlink, the file it points to is rewritten (renaming over the link would replace it
  // with a copy and leave the real file as it was).
  const path = realTarget(link);
  const existing = existingMode(path);
  // A rename replaces a file whatever its mode: a read-only file is refused here, as an editor would.
  if (mode === undefined && existing !== undefined && (existing & 0o222) === 0) return 'the file is read-only';
  const tmp = join(dirname(path), `.${basename(path)}.kube-windows-${process.pid}.tmp`);
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, text, { encoding: 'utf8', flag: 'wx', ...(mode !== undefined ? { mode } : {}) });
    if (mode === undefined && existing !== undefined) chmodSync(tmp, existing);
    renameSync(tmp, path);
    return undefined;
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to clean up
    }
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'ENOSPC'
        ? 'disk full'
        : `write failed (${code ?? 'error'})`;
  }
}

function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function existingMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}
