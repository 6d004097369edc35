// `kube-windows mirrors …`: `render` lives here; `diff` and `apply` are in ./mirrors-apply.
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync, renameSync, unlinkSync, readFileSync } from 'node:fs';
import { join, resolve, relative, isAbsolute } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { loadManifest } from '../core/manifest/document';
import { credentialsFromPullSecret, mirrorEntriesOf, PullSecretError, renderHostsToml, type Credential, type MirrorMode, type RenderedFile } from '../core/mirrors/render';
import { expandInputs, readText } from './files';
import { runMirrorsApply } from './mirrors-apply';

const EXIT_OK = 0;
const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;

export const MIRRORS_HELP = `Usage:
  kube-windows mirrors render [--mode ordered|wmco] [--pull-secret FILE] --out DIR FILES...
  kube-windows mirrors diff --context C ...
  kube-windows mirrors apply --context C [--concurrency N] ...

render turns the ImageDigestMirrorSet / ImageTagMirrorSet objects in FILES (YAML, several
documents per file; directories are walked, "-" reads standard input) into one
DIR/<registry>/hosts.toml per source registry, as containerd on Windows reads them.
  --mode ordered   (default) mirror priority as written, host:port written as host_port_,
                   wildcard sources refused; for nodes kube-windows manages
  --mode wmco      exactly what the Windows Machine Config Operator writes (sorted mirrors,
                   host:port and wildcard directory names as is); to preview WMCO nodes
  --pull-secret F  docker config.json (or a kubernetes.io/dockerconfigjson Secret) whose
                   credentials become authorization headers for matching mirrors
Exit codes: 0 written, 1 some sources refused (nothing written for them), 2 usage or I/O error.
`;

class MirrorsUsageError extends Error {}

export async function runMirrors(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'diff' || sub === 'apply') return runMirrorsApply(sub, rest);
  try {
    if (sub === 'render') return runRender(rest);
    if (sub === undefined || sub === '-h' || sub === '--help' || sub === 'help') {
      process.stdout.write(MIRRORS_HELP);
      return sub === undefined ? EXIT_USAGE : EXIT_OK;
    }
    throw new MirrorsUsageError(`unknown subcommand "mirrors ${sub}"; try "kube-windows mirrors --help"`);
  } catch (err) {
    if (err instanceof MirrorsUsageError || err instanceof PullSecretError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`kube-windows: ${(err as Error).message}\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
}

function runRender(args: string[]): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      mode: { type: 'string', default: 'ordered' },
      out: { type: 'string' },
      'pull-secret': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(MIRRORS_HELP);
    return EXIT_OK;
  }
  const mode = values.mode as string;
  if (mode !== 'wmco' && mode !== 'ordered') throw new MirrorsUsageError(`--mode must be ordered or wmco, not "${mode}"`);
  if (!values.out) throw new MirrorsUsageError('--out DIR is required (where the <registry>/hosts.toml files go)');
  if (positionals.length === 0) throw new MirrorsUsageError('no input files; pass the YAML files holding the ImageDigestMirrorSet / ImageTagMirrorSet objects');

  const credentials = values['pull-secret'] ? readPullSecret(values['pull-secret']) : undefined;

  const { files: inputs, errors } = expandInputs(positionals);
  for (const e of errors) process.stderr.write(`kube-windows: ${e}\n`);
  if (errors.length > 0) return EXIT_USAGE;
  const objects: unknown[] = [];
  let ioError = false;
  for (const input of inputs) {
    const r = readText(input, 32 * 1048576);
    if (r.text === undefined) {
      process.stderr.write(`kube-windows: ${input.path}: ${r.error ?? 'file too large'}\n`);
      ioError = true;
      continue;
    }
    const manifest = loadManifest(r.text);
    if (manifest.skipped) {
      process.stderr.write(`kube-windows: ${input.path}: ${manifest.skipped}\n`);
      ioError = true;
      continue;
    }
    for (const doc of manifest.documents) {
      if (doc.status === 'ok') objects.push(doc.value);
      else if (doc.status !== 'empty') {
        process.stderr.write(`kube-windows: ${input.path}: document ${doc.index + 1} not read: ${doc.reason ?? doc.status}\n`);
        ioError = true;
      }
    }
  }
  // Half an input set would render a misleading tree: stop before writing anything.
  if (ioError) return EXIT_USAGE;

  const entries = mirrorEntriesOf(objects);
  if (mode === 'wmco' && entries.some((e) => e.kind === 'ICSP')) {
    process.stderr.write('kube-windows: note: ImageContentSourcePolicy entries are ignored in wmco mode, as WMCO reads only ImageDigestMirrorSet and ImageTagMirrorSet\n');
  }
  const result = renderHostsToml(entries, { mode: mode as MirrorMode, ...(credentials ? { credentials } : {}) });
  const outDir = resolve(values.out);
  const refused = [...result.refused];
  const written: RenderedFile[] = [];
  let writeFailed = false;
  for (const f of result.files) {
    // A source host comes from the input: never let it name a path outside --out.
    if (!isPlainDirName(f.dir)) {
      refused.push({ source: f.source, message: `source registry ${JSON.stringify(f.source)} cannot be a directory name` });
      continue;
    }
    const err = writeAtomic(join(outDir, f.dir), f.content);
    if (err) {
      process.stderr.write(`kube-windows: ${join(values.out, f.dir, 'hosts.toml')}: not written: ${err}\n`);
      writeFailed = true;
    } else written.push(f);
  }
  process.stdout.write(tree(displayPath(values.out), written, mode as MirrorMode));
  for (const r of refused) process.stderr.write(`kube-windows: refused ${r.source}: ${r.message}\n`);
  if (writeFailed) return EXIT_USAGE;
  return refused.length > 0 ? EXIT_REFUSED : EXIT_OK;
}

function displayPath(p: string): string {
  const rel = relative(process.cwd(), resolve(p));
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : resolve(p);
}

function isPlainDirName(dir: string): boolean {
  return dir !== '' && dir !== '.' && dir !== '..' && !/[/\\\x00]/.test(dir);
}

/** Reads a docker config.json, or a Secret holding one; errors never quote the file. */
function readPullSecret(path: string): Record<string, Credential> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new MirrorsUsageError(`--pull-secret ${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const inner = dockerConfigOfSecret(text);
  try {
    return credentialsFromPullSecret(inner ?? text);
  } catch (err) {
    if (err instanceof PullSecretError) throw new PullSecretError(`--pull-secret ${path}: ${err.message}`);
    throw err;
  }
}

/** `.dockerconfigjson` of a Secret (YAML or JSON, `data` base64 or `stringData`), if `text` is one. */
function dockerConfigOfSecret(text: string): string | undefined {
  let value: unknown;
  try {
    value = loadYaml(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || (value as { kind?: unknown }).kind !== 'Secret') return undefined;
  const secret = value as { data?: Record<string, unknown>; stringData?: Record<string, unknown> };
  const s = secret.stringData?.['.dockerconfigjson'];
  if (typeof s === 'string') return s;
  const d = secret.data?.['.dockerconfigjson'];
  if (typeof d === 'string') return Buffer.from(d, 'base64').toString('utf8');
  return undefined;
}

/** hosts.toml written next to itself and renamed into place: never a half-written file. */
function writeAtomic(dir: string, content: string): string | undefined {
  const path = join(dir, 'hosts.toml');
  const tmp = join(dir, `.hosts.toml.kube-windows-${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    // Credentials inside: readable by the owner only.
    writeFileSync(tmp, content, { encoding: 'utf8', flag: 'w', mode: content.includes('authorization =') ? 0o600 : 0o644 });
    renameSync(tmp, path);
    return undefined;
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to clean up
    }
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOSPC' ? 'disk full' : `write failed (${code ?? 'error'})`;
  }
}

function tree(root: string, files: RenderedFile[], mode: MirrorMode): string {
  const lines = [`${root}/`];
  files.forEach((f, i) => {
    const last = i === files.length - 1;
    const mirrors = (f.content.match(/^\[host\./gm) ?? []).length;
    const note = mirrors === 0 ? 'empty: no mirrors' : `${mirrors} mirror${mirrors === 1 ? '' : 's'}${/authorization =/.test(f.content) ? ', with credentials' : ''}`;
    const src = f.dir !== f.source ? `  (source ${f.source})` : '';
    lines.push(`${last ? '└── ' : '├── '}${f.dir}/${src}`);
    lines.push(`${last ? '    ' : '│   '}└── hosts.toml  (${note})`);
  });
  lines.push(`${files.length} file${files.length === 1 ? '' : 's'} written (${mode} mode)`);
  return `${lines.join('\n')}\n`;
}
