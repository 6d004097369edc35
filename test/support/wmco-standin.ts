// A stand-in for the Windows Machine Config Operator's BYOH path, attached to the API emulator: reads
// the windows-instances ConfigMap as wiparser does, and for each new instance produces what a real
// cluster shows (WMCO controllers/configmap_controller.go, pkg/csr/csr.go): a kubelet client CSR approved only when
// the node name passes WMCO's check, the Node (NotReady, then Ready), a serving CSR, and the
// desired-version / version annotations. Removing an entry cordons then deletes the Node. It configures
// nothing on the host: the host registry the test gives stands for what WMCO would find over SSH.
// A test double: never import from src/.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import type { Emulator, EmulatorEvent, KubeObject } from './kube-api-emulator';
import { WMCO_NAMESPACE } from './kube-seed';

export interface WmcoHost {
  /** The host name Windows reports (the Node is named after it, lower-cased). */
  hostname: string;
  /** PTR record of the address; undefined: the reverse lookup fails. */
  reverseDns?: string;
  /** e.g. '10.0.20348'. */
  build: string;
  /** false: WMCO cannot reach it over SSH. Default true. */
  reachable?: boolean;
}

export interface WmcoStandinOptions {
  /** Address (the ConfigMap key) → host. */
  hosts: Map<string, WmcoHost>;
  /** Delay between steps, ms. Default 30. */
  stepMs?: number;
  namespace?: string;
  /** Version written to the annotations; default: the CSV's spec.version. */
  version?: string;
  kubeletVersion?: string;
}

export interface WmcoEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface WmcoStandin {
  readonly counters: { csrsApproved: number; nodesCreated: number; nodesDeleted: number };
  /** What WMCO would record as Kubernetes events. */
  readonly events: WmcoEvent[];
  /** Waits for the reconciles and configurations started so far. */
  settled(): Promise<void>;
  stop(): void;
}

export const WMCO_APPROVAL_MESSAGE = 'This CSR was approved by the WMCO certificate Approver.';
const PREFIX = 'windowsmachineconfig.openshift.io';
const BOOTSTRAPPER = 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const isIPv4 = (s: string): boolean =>
  /^(\d{1,3})(\.\d{1,3}){3}$/.test(s) && s.split('.').every((p) => Number(p) <= 255);

/** k8s.io/apimachinery IsDNS1123Subdomain. */
export function isDns1123Subdomain(s: string): boolean {
  return s.length > 0 && s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);
}

let cachedKey: { priv: forge.pki.PrivateKey; pub: forge.pki.PublicKey } | undefined;

/** One RSA key for every request of the process: generating one per CSR costs time and proves nothing. */
function requestKey(): { priv: forge.pki.PrivateKey; pub: forge.pki.PublicKey } {
  if (!cachedKey) {
    // RSA: node-forge (used to build the request) signs only with RSA.
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    cachedKey = {
      priv: forge.pki.privateKeyFromPem(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
      pub: forge.pki.publicKeyFromPem(rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    };
  }
  return cachedKey;
}

/** A real PKCS#10 request (base64 of its PEM, as spec.request holds it) with the kubelet's subject. */
function csrRequest(nodeName: string, sans: { dns?: string[]; ips?: string[] } = {}): string {
  const { priv, pub } = requestKey();
  const req = forge.pki.createCertificationRequest();
  req.publicKey = pub;
  req.setSubject([
    { name: 'organizationName', value: 'system:nodes' },
    { name: 'commonName', value: `system:node:${nodeName}` },
  ]);
  const altNames = [
    ...(sans.dns ?? []).map((value) => ({ type: 2, value })),
    ...(sans.ips ?? []).map((ip) => ({ type: 7, ip })),
  ];
  if (altNames.length > 0)
    req.setAttributes([{ name: 'extensionRequest', extensions: [{ name: 'subjectAltName', altNames }] }]);
  req.sign(priv as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return Buffer.from(forge.pki.certificationRequestToPem(req)).toString('base64');
}

export function attachWmcoStandin(emu: Emulator, options: WmcoStandinOptions): WmcoStandin {
  const ns = options.namespace ?? WMCO_NAMESPACE;
  const stepMs = options.stepMs ?? 30;
  const counters = { csrsApproved: 0, nodesCreated: 0, nodesDeleted: 0 };
  const events: WmcoEvent[] = [];
  const timers = new Map<NodeJS.Timeout, () => void>();
  /** Addresses being configured or configured: reconciles repeat, configurations must not. */
  const claimed = new Set<string>();
  /** Nodes being deconfigured. */
  const removing = new Set<string>();
  const running = new Set<Promise<void>>();
  let queue: Promise<void> = Promise.resolve();
  let stopped = false;

  // Sleeps end early on stop() (callers then see `stopped`), so settled() never hangs.
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.set(t, resolve);
    });
  const track = (p: Promise<void>): void => {
    const q = p
      .catch((e: unknown) => void events.push({ type: 'Warning', reason: 'StandinError', message: String(e) }))
      .finally(() => running.delete(q));
    running.add(q);
  };
  const event = (type: WmcoEvent['type'], reason: string, message: string): void =>
    void events.push({ type, reason, message });

  function activeVersion(): string | undefined {
    const csv = emu
      .list('ClusterServiceVersion')
      .find(
        (c) =>
          c.metadata.namespace === ns &&
          c.metadata.name.startsWith('windows-machine-config-operator') &&
          obj(c.status).phase === 'Succeeded',
      );
    if (!csv) return undefined;
    return (
      options.version ??
      (typeof obj(csv.spec).version === 'string'
        ? String(obj(csv.spec).version)
        : (/\.v(.+)$/.exec(csv.metadata.name)?.[1] ?? '0.0.0'))
    );
  }

  const nodeByAddress = (address: string): KubeObject | undefined =>
    emu
      .list('Node')
      .find((n) => ((obj(n.status).addresses as Obj[] | undefined) ?? []).some((a) => a.address === address));

  /** wiparser.Parse: one bad entry fails the whole ConfigMap. */
  function parseInstances(cm: KubeObject | undefined): Map<string, string> | Error {
    const out = new Map<string, string>();
    for (const [address, value] of Object.entries((cm?.data as Record<string, string> | undefined) ?? {})) {
      const i = value.indexOf('=');
      const [first, rest] = i < 0 ? [value, undefined] : [value.slice(0, i), value.slice(i + 1)];
      if (first !== 'username' || rest === undefined)
        return new Error(`unable to parse data for instance ${address}: data has an incorrect format`);
      if (address.includes(':')) return new Error(`unable to parse data for instance ${address}: invalid IPv4 address`);
      if (!isIPv4(address) && !options.hosts.has(address))
        return new Error(`unable to parse data for instance ${address}: lookup ${address}: no such host`);
      out.set(address, rest);
    }
    return out;
  }

  /** pkg/csr validation: the node name must match an instance (reverse DNS, else the host name), and be a DNS-1123 subdomain. */
  function nameMatches(address: string, host: WmcoHost, nodeName: string): boolean {
    let matched: boolean;
    if (!isIPv4(address)) matched = address.includes(nodeName);
    else if (host.reverseDns !== undefined) matched = host.reverseDns.replace(/\.$/, '').includes(nodeName);
    // Lookup error: WMCO falls back to the host name it reads over SSH (compared lower-cased here, an
    // inference: Windows reports host names in upper case while node names are lower case).
    else matched = host.hostname.toLowerCase().includes(nodeName);
    return matched && isDns1123Subdomain(nodeName);
  }

  function approve(name: string): void {
    emu.patch('CertificateSigningRequest', name, undefined, {
      status: {
        conditions: [
          {
            type: 'Approved',
            status: 'True',
            reason: 'WMCOApprove',
            message: WMCO_APPROVAL_MESSAGE,
            lastUpdateTime: now(),
            lastTransitionTime: now(),
          },
        ],
        certificate: Buffer.from(
          `-----BEGIN CERTIFICATE-----\n${randomBytes(48).toString('base64')}\n-----END CERTIFICATE-----\n`,
        ).toString('base64'),
      },
    });
    counters.csrsApproved += 1;
  }

  function createCsr(nodeName: string, serving: boolean, address: string): string {
    const name = `csr-${randomBytes(3).toString('hex').slice(0, 5)}`;
    emu.apply({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name, annotations: { 'kube-windows.test/subject-cn': `system:node:${nodeName}` } },
      spec: serving
        ? {
            request: csrRequest(nodeName, { dns: [nodeName], ips: [address] }),
            signerName: 'kubernetes.io/kubelet-serving',
            usages: ['digital signature', 'server auth'],
            username: `system:node:${nodeName}`,
            groups: ['system:nodes', 'system:authenticated'],
          }
        : {
            // The bootstrap client CSR is sent with the node-bootstrapper identity, not the node's.
            request: csrRequest(nodeName),
            signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
            usages: ['digital signature', 'client auth'],
            username: BOOTSTRAPPER,
            groups: [
              'system:serviceaccounts',
              'system:serviceaccounts:openshift-machine-config-operator',
              'system:authenticated',
            ],
          },
    });
    return name;
  }

  async function configure(address: string, username: string, version: string): Promise<void> {
    const host = options.hosts.get(address);
    if (!host || host.reachable === false) {
      event(
        'Warning',
        'InstanceSetupFailure',
        `unable to connect to Windows VM ${address}: dial tcp ${address}:22: i/o timeout`,
      );
      return;
    }
    const nodeName = host.hostname.toLowerCase();
    await sleep(stepMs);
    if (stopped) return;
    const clientCsr = createCsr(nodeName, false, address);
    await sleep(stepMs);
    if (stopped) return;
    // Client CSRs are approved only while the Node does not exist yet.
    if (!nameMatches(address, host, nodeName) || emu.get('Node', nodeName)) {
      event(
        'Warning',
        'NodeNameValidationFailed',
        `CSR ${clientCsr}: node name ${nodeName} does not match any instance in windows-instances`,
      );
      return; // stays pending; the kubelet never gets its client certificate
    }
    approve(clientCsr);
    await sleep(stepMs);
    if (stopped) return;
    const build = host.build;
    emu.apply({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: nodeName,
        labels: {
          'beta.kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/os': 'windows',
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/hostname': nodeName,
          'kubernetes.io/os': 'windows',
          'node.kubernetes.io/windows-build': build,
          'node.openshift.io/os_id': 'Windows',
          [`${PREFIX}/byoh`]: 'true',
          'node-role.kubernetes.io/worker': '',
        },
        annotations: {
          'node.alpha.kubernetes.io/ttl': '0',
          'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        },
      },
      spec: {
        taints: [
          { key: 'os', value: 'Windows', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
        ],
      },
      status: {
        addresses: [
          { type: 'InternalIP', address: isIPv4(address) ? address : '0.0.0.0' },
          { type: 'Hostname', address: nodeName },
        ],
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'KubeletNotReady',
            message:
              'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
            lastHeartbeatTime: now(),
            lastTransitionTime: now(),
          },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          architecture: 'amd64',
          containerRuntimeVersion: 'containerd://1.7.27',
          kernelVersion: `${build}.2849`,
          kubeProxyVersion: '',
          kubeletVersion: options.kubeletVersion ?? 'v1.31.3',
          operatingSystem: 'windows',
          osImage:
            build === '10.0.17763'
              ? 'Windows Server 2019 Datacenter'
              : build === '10.0.26100'
                ? 'Windows Server 2025 Datacenter'
                : 'Windows Server 2022 Datacenter',
        },
      },
    });
    counters.nodesCreated += 1;
    await sleep(stepMs);
    if (stopped) return;
    approve(createCsr(nodeName, true, address));
    emu.patch('Node', nodeName, undefined, {
      metadata: {
        annotations: {
          [`${PREFIX}/desired-version`]: version,
          [`${PREFIX}/username`]: `wy0EBwMI${Buffer.from(username).toString('base64')}<wmcoMarker>`,
        },
      },
    });
    await sleep(stepMs);
    if (stopped || !emu.get('Node', nodeName)) return;
    // WICD writes version once the services run and the Node is Ready.
    emu.patch('Node', nodeName, undefined, {
      metadata: { annotations: { [`${PREFIX}/version`]: version } },
      spec: { taints: [{ key: 'os', value: 'Windows', effect: 'NoSchedule' }] },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: now(),
            lastTransitionTime: now(),
          },
        ],
      },
    });
    event('Normal', 'InstanceSetup', `Configured instance with address ${address} as a worker node`);
  }

  async function deconfigure(node: KubeObject): Promise<void> {
    const name = node.metadata.name;
    if (removing.has(name)) return;
    removing.add(name);
    emu.patch('Node', name, undefined, { spec: { unschedulable: true } });
    await sleep(stepMs);
    if (stopped) return;
    if (emu.get('Node', name)) {
      emu.remove('Node', name);
      counters.nodesDeleted += 1;
    }
    removing.delete(name);
    for (const a of (obj(node.status).addresses as Obj[] | undefined) ?? []) claimed.delete(String(a.address));
    event('Normal', 'InstanceTeardown', `Deconfigured node ${name}`);
  }

  function reconcile(): void {
    if (stopped) return;
    const version = activeVersion();
    if (!version) return;
    const instances = parseInstances(emu.get('ConfigMap', 'windows-instances', ns));
    if (instances instanceof Error) {
      event('Warning', 'InstanceSetupFailure', instances.message);
      return;
    }
    for (const [address, username] of instances) {
      if (claimed.has(address)) continue;
      const node = nodeByAddress(address);
      if (node && obj(node.metadata.annotations)[`${PREFIX}/version`] === version) {
        claimed.add(address);
        continue;
      }
      claimed.add(address);
      track(configure(address, username, version));
    }
    for (const a of [...claimed]) if (!instances.has(a)) claimed.delete(a);
    for (const node of emu.list('Node')) {
      const labels = node.metadata.labels ?? {};
      if (labels[`${PREFIX}/byoh`] !== 'true' || labels['kubernetes.io/os'] !== 'windows') continue;
      const addrs = ((obj(node.status).addresses as Obj[] | undefined) ?? []).map((a) => String(a.address));
      const reverse = [...options.hosts]
        .filter(([, h]) => h.hostname.toLowerCase() === node.metadata.name)
        .map(([a]) => a);
      if (addrs.some((a) => instances.has(a)) || reverse.some((a) => instances.has(a))) continue;
      track(deconfigure(node));
    }
  }

  function onEvent(ev: EmulatorEvent): void {
    const o = ev.object;
    const relevant =
      (o.kind === 'ConfigMap' && o.metadata.namespace === ns && o.metadata.name === 'windows-instances') ||
      (o.kind === 'ClusterServiceVersion' && o.metadata.namespace === ns);
    if (!relevant || stopped) return;
    queue = queue.then(reconcile);
  }

  const unsubscribe = emu.onChange(onEvent);
  queue = queue.then(reconcile);

  return {
    counters,
    events,
    async settled() {
      await queue;
      while (running.size > 0) await Promise.all([...running]);
    },
    stop() {
      stopped = true;
      unsubscribe();
      for (const [t, resolve] of timers) {
        clearTimeout(t);
        resolve();
      }
      timers.clear();
    },
  };
}
