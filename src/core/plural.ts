// Counts in messages, written properly: "1 node", "2 nodes", "1 fix", "3 fixes" — never a count with "(s)". One helper for
// every message of the extension, the CLI and the engine.

/** The irregular plurals our messages use; every other noun takes an s. */
const IRREGULAR: Readonly<Record<string, string>> = {
  fix: 'fixes',
  process: 'processes',
  policy: 'policies',
  entry: 'entries',
  address: 'addresses',
  is: 'are',
  was: 'were',
  has: 'have',
};

/** The noun for a count: `plural(1, 'node')` is "node", `plural(2, 'node')` "nodes". */
export function plural(n: number, singular: string, many?: string): string {
  return n === 1 ? singular : (many ?? IRREGULAR[singular] ?? `${singular}s`);
}

/** The count with its noun: `counted(1, 'node')` is "1 node", `counted(0, 'Machine')` "0 Machines". */
export function counted(n: number, singular: string, many?: string): string {
  return `${n} ${plural(n, singular, many)}`;
}
