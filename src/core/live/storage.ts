// The storage facts of a cluster (StorageClasses, CSIDrivers, CSINodes, Windows nodes) reduced to what
// the storage rule reads: which CSI driver a class provisions with, and which drivers each Windows
// node registered a node plugin for.
import { getAt, isObj, type Obj } from '../manifest/path';
import type { StorageFacts } from '../rules/facts';
import { BUILD_LABEL } from '../well-known';

const DEFAULT_CLASS_ANNOTATIONS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];

const nameOf = (o: Obj): string => {
  const name = getAt(o, ['metadata', 'name']);
  return typeof name === 'string' ? name : '';
};

/** The names in a CSINode's `spec.drivers`. */
function registeredDrivers(csiNode: Obj): string[] {
  const drivers = getAt(csiNode, ['spec', 'drivers']);
  if (!Array.isArray(drivers)) return [];
  return drivers.flatMap((d) => (isObj(d) && typeof d.name === 'string' && d.name !== '' ? [d.name] : []));
}

export function storageFactsOf(input: {
  storageClasses: Obj[];
  csiNodes: Obj[];
  csiDrivers: Obj[];
  windowsNodes: Obj[];
}): StorageFacts {
  const byNode = new Map(input.csiNodes.map((n) => [nameOf(n), registeredDrivers(n)]));
  const known = new Set([...input.csiDrivers.map(nameOf), ...[...byNode.values()].flat()].filter((n) => n !== ''));
  return {
    storageClasses: input.storageClasses.flatMap((sc) => {
      const name = nameOf(sc);
      const provisioner = sc.provisioner;
      if (!name || typeof provisioner !== 'string') return [];
      const annotations = getAt(sc, ['metadata', 'annotations']);
      const isDefault = isObj(annotations) && DEFAULT_CLASS_ANNOTATIONS.some((a) => annotations[a] === 'true');
      return [{ name, provisioner, isDefault }];
    }),
    csiDrivers: [...known].sort(),
    windowsNodes: input.windowsNodes.flatMap((n) => {
      const name = nameOf(n);
      if (!name) return [];
      const build = getAt(n, ['metadata', 'labels', BUILD_LABEL]);
      // A node without a CSINode has registered no driver (the kubelet writes it as plugins register).
      return [{ name, ...(typeof build === 'string' ? { build } : {}), drivers: byNode.get(name) ?? [] }];
    }),
  };
}
