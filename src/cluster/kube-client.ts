// A small JSON client over the context's kubeconfig: @kubernetes/client-node does the authentication
// (tokens, client certificates, exec plugins, CA), node:https carries requests with a timeout we control,
// and non-2xx answers become ApiError with the server's Status message.
import type { KubeConfig } from '@kubernetes/client-node';
import * as http from 'node:http';
import * as https from 'node:https';
import { delay } from '../core/delay';
import { ApiError, ExecPluginError, MalformedAnswerError, RequestTimeoutError } from './errors';

export type Query = Record<string, string | number | boolean | undefined>;

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface WatchHandle {
  stop(): void;
}

export interface ClientOptions {
  /**
   * Time to wait for an answer (headers and body of a list; headers of a watch). openCluster (open.ts) decides it; one
   * minute here for a client made directly (tests).
   */
  timeoutMs?: number;
  /** Further attempts of a read the server asked to repeat later (429, 503). Default 3. */
  retries?: number;
  /** First wait between attempts when the server names none; doubled each time. Default 1 s. */
  backoffMs?: number;
}

/** The longest Retry-After honoured: a server asking for more gets the error now, not a frozen command. */
const MAX_RETRY_AFTER_MS = 30_000;

export class KubeClient {
  readonly server: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;

  constructor(
    private readonly config: KubeConfig,
    options: ClientOptions = {},
  ) {
    this.server = (config.getCurrentCluster()?.server ?? '').replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 1000;
  }

  /** The kubeconfig (context, user, cluster) this client speaks with: for pods/exec over WebSocket. */
  get kubeConfig(): KubeConfig {
    return this.config;
  }

  /** The namespace the context names, if any (kubectl's default for namespaced commands). */
  get contextNamespace(): string | undefined {
    return this.config.getContextObject(this.config.getCurrentContext())?.namespace || undefined;
  }

  /** GET a path and parse the JSON answer. */
  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, { query, signal });
  }

  /** POST a new object (the path is the collection). */
  create<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>('POST', path, { body, signal });
  }

  /** PUT a whole object (or a subresource such as a CSR's approval). */
  replace<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>('PUT', path, { body, signal });
  }

  /** PATCH with a JSON merge patch (RFC 7386) by default, or a JSON patch (RFC 6902). */
  patch<T>(path: string, body: unknown, kind: 'merge' | 'json' = 'merge', signal?: AbortSignal): Promise<T> {
    const contentType = kind === 'merge' ? 'application/merge-patch+json' : 'application/json-patch+json';
    return this.request<T>('PATCH', path, { body, contentType, signal });
  }

  /** DELETE an object; resolves to undefined when it did not exist. */
  async delete(path: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.request<unknown>('DELETE', path, { signal });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return;
      throw err;
    }
  }

  /**
   * One request with a JSON answer; non-2xx answers reject with ApiError. A GET the server refused
   * for now (429 Too Many Requests, 503) is repeated a few times after its Retry-After, or after a
   * doubling wait; writes are never repeated here (the caller knows whether one is safe to repeat).
   */
  async request<T>(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; contentType?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(method, path, options);
      } catch (err) {
        const wait =
          method === 'GET' && attempt < this.retries ? retryDelay(err, this.backoffMs * 2 ** attempt) : undefined;
        if (wait === undefined) throw err;
        await delay(wait, options.signal);
      }
    }
  }

  private async once<T>(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; contentType?: string; signal?: AbortSignal },
  ): Promise<T> {
    const url = this.url(path, options.query);
    const opts = await this.requestOptions();
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body), 'utf8');
    const headers: http.OutgoingHttpHeaders = {
      ...(opts.headers as http.OutgoingHttpHeaders | undefined),
      Accept: 'application/json',
    };
    if (payload) {
      headers['Content-Type'] = options.contentType ?? 'application/json';
      headers['Content-Length'] = payload.length;
    }
    const signal = options.signal;
    return new Promise<T>((resolveP, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const req = this.transport(url).request(url, { ...opts, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        // A body cut off mid-way: the timer goes too, or it would hold the process until the timeout.
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(
              new ApiError(
                status,
                res.statusMessage ?? '',
                path,
                parseJson(text),
                retryAfterMs(res.headers['retry-after']),
              ),
            );
            return;
          }
          try {
            resolveP((text ? JSON.parse(text) : undefined) as T);
          } catch {
            reject(new MalformedAnswerError(this.server, path));
          }
        });
      });
      const timer = this.guard(req, reject, signal);
      req.end(payload);
    });
  }

  /**
   * GET a path whose answer is not JSON (logs, node proxy): resolves once the headers are in, with
   * the status and the body as a stream (any status: the caller reads refusals itself). The timeout
   * covers the wait for the headers; `signal` ends the request at any time.
   */
  async stream(
    path: string,
    query?: Query,
    signal?: AbortSignal,
    method: 'GET' | 'HEAD' = 'GET',
  ): Promise<http.IncomingMessage> {
    const url = this.url(path, query);
    const opts = await this.requestOptions();
    const headers: http.OutgoingHttpHeaders = {
      ...(opts.headers as http.OutgoingHttpHeaders | undefined),
      Accept: '*/*',
    };
    return new Promise<http.IncomingMessage>((resolveP, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const req = this.transport(url).request(url, { ...opts, method, headers }, (res) => {
        clearTimeout(timer);
        resolveP(res);
      });
      const timer = this.guard(req, reject, signal);
      req.end();
    });
  }

  /**
   * Opens a watch; `onEvent` gets each event, `onDone` the end (undefined for a clean close by the server,
   * an error otherwise; an HTTP 410 comes as ApiError status 410). `onDone` is called once.
   * `idleMs` > 0 ends a watch that received nothing for that long. `onOpen` is called when the server
   * accepted the watch (200, before any event).
   */
  watch<T>(
    path: string,
    query: Query,
    onEvent: (e: WatchEvent<T>) => void,
    onDone: (err?: unknown) => void,
    idleMs = 0,
    onOpen?: () => void,
  ): WatchHandle {
    let req: http.ClientRequest | undefined;
    let finished = false;
    const done = (err?: unknown) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      onDone(err);
    };
    let timer: NodeJS.Timeout | undefined;
    const url = this.url(path, { ...query, watch: true });
    this.requestOptions().then(
      (opts) => {
        if (finished) return;
        req = this.transport(url).request(
          url,
          { ...opts, method: 'GET', headers: { ...opts.headers, Accept: 'application/json' } },
          (res) => {
            clearTimeout(timer);
            const status = res.statusCode ?? 0;
            if (status !== 200) {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () =>
                done(
                  new ApiError(
                    status,
                    res.statusMessage ?? '',
                    path,
                    parseJson(Buffer.concat(chunks).toString('utf8')),
                  ),
                ),
              );
              res.on('error', done);
              return;
            }
            if (!finished) onOpen?.();
            // A connection that went silent (no event, no bookmark, no server close) is dead: end it.
            if (idleMs > 0) req?.setTimeout(idleMs, () => req?.destroy(new RequestTimeoutError(this.server, idleMs)));
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buffer += chunk;
              let nl: number;
              while ((nl = buffer.indexOf('\n')) >= 0) {
                const line = buffer.slice(0, nl).trim();
                buffer = buffer.slice(nl + 1);
                if (!line) continue;
                const event = parseJson<WatchEvent<T>>(line);
                if (event && typeof event.type === 'string' && !finished) onEvent(event);
              }
            });
            res.on('end', () => done());
            res.on('close', () => done());
            res.on('error', (err) => done(err));
          },
        );
        timer = setTimeout(() => req?.destroy(new RequestTimeoutError(this.server, this.timeoutMs)), this.timeoutMs);
        req.on('error', (err) => done(finished ? undefined : err));
        req.end();
      },
      (err) => done(err),
    );
    return {
      stop: () => {
        finished = true;
        clearTimeout(timer);
        req?.destroy();
      },
    };
  }

  /**
   * The timeout (until the answer's headers; the caller clears the returned timer then), errors to
   * `reject`, and `signal` ending the request; the abort listener is removed when the request
   * settles: a plan polls many times under one signal, and listeners left behind would pile up.
   */
  private guard(
    req: http.ClientRequest,
    reject: (err: unknown) => void,
    signal: AbortSignal | undefined,
  ): NodeJS.Timeout {
    const timer = setTimeout(() => req.destroy(new RequestTimeoutError(this.server, this.timeoutMs)), this.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    const onAbort = (): void =>
      void req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', onAbort));
    return timer;
  }

  private url(path: string, query?: Query): URL {
    const url = new URL(this.server + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private transport(url: URL): typeof https | typeof http {
    return url.protocol === 'http:' ? http : https;
  }

  /** Headers and TLS agent for the current user; exec plugin failures become ExecPluginError. */
  private async requestOptions(): Promise<https.RequestOptions> {
    const opts: https.RequestOptions = {};
    try {
      await this.config.applyToHTTPSOptions(opts);
    } catch (err) {
      const exec = this.config.getCurrentUser()?.exec as { command?: string } | undefined;
      if (exec?.command) throw new ExecPluginError(exec.command, err);
      throw err;
    }
    if (this.server.startsWith('http:')) delete opts.agent;
    return opts;
  }
}

/** How long to wait before repeating a read that failed with `err`, or undefined when it is not worth repeating. */
function retryDelay(err: unknown, backoff: number): number | undefined {
  if (!(err instanceof ApiError) || (err.status !== 429 && err.status !== 503)) return undefined;
  const asked = err.retryAfterMs ?? backoff;
  return asked > MAX_RETRY_AFTER_MS ? undefined : asked;
}

/** Retry-After in seconds (the form the API server sends); an HTTP date is read too. */
function retryAfterMs(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function parseJson<T = ApiError['body']>(text: string): T | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as T) : undefined;
  } catch {
    return undefined;
  }
}
