// Linters family: Linux hardening advice that other linters (kube-linter, Polaris, kube-score)
// give and that does not apply to Windows pods (kube-linter pkg/builtinchecks, Polaris checks/, kube-score
// score/security).
import { isObj } from '../../manifest/path';
import type { PodSpecView } from '../../manifest/workloads';
import { deleteFix, inferredNote } from '../helpers';
import type { PodRule } from '../types';

/** Pod annotations that configure Linux-only kernel features (seccomp, AppArmor). */
function linuxHardening(key: string): 'seccomp' | 'AppArmor' | undefined {
  if (
    key === 'seccomp.security.alpha.kubernetes.io/pod' ||
    key.startsWith('container.seccomp.security.alpha.kubernetes.io/')
  )
    return 'seccomp';
  if (key.startsWith('container.apparmor.security.beta.kubernetes.io/')) return 'AppArmor';
  return undefined;
}

/** `spec.template.metadata.annotations[key]`, as the API server prints annotation paths. */
function annotationField(pod: PodSpecView, key: string): string {
  const prefix = pod.apiPrefix.split('.').slice(0, -1).concat('metadata').join('.');
  const shown = key.length > 100 ? `${key.slice(0, 99)}…` : key;
  return `${prefix}.annotations[${shown}]`;
}

const LNT001: PodRule = {
  id: 'LNT001',
  admission: { enforceable: false, why: 'advice' },
  scope: 'pod',
  family: 'linters',
  severity: 'info',
  title:
    'seccomp or AppArmor annotation on a Windows pod: no effect on Windows; Linux hardening advice does not apply to Windows pods.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const annotations = pod.metadata.annotations;
    if (!isObj(annotations)) return;
    for (const key of Object.keys(annotations)) {
      const feature = linuxHardening(key);
      if (!feature) continue;
      const path = [...pod.metadataPath, 'annotations', key];
      report({
        path,
        message: `${annotationField(pod, key)}: ${feature} is a Linux kernel feature, so this annotation has no effect on a Windows pod${inferredNote(target)}. Linux linters that ask for it (kube-linter, Polaris, kube-score) do not apply to Windows pods; delete it.`,
        fixes: [deleteFix('Remove the annotation', path, pod.metadataPath.length)],
      });
    }
  },
};

export const linterRules: PodRule[] = [LNT001];
