// The kubeadm path's proxy (`join --via kubeadm --proxy URL [--no-proxy LIST]`): containerd and the
// kubelet get HTTP_PROXY, HTTPS_PROXY and NO_PROXY as their own service environment (the machine's
// is left alone), NO_PROXY always keeps the cluster's Service and Pod networks, its domains, the API
// endpoint and the node itself; the host must reach the probe image's registry through the proxy,
// and the node is annotated with what was set so `nodes proxy` can compare later.
import { annotateNode, nodeCall } from '../cluster/nodes';
import { compareNodeProxy, type NodeProxyComparison } from '../core/proxy/node-env';
import { kubeadmNoProxy } from '../core/proxy/no-proxy';
import { reachFindings, registriesThroughProxy, registryProbeUrl } from '../core/proxy/reach';
import { PROXY_ANNOTATION, proxyAnnotation, redactProxyUrl, type ProxyVariable } from '../core/proxy/settings';
import { serviceState } from '../core/windows/host-ops';
import { restartService } from '../core/windows/node-ops';
import { nodeProxyEnvironment, reachThroughProxy, setServiceProxyEnvironment } from '../core/windows/proxy-ops';
import type { KubeadmContext } from './kubeadm';
import type { KubeadmRemoveOptions } from './kubeadm-remove';
import { getNode } from '../cluster/nodes';
import type { WindowsHost } from '../remote/windows-host';
import { nodeOf } from './kubeadm-network-steps';
import type { Step } from './plan';
import { blocking, PreflightError } from './preflight';

/** The services that pull images and talk to the API server on a kubeadm node. */
const SERVICES = ['containerd', 'kubelet'] as const;
/** The image the join's probe pod runs: its registry must be reachable through the proxy. */
const PROBE_IMAGE = 'mcr.microsoft.com/windows/nanoserver';

/** The variables containerd and the kubelet get for a join's --proxy and --no-proxy. */
export function kubeadmProxyVariables(ctx: KubeadmContext): Partial<Record<ProxyVariable, string>> {
  const proxy = ctx.opts.proxy as string;
  const cluster = ctx.state.cluster;
  return {
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    NO_PROXY: kubeadmNoProxy({
      serviceCidrs: cluster?.serviceSubnet ? [cluster.serviceSubnet] : [],
      podCidrs: cluster?.podSubnets ?? [],
      apiHost: new URL(ctx.opts.kube.server).hostname,
      nodeAddress: ctx.opts.address,
      ...(ctx.opts.noProxy ? { extra: ctx.opts.noProxy } : {}),
    }),
  };
}

async function comparison(ctx: KubeadmContext, signal: AbortSignal): Promise<NodeProxyComparison> {
  const answer = await ctx.opts.host.run(nodeProxyEnvironment(SERVICES), signal);
  return compareNodeProxy(kubeadmProxyVariables(ctx), answer);
}

/** Every service carries the variables as its own (the machine's may differ: those are not ours). */
const servicesSet = (c: NodeProxyComparison): boolean =>
  c.services.every((s) => s.exists && s.variables.every((v) => v.equal && v.source === 'service'));

export function proxyEnvironmentStep(): Step<KubeadmContext> {
  return {
    id: 'proxy-environment',
    title: 'Set the proxy for containerd and the kubelet (service environment), and reach the registry through it',
    description:
      "HTTP_PROXY, HTTPS_PROXY and NO_PROXY in each service's Environment value; NO_PROXY keeps the cluster's Service and Pod networks, its domains, the API endpoint and the node. A running containerd is restarted to take them.",
    preview: {
      check: 'containerd and kubelet carry the proxy variables in their own environment',
      powershell: [
        setServiceProxyEnvironment('containerd', {
          HTTP_PROXY: '<proxy>',
          HTTPS_PROXY: '<proxy>',
          NO_PROXY: '<no-proxy>',
        }).script,
        reachThroughProxy('<proxy>', [registryProbeUrl('mcr.microsoft.com')]).script,
      ],
    },
    check: async (ctx, signal) => (servicesSet(await comparison(ctx, signal)) ? 'done' : 'todo'),
    apply: async (ctx, signal, report) => {
      const variables = kubeadmProxyVariables(ctx);
      for (const name of SERVICES) {
        const r = await ctx.opts.host.run(setServiceProxyEnvironment(name, variables), signal);
        if (!r.changed) continue;
        report(`${name}: proxy ${redactProxyUrl(ctx.opts.proxy as string)}, NO_PROXY ${variables.NO_PROXY}`);
        if ((await ctx.opts.host.run(serviceState(name), signal)).status === 'Running') {
          report(`restarting ${name} to take them`);
          await ctx.opts.host.run(restartService(name), signal);
        }
      }
      const urls =
        ctx.opts.proxyCheckUrls ?? registriesThroughProxy([PROBE_IMAGE], variables.NO_PROXY).map(registryProbeUrl);
      const { results } = await ctx.opts.host.run(reachThroughProxy(ctx.opts.proxy as string, urls), signal);
      const findings = reachFindings(ctx.opts.proxy as string, results);
      for (const f of findings) report(f.title);
      if (blocking(findings).length > 0) throw new PreflightError(findings);
    },
    verify: async (ctx, signal) =>
      servicesSet(await comparison(ctx, signal)) ? true : 'containerd or the kubelet lacks the proxy variables',
    timeoutMs: 300_000,
  };
}

/** After the join: the node says which proxy kube-windows set (for `nodes proxy` and drift). */
export function proxyAnnotationStep(): Step<KubeadmContext> {
  return {
    id: 'proxy-annotation',
    title: `Annotate the node with the proxy it was given (${PROXY_ANNOTATION})`,
    preview: {
      check: `the node's ${PROXY_ANNOTATION} annotation holds this proxy`,
      api: [
        nodeCall('PATCH', '<node>', { metadata: { annotations: { [PROXY_ANNOTATION]: '<proxy, no credentials>' } } }),
      ],
    },
    check: async (ctx, signal) => {
      const want = annotationOf(ctx);
      return (await nodeOf(ctx, signal))?.metadata.annotations?.[PROXY_ANNOTATION] === want ? 'done' : 'todo';
    },
    apply: async (ctx, signal) => {
      const node = await nodeOf(ctx, signal);
      if (!node) throw new Error(`The node ${ctx.state.nodeName ?? ''} is not registered yet.`);
      await annotateNode(ctx.opts.kube, node.metadata.name, { [PROXY_ANNOTATION]: annotationOf(ctx) }, signal);
    },
    verify: async (ctx, signal) =>
      (await nodeOf(ctx, signal))?.metadata.annotations?.[PROXY_ANNOTATION] === annotationOf(ctx)
        ? true
        : 'the annotation is not there',
  };
}

function annotationOf(ctx: KubeadmContext): string {
  const v = kubeadmProxyVariables(ctx);
  return proxyAnnotation({ httpProxy: v.HTTP_PROXY, httpsProxy: v.HTTPS_PROXY, noProxy: v.NO_PROXY });
}

/** Whether the node was given a proxy by kube-windows (only then does a removal take it out). */
async function hadOurProxy(o: KubeadmRemoveOptions, signal: AbortSignal): Promise<boolean> {
  return Boolean((await getNode(o.kube, o.nodeName, signal))?.metadata.annotations?.[PROXY_ANNOTATION]);
}

/** The removal's side: containerd's proxy variables taken out again (the kubelet's service is deleted). */
export function proxyClearStep(): Step<KubeadmRemoveOptions> {
  const ownProxy = async (o: KubeadmRemoveOptions, signal: AbortSignal): Promise<boolean> => {
    const answer = await (o.host as WindowsHost).run(nodeProxyEnvironment(['containerd']), signal);
    const c = compareNodeProxy({}, answer);
    return c.services.some((s) => s.exists && s.variables.some((v) => v.source === 'service'));
  };
  return {
    id: 'proxy-clear',
    title: "Take the proxy kube-windows set out of containerd's environment",
    preview: {
      check: `the node has no ${PROXY_ANNOTATION} annotation, or containerd carries no proxy variables of its own`,
      powershell: [setServiceProxyEnvironment('containerd', {}).script],
    },
    check: async (o, signal) => ((await hadOurProxy(o, signal)) && (await ownProxy(o, signal)) ? 'todo' : 'done'),
    apply: async (o, signal) => {
      const host = o.host as WindowsHost;
      const r = await host.run(setServiceProxyEnvironment('containerd', {}), signal);
      if (r.changed && (await host.run(serviceState('containerd'), signal)).status === 'Running')
        await host.run(restartService('containerd'), signal);
    },
    verify: async (o, signal) => ((await ownProxy(o, signal)) ? 'containerd still carries proxy variables' : true),
    timeoutMs: 120_000,
  };
}
