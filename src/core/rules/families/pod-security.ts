import { isObj } from '../../manifest/path';
import {
  apiField,
  containerField,
  deleteFix,
  isSet,
  LINUX_ONLY_CONTAINER_FIELDS,
  linuxOnlyPodFieldsSet,
  objAt,
} from '../helpers';
import type { FixSpec, PodRule } from '../types';

const WIN001: PodRule = {
  id: 'WIN001',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'pod-security',
  severity: 'error',
  apiRejects: true,
  title: 'Pod-level field the API server forbids for Windows pods (hostPID, fsGroup, seccompProfile, runAsUser …).',
  check({ pod, target }, report) {
    if (!target.declared) return;
    for (const rel of linuxOnlyPodFieldsSet(pod.spec)) {
      const field = apiField(pod, rel);
      report({
        path: [...pod.path, ...rel],
        message: `${field}: Forbidden: cannot be set for a windows pod. The API server rejects the ${pod.object.kind}; delete the key (false, 0 or {} are rejected too).`,
        fixes: [deleteFix(`Remove ${rel.join('.')}`, [...pod.path, ...rel], pod.path.length)],
      });
    }
  },
};

const WIN002: PodRule = {
  id: 'WIN002',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'pod-security',
  severity: 'error',
  apiRejects: true,
  title:
    'Container securityContext field the API server forbids for Windows pods (privileged, capabilities, readOnlyRootFilesystem …).',
  check({ pod, target }, report) {
    if (!target.declared) return;
    for (const c of pod.containers) {
      const sc = objAt(c.value, ['securityContext']);
      if (!sc) continue;
      for (const key of LINUX_ONLY_CONTAINER_FIELDS) {
        if (!isSet(sc, key)) continue;
        const path = [...c.path, 'securityContext', key];
        const fixes: FixSpec[] = [];
        const winOpts = objAt(sc, ['windowsOptions']);
        if (key === 'runAsUser' && !isSet(winOpts, 'runAsUserName')) {
          const user = sc.runAsUser === 0 ? 'ContainerAdministrator' : 'ContainerUser';
          fixes.push(
            winOpts
              ? {
                  title: `Replace runAsUser with windowsOptions.runAsUserName: ${user}`,
                  kind: 'rewrite', // a replaced identity
                  ops: [
                    { op: 'delete', path, keep: c.path.length + 1 },
                    { op: 'set', path: [...c.path, 'securityContext', 'windowsOptions', 'runAsUserName'], value: user },
                  ],
                }
              : {
                  title: `Replace runAsUser with windowsOptions.runAsUserName: ${user}`,
                  kind: 'rewrite', // a replaced identity
                  ops: [{ op: 'replacePair', path, key: 'windowsOptions', value: { runAsUserName: user } }],
                },
          );
        }
        fixes.push(deleteFix(`Remove securityContext.${key}`, path, c.path.length));
        report({
          path,
          message: `${containerField(pod, c, ['securityContext', key])}: Forbidden: cannot be set for a windows pod. Windows has no such setting; delete the key (even false is rejected).`,
          fixes,
        });
      }
    }
  },
};

const WIN003: PodRule = {
  id: 'WIN003',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'pod-security',
  severity: 'error',
  apiRejects: true,
  title: 'windowsOptions on a pod whose spec.os.name is linux: rejected by the API server.',
  check({ pod }, report) {
    if (pod.spec.os === undefined || !isObj(pod.spec.os) || pod.spec.os.name !== 'linux') return;
    const places: { path: (string | number)[]; field: string; keep: number }[] = [];
    if (objAt(pod.spec, ['securityContext', 'windowsOptions'])) {
      places.push({
        path: [...pod.path, 'securityContext', 'windowsOptions'],
        field: apiField(pod, ['securityContext', 'windowsOptions']),
        keep: pod.path.length,
      });
    }
    for (const c of pod.containers) {
      if (objAt(c.value, ['securityContext', 'windowsOptions'])) {
        places.push({
          path: [...c.path, 'securityContext', 'windowsOptions'],
          field: containerField(pod, c, ['securityContext', 'windowsOptions']),
          keep: c.path.length,
        });
      }
    }
    for (const p of places) {
      report({
        path: p.path,
        message: `${p.field}: Forbidden: windows options cannot be set for a linux pod. Remove windowsOptions, or set spec.os.name to windows if this pod is meant for Windows nodes.`,
        fixes: [
          deleteFix('Remove windowsOptions', p.path, p.keep),
          {
            title: 'Change spec.os.name to windows',
            kind: 'rewrite',
            ops: [{ op: 'set', path: [...pod.path, 'os', 'name'], value: 'windows' }],
          },
        ],
        related: [{ path: [...pod.path, 'os', 'name'], target: 'value', message: 'spec.os.name is linux here' }],
      });
    }
  },
};

const WIN004: PodRule = {
  id: 'WIN004',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'pod-security',
  severity: 'error',
  apiRejects: true,
  title: 'spec.os.name is empty or not exactly "linux" / "windows" (values are case-sensitive).',
  check({ pod }, report) {
    if (!isSet(pod.spec, 'os')) return;
    const os = pod.spec.os;
    const name = isObj(os) ? os.name : undefined;
    if (name === 'windows' || name === 'linux') return;
    if (name === undefined || name === null || name === '') {
      report({
        path: isObj(os) && 'name' in os ? [...pod.path, 'os', 'name'] : [...pod.path, 'os'],
        message: `${apiField(pod, ['os', 'name'])}: Required value. Set it to windows or linux.`,
        fixes: [
          {
            title: 'Set spec.os.name: windows',
            kind: 'rewrite',
            ops: [{ op: 'set', path: [...pod.path, 'os', 'name'], value: 'windows' }],
          },
        ],
      });
      return;
    }
    const lower = String(name).toLowerCase();
    const fixes =
      lower === 'windows' || lower === 'linux'
        ? [
            {
              title: `Change to ${lower}`,
              kind: 'safe' as const, // the same OS, cased as the API server accepts it
              ops: [{ op: 'set' as const, path: [...pod.path, 'os', 'name'], value: lower }],
            },
          ]
        : [];
    report({
      path: [...pod.path, 'os', 'name'],
      target: 'value',
      message: `${apiField(pod, ['os'])}: Unsupported value: ${JSON.stringify(String(name)).slice(0, 80)}: supported values: "linux", "windows". The value is case-sensitive.`,
      fixes,
    });
  },
};

export const podSecurityRules: PodRule[] = [WIN001, WIN002, WIN003, WIN004];
