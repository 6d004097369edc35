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

const LINUX_ONLY_WHY =
  'the kubelet silently ignores it on Windows (kubernetes PR #93475), and the API server rejects it once spec.os.name: windows is set';

// The words of each finding, given the field path and the "(Windows inferred from …)" note: shared with
// the rule's admission policy (core/policy), which builds the same sentence in CEL.
export const win040Message = (field: string, note: string): string =>
  `${field} is Linux-only${note}: ${LINUX_ONLY_WHY}. Delete it.`;
export const win041Message = (field: string, note: string): string =>
  `${field}: privileged containers are not supported on Windows${note}, and the pod may fail to start. Delete it; for host access use a HostProcess container (windowsOptions.hostProcess: true with hostNetwork: true).`;
export const win056Message = (field: string, note: string, shared: boolean): string =>
  `${field}: ${
    shared
      ? `Windows cannot share a process namespace between containers${note}, so it is ignored;`
      : `process namespaces mean nothing on Windows${note}, and`
  } the API server rejects the field, even false, once spec.os.name: windows is set. Delete it.`;

const WIN040: PodRule = {
  id: 'WIN040',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  title:
    'Linux-only securityContext field on a pod that targets Windows without spec.os.name: ignored by the kubelet, rejected once spec.os.name is set.',
  check({ pod, target }, report) {
    if (target.os !== 'windows' || target.declared) return;
    const note = inferredNote(target);
    for (const rel of linuxOnlyPodFieldsSet(pod.spec)) {
      // shareProcessNamespace has its own rule (WIN056).
      if (rel[0] === 'shareProcessNamespace') continue;
      const path = [...pod.path, ...rel];
      report({
        path,
        message: win040Message(apiField(pod, rel), note),
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
          message: win040Message(containerField(pod, c, ['securityContext', key]), note),
          fixes: [deleteFix(`Remove securityContext.${key}`, path, c.path.length)],
        });
      }
    }
  },
};

const WIN041: PodRule = {
  id: 'WIN041',
  admission: { enforceable: true },
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
        message: win041Message(containerField(pod, c, ['securityContext', 'privileged']), inferredNote(target)),
        fixes: [deleteFix('Remove securityContext.privileged', path, c.path.length)],
      });
    }
  },
};

const WIN056: PodRule = {
  id: 'WIN056',
  admission: { enforceable: true },
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
    report({
      path,
      message: win056Message(
        apiField(pod, ['shareProcessNamespace']),
        inferredNote(target),
        pod.spec.shareProcessNamespace === true,
      ),
      fixes: [deleteFix('Remove shareProcessNamespace', path, pod.path.length)],
    });
  },
};

export const linuxOnlyRules: PodRule[] = [WIN040, WIN041, WIN056];
