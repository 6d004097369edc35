// Shared types of the Kubernetes API emulator (a test double; never import from src/).

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
};

export interface DenyRule {
  verb: string;
  resource: string;
  namespace?: string;
}

export interface EmulatorOptions {
  /** Initial objects (any supported kind), e.g. from the kube-seed helpers. */
  objects?: KubeObject[];
  /** Extra bearer tokens; deny rules make matching requests fail with 403. */
  tokens?: Record<string, { user: string; deny?: DenyRule[] }>;
  latencyMs?: number;
  /** Serve config.openshift.io and operators.coreos.com. Default: true when any seeded object belongs to them. */
  openshift?: boolean;
  /** Serve Calico's operator API (operator.tigera.io) even before an Installation exists. */
  tigera?: boolean;
  /** Interval between BOOKMARK events on watches that asked for them (default 5000 ms; the real server uses about a minute). */
  bookmarkIntervalMs?: number;
  /** What runs in a container for pods/exec (the kubelet and the runtime); default: a small scripted shell (see server.ts). */
  exec?: (session: ExecSession) => void;
}

/** One pods/exec session as the emulator saw it (the upgrade request and what went over the channels). */
export interface ExecRecord {
  path: string;
  /** The raw query string: command=...&container=...&stdin=true&stdout=true&tty=true */
  query: string;
  /** The subprotocol agreed (v5.channel.k8s.io ...). */
  protocol: string;
  /** The subprotocols the client offered, in its order. */
  offered: string[];
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  tty: boolean;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** Everything received on channel 0. */
  input: string;
  /** Channel 4 messages. */
  resizes: { Width: number; Height: number }[];
  /** The client closed stdin (v5 close signal on channel 255). */
  stdinClosed: boolean;
  /** The exit code sent on channel 3, once the command ended. */
  exitCode?: number;
}

/** What a container's command sees of an exec session. */
export interface ExecSession {
  record: ExecRecord;
  /** The container's image (from the pod spec). */
  image: string;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Ends the command with this exit code (status on channel 3, then the socket closes). */
  exit(code: number): void;
  /** Ends the exec with a failure status that is not an exit code (the runtime could not start the command). */
  fail(message: string): void;
  onInput(listener: (text: string) => void): void;
  onStdinClosed(listener: () => void): void;
}

export interface Fault {
  path?: RegExp;
  /** Answer with this status (a Status body, as the real server's). */
  status?: number;
  /** Retry-After of a 429 or 503 (seconds; the real server's default for 429 is 1). */
  retryAfterSeconds?: number;
  hangMs?: number;
  dropConnection?: boolean;
  /** Serve the real answer but close the connection halfway through its body (Content-Length promised). */
  truncateBody?: boolean;
  /** Serve the real answer in small pieces spread over this many milliseconds. */
  slowBodyMs?: number;
  /** A watch is accepted (200, headers sent) and then nothing comes: no event, no bookmark, no close. */
  silentWatch?: boolean;
  /** Fires for the first N matching requests only, then the emulator answers normally again. */
  times?: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: string;
  status: number;
  bytes: number;
  user?: string;
}

/** A change in the emulator's store (objects are copies). */
export interface EmulatorEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  /** The object before a MODIFIED event. */
  old?: KubeObject;
}

export interface Emulator {
  url: string;
  caPem: string;
  token: string;
  kubeconfig(opts?: { token?: string; context?: string; file?: string }): string;
  requests: RequestLogEntry[];
  /** Every pods/exec session, in order. */
  execs: ExecRecord[];
  /** The text pods/log serves for a container (default: none, an empty log); `previous`: its last terminated instance's. */
  setPodLog(namespace: string, pod: string, container: string, text: string, previous?: boolean): void;
  /** Adds text to a container's log; open `follow=true` reads get it at once. */
  appendPodLog(namespace: string, pod: string, container: string, text: string): void;
  apply(obj: KubeObject): KubeObject;
  /** What GET /version answers from now on (gitVersion vX.Y.Z; major and minor follow). */
  setVersion(gitVersion: string): void;
  /** One object (kind as for resourceByKind: 'Network.operator.openshift.io' for the operator's Network). */
  get(kind: string, name: string, namespace?: string): KubeObject | undefined;
  patch(kind: string, name: string, namespace: string | undefined, patch: unknown): KubeObject;
  remove(kind: string, name: string, namespace?: string): void;
  list(kind: string): KubeObject[];
  setFault(f: Fault | undefined): void;
  setLatency(ms: number): void;
  compact(): void;
  /** Watch streams open now (the API server's apiserver_longrunning_requests for watches). */
  openWatches(): number;
  /** Ends every open watch stream as the server does at a watch's timeout (the clients resume them); returns how many. */
  endWatches(): number;
  /** Calls listener after every change (asynchronously, in order); returns the unsubscribe function. */
  onChange(listener: (ev: EmulatorEvent) => void): () => void;
  stop(): Promise<void>;
}
