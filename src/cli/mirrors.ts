// `kube-windows mirrors …`: `render` lives here; `diff` and `apply` are in ./mirrors-apply.
import { readFileSync } from 'node:fs';
import { join, resolve, relative, isAbsolute } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import {
  credentialsFromPullSecret,
  mirrorEntriesOf,
  PullSecretError,
  renderHostsToml,
  type Credential,
  type MirrorMode,
  type RenderedFile,
} from '../core/mirrors/render';
import { readObjects, writeFileAtomic } from './files';
import { EXIT, oneOf, UsageError, warn } from './kit';
import { commandHelp, parseCommand } from './declare';
import { MIRRORS_RENDER_COMMAND } from './commands';
import { runMirrorsApply } from './mirrors-apply';
import { counted } from '../core/plural';

const MODES = ['ordered', 'wmco'] as const;

export async function runMirrors(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'diff' || sub === 'apply') return runMirrorsApply(sub, rest);
  if (sub === 'render') return runRender(rest);
  if (sub === undefined || sub === '-h' || sub === '--help' || sub === 'help') {
    process.stdout.write(commandHelp(MIRRORS_RENDER_COMMAND));
    return sub === undefined ? EXIT.USAGE : EXIT.OK;
  }
  throw new UsageError(`unknown subcommand "mirrors ${sub}"; try "kube-windows mirrors --help"`);
}

function runRender(args: string[]): number {
  const { values, positionals } = parseCommand(MIRRORS_RENDER_COMMAND, args);
  if (values.help) {
    process.stdout.write(commandHelp(MIRRORS_RENDER_COMMAND));
    return EXIT.OK;
  }
  const mode: MirrorMode = oneOf('mode', values.mode, MODES) ?? 'ordered';
  if (!values.out) throw new UsageError('--out DIR is required (where the <registry>/hosts.toml files go)');
  if (positionals.length === 0)
    throw new UsageError(
      'no input files; pass the YAML files holding the ImageDigestMirrorSet / ImageTagMirrorSet objects',
    );

  const credentials = values['pull-secret'] ? readPullSecret(values['pull-secret']) : undefined;

  const { objects, errors } = readObjects(positionals);
  for (const e of errors) warn(e);
  // Half an input set would render a misleading tree: stop before writing anything.
  if (errors.length > 0) return EXIT.USAGE;

  const entries = mirrorEntriesOf(objects);
  if (mode === 'wmco' && entries.some((e) => e.kind === 'ICSP')) {
    warn(
      'note: ImageContentSourcePolicy entries are ignored in wmco mode, as WMCO reads only ImageDigestMirrorSet and ImageTagMirrorSet',
    );
  }
  const result = renderHostsToml(entries, { mode, ...(credentials ? { credentials } : {}) });
  const outDir = resolve(values.out);
  const refused = [...result.refused];
  const written: RenderedFile[] = [];
  let writeFailed = false;
  for (const f of result.files) {
    // A source host comes from the input: never let it name a path outside --out.
    if (!isPlainDirName(f.dir)) {
      refused.push({
        source: f.source,
        message: `source registry ${JSON.stringify(f.source)} cannot be a directory name`,
      });
      continue;
    }
    // Credentials inside: readable by the owner only.
    const err = writeFileAtomic(
      join(outDir, f.dir, 'hosts.toml'),
      f.content,
      f.content.includes('authorization =') ? 0o600 : 0o644,
    );
    if (err) {
      warn(`${join(values.out, f.dir, 'hosts.toml')}: not written: ${err}`);
      writeFailed = true;
    } else written.push(f);
  }
  process.stdout.write(tree(displayPath(values.out), written, mode));
  for (const r of refused) warn(`refused ${r.source}: ${r.message}`);
  if (writeFailed) return EXIT.USAGE;
  return refused.length > 0 ? EXIT.FAILED : EXIT.OK;
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
    throw new UsageError(`--pull-secret ${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const inner = dockerConfigOfSecret(text);
  try {
    return credentialsFromPullSecret(inner ?? text);
  } catch (err) {
    if (err instanceof PullSecretError) throw new UsageError(`--pull-secret ${path}: ${err.message}`);
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

function tree(root: string, files: RenderedFile[], mode: MirrorMode): string {
  const lines = [`${root}/`];
  files.forEach((f, i) => {
    const last = i === files.length - 1;
    const mirrors = (f.content.match(/^\[host\./gm) ?? []).length;
    const note =
      mirrors === 0
        ? 'empty: no mirrors'
        : `${counted(mirrors, 'mirror')}${/authorization =/.test(f.content) ? ', with credentials' : ''}`;
    const src = f.dir !== f.source ? `  (source ${f.source})` : '';
    lines.push(`${last ? '└── ' : '├── '}${f.dir}/${src}`);
    lines.push(`${last ? '    ' : '│   '}└── hosts.toml  (${note})`);
  });
  lines.push(`${counted(files.length, 'file')} written (${mode} mode)`);
  return `${lines.join('\n')}\n`;
}
