// Prepares what the test suite needs from the machine, with apt: a real OpenSSH sshd for the SSH
// transport tests, and the editors whose LSP clients test the installed language server
// (test/editors/: Neovim, Emacs with eglot and yaml-mode, Vim with ALE), and tinyproxy, the real HTTP
// proxy the kubeadm --proxy tests reach registries through. Idempotent and quick when
// everything is already there (no apt-get update then); prints one line saying what it did.
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** What the tests need: files that show it is installed, and the Debian packages that install it. */
const NEEDS = [
  { what: 'sshd', files: ['/usr/sbin/sshd'], packages: ['openssh-server', 'openssh-client'], tests: 'SSH transport' },
  { what: 'Neovim', files: ['/usr/bin/nvim'], packages: ['neovim'], tests: 'Neovim' },
  {
    what: 'Emacs with eglot',
    files: [
      '/usr/bin/emacs',
      '/usr/share/emacs/site-lisp/elpa-src/eglot-1.9',
      '/usr/share/emacs/site-lisp/elpa-src/yaml-mode-0.0.15',
    ],
    packages: ['emacs-nox', 'elpa-eglot', 'elpa-yaml-mode'],
    tests: 'Emacs',
  },
  { what: 'tinyproxy', files: ['/usr/bin/tinyproxy'], packages: ['tinyproxy'], tests: 'proxy (kubeadm --proxy)' },
  {
    what: 'Vim with ALE',
    files: ['/usr/bin/vim', '/usr/share/vim-ale/plugin/ale.vim'],
    packages: ['vim', 'vim-ale'],
    tests: 'Vim',
  },
];

function run(cmd, args) {
  const r = spawnSync(cmd, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (r.status !== 0) {
    const tail = `${r.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal}):\n${tail}`);
  }
}

function aptListsPresent() {
  // An empty /var/lib/apt/lists (as in slim images) means `apt-get install` cannot find anything yet.
  try {
    return readdirSync('/var/lib/apt/lists').some((n) => n.endsWith('_Packages') || n.endsWith('_Packages.lz4'));
  } catch {
    return false;
  }
}

const missing = NEEDS.filter((n) => !n.files.every(existsSync));
const packages = [...new Set(missing.flatMap((n) => n.packages))];
const skipped = missing.map((n) => n.tests).join(', ');
if (missing.length === 0) {
  console.log(`test-env: ${NEEDS.map((n) => n.what).join(', ')} present, nothing to do`);
} else if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
  console.log(`test-env: ${packages.join(' ')} missing and not root: the ${skipped} tests will be skipped`);
} else if (!existsSync('/usr/bin/apt-get')) {
  console.log(`test-env: ${packages.join(' ')} missing and no apt-get: the ${skipped} tests will fail or be skipped`);
} else {
  let updated = false;
  const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', ...packages]);
  try {
    if (!aptListsPresent()) {
      run('apt-get', ['update']);
      updated = true;
    }
    try {
      install();
    } catch (e) {
      if (updated) throw e;
      // Stale package lists: refresh once and try again.
      run('apt-get', ['update']);
      updated = true;
      install();
    }
    console.log(`test-env: installed ${packages.join(' ')}${updated ? ' (after apt-get update)' : ''}`);
  } catch (e) {
    console.log(
      `test-env: could not install ${packages.join(' ')} (the ${skipped} tests will fail or be skipped): ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
