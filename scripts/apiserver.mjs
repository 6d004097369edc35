// The real Kubernetes API server harness for tests: builds test/apiserver (kube-apiserver of the
// pinned Kubernetes release with etcd embedded in the same process) once, caches the binary
// outside the work tree, and starts it on a free loopback port with certificates, static tokens
// and a kubeconfig made for the occasion. Test-only: nothing here ships.
//
// Releases: test/apiserver/go.mod pins the default one (1.35); each test/apiserver-1.N/ holds only a
// go.mod and go.sum for another release, built from the same main.go (`go build -modfile`). Every
// server runs with the feature gates its release has on by default (no --feature-gates).
//
//   import { ensureApiServer, startApiServer } from '../../scripts/apiserver.mjs';
//   const api = await startApiServer({ dir });   // { kubeconfigPath, server, adminToken, ... }
//   const next = await startApiServer({ release: '1.37' });
//   ...
//   await api.stop();
//
// Run directly (`npm run apiserver`, or `node scripts/apiserver.mjs [--dir DIR] [--release 1.N]`), it
// starts one in out/apiserver, installs the OpenShift and OLM CRDs (scripts/apiserver-crds.mjs),
// prints `KUBECONFIG=<path>` on a line of its own and runs until SIGINT or SIGTERM.
//
// Environment: KW_APISERVER_CACHE overrides the cache directory (default
// ${XDG_CACHE_HOME:-~/.cache}/kube-windows/apiserver); GO names the go command (default `go`).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const moduleDir = join(root, 'test', 'apiserver');
const binaryName = 'kube-apiserver-kw';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const CONTEXT_ADMIN = 'kube-windows-apiserver';
export const CONTEXT_RESTRICTED = 'kube-windows-apiserver-restricted';
export const ADMIN_USER = 'kube-windows-admin';
export const RESTRICTED_USER = 'kube-windows-restricted';

/** The go.mod (and go.sum beside it) that pins `release` ("1.37"), or test/apiserver's for the default. */
function goModPath(release) {
  if (release === undefined) return join(moduleDir, 'go.mod');
  const own = join(root, 'test', `apiserver-${release}`, 'go.mod');
  if (existsSync(own)) return own;
  if (releaseOf(join(moduleDir, 'go.mod')) === release) return join(moduleDir, 'go.mod');
  throw new Error(
    `The API server harness knows no Kubernetes ${release}: there is no test/apiserver-${release}/go.mod (releases: ${releases().join(', ')}).`,
  );
}

function versionIn(goModFile) {
  const m = /^\s*k8s\.io\/kubernetes\s+(v\d+\.\d+\.\d+\S*)/m.exec(readFileSync(goModFile, 'utf8'));
  if (!m)
    throw new Error(
      `${relative(root, goModFile)} does not require k8s.io/kubernetes; cannot tell which release to build.`,
    );
  return m[1];
}

const releaseOf = (goModFile) => /^v(\d+\.\d+)/.exec(versionIn(goModFile))[1];

/** The releases the harness can build, oldest first: the pinned default and each test/apiserver-1.N. */
export function releases() {
  const found = new Set([releaseOf(join(moduleDir, 'go.mod'))]);
  for (const name of readdirSync(join(root, 'test'))) {
    const m = /^apiserver-(\d+\.\d+)$/.exec(name);
    if (m && existsSync(join(root, 'test', name, 'go.mod'))) found.add(m[1]);
  }
  return [...found].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
}

/** The release test/apiserver/go.mod pins ("1.35"): what startApiServer starts unless told otherwise. */
export function defaultRelease() {
  return releaseOf(join(moduleDir, 'go.mod'));
}

/** The Kubernetes version a release builds, e.g. `v1.35.4` (the default release when none is given). */
export function kubernetesVersion(release) {
  return versionIn(goModPath(release));
}

export function cacheRoot() {
  if (process.env.KW_APISERVER_CACHE) return resolve(process.env.KW_APISERVER_CACHE);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'kube-windows', 'apiserver');
}

/** Where the binary for a release's go.mod + go.sum and main.go lives (it may not be built yet). */
export function apiServerBinaryPath(release) {
  const goMod = goModPath(release);
  const hash = createHash('sha256');
  for (const [name, path] of [
    ['go.mod', goMod],
    ['go.sum', join(dirname(goMod), 'go.sum')],
    ['main.go', join(moduleDir, 'main.go')],
  ]) {
    hash.update(name + '\0');
    hash.update(readFileSync(path));
    hash.update('\0');
  }
  return join(cacheRoot(), `${versionIn(goMod)}-${hash.digest('hex').slice(0, 16)}`, binaryName);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * Builds the harness binary of a release (the default one unless given) unless the cache has it;
 * safe to call from several processes at once (one builds, the others wait). Resolves to
 * { binary, kubernetesVersion, release, built, seconds }.
 */
export async function ensureApiServer({ release, log = (line) => console.error(line) } = {}) {
  const goMod = goModPath(release);
  const binary = apiServerBinaryPath(release);
  const version = versionIn(goMod);
  const r = await buildOnce(binary, `kube-apiserver ${version}`, log, () => build(binary, version, goMod, log));
  return { binary, kubernetesVersion: version, release: releaseOf(goMod), ...r };
}

/**
 * Runs `buildFn` (which must leave `binary` in place) unless `binary` exists; several processes
 * may ask at once: one builds under a lock file, the others wait for it. Resolves to { built, seconds }.
 */
export async function buildOnce(binary, what, log, buildFn) {
  if (existsSync(binary)) return { built: false, seconds: 0 };
  const dir = dirname(binary);
  mkdirSync(dir, { recursive: true });
  const lock = `${dir}.lock`;
  const waitStarted = Date.now();
  let told = false;
  for (;;) {
    if (existsSync(binary)) return { built: false, seconds: 0 };
    let fd;
    try {
      fd = openSync(lock, 'wx');
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const holder = Number.parseInt(readFileOr(lock, ''), 10);
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
        rmSync(lock, { force: true }); // left by a build that died
        continue;
      }
      if (!told) log(`${what}: waiting for another process (pid ${holder || '?'}) that is building it ...`);
      told = true;
      if (Date.now() - waitStarted > 60 * 60_000)
        throw new Error(
          `Gave up waiting for the ${what} build held by ${lock}; remove that file if no build is running.`,
        );
      await sleep(1000);
      continue;
    }
    try {
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      if (existsSync(binary)) return { built: false, seconds: 0 };
      const seconds = await buildFn();
      return { built: true, seconds };
    } finally {
      rmSync(lock, { force: true });
    }
  }
}

function readFileOr(path, fallback) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

async function build(binary, version, goMod, log) {
  const go = process.env.GO || 'go';
  const probe = spawnSync(go, ['env', 'GOVERSION'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `The real API server harness needs the Go toolchain (go ${goDirective(goMod)} or newer) to build kube-apiserver ${version}, and \`${go}\` could not be run; install Go, or set GO to its path.`,
    );
  }
  const [, major, minor] = /^v(\d+)\.(\d+)/.exec(version);
  const x = (pkg, v) => `-X ${pkg}.${v}`;
  const stamp = [];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    stamp.push(
      x(pkg, `gitVersion=${version}`),
      x(pkg, `gitMajor=${major}`),
      x(pkg, `gitMinor=${minor}`),
      x(pkg, 'gitTreeState=clean'),
      x(pkg, 'gitCommit='),
    );
  }
  const tmp = `${binary}.tmp-${process.pid}`;
  // Another release's go.mod builds the same main.go: -modfile reads it (and the go.sum beside it).
  const modfile = goMod === join(moduleDir, 'go.mod') ? [] : [`-modfile=${goMod}`];
  const ldflags = ['-s', '-w', ...stamp].join(' ');
  const args = ['-n', '19', go, 'build', ...modfile, '-trimpath', '-ldflags', ldflags, '-o', tmp, '.'];
  log(
    `kube-apiserver ${version}: building ${binaryName} with ${probe.stdout.trim()} (first time only; cached in ${dirname(binary)}) ...`,
  );
  const started = Date.now();
  const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=readonly`.trim() };
  const code = await new Promise((res, rej) => {
    const child = spawn('nice', args, { cwd: moduleDir, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', rej);
    child.on('exit', (c, sig) => res(sig ? 128 : c));
  });
  const seconds = (Date.now() - started) / 1000;
  if (code !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(
      `Building kube-apiserver ${version} from ${relative(root, dirname(goMod))} failed after ${seconds.toFixed(0)}s (exit ${code}); the go errors are above. Is the Go module proxy reachable and go.sum complete (\`go mod tidy\` in test/apiserver, with -modfile for another release)?`,
    );
  }
  renameSync(tmp, binary);
  log(
    `kube-apiserver ${version}: built in ${seconds.toFixed(1)}s (${(statSync(binary).size / 1048576).toFixed(0)} MiB): ${binary}`,
  );
  return seconds;
}

function goDirective(goMod = join(moduleDir, 'go.mod')) {
  const m = /^go\s+(\S+)/m.exec(readFileOr(goMod, ''));
  return m ? m[1] : '1.25';
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

function openssl(args, cwd) {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.error)
    throw new Error(
      `The API server harness makes its certificates with openssl, which could not be run (${r.error.code}); install openssl.`,
    );
  if (r.status !== 0)
    throw new Error(`openssl ${args[0]} failed while making the API server's certificates: ${r.stderr.trim()}`);
}

const OPENSSL_CNF = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[serving_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = IP:127.0.0.1,IP:0:0:0:0:0:0:0:1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
`;

/** A CA, a serving certificate for 127.0.0.1/localhost signed by it, and a service-account key pair. */
function makeCertificates(pki) {
  mkdirSync(pki, { recursive: true });
  writeFileSync(join(pki, 'openssl.cnf'), OPENSSL_CNF);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    [
      'req',
      '-x509',
      '-config',
      'openssl.cnf',
      '-extensions',
      'ca_ext',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '3650',
      '-subj',
      '/CN=kube-windows-test-ca',
    ],
    pki,
  );
  openssl(
    [
      'req',
      '-new',
      '-config',
      'openssl.cnf',
      ...ec,
      '-keyout',
      'apiserver.key',
      '-out',
      'apiserver.csr',
      '-subj',
      '/CN=kube-apiserver',
    ],
    pki,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'apiserver.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-days',
      '365',
      '-extfile',
      'openssl.cnf',
      '-extensions',
      'serving_ext',
      '-out',
      'apiserver.crt',
    ],
    pki,
  );
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], pki);
  openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], pki);
  return {
    ca: join(pki, 'ca.crt'),
    cert: join(pki, 'apiserver.crt'),
    key: join(pki, 'apiserver.key'),
    saKey: join(pki, 'sa.key'),
    saPub: join(pki, 'sa.pub'),
  };
}

function kubeconfigYaml({ server, caPath, adminToken, restrictedToken }) {
  const ca = readFileSync(caPath).toString('base64');
  return `apiVersion: v1
kind: Config
clusters:
- name: ${CONTEXT_ADMIN}
  cluster:
    server: ${server}
    certificate-authority-data: ${ca}
users:
- name: ${ADMIN_USER}
  user:
    token: ${adminToken}
- name: ${RESTRICTED_USER}
  user:
    token: ${restrictedToken}
contexts:
- name: ${CONTEXT_ADMIN}
  context:
    cluster: ${CONTEXT_ADMIN}
    user: ${ADMIN_USER}
    namespace: default
- name: ${CONTEXT_RESTRICTED}
  context:
    cluster: ${CONTEXT_ADMIN}
    user: ${RESTRICTED_USER}
    namespace: default
current-context: ${CONTEXT_ADMIN}
preferences: {}
`;
}

function tail(path, bytes = 6000) {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = statSync(path).size;
      const len = Math.min(bytes, size);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

function httpsRequest(url, { ca, token, method = 'GET', body, contentType = 'application/json', timeoutMs = 10_000 }) {
  return new Promise((res) => {
    const headers = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = contentType;
    const req = request(url, { method, ca, headers, timeout: timeoutMs }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (c) => (text += c));
      r.on('end', () => res({ status: r.statusCode, text }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => res({ status: 0, text: String(e.message) }));
    req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/**
 * One request to a started server, as the admin unless another token is given. Resolves to
 * { status, body } with body parsed from JSON when it is JSON (a Status object for errors).
 */
export async function apiRequest(api, path, { method = 'GET', body, token = api.adminToken, contentType } = {}) {
  const ca = readFileSync(api.caPath);
  const r = await httpsRequest(`${api.server}${path}`, { ca, token, method, body, contentType });
  let parsed = r.text;
  try {
    parsed = JSON.parse(r.text);
  } catch {
    // not JSON: keep the text
  }
  return { status: r.status, body: parsed };
}

/**
 * Creates a ServiceAccount (`default` unless named) in a namespace if it is missing. There is no
 * controller-manager here to do it, and the ServiceAccount admission plugin refuses pods whose
 * service account does not exist; startApiServer does it for the `default` namespace.
 */
export async function ensureServiceAccount(api, namespace, name = 'default') {
  const body = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } };
  for (let i = 0; ; i++) {
    const r = await apiRequest(api, `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts`, {
      method: 'POST',
      body,
    });
    if (r.status === 201 || r.status === 409) return;
    // the namespace may not be there yet right after start (the API server creates `default` itself)
    if (i >= 50 || r.status !== 404)
      throw new Error(
        `Could not create the ServiceAccount ${namespace}/${name} on the test API server: HTTP ${r.status} ${r.body?.message ?? r.body}`,
      );
    await sleep(100);
  }
}

/**
 * Starts the real API server in `dir` (a fresh temporary directory, removed by stop(), if none is
 * given; the data of an existing one is wiped unless keepData is set; after a failed start the
 * directory stays, for its log). Resolves once /readyz answers ok, to
 * { kubeconfigPath, server, adminToken, restrictedToken, caPath, dir, logPath, pid, etcdDataDir,
 *   halt(), resume({ freshData }), stop() }.
 *
 * halt() shuts the process down as an upgrade would (SIGTERM: watches end, then etcd closes) and
 * keeps everything else; resume() starts it again on the same port with the same certificates and
 * tokens, so clients keep their kubeconfig: with the same etcd data, resourceVersions continue; with
 * freshData, etcd starts empty and resourceVersions start over (a client's old version is then from
 * the future). Both are for the restart suites (test/apiserver-suites/restart*.test.ts).
 */
export async function startApiServer({
  release,
  dir,
  keepData = false,
  compactionInterval = '30s',
  readyTimeoutMs = 120_000,
  extraArgs = [],
  log = (line) => console.error(line),
} = {}) {
  const { binary, kubernetesVersion: version } = await ensureApiServer({ release, log });
  const ownDir = !dir; // a temporary directory of ours goes away on stop() (etcd preallocates ~60 MB)
  dir = dir ? resolve(dir) : mkdtempSync(join(tmpdir(), 'kw-apiserver-'));
  if (!keepData)
    for (const sub of ['etcd', 'pki', 'apiserver.log', 'kubeconfig', 'tokens.csv'])
      rmSync(join(dir, sub), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const pki = makeCertificates(join(dir, 'pki'));
  const adminToken = randomBytes(24).toString('hex');
  const restrictedToken = randomBytes(24).toString('hex');
  const tokensPath = join(dir, 'tokens.csv');
  // token,user,uid,"groups": the restricted user has no groups (system:authenticated is implied).
  writeFileSync(
    tokensPath,
    `${adminToken},${ADMIN_USER},kw-admin-uid,"system:masters"\n${restrictedToken},${RESTRICTED_USER},kw-restricted-uid\n`,
    { mode: 0o600 },
  );
  const logPath = join(dir, 'apiserver.log');
  const caPath = pki.ca;
  const ca = readFileSync(caPath);
  const etcdDataDir = join(dir, 'etcd');
  const argsFor = (port) => [
    `--etcd-data-dir=${etcdDataDir}`,
    '--exit-on-stdin-eof',
    '--',
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${pki.cert}`,
    `--tls-private-key-file=${pki.key}`,
    `--client-ca-file=${pki.ca}`,
    `--token-auth-file=${tokensPath}`,
    '--authorization-mode=Node,RBAC',
    '--allow-privileged=true',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki.saPub}`,
    `--service-account-signing-key-file=${pki.saKey}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // The kubernetes Service's endpoints would point at 127.0.0.1, which Endpoints validation
    // refuses; nothing in the tests dials it.
    '--endpoint-reconciler-type=none',
    `--etcd-compaction-interval=${compactionInterval}`,
    '--profiling=false',
    ...extraArgs,
  ];

  /** One process on `port`: resolves to { child, exited, exitInfo() } once /readyz answers ok, else throws. */
  const launch = async (port, server) => {
    const out = openSync(logPath, 'a');
    // A process group of its own, so a Ctrl-C in the terminal reaches only us and stop() does
    // one orderly shutdown; if we die without stop(), its stdin closes and it stops by itself.
    const child = spawn(binary, argsFor(port), { cwd: dir, stdio: ['pipe', out, out], detached: true });
    closeSync(out);
    const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
    let exitInfo;
    exited.then((e) => (exitInfo = e));
    const killOnExit = () => child.kill('SIGKILL');
    process.on('exit', killOnExit);
    const proc = { child, exited, exitInfo: () => exitInfo, killOnExit };

    const deadline = Date.now() + readyTimeoutMs;
    let last = { status: 0, text: '' };
    while (!exitInfo && Date.now() < deadline) {
      last = await httpsRequest(`${server}/readyz`, { ca, token: adminToken, timeoutMs: 2000 });
      if (last.status === 200) break;
      await sleep(200);
    }
    if (last.status === 200 && !exitInfo) return proc;

    const exitedByItself = exitInfo;
    if (!exitInfo) {
      child.kill('SIGKILL');
      await exited;
    }
    process.off('exit', killOnExit);
    child.stdin.destroy();
    // etcd logs its listeners closing as errors; they say nothing about why the server stopped
    const logTail = tail(logPath, 20_000)
      .split('\n')
      .filter(
        (l) =>
          !/setting up serving from embedded etcd failed.*(server closed|Server closed|use of closed network connection)/.test(
            l,
          ),
      )
      .slice(-40)
      .join('\n');
    const why = exitedByItself
      ? `it exited (${exitedByItself.signal ?? `code ${exitedByItself.code}`})`
      : `/readyz did not answer ok within ${readyTimeoutMs / 1000}s (last answer: ${last.status ? `HTTP ${last.status} ${last.text.slice(0, 500)}` : last.text})`;
    const error = new Error(
      `The test kube-apiserver did not become ready: ${why}. The end of its log (${logPath}):\n${logTail}`,
    );
    error.portTaken = /address already in use/.test(logTail);
    throw error;
  };

  /** SIGTERM (the graceful shutdown), SIGKILL after 20 s; resolves once the process is gone. */
  const shutdown = async (proc) => {
    if (!proc.exitInfo()) {
      proc.child.kill('SIGTERM');
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), 20_000);
      await proc.exited;
      clearTimeout(timer);
    }
    process.off('exit', proc.killOnExit);
    proc.child.stdin.destroy();
  };

  const removeOwnDir = () => {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };

  let lastError;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const server = `https://127.0.0.1:${port}`;
    let proc;
    try {
      proc = await launch(port, server);
    } catch (e) {
      lastError = e;
      if (!e.portTaken) break; // only a lost race for the port is worth another try
      continue;
    }
    process.on('exit', removeOwnDir);
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigYaml({ server, caPath, adminToken, restrictedToken }), { mode: 0o600 });
    const api = {
      kubeconfigPath,
      server,
      adminToken,
      restrictedToken,
      caPath,
      dir,
      logPath,
      etcdDataDir,
      pid: proc.child.pid,
      halt: undefined,
      resume: undefined,
      stop: undefined,
    };
    log(
      `kube-apiserver ${version} ready at ${server} in ${((Date.now() - started) / 1000).toFixed(1)}s (log: ${logPath})`,
    );
    // One change of state at a time: halt, resume and stop queue behind each other.
    let queue = Promise.resolve();
    let stopped = false;
    const queued = (fn) => {
      const next = queue.then(fn);
      queue = next.catch(() => undefined);
      return next;
    };
    api.halt = () =>
      queued(async () => {
        if (proc) await shutdown(proc);
        proc = undefined;
      });
    api.resume = ({ freshData = false } = {}) =>
      queued(async () => {
        if (stopped) throw new Error('the test kube-apiserver was stopped; it cannot be resumed');
        if (proc) await shutdown(proc);
        proc = undefined;
        if (freshData) rmSync(etcdDataDir, { recursive: true, force: true });
        const t0 = Date.now();
        proc = await launch(port, server);
        api.pid = proc.child.pid;
        await ensureServiceAccount(api, 'default');
        log(
          `kube-apiserver ${version} ready again at ${server} in ${((Date.now() - t0) / 1000).toFixed(1)}s (${freshData ? 'fresh etcd data' : 'same etcd data'})`,
        );
      });
    let stopping;
    api.stop = () =>
      (stopping ??= queued(async () => {
        stopped = true;
        if (proc) await shutdown(proc);
        proc = undefined;
        process.off('exit', removeOwnDir);
        removeOwnDir();
      }));
    try {
      await ensureServiceAccount(api, 'default');
    } catch (e) {
      await api.stop();
      throw e;
    }
    return api;
  }
  throw lastError;
}

async function main() {
  const option = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const dir = option('--dir') ?? join(root, 'out', 'apiserver');
  const api = await startApiServer({ dir, release: option('--release') });
  try {
    const { installCrds } = await import('./apiserver-crds.mjs');
    await installCrds(api, { log: (line) => console.error(line) });
  } catch (e) {
    await api.stop();
    throw e;
  }
  console.log(`KUBECONFIG=${api.kubeconfigPath}`);
  console.error(
    `contexts: ${CONTEXT_ADMIN} (admin, current), ${CONTEXT_RESTRICTED}; server ${api.server}; Ctrl-C stops it`,
  );
  let done = false;
  const shutdown = async (sig) => {
    if (done) return;
    done = true;
    console.error(`${sig}: stopping the API server ...`);
    await api.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((e) => {
    console.error(e.message);
    process.exit(1);
  });
}

// Kept for callers that only need to know whether a build would be needed.
export function apiServerIsBuilt(release) {
  return existsSync(apiServerBinaryPath(release));
}
