// The connections of one cluster client: keep-alive agents, so that a tree expanding a cluster (a
// dozen requests) or refreshing it does not pay a TCP and TLS handshake per request, which is what
// made 20 clusters expanded at once take seconds. Two socket budgets: short requests (lists, gets,
// writes) share a few sockets; long ones (watches, followed logs) get one each, so open watches can
// never hold the sockets a list waits for. Each client has its own agents: nothing one cluster does
// (a never-answering address, a slow server) queues another's requests. The agents follow the TLS
// material the kubeconfig gives (CA, client certificate and key, server name): when it changes (a
// rotated certificate, an exec plugin's new one) the old connections are closed and new ones made.
import type { KubeConfig } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext } from 'node:tls';

/** Sockets a client keeps for short requests: more than a cluster's first rows ask at once (about 5). */
const SHORT_SOCKETS = 8;
/**
 * How long an idle socket is kept. Below the idle timeouts servers and load balancers commonly use (a Node server
 * says 5 s in its Keep-Alive header, which Node's agent honours; kube-apiserver closes after 90 s), so that a request
 * rarely meets a socket the server is closing; one that does is sent again on a new one (KubeClient).
 */
const IDLE_MS = 15_000;

export type Budget = 'short' | 'long';

/** The TLS options the kubeconfig gives that decide which connection may carry a request. */
const TLS_KEYS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

export class ClusterConnections {
  private agents: { fingerprint: string; short: http.Agent; long: http.Agent } | undefined;
  private closed = false;

  constructor(private readonly config: KubeConfig) {}

  /**
   * Headers and the agent for one request of `budget`, from the kubeconfig as it is now (a token or a certificate
   * an exec plugin renews is read each time; the library keeps its own cache of them).
   */
  async requestOptions(url: URL, budget: Budget): Promise<https.RequestOptions> {
    const opts: https.RequestOptions = {};
    await this.config.applyToHTTPSOptions(opts);
    // Closed (a disposed session still answering a read in flight): a connection of its own, kept by nobody.
    if (this.closed) return opts;
    const proxied = this.config.getCurrentCluster()?.proxyUrl;
    const fingerprint = tlsFingerprint(opts, proxied);
    if (this.agents?.fingerprint !== fingerprint) {
      this.retireAgents();
      if (proxied) {
        // Through a proxy, the library's own agent (HTTP CONNECT or SOCKS), kept while the TLS material holds.
        if (!(opts.agent instanceof http.Agent)) return opts;
        this.agents = { fingerprint, short: opts.agent, long: opts.agent };
      } else {
        this.agents = { fingerprint, ...this.makeAgents(url, opts) };
      }
    }
    const agent = budget === 'short' ? this.agents.short : this.agents.long;
    return { ...opts, agent };
  }

  /** Later requests open new connections; idle ones close now, busy ones once their answer is read. */
  reset(): void {
    this.retireAgents();
  }

  /** Closes every connection for good (the session is gone). */
  close(): void {
    this.closed = true;
    this.destroyAgents();
  }

  /** Sockets open now, by budget (tests, the bench). */
  get openSockets(): { short: number; long: number } {
    const count = (agent: http.Agent | undefined): number =>
      agent
        ? [...Object.values(agent.sockets), ...Object.values(agent.freeSockets)].reduce(
            (n, list) => n + (list?.length ?? 0),
            0,
          )
        : 0;
    return { short: count(this.agents?.short), long: count(this.agents?.long) };
  }

  private makeAgents(url: URL, opts: https.RequestOptions): { short: http.Agent; long: http.Agent } {
    const common = { keepAlive: true, timeout: IDLE_MS, scheduling: 'lifo' as const };
    if (url.protocol === 'http:')
      return {
        short: new http.Agent({ ...common, maxSockets: SHORT_SOCKETS }),
        long: new http.Agent(common),
      };
    // One secure context (the CA parsed, the key loaded) for every connection, and one TLS session shared by
    // both budgets: a new connection resumes it instead of a full handshake.
    const tlsOptions = Object.fromEntries(TLS_KEYS.filter((k) => opts[k] !== undefined).map((k) => [k, opts[k]]));
    const shared: SharedTls = { secureContext: createSecureContext(tlsOptions) };
    // Long requests hold their socket for minutes: one each, however many the tree shows, and each kept when its
    // watch ends (the server ends them all at once at a restart), for the watch that resumes it.
    return {
      short: new ClusterAgent(shared, { ...tlsOptions, ...common, maxSockets: SHORT_SOCKETS }),
      long: new ClusterAgent(shared, { ...tlsOptions, ...common }),
    };
  }

  private destroyAgents(): void {
    destroy(this.agents);
    this.agents = undefined;
  }

  /** A request under way on the old connections still gets its answer (a retry must not fail the try before it). */
  private retireAgents(): void {
    for (const agent of new Set([this.agents?.short, this.agents?.long])) {
      if (!agent) continue;
      // Node's agent closes a socket whose request ended when its keepAlive is off.
      (agent as { keepAlive?: boolean }).keepAlive = false;
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    }
    this.agents = undefined;
  }
}

interface SharedTls {
  secureContext: SecureContext;
  session?: Buffer;
}

/** An agent whose connections use the client's one secure context and resume its latest TLS session. */
class ClusterAgent extends https.Agent {
  constructor(
    private readonly shared: SharedTls,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(
    options: http.ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const session = this.shared.session;
    const withShared = { ...options, secureContext: this.shared.secureContext, ...(session ? { session } : {}) };
    const socket = super.createConnection(withShared, callback);
    socket?.on('session', (s: Buffer) => void (this.shared.session = s));
    return socket;
  }
}

function destroy(agents: { short: http.Agent; long: http.Agent } | undefined): void {
  if (!agents) return;
  agents.short.destroy();
  if (agents.long !== agents.short) agents.long.destroy();
}

/** A digest of the TLS material (never the material itself: it holds a private key). */
function tlsFingerprint(opts: https.RequestOptions, proxyUrl: string | undefined): string {
  const hash = createHash('sha256');
  for (const key of TLS_KEYS) {
    const value = opts[key];
    hash.update(`${key}=`);
    if (value === undefined) hash.update('-');
    else if (Buffer.isBuffer(value) || typeof value === 'string') hash.update(value);
    else hash.update(JSON.stringify(value));
    hash.update('\0');
  }
  hash.update(`proxy=${proxyUrl ?? ''}`);
  return hash.digest('hex');
}
