// The storage objects WIN063 reads: StorageClasses, CSINodes and CSIDrivers, cluster-wide. Used by
// the live check and `snapshot` (live.ts) and by the editor's cluster snapshot (snapshot.ts).
import { storageFactsOf } from '../core/live/storage';
import type { Obj } from '../core/manifest/path';
import type { StorageFacts } from '../core/rules/facts';
import { listAll } from './api';
import type { KubeClient } from './kube-client';

const STORAGE_API = '/apis/storage.k8s.io/v1';

/** One paged list per kind, asked in parallel; each promise fails on its own (a 403 on one kind). */
export function storageLists(
  kube: KubeClient,
  signal: AbortSignal | undefined,
  pageSize: number,
): { storageClasses: Promise<Obj[]>; csiNodes: Promise<Obj[]>; csiDrivers: Promise<Obj[]> } {
  const list = (plural: string) => listAll<Obj>(kube, `${STORAGE_API}/${plural}`, {}, signal, pageSize);
  return { storageClasses: list('storageclasses'), csiNodes: list('csinodes'), csiDrivers: list('csidrivers') };
}

/**
 * Storage facts need the classes and the CSINodes (undefined without either: no guess); without
 * CSIDrivers, the drivers registered on nodes are known. `windowsNodes` need a name and the build label.
 */
export function storageFacts(
  read: { storageClasses?: Obj[]; csiNodes?: Obj[]; csiDrivers?: Obj[] },
  windowsNodes: Obj[],
): StorageFacts | undefined {
  if (!read.storageClasses || !read.csiNodes) return undefined;
  return storageFactsOf({
    storageClasses: read.storageClasses,
    csiNodes: read.csiNodes,
    csiDrivers: read.csiDrivers ?? [],
    windowsNodes,
  });
}

export type StorageObjects = Parameters<typeof storageFacts>[0];

/** The three lists, each left out when it cannot be read (the editor's snapshot: quietly). */
export async function readStorageObjects(kube: KubeClient, signal?: AbortSignal): Promise<StorageObjects> {
  const lists = storageLists(kube, signal, 500);
  const quiet = (p: Promise<Obj[]>) => p.catch(() => undefined);
  const [storageClasses, csiNodes, csiDrivers] = await Promise.all([
    quiet(lists.storageClasses),
    quiet(lists.csiNodes),
    quiet(lists.csiDrivers),
  ]);
  return {
    ...(storageClasses ? { storageClasses } : {}),
    ...(csiNodes ? { csiNodes } : {}),
    ...(csiDrivers ? { csiDrivers } : {}),
  };
}
