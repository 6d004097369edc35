import { INSTALL_CONFIG_KIND } from '../../manifest/workloads';
import { getAt, isObj, type Obj, type Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import type { ObjectContext, ObjectRule, Rule } from '../types';
import { overlapsClassE } from '../../cidr';

export { ipv4Range, overlapsClassE } from '../../cidr';

type Flavour = 'install-config' | 'config' | 'operator';

interface NetworkView {
  flavour: Flavour;
  /** Path of the object holding `clusterNetwork` and the network type. */
  base: Path;
  clusterNetworkPath: Path;
  typePath: Path;
}

function viewOf(ctx: ObjectContext): NetworkView | undefined {
  const { object } = ctx;
  const p = object.path;
  if (object.kind === INSTALL_CONFIG_KIND) {
    return {
      flavour: 'install-config',
      base: [...p, 'networking'],
      clusterNetworkPath: [...p, 'networking', 'clusterNetwork'],
      typePath: [...p, 'networking', 'networkType'],
    };
  }
  if (object.kind !== 'Network') return undefined;
  if (object.apiVersion === 'config.openshift.io/v1') {
    return {
      flavour: 'config',
      base: [...p, 'spec'],
      clusterNetworkPath: [...p, 'spec', 'clusterNetwork'],
      typePath: [...p, 'spec', 'networkType'],
    };
  }
  if (object.apiVersion === 'operator.openshift.io/v1') {
    return {
      flavour: 'operator',
      base: [...p, 'spec'],
      clusterNetworkPath: [...p, 'spec', 'clusterNetwork'],
      typePath: [...p, 'spec', 'defaultNetwork', 'type'],
    };
  }
  return undefined;
}

/** Relative path inside the object (the object's own path stripped). */
function rel(ctx: ObjectContext, path: Path): Path {
  return path.slice(ctx.object.path.length);
}

const KINDS = ['Network', INSTALL_CONFIG_KIND];

const NET001: ObjectRule = {
  id: 'NET001',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about the cluster network configuration' },
  scope: 'object',
  family: 'network',
  severity: 'error',
  title: 'Class-E clusterNetwork CIDR (240.0.0.0/4): OpenShift Windows nodes cannot use it.',
  kinds: KINDS,
  check(ctx, report) {
    const view = viewOf(ctx);
    if (!view) return;
    const list = getAt(ctx.object.value, rel(ctx, view.clusterNetworkPath));
    if (!Array.isArray(list)) return;
    list.forEach((entry, i) => {
      const cidr = isObj(entry) ? entry.cidr : undefined;
      if (typeof cidr !== 'string' || !overlapsClassE(cidr)) return;
      report({
        path: [...view.clusterNetworkPath, i, 'cidr'],
        target: 'value',
        message: `Cluster network ${preview(cidr)} lies in the class-E range 240.0.0.0/4, which OpenShift lists as incompatible with Windows nodes. Choose a private range such as 10.128.0.0/14 if the cluster will run Windows nodes.`,
      });
    });
  },
};

const NET002: ObjectRule = {
  id: 'NET002',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about the cluster network configuration' },
  scope: 'object',
  family: 'network',
  severity: 'warning',
  title: 'Cluster network type other than OVNKubernetes: WMCO requires OVN-Kubernetes with hybrid overlay networking.',
  kinds: KINDS,
  check(ctx, report) {
    const view = viewOf(ctx);
    if (!view) return;
    const type = getAt(ctx.object.value, rel(ctx, view.typePath));
    if (typeof type !== 'string' || type === '' || type === 'OVNKubernetes') return;
    report({
      path: view.typePath,
      target: 'value',
      message: `Network type ${preview(type)} cannot host Windows nodes: WMCO supports only OVN-Kubernetes with hybrid overlay networking and refuses to configure Windows nodes otherwise. Use OVNKubernetes if the cluster will run Windows nodes.`,
      fixes:
        view.flavour === 'install-config'
          ? [
              {
                title: 'Change networkType to OVNKubernetes',
                kind: 'rewrite',
                ops: [{ op: 'set', path: view.typePath, value: 'OVNKubernetes' }],
              },
            ]
          : [],
    });
  },
};

const NET003: ObjectRule = {
  id: 'NET003',
  admission: { enforceable: false, why: 'not-a-pod', detail: 'about the cluster network configuration' },
  scope: 'object',
  family: 'network',
  severity: 'warning',
  title:
    'OVN-Kubernetes operator Network without hybridOverlayConfig: WMCO refuses "cluster is not configured for OVN hybrid networking".',
  kinds: ['Network'],
  check(ctx, report) {
    const view = viewOf(ctx);
    if (!view || view.flavour !== 'operator') return;
    const spec = ctx.object.value.spec;
    const defaultNetwork = isObj(spec) ? spec.defaultNetwork : undefined;
    if (!isObj(defaultNetwork) || defaultNetwork.type !== 'OVNKubernetes') return;
    const ovn: Obj | undefined = isObj(defaultNetwork.ovnKubernetesConfig)
      ? defaultNetwork.ovnKubernetesConfig
      : undefined;
    if (ovn && isObj(ovn.hybridOverlayConfig)) return;
    const base = [...view.base, 'defaultNetwork'];
    report({
      path: ovn ? [...base, 'ovnKubernetesConfig'] : [...base, 'type'],
      message:
        'OVN-Kubernetes without hybrid overlay: WMCO refuses to configure Windows nodes ("cluster is not configured for OVN hybrid networking"). Add defaultNetwork.ovnKubernetesConfig.hybridOverlayConfig.hybridClusterNetwork with a CIDR for the Windows nodes.',
    });
  },
};

export const networkRules: Rule[] = [NET001, NET002, NET003];
