// KWOK (sigs.k8s.io/kwok), the Kubernetes project's simulator of nodes and pods, next to the real API
// server of scripts/apiserver.mjs: built once from its Go module (`go install` of the pinned
// version into the cache, like the API server) and run against a kubeconfig. It plays the kubelet
// of the nodes annotated kwok.x-k8s.io/node=fake: their status and heartbeats, their pods going
// Running and Ready, containers that fail (the chaos stage, for pods labelled
// pod-container-running-failed.stage.kwok.x-k8s.io=true), and pods deleted for good once they are
// evicted or deleted. The stages are the ones published in the module (kustomize/stage), read from
// the Go module cache. Test-only: nothing here ships.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOnce, cacheRoot } from './apiserver.mjs';
import { goInstall } from './go-install.mjs';
import { moduleDir } from './apiserver-crds.mjs';

export const KWOK_MODULE = 'sigs.k8s.io/kwok';
export const KWOK_VERSION = 'v0.7.0';
/** Nodes with this annotation are KWOK's; every other node is left alone. */
export const KWOK_ANNOTATION = 'kwok.x-k8s.io/node';

/** The published stages KWOK runs here (paths inside the module). */
const STAGES = [
  'kustomize/stage/node/fast/node-initialize.yaml',
  'kustomize/stage/node/heartbeat/node-heartbeat.yaml',
  'kustomize/stage/pod/fast/pod-ready.yaml',
  'kustomize/stage/pod/fast/pod-complete.yaml',
  'kustomize/stage/pod/fast/pod-delete.yaml',
  'kustomize/stage/pod/chaos/pod-container-running-failed.yaml',
];

export function kwokBinaryPath() {
  return join(cacheRoot(), `kwok-${KWOK_VERSION}`, 'kwok');
}

/** Builds the kwok binary unless the cache has it. Resolves to { binary, built, seconds }. */
export async function ensureKwok({ log = (line) => console.error(line) } = {}) {
  const binary = kwokBinaryPath();
  const r = await buildOnce(binary, `kwok ${KWOK_VERSION}`, log, () =>
    goInstall({ name: 'kwok', pkg: `${KWOK_MODULE}/cmd/kwok`, version: KWOK_VERSION, binary, log }),
  );
  return { binary, ...r };
}

/** KWOK's configuration: its own settings and the published stages, one YAML stream. */
export function kwokConfig() {
  const dir = moduleDir(KWOK_MODULE, KWOK_VERSION);
  const docs = [
    [
      'apiVersion: config.kwok.x-k8s.io/v1alpha1',
      'kind: KwokConfiguration',
      'options:',
      `  manageNodesWithAnnotationSelector: ${KWOK_ANNOTATION}=fake`,
      '  manageAllNodes: false',
      '  nodeIP: 127.0.0.1',
      '',
    ].join('\n'),
  ];
  for (const f of STAGES) {
    const path = join(dir, f);
    if (!existsSync(path))
      throw new Error(
        `${KWOK_MODULE}@${KWOK_VERSION} has no ${f}; the stage list in scripts/kwok.mjs and the pinned version disagree.`,
      );
    docs.push(readFileSync(path, 'utf8'));
  }
  return docs.join('\n---\n');
}

/**
 * Starts kwok against a kubeconfig, with its configuration in `dir`. Resolves to { pid, logPath,
 * stop() } once it runs (KWOK has no readiness endpoint without its server, which stays off: it
 * would listen on every interface).
 */
export async function startKwok({ kubeconfigPath, dir, log = () => {} }) {
  const { binary } = await ensureKwok({ log });
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, 'kwok.yaml');
  writeFileSync(configPath, kwokConfig());
  const logPath = join(dir, 'kwok.log');
  const out = openSync(logPath, 'a');
  // Same process group as us: a Ctrl-C stops it too; a test process that exits kills it.
  const child = spawn(
    binary,
    [
      `--kubeconfig=${kubeconfigPath}`,
      `--config=${configPath}`,
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${KWOK_ANNOTATION}=fake`,
    ],
    {
      stdio: ['ignore', out, out],
    },
  );
  closeSync(out);
  let exitInfo;
  const exited = new Promise((res) => child.on('exit', (code, signal) => res((exitInfo = { code, signal }))));
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  await new Promise((r) => setTimeout(r, 300));
  if (exitInfo) {
    process.off('exit', kill);
    throw new Error(
      `kwok exited at once (${exitInfo.signal ?? `code ${exitInfo.code}`}); its log (${logPath}):\n${readFileSync(logPath, 'utf8').slice(-3000)}`,
    );
  }
  let stopping;
  return {
    pid: child.pid,
    logPath,
    stop: () =>
      (stopping ??= (async () => {
        if (!exitInfo) {
          child.kill('SIGTERM');
          const timer = setTimeout(kill, 10_000);
          await exited;
          clearTimeout(timer);
        }
        process.off('exit', kill);
      })()),
  };
}

// `node scripts/kwok.mjs --check`: builds (or finds) kwok and prints its version.
if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(resolve(process.argv[1])).href &&
  process.argv.includes('--check')
) {
  const { binary } = await ensureKwok();
  console.log(spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim());
}
