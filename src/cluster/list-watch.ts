// List, then watch from the list's resourceVersion, as the API server expects of a client that keeps
// a view of some objects: bookmarks keep the version fresh and a watch the server ends at its timeout
// is resumed from the last version seen. Anything else lists again: 410 Gone (the version was
// compacted away; an HTTP 410 or an ERROR event with code 410) at once, and a failure (the server
// went away) after a back-off, because the server that answers next may have restarted on other data
// (a fresh etcd restarts resourceVersions: an old version is then "too large", and a watch from it
// would wait silently while objects are created under the versions it skips). Back-off doubles from
// `retryMs` up to `maxRetryMs` with jitter, so that many clients do not come back in step and a server
// that answers again is seen within a few seconds. The Windows node model, each node's pod watch and
// every watched collection are built on it; what they keep is theirs.
import { listPaged } from './api';
import type { KubeClient, Query, WatchHandle } from './kube-client';
import { ApiError, classifyError, type ClusterErrorItem, type ErrorContext } from './errors';

/**
 * A list-watch's failure as the views show it: one that a retry can cure (the server is away, restarts,
 * answers 5xx) is "reconnecting"; credentials, permissions and TLS need the user and read as they are.
 */
export function watchFailure(err: unknown, ctx: ErrorContext & { what: string }): ClusterErrorItem {
  const e = classifyError(err, ctx);
  return ['unreachable', 'timeout', 'server', 'notFound', 'other'].includes(e.reason)
    ? { ...e, reconnecting: true }
    : e;
}

export interface ListWatchSpec {
  /** The collection, e.g. /api/v1/pods. */
  path: string;
  /** labelSelector and fieldSelector: the same for the list and the watch. */
  selector: Query;
  /** Objects per list page (limit/continue); without it, one list request. */
  pageSize?: number;
  /** Seconds the server keeps one watch open before we resume it. Default 300. */
  watchTimeoutSeconds?: number;
  /** First retry delay after a failure; doubles up to `maxRetryMs`. Default 1000. */
  retryMs?: number;
  /** The longest retry delay (before jitter takes up to half of it off). Default 3000. */
  maxRetryMs?: number;
}

/** The longest wait between two attempts: a server that answers again is seen within this (plus one list). */
const MAX_RETRY_MS = 3000;

export interface ListWatchHandlers<T> {
  /** A complete list (the first, or after 410 Gone): these objects are all there is. */
  listed(items: T[]): void;
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
  /** A list or watch failed; it is retried (a list again, after a back-off). */
  failed(err: unknown): void;
  /** The watch works again after a failure without a list (a list after a failure calls `listed`). */
  recovered(): void;
}

type Versioned = { metadata?: { resourceVersion?: string } };

export class ListWatch<T extends Versioned> {
  private resourceVersion = '';
  private handle: WatchHandle | undefined;
  private listing = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private failing = false;
  private started: Promise<void> | undefined;
  private halted = false;
  /** Number of complete lists made (1 after start, +1 per 410 Gone or recovery from a failure). */
  lists = 0;
  /** Number of watch requests made (each resumed or restarted watch counts). */
  watches = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly spec: ListWatchSpec,
    private readonly on: ListWatchHandlers<T>,
  ) {
    this.retryDelay = spec.retryMs ?? 1000;
  }

  /** Resolves after the first list, or its failure (then reported through `failed` and retried). */
  start(): Promise<void> {
    this.started ??= this.list();
    return this.started;
  }

  get stopped(): boolean {
    return this.halted;
  }

  stop(): void {
    this.halted = true;
    this.handle?.stop();
    this.handle = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  private async list(): Promise<void> {
    if (this.listing || this.stopped) return;
    this.listing = true;
    try {
      // A list without resourceVersion is a consistent read: whatever the server restarted on, this is all there is.
      const list = await listPaged<T>(this.client, this.spec.path, this.spec.selector, undefined, this.spec.pageSize);
      if (this.stopped) return;
      this.lists++;
      // Still failing (and backing off) until the watch opens: a server that lists but refuses watches is not well.
      this.resourceVersion = list.resourceVersion;
      this.on.listed(list.items);
      this.watch();
    } catch (err) {
      if (this.stopped) return;
      this.fail(err);
      this.retry(() => this.list());
    } finally {
      this.listing = false;
    }
  }

  private watch(): void {
    if (this.stopped) return;
    const timeoutSeconds = this.spec.watchTimeoutSeconds ?? 300;
    const query = {
      ...this.spec.selector,
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds,
    };
    // Set by an ERROR event: 410 Gone (list again at once), or another refusal such as "Too large resource
    // version" (a failure: list again after a back-off).
    let gone = false;
    let refused: ApiError | undefined;
    this.watches++;
    const working = () => {
      this.retryDelay = this.spec.retryMs ?? 1000;
      if (!this.failing) return;
      this.failing = false;
      this.on.recovered();
    };
    this.handle = this.client.watch<T>(
      this.spec.path,
      query,
      (event) => {
        switch (event.type) {
          case 'ADDED':
          case 'MODIFIED':
          case 'DELETED':
            this.on.event(event.type, event.object);
            break;
          case 'BOOKMARK':
            break;
          case 'ERROR': {
            const status = event.object as { code?: number; reason?: string };
            if (status.code === 410) gone = true;
            else refused ??= new ApiError(status.code ?? 500, status.reason ?? 'Error', this.spec.path, status);
            return;
          }
        }
        const rv = event.object?.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        working();
      },
      (err) => {
        this.handle = undefined;
        if (this.stopped) return;
        if (gone || (err instanceof ApiError && err.status === 410)) {
          void this.list();
        } else if (err || refused) {
          this.fail(err ?? refused);
          this.retry(() => this.list());
        } else {
          this.watch(); // the server closed a watch at its timeout: resume from the last version
        }
      },
      // A connection that went silent (no event, no bookmark, no close at the timeout) is dead.
      (timeoutSeconds + 60) * 1000,
      working,
    );
  }

  private fail(err: unknown): void {
    this.failing = true;
    this.on.failed(err);
  }

  private retry(fn: () => void | Promise<void>): void {
    if (this.stopped) return;
    // Jitter: half to all of the delay, so that the clients of a restarted server spread out.
    const delay = Math.round(this.retryDelay * (0.5 + Math.random() / 2));
    this.retryDelay = Math.min(this.retryDelay * 2, this.spec.maxRetryMs ?? MAX_RETRY_MS);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) void fn();
    }, delay);
    this.retryTimer.unref?.();
  }
}
