// `npm run sandbox`: installs code-server and Chromium if needed (cached), packages the extension,
// bundles the sandbox (test doubles: API emulator, simulated Windows hosts, WMCO stand-in) into the
// git-ignored out/sandbox, and runs it, as any user (no root needed). In a checkout the user may not
// write (a shared or read-only copy), the sandbox built there earlier runs as it is; its state goes to
// SANDBOX_DIR. See test/sandbox/main.ts.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup } from './e2e-setup.mjs';
import { bundleSandbox } from './sandbox-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'out', 'sandbox');
const vsix = join(outDir, 'kube-windows.vsix');
const bundle = join(outDir, 'sandbox.js');

function writable(dir) {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

if (writable(outDir)) {
  setup();
  const packed = spawnSync(process.execPath, [join(root, 'scripts', 'package.mjs'), '--out', vsix], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (packed.status !== 0) process.exit(packed.status ?? 1);
  await bundleSandbox(root, outDir);
} else if (!existsSync(bundle) || !existsSync(vsix)) {
  console.error(
    `sandbox: ${outDir} cannot be written and holds no built sandbox: run "npm run sandbox" once as the checkout's owner.`,
  );
  process.exit(1);
} else {
  console.log(
    `sandbox: this checkout cannot be written: running the sandbox built in ${outDir}${process.env.SANDBOX_DIR ? '' : ' (set SANDBOX_DIR to a folder you can write for its state)'}.`,
  );
}
// The sandbox handles Ctrl-C itself (it stops its children first); this wrapper only waits.
const child = spawn(process.execPath, [bundle], {
  cwd: root,
  env: { ...process.env, KW_VSIX: vsix },
  stdio: 'inherit',
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 0));
