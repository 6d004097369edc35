// Installs what the real-VS-Code tests need:
// Debian's Chromium (apt) and code-server 4.100.x (npm) into .cache/code-server (git-ignored),
// with its native modules built here because its postinstall downloads from GitHub.
// Idempotent: a second run checks two marker files and returns in well under a second.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  writeFileSync,
  readFileSync,
  copyFileSync,
  symlinkSync,
  lstatSync,
  chmodSync,
} from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const cacheDir = join(root, '.cache', 'code-server');
export const codeServerEntry = join(cacheDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const chromiumPath = '/usr/bin/chromium';
const marker = join(cacheDir, `.ready-${CODE_SERVER_VERSION}`);

const APT_PACKAGES = [
  'chromium',
  'ripgrep',
  'libkrb5-dev',
  'libx11-dev',
  'libxkbfile-dev',
  'libsecret-1-dev',
  'pkg-config',
];

function run(cmd, args, cwd, extraEnv = {}) {
  const t = Date.now();
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...extraEnv } });
  return Date.now() - t;
}

function dpkgInstalled(pkg) {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Status}', pkg], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).includes('install ok installed');
  } catch {
    return false;
  }
}

function ensureApt() {
  const missing = APT_PACKAGES.filter((p) => !dpkgInstalled(p));
  if (missing.length === 0) return;
  console.log(`e2e-setup: apt-get install ${missing.join(' ')}`);
  const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
  const apt = (args) => (sudo.length ? run('sudo', ['apt-get', ...args], root) : run('apt-get', args, root));
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

function ensureCodeServer() {
  if (existsSync(marker) && existsSync(codeServerEntry)) return;
  const t0 = Date.now();
  mkdirSync(cacheDir, { recursive: true });
  if (!existsSync(join(cacheDir, 'package.json')))
    writeFileSync(join(cacheDir, 'package.json'), '{ "name": "kw-code-server-cache", "private": true }\n');
  const env = {
    npm_config_unsafe_perm: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  if (!existsSync(codeServerEntry)) {
    console.log(`e2e-setup: npm install code-server@${CODE_SERVER_VERSION} (no scripts)`);
    run('npm', ['install', '--ignore-scripts', '--no-save', `code-server@${CODE_SERVER_VERSION}`], cacheDir, env);
  }
  const vs = join(cacheDir, 'node_modules', 'code-server', 'lib', 'vscode');
  console.log('e2e-setup: npm install in code-server/lib/vscode (production, no scripts)');
  run('npm', ['install', '--omit=dev', '--ignore-scripts'], vs, env);
  for (const mod of ['kerberos', 'node-pty', '@vscode/spdlog', 'native-watchdog', '@vscode/deviceid']) {
    const dir = join(vs, 'node_modules', mod);
    if (!existsSync(dir)) continue;
    console.log(`e2e-setup: node-gyp rebuild ${mod}`);
    run('npx', ['--yes', 'node-gyp', 'rebuild'], dir, env);
  }
  const watcher = join(vs, 'node_modules', '@parcel', 'watcher');
  if (existsSync(watcher)) run('npm', ['run', 'install', '--if-present'], watcher, env);
  const rgBin = join(vs, 'node_modules', '@vscode', 'ripgrep', 'bin');
  mkdirSync(rgBin, { recursive: true });
  const rg = execFileSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).trim();
  copyFileSync(rg, join(rgBin, 'rg'));
  chmodSync(join(rgBin, 'rg'), 0o755);
  const asar = join(vs, 'node_modules.asar');
  let hasAsar = false;
  try {
    lstatSync(asar);
    hasAsar = true;
  } catch {
    /* absent */
  }
  if (!hasAsar) symlinkSync('node_modules', asar);
  const argon2 = join(cacheDir, 'node_modules', 'argon2');
  if (existsSync(argon2)) {
    console.log('e2e-setup: argon2 native module');
    run('npx', ['--yes', '@mapbox/node-pre-gyp', 'install', '--fallback-to-build'], argon2, env);
  }
  writeFileSync(marker, `${new Date().toISOString()} built in ${Math.round((Date.now() - t0) / 1000)} s\n`);
}

export function setup() {
  const t0 = Date.now();
  ensureApt();
  ensureCodeServer();
  if (!existsSync(chromiumPath))
    throw new Error(`Chromium is not at ${chromiumPath} after installing the chromium package.`);
  const ms = Date.now() - t0;
  const built = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : '';
  console.log(
    `e2e-setup: ready in ${(ms / 1000).toFixed(1)} s (code-server ${CODE_SERVER_VERSION}: ${built}; chromium ${chromiumPath})`,
  );
  return ms;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) setup();
