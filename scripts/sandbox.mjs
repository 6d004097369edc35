// `npm run sandbox`: installs code-server and Chromium if needed (cached), packages the extension,
// bundles the sandbox (test doubles: API emulator, simulated Windows hosts, WMCO stand-in) into the
// git-ignored out/sandbox, and runs it, as any user (no root needed). See test/sandbox/main.ts.
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup } from './e2e-setup.mjs';
import { bundleSandbox } from './sandbox-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
setup();
const outDir = join(root, 'out', 'sandbox');
const vsix = join(outDir, 'kube-windows.vsix');
const packed = spawnSync(process.execPath, [join(root, 'scripts', 'package.mjs'), '--out', vsix], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
if (packed.status !== 0) process.exit(packed.status ?? 1);
await bundleSandbox(root, outDir);
// The sandbox handles Ctrl-C itself (it stops its children first); this wrapper only waits.
const child = spawn(process.execPath, [join(outDir, 'sandbox.js')], { cwd: root, env: { ...process.env, KW_VSIX: vsix }, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 0));
