// A Windows node's proxy environment against what the cluster expects. A Windows service's process
// gets the machine environment (HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment)
// with its own `Environment` value (REG_MULTI_SZ under HKLM\SYSTEM\CurrentControlSet\Services\<name>)
// over it, so a service's effective variable is its own entry, else the machine's. WMCO sets the
// machine variables and reconciles them periodically; the kubeadm path sets containerd's and the
// kubelet's own. Names compare case-insensitively, as Windows does. Pure.
import { noProxyEntries, PROXY_VARIABLES, type ProxyVariable } from './settings';

/** What a node answers (the node-proxy-environment op). */
export interface NodeProxyEnvironment {
  /** The machine's proxy variables that are set. */
  machine: Partial<Record<ProxyVariable, string>>;
  /** Each service asked for: whether it exists, and its own `Environment` entries (NAME=value). */
  services: { name: string; exists: boolean; environment: string[] }[];
  /** Thumbprint (SHA-1, upper-case hex) of each expected CA -> whether LocalMachine\Root holds it. */
  certificates: Record<string, boolean>;
}

export type VariableSource = 'service' | 'machine' | 'unset';

export interface VariableCheck {
  name: ProxyVariable;
  expected?: string;
  actual?: string;
  source: VariableSource;
  equal: boolean;
}

export interface ServiceProxyCheck {
  name: string;
  exists: boolean;
  variables: VariableCheck[];
}

export interface NodeProxyComparison {
  machine: VariableCheck[];
  services: ServiceProxyCheck[];
  /** The expected CAs' thumbprints that the node's store lacks (empty when none are expected). */
  missingCertificates: string[];
  expectedCertificates: number;
  /** Every variable and certificate as expected. */
  equal: boolean;
}

/** A service's own proxy variables, from its `Environment` entries (the last entry of a name wins). */
export function serviceVariables(environment: readonly string[]): Partial<Record<ProxyVariable, string>> {
  const out: Partial<Record<ProxyVariable, string>> = {};
  for (const entry of environment) {
    const i = entry.indexOf('=');
    if (i <= 0) continue;
    const name = entry.slice(0, i).toUpperCase();
    if ((PROXY_VARIABLES as readonly string[]).includes(name)) out[name as ProxyVariable] = entry.slice(i + 1);
  }
  return out;
}

/** NO_PROXY lists are equal as sets of entries (order and case aside); the other variables as text. */
function same(name: ProxyVariable, a: string | undefined, b: string | undefined): boolean {
  if (name !== 'NO_PROXY') return (a ?? '') === (b ?? '');
  const set = (s: string | undefined) => [...new Set(noProxyEntries(s).map((e) => e.toLowerCase()))].sort().join(',');
  return set(a) === set(b);
}

function check(
  name: ProxyVariable,
  expected: string | undefined,
  own: string | undefined,
  machine: string | undefined,
): VariableCheck {
  const actual = own ?? machine;
  const source: VariableSource = own !== undefined ? 'service' : machine !== undefined ? 'machine' : 'unset';
  const c: VariableCheck = { name, source, equal: same(name, expected, actual) };
  if (expected !== undefined) c.expected = expected;
  if (actual !== undefined) c.actual = actual;
  return c;
}

/** Compares a node's answer with the expected variables and CA thumbprints. */
export function compareNodeProxy(
  expected: Partial<Record<ProxyVariable, string>>,
  node: NodeProxyEnvironment,
  expectedThumbprints: readonly string[] = [],
): NodeProxyComparison {
  const machine = PROXY_VARIABLES.map((v) => check(v, expected[v], undefined, node.machine[v]));
  const services = node.services.map((s) => {
    const own = serviceVariables(s.environment);
    return {
      name: s.name,
      exists: s.exists,
      variables: PROXY_VARIABLES.map((v) => check(v, expected[v], own[v], node.machine[v])),
    };
  });
  const missingCertificates = expectedThumbprints.filter((t) => node.certificates[t.toUpperCase()] !== true);
  const equal =
    machine.every((c) => c.equal) &&
    services.every((s) => !s.exists || s.variables.every((c) => c.equal)) &&
    missingCertificates.length === 0;
  return { machine, services, missingCertificates, expectedCertificates: expectedThumbprints.length, equal };
}

/** The variables that differ, as "NAME (where)" phrases, for a one-line drift summary. */
export function driftPhrases(c: NodeProxyComparison): string[] {
  const out = c.machine.filter((v) => !v.equal).map((v) => `machine ${v.name}`);
  for (const s of c.services) {
    if (!s.exists) continue;
    for (const v of s.variables) if (!v.equal && v.source === 'service') out.push(`${s.name} ${v.name}`);
  }
  if (c.missingCertificates.length > 0) out.push('trusted CA bundle');
  return out;
}
