// Runs a command (the test runner) with one real Kubernetes API server for its whole duration:
// builds the test/apiserver harness for every release it knows (and KWOK, Helm, kubectl and krew) or
// reuses the cached binaries, starts one kube-apiserver of the default release with embedded etcd on
// loopback, installs the OpenShift CRDs, hands its kubeconfig to the command in
// KW_APISERVER_KUBECONFIG, and stops it when the command ends, fails, or is interrupted. The suites
// that need another release (the release sweep) start it themselves from the cached binary; a
// release that cannot be built is named in KW_APISERVER_UNAVAILABLE_<1_N> for them to fail with.
//
//   node scripts/with-apiserver.mjs node --test --test-force-exit out/test out/e2e
//
// The test files under test/apiserver-suites read KW_APISERVER_KUBECONFIG; run on their own, they
// start a server of their own instead. When the server cannot be built or started (no Go
// toolchain, say), the command still runs with KW_APISERVER_UNAVAILABLE set to the reason, so the
// rest of the suite runs and the real-API-server suites fail with that reason (they never skip).
// Test-only: nothing here ships.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { defaultRelease, ensureApiServer, releases, startApiServer } from './apiserver.mjs';
import { installCrds } from './apiserver-crds.mjs';
import { ensureKwok } from './kwok.mjs';
import { ensureHelm } from './helm.mjs';
import { ensureKubectl } from './kubectl.mjs';
import { ensureKrewTools } from './krew.mjs';
import { ensureValidator } from './validator.mjs';
import { ensureVapStatus } from './vap-status.mjs';

const argv = process.argv.slice(2);
if (argv[0] === '--') argv.shift();
if (argv.length === 0) {
  console.error('usage: node scripts/with-apiserver.mjs <command> [args...]');
  process.exit(2);
}

const log = (line) => console.error(`apiserver: ${line}`);
const env = { ...process.env };
delete env.KW_APISERVER_UNAVAILABLE;
const unavailableKey = (release) => `KW_APISERVER_UNAVAILABLE_${release.replace('.', '_')}`;
for (const release of releases()) delete env[unavailableKey(release)];
let api;
let stopping;
const stop = () =>
  (stopping ??= api ? api.stop().catch((e) => log(`stopping the API server failed: ${e.message}`)) : Promise.resolve());

let interrupted;
let child;
const onSignal = (sig) => {
  interrupted ??= sig;
  // Ctrl-C reaches the whole foreground process group, the child included; a SIGTERM sent to us
  // alone must reach it too. Either way the child ends and we stop the server after it.
  if (child && child.exitCode === null && child.signalCode === null) child.kill(sig);
  else void stop().then(() => process.exit(128 + (constants.signals[sig] ?? 1)));
};
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));
process.on('SIGHUP', () => onSignal('SIGHUP'));

try {
  // KWOK (test/apiserver-suites/kwok.test.ts) is built up front too, so that a first run's builds
  // show here rather than inside a test; a failure is that suite's to report.
  await ensureKwok({ log }).catch((e) => log(`kwok is not available; its suite will fail: ${e.message}`));
  // So is Helm, the chart path's oracle (test/cli/helm-parity.test.ts builds it itself when run alone).
  await ensureHelm({ log }).catch((e) => log(`helm is not available; the Helm parity suite will fail: ${e.message}`));
  // And kubectl, the kubectl plugin's host (test/cli/kubectl-plugin-kubectl.test.ts builds it itself when run alone).
  await ensureKubectl({ log }).catch((e) =>
    log(`kubectl is not available; the kubectl plugin suite will fail: ${e.message}`),
  );
  // And krew's validator and krew itself (test/cli/kubectl-plugin-krew.test.ts).
  await ensureKrewTools({ log }).catch((e) =>
    log(`krew is not available; the krew plugin suite will fail: ${e.message}`),
  );
  // The exact-API validator of each release (WebAssembly; the differential suite and the CLI's test
  // use them), built from the same go.mod as that release's server; a failure is theirs to report.
  for (const release of releases()) {
    if (interrupted) break;
    await ensureValidator({ release, log }).catch((e) =>
      log(`the exact-API validator ${release} is not available; its suites will fail: ${e.message}`),
    );
  }
  // And the admission policy status controller (test/apiserver-suites/admission-parity.test.ts).
  await ensureVapStatus({ log }).catch((e) =>
    log(`the policy status controller is not available; the admission parity suite will fail: ${e.message}`),
  );
  // The other releases too, one after the other (each build uses both cores), before any test runs.
  for (const release of releases().filter((r) => r !== defaultRelease())) {
    if (interrupted) break;
    await ensureApiServer({ release, log }).catch((e) => {
      env[unavailableKey(release)] = e instanceof Error ? e.message : String(e);
      log(`kube-apiserver ${release} is not available; the suites that need it will fail: ${e.message}`);
    });
  }
  api = await startApiServer({ log });
  if (interrupted) {
    await stop();
    process.exit(130);
  }
  const crds = await installCrds(api);
  log(`${crds.count} CRDs installed in ${(crds.ms / 1000).toFixed(1)}s; KW_APISERVER_KUBECONFIG=${api.kubeconfigPath}`);
  env.KW_APISERVER_KUBECONFIG = api.kubeconfigPath;
} catch (e) {
  await stop();
  if (interrupted) process.exit(130);
  api = undefined;
  env.KW_APISERVER_UNAVAILABLE = e instanceof Error ? e.message : String(e);
  log(`not available; the real API server suites will fail: ${env.KW_APISERVER_UNAVAILABLE}`);
}

child = spawn(argv[0], argv.slice(1), { stdio: 'inherit', env });
const result = await new Promise((res) => {
  child.on('error', (e) => res({ code: 127, error: e }));
  child.on('exit', (code, signal) => res({ code, signal }));
});
await stop();
if (result.error) {
  console.error(`with-apiserver: could not run ${argv[0]}: ${result.error.message}`);
  process.exit(127);
}
process.exit(result.code ?? 128 + (constants.signals[result.signal] ?? 1));
