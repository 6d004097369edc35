// `npm run test:vscode` (scripts/e2e.mjs --vscode bundles this to out/e2e/run-vscode-suite.js and
// runs it with node): the extension-host suite (test/vscode, compiled to out/vscode-test) in a real
// VS Code. VS Code cannot be downloaded here, so instead of @vscode/test-electron this starts the
// VS Code server bundled in code-server (server-main.js) and opens its web workbench in Chromium
// with the development payload the workbench reads from its URL, as VS Code's own web integration
// tests do. The server itself ignores --extensionDevelopmentPath/--extensionTestsPath ("not
// supported for server"); from the payload, the workbench asks the server's (Node) extension host
// to load this repository as the extension under development and to run the suite there. The suite
// writes its results to KW_VSCODE_RESULTS; the workbench reports the extension host's exit code
// through window.codeAutomationExit. Hard timeout: KW_VSCODE_TIMEOUT_MS (default 120 s).
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, ROOT, startCodeServer, screenshot, type CodeServer } from './harness';

const TIMEOUT_MS = Number(process.env.KW_VSCODE_TIMEOUT_MS ?? 120_000);
const RESULTS = join(ROOT, 'test-results', 'vscode-suite.json');

interface SuiteResults {
  failures: number;
  results: { title: string; state: string; error?: string }[];
}

async function main(): Promise<number> {
  const t0 = Date.now();
  rmSync(RESULTS, { force: true });
  // On a clean clone test-results/ does not exist yet; the suite writes its results there.
  mkdirSync(dirname(RESULTS), { recursive: true });
  let cs: CodeServer | undefined;
  let browser: Browser | undefined;
  const log: string[] = [];
  try {
    cs = await startCodeServer({
      server: 'vscode',
      folder: join(ROOT, 'examples'),
      label: 'kw-vscode-suite-',
      env: { KW_VSCODE_RESULTS: RESULTS },
    });
    browser = await launchBrowser();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    let exitCode: (code: number) => void = () => undefined;
    const exited = new Promise<number>((res) => (exitCode = res));
    // What the extension host prints (mocha's reporter) reaches the page as codeAutomationLog.
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) =>
      log.push(`${type}: ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}`),
    );
    await page.exposeFunction('codeAutomationExit', (code: number) => exitCode(code));
    page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
    const remote = (p: string) => `vscode-remote://127.0.0.1:${cs!.port}${p}`;
    // Each value a plain string (a URI), as the workbench parses it; not a JSON-encoded array.
    const payload = [
      ['extensionDevelopmentPath', remote(ROOT)],
      ['extensionTestsPath', remote(join(ROOT, 'out', 'vscode-test', 'index.js'))],
      ['skipWelcome', 'true'],
    ];
    await page.goto(`${cs.url}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      exited,
      new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    if (code === 'timeout' || !existsSync(RESULTS)) {
      await screenshot(page, 'failed-vscode-suite').catch(() => undefined);
      console.error(
        code === 'timeout'
          ? `test:vscode: no result after ${TIMEOUT_MS / 1000} s (KW_VSCODE_TIMEOUT_MS)`
          : `test:vscode: the extension host exited with ${code} without writing ${RESULTS}`,
      );
      console.error(
        `extension host / workbench log:\n${log.slice(-60).join('\n')}\nserver output:\n${cs.output().slice(-3000)}`,
      );
      return 1;
    }
    const r = JSON.parse(readFileSync(RESULTS, 'utf8')) as SuiteResults;
    for (const t of r.results)
      console.log(`${t.state === 'passed' ? 'ok    ' : 'FAILED'} ${t.title}${t.error ? `: ${t.error}` : ''}`);
    const passed = r.results.filter((t) => t.state === 'passed').length;
    console.log(`test:vscode: ${passed} passed, ${r.failures} failed (extension host exit code ${code}) in ${secs} s`);
    return r.failures === 0 && code === 0 && passed > 0 ? 0 : 1;
  } finally {
    await browser?.close().catch(() => undefined);
    await cs?.stop();
  }
}

// Past the suite's own timeout (and the teardown), leave anyway; the harness kills the server's
// process group on exit, and playwright its Chromium.
const hard = setTimeout(() => {
  console.error('test:vscode: hard timeout, teardown did not finish');
  process.exit(1);
}, TIMEOUT_MS + 90_000);
hard.unref();
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
