// The README and docs/ as a reader meets them: every relative link and #anchor resolves (GitHub's
// heading slugs), no link leaves the repository (upstream sources are named as text), the README
// stays short and says how to install first, docs/README.md indexes every page, and every shell
// block is either marked illustrative or names what runs it; the `kube-windows` commands of blocks
// this test claims are run here, on copies of examples/, and must not be usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const THIS_TEST = 'test/unit/docs-pages.test.ts';
const ILLUSTRATIVE = '<!-- illustrative -->';
const RUN_BY = /^<!-- run-by: (.+) -->$/;

/** README.md and every page under docs/, as paths relative to the repository. */
function pages(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const path = `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) out.push(path);
    }
  };
  walk('docs');
  return out;
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Block {
  page: string;
  line: number;
  info: string;
  body: string;
  /** The non-blank line before the opening fence. */
  before: string;
}

/** The page's fenced code blocks, and its text with them (and inline code) blanked out. */
function split(page: string): { prose: string; blocks: Block[] } {
  const lines = read(page).split('\n');
  const blocks: Block[] = [];
  const prose: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(lines[i]);
    if (!open) {
      prose.push(lines[i].replace(/`[^`]*`/g, ''));
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].trim().startsWith(open[1]); i++) body.push(lines[i]);
    const before = lines
      .slice(0, start)
      .reverse()
      .find((l) => l.trim() !== '');
    blocks.push({ page, line: start + 1, info: open[2], body: body.join('\n'), before: (before ?? '').trim() });
    prose.push(...Array<string>(i - start + 1).fill(''));
  }
  return { prose: prose.join('\n'), blocks };
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const lines = read(page).split('\n');
  let fence: string | undefined;
  for (const line of lines) {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f) {
      if (!fence) fence = f[1];
      else if (line.trim().startsWith(fence)) fence = undefined;
      continue;
    }
    const h = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase();
    const base = text
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .trim()
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

test('GitHub slugs: the anchors this reader makes are the ones GitHub makes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-slug-'));
  try {
    const page = relative(ROOT, join(dir, 'p.md'));
    writeFileSync(
      join(dir, 'p.md'),
      '# `kube-windows check` in depth\n## What is deployed (`check --context`)\n## Notes\n## Notes\n```sh\n# not a heading\n```\n## [Link](x.md) & more: 4.16+\n',
    );
    assert.deepEqual(
      [...anchors(page)],
      ['kube-windows-check-in-depth', 'what-is-deployed-check---context', 'notes', 'notes-1', 'link--more-416'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every relative link and #anchor of the README and docs/ resolves, and none leaves the repository', () => {
  const broken: string[] = [];
  const outside: string[] = [];
  for (const page of pages()) {
    const { prose } = split(page);
    for (const m of prose.matchAll(/<(https?:\/\/[^>]+)>|\bhref="(https?:[^"]+)"/g))
      outside.push(`${page}: ${m[1] ?? m[2]}`);
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        outside.push(`${page}: ${target}`);
        continue;
      }
      const [path, anchor] = target.split('#', 2);
      const file = path ? relative(ROOT, resolve(ROOT, dirname(page), decodeURIComponent(path))) : page;
      if (file.startsWith('..') || !existsSync(join(ROOT, file))) {
        broken.push(`${page}: ${target} (no ${file})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor))
        broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
    }
  }
  assert.deepEqual(broken, [], 'links that do not resolve');
  assert.deepEqual(outside, [], 'links outside the repository (name upstream sources as text)');
});

test('the README is at most 250 lines and says how to install before anything else', () => {
  const readme = read('README.md');
  assert.ok(readme.split('\n').length <= 250, `README.md has ${readme.split('\n').length} lines`);
  const sections = [...readme.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
  assert.equal(sections[0], 'Install', `the first section is ${sections[0]}`);
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf(`## ${sections[1]}`));
  assert.match(install, /code --install-extension kube-windows-[\w.<>-]+\.vsix/);
  assert.match(install, /npm run package/);
  assert.match(install, /Node\.js \d+\.\d+ or newer/);
  assert.ok(install.indexOf('### The extension') < install.indexOf('### The CLI'), 'the extension first, then the CLI');
  assert.match(
    read('scripts/package.mjs'),
    /`\$\{pkg\.name\}-\$\{pkg\.version\}\.vsix`/,
    'npm run package writes the named .vsix',
  );
});

test('docs/README.md indexes every page of docs/ and the tasks a reader comes with', () => {
  const index = read('docs/README.md');
  for (const page of pages().filter((p) => p.startsWith('docs/') && p !== 'docs/README.md'))
    assert.ok(index.includes(`](${page.slice('docs/'.length)}`), `docs/README.md does not link ${page}`);
  const tasks = [...index.matchAll(/^\| \[([^\]]+)\]/gm)].map((m) => m[1].toLowerCase());
  for (const task of [
    'editor',
    'cli and ci',
    'cluster explorer',
    'live workloads',
    'joining',
    'node operations',
    'mirrors',
    'machinesets',
    'helm',
    'rules',
    'failure signatures',
    'performance',
    'reliability',
    'development',
  ])
    assert.ok(
      tasks.some((t) => t.includes(task)),
      `no task "${task}" in docs/README.md`,
    );
});

const SHELL = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
const shellBlocks = () => pages().flatMap((p) => split(p).blocks.filter((b) => SHELL.has(b.info)));

/** Each command of a block: continuation lines joined, comments dropped, split at `&&`. */
function commands(block: Block): string[] {
  return block.body
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean)
    .flatMap((l) => l.split('&&').map((c) => c.trim()));
}

/** Whether `file` runs `command`: it says it verbatim, or it runs the script `npm run X` stands for. */
function runs(file: string, command: string, scripts: Record<string, string>): boolean {
  if (file === THIS_TEST) return /^kube-windows /.test(command);
  const text = read(file);
  if (text.includes(command)) return true;
  const npmRun = /^npm run ([\w:-]+)$/.exec(command);
  const script = npmRun ? scripts[npmRun[1]] : undefined;
  const entry = script ? /(?:^|\s)node (?:\S*\/)?([\w-]+)\.mjs(?:\s|$)(?!.*\bnode\s)/.exec(script) : null;
  return entry !== null && new RegExp(`\\b${entry[1]}\\.m?js\\b`).test(text);
}

test('every shell block is marked illustrative or names the tests that run each of its commands', () => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const unmarked: string[] = [];
  const unproven: string[] = [];
  for (const block of shellBlocks()) {
    const where = `${block.page}:${block.line}`;
    if (block.before === ILLUSTRATIVE) continue;
    const by = RUN_BY.exec(block.before);
    if (!by) {
      unmarked.push(`${where}: ${commands(block)[0] ?? ''}`);
      continue;
    }
    const files = by[1].split(',').map((f) => f.trim());
    for (const f of files) assert.ok(existsSync(join(ROOT, f)), `${where}: run-by names ${f}, which does not exist`);
    for (const command of commands(block))
      if (!files.some((f) => runs(f, command, scripts)))
        unproven.push(`${where}: ${command} (run-by: ${files.join(', ')})`);
  }
  assert.deepEqual(unmarked, [], `mark these blocks ${ILLUSTRATIVE} or <!-- run-by: test files -->`);
  assert.deepEqual(unproven, [], 'no named file runs these commands');
});

/** A command line as argv: quotes respected, `> file` taken as a redirection. */
function argv(command: string): { args: string[]; out?: string } {
  const tokens = [...command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
  const at = tokens.indexOf('>');
  return at >= 0 ? { args: tokens.slice(0, at), out: tokens[at + 1] } : { args: tokens };
}

test('the kube-windows commands of the blocks this test runs work as shown (on copies of examples/)', () => {
  const cli = join(ROOT, 'dist', 'cli.js');
  assert.ok(existsSync(cli), 'build first: node scripts/build.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'kw-docs-'));
  try {
    for (const name of ['manifests', 'deploy']) cpSync(join(ROOT, 'examples'), join(dir, name), { recursive: true });
    const ran: string[] = [];
    for (const block of shellBlocks()) {
      const by = RUN_BY.exec(block.before);
      if (!by || !by[1].split(',').some((f) => f.trim() === THIS_TEST)) continue;
      for (const command of commands(block).filter((c) => c.startsWith('kube-windows '))) {
        const { args, out } = argv(command);
        const r = spawnSync(process.execPath, [cli, ...args.slice(1)], {
          cwd: dir,
          encoding: 'utf8',
          input: read('examples/good/' + readdirSync(join(ROOT, 'examples', 'good'))[0]),
          timeout: 60_000,
          env: { ...process.env, NO_COLOR: '1' },
        });
        if (out) writeFileSync(join(dir, out), r.stdout);
        assert.ok(
          r.status === 0 || r.status === 1,
          `${block.page}:${block.line}: \`${command}\` exited ${r.status}:\n${r.stderr}${r.stdout.slice(0, 2000)}`,
        );
        ran.push(command);
      }
    }
    assert.ok(ran.length >= 4, `ran ${ran.length} commands: ${ran.join('; ')}`);
    const sarif = JSON.parse(readFileSync(join(dir, 'kube-windows.sarif'), 'utf8')) as { version: string };
    assert.equal(sarif.version, '2.1.0');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
