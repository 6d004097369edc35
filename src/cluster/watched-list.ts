// A collection the explorer shows, kept current by list+watch (list-watch.ts): the objects by namespace
// and name, a change event on every added, modified or deleted one, the last failure as an error item
// (retried by the list-watch, shown as "reconnecting"), and "not served" when the API answers 404 to the
// first list (then nothing more is asked).
// What a row says is derived from these objects when the tree asks, so a summary and its rows read the
// same state.
import { EventEmitter } from 'node:events';
import { ApiError, type ClusterErrorItem, type ErrorContext } from './errors';
import type { KubeClient } from './kube-client';
import { ListWatch, watchFailure, type ListWatchSpec } from './list-watch';

/** What the list keeps of an object's identity. */
export type WatchedObject = { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };

export interface WatchedListOptions {
  /** The failure's words: what was read ("RuntimeClasses"), on which context. */
  errorContext: ErrorContext & { what: string };
  watchTimeoutSeconds?: number | undefined;
  retryMs?: number | undefined;
}

export class WatchedList<T extends WatchedObject> extends EventEmitter<{ change: [] }> {
  private readonly byKey = new Map<string, T>();
  private readonly source: ListWatch<T>;
  /** The last failure, cleared by the next success. */
  error: ClusterErrorItem | undefined;
  /** False once the API answered 404: this cluster does not serve the resource. */
  served = true;

  constructor(client: KubeClient, spec: Pick<ListWatchSpec, 'path' | 'selector'>, options: WatchedListOptions) {
    super();
    this.source = new ListWatch<T>(
      client,
      { ...spec, watchTimeoutSeconds: options.watchTimeoutSeconds, retryMs: options.retryMs },
      {
        listed: (items) => {
          this.error = undefined;
          this.byKey.clear();
          for (const o of items) this.byKey.set(key(o), o);
          this.emit('change');
        },
        event: (type, o) => {
          if (type === 'DELETED') this.byKey.delete(key(o));
          else this.byKey.set(key(o), o);
          this.emit('change');
        },
        failed: (err) => {
          // A 404 before anything was listed: the cluster does not serve it. After a list, it is a server
          // that restarts and has not yet served its custom resources again: retried like any failure.
          if (err instanceof ApiError && err.status === 404 && this.source.lists === 0) {
            this.served = false;
            this.error = undefined;
            this.source.stop();
          } else this.error = watchFailure(err, options.errorContext);
          this.emit('change');
        },
        recovered: () => {
          this.error = undefined;
          this.emit('change');
        },
      },
    );
  }

  /** Resolves after the first list or its failure (then in `error`, and retried). */
  start(): Promise<void> {
    return this.source.start();
  }

  /** Number of complete lists made (1 after start, +1 per 410 Gone or recovery from a failure). */
  get lists(): number {
    return this.source.lists;
  }

  /** The objects, by namespace and name. */
  items(): T[] {
    return [...this.byKey.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, o]) => o);
  }

  stop(): void {
    this.source.stop();
    this.removeAllListeners();
  }
}

const key = (o: WatchedObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
