// Runtime family, Linux-only settings of pods whose Windows target is only inferred (no spec.os.name):
// the kubelet ignores them on Windows (kubernetes/kubernetes PR #93475), and the API server's
// validateWindows rejects them once spec.os.name: windows is set.
import { getAt } from '../../manifest/path';
import {
  apiField,
  containerField,
  deleteFix,
  hostProcessInfo,
  inferredNote,
  isSet,
  LINUX_ONLY_CONTAINER_FIELDS,
  linuxOnlyPodFieldsSet,
  objAt,
} from '../helpers';
import type { PodRule } from '../types';

const WIN040: PodRule = {
  id: 'WIN040',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    'Linux-only securityContext field on a pod that targets Windows without spec.os.name: ignored by the kubelet, rejected once spec.os.name is set.',
  check({ pod, target }, report) {
    if (target.os !== 'windows' || target.declared) return;
    const note = inferredNote(target);
    const why = `the kubelet silently ignores it on Windows (kubernetes PR #93475), and the API server rejects it once spec.os.name: windows is set`;
    for (const rel of linuxOnlyPodFieldsSet(pod.spec)) {
      // shareProcessNamespace has its own rule (WIN056).
      if (rel[0] === 'shareProcessNamespace') continue;
      const path = [...pod.path, ...rel];
      report({
        path,
        message: `${apiField(pod, rel)} is Linux-only${note}: ${why}. Delete it.`,
        fixes: [deleteFix(`Remove ${rel.join('.')}`, path, pod.path.length)],
      });
    }
    const hp = hostProcessInfo(pod);
    for (const c of pod.containers) {
      const sc = objAt(c.value, ['securityContext']);
      if (!sc) continue;
      // In document order, so the first finding is the first field the reader meets.
      for (const key of Object.keys(sc)) {
        if (!LINUX_ONLY_CONTAINER_FIELDS.includes(key) || !isSet(sc, key)) continue;
        // privileged: true on an ordinary container is WIN041's (an error, not a no-op).
        if (key === 'privileged' && sc.privileged === true && !hp.is(c)) continue;
        const path = [...c.path, 'securityContext', key];
        report({
          path,
          message: `${containerField(pod, c, ['securityContext', key])} is Linux-only${note}: ${why}. Delete it.`,
          fixes: [deleteFix(`Remove securityContext.${key}`, path, c.path.length)],
        });
      }
    }
  },
};

const WIN041: PodRule = {
  id: 'WIN041',
  scope: 'pod',
  family: 'runtime',
  severity: 'error',
  title:
    'privileged: true on a Windows container that is not a HostProcess container: privileged containers do not exist on Windows.',
  check({ pod, target }, report) {
    // Declared Windows pods get WIN002 (the API server rejects any privileged value).
    if (target.os !== 'windows' || target.declared) return;
    const hp = hostProcessInfo(pod);
    for (const c of pod.containers) {
      if (getAt(c.value, ['securityContext', 'privileged']) !== true || hp.is(c)) continue;
      const path = [...c.path, 'securityContext', 'privileged'];
      report({
        path,
        message: `${containerField(pod, c, ['securityContext', 'privileged'])}: privileged containers are not supported on Windows${inferredNote(target)}, and the pod may fail to start. Delete it; for host access use a HostProcess container (windowsOptions.hostProcess: true with hostNetwork: true).`,
        fixes: [deleteFix('Remove securityContext.privileged', path, c.path.length)],
      });
    }
  },
};

const WIN056: PodRule = {
  id: 'WIN056',
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    'shareProcessNamespace on a pod that targets Windows without spec.os.name: Windows cannot share process namespaces.',
  check({ pod, target }, report) {
    // Declared Windows pods get WIN001 (rejected by the API server).
    if (target.os !== 'windows' || target.declared) return;
    if (!isSet(pod.spec, 'shareProcessNamespace')) return;
    const path = [...pod.path, 'shareProcessNamespace'];
    const what =
      pod.spec.shareProcessNamespace === true
        ? `Windows cannot share a process namespace between containers${inferredNote(target)}, so it is ignored;`
        : `process namespaces mean nothing on Windows${inferredNote(target)}, and`;
    report({
      path,
      message: `${apiField(pod, ['shareProcessNamespace'])}: ${what} the API server rejects the field, even false, once spec.os.name: windows is set. Delete it.`,
      fixes: [deleteFix('Remove shareProcessNamespace', path, pod.path.length)],
    });
  },
};

export const linuxOnlyRules: PodRule[] = [WIN040, WIN041, WIN056];
