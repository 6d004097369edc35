// The world the real-VS-Code tests and `npm run sandbox` run against: the Kubernetes API emulator
// seeded with a small mixed OpenShift cluster (mixedCluster() plus the cluster config BYOH needs),
// the OLM and WMCO stand-ins, and simulated Windows hosts over SSH on loopback addresses
// 127.0.0.2.. that "Join Windows node" can join; with `machineApi`, an installer-provisioned AWS cluster
// with a Linux worker MachineSet and the machine-controller double (Windows MachineSets). With
// `nodeHosts`, every seeded Windows node is a simulated host too (./sandbox-nodes.ts), and a kubelet
// stand-in lets graceful reboots finish; `failingPods` seeds a few failing Windows pods; `kubeadm`
// adds a second context, a plain kubeadm cluster with Calico and a host to join to it; `proxy` makes the
// OpenShift cluster proxy-enabled (./proxy-double.ts on loopback as its cluster-wide proxy, its trusted CA
// bundle, WMCO's proxy variables on every node host, drifted on the first). Every host key
// is written to `known_hosts` in `dir`. Test doubles only: bundled into out/e2e and out/sandbox,
// never into dist/ or the .vsix.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { calicoManifest, controlPlaneNode, kubeadmKubeProxy } from './cni-seed';
import { startEmulator, type Emulator, type KubeObject } from './kube-api-emulator';
import { kubeadmCluster, mixedCluster, namespace, openshiftClusterConfig, WMCO_NAMESPACE } from './kube-seed';
import { fakeKubeBinary, wireKubeadmJoin } from './kubeadm-wiring';
import { startKubeletStandin } from './kubelet-standin';
import { startNodeDoubles } from './node-doubles';
import { failingWindowsPods } from './problems-seed';
import {
  attachWmcoHostSetup,
  attachWmcoMirrorWriter,
  nodeHostState,
  placeWindowsNodes,
  writeWmcoTree,
  type NodeHost,
} from './sandbox-nodes';
import { infrastructure, linuxWorkerMachineSet } from './machine-api-seed';
import { startMachineControllerDouble } from './machine-controller-double';
import { attachOlmStandin } from './olm-standin';
import { attachWmcoStandin, type WmcoHost } from './wmco-standin';
import { setMachineEnv, simProxy, startWindowsHostSim, type SimHost, type SimHostOptions } from './windows-host-sim';
import { startProxyDouble, type ProxyDouble } from './proxy-double';

export interface WorldOptions {
  /** Folder for the kubeconfig and the SSH key (created; removed by stop() when `cleanup`). */
  dir: string;
  /** Context name in the kubeconfig. */
  context: string;
  /** Simulated Windows hosts to start (not yet joined), at 127.0.0.2, 127.0.0.3, ... */
  hosts: number;
  /** SSH port of every simulated host (default 22; the extension's kubeWindows.ssh.port and the CLI's --port reach another). */
  sshPort?: number;
  /** A simulated host for every seeded Windows node (its InternalIP rewritten to the host's address), with a kubelet double and stand-in. */
  nodeHosts?: boolean;
  /** A few failing Windows pods (problems-seed's failingWindowsPods). */
  failingPods?: boolean;
  /** A second context: a kubeadm cluster with Calico, and one simulated host to join to it with the fake binaries in `dir`/payload. */
  kubeadm?: { context: string };
  user?: string;
  cleanup?: boolean;
  /**
   * OpenShift on AWS with the Machine API: the Infrastructure says AWS, a Linux worker MachineSet and
   * WMCO's windows-user-data secret exist, and the machine-controller double makes and moves Machines
   * (one step per `machineApi.tickMs`).
   */
  machineApi?: { tickMs: number };
  /**
   * A cluster-wide proxy (proxies.config.openshift.io/cluster): a proxy double on loopback, a trusted CA bundle
   * (openshift-config/user-ca-bundle) and, with `nodeHosts`, the proxy variables and CA WMCO sets on every node host,
   * the first node's NO_PROXY drifted. The kubeadm join's --proxy can use the same proxy.
   */
  proxy?: boolean;
}

/** The trusted CA bundle's ConfigMap the sandbox's Proxy names. */
export const SANDBOX_TRUSTED_CA = 'user-ca-bundle';

export interface World {
  emu: Emulator;
  kubeconfigPath: string;
  keyPath: string;
  /** OpenSSH known_hosts pinning every simulated host's key. */
  knownHostsPath: string;
  /** The SSH port every simulated host listens on. */
  sshPort: number;
  user: string;
  /** Every simulated host: the joinable ones, then the seeded nodes', then the kubeadm one. */
  sims: SimHost[];
  /** The joinable hosts' addresses (the first `hosts` of sims). */
  addresses: string[];
  /** Host name each simulated host reports (its Node gets this name, lower-cased). */
  hostnames: string[];
  /** With nodeHosts: the seeded Windows nodes and where their hosts are. */
  nodes: NodeHost[];
  /** With kubeadm: the second cluster, its joinable host and the payload folder. */
  kubeadm?: { context: string; emu: Emulator; address: string; hostname: string; payloadDir: string };
  /** With proxy: the cluster-wide proxy's URL and the NO_PROXY WMCO would set; the drifted node. */
  proxy?: { url: string; noProxy: string; driftedNode?: string };
  stop(): Promise<void>;
}

/** Both clusters in one kubeconfig: the first context current. */
function mergeKubeconfigs(file: string, parts: { path: string; name: string }[]): void {
  const docs = parts.map((p) => ({
    name: p.name,
    doc: parse(readFileSync(p.path, 'utf8')) as {
      clusters: { cluster: unknown }[];
      users: { user: unknown }[];
      contexts: { name: string; context: { namespace?: string } }[];
    },
  }));
  const merged = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: docs.map((d) => ({ name: d.name, cluster: d.doc.clusters[0]!.cluster })),
    users: docs.map((d) => ({ name: d.name, user: d.doc.users[0]!.user })),
    contexts: docs.map((d) => ({
      name: d.doc.contexts[0]!.name,
      context: { ...d.doc.contexts[0]!.context, cluster: d.name, user: d.name },
    })),
    'current-context': docs[0]!.doc.contexts[0]!.name,
  };
  writeFileSync(file, stringify(merged), { mode: 0o600 });
}

/** What the sandbox prints, also written to SANDBOX_DIR/sandbox.json for scripts and tests. */
export interface SandboxInfo {
  url: string;
  workspace: string;
  kubeconfig: string;
  contexts: { openshift: string; kubeadm: string };
  sshPort: number;
  user: string;
  keyPath: string;
  knownHosts: string;
  payloadDir: string;
  joinable: { address: string; hostname: string }[];
  nodes: { node: string; address: string }[];
  kubeadmHost: { address: string; hostname: string };
  /** The OpenShift context's cluster-wide proxy (a double on loopback) and the node whose settings drifted. */
  proxy?: { url: string; driftedNode?: string };
}

export const SIM_HOST_BUILD = '10.0.20348';

function keySecret(pem: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cloud-private-key', namespace: WMCO_NAMESPACE },
    type: 'Opaque',
    data: { 'private-key.pem': Buffer.from(pem).toString('base64') },
  } as KubeObject;
}

export async function startWorld(o: WorldOptions): Promise<World> {
  mkdirSync(o.dir, { recursive: true });
  const keyPath = join(o.dir, 'id_ed25519');
  rmSync(keyPath, { force: true });
  rmSync(`${keyPath}.pub`, { force: true });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'kube-windows-sandbox', '-f', keyPath]);
  const publicKeyLine = readFileSync(`${keyPath}.pub`, 'utf8').trim();
  const user = o.user ?? 'Administrator';
  const proxyDouble = o.proxy ? await startProxyDouble() : undefined;
  const config = openshiftClusterConfig({
    hybridOverlay: true,
    ...(proxyDouble
      ? { proxy: { httpProxy: proxyDouble.url, httpsProxy: proxyDouble.url, noProxy: '.lab.example.com' } }
      : {}),
  });
  const proxyObject = config.find((x) => x.kind === 'Proxy') as
    (KubeObject & { spec: Record<string, unknown>; status: { noProxy?: string } }) | undefined;
  if (proxyDouble && proxyObject) {
    proxyObject.spec.trustedCA = { name: SANDBOX_TRUSTED_CA };
    config.push(namespace('openshift-config'), trustedCaBundle(proxyDouble.caPem));
  }
  const machineApi: KubeObject[] = o.machineApi
    ? [
        namespace('openshift-machine-api'),
        linuxWorkerMachineSet('AWS'),
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'windows-user-data', namespace: 'openshift-machine-api' },
          type: 'Opaque',
          data: { userData: Buffer.from('<powershell></powershell>').toString('base64') },
        } as KubeObject,
      ]
    : [];
  // The Machine API cluster is an AWS one; the plain world is platform None (BYOH).
  const objects = o.machineApi
    ? [...config.filter((x) => x.kind !== 'Infrastructure'), infrastructure('AWS'), ...machineApi]
    : config;
  const port = o.sshPort ?? 22;
  const seed = [...mixedCluster(), ...objects, keySecret(readFileSync(keyPath, 'utf8'))];
  const failing = o.failingPods ? failingWindowsPods() : undefined;
  if (failing) seed.push(...failing.objects);
  // Addresses: the joinable hosts, then one per seeded Windows node, then the kubeadm host.
  const nodes = o.nodeHosts ? await placeWindowsNodes(seed, (i) => `127.0.0.${o.hosts + 2 + i}`) : [];
  const stoppers: (() => void | Promise<unknown>)[] = nodes.map((n) => () => n.kubelet.stop());
  if (proxyDouble) stoppers.unshift(() => proxyDouble.stop());
  const stopAll = async (): Promise<void> => {
    for (const s of stoppers.reverse()) await Promise.resolve(s()).catch(() => undefined);
    stoppers.length = 0;
  };
  const sims: SimHost[] = [];
  const addresses: string[] = [];
  const hostnames: string[] = [];
  const wmcoHosts = new Map<string, WmcoHost>();
  let emu: Emulator | undefined;
  let kubeadm: World['kubeadm'];
  const sim = async (address: string, hostname: string, extra: Partial<SimHostOptions> = {}): Promise<SimHost> => {
    const s = await startWindowsHostSim({
      listenHost: address,
      port,
      users: { [user]: [publicKeyLine] },
      defaultRouteIPv4: address,
      hostname,
      domain: 'lab.example.com',
      containersFeature: 'Enabled',
      dns: { 'api-int.test.example.com': ['10.0.0.2'] },
      rebootDelayMs: 50,
      rebootDurationMs: 300,
      ...extra,
    });
    sims.push(s);
    stoppers.push(() => s.stop());
    return s;
  };
  try {
    emu = await startEmulator({ objects: seed });
    const e = emu;
    stoppers.unshift(() => e.stop());
    for (const [key, text] of Object.entries(failing?.containerLogs ?? {})) {
      const [ns, pod, container] = key.replace(/#previous$/, '').split('/') as [string, string, string];
      emu.setPodLog(ns, pod, container, text, key.endsWith('#previous'));
    }
    if (o.machineApi) {
      const machines = startMachineControllerDouble(emu, { tickMs: o.machineApi.tickMs });
      stoppers.push(() => machines.stop());
    }
    for (let i = 0; i < o.hosts; i++) {
      const address = `127.0.0.${i + 2}`;
      const hostname = `WIN-SBX${i + 1}`;
      await sim(address, hostname);
      addresses.push(address);
      hostnames.push(hostname);
      wmcoHosts.set(address, { hostname, build: SIM_HOST_BUILD });
    }
    const mirrorSets = [...emu.list('ImageDigestMirrorSet'), ...emu.list('ImageTagMirrorSet')];
    const nodeSims: SimHost[] = [];
    for (const [i, n] of nodes.entries()) {
      // A host restart takes a moment, so that the node's NotReady is seen.
      const s = await sim(n.address, n.hostname, { ...nodeHostState(n.node), rebootDurationMs: 1500 });
      // WMCO wrote the mirror tree on each node; the first is stale (a mirror set changed since), so drift shows.
      writeWmcoTree(s, i === 0 ? [] : mirrorSets);
      // WMCO's proxy on each node; the first node's NO_PROXY lost the cluster's networks (drift to see).
      if (proxyDouble) configureProxyLikeWmco(s, proxyDouble, proxyObject?.status.noProxy ?? '', i === 0);
      nodeSims.push(s);
    }
    if (o.nodeHosts) {
      const kubelets = startKubeletStandin(emu, sims);
      const writer = attachWmcoMirrorWriter(emu, nodeSims);
      const setup = attachWmcoHostSetup(emu, sims.slice(0, o.hosts));
      stoppers.push(
        () => kubelets.stop(),
        () => writer.stop(),
        () => setup.stop(),
      );
    }
    if (o.kubeadm)
      kubeadm = await startKubeadmCluster(o.dir, o.kubeadm.context, sim, o.hosts + 2 + nodes.length, stoppers);
  } catch (err) {
    await stopAll();
    throw err;
  }
  const kubeconfigPath = join(o.dir, 'kubeconfig');
  const openshiftConfig = emu.kubeconfig({
    file: kubeadm ? join(o.dir, 'kubeconfig-openshift') : kubeconfigPath,
    context: o.context,
  });
  if (kubeadm) {
    const other = kubeadm.emu.kubeconfig({ file: join(o.dir, 'kubeconfig-kubeadm'), context: kubeadm.context });
    mergeKubeconfigs(kubeconfigPath, [
      { path: openshiftConfig, name: 'sandbox-openshift' },
      { path: other, name: 'sandbox-kubeadm' },
    ]);
  }
  const olm = attachOlmStandin(emu, { stepMs: 50 });
  const wmco = attachWmcoStandin(emu, { hosts: wmcoHosts, stepMs: 100 });
  stoppers.splice(
    1,
    0,
    () => olm.stop(),
    () => wmco.stop(),
  );
  writeFileSync(join(o.dir, 'hosts.txt'), addresses.map((a, i) => `${a} ${hostnames[i]}`).join('\n') + '\n');
  const knownHostsPath = join(o.dir, 'known_hosts');
  writeFileSync(knownHostsPath, sims.map((s) => s.knownHostsLine() + '\n').join(''));
  return {
    emu,
    kubeconfigPath,
    keyPath,
    knownHostsPath,
    sshPort: port,
    user,
    sims,
    addresses,
    hostnames,
    nodes,
    ...(kubeadm ? { kubeadm } : {}),
    ...(proxyDouble
      ? {
          proxy: {
            url: proxyDouble.url,
            noProxy: proxyObject?.status.noProxy ?? '',
            ...(nodes[0] ? { driftedNode: nodes[0].node } : {}),
          },
        }
      : {}),
    async stop() {
      await stopAll();
      if (o.cleanup) rmSync(o.dir, { recursive: true, force: true });
    },
  };
}

/** The ConfigMap a Proxy's spec.trustedCA names: the proxy's CA in `ca-bundle.crt`. */
function trustedCaBundle(caPem: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: SANDBOX_TRUSTED_CA, namespace: 'openshift-config' },
    data: { 'ca-bundle.crt': caPem },
  } as KubeObject;
}

/** What WMCO does on a node of a proxy-enabled cluster: the machine's proxy variables and the CA in the root store. */
function configureProxyLikeWmco(sim: SimHost, proxy: ProxyDouble, noProxy: string, drifted: boolean): void {
  setMachineEnv(sim.state, 'HTTP_PROXY', proxy.url);
  setMachineEnv(sim.state, 'HTTPS_PROXY', proxy.url);
  setMachineEnv(sim.state, 'NO_PROXY', drifted ? '.svc,.cluster.local' : noProxy);
  simProxy(sim.state).rootStore.add(new X509Certificate(proxy.caPem).fingerprint.replace(/:/g, '').toUpperCase());
}

/** The kubeadm cluster of the second context: Calico, kube-proxy, the DaemonSet/kubelet doubles, a joinable host and the payload. */
async function startKubeadmCluster(
  dir: string,
  context: string,
  sim: (address: string, hostname: string, extra?: Partial<SimHostOptions>) => Promise<SimHost>,
  octet: number,
  stoppers: (() => void | Promise<unknown>)[],
): Promise<NonNullable<World['kubeadm']>> {
  const emu = await startEmulator({ objects: [], openshift: false });
  stoppers.push(() => emu.stop());
  for (const x of [
    ...kubeadmCluster({ server: emu.url, caPem: emu.caPem }),
    controlPlaneNode(),
    ...kubeadmKubeProxy(emu.url),
    ...calicoManifest(),
  ])
    emu.apply(x);
  const doubles = startNodeDoubles(emu);
  stoppers.push(() => doubles.stop());
  const address = `127.0.0.${octet}`;
  const hostname = 'WIN-KADM1';
  // A fresh Windows Server: no Containers feature yet (the join enables it and restarts the host).
  const host = await sim(address, hostname, { containersFeature: 'Disabled' });
  wireKubeadmJoin(emu, emu.caPem, host, address);
  const payloadDir = join(dir, 'payload');
  mkdirSync(payloadDir, { recursive: true });
  writeFileSync(join(payloadDir, 'containerd-1.7.27-windows-amd64.tar.gz'), fakeKubeBinary('v1.7.27', 50_000));
  writeFileSync(join(payloadDir, 'kubelet.exe'), fakeKubeBinary('v1.31.3', 50_000));
  writeFileSync(join(payloadDir, 'kubeadm.exe'), fakeKubeBinary('v1.31.3', 20_000));
  return { context, emu, address, hostname, payloadDir };
}
