// List, then watch from the list's resourceVersion, as the API server expects of a client that keeps
// a view of some objects: bookmarks keep the version fresh, a watch the server ends at its timeout is
// resumed from the last version seen, and only 410 Gone (the version was compacted away; an HTTP 410
// or an ERROR event with code 410) makes it list again. Failures back off (doubling up to 30 s).
// The Windows node model and each node's pod watch are built on it; what they keep is theirs.
import { listPaged } from './api';
import type { KubeClient, Query, WatchHandle } from './kube-client';
import { ApiError } from './errors';

export interface ListWatchSpec {
  /** The collection, e.g. /api/v1/pods. */
  path: string;
  /** labelSelector and fieldSelector: the same for the list and the watch. */
  selector: Query;
  /** Objects per list page (limit/continue); without it, one list request. */
  pageSize?: number;
  /** Seconds the server keeps one watch open before we resume it. Default 300. */
  watchTimeoutSeconds?: number;
  /** First retry delay after a failure; doubles up to 30 s. Default 1000. */
  retryMs?: number;
}

export interface ListWatchHandlers<T> {
  /** A complete list (the first, or after 410 Gone): these objects are all there is. */
  listed(items: T[]): void;
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
  /** A list or watch failed; it is retried. */
  failed(err: unknown): void;
  /** The watch works again after a failure. */
  recovered(): void;
}

type Versioned = { metadata?: { resourceVersion?: string } };

export class ListWatch<T extends Versioned> {
  private resourceVersion = '';
  private handle: WatchHandle | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private failing = false;
  private started: Promise<void> | undefined;
  private halted = false;
  /** Number of complete lists made (1 after start, +1 per 410 Gone). */
  lists = 0;

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
    try {
      const list = await listPaged<T>(this.client, this.spec.path, this.spec.selector, undefined, this.spec.pageSize);
      if (this.stopped) return;
      this.lists++;
      this.failing = false;
      this.retryDelay = this.spec.retryMs ?? 1000;
      this.resourceVersion = list.resourceVersion;
      this.on.listed(list.items);
      this.watch();
    } catch (err) {
      if (this.stopped) return;
      this.fail(err);
      this.retry(() => this.list());
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
    let gone = false;
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
            if ((event.object as { code?: number }).code === 410) gone = true;
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
        } else if (err) {
          this.fail(err);
          this.retry(() => this.watch());
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
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, 30_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) void fn();
    }, delay);
    this.retryTimer.unref?.();
  }
}
