// Preflight checks of a Windows host join, as pure functions of what was read from the cluster and
// the host: each failure says exactly what to fix. Facts are from WMCO (README, docs/byoh-instance-pre-requisites.md,
// docs/wmco-prerequisites.md: BYOH), sig-windows-tools (hostprocess/*.ps1, guides/: kubeadm) and hcsshim
// osversion/windowsbuilds.go (builds).

import type { HostFacts } from '../core/windows/host-ops';
import { overlapsClassE } from '../core/cidr';
import { blocking, findingLine, formatFindings, ok, type Finding } from '../core/windows/findings';
import { UserError } from '../core/user-error';
import { counted } from '../core/plural';

export { blocking, findingLine, ok, type Finding };
export type { FindingSeverity, FixKind } from '../core/windows/findings';

/**
 * Windows Server builds WMCO and upstream Kubernetes support (WMCO docs/wmco-prerequisites.md;
 * https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support).
 */
const SUPPORTED_BUILDS: Record<number, string> = {
  17763: 'Windows Server 2019',
  20348: 'Windows Server 2022',
  26100: 'Windows Server 2025',
};

/** WS2022 needs KB5012637 (20348.681 or later) for WMCO (WMCO docs/wmco-prerequisites.md). */
const WS2022_MIN_UBR = 681;

/**
 * First WMCO version that supports a cluster-wide egress proxy on Windows nodes: the limitation was
 * dropped from the OpenShift docs with WMCO 9.0.0 (OCP 4.14; openshift-docs PR #69216, OSDOCS-5872).
 */
const WMCO_PROXY_MIN_VERSION = '9.0.0';

const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const RFC1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.+-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function nodeNameOf(hostname: string): string {
  return hostname.toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Host checks shared by both paths

export function checkBuild(facts: HostFacts, forWmco: boolean): Finding {
  const name = SUPPORTED_BUILDS[facts.build];
  const what = `${facts.productName || 'Windows'} build ${facts.build}.${facts.ubr}`;
  if (!name) {
    const list = Object.entries(SUPPORTED_BUILDS)
      .map(([b, n]) => `${n} (${b})`)
      .join(', ');
    return {
      id: 'windows-build',
      severity: 'error',
      title: `${what} is not a supported Windows Server build`,
      fix: `Use one of: ${list}.`,
    };
  }
  if (forWmco && facts.build === 20348 && facts.ubr < WS2022_MIN_UBR) {
    return {
      id: 'windows-build',
      severity: 'error',
      title: `${what}: Windows Server 2022 needs KB5012637 (20348.${WS2022_MIN_UBR} or later) for WMCO`,
      fix: 'Install the latest cumulative update on the host, reboot, and run the join again.',
    };
  }
  return ok('windows-build', `${what} (${name}) is supported`);
}

export function checkHostname(facts: HostFacts): Finding {
  const name = nodeNameOf(facts.hostname);
  if (!RFC1123_LABEL.test(name)) {
    return {
      id: 'hostname',
      severity: 'error',
      title: `The host name "${facts.hostname}" is not a valid RFC 1123 label, so it cannot be a node name`,
      fix: 'Rename the computer to lowercase letters, digits and "-" (start and end with a letter or digit, at most 63 characters): Rename-Computer -NewName <name> -Restart.',
    };
  }
  if (name !== facts.hostname)
    return ok(
      'hostname',
      `The node will be named "${name}" (the host name "${facts.hostname}" lowercased, as kubelet registers it)`,
    );
  return ok('hostname', `The node will be named "${name}"`);
}

export function checkConflictingRuntime(facts: HostFacts, path: 'byoh' | 'kubeadm'): Finding[] {
  const out: Finding[] = [];
  if (facts.services.docker !== null) {
    out.push({
      id: 'docker',
      severity: 'error',
      title: `A Docker service is installed (${facts.services.docker})`,
      fix: 'Uninstall Docker (Mirantis Container Runtime) and reboot: the node uses containerd, and both cannot own the container networking.',
    });
  }
  if (path === 'byoh' && facts.services.containerd !== null) {
    out.push({
      id: 'containerd-preinstalled',
      severity: 'error',
      title: `A containerd service already exists (${facts.services.containerd})`,
      fix: 'WMCO installs its own containerd: remove the existing one (sc.exe delete containerd) before joining.',
    });
  }
  if (out.length === 0) out.push(ok('container-runtime', 'No conflicting container runtime service'));
  return out;
}

export function checkContainersFeature(facts: HostFacts, path: 'byoh' | 'kubeadm'): Finding {
  if (facts.containersFeature === 'Enabled') return ok('containers-feature', 'The Containers feature is enabled');
  const who =
    path === 'byoh'
      ? 'WMCO will enable it and restart the host'
      : 'The plan enables it and restarts the host, then resumes';
  return {
    id: 'containers-feature',
    severity: 'warning',
    title: `The Containers feature is ${facts.containersFeature}`,
    fix: `${who} during the join.`,
  };
}

// ---------------------------------------------------------------------------------------------
// BYOH

export interface ByohInputs {
  address: string;
  /** IPv4 addresses the address resolves to from here (for DNS names); [] when it does not resolve. */
  addressIPv4: string[];
  addressIsIPv6: boolean;
  /** Reverse DNS of the address from here: names, [] when there is no PTR record, undefined when not an IP. */
  reverseNames?: string[];
  facts: HostFacts;
  csv?: { name: string; phase?: string; message?: string; version?: string };
  /** Whether the plan installs WMCO first (so a missing WMCO is not an error). */
  installsWmco: boolean;
  keySecret: {
    present: boolean;
    hasKey: boolean;
    encrypted?: boolean;
    invalid?: string;
    publicKeyLine?: string;
    hash?: string;
    weak?: string;
  };
  createsKeySecret: boolean;
  /** Public key hashes (WMCO's pub-key-hash form) of the keys the host accepts. */
  hostKeyHashes: string[];
  /** Hashes of the SSH keys the cluster was installed with (MachineConfig 99-worker-ssh). */
  installKeyHashes?: string[];
  operatorNetwork?: { type?: string; hybrid: boolean; vxlanPort?: number };
  clusterNetworks: string[];
  proxy?: { httpProxy?: string; httpsProxy?: string };
  apiInt?: { host: string; resolvedFromHost: string[]; error?: string };
  existingEntry?: string;
  /** The SSH port kube-windows reaches the host on (default 22). */
  sshPort?: number;
}

/** A missing prerequisite: an info line when the plan provides it, else the blocking finding. */
function missing(
  planned: boolean | undefined,
  id: string,
  plannedTitle: string,
  problem: Omit<Finding, 'id' | 'severity'>,
): Finding {
  return planned ? { id, severity: 'info', title: plannedTitle } : { id, severity: 'error', ...problem };
}

export function evaluateByoh(i: ByohInputs): Finding[] {
  const out: Finding[] = [];
  const f = i.facts;

  // WMCO has no port setting: whatever port kube-windows uses, the operator connects on 22.
  if (i.sshPort !== undefined && i.sshPort !== 22) {
    out.push({
      id: 'ssh-port',
      severity: 'warning',
      title: `kube-windows reaches the host on SSH port ${i.sshPort}, but WMCO connects to it on port 22`,
      fix: "Make the host's SSH server listen on port 22 too (WMCO cannot use another port), or WMCO never configures the node.",
    });
  }

  // WMCO
  if (!i.csv) {
    out.push(
      missing(i.installsWmco, 'wmco', 'WMCO is not installed; the plan installs it first', {
        title: 'The Windows Machine Config Operator is not installed',
        fix: 'Install WMCO from OperatorHub (the join can do it: namespace, OperatorGroup, Subscription on channel stable).',
        offer: 'install-wmco',
      }),
    );
  } else if (i.csv.phase !== 'Succeeded') {
    out.push({
      id: 'wmco',
      severity: 'error',
      title: `WMCO (${i.csv.name}) is ${i.csv.phase ?? 'in no phase'}${i.csv.message ? `: ${i.csv.message}` : ''}`,
      fix: 'Wait for the operator to finish installing, or look at its ClusterServiceVersion and InstallPlan for the cause.',
    });
  } else {
    out.push(ok('wmco', `WMCO ${i.csv.version ?? ''} is installed and healthy`.replace('  ', ' ')));
  }

  // Private key secret and the host accepting that key
  const k = i.keySecret;
  if (!k.present) {
    out.push(
      missing(
        i.createsKeySecret,
        'key-secret',
        'The cloud-private-key secret is missing; the plan creates it from the chosen key',
        {
          title: 'The cloud-private-key secret is missing',
          fix: 'Create it from the private key WMCO should use to reach Windows hosts (the join can do it from a PEM file you pick).',
          offer: 'create-key-secret',
        },
      ),
    );
  } else if (!k.hasKey) {
    out.push({
      id: 'key-secret',
      severity: 'error',
      title: "cloud-private-key missing 'private-key.pem' secret",
      fix: 'The secret must hold the key under the name private-key.pem: oc create secret generic cloud-private-key --from-file=private-key.pem=<file> -n openshift-windows-machine-config-operator',
    });
  } else if (k.encrypted) {
    out.push({
      id: 'key-secret',
      severity: 'error',
      title: 'The key in cloud-private-key has a passphrase, which WMCO cannot use',
      fix: 'Store an unencrypted key (ssh-keygen -p -N "" -f <copy of the key>) in the secret.',
    });
  } else if (k.invalid) {
    out.push({
      id: 'key-secret',
      severity: 'error',
      title: `The key in cloud-private-key cannot be read: ${k.invalid}`,
      fix: 'Store a PEM or OpenSSH private key (RSA, ECDSA or Ed25519).',
    });
  } else {
    if (k.hash && i.installKeyHashes?.includes(k.hash)) {
      out.push({
        id: 'install-key',
        severity: 'warning',
        title: 'cloud-private-key holds the key the cluster was installed with (MachineConfig 99-worker-ssh)',
        fix: 'WMCO strongly recommends a different key for Windows hosts, so that a Windows host never holds a key that opens the Linux nodes.',
      });
    }
    if (k.weak)
      out.push({
        id: 'key-strength',
        severity: 'warning',
        title: `The key in cloud-private-key is weak (${k.weak})`,
        fix: 'Use an Ed25519 key or RSA of 2048 bits or more.',
      });
    if (k.hash && i.hostKeyHashes.length > 0) {
      out.push(
        i.hostKeyHashes.includes(k.hash)
          ? ok('host-accepts-key', 'The host accepts the key in cloud-private-key')
          : {
              id: 'host-accepts-key',
              severity: 'error',
              title: `The host does not accept the key in cloud-private-key for user ${i.existingEntry ?? ''}`.trim(),
              fix: `Add this public key to C:\\ProgramData\\ssh\\administrators_authorized_keys (for an administrator) on the host: ${k.publicKeyLine ?? '(public key of the secret)'}`,
            },
      );
    } else if (k.hash) {
      out.push({
        id: 'host-accepts-key',
        severity: 'error',
        title: 'The host has no authorized keys for this user',
        fix: `Add this public key to C:\\ProgramData\\ssh\\administrators_authorized_keys on the host: ${k.publicKeyLine ?? ''}`,
      });
    }
  }

  // Address
  if (i.addressIsIPv6) {
    out.push({
      id: 'address',
      severity: 'error',
      title: `${i.address} is an IPv6 address; WMCO accepts only IPv4 addresses or names resolving to IPv4`,
      fix: "Use the host's IPv4 address or a DNS name with an A record.",
    });
  } else if (i.addressIPv4.length === 0) {
    out.push({
      id: 'address',
      severity: 'error',
      title: `${i.address} does not resolve to an IPv4 address`,
      fix: 'Add an A record for it, or use the IPv4 address. WMCO resolves it from inside the cluster.',
    });
  } else {
    out.push(ok('address', `${i.address} is IPv4 ${i.addressIPv4.join(', ')}`));
    if (f.defaultRouteIPv4 && !i.addressIPv4.includes(f.defaultRouteIPv4)) {
      out.push({
        id: 'node-ip',
        severity: 'error',
        title: `${i.address} is not the host's default-route address ${f.defaultRouteIPv4}`,
        fix: `kubelet registers the node with ${f.defaultRouteIPv4} and WMCO finds the node by the ConfigMap address, so it would never find it: use ${f.defaultRouteIPv4} as the address.`,
      });
    }
  }

  // Node name and CSR approval
  const hostname = checkHostname(f);
  out.push(hostname);
  if (hostname.severity !== 'error') {
    const nodeName = nodeNameOf(f.hostname);
    if (i.reverseNames === undefined) {
      // A DNS name as the key: WMCO matches the node name against it directly.
      out.push(
        i.address.toLowerCase().includes(nodeName)
          ? ok('csr-approval', `CSR approval will match node ${nodeName} against ${i.address}`)
          : {
              id: 'csr-approval',
              severity: 'error',
              title: `The address ${i.address} does not contain the node name ${nodeName}, so WMCO will not approve the kubelet's certificate requests`,
              fix: `Use a DNS name that starts with ${nodeName}, or the IPv4 address with a PTR record for ${nodeName}.`,
            },
      );
    } else if (i.reverseNames.length === 0) {
      const fallback = (f.fqdn || f.hostname).toLowerCase();
      out.push({
        id: 'csr-approval',
        severity: 'warning',
        title: `No PTR record for ${i.address}: WMCO falls back to the host name read over SSH (${fallback}), which matches ${nodeName}`,
        fix: `Add a PTR record ${i.address} → ${nodeName}${f.fqdn ? f.fqdn.slice(f.hostname.length) : ''}: the BYOH prerequisites require it, and the fallback only runs when the reverse lookup fails.`,
      });
    } else if (i.reverseNames.some((n) => n.toLowerCase().includes(nodeName))) {
      out.push(
        ok('csr-approval', `Reverse DNS of ${i.address} (${i.reverseNames.join(', ')}) matches node ${nodeName}`),
      );
    } else {
      out.push({
        id: 'csr-approval',
        severity: 'error',
        title: `Reverse DNS of ${i.address} is ${i.reverseNames.join(', ')}, which does not contain the node name ${nodeName}: WMCO will never approve the kubelet's certificate requests`,
        fix: `Change the PTR record of ${i.address} to ${nodeName}.<domain>, or rename the host to match it.`,
      });
    }
    if (!RFC1123_SUBDOMAIN.test(nodeName))
      out.push({
        id: 'csr-name',
        severity: 'error',
        title: `${nodeName} is not a DNS-1123 subdomain`,
        fix: 'Rename the host.',
      });
  }

  // Host
  out.push(checkBuild(f, true));
  out.push(checkContainersFeature(f, 'byoh'));
  out.push(...checkConflictingRuntime(f, 'byoh'));
  if (f.adapters.length > 1) {
    out.push({
      id: 'dual-nic',
      severity: 'error',
      title: `The host has ${f.adapters.length} network adapters with IPv4 addresses (${f.adapters.map((a) => a.name).join(', ')}): dual NIC is not supported on WMCO-managed Windows instances`,
      fix: 'Disable the extra adapters (Disable-NetAdapter -Name <name>) so one remains.',
    });
  }
  if (!f.isAdministrator)
    out.push({
      id: 'admin',
      severity: 'error',
      title: 'The SSH user is not an administrator on the host',
      fix: 'WMCO needs an administrator account: use one, or add the user to the Administrators group.',
    });

  // Cluster networking
  const net = i.operatorNetwork;
  if (!net || net.type !== 'OVNKubernetes') {
    out.push({
      id: 'hybrid-networking',
      severity: 'error',
      title: `The cluster network is ${net?.type ?? 'unknown'}, not OVN-Kubernetes`,
      fix: 'Windows nodes need OVN-Kubernetes with hybrid networking.',
    });
  } else if (!net.hybrid) {
    out.push({
      id: 'hybrid-networking',
      severity: 'error',
      title:
        'OVN-Kubernetes hybrid networking is not configured: WMCO reports "cluster is not configured for OVN hybrid networking"',
      fix: `oc patch networks.operator.openshift.io cluster --type=merge -p '{"spec":{"defaultNetwork":{"ovnKubernetesConfig":{"hybridOverlayConfig":{"hybridClusterNetwork":[{"cidr":"10.132.0.0/14","hostPrefix":23}]}}}}}' (choose a CIDR that overlaps nothing).`,
    });
  } else {
    out.push(ok('hybrid-networking', 'OVN-Kubernetes hybrid networking is configured'));
    if (net.vxlanPort !== undefined && f.build === 17763) {
      out.push({
        id: 'vxlan-port',
        severity: 'error',
        title: `A custom VXLAN port (${net.vxlanPort}) is set, which Windows Server 2019 does not support: the node would never become Ready`,
        fix: 'Use Windows Server 2022 or 2025, or remove hybridOverlayVXLANPort.',
      });
    }
  }
  const classE = i.clusterNetworks.filter(overlapsClassE);
  if (classE.length > 0) {
    out.push({
      id: 'class-e',
      severity: 'error',
      title: `The cluster network ${classE.join(', ')} is in the class E range 240.0.0.0/4, which Windows nodes do not support`,
      fix: 'Windows nodes cannot join this cluster; its clusterNetwork would have to move out of 240.0.0.0/4.',
    });
  }
  const proxyOn = Boolean(i.proxy?.httpProxy || i.proxy?.httpsProxy);
  if (proxyOn && i.csv?.version && compareVersions(i.csv.version, WMCO_PROXY_MIN_VERSION) < 0) {
    out.push({
      id: 'proxy',
      severity: 'error',
      title: `A cluster-wide proxy is configured, which WMCO ${i.csv.version} does not support on Windows nodes`,
      fix: `Upgrade WMCO to ${WMCO_PROXY_MIN_VERSION} or later.`,
    });
  }

  // api-int from the host
  if (i.apiInt) {
    out.push(
      i.apiInt.resolvedFromHost.length > 0
        ? ok('api-int', `The host resolves ${i.apiInt.host} to ${i.apiInt.resolvedFromHost.join(', ')}`)
        : {
            id: 'api-int',
            severity: 'error',
            title: `The host cannot resolve ${i.apiInt.host}${i.apiInt.error ? ` (${i.apiInt.error})` : ''}: kubelet could not reach the API server`,
            fix: `Add a DNS record for ${i.apiInt.host} reachable from the host (or an entry in C:\\Windows\\System32\\drivers\\etc\\hosts).`,
          },
    );
  }

  if (i.existingEntry !== undefined)
    out.push({
      id: 'existing-entry',
      severity: 'info',
      title: `windows-instances already has ${i.address} (${i.existingEntry})`,
    });
  return out;
}

/** The first blocking finding the engine can fix itself (what a UI offers to set up). */
export function firstOffer(findings: readonly Finding[] | undefined): Finding | undefined {
  return blocking(findings ?? []).find((f) => f.offer !== undefined);
}

/** Thrown by a preflight step with error findings; the findings travel with it for the UI. */
export class PreflightError extends UserError {
  override name = 'PreflightError';
  constructor(readonly findings: Finding[]) {
    const errors = blocking(findings);
    super(`Preflight found ${counted(errors.length, 'problem')}:\n${formatFindings(errors)}`);
  }
}

/**
 * One line for a run that did not end done: the first blocking preflight finding (and how many more)
 * when the preflight stopped it, else the first line of what was thrown or of the run's error.
 */
export function runFailureSummary(
  result: { outcome?: string; error?: { message?: string } } | undefined,
  thrown: string | undefined,
  findings: readonly Finding[] | undefined,
): string {
  const errors = blocking(findings ?? []);
  if (errors.length > 0 && (result?.error?.message ?? thrown ?? '').startsWith('Preflight')) {
    return `${errors[0]?.title ?? ''}${errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''}; see the log)` : ''}`;
  }
  return (thrown ?? result?.error?.message ?? result?.outcome ?? 'failed').split('\n')[0]?.trim() ?? '';
}
