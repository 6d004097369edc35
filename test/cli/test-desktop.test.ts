// `npm run test:desktop` where desktop VS Code cannot be downloaded (as on this project's CI
// machines): it must stop at once with the reason and the code-server alternative, build nothing
// and run nothing. The download is pointed at a closed local port through npm's proxy setting, so
// the test means the same on a machine that could reach update.code.visualstudio.com.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as { port: number };
  await new Promise<void>((res) => server.close(() => res()));
  return port;
}

test('test:desktop fails fast with the reason and names test:vscode when VS Code cannot be downloaded', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'kw-desktop-cache-'));
  try {
    const started = Date.now();
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-desktop.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        npm_config_https_proxy: `http://127.0.0.1:${await closedPort()}`,
        KW_DESKTOP_CACHE: cache,
      },
    });
    assert.equal(r.status, 1, `exit status ${r.status}\n${r.stderr}`);
    assert.match(r.stderr, /test:desktop: VS Code \d+\.\d+\.\d+ could not be downloaded \(.*ECONNREFUSED/);
    assert.match(r.stderr, /npm run test:vscode/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'a stack trace reached the user');
    assert.ok(Date.now() - started < 30_000, 'it did not fail fast');
    assert.deepEqual(readdirSync(cache), [], 'nothing was downloaded or unpacked');
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});
