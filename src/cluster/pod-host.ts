// A node's host ops without SSH: the HostProcess pod the terminal falls back to (pinned to the node,
// running as SYSTEM on the host itself: src/core/windows/host-process-shell.ts), each op exec'd into
// it over the API (pods/exec, the same PowerShell command line SSH runs) and its result read from
// stdout as over SSH. The pod is made on the first op and deleted by close(), on every way out.
import { randomBytes } from 'node:crypto';
import type { Exec, KubeConfig } from '@kubernetes/client-node';
import { sessionHub } from '../core/interactive-session';
import type { HostOp } from '../core/windows/host-ops';
import { hostProcessShellPod, SHELL_CONTAINER } from '../core/windows/host-process-shell';
import { powershellCommand } from '../core/windows/powershell';
import { UserError } from '../core/user-error';
import { enc } from './api';
import type { KubeClient } from './kube-client';
import { execOnHub } from './pod-exec';
import { waitForPodRunning } from './pod-shell';

export interface PodHostOptions {
  kube: KubeClient;
  config: KubeConfig;
  nodeName: string;
  /** The node's labels (its build picks the PowerShell image). */
  labels?: Record<string, string>;
  /** Default kube-system (privileged by Pod Security Admission on most clusters). */
  namespace?: string;
  /** How long the pod may take to run (the image pull on first use). Default 5 minutes. */
  startTimeoutMs?: number;
  onStatus?: (text: string) => void;
  /** The pods/exec client (tests pass a stand-in); default @kubernetes/client-node's Exec over WebSocket. */
  exec?: Pick<Exec, 'exec'>;
}

/** An op that failed in the pod (non-zero exit, or no result). */
class PodOpError extends UserError {
  override name = 'PodOpError';
}

/** Runs host ops on a node through a HostProcess pod; close() deletes the pod. */
export interface PodHost {
  readonly label: string;
  run<R>(op: HostOp<R>, signal?: AbortSignal): Promise<R>;
  close(): Promise<void>;
}

const firstLines = (text: string): string =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 5)
    .join(' ');

export function podHost(o: PodHostOptions): PodHost {
  const namespace = o.namespace ?? 'kube-system';
  const built = hostProcessShellPod({
    nodeName: o.nodeName,
    labels: o.labels ?? {},
    namespace,
    suffix: randomBytes(3).toString('hex'),
  });
  const name = 'error' in built ? '' : built.pod.metadata.name;
  const path = `/api/v1/namespaces/${enc(namespace)}/pods/${enc(name)}`;
  const label = `pod ${namespace}/${name} on ${o.nodeName}`;
  let started: Promise<void> | undefined;
  let deleted: Promise<void> | undefined;

  const start = (signal?: AbortSignal): Promise<void> =>
    (started ??= (async () => {
      if ('error' in built) throw new PodOpError(built.error);
      o.onStatus?.(`creating pod ${namespace}/${name} (${built.image.image}) on ${o.nodeName}`);
      await o.kube.create(`/api/v1/namespaces/${enc(namespace)}/pods`, built.pod, signal);
      await waitForPodRunning(o.kube, path, o.startTimeoutMs ?? 300_000, signal, o.onStatus);
    })());

  return {
    label,
    async run<R>(op: HostOp<R>, signal?: AbortSignal): Promise<R> {
      await start(signal);
      signal?.throwIfAborted();
      const out: string[] = [];
      const err: string[] = [];
      const hub = sessionHub(label, () => undefined);
      const session = await execOnHub(
        o.config,
        { namespace, pod: name, container: SHELL_CONTAINER, command: powershellCommand(op.script) },
        {
          tty: false,
          cols: 0,
          rows: 0,
          stderr: (c) => err.push(Buffer.from(c).toString('utf8')),
          ...(o.exec ? { exec: o.exec } : {}),
        },
        hub,
      );
      session.onData((t) => out.push(t));
      session.endInput?.();
      const end = await new Promise<{ exitCode?: number; lost?: string }>((resolve, reject) => {
        const onAbort = (): void => {
          session.close();
          reject(signal?.reason ?? new Error('cancelled'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        session.onEnd((e) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(e);
        });
      });
      const secrets = op.secrets.map((k) => String(op.params[k] ?? '')).filter(Boolean);
      const scrub = (t: string): string => secrets.reduce((s, v) => s.split(v).join('•••'), t);
      if (end.exitCode !== 0)
        throw new PodOpError(
          `${op.name} failed in ${label}: ${scrub(firstLines(err.join('') || out.join(''))) || end.lost || `exit code ${String(end.exitCode)}`}`,
        );
      try {
        return op.parse(out.join(''));
      } catch (e) {
        throw new PodOpError(`${op.name} in ${label}: ${(e as Error).message}`);
      }
    },
    // Not cancellable on purpose: the pod must go even when the command was interrupted.
    close: () =>
      (deleted ??= started
        ? o.kube.delete(path).then(
            () => undefined,
            () => undefined,
          )
        : Promise.resolve()),
  };
}
