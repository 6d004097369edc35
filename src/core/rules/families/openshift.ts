import type { EditOp } from '../../manifest/edits';
import { getAt, isObj, type Obj, type Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import { podSpecOf, WORKLOAD_KINDS, type ObjectView, type PodSpecView } from '../../manifest/workloads';
import { selectorMatches } from '../../drain';
import { isOpenShift, openshiftOrigin, stringMap, workloadKey } from '../facts';
import { addOsWindowsFix, inferredNote, isSet } from '../helpers';
import { OS_LABELS, targetingOf } from '../targeting';
import { BUILD_LABEL } from '../../well-known';
import { featureVerdict, parseOpenShiftRelease } from '../../openshift/windows-support';
import type { FixSpec, ObjectRule, PodRule, Reporter, Rule } from '../types';

// ---------------------------------------------------------------------------------------------
// OCP001: DeploymentConfig → Deployment

const DC_SPEC_KEYS = new Set([
  'replicas',
  'selector',
  'template',
  'strategy',
  'triggers',
  'test',
  'minReadySeconds',
  'revisionHistoryLimit',
  'paused',
]);
const DC_STRATEGY_KEYS = new Set([
  'type',
  'rollingParams',
  'recreateParams',
  'resources',
  'labels',
  'annotations',
  'activeDeadlineSeconds',
]);
const ROLLING_PARAMS = new Set([
  'updatePeriodSeconds',
  'intervalSeconds',
  'timeoutSeconds',
  'maxSurge',
  'maxUnavailable',
]);
const RECREATE_PARAMS = new Set(['timeoutSeconds']);

function onlyKeys(v: unknown, allowed: Set<string>): boolean {
  return v === undefined || v === null || (isObj(v) && Object.keys(v).every((k) => allowed.has(k)));
}

function isStringMap(v: unknown): v is Record<string, string> {
  return isObj(v) && Object.keys(v).length > 0 && Object.values(v).every((x) => typeof x === 'string');
}

/**
 * Edits that turn a DeploymentConfig into an equivalent apps/v1 Deployment, or a reason why that
 * is not safe (hooks, image-stream triggers, custom strategies: behaviour a Deployment lacks).
 */
function deploymentConfigToDeployment(object: ObjectView): { ops: EditOp[] } | { unsafe: string } {
  const base = object.path;
  const spec = getAt(object.value, ['spec']);
  if (!isObj(spec)) return { unsafe: 'it has no spec' };
  const extra = Object.keys(spec).filter((k) => !DC_SPEC_KEYS.has(k));
  if (extra.length > 0) return { unsafe: `spec.${extra[0]} has no Deployment equivalent` };
  if (spec.test === true) return { unsafe: 'spec.test: true has no Deployment equivalent' };
  const triggers = Array.isArray(spec.triggers) ? spec.triggers : [];
  if (triggers.some((t) => isObj(t) && t.type === 'ImageChange')) {
    return {
      unsafe:
        'an ImageChange trigger supplies the image from an image stream (use the image.openshift.io/triggers annotation on a Deployment)',
    };
  }

  const ops: EditOp[] = [
    { op: 'set', path: [...base, 'apiVersion'], value: 'apps/v1' },
    { op: 'set', path: [...base, 'kind'], value: 'Deployment' },
  ];

  // selector: a plain label map in a DeploymentConfig, `matchLabels` in a Deployment (and required).
  const selector = spec.selector;
  if (selector === undefined || selector === null) {
    const labels = getAt(spec, ['template', 'metadata', 'labels']);
    if (!isStringMap(labels)) return { unsafe: 'it has no selector and no template labels to build one from' };
    ops.push({ op: 'set', path: [...base, 'spec', 'selector'], value: { matchLabels: { ...labels } }, first: true });
  } else if (isStringMap(selector)) {
    ops.push({ op: 'set', path: [...base, 'spec', 'selector'], value: { matchLabels: { ...selector } } });
  } else {
    return { unsafe: 'spec.selector is not a plain label map' };
  }

  const strategy = spec.strategy;
  if (strategy !== undefined && strategy !== null) {
    if (!isObj(strategy) || !onlyKeys(strategy, DC_STRATEGY_KEYS))
      return { unsafe: 'spec.strategy has settings a Deployment lacks' };
    const type = strategy.type ?? 'Rolling';
    if (type === 'Rolling') {
      if (!onlyKeys(strategy.rollingParams, ROLLING_PARAMS))
        return { unsafe: 'the rolling strategy has lifecycle hooks (pre/post), which a Deployment lacks' };
      const params = isObj(strategy.rollingParams) ? strategy.rollingParams : {};
      const rollingUpdate: Obj = {};
      if (params.maxSurge !== undefined) rollingUpdate.maxSurge = params.maxSurge;
      if (params.maxUnavailable !== undefined) rollingUpdate.maxUnavailable = params.maxUnavailable;
      const value: Obj = { type: 'RollingUpdate' };
      if (Object.keys(rollingUpdate).length > 0) value.rollingUpdate = rollingUpdate;
      ops.push({ op: 'set', path: [...base, 'spec', 'strategy'], value });
    } else if (type === 'Recreate') {
      if (!onlyKeys(strategy.recreateParams, RECREATE_PARAMS))
        return { unsafe: 'the recreate strategy has lifecycle hooks (pre/mid/post), which a Deployment lacks' };
      ops.push({ op: 'set', path: [...base, 'spec', 'strategy'], value: { type: 'Recreate' } });
    } else {
      return { unsafe: `strategy type ${preview(type)} has no Deployment equivalent` };
    }
  }

  // DeploymentConfig-only fields: ConfigChange triggers are what a Deployment always does.
  for (const key of ['triggers', 'test']) {
    if (key in spec) ops.push({ op: 'delete', path: [...base, 'spec', key], keep: base.length + 1 });
  }
  if (isSet(object.value, 'status')) ops.push({ op: 'delete', path: [...base, 'status'], keep: base.length });
  return { ops };
}

const OCP001: PodRule = {
  id: 'OCP001',
  admission: {
    enforceable: false,
    why: 'not-generated',
    detail:
      'DeploymentConfigs are served by openshift-apiserver (an aggregated API, with no CustomResourceDefinition to install), which the test API server cannot run, so its parity with check cannot be proven on a real server yet',
  },
  scope: 'pod',
  family: 'openshift',
  severity: 'error',
  title:
    'DeploymentConfig whose pods target Windows: Windows nodes do not support workloads created by deployment configs.',
  check({ pod, target }, report) {
    if (pod.object.kind !== 'DeploymentConfig' || target.os !== 'windows') return;
    const conversion = deploymentConfigToDeployment(pod.object);
    const fixes: FixSpec[] =
      'ops' in conversion ? [{ title: 'Convert to an apps/v1 Deployment', kind: 'rewrite', ops: conversion.ops }] : [];
    const howTo =
      'ops' in conversion
        ? 'Use an apps/v1 Deployment instead (quick fix available).'
        : `Use an apps/v1 Deployment instead; convert it by hand because ${conversion.unsafe}.`;
    report({
      path: [...pod.object.path, 'kind'],
      target: 'value',
      message: `Windows nodes do not support workloads created by using deployment configs (OpenShift WMCO limitation)${inferredNote(target)}. ${howTo}`,
      fixes,
    });
  },
};

// ---------------------------------------------------------------------------------------------
// OCP002: OpenShift features Windows nodes do not support

const ISTIO_INJECT = 'sidecar.istio.io/inject';

function windowsSelectorKey(selector: unknown): string | undefined {
  if (!isObj(selector)) return undefined;
  for (const label of OS_LABELS) {
    const v = selector[label];
    if (typeof v === 'string' && v.toLowerCase() === 'windows') return label;
  }
  return BUILD_LABEL in selector ? BUILD_LABEL : undefined;
}

/** The pod template of a Knative Service or Configuration, read like a workload's. */
function knativePod(object: ObjectView): PodSpecView | undefined {
  if (!object.apiVersion.startsWith('serving.knative.dev/')) return undefined;
  // Same layout as a Deployment: spec.template.{metadata,spec}.
  const view = podSpecOf({ ...object, kind: 'Deployment' });
  return view ? { ...view, object } : undefined;
}

function isTrue(v: unknown): boolean {
  return v === true || (typeof v === 'string' && v.trim().toLowerCase() === 'true');
}

function checkIstio(pod: PodSpecView, namespaceLabels: Record<string, string> | undefined, report: Reporter) {
  const what = `${pod.object.kind}${pod.object.name ? ` "${pod.object.name}"` : ''}`;
  for (const where of ['annotations', 'labels'] as const) {
    const v = getAt(pod.metadata, [where, ISTIO_INJECT]);
    if (v === undefined) continue;
    if (!isTrue(v)) return; // an explicit opt-out (or anything else) wins over the namespace
    const path = [...pod.metadataPath, where, ISTIO_INJECT];
    report({
      path,
      message: `OpenShift Service Mesh is not supported on Windows nodes: the injected Envoy sidecar and init container are Linux containers, so the pods of ${what} cannot start there. Set ${ISTIO_INJECT} to "false" and keep Windows workloads out of the mesh.`,
      fixes: [{ title: `Set ${ISTIO_INJECT}: "false"`, kind: 'rewrite', ops: [{ op: 'set', path, value: 'false' }] }],
    });
    return;
  }
  if (namespaceLabels?.['istio-injection'] === 'enabled') {
    report({
      path: [...pod.metadataPath],
      message: `Namespace "${pod.object.namespace}" has istio-injection=enabled, but OpenShift Service Mesh is not supported on Windows nodes: the injected Linux sidecar keeps the pods of ${what} from starting. Opt this workload out with the annotation ${ISTIO_INJECT}: "false".`,
      fixes: [
        {
          title: `Add ${ISTIO_INJECT}: "false"`,
          kind: 'rewrite',
          ops: [{ op: 'set', path: [...pod.metadataPath, 'annotations', ISTIO_INJECT], value: 'false' }],
        },
      ],
    });
  }
}

/** Where Tekton runs carry pod templates: TaskRun and v1beta1 PipelineRun, v1 PipelineRun, and per-task overrides. */
function tektonPodTemplates(value: unknown): Path[] {
  const out: Path[] = [
    ['spec', 'podTemplate'],
    ['spec', 'taskRunTemplate', 'podTemplate'],
  ];
  const specs = getAt(value, ['spec', 'taskRunSpecs']);
  if (Array.isArray(specs))
    specs.forEach((_, i) =>
      out.push(['spec', 'taskRunSpecs', i, 'podTemplate'], ['spec', 'taskRunSpecs', i, 'taskPodTemplate']),
    );
  return out;
}

const OCP002: ObjectRule = {
  id: 'OCP002',
  admission: {
    enforceable: false,
    why: 'not-a-pod',
    detail: 'about OpenShift kinds (builds, pipelines, Serverless, Service Mesh, monitoring)',
  },
  scope: 'object',
  family: 'openshift',
  severity: 'warning',
  title:
    'OpenShift feature not supported on Windows nodes: builds, Pipelines (TaskRun/PipelineRun pod templates), Serverless, Service Mesh sidecars, user-defined monitoring (PodMonitors), vertical (and, depending on version, horizontal) pod autoscaling.',
  kinds: ['BuildConfig', 'Build', 'TaskRun', 'PipelineRun', 'Service', 'Configuration', ...WORKLOAD_KINDS],
  check({ object, facts, pod: known }, report) {
    const name = object.name ? ` "${object.name}"` : '';
    if (object.kind === 'TaskRun' || object.kind === 'PipelineRun') {
      // Tekton runs on Windows nodes elsewhere; OpenShift Pipelines does not (Windows Container Support limitations).
      if (!object.apiVersion.startsWith('tekton.dev/') || !isOpenShift(facts)) return;
      for (const base of tektonPodTemplates(object.value)) {
        const key = windowsSelectorKey(getAt(object.value, [...base, 'nodeSelector']));
        if (!key) continue;
        report({
          path: [...object.path, ...base, 'nodeSelector', key],
          message: `OpenShift Pipelines is not supported on Windows nodes, yet this pod template of ${object.kind}${name} selects them: its task pods cannot run there. Run the pipeline on Linux nodes (build Windows images outside the cluster) and remove this node selector.`,
        });
      }
      return;
    }
    if (object.kind === 'BuildConfig' || object.kind === 'Build') {
      const key = windowsSelectorKey(getAt(object.value, ['spec', 'nodeSelector']));
      if (!key) return;
      report({
        path: [...object.path, 'spec', 'nodeSelector', key],
        message: `OpenShift image builds are not supported on Windows nodes: the build pod of ${object.kind}${name} can never run there. Build Windows images outside the cluster (e.g. on a Windows build host) and remove this node selector.`,
      });
      return;
    }
    if (object.kind === 'Service' || object.kind === 'Configuration') {
      const pod = knativePod(object);
      if (!pod || targetingOf(pod, facts).os !== 'windows') return;
      report({
        path: [...object.path, 'kind'],
        target: 'value',
        message: `OpenShift Serverless is not supported on Windows nodes, yet the pod template of Knative ${object.kind}${name} targets Windows. Run it as a Deployment with a Service instead.`,
      });
      return;
    }
    const pod = known?.view ?? podSpecOf(object);
    if (!pod || (known?.target ?? targetingOf(pod, facts)).os !== 'windows') return;
    checkIstio(pod, object.namespace !== undefined ? facts.namespaces.get(object.namespace) : undefined, report);
    if (!isOpenShift(facts)) return;
    const path = [...object.path, 'metadata', 'name'];
    const labels = stringMap(getAt(pod.metadata, ['labels']));
    for (const m of facts.podMonitors) {
      // openshift-* namespaces belong to platform monitoring (WMCO's own Windows node metrics), which is supported.
      if (m.namespace?.startsWith('openshift-')) continue;
      const inScope = m.namespaces === 'any' || m.namespaces.includes(object.namespace ?? '');
      if (!inScope || !selectorMatches(m.selector, labels)) continue;
      report({
        path,
        target: 'value',
        message: `Monitoring for user-defined projects is not supported on Windows nodes, but PodMonitor "${preview(m.name, 80).slice(1, -1)}" selects the pods of this Windows ${object.kind}: do not count on their metrics. Leave Windows pods out of the PodMonitor's selector.`,
      });
    }
    for (const scaler of facts.autoscaled.get(workloadKey(object.kind, object.namespace, object.name)) ?? []) {
      if (scaler.kind === 'VerticalPodAutoscaler') {
        report({
          path,
          target: 'value',
          message: `Vertical Pod Autoscaling is not supported on Windows nodes, but VerticalPodAutoscaler "${preview(scaler.name, 80).slice(1, -1)}" targets this Windows ${object.kind}. Remove the autoscaler and size the container requests by hand.`,
        });
      } else if (scaler.kind === 'HorizontalPodAutoscaler') {
        report({
          path,
          target: 'value',
          severity: 'info',
          message: `HorizontalPodAutoscaler "${preview(scaler.name, 80).slice(1, -1)}" targets this Windows ${object.kind}; OpenShift lists Horizontal Pod Autoscaling on Windows nodes as unsupported in some releases. Check the Windows Container Support release notes of your WMCO version.`,
        });
      }
    }
  },
};

// ---------------------------------------------------------------------------------------------
// OCP003: spec.os.name on OpenShift

const OCP003: PodRule = {
  id: 'OCP003',
  admission: { enforceable: false, why: 'node-facts', detail: 'needs to know the cluster is OpenShift' },
  scope: 'pod',
  family: 'openshift',
  severity: 'warning',
  title:
    'Windows pod on OpenShift without spec.os.name: windows: SCC admission treats it as Linux, injects runAsNonRoot and other Linux defaults, and no Windows SCC check applies.',
  check({ pod, target, facts }, report) {
    if (!isOpenShift(facts) || target.os !== 'windows' || isSet(pod.spec, 'os')) return;
    report({
      path: pod.path,
      message: `On OpenShift a Windows pod needs spec.os.name: windows${inferredNote(target)}: without it SCC admission treats it as a Linux pod: it injects runAsNonRoot: true (the kubelet then refuses a container whose runAsUserName is ContainerAdministrator, and cannot enforce it on a Server Core image that runs as ContainerAdministrator by default) and Linux settings the Windows kubelet ignores, and no Windows SCC check applies.${openshiftOrigin(facts)} Add spec.os.name: windows.`,
      fixes: [addOsWindowsFix(pod)],
    });
  },
};

// ---------------------------------------------------------------------------------------------
// OCP004: features the cluster's OpenShift release does not support on Windows nodes

const OCP004: PodRule = {
  id: 'OCP004',
  admission: { enforceable: false, why: 'node-facts', detail: "needs the cluster's OpenShift release" },
  scope: 'pod',
  family: 'openshift',
  severity: 'warning',
  title:
    "Windows pod uses what the cluster's OpenShift release does not support on Windows nodes: private registries before 4.16, CSI volumes on 4.6 (with cluster facts or --openshift-version).",
  check({ pod, target, facts }, report) {
    const version = facts.cluster?.openshift?.version;
    const r = version ? parseOpenShiftRelease(version) : undefined;
    if (!r || target.os !== 'windows') return;
    const secrets = pod.spec.imagePullSecrets;
    const registries = featureVerdict('privateRegistries', r);
    if (Array.isArray(secrets) && secrets.length > 0 && !registries.supported) {
      report({
        path: [...pod.path, 'imagePullSecrets'],
        message: `imagePullSecrets: pulling from private registries on Windows nodes is not supported on OpenShift ${r.major}.${r.minor} (supported from 4.16, WMCO 10.16): the image pull may fail on the Windows node. Use a public image or upgrade the cluster.`,
      });
    }
    const storage = featureVerdict('csiStorage', r);
    const volumes = pod.spec.volumes;
    if (!storage.supported && Array.isArray(volumes)) {
      volumes.forEach((v, i) => {
        if (isObj(v) && isObj(v.csi)) {
          report({
            path: [...pod.path, 'volumes', i, 'csi'],
            message: `volumes[${i}].csi: OpenShift ${r.major}.${r.minor} supports only in-tree storage drivers on Windows nodes, so this CSI volume cannot mount there. Use an in-tree volume type or upgrade the cluster.`,
          });
        }
      });
    }
  },
};

export const openshiftRules: Rule[] = [OCP001, OCP002, OCP003, OCP004];
