// IPv4 CIDR arithmetic for the network checks (the NET rules and the join preflight). Pure.

/** Parses an IPv4 CIDR into its first and last address (as unsigned 32-bit numbers). */
export function ipv4Range(cidr: string): { first: number; last: number } | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr.trim());
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const bits = Number(m[5]);
  if (octets.some((o) => o > 255) || bits > 32) return undefined;
  const addr = ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
  const size = 2 ** (32 - bits);
  const first = Math.floor(addr / size) * size;
  return { first, last: first + size - 1 };
}

const CLASS_E_FIRST = 240 * 2 ** 24;

/** Whether an IPv4 CIDR overlaps the class-E block 240.0.0.0/4. */
export function overlapsClassE(cidr: string): boolean {
  const r = ipv4Range(cidr);
  return r !== undefined && r.last >= CLASS_E_FIRST;
}
