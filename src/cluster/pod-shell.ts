// The terminal's fallback when SSH is not possible: a HostProcess pod pinned to the node
// (src/core/windows/host-process-shell.ts), an interactive PowerShell exec'd into it over the API
// (pods/exec, WebSocket, @kubernetes/client-node's Exec), and the pod deleted when the session ends
// or when starting it fails. No vscode: it lives in the engine bundle.
import { randomBytes } from 'node:crypto';
import type { Exec, KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from './kube-client';
import {
  hostProcessShellPod,
  SHELL_COMMAND,
  SHELL_CONTAINER,
  type HostProcessShellPod,
} from '../core/windows/host-process-shell';
import { sessionHub, type InteractiveSession } from '../core/interactive-session';
import { delay } from '../core/delay';
import { execOnHub } from './pod-exec';

export interface PodShellOptions {
  kube: KubeClient;
  config: KubeConfig;
  nodeName: string;
  labels?: Record<string, string>;
  /** Default kube-system (privileged by Pod Security Admission on most clusters). */
  namespace?: string;
  cols: number;
  rows: number;
  signal?: AbortSignal;
  /** How long the pod may take to run (the image pull on first use). Default 5 minutes. */
  startTimeoutMs?: number;
  /** Progress lines while the pod starts. */
  onStatus?: (text: string) => void;
  /** The pods/exec client (tests pass a stand-in); default @kubernetes/client-node's Exec over WebSocket. */
  exec?: Pick<Exec, 'exec'>;
}

interface PodStatus {
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    containerStatuses?: {
      ready?: boolean;
      state?: {
        running?: object;
        waiting?: { reason?: string; message?: string };
        terminated?: { reason?: string; exitCode?: number };
      };
    }[];
  };
}

const FATAL_WAITING = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CreateContainerError',
  'CreateContainerConfigError',
  'RunContainerError',
]);

export async function waitForPodRunning(
  kube: KubeClient,
  path: string,
  timeoutMs: number,
  signal?: AbortSignal,
  onStatus?: (t: string) => void,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    signal?.throwIfAborted();
    const pod = await kube.get<PodStatus>(path, undefined, signal);
    const phase = pod.status?.phase ?? 'Pending';
    const c = pod.status?.containerStatuses?.[0];
    if (phase === 'Running' && c?.state?.running) return;
    if (phase === 'Failed' || phase === 'Succeeded')
      throw new Error(
        `The shell pod ended (${phase}${pod.status?.reason ? `: ${pod.status.reason}` : ''}${pod.status?.message ? ` — ${pod.status.message}` : ''}).`,
      );
    const waiting = c?.state?.waiting;
    if (waiting?.reason && FATAL_WAITING.has(waiting.reason))
      throw new Error(
        `The shell pod cannot start: ${waiting.reason}${waiting.message ? ` — ${waiting.message}` : ''}.`,
      );
    const now = waiting?.reason ? `${phase}: ${waiting.reason}` : phase;
    if (now !== last) onStatus?.(now);
    last = now;
    if (Date.now() > deadline)
      throw new Error(`The shell pod did not start within ${Math.round(timeoutMs / 1000)} s (${now}).`);
    await delay(1000, signal);
  }
}

/** Creates the pod, waits for it, execs PowerShell with a tty; the pod is deleted on every way out. */
export async function openPodShell(o: PodShellOptions): Promise<InteractiveSession & { pod: HostProcessShellPod }> {
  const namespace = o.namespace ?? 'kube-system';
  const built = hostProcessShellPod({
    nodeName: o.nodeName,
    labels: o.labels ?? {},
    namespace,
    suffix: randomBytes(3).toString('hex'),
  });
  if ('error' in built) throw new Error(built.error);
  const { pod } = built;
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod.metadata.name)}`;
  let deleted: Promise<void> | undefined;
  // Not cancellable on purpose: the pod must go even when the terminal was closed while it started.
  const remove = () => (deleted ??= o.kube.delete(path).catch(() => undefined));

  o.onStatus?.(`creating pod ${namespace}/${pod.metadata.name} (${built.image.image})`);
  await o.kube.create(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`, pod, o.signal);
  const hub = sessionHub(`pod ${namespace}/${pod.metadata.name}`, () => void remove());
  try {
    await waitForPodRunning(o.kube, path, o.startTimeoutMs ?? 300_000, o.signal, o.onStatus);
    const session = await execOnHub(
      o.config,
      { namespace, pod: pod.metadata.name, container: SHELL_CONTAINER, command: [...SHELL_COMMAND] },
      { tty: true, cols: o.cols, rows: o.rows, ...(o.exec ? { exec: o.exec } : {}) },
      hub,
    );
    return { ...session, pod };
  } catch (err) {
    await remove();
    throw err;
  }
}
