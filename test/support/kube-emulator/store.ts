// The object store: one resourceVersion counter across all kinds, an event history for watches, and compaction.
import { randomUUID } from 'node:crypto';
import { mergePatch } from './patch';
import { resourceByKind, resourceId, apiVersionOf, type ResourceInfo } from './resources';
import type { KubeObject } from './types';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export interface StoreEvent {
  type: EventType;
  rv: number;
  kind: string;
  /** The API group of the object ('' for core): kinds alone are ambiguous (Network). */
  group: string;
  object: KubeObject;
  /** The object before a MODIFIED event. */
  old?: KubeObject;
}

export class StoreError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    /** The Status details the API server sends with it (name, group, kind). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A resource given by kind (optionally group-qualified, see resourceByKind) or already resolved. */
export type KindRef = string | ResourceInfo;
const resolve = (k: KindRef, apiVersion?: string): ResourceInfo =>
  typeof k === 'string' ? resourceByKind(k, apiVersion) : k;

export const keyOf = (kind: KindRef, namespace: string | undefined, name: string): string =>
  `${resourceId(resolve(kind))}\u0000${namespace ?? ''}\u0000${name}`;

export class Store {
  rv = 1000;
  /** Watches that start before this resourceVersion get 410 Gone. */
  compactedRv = 0;
  readonly objects = new Map<string, KubeObject>();
  history: StoreEvent[] = [];
  readonly listeners = new Set<(ev: StoreEvent) => void>();

  private emit(ev: StoreEvent): void {
    this.history.push(ev);
    if (this.history.length > 10000) {
      this.history.splice(0, 5000);
      this.compactedRv = this.history[0].rv - 1;
    }
    for (const l of [...this.listeners]) l(ev);
  }

  compact(): void {
    this.history = [];
    this.compactedRv = this.rv;
  }

  get(kind: KindRef, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(keyOf(kind, namespace, name));
  }

  /** Objects of a kind (in a namespace), sorted by namespace and name; `match` filters before the sort (large stores). */
  list(kind: KindRef, namespace?: string, match?: (o: KubeObject) => boolean): KubeObject[] {
    const r = resolve(kind);
    const apiVersion = apiVersionOf(r);
    const out: KubeObject[] = [];
    for (const o of this.objects.values())
      if (
        o.kind === r.kind &&
        o.apiVersion === apiVersion &&
        (namespace === undefined || o.metadata.namespace === namespace) &&
        (!match || match(o))
      )
        out.push(o);
    // Ordered as etcd orders keys (byte order of namespace/name), the order continue tokens resume from.
    return out.sort((a, b) => compareKeys(listKey(a), listKey(b)));
  }

  private normalise(obj: KubeObject, r: ResourceInfo): KubeObject {
    const o = structuredClone(obj);
    o.apiVersion = apiVersionOf(r);
    o.kind = r.kind;
    if (!r.namespaced) delete o.metadata.namespace;
    else if (!o.metadata.namespace) o.metadata.namespace = 'default';
    return o;
  }

  /** Create; throws 409 when the object exists. */
  create(obj: KubeObject): KubeObject {
    const r = resourceByKind(obj.kind, obj.apiVersion);
    const o = this.normalise(obj, r);
    const key = keyOf(r, o.metadata.namespace, o.metadata.name);
    if (this.objects.has(key))
      throw new StoreError(
        409,
        'AlreadyExists',
        `${r.plural}${r.group ? '.' + r.group : ''} "${o.metadata.name}" already exists`,
      );
    o.metadata.uid ??= randomUUID();
    o.metadata.creationTimestamp ??= new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (r.kind === 'Pod') o.status ??= { phase: 'Pending' };
    if (r.kind === 'Namespace') o.status ??= { phase: 'Active' };
    o.metadata.resourceVersion = String(++this.rv);
    this.objects.set(key, o);
    this.emit({ type: 'ADDED', rv: this.rv, kind: r.kind, group: r.group, object: o });
    return structuredClone(o);
  }

  /** Replace an existing object; a non-empty resourceVersion in obj must match (409 otherwise). */
  update(obj: KubeObject, opts: { checkRv?: boolean } = {}): KubeObject {
    const r = resourceByKind(obj.kind, obj.apiVersion);
    const o = this.normalise(obj, r);
    const key = keyOf(r, o.metadata.namespace, o.metadata.name);
    const old = this.objects.get(key);
    if (!old) throw notFound(r, o.metadata.name);
    if (opts.checkRv && o.metadata.resourceVersion && o.metadata.resourceVersion !== old.metadata.resourceVersion) {
      throw new StoreError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${r.plural}${r.group ? '.' + r.group : ''} "${o.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    o.metadata.uid = old.metadata.uid;
    o.metadata.creationTimestamp = old.metadata.creationTimestamp;
    o.metadata.resourceVersion = String(++this.rv);
    this.objects.set(key, o);
    this.emit({ type: 'MODIFIED', rv: this.rv, kind: r.kind, group: r.group, object: o, old });
    return structuredClone(o);
  }

  /** Create or replace without preconditions. */
  apply(obj: KubeObject): KubeObject {
    const r = resourceByKind(obj.kind, obj.apiVersion);
    const ns = r.namespaced ? obj.metadata.namespace || 'default' : undefined;
    return this.objects.has(keyOf(r, ns, obj.metadata.name)) ? this.update(obj) : this.create(obj);
  }

  mergePatch(kind: KindRef, name: string, namespace: string | undefined, patch: unknown): KubeObject {
    const r = resolve(kind);
    const old = this.get(r, r.namespaced ? namespace || 'default' : undefined, name);
    if (!old) throw notFound(r, name);
    const next = mergePatch(old, patch) as KubeObject;
    next.metadata = {
      ...next.metadata,
      name: old.metadata.name,
      namespace: old.metadata.namespace,
      resourceVersion: old.metadata.resourceVersion,
    };
    return this.update(next);
  }

  delete(kind: KindRef, namespace: string | undefined, name: string): KubeObject {
    const r = resolve(kind);
    const key = keyOf(r, r.namespaced ? namespace || 'default' : undefined, name);
    const old = this.objects.get(key);
    if (!old) throw notFound(r, name);
    this.objects.delete(key);
    const o = structuredClone(old);
    o.metadata.resourceVersion = String(++this.rv);
    this.emit({ type: 'DELETED', rv: this.rv, kind: r.kind, group: r.group, object: o });
    return structuredClone(o);
  }
}

export function notFound(r: ResourceInfo, name: string): StoreError {
  return new StoreError(404, 'NotFound', `${r.plural}${r.group ? '.' + r.group : ''} "${name}" not found`, {
    name,
    ...(r.group ? { group: r.group } : {}),
    kind: r.plural,
  });
}

/** The key a list is ordered and continued by. */
export const listKey = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
