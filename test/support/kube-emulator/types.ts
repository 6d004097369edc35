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
  /** Interval between BOOKMARK events on watches that asked for them (default 5000 ms; the real server uses about a minute). */
  bookmarkIntervalMs?: number;
}

export interface Fault {
  path?: RegExp;
  status?: number;
  hangMs?: number;
  dropConnection?: boolean;
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
  apply(obj: KubeObject): KubeObject;
  /** One object (kind as for resourceByKind: 'Network.operator.openshift.io' for the operator's Network). */
  get(kind: string, name: string, namespace?: string): KubeObject | undefined;
  patch(kind: string, name: string, namespace: string | undefined, patch: unknown): KubeObject;
  remove(kind: string, name: string, namespace?: string): void;
  list(kind: string): KubeObject[];
  setFault(f: Fault | undefined): void;
  setLatency(ms: number): void;
  compact(): void;
  /** Calls listener after every change (asynchronously, in order); returns the unsubscribe function. */
  onChange(listener: (ev: EmulatorEvent) => void): () => void;
  stop(): Promise<void>;
}
