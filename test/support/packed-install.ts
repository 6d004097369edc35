// The package as users install it: `npm pack` of the built dist/, then `npm install -g` of the tarball
// into an empty prefix with no dev dependencies. Shared by every suite that runs the installed package.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Packs the work tree into `dir` and installs it under `dir/prefix`; returns the prefix's bin folder. */
export function installPackedPackage(dir: string): string {
  // --ignore-scripts: the bundle the test build made (prepack, which makes the production one, would
  // rewrite dist/ under the other suites' feet); --prefer-offline takes the runtime dependencies from
  // npm's cache.
  execFileSync(npm, ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, stdio: 'ignore' });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote a tarball');
  const prefix = join(dir, 'prefix');
  execFileSync(
    npm,
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      join(dir, tarball),
      '--omit=dev',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
    ],
    { stdio: 'ignore' },
  );
  return join(prefix, 'bin');
}
