import { readdirSync, statSync, readFileSync, readSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';
import { globSync } from 'tinyglobby';

export interface InputFile {
  /** Path as shown to the user (relative to the working directory when possible). */
  path: string;
  /** Absolute path on disk; undefined for standard input. */
  absolute?: string;
}

export interface ExpandResult {
  files: InputFile[];
  errors: string[];
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);
const YAML_FILE = /\.ya?ml$/i;
const GLOB_CHARS = /[*?[\]{}]/;

/** Expands paths, directories (walked for *.yaml / *.yml) and globs, in the order given, without duplicates. */
export function expandInputs(inputs: string[], cwd = process.cwd()): ExpandResult {
  const files: InputFile[] = [];
  const errors: string[] = [];
  const seen = new Set<string>();
  const add = (abs: string) => {
    if (seen.has(abs)) return;
    seen.add(abs);
    const rel = relative(cwd, abs);
    files.push({ path: rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs, absolute: abs });
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
      walk(abs, found, errors);
      found.sort().forEach(add);
    } else if (st?.isFile()) {
      add(abs);
    } else if (GLOB_CHARS.test(input)) {
      const matches = globSync(input, { cwd, absolute: true, dot: false, ignore: ['**/node_modules/**', '**/.git/**'] }).sort();
      if (matches.length === 0) errors.push(`${input}: no files match this pattern`);
      matches.forEach(add);
    } else {
      errors.push(`${input}: no such file or directory`);
    }
  }
  return { files, errors };
}

function walk(dir: string, out: string[], errors: string[]) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    errors.push(`${dir}: cannot read directory (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return;
  }
  for (const e of entries) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(join(dir, e.name), out, errors);
    } else if (e.isFile() && YAML_FILE.test(e.name)) {
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
    return { error: code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : `cannot read (${code ?? 'error'})` };
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
