// `go install PACKAGE@VERSION` of a tool the tests or the bench need (KWOK, Helm, kube-score,
// kubeconform) into a private GOBIN, then moved to `binary` in the cache: the one way this project
// builds other projects' Go tools from the module proxy. Callers wrap it in apiserver.mjs's
// buildOnce, which decides whether to build at all. Test- and bench-only: nothing here ships.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Builds `pkg@version` (a main package) into `binary`; resolves to the seconds it took. */
export async function goInstall({ name, pkg, version, binary, log = (line) => console.error(line) }) {
  const go = process.env.GO || 'go';
  if (spawnSync(go, ['version'], { stdio: 'ignore' }).error)
    throw new Error(`no Go toolchain ("${go}" not found); install Go to build ${name} from ${pkg}@${version}`);
  const gobin = `${dirname(binary)}/.gobin-${process.pid}`;
  mkdirSync(gobin, { recursive: true });
  log(`${name} ${version}: building from ${pkg} (first time only; cached in ${dirname(binary)}) ...`);
  const started = Date.now();
  // Niced: a first build shares the machine with whatever else runs.
  const code = await new Promise((res) => {
    const child = spawn('nice', ['-n', '19', go, 'install', '-trimpath', '-ldflags', '-s -w', `${pkg}@${version}`], {
      cwd: dirname(binary),
      env: { ...process.env, GOBIN: gobin, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', () => res(1));
    child.on('exit', (c, sig) => res(sig ? 128 : c));
  });
  const seconds = (Date.now() - started) / 1000;
  const built = join(gobin, basename(pkg));
  if (code !== 0 || !existsSync(built)) {
    rmSync(gobin, { recursive: true, force: true });
    throw new Error(
      `Building ${name} ${version} (go install ${pkg}@${version}) failed after ${seconds.toFixed(0)}s (exit ${code}); the go errors are above. Is the Go module proxy reachable?`,
    );
  }
  renameSync(built, binary);
  rmSync(gobin, { recursive: true, force: true });
  log(`${name} ${version}: built in ${seconds.toFixed(1)}s: ${binary}`);
  return seconds;
}
