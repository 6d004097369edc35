// A shell in a running container over the API: pods/exec over WebSocket (@kubernetes/client-node's
// Exec: subprotocols v5.channel.k8s.io down to channel.k8s.io; channel 0 stdin, 1 stdout, 2 stderr,
// 3 the status when the command ends, 4 resize), as an InteractiveSession (src/core/interactive-session.ts)
// that the CLI (`kube-windows shell`) and the VS Code terminal (src/extension/terminal.ts) both
// drive. Which shell the container can run is decided in core/windows/container-shell.ts.
import { PassThrough, Writable } from 'node:stream';
import { Exec, type KubeConfig, type V1Status } from '@kubernetes/client-node';
import { chooseShell, execExitCode, type ShellChoice, type ShellKind } from '../core/windows/container-shell';
import { sessionHub, type InteractiveSession, type SessionHub } from '../core/interactive-session';
import { OS_LABEL } from '../core/well-known';
import { enc, getOrUndefined } from './api';
import type { KubeClient } from './kube-client';
import { ApiError } from './errors';
import { nodePath, type NodeObject } from './nodes';
import { UserError } from '../core/user-error';

/** A stdout the Exec treats as a terminal: it reads columns/rows and listens to 'resize' (channel 4). */
class TtyOut extends Writable {
  columns: number;
  rows: number;
  constructor(
    cols: number,
    rows: number,
    private readonly sink: (chunk: Buffer) => void,
  ) {
    super();
    this.columns = cols;
    this.rows = rows;
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.sink(chunk);
    done();
  }
  resize(cols: number, rows: number): void {
    this.columns = cols;
    this.rows = rows;
    this.emit('resize');
  }
}

class Sink extends Writable {
  constructor(private readonly sink: (chunk: Buffer) => void) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.sink(chunk);
    done();
  }
}

export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
}

export interface ExecIo {
  tty: boolean;
  cols: number;
  rows: number;
  /** Without a tty, stderr (channel 2) goes here; default: with stdout. */
  stderr?: (chunk: Buffer) => void;
  /** The pods/exec client (tests pass a stand-in); default @kubernetes/client-node's Exec over WebSocket. */
  exec?: Pick<Exec, 'exec'>;
}

/** Why an exec could not start, from the WebSocket handshake's answer ("Unexpected server response: 403"). */
function execRefusal(err: unknown, t: Pick<ExecTarget, 'namespace' | 'pod' | 'container'>): Error {
  const e = err as { message?: string; error?: { message?: string } } | undefined;
  const text = e?.message ?? e?.error?.message ?? String(err);
  const status = Number(/Unexpected server response: (\d+)/.exec(text)?.[1]);
  if (status === 403)
    return new Error(
      `You may not exec into pods in namespace "${t.namespace}" (403 Forbidden): a shell needs RBAC \`create\` on \`pods/exec\` there (kubectl auth can-i create pods --subresource=exec -n ${t.namespace}).`,
    );
  if (status === 404) return new Error(`The pod ${t.namespace}/${t.pod} is gone (404).`);
  if (status === 400)
    return new Error(
      `The API server refused the exec into ${t.namespace}/${t.pod} container ${t.container} (400): the container may have stopped; try again.`,
    );
  if (status) return new Error(`The exec into ${t.namespace}/${t.pod} failed: HTTP ${status}.`);
  return err instanceof Error ? err : new Error(text);
}

/**
 * Execs a command with stdin (and a tty when `io.tty`) and carries it on `hub`: output to the hub,
 * the exit code from the status on channel 3, the end when the socket closes. Returns the session.
 */
export async function execOnHub(
  config: KubeConfig,
  target: ExecTarget,
  io: ExecIo,
  hub: SessionHub,
): Promise<InteractiveSession> {
  const stdout = io.tty ? new TtyOut(io.cols, io.rows, hub.output) : new Sink(hub.output);
  const stderr = io.tty ? null : new Sink(io.stderr ?? hub.output);
  const stdin = new PassThrough();
  let exitCode: number | undefined;
  let failure: string | undefined;
  let ws: Awaited<ReturnType<Exec['exec']>>;
  try {
    ws = await (io.exec ?? new Exec(config)).exec(
      target.namespace,
      target.pod,
      target.container,
      target.command,
      stdout,
      stderr,
      stdin,
      io.tty,
      (status: V1Status) => {
        exitCode = execExitCode(status);
        if (exitCode === undefined) failure = status.message ?? 'the exec failed';
      },
    );
  } catch (err) {
    throw execRefusal(err, target);
  }
  ws.on('close', () =>
    failure
      ? hub.finish({ lost: failure })
      : hub.end(exitCode, `the exec session in ${target.namespace}/${target.pod} ended without an exit status`),
  );
  ws.on('error', () => undefined);
  return hub.session({
    write: (data) => stdin.write(data),
    endInput: () => stdin.end(),
    resize: (cols, rows) => (stdout instanceof TtyOut ? stdout.resize(cols, rows) : undefined),
    close: () => {
      stdin.end();
      ws.close();
      hub.finish({});
    },
  });
}

// ---------------------------------------------------------------------------------------------
// A shell in a pod's container

interface PodView {
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: {
    nodeName?: string;
    os?: { name?: string };
    nodeSelector?: Record<string, string>;
    containers?: { name: string; image?: string }[];
  };
  status?: {
    phase?: string;
    containerStatuses?: {
      name: string;
      image?: string;
      state?: {
        running?: object;
        waiting?: { reason?: string; message?: string };
        terminated?: { reason?: string; exitCode?: number };
      };
    }[];
  };
}

/** Thrown when the shell cannot start; `kind` says which way (for exit codes), the message what to do. */
export class ContainerShellError extends UserError {
  override readonly name = 'ContainerShellError';
  constructor(
    readonly kind: 'not-found' | 'no-container' | 'not-running' | 'forbidden',
    message: string,
  ) {
    super(message);
  }
}

/** The annotation `kubectl exec` reads for the container to use when none is named. */
const DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

export interface ShellTarget extends ExecTarget {
  choice: ShellChoice;
  /** The OS as read (spec.os, the node's label), undefined when neither says. */
  os?: string;
  image: string;
  node?: string;
}

/**
 * Reads the pod (and its node's OS label when spec.os is not set), picks the container (-c, else
 * the default-container annotation, else the first) and the shell it can run. Refuses a pod that
 * does not exist, a container it does not have and a container that is not running.
 */
export async function resolveShellTarget(
  kube: KubeClient,
  o: { namespace: string; pod: string; container?: string; shell?: ShellKind; tty: boolean },
  signal?: AbortSignal,
): Promise<ShellTarget> {
  let pod: PodView | undefined;
  try {
    pod = await getOrUndefined<PodView>(kube, `/api/v1/namespaces/${enc(o.namespace)}/pods/${enc(o.pod)}`, signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 403)
      throw new ContainerShellError(
        'forbidden',
        `You may not read the pod ${o.namespace}/${o.pod} (403 Forbidden: ${err.body?.message ?? 'forbidden'}).`,
      );
    throw err;
  }
  if (!pod) throw new ContainerShellError('not-found', `There is no pod "${o.pod}" in namespace "${o.namespace}".`);
  const containers = pod.spec?.containers ?? [];
  const name = o.container ?? pod.metadata.annotations?.[DEFAULT_CONTAINER_ANNOTATION] ?? containers[0]?.name;
  const spec = containers.find((c) => c.name === name);
  if (!name || !spec)
    throw new ContainerShellError(
      'no-container',
      `The pod ${o.namespace}/${o.pod} has no container "${name ?? ''}" (it has: ${containers.map((c) => c.name).join(', ') || 'none'}).`,
    );
  const state = pod.status?.containerStatuses?.find((c) => c.name === name)?.state;
  if (!state?.running) {
    const why = state?.waiting
      ? `waiting: ${state.waiting.reason ?? ''}${state.waiting.message ? ` (${state.waiting.message})` : ''}`
      : state?.terminated
        ? `terminated: ${state.terminated.reason ?? ''}${state.terminated.exitCode !== undefined ? `, exit code ${state.terminated.exitCode}` : ''}`
        : `the pod is ${pod.status?.phase ?? 'Pending'}`;
    throw new ContainerShellError(
      'not-running',
      `The container ${name} of ${o.namespace}/${o.pod} is not running (${why}), so there is no shell to open in it.`,
    );
  }
  const nodeName = pod.spec?.nodeName;
  let os = pod.spec?.os?.name;
  if (!os && nodeName) {
    try {
      os = (await getOrUndefined<NodeObject>(kube, nodePath(nodeName), signal))?.metadata.labels?.[OS_LABEL];
    } catch {
      // Reading nodes is often not allowed to those who may exec: the image and selector decide then.
    }
  }
  os ??= pod.spec?.nodeSelector?.[OS_LABEL];
  const image = spec.image ?? '';
  const choice = chooseShell({ ...(os ? { os } : {}), image, ...(o.shell ? { override: o.shell } : {}), tty: o.tty });
  return {
    namespace: o.namespace,
    pod: o.pod,
    container: name,
    command: choice.command,
    choice,
    image,
    ...(os ? { os } : {}),
    ...(nodeName ? { node: nodeName } : {}),
  };
}

export interface ContainerShellOptions extends ExecIo {
  kube: KubeClient;
  config: KubeConfig;
  namespace: string;
  pod: string;
  container?: string;
  shell?: ShellKind;
  signal?: AbortSignal;
}

/**
 * Opens the shell a container can run (the VS Code terminal's "Shell" on a pod item, and
 * `kube-windows shell`): resolves the target, then execs it. The session's end carries the
 * shell's exit code.
 */
export async function openContainerShell(
  o: ContainerShellOptions,
): Promise<InteractiveSession & { target: ShellTarget }> {
  const target = await resolveShellTarget(
    o.kube,
    {
      namespace: o.namespace,
      pod: o.pod,
      tty: o.tty,
      ...(o.container ? { container: o.container } : {}),
      ...(o.shell ? { shell: o.shell } : {}),
    },
    o.signal,
  );
  o.signal?.throwIfAborted();
  const hub = sessionHub(
    `${target.namespace}/${target.pod} (${target.container}, ${target.choice.shell})`,
    () => undefined,
  );
  const session = await execOnHub(o.config, target, o, hub);
  return { ...session, target };
}
