// The one way to open a cluster: kubeconfig + context -> a KubeClient, for the CLI, the VS Code
// commands and the cluster tree alike. How long a request may go unanswered and how the cluster's CA
// is read are decided here, once; a kubeconfig, context, CA file or timeout that cannot be used is a
// ClusterOpenError, worded for the user.
import { readFileSync } from 'node:fs';
import { UserError } from '../core/user-error';
import { KubeClient } from './kube-client';
import { configForContext, loadKubeconfig, type KubeConfig, type LocateOptions } from './kubeconfig';

/**
 * A command's wait for one API request (headers and body of a list; headers of a watch), unless the environment says
 * otherwise.
 */
const COMMAND_TIMEOUT_MS = 60_000;
/** A view's wait (the cluster tree): a tree waiting a minute on a dead cluster looks broken. */
const VIEW_TIMEOUT_MS = 15_000;
/**
 * Seconds a command waits for one API request, for the CLI and the VS Code commands (the extension host inherits it).
 */
const REQUEST_TIMEOUT_ENV = 'KUBE_WINDOWS_REQUEST_TIMEOUT';

/** The kubeconfig, the context, its CA file or the timeout cannot be used: the message says which and why. */
export class ClusterOpenError extends UserError {
  override name = 'ClusterOpenError';
}

export interface OpenClusterOptions {
  context: string;
  /** Where the kubeconfig is (--kubeconfig, the kubeWindows.kubeconfig setting; else kubectl's rules). */
  locate?: LocateOptions;
  /** A kubeconfig already loaded (the tree's, reloaded when its files change): `locate` is not read then. */
  config?: KubeConfig;
  /** 'command' (default): COMMAND_TIMEOUT_MS, or KUBE_WINDOWS_REQUEST_TIMEOUT; 'view': VIEW_TIMEOUT_MS. */
  use?: 'command' | 'view';
  /** The caller's own wait, over both (tests; a caller that must give up sooner). */
  timeoutMs?: number;
  /** Read the cluster's CA (kubeadm discovery pins it); a CA file that cannot be read is a ClusterOpenError. */
  readCa?: boolean;
  env?: Record<string, string | undefined>;
}

export interface OpenedCluster {
  context: string;
  kube: KubeClient;
  /** The kubeconfig with `context` as its current context (pods/exec over WebSocket). */
  config: KubeConfig;
  /** The cluster's CA as PEM, when asked for and the kubeconfig names one. */
  caPem?: string;
  /** The context's namespace, if the kubeconfig sets one (kubectl's default for -n). */
  namespace?: string;
}

/** The cluster of `context`: the kubeconfig loaded (or the one given), the context checked, the client made. */
export function openCluster(options: OpenClusterOptions): OpenedCluster {
  const { context } = options;
  let config = options.config;
  if (!config) {
    const loaded = loadKubeconfig(options.locate);
    if (!loaded.ok) throw new ClusterOpenError(loaded.message);
    config = loaded.config;
  }
  if (!config.getContextObject(context)) {
    throw new ClusterOpenError(
      `the kubeconfig has no context "${context}" (it has: ${
        config
          .getContexts()
          .map((c) => c.name)
          .join(', ') || 'none'
      })`,
    );
  }
  const forContext = configForContext(config, context);
  const caPem = options.readCa ? readCa(forContext, context) : undefined;
  const kube = new KubeClient(forContext, { timeoutMs: requestTimeoutMs(options) });
  const namespace = config.getContextObject(context)?.namespace;
  return { context, kube, config: forContext, ...(caPem ? { caPem } : {}), ...(namespace ? { namespace } : {}) };
}

/**
 * openCluster's client for a kubeconfig already loaded and a context already chosen, unchecked: a
 * session of the tree is made for a listed context, and fails on its first request otherwise.
 */
export function contextClient(
  config: KubeConfig,
  context: string,
  options: Pick<OpenClusterOptions, 'use' | 'timeoutMs' | 'env'> = {},
): KubeClient {
  return new KubeClient(configForContext(config, context), { timeoutMs: requestTimeoutMs(options) });
}

/** The wait for one request: the caller's, else the view's, else the environment's or a minute. */
function requestTimeoutMs(options: Pick<OpenClusterOptions, 'use' | 'timeoutMs' | 'env'> = {}): number {
  if (options.timeoutMs !== undefined) return options.timeoutMs;
  if (options.use === 'view') return VIEW_TIMEOUT_MS;
  const raw = (options.env ?? process.env)[REQUEST_TIMEOUT_ENV];
  if (raw === undefined || raw === '') return COMMAND_TIMEOUT_MS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new ClusterOpenError(`${REQUEST_TIMEOUT_ENV} must be a positive number of seconds (it is "${raw}")`);
  return Math.round(seconds * 1000);
}

/** The CA of the context's cluster: certificate-authority-data, else the certificate-authority file. */
function readCa(config: KubeConfig, context: string): string | undefined {
  const cluster = config.getCurrentCluster();
  if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (!cluster?.caFile) return undefined;
  try {
    return readFileSync(cluster.caFile, 'utf8');
  } catch (err) {
    throw new ClusterOpenError(
      `cannot read the certificate-authority file ${cluster.caFile} of context "${context}" (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}
