// Small verbs over KubeClient that every caller of the API needs: read-or-undefined (404), create
// idempotently (409), and the path pieces. Each concern's calls live beside it (nodes.ts, pods.ts,
// csr.ts, wmco.ts, openshift.ts, kubeadm.ts); plans in bootstrap/ call those, never paths of their own.
import type { KubeClient, Query } from './kube-client';
import { ApiError } from './errors';

export const enc = encodeURIComponent;

/** Metadata fields the callers read. */
export interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
}

/** GET that answers undefined for 404. */
export async function getOrUndefined<T>(kube: KubeClient, path: string, signal?: AbortSignal): Promise<T | undefined> {
  try {
    return await kube.get<T>(path, undefined, signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/** POST that treats "already exists" (409) as success: a re-run creates nothing twice. */
export async function createIfMissing(
  kube: KubeClient,
  collection: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<'created' | 'exists'> {
  try {
    await kube.create(collection, body, signal);
    return 'created';
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return 'exists';
    throw err;
  }
}

/** A plan's description of one API call (shown in dry runs; never sent). */
export interface ApiCall {
  verb: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
}

/**
 * Every item of a list, page by page (`limit` and `continue`): a cluster with many objects never
 * answers one huge list. A continue token that expired (410) starts the list over once.
 */
export async function listAll<T>(
  kube: KubeClient,
  path: string,
  query: Query = {},
  signal?: AbortSignal,
  pageSize = 250,
): Promise<T[]> {
  return (await listPaged<T>(kube, path, query, signal, pageSize)).items;
}

/**
 * As listAll, with the list's resourceVersion (the first page's: every page of one list is read at
 * it), which a watch continues from. Without `pageSize`, one request without `limit`.
 */
export async function listPaged<T>(
  kube: KubeClient,
  path: string,
  query: Query = {},
  signal?: AbortSignal,
  pageSize?: number,
): Promise<{ items: T[]; resourceVersion: string }> {
  for (let attempt = 0; ; attempt++) {
    const items: T[] = [];
    let token: string | undefined;
    let resourceVersion: string | undefined;
    try {
      do {
        const paging = pageSize ? { limit: pageSize, ...(token ? { continue: token } : {}) } : {};
        const page = await kube.get<{ items?: T[]; metadata?: { continue?: string; resourceVersion?: string } }>(
          path,
          { ...query, ...paging },
          signal,
        );
        items.push(...(page.items ?? []));
        resourceVersion ??= page.metadata?.resourceVersion;
        token = page.metadata?.continue || undefined;
      } while (token);
      return { items, resourceVersion: resourceVersion ?? '' };
    } catch (err) {
      if (attempt === 0 && token && err instanceof ApiError && err.status === 410) continue;
      throw err;
    }
  }
}
