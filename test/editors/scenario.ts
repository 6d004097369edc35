// What every editor test shares: the package installed as users install it (npm pack, then npm install
// -g into an empty prefix, no dev dependencies), the manifest with known findings, what the installed
// CLI finds in it (the editors must show the same), the config snippet read from docs/editors/, and
// the checks of what an editor driver reports.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { installPackedPackage } from '../support/packed-install';

export const ROOT = resolve(__dirname, '..', '..', '..');

/** The manifest every editor opens: six findings (WIN001, WIN002), each with a safe fix. */
const FIXTURE = join(ROOT, 'examples', 'bad', 'forbidden-security-context.yaml');
/** The finding whose fix each editor applies, and where each asks for hover (`name` under `os:`). */
export const FIX_TITLE = 'Remove securityContext.privileged';

export interface Installed {
  dir: string;
  /** The environment to start an editor in: the prefix's bin first on PATH. */
  env: NodeJS.ProcessEnv;
  bin: (name: string) => string;
}

/** The package as users get it: packed from the built dist/ and installed globally into an empty prefix. */
export function installPackage(): Installed {
  const dir = mkdtempSync(join(tmpdir(), 'kw-editors-'));
  const binDir = installPackedPackage(dir);
  return {
    dir,
    env: { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' },
    bin: (name) => join(binDir, name),
  };
}

export interface Range {
  start: { line: number; character: number };
  end: { line: number; character: number };
}
export interface Shown {
  code: string;
  range: Range;
}

/** What a driver writes: what the editor showed at each step. */
export interface EditorResult {
  steps: string[];
  error?: string;
  diagnostics?: Shown[];
  actions?: string[];
  applied?: string;
  afterFix?: Shown[];
  hover?: string;
  cleared?: boolean;
}

export interface Workspace {
  dir: string;
  manifest: string;
  expected: Shown[];
  /** Where the fix is (0-based line) and where hover is asked. */
  fixLine: number;
  hover: { line: number; character: number };
  result: string;
}

/** A fresh folder with the manifest, and the findings the installed CLI reports for it. */
export function workspace(installed: Installed, name: string): Workspace {
  const dir = join(installed.dir, name);
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, 'deploy.yaml');
  copyFileSync(FIXTURE, manifest);
  const expected = checkFindings(installed, manifest);
  const lines = readFileSync(manifest, 'utf8').split('\n');
  const fixLine = lines.findIndex((l) => /^\s+privileged: false/.test(l));
  const osLine = lines.findIndex((l) => /^\s+os:$/.test(l)) + 1;
  assert.ok(fixLine > 0 && /name: windows/.test(lines[osLine]));
  return {
    dir,
    manifest,
    expected,
    fixLine,
    hover: { line: osLine, character: lines[osLine].indexOf('name') + 1 },
    result: join(dir, 'result.json'),
  };
}

/** `kube-windows check --format json FILE` of the installed package: rule id and range of each finding. */
export function checkFindings(installed: Installed, file: string): Shown[] {
  const r = spawnSync(installed.bin('kube-windows'), ['check', '--format', 'json', file], {
    encoding: 'utf8',
    env: installed.env,
  });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const findings = (JSON.parse(r.stdout) as { files: { findings: { ruleId: string; range: Range }[] }[] }).files[0]
    .findings;
  return findings.map((f) => ({ code: f.ruleId, range: f.range }));
}

/** The first fenced block of `language` in docs/editors/PAGE.md: the tested snippet, written to a file. */
export function snippetFile(page: string, language: string, to: string): string {
  const doc = readFileSync(join(ROOT, 'docs', 'editors', `${page}.md`), 'utf8');
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(doc)?.[1];
  assert.ok(block, `docs/editors/${page}.md has a ${language} block`);
  writeFileSync(to, block);
  return to;
}

/** The environment a driver reads (KW_*): where things are and what to do. */
export function driverEnv(installed: Installed, ws: Workspace, snippet: string): NodeJS.ProcessEnv {
  return {
    ...installed.env,
    HOME: ws.dir,
    KW_SNIPPET: snippet,
    KW_MANIFEST: ws.manifest,
    KW_RESULT: ws.result,
    KW_EXPECTED: String(ws.expected.length),
    KW_FIX_LINE: String(ws.fixLine),
    KW_FIX_TITLE: FIX_TITLE,
    KW_HOVER_LINE: String(ws.hover.line),
    KW_HOVER_CHAR: String(ws.hover.character),
  };
}

const byPlace = (a: Shown, b: Shown) =>
  a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;

/** The checks every editor must pass, on what its driver wrote after the editor exited. */
export function assertScenario(installed: Installed, ws: Workspace, editor: string, log: string): void {
  assert.ok(existsSync(ws.result), `${editor} wrote no result; its output:\n${log}`);
  const r = JSON.parse(readFileSync(ws.result, 'utf8')) as EditorResult;
  assert.equal(r.error, undefined, `${editor} stopped after ${r.steps.join(', ')}: ${r.error}\n${log}`);
  // The same findings as `check` (rule and range).
  assert.deepEqual([...(r.diagnostics ?? [])].sort(byPlace), ws.expected);
  // The fix is offered as a code action (beside "Disable … for this line") and applied: the file,
  // as the editor saved it, no longer has that finding; the others are still there.
  assert.ok(r.actions?.includes(FIX_TITLE), `actions offered: ${r.actions?.join(' | ')}`);
  assert.ok(r.actions?.some((t) => /^Disable WIN002 for this line$/.test(t)));
  assert.equal(r.applied, FIX_TITLE);
  const fixed = ws.expected.filter((f) => f.range.start.line !== ws.fixLine);
  const shift = (f: Shown): Shown =>
    f.range.start.line > ws.fixLine
      ? {
          code: f.code,
          range: {
            start: { line: f.range.start.line - 1, character: f.range.start.character },
            end: { line: f.range.end.line - 1, character: f.range.end.character },
          },
        }
      : f;
  assert.deepEqual(checkFindings(installed, ws.manifest), fixed.map(shift));
  assert.doesNotMatch(readFileSync(ws.manifest, 'utf8'), /^\s+privileged:/m);
  assert.deepEqual([...(r.afterFix ?? [])].sort(byPlace), fixed.map(shift));
  // Hover on a Windows field.
  assert.match(r.hover ?? '', /windows/i, `hover: ${r.hover}`);
  // Closing the document clears its diagnostics.
  assert.equal(r.cleared, true);
}
