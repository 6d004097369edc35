import { getAt, isObj, type Path } from '../manifest/path';
import type { PodSpecView } from '../manifest/workloads';
import { windowsImageEvidence } from '../windows/builds';
import type { Facts } from './facts';
import { BETA_OS_LABEL, BUILD_LABEL, OS_LABEL } from '../well-known';

export type Signal =
  | 'os-field'
  | 'node-selector'
  | 'node-affinity'
  | 'windows-build'
  | 'runtime-class'
  | 'toleration'
  | 'windows-options'
  | 'image'
  | 'command';

export interface Evidence {
  signal: Signal;
  os: 'windows' | 'linux';
  path: Path;
  detail: string;
  /** Strong evidence alone makes a pod a Windows pod; weak evidence only supports it. */
  strong: boolean;
}

export interface Targeting {
  os: 'windows' | 'linux' | 'unknown';
  /** `spec.os.name: windows` is set: the API server applies its Windows validation. */
  declared: boolean;
  evidence: Evidence[];
  /** `node.kubernetes.io/windows-build` values the pod is pinned to, with where they come from. */
  builds: {
    value: string;
    path: Path;
    via: 'node-selector' | 'node-affinity' | 'runtime-class';
    runtimeClass?: string;
  }[];
}

export const OS_LABELS = [OS_LABEL, BETA_OS_LABEL];

/** Taint keys whose toleration with the value windows (any case) is strong Windows evidence (AKS taints sku=windows). */
export const WINDOWS_TOLERATION_KEYS = ['os', 'node.kubernetes.io/os', 'sku'];

/**
 * Decides whether a pod spec targets Windows, keeping the evidence
 * (https://kubernetes.io/docs/concepts/windows/user-guide/).
 */
export function targetingOf(pod: PodSpecView, facts: Facts): Targeting {
  const spec = pod.spec;
  const p = pod.path;
  const evidence: Evidence[] = [];
  const builds: Targeting['builds'] = [];

  const osName = getAt(spec, ['os', 'name']);
  if (osName === 'windows' || osName === 'linux') {
    evidence.push({
      signal: 'os-field',
      os: osName,
      path: [...p, 'os', 'name'],
      detail: `spec.os.name is ${osName}`,
      strong: true,
    });
  }

  const selector = spec.nodeSelector;
  if (isObj(selector)) {
    for (const label of OS_LABELS) {
      const v = selector[label];
      if (typeof v !== 'string') continue;
      const os = v.toLowerCase();
      if (os === 'windows' || os === 'linux') {
        evidence.push({
          signal: 'node-selector',
          os,
          path: [...p, 'nodeSelector', label],
          detail: `nodeSelector ${label}: ${v}`,
          strong: true,
        });
      }
    }
    const build = selector[BUILD_LABEL];
    if (build !== undefined && build !== null) {
      evidence.push({
        signal: 'windows-build',
        os: 'windows',
        path: [...p, 'nodeSelector', BUILD_LABEL],
        detail: `nodeSelector ${BUILD_LABEL}`,
        strong: true,
      });
      builds.push({ value: String(build), path: [...p, 'nodeSelector', BUILD_LABEL], via: 'node-selector' });
    }
  }

  const terms = getAt(spec, [
    'affinity',
    'nodeAffinity',
    'requiredDuringSchedulingIgnoredDuringExecution',
    'nodeSelectorTerms',
  ]);
  if (Array.isArray(terms)) {
    terms.forEach((term, ti) => {
      const exprs = isObj(term) ? term.matchExpressions : undefined;
      if (!Array.isArray(exprs)) return;
      exprs.forEach((e, ei) => {
        if (!isObj(e) || typeof e.key !== 'string') return;
        const path = [
          ...p,
          'affinity',
          'nodeAffinity',
          'requiredDuringSchedulingIgnoredDuringExecution',
          'nodeSelectorTerms',
          ti,
          'matchExpressions',
          ei,
        ];
        const values = Array.isArray(e.values) ? e.values.map((x) => String(x)) : [];
        if (OS_LABELS.includes(e.key)) {
          const lower = values.map((x) => x.toLowerCase());
          if (e.operator === 'In') {
            const onlyWin = lower.length > 0 && lower.every((x) => x === 'windows');
            const onlyLinux = lower.length > 0 && lower.every((x) => x === 'linux');
            // Terms are ORed: one term alone is strong evidence only if it is the only term.
            if (onlyWin)
              evidence.push({
                signal: 'node-affinity',
                os: 'windows',
                path,
                detail: `required node affinity ${e.key} In [windows]`,
                strong: terms.length === 1,
              });
            if (onlyLinux)
              evidence.push({
                signal: 'node-affinity',
                os: 'linux',
                path,
                detail: `required node affinity ${e.key} In [linux]`,
                strong: terms.length === 1,
              });
          } else if (e.operator === 'NotIn' && lower.includes('linux') && terms.length === 1) {
            evidence.push({
              signal: 'node-affinity',
              os: 'windows',
              path,
              detail: `required node affinity ${e.key} NotIn [linux]`,
              strong: true,
            });
          } else if (e.operator === 'NotIn' && lower.includes('windows') && terms.length === 1) {
            evidence.push({
              signal: 'node-affinity',
              os: 'linux',
              path,
              detail: `required node affinity ${e.key} NotIn [windows]`,
              strong: true,
            });
          }
        } else if (e.key === BUILD_LABEL && e.operator === 'In' && values.length > 0) {
          evidence.push({
            signal: 'windows-build',
            os: 'windows',
            path,
            detail: `required node affinity on ${BUILD_LABEL}`,
            strong: terms.length === 1,
          });
          if (values.length === 1 && terms.length === 1)
            builds.push({ value: values[0], path: [...path, 'values', 0], via: 'node-affinity' });
        }
      });
    });
  }

  const rcName = spec.runtimeClassName;
  if (typeof rcName === 'string') {
    const rc = facts.runtimeClasses.get(rcName);
    if (rc?.windows) {
      evidence.push({
        signal: 'runtime-class',
        os: 'windows',
        path: [...p, 'runtimeClassName'],
        detail: `RuntimeClass ${rcName}${rc.origin ? ` (${rc.origin.file}:${rc.origin.line})` : ''} schedules onto Windows nodes`,
        strong: true,
      });
      if (rc.build)
        builds.push({ value: rc.build, path: [...p, 'runtimeClassName'], via: 'runtime-class', runtimeClass: rcName });
    } else if (rc && (rc.nodeSelector[OS_LABEL] ?? '').toLowerCase() === 'linux') {
      evidence.push({
        signal: 'runtime-class',
        os: 'linux',
        path: [...p, 'runtimeClassName'],
        detail: `RuntimeClass ${rcName} schedules onto Linux nodes`,
        strong: true,
      });
    } else if (!rc && /win/i.test(rcName)) {
      evidence.push({
        signal: 'runtime-class',
        os: 'windows',
        path: [...p, 'runtimeClassName'],
        detail: `runtimeClassName ${rcName} suggests Windows`,
        strong: false,
      });
    }
  }

  const tolerations = spec.tolerations;
  if (Array.isArray(tolerations)) {
    tolerations.forEach((t, i) => {
      if (!isObj(t)) return;
      const key = typeof t.key === 'string' ? t.key : '';
      const value = typeof t.value === 'string' ? t.value.toLowerCase() : '';
      if (WINDOWS_TOLERATION_KEYS.includes(key) && value === 'windows') {
        evidence.push({
          signal: 'toleration',
          os: 'windows',
          path: [...p, 'tolerations', i],
          detail: `tolerates the Windows taint ${key}=${t.value}`,
          strong: true,
        });
      }
    });
  }

  const podOpts = getAt(spec, ['securityContext', 'windowsOptions']);
  if (isObj(podOpts)) {
    evidence.push({
      signal: 'windows-options',
      os: 'windows',
      path: [...p, 'securityContext', 'windowsOptions'],
      detail: 'pod securityContext.windowsOptions',
      strong: meaningfulWindowsOptions(podOpts),
    });
  }
  for (const c of pod.containers) {
    const opts = getAt(c.value, ['securityContext', 'windowsOptions']);
    if (isObj(opts)) {
      evidence.push({
        signal: 'windows-options',
        os: 'windows',
        path: [...c.path, 'securityContext', 'windowsOptions'],
        detail: `container ${c.name} securityContext.windowsOptions`,
        strong: meaningfulWindowsOptions(opts),
      });
    }
    if (c.image) {
      const why = windowsImageEvidence(c.image);
      if (why) evidence.push({ signal: 'image', os: 'windows', path: [...c.path, 'image'], detail: why, strong: true });
    }
    const cmd = commandEvidence(c.value);
    if (cmd) evidence.push({ signal: 'command', os: 'windows', path: c.path, detail: cmd, strong: false });
  }

  let os: Targeting['os'] = 'unknown';
  if (osName === 'windows') os = 'windows';
  else if (osName === 'linux') os = 'linux';
  else if (evidence.some((e) => e.os === 'linux' && e.strong && e.signal !== 'image')) os = 'linux';
  else if (evidence.some((e) => e.os === 'windows' && e.strong)) os = 'windows';
  return { os, declared: osName === 'windows', evidence, builds };
}

/**
 * `windowsOptions: {}` or `{hostProcess: false}` says nothing about the OS: policy test suites put
 * them on Linux pods. Only a real Windows setting (an account, gMSA, hostProcess: true) is strong.
 */
function meaningfulWindowsOptions(opts: Record<string, unknown>): boolean {
  return Object.entries(opts).some(([k, v]) => v !== null && v !== undefined && !(k === 'hostProcess' && v === false));
}

function commandEvidence(container: Record<string, unknown>): string | undefined {
  const parts: unknown[] = [];
  if (Array.isArray(container.command)) parts.push(...container.command.slice(0, 2));
  if (parts.length === 0) return undefined;
  const first = String(parts[0] ?? '').toLowerCase();
  if (/^(powershell|pwsh|cmd)(\.exe)?$/.test(first) || /^[a-z]:\\/.test(first))
    return `command ${String(parts[0])} is a Windows program`;
  return undefined;
}

/** Strongest piece of Windows evidence, for messages ("inferred from …"). */
export function windowsReason(t: Targeting): string {
  const e = t.evidence.find((x) => x.os === 'windows' && x.strong) ?? t.evidence.find((x) => x.os === 'windows');
  return e ? e.detail : 'no Windows evidence';
}
