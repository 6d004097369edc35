// Runtime family, container lifecycle fields whose fate on Windows depends on the Kubernetes release:
// the stop signal (KEP-4960) and in-place resize (KEP-1287). Both are dropped by older API servers and
// do nothing or get refused for Windows pods on newer ones; the messages name the release decided by.
import { releaseAtLeast, WINDOWS_RELEASES, WINDOWS_STOP_SIGNALS } from '../../kubernetes-release';
import { containerField, deleteFix, inferredFrom, inferredNote, isSet, objAt } from '../helpers';
import type { PodRule } from '../types';

const WIN064: PodRule = {
  id: 'WIN064',
  admission: {
    enforceable: false,
    why: 'dropped-before-admission',
    detail: 'lifecycle.stopSignal is dropped while ContainerStopSignals is off',
  },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  releases: `all releases up to 1.37: the API server drops the field (ContainerStopSignals is alpha, off by default); where a cluster turns the gate on, Windows pods take only ${WINDOWS_STOP_SIGNALS.join(' or ')} and a pod without spec.os.name none`,
  title:
    'lifecycle.stopSignal on a Windows container: dropped by the API server (ContainerStopSignals is off by default); where the gate is on, Windows pods take only SIGTERM or SIGKILL, and a pod without spec.os.name may set none.',
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows') return;
    const release = facts.kubernetesVersion;
    for (const c of pod.containers) {
      const lifecycle = objAt(c.value, ['lifecycle']);
      if (!isSet(lifecycle, 'stopSignal')) continue;
      const value = String(lifecycle?.stopSignal);
      const path = [...c.path, 'lifecycle', 'stopSignal'];
      const field = containerField(pod, c, ['lifecycle', 'stopSignal']);
      const accepted = (WINDOWS_STOP_SIGNALS as readonly string[]).includes(value);
      // What a cluster that turns the gate on would say: the API server's own words.
      const whenOn = !target.declared
        ? `a cluster that turns it on rejects the pod ("Forbidden: may not be set for containers with empty \`spec.os.name\`")`
        : accepted
          ? `a cluster that turns it on sends ${value} to stop the container`
          : `a cluster that turns it on rejects the pod ("Unsupported value: \\"${value}\\": supported values: \\"SIGKILL\\", \\"SIGTERM\\"")`;
      report({
        path,
        // A Windows stop signal the gate would accept is only a field that does nothing yet.
        severity: target.declared && accepted ? 'info' : 'warning',
        related: inferredFrom(target),
        message: `${field}: the API server of Kubernetes ${release} drops it (the ContainerStopSignals feature gate is alpha and off by default), so the container is stopped as if it were not set${inferredNote(target)}; ${whenOn}. Delete it${accepted ? '' : `, or use ${WINDOWS_STOP_SIGNALS.join(' or ')} with spec.os.name: windows where the gate is on`}.`,
        fixes: [deleteFix('Remove lifecycle.stopSignal', path, c.path.length)],
      });
    }
  },
};

/** WIN065's words (shared with its admission policy) for the Kubernetes release the finding is for. */
export function win065Message(field: string, note: string, release: string | undefined): string {
  const fate = releaseAtLeast(release, WINDOWS_RELEASES.inPlaceResize)
    ? `does nothing: the API server refuses every in-place resize of a Windows pod ("windows pods cannot be resized", since Kubernetes ${WINDOWS_RELEASES.windowsResizeRefused})`
    : `is dropped by the API server of Kubernetes ${release} (in-place resize is off by default before ${WINDOWS_RELEASES.inPlaceResize}), and later releases refuse every in-place resize of a Windows pod`;
  return `${field}: ${fate}${note}. Delete it; change a Windows container's resources in the workload's pod template (a rollout recreates the pods) or with a VerticalPodAutoscaler in Recreate mode.`;
}

const WIN065: PodRule = {
  id: 'WIN065',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'warning',
  releases: `${WINDOWS_RELEASES.inPlaceResize} and later: kept, but every resize of a Windows pod is refused (since ${WINDOWS_RELEASES.windowsResizeRefused}); before: dropped by the API server`,
  title:
    'resizePolicy on a Windows container: the API server refuses every in-place resize of a Windows pod ("windows pods cannot be resized"), so it does nothing; resources change only when the pod is recreated.',
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows') return;
    const release = facts.kubernetesVersion;
    // Ephemeral containers cannot have a resizePolicy at all (the API server refuses it on any pod).
    for (const c of pod.containers.filter((x) => x.group !== 'ephemeralContainers')) {
      // An empty list says nothing (and the API server drops it before admission).
      if (!isSet(c.value, 'resizePolicy') || (Array.isArray(c.value.resizePolicy) && c.value.resizePolicy.length === 0))
        continue;
      const path = [...c.path, 'resizePolicy'];
      report({
        path,
        related: inferredFrom(target),
        message: win065Message(containerField(pod, c, ['resizePolicy']), inferredNote(target), release),
        fixes: [deleteFix('Remove resizePolicy', path, c.path.length)],
      });
    }
  },
};

export const lifecycleRules: PodRule[] = [WIN064, WIN065];
