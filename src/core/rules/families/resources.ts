// Runtime family, resources: what Windows nodes cannot give a pod (huge pages, pod-level resources),
// and the requests and limits the Kubernetes guide to Windows nodes asks every container for.
import type { Path } from '../../manifest/path';
import {
  apiField,
  apiSeverity,
  containerField,
  deleteFix,
  hostProcessInfo,
  inferredFrom,
  inferredNote,
  isSet,
  objAt,
} from '../helpers';
import type { PodRule } from '../types';
import { releaseAtLeast, WINDOWS_RELEASES } from '../../kubernetes-release';

// WIN050's words, shared with its admission policy (core/policy).
export const win050Message = (field: string, note: string): string =>
  `${field}: huge pages are not supported for Windows containers; Windows nodes advertise none, so the pod stays Pending${note}. Remove it.`;

const WIN050: PodRule = {
  id: 'WIN050',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'error',
  title: 'hugepages-* resource on a Windows pod: Windows nodes have no huge pages, so the pod stays Pending.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    const severity = apiSeverity(target);
    const scan = (base: Path, field: (rel: Path) => string, value: unknown, keep: number) => {
      for (const kind of ['requests', 'limits']) {
        const map = objAt(value, ['resources', kind]);
        if (!map) continue;
        for (const name of Object.keys(map)) {
          if (!name.toLowerCase().startsWith('hugepages-')) continue;
          const rel = ['resources', kind, name];
          const path = [...base, ...rel];
          report({
            path,
            severity,
            message: win050Message(field(rel), inferredNote(target)),
            fixes: [deleteFix(`Remove ${kind}.${name}`, path, keep)],
          });
        }
      }
    };
    scan(pod.path, (rel) => apiField(pod, rel), pod.spec, pod.path.length);
    for (const c of pod.containers) scan(c.path, (rel) => containerField(pod, c, rel), c.value, c.path.length);
  },
};

/**
 * WIN058's words (shared with its admission policy): `note` is the inferred-Windows note ('' when
 * declared), `release` the Kubernetes release the finding is for.
 */
export function win058Message(field: string, note: string, release: string | undefined, declared: boolean): string {
  if (!releaseAtLeast(release, WINDOWS_RELEASES.podLevelResources))
    return `${field}: dropped silently by the API server on Kubernetes ${release} (pod-level resources are off by default before ${WINDOWS_RELEASES.podLevelResources}), so the pod runs without the limits written here${note}; from ${WINDOWS_RELEASES.podLevelResources} the API server rejects it for Windows pods. Set requests and limits on each container instead.`;
  return declared
    ? `${field}: Forbidden: may not be set for a windows pod. Pod-level resources are not supported on Windows nodes, and the API server of Kubernetes ${release} rejects the pod; set requests and limits on each container instead.`
    : `${field}: pod-level resources are not supported on Windows nodes${note}, and the API server of Kubernetes ${release} rejects them once spec.os.name: windows is set ("Forbidden: may not be set for a windows pod"). Set requests and limits on each container instead.`;
}

const WIN058: PodRule = {
  id: 'WIN058',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'runtime',
  severity: 'error',
  apiRejects: true,
  releases: `${WINDOWS_RELEASES.podLevelResources} and later: rejected for Windows pods (error); before: dropped silently by the API server (warning)`,
  title:
    'Pod-level spec.resources on a Windows pod: rejected by the API server from Kubernetes 1.34, dropped silently before; not supported on Windows nodes either way. Set resources per container.',
  check({ pod, target, facts }, report) {
    if (target.os !== 'windows') return;
    if (!isSet(pod.spec, 'resources')) return;
    const path = [...pod.path, 'resources'];
    const field = apiField(pod, ['resources']);
    const release = facts.kubernetesVersion;
    const fixes = [deleteFix('Remove pod-level resources', path, pod.path.length)];
    if (!releaseAtLeast(release, WINDOWS_RELEASES.podLevelResources)) {
      report({
        path,
        severity: 'warning',
        apiRejects: false,
        message: win058Message(field, inferredNote(target), release, target.declared),
        fixes,
      });
      return;
    }
    report({
      path,
      severity: apiSeverity(target),
      message: win058Message(field, inferredNote(target), release, target.declared),
      fixes,
    });
  },
};

const QUANTITIES = ['cpu', 'memory'] as const;

/**
 * The Kubernetes guide to resource management on Windows nodes: no OOM killer for containers (Windows
 * pages memory to disk instead), no memory-pressure eviction, so it asks for requests and limits on
 * every Windows container. A limit alone is enough: the API server defaults the request to it.
 */
const WIN062: PodRule = {
  id: 'WIN062',
  admission: { enforceable: false, why: 'advice' },
  scope: 'pod',
  family: 'runtime',
  severity: 'info',
  title:
    'Windows container without CPU and memory requests and limits: Windows has no OOM kill or memory-pressure eviction, so the Kubernetes Windows guide asks for them on every container.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    // HostProcess containers are node agents (CNI, kube-proxy, log shippers) run as host processes, outside the guide's
    // advice.
    const hp = hostProcessInfo(pod);
    // Ephemeral containers cannot have resources (the API server refuses them).
    for (const c of pod.containers.filter((x) => x.group !== 'ephemeralContainers' && !hp.is(x))) {
      const limits = objAt(c.value, ['resources', 'limits']);
      const requests = objAt(c.value, ['resources', 'requests']);
      const missing: string[] = [];
      for (const q of QUANTITIES) if (!isSet(requests, q) && !isSet(limits, q)) missing.push(`requests.${q}`);
      for (const q of QUANTITIES) if (!isSet(limits, q)) missing.push(`limits.${q}`);
      if (missing.length === 0) continue;
      const has = isSet(c.value, 'resources');
      report({
        path: has ? [...c.path, 'resources'] : [...c.path, 'name'],
        ...(has ? {} : { target: 'pair' as const }),
        related: inferredFrom(target),
        message: `${containerField(pod, c, ['resources'])}: no ${missing.join(', ')}. Windows nodes neither OOM-kill containers nor evict pods under memory pressure (memory is paged to disk), so the Kubernetes Windows guide asks for CPU and memory requests and limits on every container to keep the node from being overcommitted. Set them (a namespace LimitRange may supply defaults).`,
      });
    }
  },
};

export const resourceRules: PodRule[] = [WIN050, WIN058, WIN062];
