// Real editors' LSP clients, nobody here wrote them, against the package as users install it: Debian's
// Neovim (built-in client, headless), Emacs with eglot (batch) and Vim with ALE. Each is set up with
// the snippet its page in docs/editors/ documents (read from the page, so the page cannot drift), opens
// a manifest with known findings and must show what `kube-windows check` finds (rule and range), offer
// a fix as a code action and apply it, answer hover on a Windows field, and clear the diagnostics when
// the document is closed. `node scripts/test-env.mjs` installs the editors (root with apt); without
// them the tests are skipped, saying so.
import { after, before, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { assertScenario, driverEnv, installPackage, ROOT, snippetFile, workspace, type Installed } from './scenario';

let installed: Installed;
before(() => {
  installed = installPackage();
});
after(() => rmSync(installed.dir, { recursive: true, force: true }));

/** Why an editor cannot run here, or undefined when it can. */
function missing(paths: string[], what: string): string | undefined {
  return paths.every(existsSync)
    ? undefined
    : `${what} is not installed (node scripts/test-env.mjs installs it with apt when run as root)`;
}

/** Runs an editor to the end of its driver; its output, for the failure message. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): string {
  const r = spawnSync(command, args, { env, cwd, encoding: 'utf8', timeout: 180_000, input: '' });
  return `exit ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}\n${r.stdout}\n${r.stderr}`.slice(-4000);
}

test(
  "Neovim's built-in client (docs/editors/neovim.md)",
  { skip: missing(['/usr/bin/nvim'], "Debian's neovim") },
  () => {
    const ws = workspace(installed, 'neovim');
    const snippet = snippetFile('neovim', 'lua', join(ws.dir, 'init.lua'));
    const driver = join(ROOT, 'test', 'editors', 'neovim-driver.lua');
    const log = run(
      '/usr/bin/nvim',
      ['--headless', '-u', 'NONE', '-i', 'NONE', '-n', '-c', `luafile ${driver}`],
      driverEnv(installed, ws, snippet),
      ws.dir,
    );
    assertScenario(installed, ws, 'Neovim', log);
  },
);

test(
  'Emacs with eglot (docs/editors/emacs.md)',
  {
    skip: missing(
      [
        '/usr/bin/emacs',
        '/usr/share/emacs/site-lisp/elpa-src/eglot-1.9',
        '/usr/share/emacs/site-lisp/elpa-src/yaml-mode-0.0.15',
      ],
      "Debian's emacs-nox, elpa-eglot and elpa-yaml-mode",
    ),
  },
  () => {
    const ws = workspace(installed, 'emacs');
    const snippet = snippetFile('emacs', 'elisp', join(ws.dir, 'init.el'));
    const driver = join(ROOT, 'test', 'editors', 'emacs-driver.el');
    const log = run('/usr/bin/emacs', ['--batch', '-l', driver], driverEnv(installed, ws, snippet), ws.dir);
    assertScenario(installed, ws, 'Emacs', log);
  },
);

test(
  'Vim with ALE (docs/editors/vim.md)',
  { skip: missing(['/usr/bin/vim', '/usr/share/vim-ale/plugin/ale.vim'], "Debian's vim and vim-ale") },
  () => {
    const ws = workspace(installed, 'vim');
    const snippet = snippetFile('vim', 'vim', join(ws.dir, 'vimrc'));
    const driver = join(ROOT, 'test', 'editors', 'vim-driver.vim');
    const log = run(
      '/usr/bin/vim',
      ['-N', '-u', 'NONE', '-i', 'NONE', '-n', '-E', '-s', '-S', driver],
      driverEnv(installed, ws, snippet),
      ws.dir,
    );
    assertScenario(installed, ws, 'Vim', log);
  },
);
