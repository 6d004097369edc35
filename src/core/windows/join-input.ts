// Checks of what a user types for a join (address, user name), shared by the CLI, the VS Code
// commands and the engine: refused here, such input never reaches a host, a cluster or a message raw.
// Pure.
import { UserError } from '../user-error';

/** The user's own input was refused before anything was contacted. */
export class JoinInputError extends UserError {
  override name = 'JoinInputError';
}

// Characters Windows refuses in account names (plus control characters); "DOMAIN\user" is allowed.
const USER_FORBIDDEN = /["/[\]:;|=,+*?<>\u0000-\u001f\u007f]/;

export type AddressKind = 'ipv4' | 'dns' | 'ipv6' | 'invalid-ipv4' | 'invalid';

/**
 * What an address is: a `windows-instances` key or a host to join. WMCO resolves keys with `net.ResolveIPAddr("ip4",
 * …)`: IPv4
 * literals (Go rejects leading zeros) and DNS names pass, IPv6 literals fail.
 */
export function classifyAddress(key: string): AddressKind {
  if (key.includes(':')) return 'ipv6';
  if (/^[0-9.]+$/.test(key)) {
    const parts = key.split('.');
    const ok = parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && +p <= 255);
    return ok ? 'ipv4' : 'invalid-ipv4';
  }
  const name = key.endsWith('.') ? key.slice(0, -1) : key;
  if (name.length === 0 || name.length > 253) return 'invalid';
  const label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
  return name.split('.').every((l) => label.test(l)) ? 'dns' : 'invalid';
}

/**
 * Why an address cannot be a join target, or undefined: the one check of a host address, for the
 * VS Code prompt, the CLI and the engine. IPv4 (no leading zeros) or a DNS name (a trailing dot is
 * fine, as for WMCO's resolver); IPv6 only for kubeadm (WMCO resolves BYOH keys as IPv4).
 */
export function addressProblem(address: string, via: 'byoh' | 'kubeadm'): string | undefined {
  if (!address.trim()) return "Enter the host's IPv4 address or DNS name.";
  if (/\s/.test(address)) return `"${printable(address)}": an address has no spaces.`;
  switch (classifyAddress(address)) {
    case 'ipv4':
    case 'dns':
      return undefined;
    case 'ipv6':
      if (via === 'byoh')
        return `"${printable(address)}" looks like an IPv6 address; WMCO accepts only IPv4 addresses or DNS names.`;
      return looksIPv6(address)
        ? undefined
        : `"${printable(address)}" is not an IPv4/IPv6 address or a DNS name (give no port: SSH uses 22).`;
    case 'invalid-ipv4':
      return `"${printable(address)}" is not a valid IPv4 address.`;
    default:
      return `"${printable(address)}" is not an IPv4 address or a DNS name.`;
  }
}

/**
 * Why a user name cannot be used, or undefined. Quotes, $, parentheses and backticks are legal Windows names and are
 * kept as they are.
 */
export function userProblem(user: string): string | undefined {
  const [domain, name, ...rest] = user.includes('\\') ? user.split('\\') : [undefined, user];
  if (rest.length > 0 || name === undefined || name.length === 0 || (domain !== undefined && domain.length === 0))
    return `"${printable(user)}" is not a user name (use "user" or "DOMAIN\\user").`;
  if (USER_FORBIDDEN.test(name) || (domain !== undefined && USER_FORBIDDEN.test(domain)))
    return `"${printable(user)}" contains a character Windows does not allow in user names (" / [ ] : ; | = , + * ? < > or a control character).`;
  if (name.length > 104) return 'The user name is too long.';
  return undefined;
}

/** Control characters shown escaped, so a message never carries a raw newline from input. */
function printable(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

/** Hex groups and colons (with an optional embedded IPv4): the shape of an IPv6 literal. */
function looksIPv6(address: string): boolean {
  return /^[0-9A-Fa-f:.]+$/.test(address) && (address.match(/:/g) ?? []).length >= 2;
}

/** The prompt's check: the typed value, trimmed, through addressProblem (the engine checks the same). */
export function validateAddress(value: string, via: 'byoh' | 'kubeadm'): string | undefined {
  return addressProblem(value.trim(), via);
}

/** The windows-instances key of a node: one of its addresses, or a DNS name starting with its name. */
export function instanceKeyFor(
  node: { metadata?: { name: string }; status?: { addresses?: { address: string }[] } } | undefined,
  name: string,
  keys: readonly string[],
): string | undefined {
  const addresses = new Set((node?.status?.addresses ?? []).map((x) => x.address.toLowerCase()));
  const lower = name.toLowerCase();
  return (
    keys.find((k) => addresses.has(k.toLowerCase())) ??
    keys.find((k) => k.toLowerCase() === lower || k.toLowerCase().startsWith(`${lower}.`))
  );
}

/** The resources --kube-reserved and --system-reserved may name (kubelet's reservable resources). */
const RESERVABLE = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;
const QUANTITY = /^(\d+(\.\d+)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/**
 * Why a `--kube-reserved` / `--system-reserved` value is not a reservation list such as
 * `cpu=500m,memory=1Gi`, or undefined: comma-separated resource=quantity pairs, each resource
 * once, quantities as Kubernetes writes them (500m, 1Gi, 2.5, 100).
 */
export function reservationProblem(value: string): string | undefined {
  const seen = new Set<string>();
  for (const pair of value.split(',')) {
    const [name, quantity, ...rest] = pair.split('=');
    if (rest.length > 0 || name === undefined || quantity === undefined || !name || !quantity)
      return `takes resource=quantity pairs separated by commas, such as cpu=500m,memory=1Gi (got "${printable(value)}")`;
    if (!(RESERVABLE as readonly string[]).includes(name))
      return `cannot reserve "${printable(name)}": use ${RESERVABLE.join(', ')}`;
    if (seen.has(name)) return `names ${name} twice`;
    seen.add(name);
    if (!QUANTITY.test(quantity)) return `"${printable(quantity)}" is not a quantity (such as 500m, 1Gi, 2)`;
    if (name === 'pid' && !/^\d+$/.test(quantity)) return `pid takes a whole number (got "${printable(quantity)}")`;
  }
  return undefined;
}

/**
 * Why a proxy URL for a kubeadm node cannot be taken (blank is "no proxy", not a problem): containerd and the
 * kubelet read HTTP_PROXY/HTTPS_PROXY as an http:// or https:// URL of the proxy itself, so a path, a query or
 * spaces mean something else was pasted. The problem never repeats the URL (it may carry a password).
 */
export function proxyUrlProblem(text: string): string | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  const example = 'such as http://proxy.corp.example:3128';
  if (!/^https?:\/\//i.test(value)) return `Enter an http:// or https:// URL, ${example}`;
  if (/\s/.test(value)) return 'A proxy URL has no spaces';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `This is not a URL: enter the proxy's address, ${example}`;
  }
  if (!url.hostname) return `The URL names no host, ${example}`;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    return `Enter the proxy's own address without a path, ${example}`;
  return undefined;
}

/** A NO_PROXY entry: a name or `.domain` (`*.` allowed), an IPv4 address or CIDR, `*`, each with an optional port. */
const NO_PROXY_ENTRY =
  /^(\*|(\*?\.)?[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*|\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|\[[0-9A-Fa-f:]+\](\/\d{1,3})?)(:\d{1,5})?$/;

/** Why NO_PROXY entries (comma-separated) cannot be taken; blank is none. Names the first bad entry. */
export function noProxyProblem(text: string): string | undefined {
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (/:\/\//.test(entry)) return `"${printable(entry)}": NO_PROXY takes host names, domains and networks, not URLs`;
    if (!NO_PROXY_ENTRY.test(entry))
      return `"${printable(entry)}" is not a host name, .domain, IPv4 address or CIDR (entries are comma-separated)`;
  }
  return undefined;
}
