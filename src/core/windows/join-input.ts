// Checks of what a user types for a join (address, user name), shared by the CLI, the VS Code
// commands and the engine: refused here, such input never reaches a host, a cluster or a message raw.
// Pure.

/** The user's own input was refused before anything was contacted. */
export class JoinInputError extends Error {
  override name = 'JoinInputError';
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const DNS_NAME = /^(?=.{1,253}$)[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/;
// Characters Windows refuses in account names (plus control characters); "DOMAIN\user" is allowed.
const USER_FORBIDDEN = /["/[\]:;|=,+*?<>\u0000-\u001f\u007f]/;

/** Why an address cannot be a join target (an IPv4 address or a DNS name), or undefined. */
export function addressProblem(address: string, via: 'byoh' | 'kubeadm'): string | undefined {
  if (IPV4.test(address) || DNS_NAME.test(address)) return undefined;
  const ipv6 = looksIPv6(address);
  if (ipv6 && via === 'kubeadm') return undefined;
  if (ipv6) return `"${printable(address)}" looks like an IPv6 address; WMCO accepts only IPv4 addresses or DNS names.`;
  return `"${printable(address)}" is not an IPv4 address or a DNS name.`;
}

/** Why a user name cannot be used, or undefined. Quotes, $, parentheses and backticks are legal Windows names and are kept as they are. */
export function userProblem(user: string): string | undefined {
  const [domain, name, ...rest] = user.includes('\\') ? user.split('\\') : [undefined, user];
  if (rest.length > 0 || name === undefined || name.length === 0 || (domain !== undefined && domain.length === 0)) return `"${printable(user)}" is not a user name (use "user" or "DOMAIN\\user").`;
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

/** Why an address cannot be used, or undefined. BYOH keys are IPv4 addresses or DNS names (WMCO). */
export function validateAddress(value: string, via: 'byoh' | 'kubeadm'): string | undefined {
  const v = value.trim();
  if (!v) return "Enter the host's IPv4 address or DNS name.";
  if (/\s/.test(v)) return 'An address has no spaces.';
  if (v.includes(':'))
    return via === 'byoh'
      ? 'WMCO accepts only IPv4 addresses or DNS names that resolve to IPv4, not IPv6.'
      : looksIPv6(v)
        ? undefined
        : 'Not an IPv4/IPv6 address or DNS name (give the port nowhere: SSH uses 22).';
  if (IPV4.test(v)) return undefined;
  if (/^\d+(\.\d+)*$/.test(v)) return 'Not a valid IPv4 address.';
  if (!DNS_NAME.test(v.replace(/\.$/, ''))) return 'Not a valid DNS name (letters, digits, "-" and ".").';
  return undefined;
}

/** The windows-instances key of a node: one of its addresses, or a DNS name starting with its name. */
export function instanceKeyFor(node: { metadata?: { name: string }; status?: { addresses?: { address: string }[] } } | undefined, name: string, keys: readonly string[]): string | undefined {
  const addresses = new Set((node?.status?.addresses ?? []).map((x) => x.address.toLowerCase()));
  const lower = name.toLowerCase();
  return keys.find((k) => addresses.has(k.toLowerCase())) ?? keys.find((k) => k.toLowerCase() === lower || k.toLowerCase().startsWith(`${lower}.`));
}
