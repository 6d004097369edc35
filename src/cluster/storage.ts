// The storage objects the editor's cluster snapshot carries for WIN063: StorageClasses, CSINodes and
// CSIDrivers, cluster-wide. A list the user may not read leaves the facts out (rules only get
// sharper with facts, they never need them).
import type { Obj } from '../core/manifest/path';
import { listAll } from './api';
import type { KubeClient } from './client';

export interface StorageObjects {
  storageClasses: Obj[];
  csiNodes: Obj[];
  csiDrivers: Obj[];
}

const STORAGE_API = '/apis/storage.k8s.io/v1';

/** Undefined when the classes or the CSINodes cannot be read; without CSIDrivers, the drivers nodes registered still count. */
export async function readStorageObjects(kube: KubeClient, signal?: AbortSignal): Promise<StorageObjects | undefined> {
  const list = (plural: string) => listAll<Obj>(kube, `${STORAGE_API}/${plural}`, {}, signal, 500).catch(() => undefined);
  const [storageClasses, csiNodes, csiDrivers] = await Promise.all([list('storageclasses'), list('csinodes'), list('csidrivers')]);
  if (!storageClasses || !csiNodes) return undefined;
  return { storageClasses, csiNodes, csiDrivers: csiDrivers ?? [] };
}
